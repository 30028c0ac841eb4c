import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import { planQwenHooks, qwenSettingsPath, qwenTarget } from '../../src/wire/qwen.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';

const CMD = "/usr/bin/node /opt/asimov/bin/asimov.cjs hook qwen || { exit 2; } # asimov-hook:qwen";
const install = (text: string | null, command = CMD, timeoutSec = 50) => planQwenHooks(text, { command, timeoutSec, uninstall: false, file: 'settings.json' });
const uninstall = (text: string | null) => planQwenHooks(text, { command: '', timeoutSec: 0, uninstall: true, file: 'settings.json' });
const entry = (indent: string, unit = '  ', command = CMD, timeout = 50000) => {
  const at = (level: number, line: string) => `${indent}${unit.repeat(level)}${line}`;
  return [
    at(0, '{'), at(1, '"matcher": "*",'), at(1, '"hooks": ['), at(2, '{'), at(3, '"type": "command",'),
    at(3, `"command": ${JSON.stringify(command)},`), at(3, `"timeout": ${timeout}`), at(2, '}'), at(1, ']'), at(0, '}'),
  ].join('\n');
};

test('registered as the qwen wire target, with the settings paths Qwen Code reads', () => {
  assert.equal(WIRE_TARGETS['qwen'], qwenTarget);
  const ctx = { home: '/h', projectRoot: '/p', env: {} };
  assert.equal(qwenSettingsPath('user', ctx), '/h/.qwen/settings.json');
  assert.equal(qwenSettingsPath('user', { ...ctx, env: { QWEN_HOME: '/qh' } }), '/qh/settings.json');
  assert.equal(qwenSettingsPath('project', ctx), '/p/.qwen/settings.json');
  assert.equal(qwenSettingsPath('system', { ...ctx, platform: 'linux' }), '/etc/qwen-code/settings.json');
  assert.equal(qwenSettingsPath('system', { ...ctx, env: { QWEN_CODE_SYSTEM_SETTINGS_PATH: '/s/x.json' } }), '/s/x.json');
  assert.deepEqual(qwenTarget.scopes, ['user', 'project', 'system']);
  assert.equal(qwenTarget.modes('user').fileMode, 0o600);
});

test('no file: a new one with the hook for every tool, timeout in milliseconds', () => {
  const r = install(null);
  assert.deepEqual(r.changes, ['added PreToolUse hook (matcher *)']);
  assert.equal(r.text, `{\n  "hooks": {\n    "PreToolUse": [\n${entry('      ')}\n    ]\n  }\n}\n`);
  assert.deepEqual(install(r.text), { text: r.text, changes: [] });
  assert.deepEqual(uninstall(null), { text: null, changes: [] });
});

test('an existing file keeps its comments, settings and hooks byte for byte; uninstall restores it', () => {
  const before = [
    '{',
    '    // the person\'s own settings',
    '    "model": { "name": "qwen3-coder-plus" },',
    '    "hooks": {',
    '        "PreToolUse": [',
    '            { "matcher": "write_file", "hooks": [ { "type": "command", "command": "./lint.sh" } ] }',
    '        ]',
    '    }',
    '}',
    '',
  ].join('\n');
  const r = install(before);
  assert.deepEqual(r.changes, ['added PreToolUse hook (matcher *)']);
  assert.equal(r.text, [
    '{',
    '    // the person\'s own settings',
    '    "model": { "name": "qwen3-coder-plus" },',
    '    "hooks": {',
    '        "PreToolUse": [',
    '            { "matcher": "write_file", "hooks": [ { "type": "command", "command": "./lint.sh" } ] },',
    entry('            ', '    '),
    '        ]',
    '    }',
    '}',
    '',
  ].join('\n'));
  assert.deepEqual(install(r.text), { text: r.text, changes: [] });
  assert.deepEqual(uninstall(r.text), { text: before, changes: ['removed PreToolUse hook'] });
});

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
