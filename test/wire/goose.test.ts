// asimov's Goose hook plugin: hooks/hooks.json written whole (PreToolUse, no matcher, timeout in seconds,
// on_failure "block"), a second run changes nothing, an older one is rewritten, someone else's is never
// touched, uninstall deletes it. Then `asimov wire goose` on a scratch HOME: plugin.json beside it, and
// uninstall leaves neither file.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { GOOSE_PLUGIN_MANIFEST, gooseHooksPath, gooseHooksText, gooseTarget } from '../../src/wire/goose.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';

const F = '/home/u/.agents/plugins/asimov/hooks/hooks.json';
const built = buildHookCommand({
  client: 'goose', nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
});
const install = { command: built.command, timeoutSec: built.clientTimeoutSec, uninstall: false, file: F };
const uninstall = { ...install, uninstall: true };
const plan = (text: string | null, o = install) => gooseTarget.plan(text, o);

describe("planning asimov's Goose hooks.json", () => {
  test('no file: exactly one PreToolUse entry with on_failure block and no matcher; idempotent; uninstall deletes', () => {
    const first = plan(null);
    assert.deepEqual(JSON.parse(first.text!), {
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: built.command, timeout: built.clientTimeoutSec, on_failure: 'block' }] }] },
    });
    assert.equal(first.text, gooseHooksText(built.command, built.clientTimeoutSec));
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
    assert.equal(r.text, gooseHooksText(built.command, built.clientTimeoutSec));
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

  test('user ~/.agents/plugins/asimov, project .agents/plugins/asimov; registered', () => {
    assert.equal(gooseHooksPath('user', { home: '/home/u', projectRoot: '/p', env: {} }), F);
    assert.equal(gooseHooksPath('project', { home: '/home/u', projectRoot: '/p', env: {} }), '/p/.agents/plugins/asimov/hooks/hooks.json');
    assert.deepEqual(gooseTarget.scopes, ['user', 'project']);
    assert.equal(WIRE_TARGETS['goose'], gooseTarget);
  });
});

describe('`asimov wire goose` on a scratch HOME', () => {
  const REPO = resolve(import.meta.dirname, '../..');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-wire-goose-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  const dir = join(home, '.agents', 'plugins', 'asimov');
  const wire = (...args: string[]) => spawnSync(process.execPath, [join(REPO, 'bin/asimov.cjs'), 'wire', 'goose', ...args], {
    cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8',
  });

  test('writes hooks.json and plugin.json, is idempotent, and uninstall leaves neither', () => {
    const first = wire();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /added PreToolUse hook/);
    assert.match(first.stdout, /added plugin\.json/);
    const hooks = JSON.parse(readFileSync(join(dir, 'hooks', 'hooks.json'), 'utf8')) as { hooks: { PreToolUse: [{ hooks: [{ command: string; on_failure: string }] }] } };
    assert.match(hooks.hooks.PreToolUse[0].hooks[0].command, /hook goose --deadline-ms \d+ .*# asimov-hook:goose$/);
    assert.equal(hooks.hooks.PreToolUse[0].hooks[0].on_failure, 'block');
    assert.equal(readFileSync(join(dir, 'plugin.json'), 'utf8'), GOOSE_PLUGIN_MANIFEST);
    assert.match(wire().stdout, /nothing to change/);
    const removed = wire('--uninstall');
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stdout, /removed asimov's hooks\.json\n {2}deleted\n.*plugin\.json:\n {2}removed asimov's plugin\.json/);
    assert.equal(existsSync(join(dir, 'hooks', 'hooks.json')), false);
    assert.equal(existsSync(join(dir, 'plugin.json')), false);
  });

  test("someone else's hooks.json in that place is left exactly as it was", () => {
    mkdirSync(join(dir, 'hooks'), { recursive: true });
    const mine = '{"hooks": {"SessionEnd": []}}\n';
    writeFileSync(join(dir, 'hooks', 'hooks.json'), mine);
    const r = wire();
    assert.equal(r.status, 1);
    assert.match(r.stderr, /not asimov's/);
    assert.equal(readFileSync(join(dir, 'hooks', 'hooks.json'), 'utf8'), mine);
    assert.equal(existsSync(join(dir, 'plugin.json')), false);
  });

  test.after(() => rmSync(root, { recursive: true, force: true }));
});
