// asimov's Goose hook plugin: hooks/hooks.json written whole (PreToolUse, no matcher, timeout in seconds,
// on_failure "block"), a second run changes nothing, an older one is rewritten, someone else's is never
// touched, uninstall deletes it. Then `asimov wire goose` on a scratch HOME: plugin.json beside it, and
// uninstall leaves neither file.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { GOOSE_PLUGIN_MANIFEST, gooseHooksPath, gooseHooksText, gooseTarget } from '../../src/wire/goose.ts';
import { leavesUnreadableTest, plannedHook, wireRunTest, wireScratch, wireTargetTest } from '../helpers/wire-tests.ts';

const F = '/home/u/.agents/plugins/asimov/hooks/hooks.json';
const hook = plannedHook('goose', F);
const { install, uninstall } = hook;
const plan = (text: string | null, o = install) => gooseTarget.plan(text, o);

describe("planning asimov's Goose hooks.json", () => {
  test('no file: exactly one PreToolUse entry with on_failure block and no matcher; idempotent; uninstall deletes', () => {
    const first = plan(null);
    assert.deepEqual(JSON.parse(first.text!), {
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook.command, timeout: hook.timeoutSec, on_failure: 'block' }] }] },
    });
    assert.equal(first.text, gooseHooksText(hook.command, hook.timeoutSec));
    assert.ok(first.text!.endsWith('}\n'));
    assert.deepEqual(first.changes, ['added PreToolUse hook (on_failure "block", every tool)']);
    assert.deepEqual(plan(first.text), { text: first.text, changes: [] });
    assert.deepEqual(plan(first.text, uninstall), { text: null, changes: ["removed asimov's hooks.json"] });
    assert.deepEqual(plan(null, uninstall), { text: null, changes: [] });
  });

  test('an older asimov hooks.json (another install, a matcher added by hand) is rewritten', () => {
    const old = buildHookCommand({ client: 'goose', nodePath: '/old/node', asimovPath: '/old/a.cjs', watchdog: { kind: 'none' } }).command;
    const before = JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ command: old }] }] } });
    const r = plan(before);
    assert.deepEqual(r.changes, ['updated PreToolUse hook (on_failure "block", every tool)']);
    assert.equal(r.text, gooseHooksText(hook.command, hook.timeoutSec));
  });

  test("a hooks.json that is not asimov's (or not JSON) is neither overwritten nor deleted", () => {
    const claude = buildHookCommand({ client: 'claude', nodePath: '/n', asimovPath: '/a', watchdog: { kind: 'none' } }).command;
    for (const foreign of ['{"hooks": {}}\n', '{ nope', JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ command: claude }] }] } })]) {
      assert.throws(() => plan(foreign), (e: unknown) => {
        assert.ok(e instanceof AsimovError && e.code === 'wire_settings_invalid', String(e));
        assert.match(e.message, /not asimov's/);
        assert.equal(e.location?.file, F);
        return true;
      });
      assert.deepEqual(plan(foreign, uninstall), { text: foreign, changes: [] });
    }
  });

  wireTargetTest('user ~/.agents/plugins/asimov, project .agents/plugins/asimov; registered', gooseTarget, {
    scopes: ['user', 'project'],
    paths: () => [
      [gooseHooksPath('user', { home: '/home/u', projectRoot: '/p', env: {} }), F],
      [gooseHooksPath('project', { home: '/home/u', projectRoot: '/p', env: {} }), '/p/.agents/plugins/asimov/hooks/hooks.json'],
    ],
  });
});

describe('`asimov wire goose` on a scratch HOME', () => {
  const scratch = wireScratch('goose');
  const dir = join(scratch.home, '.agents', 'plugins', 'asimov');
  const file = join(dir, 'hooks', 'hooks.json');

  wireRunTest('writes hooks.json and plugin.json, is idempotent, and uninstall leaves neither', scratch, {
    file,
    said: [/added PreToolUse hook/, /added plugin\.json/],
    installed: (text) => {
      const hooks = JSON.parse(text) as { hooks: { PreToolUse: [{ hooks: [{ command: string; on_failure: string }] }] } };
      assert.match(hooks.hooks.PreToolUse[0].hooks[0].command, /hook goose --deadline-ms \d+ .*# asimov-hook:goose$/);
      assert.equal(hooks.hooks.PreToolUse[0].hooks[0].on_failure, 'block');
      assert.equal(readFileSync(join(dir, 'plugin.json'), 'utf8'), GOOSE_PLUGIN_MANIFEST);
    },
    uninstalled: (text, removed) => {
      assert.match(removed.stdout, /removed asimov's hooks\.json\n {2}deleted\n.*plugin\.json:\n {2}removed asimov's plugin\.json/);
      assert.equal(text, null);
      assert.equal(existsSync(join(dir, 'plugin.json')), false);
    },
  });

  leavesUnreadableTest("someone else's hooks.json in that place is left exactly as it was", scratch, {
    file, text: '{"hooks": {"SessionEnd": []}}\n', error: /not asimov's/,
    also: () => assert.equal(existsSync(join(dir, 'plugin.json')), false),
  });

  test.after(() => scratch.cleanup());
});
