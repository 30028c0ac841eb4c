// Fixture texts in, exact texts out: asimov's entries in Cursor's hooks.json (one per event, failClosed) are
// added, updated and removed, a second run changes nothing, uninstall gives back the original bytes, and a
// file that is not plain JSON is refused. Then the whole `asimov wire cursor` command on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { CURSOR_HOOKS_SPEC, cursorHooksPath, cursorTarget } from '../../src/wire/cursor.ts';
import { flatHooksInstalled } from '../../src/wire/flat-hooks.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';

const F = '/home/u/.cursor/hooks.json';
const built = buildHookCommand({
  client: 'cursor', nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
});
const CMD = built.command;
const T = built.clientTimeoutSec;
const J = (s: string) => JSON.stringify(s);
const install = { command: CMD, timeoutSec: T, uninstall: false, file: F };
const uninstall = { ...install, uninstall: true };
const plan = (text: string | null, o = install) => cursorTarget.plan(text, o);
const EVENTS = ['beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile', 'preToolUse'];
const ADDED = EVENTS.map((e) => `added ${e} hook`);
const REMOVED = EVENTS.map((e) => `removed ${e} hook`);

/** One event's list holding asimov's entry, in the 2-space style, at the given indent. */
const entry = (ind: string) => `{\n${ind}  "command": ${J(CMD)},\n${ind}  "timeout": ${T},\n${ind}  "failClosed": true\n${ind}}`;

function roundTrip(before: string | null, expected: string, changes: string[]): void {
  const first = plan(before);
  assert.equal(first.text, expected);
  assert.deepEqual(first.changes, changes);
  assert.deepEqual(plan(first.text), { text: first.text, changes: [] });
  const removed = plan(first.text, uninstall);
  assert.deepEqual(removed.changes, REMOVED);
  if (before !== null) assert.equal(removed.text, before);
}

describe("planning Cursor's hooks.json", () => {
  test('no file: version 1 and a failClosed entry for each of the four events; uninstall leaves only the version', () => {
    const lists = EVENTS.map((e) => `    ${J(e)}: [\n      ${entry('      ')}\n    ]`).join(',\n');
    const fresh = `{\n  "version": 1,\n  "hooks": {\n${lists}\n  }\n}\n`;
    roundTrip(null, fresh, ADDED);
    assert.equal(plan(fresh, uninstall).text, '{\n  "version": 1\n}\n');
    assert.deepEqual(plan(null, uninstall), { text: null, changes: [] });
    const parsed = JSON.parse(fresh) as { hooks: Record<string, unknown[]> };
    for (const e of EVENTS) assert.deepEqual(parsed.hooks[e], [{ command: CMD, timeout: T, failClosed: true }]);
    assert.deepEqual(flatHooksInstalled(CURSOR_HOOKS_SPEC, fresh, F), { events: EVENTS, complete: true });
  });

  test("the person's own hooks and other events keep their bytes; tabs and CRLF are followed", () => {
    const before = '{\r\n\t"version": 1,\r\n\t"hooks": {\r\n\t\t"afterFileEdit": [\r\n\t\t\t{ "command": "./format.sh" }\r\n\t\t],\r\n\t\t"beforeShellExecution": [\r\n\t\t\t{ "command": "./audit.sh", "timeout": 5 }\r\n\t\t]\r\n\t}\r\n}\r\n';
    const e = (ind: string) => `{\r\n${ind}\t"command": ${J(CMD)},\r\n${ind}\t"timeout": ${T},\r\n${ind}\t"failClosed": true\r\n${ind}}`;
    const list = (name: string) => `\t\t${J(name)}: [\r\n\t\t\t${e('\t\t\t')}\r\n\t\t]`;
    const after = `{\r\n\t"version": 1,\r\n\t"hooks": {\r\n\t\t"afterFileEdit": [\r\n\t\t\t{ "command": "./format.sh" }\r\n\t\t],\r\n\t\t"beforeShellExecution": [\r\n\t\t\t{ "command": "./audit.sh", "timeout": 5 },\r\n\t\t\t${e('\t\t\t')}\r\n\t\t],\r\n${list('beforeMCPExecution')},\r\n${list('beforeReadFile')},\r\n${list('preToolUse')}\r\n\t}\r\n}\r\n`;
    roundTrip(before, after, ADDED);
  });

  test('a file without "version" gets it (Cursor reads version 1 files); uninstall keeps it', () => {
    const before = '{\n  "hooks": {}\n}\n';
    const r = plan(before);
    assert.deepEqual(r.changes, [...ADDED, 'set version to 1']);
    assert.equal((JSON.parse(r.text!) as { version: number }).version, 1);
    assert.equal(plan(r.text, uninstall).text, '{\n  "version": 1\n}\n');
  });

  test('an outdated entry (old command, no failClosed, a matcher) is brought up to date in place; duplicates go', () => {
    const old = buildHookCommand({ client: 'cursor', nodePath: '/old/node', asimovPath: '/old/asimov.cjs', watchdog: { kind: 'none' } }).command;
    const current = plan(null).text!;
    const before = current
      .replace(`"preToolUse": [\n      ${entry('      ')}`, `"preToolUse": [\n      {\n        "command": ${J(old)},\n        "matcher": "Shell",\n        "timeout": 30,\n        "failClosed": false\n      }`)
      .replace(`"beforeReadFile": [\n      ${entry('      ')}`, `"beforeReadFile": [\n      ${entry('      ')},\n      ${entry('      ')}`);
    const r = plan(before);
    assert.deepEqual(r.changes, [
      'removed 1 duplicate beforeReadFile hook',
      `updated preToolUse hook: new command line, timeout 30 → ${T}, failClosed false → true, matcher "Shell" removed (asimov must see every call)`,
    ]);
    assert.deepEqual(JSON.parse(r.text!), JSON.parse(current));
    assert.deepEqual(plan(r.text).changes, []);
  });

  test('another client\'s asimov entry is not taken for this one', () => {
    const other = buildHookCommand({ client: 'windsurf', nodePath: '/n', asimovPath: '/a', watchdog: { kind: 'none' } }).command;
    const before = `{\n  "version": 1,\n  "hooks": {\n    "preToolUse": [\n      { "command": ${J(other)} }\n    ]\n  }\n}\n`;
    const r = plan(before);
    assert.deepEqual(r.changes, ADDED);
    assert.equal(plan(r.text, uninstall).text, before);
  });

  test('files Cursor could not read, or shapes that are not hooks.json, are refused with file, line and column', () => {
    const cases: Array<[string, RegExp]> = [
      ['{\n  // mine\n  "version": 1\n}\n', /comments are not allowed/],
      ['{\n  "version": 1,\n}\n', /trailing comma/],
      ['[1]\n', /top-level value must be an object/],
      ['{ "hooks": [] }\n', /must be an object/],
      ['{ "hooks": { "preToolUse": {} } }\n', /must be a list/],
      ['{ "hooks": {}, "hooks": {} }\n', /appears twice/],
    ];
    for (const [text, re] of cases) {
      for (const o of [install, uninstall]) {
        assert.throws(() => plan(text, o), (e: unknown) => {
          assert.ok(e instanceof AsimovError && e.code === 'wire_settings_invalid', String(e));
          assert.match(e.message, re);
          assert.equal(e.location?.file, F);
          assert.equal(typeof e.location?.line, 'number');
          return true;
        }, text);
      }
    }
  });
});

describe('the wire target', () => {
  test('user ~/.cursor, project .cursor, system /etc/cursor; registered', () => {
    const ctx = { home: '/home/u', projectRoot: '/work/p', env: {} };
    assert.equal(cursorTarget.configPath('user', ctx), '/home/u/.cursor/hooks.json');
    assert.equal(cursorTarget.configPath('project', ctx), '/work/p/.cursor/hooks.json');
    assert.equal(cursorHooksPath('system', { ...ctx, platform: 'linux' }), '/etc/cursor/hooks.json');
    assert.equal(cursorHooksPath('system', { ...ctx, platform: 'darwin' }), '/Library/Application Support/Cursor/hooks.json');
    assert.deepEqual(cursorTarget.scopes, ['user', 'project', 'system']);
    assert.equal(WIRE_TARGETS['cursor'], cursorTarget);
  });
});

describe('`asimov wire cursor` on a scratch HOME', () => {
  const REPO = resolve(import.meta.dirname, '../..');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-wire-cursor-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  const file = join(home, '.cursor', 'hooks.json');
  const wire = (...args: string[]) => spawnSync(process.execPath, [join(REPO, 'bin/asimov.cjs'), 'wire', 'cursor', ...args], {
    cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8',
  });

  test('installs, is idempotent, and uninstalls to a file with only the version', () => {
    const first = wire();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /added beforeShellExecution hook/);
    const hooks = JSON.parse(readFileSync(file, 'utf8')) as { version: number; hooks: Record<string, Array<{ command: string; failClosed: boolean }>> };
    assert.equal(hooks.version, 1);
    for (const e of EVENTS) {
      assert.equal(hooks.hooks[e]?.length, 1, e);
      assert.match(hooks.hooks[e]![0]!.command, /hook cursor --deadline-ms \d+ .*# asimov-hook:cursor$/);
      assert.equal(hooks.hooks[e]![0]!.failClosed, true);
    }
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const second = wire();
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /nothing to change/);
    const removed = wire('--uninstall');
    assert.equal(removed.status, 0, removed.stderr);
    assert.equal(readFileSync(file, 'utf8'), '{\n  "version": 1\n}\n');
    assert.ok(!existsSync(join(project, '.cursor')));
  });

  test('a hooks.json with a comment is left exactly as it was', () => {
    const bad = '{\n  // mine\n  "version": 1\n}\n';
    writeFileSync(file, bad);
    const r = wire();
    assert.equal(r.status, 1);
    assert.match(r.stderr, /comments are not allowed/);
    assert.equal(readFileSync(file, 'utf8'), bad);
  });

  test.after(() => rmSync(root, { recursive: true, force: true }));
});
