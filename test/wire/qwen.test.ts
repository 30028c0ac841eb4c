import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import { planQwenHooks, qwenSettingsPath, qwenTarget } from '../../src/wire/qwen.ts';
import { matcherGroupSettingsTests, matcherGroupText, wireTargetTest } from '../helpers/wire-tests.ts';

const CMD = "/usr/bin/node /opt/asimov/bin/asimov.cjs hook qwen || { exit 2; } # asimov-hook:qwen";
const install = (text: string | null, command = CMD, timeoutSec = 50) => planQwenHooks(text, { command, timeoutSec, uninstall: false, file: 'settings.json' });
const uninstall = (text: string | null) => planQwenHooks(text, { command: '', timeoutSec: 0, uninstall: true, file: 'settings.json' });
/** asimov's group as the plan writes it (timeout in ms): at `indent`, one level of the file being `unit`. */
const entry = (indent: string, unit = '  ') => matcherGroupText(indent, unit, { command: CMD, timeout: 50000 });

const ctx = { home: '/h', projectRoot: '/p', env: {} };
wireTargetTest('registered as the qwen wire target, with the settings paths Qwen Code reads', qwenTarget, {
  scopes: ['user', 'project', 'system'],
  paths: () => [
    [qwenSettingsPath('user', ctx), '/h/.qwen/settings.json'],
    [qwenSettingsPath('user', { ...ctx, env: { QWEN_HOME: '/qh' } }), '/qh/settings.json'],
    [qwenSettingsPath('project', ctx), '/p/.qwen/settings.json'],
    [qwenSettingsPath('system', { ...ctx, platform: 'linux' }), '/etc/qwen-code/settings.json'],
    [qwenSettingsPath('system', { ...ctx, env: { QWEN_CODE_SYSTEM_SETTINGS_PATH: '/s/x.json' } }), '/s/x.json'],
  ],
  userFileMode: 0o600,
});

matcherGroupSettingsTests({ event: 'PreToolUse', ownSetting: '"model": { "name": "qwen3-coder-plus" }', install, uninstall, entry });

test('an outdated entry is updated in place (command, timeout in ms)', () => {
  const old = install('{}\n', CMD.replace('/opt/asimov', '/old'), 20).text!;
  const r = install(old);
  assert.deepEqual(r.changes, ['updated PreToolUse hook (matcher *): new command line, timeout 20000 ms → 50000 ms']);
  assert.equal(r.text, install('{}\n').text);
});

test('a file Qwen Code could not read, or one with every hook off, is refused', () => {
  assert.throws(() => install('{ "a": 1, }'), (e) => e instanceof AsimovError && e.code === 'wire_settings_invalid' && /trailing comma/.test(e.message));
  assert.throws(() => install('[1]'), (e) => e instanceof AsimovError && e.code === 'wire_settings_invalid');
  assert.throws(() => install('{ "disableAllHooks": true }'), (e) => e instanceof AsimovError && /disableAllHooks is true/.test(e.message));
  // Uninstalling from such a file still works: it only takes asimov out.
  const withOff = '{ "disableAllHooks": false }\n';
  assert.deepEqual(uninstall(install(withOff).text), { text: withOff, changes: ['removed PreToolUse hook'] });
});
