import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { droidSettingsPath, droidTarget, planDroidHooks } from '../../src/wire/droid.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';

const CMD = "/usr/bin/node /opt/asimov/bin/asimov.cjs hook droid || { exit 2; } # asimov-hook:droid";
const opts = (file: string, uninstall = false) => ({ command: uninstall ? '' : CMD, timeoutSec: 50, uninstall, file });
const install = (text: string | null) => planDroidHooks(text, opts('settings.json'));
const uninstall = (text: string | null) => planDroidHooks(text, opts('settings.json', true));
const group = (indent: string, unit = '  ') => [
  `${indent}{`, `${indent}${unit}"matcher": "*",`, `${indent}${unit}"hooks": [`, `${indent}${unit.repeat(2)}{`,
  `${indent}${unit.repeat(3)}"type": "command",`, `${indent}${unit.repeat(3)}"command": ${JSON.stringify(CMD)},`,
  `${indent}${unit.repeat(3)}"timeout": 50`, `${indent}${unit.repeat(2)}}`, `${indent}${unit}]`, `${indent}}`,
].join('\n');

const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-droid-wire-')));
after(() => rmSync(root, { recursive: true, force: true }));

test('registered as the droid wire target, with the settings files Droid reads', () => {
  assert.equal(WIRE_TARGETS['droid'], droidTarget);
  assert.equal(droidSettingsPath('user', { home: '/h', projectRoot: '/p' }), '/h/.factory/settings.json');
  assert.equal(droidSettingsPath('project', { home: '/h', projectRoot: '/p' }), '/p/.factory/settings.json');
  assert.deepEqual(droidTarget.scopes, ['user', 'project']);
  assert.equal(droidTarget.modes('user').fileMode, 0o600);
});

test('no file: a new settings.json with the hook; existing settings keep their bytes; uninstall restores', () => {
  const fresh = install(null);
  assert.deepEqual(fresh.changes, ['added PreToolUse hook (matcher *)']);
  assert.equal(fresh.text, `{\n  "hooks": {\n    "PreToolUse": [\n${group('      ')}\n    ]\n  }\n}\n`);
  const before = '{\n\t"model": "claude-sonnet-4",\n\t"autonomyLevel": "auto-low"\n}\n';
  const r = install(before);
  assert.equal(r.text, `{\n\t"model": "claude-sonnet-4",\n\t"autonomyLevel": "auto-low",\n\t"hooks": {\n\t\t"PreToolUse": [\n${group('\t\t\t', '\t')}\n\t\t]\n\t}\n}\n`);
  assert.deepEqual(install(r.text), { text: r.text, changes: [] });
  assert.deepEqual(uninstall(r.text), { text: before, changes: ['removed PreToolUse hook'] });
});

test('a file Droid could not read is refused', () => {
  assert.throws(() => install('{ // c\n}'), (e) => e instanceof AsimovError && e.code === 'wire_settings_invalid');
  assert.throws(() => install('{ "hooks": [] }'), (e) => e instanceof AsimovError && e.code === 'wire_settings_invalid');
});

test('an existing hooks.json beside settings.json gets the entry too (newer Droid reads only it); none is created', () => {
  const ctx = { home: join(root, 'h'), projectRoot: join(root, 'p'), env: {} };
  const file = droidSettingsPath('user', ctx);
  const extra = (uninstall: boolean) => droidTarget.extraWrites!({ ...opts(file, uninstall), scope: 'user', ctx, configText: null });
  assert.deepEqual(extra(false), []);
  mkdirSync(join(ctx.home, '.factory'), { recursive: true });
  const hooksJson = '{\n  "hooks": {\n    "PostToolUse": []\n  }\n}\n';
  writeFileSync(join(ctx.home, '.factory', 'hooks.json'), hooksJson);
  const [w] = extra(false);
  assert.equal(w!.file, join(ctx.home, '.factory', 'hooks.json'));
  assert.deepEqual(w!.changes, ['added PreToolUse hook (matcher *)']);
  assert.equal(w!.text, `{\n  "hooks": {\n    "PostToolUse": [],\n    "PreToolUse": [\n${group('      ')}\n    ]\n  }\n}\n`);
  writeFileSync(w!.file, w!.text!);
  assert.deepEqual(extra(true), [{ file: w!.file, text: hooksJson, changes: ['removed PreToolUse hook'] }]);
});
