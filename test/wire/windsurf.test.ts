// Fixture texts in, exact texts out: asimov's entries in Windsurf's hooks.json (one per pre-hook, with
// show_output) are added, updated and removed, a second run changes nothing, uninstall gives back the
// original bytes, and a file that is not plain JSON is refused. Then `asimov wire windsurf` on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { flatHooksInstalled } from '../../src/wire/flat-hooks.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';
import { WINDSURF_HOOKS_SPEC, windsurfHooksPath, windsurfTarget } from '../../src/wire/windsurf.ts';

const F = '/home/u/.codeium/windsurf/hooks.json';
const built = buildHookCommand({
  client: 'windsurf', nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
});
const CMD = built.command;
const J = (s: string) => JSON.stringify(s);
const install = { command: CMD, timeoutSec: built.clientTimeoutSec, uninstall: false, file: F };
const uninstall = { ...install, uninstall: true };
const plan = (text: string | null, o = install) => windsurfTarget.plan(text, o);
const EVENTS = ['pre_run_command', 'pre_write_code', 'pre_read_code', 'pre_mcp_tool_use'];
const ADDED = EVENTS.map((e) => `added ${e} hook`);
const REMOVED = EVENTS.map((e) => `removed ${e} hook`);

const entry = (ind: string) => `{\n${ind}  "command": ${J(CMD)},\n${ind}  "show_output": true\n${ind}}`;

function roundTrip(before: string | null, expected: string, changes: string[]): void {
  const first = plan(before);
  assert.equal(first.text, expected);
  assert.deepEqual(first.changes, changes);
  assert.deepEqual(plan(first.text), { text: first.text, changes: [] });
  const removed = plan(first.text, uninstall);
  assert.deepEqual(removed.changes, REMOVED);
  if (before !== null) assert.equal(removed.text, before);
}

describe("planning Windsurf's hooks.json", () => {
  test('no file: an entry with show_output for each of the four pre-hooks, and no timeout field', () => {
    const lists = EVENTS.map((e) => `    ${J(e)}: [\n      ${entry('      ')}\n    ]`).join(',\n');
    const fresh = `{\n  "hooks": {\n${lists}\n  }\n}\n`;
    roundTrip(null, fresh, ADDED);
    assert.deepEqual(plan(null, uninstall), { text: null, changes: [] });
    const parsed = JSON.parse(fresh) as { hooks: Record<string, unknown[]> };
    for (const e of EVENTS) assert.deepEqual(parsed.hooks[e], [{ command: CMD, show_output: true }]);
    assert.deepEqual(flatHooksInstalled(WINDSURF_HOOKS_SPEC, fresh, F), { events: EVENTS, complete: true });
  });

  test("the person's own hooks and other settings keep their bytes; tabs and CRLF are followed", () => {
    const before = '{\r\n\t"hooks": {\r\n\t\t"post_write_code": [\r\n\t\t\t{ "command": "./format.sh", "show_output": false }\r\n\t\t],\r\n\t\t"pre_run_command": [\r\n\t\t\t{ "command": "./audit.sh" }\r\n\t\t]\r\n\t}\r\n}\r\n';
    const e = (ind: string) => `{\r\n${ind}\t"command": ${J(CMD)},\r\n${ind}\t"show_output": true\r\n${ind}}`;
    const list = (name: string) => `\t\t${J(name)}: [\r\n\t\t\t${e('\t\t\t')}\r\n\t\t]`;
    const after = `{\r\n\t"hooks": {\r\n\t\t"post_write_code": [\r\n\t\t\t{ "command": "./format.sh", "show_output": false }\r\n\t\t],\r\n\t\t"pre_run_command": [\r\n\t\t\t{ "command": "./audit.sh" },\r\n\t\t\t${e('\t\t\t')}\r\n\t\t],\r\n${list('pre_write_code')},\r\n${list('pre_read_code')},\r\n${list('pre_mcp_tool_use')}\r\n\t}\r\n}\r\n`;
    roundTrip(before, after, ADDED);
  });

  test('an outdated entry (old command, show_output false) is brought up to date in place; duplicates go', () => {
    const old = buildHookCommand({ client: 'windsurf', nodePath: '/old/node', asimovPath: '/old/asimov.cjs', watchdog: { kind: 'none' } }).command;
    const current = plan(null).text!;
    const before = current
      .replace(`"pre_mcp_tool_use": [\n      ${entry('      ')}`, `"pre_mcp_tool_use": [\n      {\n        "command": ${J(old)},\n        "show_output": false\n      }`)
      .replace(`"pre_read_code": [\n      ${entry('      ')}`, `"pre_read_code": [\n      ${entry('      ')},\n      ${entry('      ')}`);
    const r = plan(before);
    assert.deepEqual(r.changes, [
      'removed 1 duplicate pre_read_code hook',
      'updated pre_mcp_tool_use hook: new command line, show_output false → true',
    ]);
    assert.equal(r.text, current);
    assert.deepEqual(plan(r.text).changes, []);
  });

  test("another client's asimov entry is not taken for this one", () => {
    const other = buildHookCommand({ client: 'cursor', nodePath: '/n', asimovPath: '/a', watchdog: { kind: 'none' } }).command;
    const before = `{\n  "hooks": {\n    "pre_run_command": [\n      { "command": ${J(other)} }\n    ]\n  }\n}\n`;
    const r = plan(before);
    assert.deepEqual(r.changes, ADDED);
    assert.equal(plan(r.text, uninstall).text, before);
  });

  test('files that are not plain JSON, or shapes that are not hooks.json, are refused with file, line and column', () => {
    const cases: Array<[string, RegExp]> = [
      ['{\n  // mine\n  "hooks": {}\n}\n', /comments are not allowed/],
      ['{\n  "hooks": {},\n}\n', /trailing comma/],
      ['[1]\n', /top-level value must be an object/],
      ['{ "hooks": [] }\n', /must be an object/],
      ['{ "hooks": { "pre_run_command": {} } }\n', /must be a list/],
    ];
    for (const [text, re] of cases) {
      for (const o of [install, uninstall]) {
        assert.throws(() => plan(text, o), (e: unknown) => {
          assert.ok(e instanceof AsimovError && e.code === 'wire_settings_invalid', String(e));
          assert.match(e.message, re);
          assert.equal(e.location?.file, F);
          return true;
        }, text);
      }
    }
  });
});

describe('the wire target', () => {
  test('user ~/.codeium/windsurf, project .windsurf, system /etc/windsurf; registered', () => {
    const ctx = { home: '/home/u', projectRoot: '/work/p', env: {} };
    assert.equal(windsurfTarget.configPath('user', ctx), F);
    assert.equal(windsurfTarget.configPath('project', ctx), '/work/p/.windsurf/hooks.json');
    assert.equal(windsurfHooksPath('system', { ...ctx, platform: 'linux' }), '/etc/windsurf/hooks.json');
    assert.equal(windsurfHooksPath('system', { ...ctx, platform: 'darwin' }), '/Library/Application Support/Windsurf/hooks.json');
    assert.deepEqual(windsurfTarget.scopes, ['user', 'project', 'system']);
    assert.equal(WIRE_TARGETS['windsurf'], windsurfTarget);
  });
});

describe('`asimov wire windsurf` on a scratch HOME', () => {
  const REPO = resolve(import.meta.dirname, '../..');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-wire-windsurf-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  const file = join(home, '.codeium', 'windsurf', 'hooks.json');
  const wire = (...args: string[]) => spawnSync(process.execPath, [join(REPO, 'bin/asimov.cjs'), 'wire', 'windsurf', ...args], {
    cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8',
  });

  test('installs, is idempotent, and uninstalls', () => {
    const first = wire();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /added pre_run_command hook/);
    const hooks = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, Array<{ command: string; show_output: boolean }>> };
    for (const e of EVENTS) {
      assert.equal(hooks.hooks[e]?.length, 1, e);
      assert.match(hooks.hooks[e]![0]!.command, /hook windsurf --deadline-ms \d+ .*# asimov-hook:windsurf$/);
      assert.equal(hooks.hooks[e]![0]!.show_output, true);
    }
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const second = wire();
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /nothing to change/);
    const removed = wire('--uninstall');
    assert.equal(removed.status, 0, removed.stderr);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {});
    assert.ok(!existsSync(join(project, '.windsurf')));
  });

  test('a hooks.json with a comment is left exactly as it was', () => {
    const bad = '{\n  // mine\n  "hooks": {}\n}\n';
    writeFileSync(file, bad);
    const r = wire();
    assert.equal(r.status, 1);
    assert.match(r.stderr, /comments are not allowed/);
    assert.equal(readFileSync(file, 'utf8'), bad);
  });

  test.after(() => rmSync(root, { recursive: true, force: true }));
});
