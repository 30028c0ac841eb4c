// Fixture texts in, exact texts out: asimov's entries in Windsurf's hooks.json (one per pre-hook, with
// show_output) are added, updated and removed, a second run changes nothing, uninstall gives back the
// original bytes, and a file that is not plain JSON is refused. Then `asimov wire windsurf` on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { flatHooksInstalled } from '../../src/wire/flat-hooks.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { WINDSURF_HOOKS_SPEC, windsurfHooksPath, windsurfTarget } from '../../src/wire/windsurf.ts';
import { leavesUnreadableTest, plannedHook, planRoundTrip, refusesUnreadableTest, wireRunTest, wireScratch, wireTargetTest } from '../helpers/wire-tests.ts';

const F = '/home/u/.codeium/windsurf/hooks.json';
const hook = plannedHook('windsurf', F);
const { command: CMD, install, uninstall } = hook;
const J = (s: string) => JSON.stringify(s);
const plan = (text: string | null, o = install) => windsurfTarget.plan(text, o);
const EVENTS = ['pre_run_command', 'pre_write_code', 'pre_read_code', 'pre_mcp_tool_use'];
const ADDED = EVENTS.map((e) => `added ${e} hook`);
const REMOVED = EVENTS.map((e) => `removed ${e} hook`);

const entry = (ind: string) => `{\n${ind}  "command": ${J(CMD)},\n${ind}  "show_output": true\n${ind}}`;

const roundTrip = planRoundTrip(plan, hook, REMOVED);

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

  refusesUnreadableTest('files that are not plain JSON, or shapes that are not hooks.json, are refused with file, line and column', plan, hook, [
    ['{\n  // mine\n  "hooks": {}\n}\n', /comments are not allowed/],
    ['{\n  "hooks": {},\n}\n', /trailing comma/],
    ['[1]\n', /top-level value must be an object/],
    ['{ "hooks": [] }\n', /must be an object/],
    ['{ "hooks": { "pre_run_command": {} } }\n', /must be a list/],
  ]);
});

describe('the wire target', () => {
  const ctx = { home: '/home/u', projectRoot: '/work/p', env: {} };
  wireTargetTest('user ~/.codeium/windsurf, project .windsurf, system /etc/windsurf; registered', windsurfTarget, {
    scopes: ['user', 'project', 'system'],
    paths: () => [
      [windsurfTarget.configPath('user', ctx), F],
      [windsurfTarget.configPath('project', ctx), '/work/p/.windsurf/hooks.json'],
      [windsurfHooksPath('system', { ...ctx, platform: 'linux' }), '/etc/windsurf/hooks.json'],
      [windsurfHooksPath('system', { ...ctx, platform: 'darwin' }), '/Library/Application Support/Windsurf/hooks.json'],
    ],
  });
});

describe('`asimov wire windsurf` on a scratch HOME', () => {
  const scratch = wireScratch('windsurf');
  const file = join(scratch.home, '.codeium', 'windsurf', 'hooks.json');

  wireRunTest('installs, is idempotent, and uninstalls, deleting the file it created', scratch, {
    file,
    said: [/added pre_run_command hook/],
    installed: (text) => {
      const hooks = JSON.parse(text) as { hooks: Record<string, Array<{ command: string; show_output: boolean }>> };
      for (const e of EVENTS) {
        assert.equal(hooks.hooks[e]?.length, 1, e);
        assert.match(hooks.hooks[e]![0]!.command, /hook windsurf --deadline-ms \d+ .*# asimov-hook:windsurf$/);
        assert.equal(hooks.hooks[e]![0]!.show_output, true);
      }
    },
    mode: 0o600,
    uninstalled: (text) => {
      // wire created the file and its directories, and nothing else is in them: all are gone.
      assert.equal(text, null);
      assert.ok(!existsSync(join(scratch.home, '.codeium')));
      assert.ok(!existsSync(join(scratch.project, '.windsurf')));
    },
  });

  leavesUnreadableTest('a hooks.json with a comment is left exactly as it was', scratch, {
    file, text: '{\n  // mine\n  "hooks": {}\n}\n', error: /comments are not allowed/,
  });

  test.after(() => scratch.cleanup());
});
