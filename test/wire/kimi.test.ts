// Fixture texts in, exact texts out: asimov's [[hooks]] table in Kimi CLI's config.toml is added, updated
// and removed, a second run changes nothing, uninstall gives back the original bytes, and TOML that the
// edit would break is refused. Then `asimov wire kimi` on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { kimiConfigPath, kimiHookTable, kimiTarget } from '../../src/wire/kimi.ts';
import { WIRE_TARGETS } from '../../src/wire/targets.ts';

const F = '/home/u/.kimi/config.toml';
const built = buildHookCommand({
  client: 'kimi', nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
});
const CMD = built.command;
const T = built.clientTimeoutSec;
const install = { command: CMD, timeoutSec: T, uninstall: false, file: F };
const uninstall = { ...install, uninstall: true };
const plan = (text: string | null, o = install) => kimiTarget.plan(text, o);
const TABLE = `[[hooks]]\nevent = "PreToolUse"\ncommand = ${JSON.stringify(CMD)}\ntimeout = ${T}\n`;

function roundTrip(before: string | null, expected: string): void {
  const first = plan(before);
  assert.equal(first.text, expected);
  assert.deepEqual(first.changes, ['added PreToolUse hook']);
  assert.deepEqual(plan(first.text), { text: first.text, changes: [] });
  const removed = plan(first.text, uninstall);
  assert.deepEqual(removed.changes, ['removed PreToolUse hook']);
  assert.equal(removed.text, before ?? '');
}

describe("planning Kimi CLI's config.toml", () => {
  test('no file: exactly event, command and timeout (seconds); the command survives TOML quoting', () => {
    roundTrip(null, TABLE);
    assert.deepEqual(plan(null, uninstall), { text: null, changes: [] });
    assert.equal(kimiHookTable('x', 5000), '[[hooks]]\nevent = "PreToolUse"\ncommand = "x"\ntimeout = 600\n');
  });

  test("the person's settings, comments and own hooks keep their bytes; CRLF is followed", () => {
    const mine = '# my config\ndefault_model = "kimi-k2"\n\n[[hooks]]\nevent = "PostToolUse"\nmatcher = "WriteFile"\ncommand = "./fmt.sh"  # format\n\n[providers.kimi]\ntype = "kimi"\n';
    roundTrip(mine, `${mine}\n${TABLE}`);
    const crlf = mine.replace(/\n/g, '\r\n');
    roundTrip(crlf, `${crlf}\r\n${TABLE.replace(/\n/g, '\r\n')}`);
    // A last line without its line ending gets one (the only byte uninstall does not take back).
    assert.equal(plan(plan('a = 1').text, uninstall).text, 'a = 1\n');
  });

  test('an outdated table (old command, a matcher) is replaced in place; duplicates go', () => {
    const old = buildHookCommand({ client: 'kimi', nodePath: '/old/node', asimovPath: '/old/a.cjs', watchdog: { kind: 'none' } }).command;
    const before = `a = 1\n\n[[hooks]]\nevent = "PreToolUse"\nmatcher = "Shell"\ncommand = ${JSON.stringify(old)}\ntimeout = 5\n\n[x]\ny = 2\n\n${TABLE}`;
    const r = plan(before);
    assert.deepEqual(r.changes, ['removed 1 duplicate PreToolUse hook', 'updated PreToolUse hook (event, command and timeout as asimov writes them; no matcher, so it sees every tool)']);
    assert.equal(r.text, `a = 1\n\n${TABLE}\n[x]\ny = 2\n`);
    assert.deepEqual(plan(r.text).changes, []);
  });

  test("another client's asimov hook is not taken for this one", () => {
    const other = buildHookCommand({ client: 'claude', nodePath: '/n', asimovPath: '/a', watchdog: { kind: 'none' } }).command;
    const before = `[[hooks]]\nevent = "PreToolUse"\ncommand = ${JSON.stringify(other)}\n`;
    roundTrip(before, `${before}\n${TABLE}`);
  });

  test('TOML asimov cannot read, or hooks in a form this edit would break, is refused with file and line', () => {
    const cases: Array<[string, RegExp]> = [
      ['a = \n', /could not read this TOML/],
      ['hooks = []\n', /as a key/],
      ['[hooks]\nx = 1\n', /in the way/],
      ['[[hooks.sub]]\nx = 1\n', /in the way/],
    ];
    for (const [text, re] of cases) {
      for (const o of [install, uninstall]) {
        assert.throws(() => plan(text, o), (e: unknown) => {
          assert.ok(e instanceof AsimovError && e.code === 'wire_settings_invalid', String(e));
          assert.match(e.message, re);
          assert.equal(e.location?.file, F);
          return true;
        }, text);
      }
    }
  });

  test('user scope ~/.kimi/config.toml; registered', () => {
    assert.equal(kimiConfigPath('user', { home: '/home/u', projectRoot: '/p', env: {} }), F);
    assert.deepEqual(kimiTarget.scopes, ['user']);
    assert.equal(WIRE_TARGETS['kimi'], kimiTarget);
  });
});

describe('`asimov wire kimi` on a scratch HOME', () => {
  const REPO = resolve(import.meta.dirname, '../..');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-wire-kimi-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.kimi'), { recursive: true });
  mkdirSync(join(project, '.git'), { recursive: true });
  const file = join(home, '.kimi', 'config.toml');
  const wire = (...args: string[]) => spawnSync(process.execPath, [join(REPO, 'bin/asimov.cjs'), 'wire', 'kimi', ...args], {
    cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8',
  });

  test('installs next to the existing config, is idempotent, and uninstalls to the original bytes', () => {
    const mine = 'default_model = "kimi-k2"\n';
    writeFileSync(file, mine, { mode: 0o600 });
    const first = wire();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /added PreToolUse hook/);
    assert.match(readFileSync(file, 'utf8'), /^default_model = "kimi-k2"\n\n\[\[hooks\]\]\nevent = "PreToolUse"\ncommand = ".*hook kimi --deadline-ms \d+ .*# asimov-hook:kimi"\ntimeout = \d+\n$/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const second = wire();
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /nothing to change/);
    const removed = wire('--uninstall');
    assert.equal(removed.status, 0, removed.stderr);
    assert.equal(readFileSync(file, 'utf8'), mine);
  });

  test('a config.toml asimov cannot read is left exactly as it was', () => {
    const bad = 'a = \n';
    writeFileSync(file, bad);
    const r = wire();
    assert.equal(r.status, 1);
    assert.match(r.stderr, /could not read this TOML/);
    assert.equal(readFileSync(file, 'utf8'), bad);
  });

  test.after(() => rmSync(root, { recursive: true, force: true }));
});
