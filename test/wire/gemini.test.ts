import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import { geminiSettingsPath, geminiTarget, planGeminiHooks, readGeminiHookState } from '../../src/wire/gemini.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';

const CMD = "/usr/bin/node /opt/asimov/bin/asimov.cjs hook gemini || { exit 2; } # asimov-hook:gemini";
const install = (text: string | null, command = CMD, timeoutSec = 50) => planGeminiHooks(text, { command, timeoutSec, uninstall: false, file: 'settings.json' });
const uninstall = (text: string | null) => planGeminiHooks(text, { command: '', timeoutSec: 0, uninstall: true, file: 'settings.json' });
/** asimov's group as the plan writes it: at `indent`, one level of the file being `unit`. */
const entry = (indent: string, unit = '  ', command = CMD, timeout = 50000) => {
  const at = (level: number, line: string) => `${indent}${unit.repeat(level)}${line}`;
  return [
    at(0, '{'),
    at(1, '"matcher": "*",'),
    at(1, '"hooks": ['),
    at(2, '{'),
    at(3, '"name": "asimov",'),
    at(3, '"type": "command",'),
    at(3, `"command": ${JSON.stringify(command)},`),
    at(3, `"timeout": ${timeout}`),
    at(2, '}'),
    at(1, ']'),
    at(0, '}'),
  ].join('\n');
};

test('registered as the gemini wire target, with the settings paths Gemini CLI reads', () => {
  assert.equal(WIRE_TARGETS['gemini'], geminiTarget);
  const ctx = { home: '/h', projectRoot: '/p', env: {} };
  assert.equal(geminiSettingsPath('user', ctx), '/h/.gemini/settings.json');
  assert.equal(geminiSettingsPath('user', { ...ctx, env: { GEMINI_CLI_HOME: '/gh' } }), '/gh/.gemini/settings.json');
  assert.equal(geminiSettingsPath('project', ctx), '/p/.gemini/settings.json');
  assert.equal(geminiSettingsPath('system', { ...ctx, platform: 'linux' }), '/etc/gemini-cli/settings.json');
  assert.equal(geminiSettingsPath('system', { ...ctx, env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/s/x.json' } }), '/s/x.json');
  assert.deepEqual(geminiTarget.scopes, ['user', 'project', 'system']);
  assert.equal(geminiTarget.modes('user').fileMode, 0o600);
});

test('no file: a new one with the hook for every tool, timeout in milliseconds', () => {
  const r = install(null);
  assert.deepEqual(r.changes, ['added BeforeTool hook (matcher *)']);
  assert.equal(r.text, `{\n  "hooks": {\n    "BeforeTool": [\n${entry('      ')}\n    ]\n  }\n}\n`);
  assert.deepEqual(uninstall(null), { text: null, changes: [] });
});

test('an existing file keeps its comments, other settings and other hooks byte for byte; uninstall restores it', () => {
  const before = [
    '{',
    '    // the person\'s own settings',
    '    "security": { "auth": { "selectedType": "gemini-api-key" } },',
    '    "hooks": {',
    '        "BeforeTool": [',
    '            { "matcher": "write_file", "hooks": [ { "type": "command", "command": "./lint.sh" } ] }',
    '        ]',
    '    }',
    '}',
    '',
  ].join('\n');
  const r = install(before);
  assert.deepEqual(r.changes, ['added BeforeTool hook (matcher *)']);
  const expected = [
    '{',
    '    // the person\'s own settings',
    '    "security": { "auth": { "selectedType": "gemini-api-key" } },',
    '    "hooks": {',
    '        "BeforeTool": [',
    '            { "matcher": "write_file", "hooks": [ { "type": "command", "command": "./lint.sh" } ] },',
    entry('            ', '    '),
    '        ]',
    '    }',
    '}',
    '',
  ].join('\n');
  assert.equal(r.text, expected);
  assert.deepEqual(install(r.text), { text: r.text, changes: [] });
  assert.deepEqual(uninstall(r.text), { text: before, changes: ['removed BeforeTool hook'] });
  assert.deepEqual(readGeminiHookState(r.text), { installed: true, command: CMD, matcher: '*' });
  assert.deepEqual(readGeminiHookState(before), { installed: false });
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
