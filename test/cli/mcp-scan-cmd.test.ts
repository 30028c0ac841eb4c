// `asimov mcp scan` as a person runs it: the built binary, a scratch HOME whose client configs point at
// real servers (server-everything over stdio, SSE and Streamable HTTP on 127.0.0.1, server-filesystem,
// mcp-server-commands, the poisoned test server), a broken one and a silent one.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { hashTool, serverEntry, serverIdFor, updatePins } from '../../src/adapters/mcp/pins.ts';
import type { ScanReport } from '../../src/adapters/mcp/scan.ts';

const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/asimov.cjs');
const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const COMMANDS = join(REPO, 'node_modules/mcp-server-commands/build/index.js');
const FIXTURE = join(REPO, 'test/fixtures/poisoned-mcp-server.mjs');
const NODE = process.execPath;

let root = '';
let n = 0;
const servers: ChildProcess[] = [];
const ports: Record<'sse' | 'http', number> = { sse: 0, http: 0 };

/** server-everything listens on every interface; this preload binds it to 127.0.0.1 and prints the port. */
const LOOPBACK = join(REPO, 'test/fixtures/loopback-listen.cjs');

async function startEverything(mode: 'sse' | 'streamableHttp'): Promise<number> {
  const child = spawn(NODE, ['--require', LOOPBACK, EVERYTHING, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  servers.push(child);
  let err = '';
  return new Promise((ok, fail) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /loopback-listen: listening on 127\.0\.0\.1:(\d+)/.exec(err);
      if (m) ok(Number(m[1]));
    });
    child.on('exit', () => fail(new Error(`server-everything ${mode} exited: ${err}`)));
  });
}

before(async () => {
  assert.ok(existsSync(join(REPO, 'dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = mkdtempSync(join(tmpdir(), 'asimov-scan-'));
  [ports.sse, ports.http] = await Promise.all([startEverything('sse'), startEverything('streamableHttp')]);
});

after(() => {
  for (const s of servers) s.kill();
  rmSync(root, { recursive: true, force: true });
});

interface Run { code: number | null; out: string; err: string }

function scratch(): { home: string; project: string; files: string } {
  const base = join(root, `s${++n}`);
  const s = { home: join(base, 'home'), project: join(base, 'project'), files: join(base, 'files') };
  for (const d of Object.values(s)) mkdirSync(d, { recursive: true });
  return s;
}

function write(file: string, data: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data, null, 2));
}

function scan(args: string[], o: { home: string; cwd: string }): Run {
  const r = spawnSync(NODE, [BIN, 'mcp', 'scan', ...args], {
    cwd: o.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: o.home },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function json(r: Run): ScanReport {
  assert.equal(r.err, '');
  return JSON.parse(r.out) as ScanReport;
}

const pinsFile = (home: string) => join(home, '.local/state/asimov/mcp-pins.json');

describe('asimov mcp scan', () => {
  test('reads every client\'s config, connects over stdio, SSE and Streamable HTTP, and reports per client and server', () => {
    const s = scratch();
    write(join(s.home, '.claude.json'), {
      mcpServers: {
        poisoned: { command: NODE, args: [FIXTURE] },
        everything: { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'] },
      },
      projects: { [s.project]: { mcpServers: { 'everything-http': { type: 'http', url: `http://127.0.0.1:${ports.http}/mcp` } } } },
    });
    write(join(s.home, '.cursor/mcp.json'), { mcpServers: { filesystem: { command: NODE, args: [FILESYSTEM, s.files] }, 'everything-sse': { url: `http://127.0.0.1:${ports.sse}/sse` } } });
    write(join(s.home, '.codex/config.toml'), `[mcp_servers.commands]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(COMMANDS)}]\n`);
    write(join(s.home, '.gemini/settings.json'), { mcpServers: { broken: { command: join(s.files, 'no-such-server') }, 'everything-sse': { url: `http://127.0.0.1:${ports.sse}/sse` } } });

    const r = scan([], { home: s.home, cwd: s.project });
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.out, new RegExp(`^Claude Code: ${s.home}/\\.claude\\.json\n`));
    assert.match(r.out, /\n {4}BLOCK {3}get_weather +new \(not pinned yet\)\n {13}block hidden-instructions: contains the tag <IMPORTANT> \(at \$\.description\)/);
    assert.match(r.out, /\n {4}ok {6}add +new \(not pinned yet\)\n/);
    assert.match(r.out, /server "broken" \(user, stdio: .*no-such-server\) FAILED: cannot start or list it: spawn .* ENOENT/);
    assert.match(r.out, /\nSummary: 8 servers \(1 failed\), \d+ tools: 1 blocked, 0 changed since pinned, 1 with warnings\.\n$/);
    for (const head of ['Cursor: ', 'Codex: ', 'Gemini CLI: ']) assert.ok(r.out.includes(`\n${head}`), head);

    const report = json(scan(['--json'], { home: s.home, cwd: s.project }));
    const by = Object.fromEntries(report.servers.map((x) => [`${x.client}/${x.name}`, x]));
    for (const key of ['claude-code/everything', 'claude-code/everything-http', 'cursor/everything-sse', 'gemini-cli/everything-sse']) {
      assert.equal(by[key]?.status, 'ok', `${key}: ${by[key]?.reason}`);
      assert.ok(by[key]!.tools.some((t) => t.name === 'get-sum'), key);
    }
    assert.equal(by['claude-code/everything-http']?.transport, 'http');
    assert.equal(by['gemini-cli/everything-sse']?.transport, 'sse');
    assert.equal(by['claude-code/everything-http']?.serverId, `http://127.0.0.1:${ports.http}/mcp`);
    assert.ok(by['cursor/filesystem']?.tools.some((t) => t.name === 'read_text_file'));
    assert.deepEqual(by['codex/commands']?.tools.map((t) => t.name), ['run_command']);
    // The published servers carry no block finding.
    for (const x of report.servers.filter((x) => x.name !== 'poisoned')) {
      for (const t of x.tools) assert.ok(!t.findings.some((f) => f.severity === 'block'), `${x.name}/${t.name}`);
    }
    assert.equal(by['claude-code/poisoned']?.serverId, serverIdFor({ command: NODE, args: [FIXTURE] }));
    assert.deepEqual(report.summary, { servers: 8, failed: 1, skipped: 0, tools: report.summary.tools, blocked: 1, changed: 0, warned: 1 });
    assert.equal(existsSync(pinsFile(s.home)), false, 'a scan never pins anything');
  });

  test('reports pins: pinned, CHANGED since pinned, and findings a person accepted', () => {
    const s = scratch();
    write(join(s.home, '.claude.json'), { mcpServers: { poisoned: { command: NODE, args: [FIXTURE] } } });
    const id = serverIdFor({ command: NODE, args: [FIXTURE] });
    const echo = { name: 'echo', description: 'Echoes the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'Text to echo' } }, required: ['text'] } };
    updatePins(pinsFile(s.home), (store) => {
      const e = serverEntry(store, id);
      e.tools['echo'] = { hash: hashTool(echo), pinnedAt: 't', by: 'first-use' };
      e.tools['add'] = { hash: '0'.repeat(64), pinnedAt: 't', by: 'first-use' };
    });
    const before = readFileSync(pinsFile(s.home), 'utf8');
    const r = scan([], { home: s.home, cwd: s.project });
    assert.equal(r.code, 2);
    assert.match(r.out, /\n {4}CHANGED add +changed since pinned \(pinned 000000000000, now [0-9a-f]{12}\)\n/);
    assert.match(r.out, /\n {4}ok {6}echo +pinned\n/);
    assert.equal(readFileSync(pinsFile(s.home), 'utf8'), before, 'the store is left as it was');

    // A person accepts the poisoned tool's exact definition, and `add` is re-pinned as it is now.
    const tools = json(scan(['--json'], { home: s.home, cwd: s.project })).servers[0]!.tools;
    const hashOf = (name: string) => tools.find((t) => t.name === name)!.hash!;
    updatePins(pinsFile(s.home), (store) => {
      const e = serverEntry(store, id);
      e.tools['get_weather'] = { hash: hashOf('get_weather'), pinnedAt: 't', by: 'person', acceptedFindings: ['hidden-instructions'] };
      e.tools['add'] = { hash: hashOf('add'), pinnedAt: 't', by: 'person' };
    });
    const r2 = scan([], { home: s.home, cwd: s.project });
    assert.equal(r2.code, 0, r2.out);
    assert.match(r2.out, /\n {4}warn {4}get_weather +pinned \(findings accepted by a person\)\n {13}block hidden-instructions/);
    assert.match(r2.out, /: 0 blocked, 0 changed since pinned, 1 with warnings\.\n$/);
  });

  test('exit 0 when nothing blocks and nothing changed; warnings do not fail it', () => {
    const s = scratch();
    const cfg = join(s.files, 'servers.json');
    write(cfg, { mcpServers: { everything: { command: NODE, args: [EVERYTHING, 'stdio'] }, clean: { command: NODE, args: [FIXTURE], env: { POISONED_TOOL: 'off' } } } });
    const r = scan([cfg], { home: s.home, cwd: s.project });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^Config file: /);
    assert.match(r.out, /server "clean" .* 2 tools\n/, 'the configured env reached the server');
  });

  test('a server that fails or never answers is reported, exit 1, and the others are still scanned', () => {
    const s = scratch();
    const silent = join(s.files, 'silent.mjs');
    write(silent, 'setInterval(() => {}, 1000);\n');
    const noisy = join(s.files, 'noisy.mjs');
    write(noisy, 'process.stderr.write("boom: missing API key\\n"); process.exit(3);\n');
    const cfg = join(s.files, 'mcp.json');
    write(cfg, { mcpServers: { silent: { command: NODE, args: [silent] }, noisy: { command: NODE, args: [noisy] }, ok: { command: NODE, args: [EVERYTHING, 'stdio'] }, gone: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } });
    const r = scan(['--timeout-ms', '1500', cfg], { home: s.home, cwd: s.project });
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /server "silent" .* FAILED: cannot start or list it: no answer within 1500 ms/);
    assert.match(r.out, /server "noisy" .* FAILED: .*\(stderr: boom: missing API key\)/);
    assert.match(r.out, /server "gone" \(user, http: http:\/\/127\.0\.0\.1:9\/mcp\) FAILED: cannot reach it \(http\)/);
    assert.match(r.out, /server "ok" .* 13 tools\n/);
  });

  test('a project\'s own servers are not started unless --project is given', () => {
    const s = scratch();
    const marker = join(s.files, 'started');
    write(join(s.project, '.mcp.json'), { mcpServers: { sneaky: { command: NODE, args: ['-e', 'require("fs").writeFileSync(process.argv[1], "x")', marker] } } });
    const r = scan([], { home: s.home, cwd: s.project });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /server "sneaky" \(project, stdio: .*\) skipped: from the project's own file/);
    assert.equal(existsSync(marker), false);
    const r2 = scan(['--project', '--timeout-ms', '3000'], { home: s.home, cwd: s.project });
    assert.equal(r2.code, 1);
    assert.match(r2.out, /server "sneaky" .* FAILED/);
    assert.equal(existsSync(marker), true);
  });

  test('an entry that runs asimov mcp proxy is scanned at its upstream, under the upstream\'s pin id', () => {
    const s = scratch();
    write(join(s.home, '.claude.json'), { mcpServers: { guarded: { command: NODE, args: [BIN, 'mcp', 'proxy', '--', NODE, FIXTURE] } } });
    const report = json(scan(['--json'], { home: s.home, cwd: s.project }));
    const g = report.servers[0]!;
    assert.equal(g.viaProxy, true);
    assert.equal(g.serverId, serverIdFor({ command: NODE, args: [FIXTURE] }));
    assert.deepEqual(g.tools.map((t) => t.name), ['add', 'echo', 'get_weather']);
  });

  test('no servers, bad config files and a corrupt pin store are all reported', () => {
    const s = scratch();
    assert.match(scan([], { home: s.home, cwd: s.project }).out, /No MCP servers found/);
    write(join(s.home, '.cursor/mcp.json'), '{ "mcpServers": ');
    write(join(s.home, '.claude.json'), { mcpServers: { e: { command: NODE, args: [EVERYTHING, 'stdio'] } } });
    write(pinsFile(s.home), 'garbage');
    const r = scan([], { home: s.home, cwd: s.project });
    assert.equal(r.code, 1);
    assert.match(r.out, /\nNotes:\n {2}.*\.cursor\/mcp\.json: not valid JSON/);
    assert.match(r.out, /\nPin store: .*corrupt/);
    assert.match(r.out, /pin unknown \(the pin store cannot be read\)/);
  });

  test('usage errors', () => {
    const s = scratch();
    const r = scan(['--timeout-ms', 'soon'], { home: s.home, cwd: s.project });
    assert.equal(r.code, 1);
    assert.match(r.err, /--timeout-ms takes a positive whole number/);
    const h = scan(['--help'], { home: s.home, cwd: s.project });
    assert.equal(h.code, 0);
    assert.match(h.out, /^Usage: asimov mcp scan/);
  });
});
