// Fixture texts in, exact texts out: asimov's preToolUse entry in Copilot CLI's hook file is added, updated
// and removed, a second run changes nothing, uninstall gives back the original bytes, and a file Copilot
// would skip is refused. Then the whole `asimov wire copilot` command on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { copilotHookPaths, copilotTarget, planCopilotHooks } from '../../src/wire/copilot.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';

const F = '/home/u/.copilot/hooks/asimov.json';
const built = buildHookCommand({
  client: 'copilot', nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
});
const CMD = built.command;
const T = built.clientTimeoutSec;
const J = (s: string) => JSON.stringify(s);
const install = { command: CMD, timeoutSec: T, uninstall: false, file: F };
const uninstall = { ...install, uninstall: true };

/** Install, check the exact text, run again (no change), uninstall (the original bytes). */
function roundTrip(before: string | null, expected: string, changes: string[]): void {
  const first = planCopilotHooks(before, install);
  assert.equal(first.text, expected);
  assert.deepEqual(first.changes, changes);
  const second = planCopilotHooks(first.text, install);
  assert.deepEqual(second, { text: first.text, changes: [] });
  const removed = planCopilotHooks(first.text, uninstall);
  assert.deepEqual(removed.changes, ['removed preToolUse hook']);
  if (before !== null) assert.equal(removed.text, before);
}

describe('planning the hook file', () => {
  test('no file: a new one with version 1 and asimov\'s entry for every tool; uninstall leaves a file with no hooks', () => {
    const fresh = `{
  "version": 1,
  "hooks": {
    "preToolUse": [
      {
        "type": "command",
        "bash": ${J(CMD)},
        "timeoutSec": ${T}
      }
    ]
  }
}
`;
    roundTrip(null, fresh, ['added preToolUse hook (every tool)']);
    assert.equal(planCopilotHooks(fresh, uninstall).text, '{\n  "version": 1\n}\n');
    assert.deepEqual(planCopilotHooks(null, uninstall), { text: null, changes: [] });
    assert.deepEqual(JSON.parse(fresh), { version: 1, hooks: { preToolUse: [{ type: 'command', bash: CMD, timeoutSec: T }] } });
  });

  test("the person's own hooks, other events and tab indentation keep their bytes", () => {
    const before = '{\n\t"version": 1,\n\t"hooks": {\n\t\t"preToolUse": [\n\t\t\t{ "type": "command", "bash": "./lint.sh", "timeoutSec": 5 }\n\t\t],\n\t\t"postToolUse": [\n\t\t\t{ "type": "command", "bash": "./log.sh" }\n\t\t]\n\t}\n}\n';
    const after = `{\n\t"version": 1,\n\t"hooks": {\n\t\t"preToolUse": [\n\t\t\t{ "type": "command", "bash": "./lint.sh", "timeoutSec": 5 },\n\t\t\t{\n\t\t\t\t"type": "command",\n\t\t\t\t"bash": ${J(CMD)},\n\t\t\t\t"timeoutSec": ${T}\n\t\t\t}\n\t\t],\n\t\t"postToolUse": [\n\t\t\t{ "type": "command", "bash": "./log.sh" }\n\t\t]\n\t}\n}\n`;
    roundTrip(before, after, ['added preToolUse hook (every tool)']);
  });

  test('a file with no hooks yet, and one with CRLF line ends, get just the hooks added', () => {
    const before = '{\r\n    "version": 1\r\n}\r\n';
    const after = `{\r\n    "version": 1,\r\n    "hooks": {\r\n        "preToolUse": [\r\n            {\r\n                "type": "command",\r\n                "bash": ${J(CMD)},\r\n                "timeoutSec": ${T}\r\n            }\r\n        ]\r\n    }\r\n}\r\n`;
    roundTrip(before, after, ['added preToolUse hook (every tool)']);
  });

  test('an outdated entry (moved install, old timeout, alias fields, a narrow matcher) is brought up to date in place', () => {
    const old = buildHookCommand({ client: 'copilot', nodePath: '/old/node', asimovPath: '/old/asimov.cjs', watchdog: { kind: 'none' } }).command;
    const before = `{\n  "version": 1,\n  "hooks": {\n    "preToolUse": [\n      {\n        "type": "command",\n        "matcher": "bash",\n        "bash": ${J(old)},\n        "command": ${J(old)},\n        "timeoutSec": 30,\n        "timeout": 30\n      }\n    ]\n  }\n}\n`;
    const r = planCopilotHooks(before, install);
    assert.deepEqual(r.changes, [
      `updated preToolUse hook: new command line, "command" alias removed, timeout 30 s → ${T} s, "timeout" alias removed, matcher "bash" removed (it does not cover every tool)`,
    ]);
    assert.equal(r.text, `{\n  "version": 1,\n  "hooks": {\n    "preToolUse": [\n      {\n        "type": "command",\n        "bash": ${J(CMD)},\n        "timeoutSec": ${T}\n      }\n    ]\n  }\n}\n`);
    assert.deepEqual(planCopilotHooks(r.text, install).changes, []);
  });

  test('duplicates are reduced to one; uninstall removes every asimov entry and nothing else', () => {
    const entry = `{ "type": "command", "bash": ${J(CMD)}, "timeoutSec": ${T} }`;
    const mine = '{ "type": "command", "bash": "./mine.sh" }';
    const before = `{\n  "hooks": {\n    "preToolUse": [\n      ${entry},\n      ${mine},\n      ${entry}\n    ]\n  }\n}\n`;
    const r = planCopilotHooks(before, install);
    assert.deepEqual(r.changes, ['removed 1 duplicate preToolUse hook']);
    assert.equal(r.text, `{\n  "hooks": {\n    "preToolUse": [\n      ${entry},\n      ${mine}\n    ]\n  }\n}\n`);
    const u = planCopilotHooks(before, uninstall);
    assert.deepEqual(u.changes, ['removed preToolUse hooks (2)']);
    assert.equal(u.text, `{\n  "hooks": {\n    "preToolUse": [\n      ${mine}\n    ]\n  }\n}\n`);
  });

  test('files Copilot would skip or misread are refused with file, line and column, and never rewritten', () => {
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
        assert.throws(() => planCopilotHooks(text, o), (e: unknown) => {
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
  test('user scope is $COPILOT_HOME/hooks (default ~/.copilot/hooks); project scope is .github/hooks', () => {
    const ctx = { home: '/home/u', projectRoot: '/work/p', env: {} };
    assert.deepEqual(copilotHookPaths(ctx), { user: '/home/u/.copilot/hooks/asimov.json', project: '/work/p/.github/hooks/asimov.json' });
    assert.equal(copilotTarget.configPath('user', { ...ctx, env: { COPILOT_HOME: '/cfg/copilot' } }), '/cfg/copilot/hooks/asimov.json');
    assert.deepEqual(copilotTarget.scopes, ['user', 'project']);
    assert.equal(WIRE_TARGETS['copilot'], copilotTarget);
    assert.deepEqual(copilotTarget.modes('user'), { fileMode: 0o600, dirMode: 0o700 });
  });
});

describe('`asimov wire copilot` on a scratch HOME', () => {
  const REPO = resolve(import.meta.dirname, '../..');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-wire-copilot-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  const file = join(home, '.copilot', 'hooks', 'asimov.json');
  // The built CLI, as a person runs it (npm test builds dist/ first).
  const wire = (...args: string[]) => spawnSync(process.execPath, [join(REPO, 'bin/asimov.cjs'), 'wire', 'copilot', ...args], {
    cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8',
  });

  test('installs, is idempotent, and uninstalls to a file with no hooks', () => {
    const first = wire();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /added preToolUse hook \(every tool\)/);
    const hooks = JSON.parse(readFileSync(file, 'utf8')) as { version: number; hooks: { preToolUse: Array<{ bash: string; timeoutSec: number }> } };
    assert.equal(hooks.version, 1);
    assert.equal(hooks.hooks.preToolUse.length, 1);
    assert.match(hooks.hooks.preToolUse[0]!.bash, /hook copilot --deadline-ms \d+ .*# asimov-hook:copilot$/);
    assert.ok(hooks.hooks.preToolUse[0]!.bash.includes(process.execPath));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const second = wire();
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /nothing to change/);
    const removed = wire('--uninstall');
    assert.equal(removed.status, 0, removed.stderr);
    assert.equal(readFileSync(file, 'utf8'), '{\n  "version": 1\n}\n');
    assert.ok(!existsSync(join(project, '.github')));
  });

  test('a hook file Copilot would skip is left exactly as it was', () => {
    const bad = '{\n  // mine\n  "version": 1\n}\n';
    mkdirSync(join(home, '.copilot', 'hooks'), { recursive: true });
    writeFileSync(file, bad);
    const r = wire();
    assert.equal(r.status, 1);
    assert.match(r.stderr, /comments are not allowed/);
    assert.equal(readFileSync(file, 'utf8'), bad);
  });

  test.after(() => rmSync(root, { recursive: true, force: true }));
});
