// Fixture texts in, exact texts out: asimov's entries in Cursor's hooks.json (one per event, failClosed) are
// added, updated and removed, a second run changes nothing, uninstall gives back the original bytes, and a
// file that is not plain JSON is refused. Then the whole `asimov wire cursor` command on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CURSOR_HOOKS_SPEC, cursorHooksPath, cursorTarget } from '../../src/wire/cursor.ts';
import { flatHooksInstalled } from '../../src/wire/flat-hooks.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import {
  leavesUnreadableTest, plannedHook, planRoundTrip, refusesUnreadableTest, strictHooksJsonRefusals, wireRunTest, wireScratch, wireTargetTest,
} from '../helpers/wire-tests.ts';

const F = '/home/u/.cursor/hooks.json';
const hook = plannedHook('cursor', F);
const { command: CMD, timeoutSec: T, install, uninstall } = hook;
const J = (s: string) => JSON.stringify(s);
const plan = (text: string | null, o = install) => cursorTarget.plan(text, o);
const EVENTS = ['beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile', 'preToolUse'];
const ADDED = EVENTS.map((e) => `added ${e} hook`);
const REMOVED = EVENTS.map((e) => `removed ${e} hook`);

/** One event's list holding asimov's entry, in the 2-space style, at the given indent. */
const entry = (ind: string) => `{\n${ind}  "command": ${J(CMD)},\n${ind}  "timeout": ${T},\n${ind}  "failClosed": true\n${ind}}`;

const roundTrip = planRoundTrip(plan, hook, REMOVED);

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

  refusesUnreadableTest('files Cursor could not read, or shapes that are not hooks.json, are refused with file, line and column', plan, hook, strictHooksJsonRefusals('preToolUse'));
});

describe('the wire target', () => {
  const ctx = { home: '/home/u', projectRoot: '/work/p', env: {} };
  wireTargetTest('user ~/.cursor, project .cursor, system /etc/cursor; registered', cursorTarget, {
    scopes: ['user', 'project', 'system'],
    paths: () => [
      [cursorTarget.configPath('user', ctx), '/home/u/.cursor/hooks.json'],
      [cursorTarget.configPath('project', ctx), '/work/p/.cursor/hooks.json'],
      [cursorHooksPath('system', { ...ctx, platform: 'linux' }), '/etc/cursor/hooks.json'],
      [cursorHooksPath('system', { ...ctx, platform: 'darwin' }), '/Library/Application Support/Cursor/hooks.json'],
    ],
  });
});

describe('`asimov wire cursor` on a scratch HOME', () => {
  const scratch = wireScratch('cursor');
  const file = join(scratch.home, '.cursor', 'hooks.json');

  wireRunTest('installs, is idempotent, and uninstalls, deleting the file it created', scratch, {
    file,
    said: [/added beforeShellExecution hook/],
    installed: (text) => {
      const hooks = JSON.parse(text) as { version: number; hooks: Record<string, Array<{ command: string; failClosed: boolean }>> };
      assert.equal(hooks.version, 1);
      for (const e of EVENTS) {
        assert.equal(hooks.hooks[e]?.length, 1, e);
        assert.match(hooks.hooks[e]![0]!.command, /hook cursor --deadline-ms \d+ .*# asimov-hook:cursor$/);
        assert.equal(hooks.hooks[e]![0]!.failClosed, true);
      }
    },
    mode: 0o600,
    uninstalled: (text) => {
      // wire created the file and its directory, and nothing else is in them: both are gone.
      assert.equal(text, null);
      assert.ok(!existsSync(join(scratch.home, '.cursor')));
      assert.ok(!existsSync(join(scratch.project, '.cursor')));
    },
  });

  leavesUnreadableTest('a hooks.json with a comment is left exactly as it was', scratch, {
    file, text: '{\n  // mine\n  "version": 1\n}\n', error: /comments are not allowed/,
  });

  test.after(() => scratch.cleanup());
});
