import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import { geminiSettingsPath, geminiTarget, planGeminiHooks, readGeminiHookState } from '../../src/wire/gemini.ts';
import { matcherGroupSettingsTests, matcherGroupText, wireTargetTest } from '../helpers/wire-tests.ts';

const CMD = "/usr/bin/node /opt/asimov/bin/asimov.cjs hook gemini || { exit 2; } # asimov-hook:gemini";
const install = (text: string | null, command = CMD, timeoutSec = 50) => planGeminiHooks(text, { command, timeoutSec, uninstall: false, file: 'settings.json' });
const uninstall = (text: string | null) => planGeminiHooks(text, { command: '', timeoutSec: 0, uninstall: true, file: 'settings.json' });
/** asimov's group as the plan writes it (named, timeout in ms): at `indent`, one level of the file being `unit`. */
const entry = (indent: string, unit = '  ') => matcherGroupText(indent, unit, { name: 'asimov', command: CMD, timeout: 50000 });

const ctx = { home: '/h', projectRoot: '/p', env: {} };
wireTargetTest('registered as the gemini wire target, with the settings paths Gemini CLI reads', geminiTarget, {
  scopes: ['user', 'project', 'system'],
  paths: () => [
    [geminiSettingsPath('user', ctx), '/h/.gemini/settings.json'],
    [geminiSettingsPath('user', { ...ctx, env: { GEMINI_CLI_HOME: '/gh' } }), '/gh/.gemini/settings.json'],
    [geminiSettingsPath('project', ctx), '/p/.gemini/settings.json'],
    [geminiSettingsPath('system', { ...ctx, platform: 'linux' }), '/etc/gemini-cli/settings.json'],
    [geminiSettingsPath('system', { ...ctx, env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/s/x.json' } }), '/s/x.json'],
  ],
  userFileMode: 0o600,
});

matcherGroupSettingsTests({
  event: 'BeforeTool',
  ownSetting: '"security": { "auth": { "selectedType": "gemini-api-key" } }',
  install, uninstall, entry,
  alsoExisting: (before, installed) => {
    assert.deepEqual(readGeminiHookState(installed), { installed: true, command: CMD, matcher: '*' });
    assert.deepEqual(readGeminiHookState(before), { installed: false });
  },
});

test('a moved install, an old timeout, a missing name, duplicates and a narrow matcher are all put right', () => {
  const old = "/old/node /old/asimov.cjs hook gemini # asimov-hook:gemini";
  const before = JSON.stringify({
    hooks: { BeforeTool: [
      { matcher: 'run_shell_command', hooks: [{ type: 'command', command: old }] },
      { matcher: '*', hooks: [{ type: 'command', command: old, timeout: 5 }] },
      { hooks: [{ name: 'asimov', type: 'command', command: old }] },
    ] },
  }, null, 2);
  const r = install(`${before}\n`);
  assert.deepEqual(r.changes, [
    'removed BeforeTool hook under matcher "run_shell_command" (it does not cover every tool)',
    'removed 1 duplicate BeforeTool hook',
    'updated BeforeTool hook (matcher *): name "asimov", new command line, timeout 5 ms → 50000 ms',
  ]);
  assert.deepEqual(JSON.parse(r.text!), { hooks: { BeforeTool: [{ matcher: '*', hooks: [{ type: 'command', command: CMD, timeout: 50000, name: 'asimov' }] }] } });
  assert.deepEqual(install(r.text).changes, []);
});

test('asimov is taken off hooksConfig.disabled; hooksConfig.enabled false is refused, not papered over', () => {
  const disabled = '{\n  "hooksConfig": {\n    "disabled": ["asimov", "other"]\n  }\n}\n';
  const r = install(disabled);
  assert.deepEqual(r.changes, ['added BeforeTool hook (matcher *)', 'removed "asimov" from hooksConfig.disabled']);
  assert.deepEqual(JSON.parse(r.text!).hooksConfig, { disabled: ['other'] });
  assert.throws(() => install('{ "hooksConfig": { "enabled": false } }'), (e: unknown) => e instanceof AsimovError && e.code === 'wire_settings_invalid' && /hooksConfig\.enabled is false/.test(e.message));
  // Uninstalling still works in such a file.
  assert.deepEqual(uninstall('{ "hooksConfig": { "enabled": false } }').changes, []);
});

test('a file Gemini could not read is never rewritten', () => {
  for (const bad of ['{ "hooks": { "BeforeTool": [], } }', '[1]', '{ "hooks": [] }', '{ "hooks": { "BeforeTool": {} } }']) {
    assert.throws(() => install(bad), (e: unknown) => e instanceof AsimovError && e.code === 'wire_settings_invalid', bad);
  }
  // Other clients' asimov entries are not ours to touch.
  const claude = '{ "hooks": { "BeforeTool": [ { "hooks": [ { "type": "command", "command": "x # asimov-hook:claude" } ] } ] } }';
  assert.deepEqual(uninstall(claude).changes, []);
});
