// `asimov mcp pins` as a person runs it, on the store a guard left after a real rug pull: the built
// binary, a scratch HOME, and the guard (the proxy's half) seeing the approval take effect.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createToolGuard, type ToolDef, type ToolGuard } from '../../src/adapters/mcp/tool-guard.ts';
import { serverIdFor } from '../../src/adapters/mcp/pins.ts';

const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/asimov.cjs');
const FIXTURE = join(REPO, 'test/fixtures/poisoned-mcp-server.mjs');
let root = '';
let n = 0;

before(() => {
  assert.ok(existsSync(join(REPO, 'dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = mkdtempSync(join(tmpdir(), 'asimov-pins-cmd-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

interface Run { code: number | null; out: string; err: string }

function pins(args: string[], home: string): Run {
  const r = spawnSync(process.execPath, [BIN, 'mcp', 'pins', ...args], { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const storeOf = (home: string) => join(home, '.local/state/asimov/mcp-pins.json');

/**
 * A home whose store holds what a proxy leaves after a subtle rug pull of the poisoned test server:
 * `add` and `echo` pinned, `add` changed (pending), `get_weather` hidden as poisoned (pending).
 */
async function afterRugPull(): Promise<{ home: string; serverId: string; guard: ToolGuard; tools: ToolDef[] }> {
  const home = join(root, `h${++n}`);
  mkdirSync(home, { recursive: true });
  const serverId = serverIdFor({ command: process.execPath, args: [FIXTURE] });
  const guard = createToolGuard({ serverId, env: { HOME: home }, home });
  const client = new Client({ name: 'pins-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE], env: { RUG_PULL_FILE: join(home, 'pull') }, stderr: 'ignore' }));
  try {
    guard.review((await client.listTools()).tools as ToolDef[]);
    const changed = new Promise<void>((done) => client.setNotificationHandler(ToolListChangedNotificationSchema, async () => done()));
    writeFileSync(join(home, 'pull'), '');
    await changed;
    const tools = (await client.listTools()).tools as ToolDef[];
    guard.review(tools);
    return { home, serverId, guard, tools };
  } finally {
    await client.close();
  }
}

describe('asimov mcp pins', () => {
  test('list shows pins, and the hidden definitions with what they say now', async () => {
    const { home, serverId } = await afterRugPull();
    const r = pins(['list'], home);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`^Store: ${storeOf(home)}\n\n${serverId.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\n`));
    assert.match(r.out, /\n {2}add +pinned [0-9a-f]{12} {2}\S+ \(on first use\)\n {2}( +)PENDING changed definition [0-9a-f]{12}, seen \S+\n {6}description: Adds two numbers and returns the sum\. Results are rounded to two decimals\.\n/);
    assert.match(r.out, /\n {2}get_weather +PENDING poisoned definition [0-9a-f]{12}, seen \S+\n {6}finding: hidden-instructions: contains the tag <IMPORTANT>/);
    assert.match(r.out, /approve with: asimov mcp pins approve /);
    const j = JSON.parse(pins(['list', '--json'], home).out) as { path: string; servers: Record<string, { tools: Record<string, unknown>; pending: Record<string, { kind: string }> }> };
    assert.equal(j.path, storeOf(home));
    assert.deepEqual(Object.keys(j.servers[serverId]!.tools).sort(), ['add', 'echo']);
    assert.deepEqual(Object.fromEntries(Object.entries(j.servers[serverId]!.pending).map(([k, v]) => [k, v.kind])), { add: 'changed', get_weather: 'poisoned' });
  });

  test('approve (no connection to the server) makes the changed tool callable again in the running proxy', async () => {
    const { home, serverId, guard, tools } = await afterRugPull();
    assert.ok(guard.checkCall('add'));
    const r = pins(['approve', serverId], home);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^approved add on .*poisoned-mcp-server\.mjs \([0-9a-f]{12}\)\n$/);
    assert.equal(guard.checkCall('add'), null);
    assert.deepEqual(guard.review(tools).visible.map((t) => t.name), ['add', 'echo']);
  });

  test('a poisoned tool is approved only by name with --accept-findings', async () => {
    const { home, serverId, guard } = await afterRugPull();
    pins(['approve', serverId], home);
    const none = pins(['approve', serverId], home);
    assert.equal(none.code, 1);
    assert.match(none.err, /nothing to approve .* but poisoned definitions \(get_weather\): name them and add --accept-findings/);
    const refused = pins(['approve', serverId, 'get_weather'], home);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /hidden as poisoned .*--accept-findings/);
    assert.ok(guard.checkCall('get_weather'));
    const ok = pins(['approve', serverId, 'get_weather', '--accept-findings'], home);
    assert.equal(ok.code, 0, ok.err);
    assert.equal(guard.checkCall('get_weather'), null);
    assert.match(pins(['list'], home).out, /get_weather +pinned [0-9a-f]{12} {2}\S+ \(by a person, findings accepted\)/);
  });

  test('forget a tool or a whole server; the next listing pins afresh', async () => {
    const { home, serverId, tools } = await afterRugPull();
    const one = pins(['forget', serverId, 'add'], home);
    assert.equal(one.code, 0, one.err);
    assert.match(one.out, /^forgot the pin of add on .*\ndropped the pending definition of add on /);
    const guard = createToolGuard({ serverId, env: { HOME: home }, home });
    assert.deepEqual(guard.review(tools).visible.map((t) => t.name), ['add', 'echo'], 'pinned again on first sight');
    assert.equal(pins(['forget', serverId], home).code, 0);
    assert.match(pins(['list'], home).out, /^No pinned MCP tools/);
  });

  test('mistakes and a corrupt store are errors with a message, never a stack trace', async () => {
    const { home, serverId } = await afterRugPull();
    const wrong = pins(['approve', 'node nothing.js'], home);
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /no pins or pending definitions for server "node nothing\.js" \(known servers: /);
    assert.match(pins(['approve'], home).err, /approve needs a server id/);
    assert.match(pins(['frobnicate'], home).err, /unknown pins command 'frobnicate'/);
    assert.match(pins(['forget', serverId, 'nope'], home).err, /"nope" has no pin/);
    writeFileSync(storeOf(home), '[]');
    const corrupt = pins(['list'], home);
    assert.equal(corrupt.code, 1);
    assert.match(corrupt.err, /mcp-pins\.json: the MCP pin store is corrupt \(not a JSON object\)/);
    assert.equal(readFileSync(storeOf(home), 'utf8'), '[]');
    for (const r of [wrong, corrupt]) assert.doesNotMatch(r.err, /\n\s+at .+:\d+:\d+\)?\n/);
    assert.equal(pins([], home).code, 1);
    assert.match(pins(['--help'], home).out, /^Usage:\n {2}asimov mcp pins list/);
    assert.ok(existsSync(dirname(storeOf(home))));
  });
});
