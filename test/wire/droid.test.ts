import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { droidSettingsPath, droidTarget, planDroidHooks } from '../../src/wire/droid.ts';
import { matcherGroupText, wireTargetTest } from '../helpers/wire-tests.ts';

const CMD = "/usr/bin/node /opt/asimov/bin/asimov.cjs hook droid || { exit 2; } # asimov-hook:droid";
const opts = (file: string, uninstall = false) => ({ command: uninstall ? '' : CMD, timeoutSec: 50, uninstall, file });
const install = (text: string | null) => planDroidHooks(text, opts('settings.json'));
const uninstall = (text: string | null) => planDroidHooks(text, opts('settings.json', true));
/** asimov's group as the plan writes it (timeout in seconds): at `indent`, one level of the file being `unit`. */
const group = (indent: string, unit = '  ') => matcherGroupText(indent, unit, { command: CMD, timeout: 50 });

const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-droid-wire-')));
after(() => rmSync(root, { recursive: true, force: true }));

wireTargetTest('registered as the droid wire target, with the settings files Droid reads', droidTarget, {
  scopes: ['user', 'project'],
  paths: () => [
    [droidSettingsPath('user', { home: '/h', projectRoot: '/p' }), '/h/.factory/settings.json'],
    [droidSettingsPath('project', { home: '/h', projectRoot: '/p' }), '/p/.factory/settings.json'],
  ],
  userFileMode: 0o600,
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
