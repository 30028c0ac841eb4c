// asimov's OpenCode plugin: the file is written whole, a second run changes nothing, an older one is
// rewritten, someone else's asimov.js is never touched, uninstall deletes it. Then the generated plugin is
// imported for real and run against the built asimov: a dangerous bash call throws, an everyday one does
// not, and a plugin whose asimov is missing throws (fail closed). Then `asimov wire opencode` on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AsimovError } from '../../src/core/errors.ts';
import { buildHookCommand, detectWatchdog } from '../../src/wire/hook-command.ts';
import { opencodePluginCommand, opencodePluginPath, opencodePluginSource, opencodeTarget } from '../../src/wire/opencode.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';
import { listClients } from '../../src/wire/clients.ts';

const REPO = resolve(import.meta.dirname, '../..');
const F = '/home/u/.config/opencode/plugins/asimov.js';
const built = buildHookCommand({
  client: 'opencode', nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
});
const install = { command: built.command, timeoutSec: built.clientTimeoutSec, uninstall: false, file: F };
const uninstall = { ...install, uninstall: true };
const plan = (text: string | null, o = install) => opencodeTarget.plan(text, o);

describe("planning asimov's OpenCode plugin file", () => {
  test('no file: the plugin, carrying the command and its marker; a second run changes nothing; uninstall deletes it', () => {
    const first = plan(null);
    assert.equal(first.text, opencodePluginSource(built.command, built.clientTimeoutSec));
    assert.deepEqual(first.changes, ["added asimov's plugin (tool.execute.before)"]);
    assert.ok(first.text!.includes('# asimov-hook:opencode'));
    assert.ok(first.text!.includes(`const TIMEOUT_MS = ${built.clientTimeoutSec * 1000};`));
    assert.equal(opencodePluginCommand(first.text!), built.command);
    assert.deepEqual(plan(first.text), { text: first.text, changes: [] });
    assert.deepEqual(plan(first.text, uninstall), { text: null, changes: ["removed asimov's plugin file"] });
    assert.deepEqual(plan(null, uninstall), { text: null, changes: [] });
  });

  test('an older plugin of asimov (another install, another timeout) is rewritten', () => {
    const old = buildHookCommand({ client: 'opencode', nodePath: '/old/node', asimovPath: '/old/a.cjs', watchdog: { kind: 'none' } });
    const r = plan(opencodePluginSource(old.command, 5));
    assert.deepEqual(r.changes, ["updated asimov's plugin (tool.execute.before)"]);
    assert.equal(r.text, opencodePluginSource(built.command, built.clientTimeoutSec));
  });

  test("someone else's asimov.js (or another client's hook line in it) is neither overwritten nor deleted", () => {
    const claude = buildHookCommand({ client: 'claude', nodePath: '/n', asimovPath: '/a', watchdog: { kind: 'none' } }).command;
    for (const foreign of ['export default {}\n', '', opencodePluginSource(claude, 50)]) {
      assert.throws(() => plan(foreign), (e: unknown) => {
        assert.ok(e instanceof AsimovError && e.code === 'wire_settings_invalid', String(e));
        assert.match(e.message, /not asimov's OpenCode plugin/);
        assert.equal(e.location?.file, F);
        return true;
      });
      assert.deepEqual(plan(foreign, uninstall), { text: foreign, changes: [] });
    }
  });

  test('user scope under XDG_CONFIG_HOME (default ~/.config), project scope .opencode/plugins; registered', () => {
    assert.equal(opencodePluginPath('user', { home: '/home/u', projectRoot: '/p', env: {} }), F);
    assert.equal(opencodePluginPath('user', { home: '/home/u', projectRoot: '/p', env: { XDG_CONFIG_HOME: '/x' } }), '/x/opencode/plugins/asimov.js');
    assert.equal(opencodePluginPath('project', { home: '/home/u', projectRoot: '/p', env: {} }), '/p/.opencode/plugins/asimov.js');
    assert.deepEqual(opencodeTarget.scopes, ['user', 'project']);
    assert.equal(WIRE_TARGETS['opencode'], opencodeTarget);
  });
});

type BeforeHook = (input: Record<string, unknown>, output: { args: Record<string, unknown> }) => Promise<void>;

describe('the generated plugin, imported and run against the built asimov', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-opencode-plugin-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  // The plugin hands the hook its own environment, as OpenCode's process would: a scratch one here.
  const saved = { HOME: process.env.HOME, GATE_CHECK: process.env.GATE_CHECK, ASIMOV_AUDIT_LOG: process.env.ASIMOV_AUDIT_LOG, ASIMOV_DAEMON: process.env.ASIMOV_DAEMON };
  Object.assign(process.env, { HOME: home, GATE_CHECK: 'false', ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl'), ASIMOV_DAEMON: 'manual' });

  async function loadPlugin(name: string, asimovPath: string): Promise<BeforeHook> {
    const c = buildHookCommand({ client: 'opencode', nodePath: process.execPath, asimovPath, watchdog: detectWatchdog() });
    const file = join(root, name);
    writeFileSync(file, opencodePluginSource(c.command, c.clientTimeoutSec));
    const mod = (await import(pathToFileURL(file).href)) as { default: { id: string; server: (ctx: unknown) => Promise<Record<string, BeforeHook>> } };
    assert.deepEqual(Object.keys(mod), ['default'], 'only the default export, as current OpenCode requires');
    assert.equal(mod.default.id, 'asimov');
    const hooks = await mod.default.server({ directory: project, worktree: project });
    assert.deepEqual(Object.keys(hooks), ['tool.execute.before']);
    return hooks['tool.execute.before']!;
  }

  test('a catastrophic bash call throws with asimov\'s reason; an everyday one does not', async () => {
    assert.ok(existsSync(join(REPO, 'bin/asimov.cjs')), 'run node scripts/build.mjs first');
    const before = await loadPlugin('asimov.mjs', join(REPO, 'bin/asimov.cjs'));
    await assert.rejects(
      before({ tool: 'bash', sessionID: 'ses_1', callID: 'c1' }, { args: { command: 'rm -rf ~', description: 'clean' } }),
      (e: unknown) => e instanceof Error && /^asimov \[fs\./.test(e.message),
    );
    await before({ tool: 'bash', sessionID: 'ses_1', callID: 'c2' }, { args: { command: 'git status', description: 'status' } });
    await before({ tool: 'read', sessionID: 'ses_1', callID: 'c3' }, { args: { filePath: join(project, 'README.md') } });
  });

  test('an asimov that is not there throws (fail closed); so does a payload the hook cannot read', async () => {
    const gone = await loadPlugin('gone.mjs', join(root, 'no-such-dir', 'asimov.cjs'));
    await assert.rejects(
      gone({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: { command: 'git status' } }),
      (e: unknown) => e instanceof Error && /the opencode hook failed \(exit \d+\), so this call is blocked/.test(e.message),
    );
    const before = await loadPlugin('asimov2.mjs', join(REPO, 'bin/asimov.cjs'));
    // No tool name: asimov cannot tell what the call is, so the plugin throws.
    await assert.rejects(before({}, { args: {} }), (e: unknown) => e instanceof Error && /"tool"/.test(e.message));
  });

  test('a hook that does not answer in time throws', async () => {
    const file = join(root, 'hang.mjs');
    writeFileSync(file, opencodePluginSource('sleep 30 # asimov-hook:opencode', 1));
    const mod = (await import(pathToFileURL(file).href)) as { default: { server: (ctx: unknown) => Promise<Record<string, BeforeHook>> } };
    const before = (await mod.default.server({ directory: project }))['tool.execute.before']!;
    await assert.rejects(before({ tool: 'bash' }, { args: { command: 'git status' } }), /did not answer within 1 s, so this call is blocked/);
  });

  test.after(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(root, { recursive: true, force: true });
  });
});

describe('`asimov wire opencode` on a scratch HOME', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-wire-opencode-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  const file = join(home, '.config', 'opencode', 'plugins', 'asimov.js');
  const wire = (...args: string[]) => spawnSync(process.execPath, [join(REPO, 'bin/asimov.cjs'), 'wire', 'opencode', ...args], {
    cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8',
  });

  test('writes the plugin, is idempotent, shows in --list, and uninstall leaves no file', () => {
    const first = wire();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /added asimov's plugin/);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^const COMMAND = ".*hook opencode --deadline-ms \d+ .*# asimov-hook:opencode";$/m);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const second = wire();
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /nothing to change/);
    const status = listClients({ home, projectRoot: project, env: { HOME: home } }).find((c) => c.name === 'opencode');
    assert.equal(status?.supported, true);
    assert.equal(status?.scopes?.[0]?.state, 'installed');
    const removed = wire('--uninstall');
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stdout, /removed asimov's plugin file\n {2}deleted/);
    assert.equal(existsSync(file), false);
    assert.match(wire('--uninstall').stdout, /nothing to change/);
  });

  test('project scope writes .opencode/plugins/asimov.js; a foreign asimov.js is left exactly as it was', () => {
    const r = wire('--scope', 'project');
    assert.equal(r.status, 0, r.stderr);
    const projectFile = join(project, '.opencode', 'plugins', 'asimov.js');
    assert.ok(readFileSync(projectFile, 'utf8').includes('# asimov-hook:opencode'));
    const mine = 'export default { id: "mine", server: async () => ({}) };\n';
    writeFileSync(projectFile, mine);
    const refused = wire('--scope', 'project');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /not asimov's OpenCode plugin/);
    assert.equal(readFileSync(projectFile, 'utf8'), mine);
    assert.match(wire('--scope', 'project', '--uninstall').stdout, /nothing to change/);
    assert.equal(readFileSync(projectFile, 'utf8'), mine);
  });

  test.after(() => rmSync(root, { recursive: true, force: true }));
});
