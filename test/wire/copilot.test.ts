// Fixture texts in, exact texts out: asimov's preToolUse entry in Copilot CLI's hook file is added, updated
// and removed, a second run changes nothing, uninstall gives back the original bytes, and a file Copilot
// would skip is refused. Then the whole `asimov wire copilot` command on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { copilotHookPaths, copilotTarget, planCopilotHooks } from '../../src/wire/copilot.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import {
  leavesUnreadableTest, plannedHook, planRoundTrip, refusesUnreadableTest, strictHooksJsonRefusals, wireRunTest, wireScratch, wireTargetTest,
} from '../helpers/wire-tests.ts';

const F = '/home/u/.copilot/hooks/asimov.json';
const hook = plannedHook('copilot', F);
const { command: CMD, timeoutSec: T, install, uninstall } = hook;
const J = (s: string) => JSON.stringify(s);

/** Install, check the exact text, run again (no change), uninstall (the original bytes). */
const roundTrip = planRoundTrip(planCopilotHooks, hook, ['removed preToolUse hook']);

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

  refusesUnreadableTest('files Copilot would skip or misread are refused with file, line and column, and never rewritten', planCopilotHooks, hook, strictHooksJsonRefusals('preToolUse'));
});

describe('the wire target', () => {
  const ctx = { home: '/home/u', projectRoot: '/work/p', env: {} };
  wireTargetTest('user scope is $COPILOT_HOME/hooks (default ~/.copilot/hooks); project scope is .github/hooks', copilotTarget, {
    scopes: ['user', 'project'],
    paths: () => [[copilotTarget.configPath('user', { ...ctx, env: { COPILOT_HOME: '/cfg/copilot' } }), '/cfg/copilot/hooks/asimov.json']],
    also: () => {
      assert.deepEqual(copilotHookPaths(ctx), { user: '/home/u/.copilot/hooks/asimov.json', project: '/work/p/.github/hooks/asimov.json' });
      assert.deepEqual(copilotTarget.modes('user'), { fileMode: 0o600, dirMode: 0o700 });
    },
  });
});

describe('`asimov wire copilot` on a scratch HOME', () => {
  // The built CLI, as a person runs it (npm test builds dist/ first).
  const scratch = wireScratch('copilot');
  const file = join(scratch.home, '.copilot', 'hooks', 'asimov.json');

  wireRunTest('installs, is idempotent, and uninstalls, deleting the file it created', scratch, {
    file,
    said: [/added preToolUse hook \(every tool\)/],
    installed: (text) => {
      const hooks = JSON.parse(text) as { version: number; hooks: { preToolUse: Array<{ bash: string; timeoutSec: number }> } };
      assert.equal(hooks.version, 1);
      assert.equal(hooks.hooks.preToolUse.length, 1);
      assert.match(hooks.hooks.preToolUse[0]!.bash, /hook copilot --deadline-ms \d+ .*# asimov-hook:copilot$/);
      assert.ok(hooks.hooks.preToolUse[0]!.bash.includes(process.execPath));
    },
    mode: 0o600,
    uninstalled: (text) => {
      // wire created the file and its directories, and nothing else is in them: all are gone.
      assert.equal(text, null);
      assert.ok(!existsSync(join(scratch.home, '.copilot')));
      assert.ok(!existsSync(join(scratch.project, '.github')));
    },
  });

  leavesUnreadableTest('a hook file Copilot would skip is left exactly as it was', scratch, {
    file, text: '{\n  // mine\n  "version": 1\n}\n', error: /comments are not allowed/,
  });

  test.after(() => scratch.cleanup());
});
