// Fixture texts in, exact texts out: asimov's [[hooks]] table in Kimi CLI's config.toml is added, updated
// and removed, a second run changes nothing, uninstall gives back the original bytes, and TOML that the
// edit would break is refused. Then `asimov wire kimi` on a scratch HOME.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { kimiConfigPath, kimiHookTable, kimiTarget } from '../../src/wire/kimi.ts';
import { leavesUnreadableTest, plannedHook, planRoundTrip, refusesUnreadableTest, wireRunTest, wireScratch, wireTargetTest } from '../helpers/wire-tests.ts';

const F = '/home/u/.kimi/config.toml';
const hook = plannedHook('kimi', F);
const { command: CMD, timeoutSec: T, install, uninstall } = hook;
const plan = (text: string | null, o = install) => kimiTarget.plan(text, o);
const TABLE = `[[hooks]]\nevent = "PreToolUse"\ncommand = ${JSON.stringify(CMD)}\ntimeout = ${T}\n`;

// Where there was no file, uninstalling leaves an empty one.
const trip = planRoundTrip(plan, hook, ['removed PreToolUse hook'], '');
const roundTrip = (before: string | null, expected: string) => trip(before, expected, ['added PreToolUse hook']);

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

  refusesUnreadableTest('TOML asimov cannot read, or hooks in a form this edit would break, is refused with file and line', plan, hook, [
    ['a = \n', /could not read this TOML/],
    ['hooks = []\n', /as a key/],
    ['[hooks]\nx = 1\n', /in the way/],
    ['[[hooks.sub]]\nx = 1\n', /in the way/],
  ]);

  wireTargetTest('user scope ~/.kimi/config.toml; registered', kimiTarget, {
    scopes: ['user'],
    paths: () => [[kimiConfigPath('user', { home: '/home/u', projectRoot: '/p', env: {} }), F]],
  });
});

describe('`asimov wire kimi` on a scratch HOME', () => {
  const scratch = wireScratch('kimi');
  const file = join(scratch.home, '.kimi', 'config.toml');
  const mine = 'default_model = "kimi-k2"\n';

  wireRunTest('installs next to the existing config, is idempotent, and uninstalls to the original bytes', scratch, {
    file,
    existing: mine,
    said: [/added PreToolUse hook/],
    installed: (text) => assert.match(text, /^default_model = "kimi-k2"\n\n\[\[hooks\]\]\nevent = "PreToolUse"\ncommand = ".*hook kimi --deadline-ms \d+ .*# asimov-hook:kimi"\ntimeout = \d+\n$/),
    mode: 0o600,
    uninstalled: (text) => assert.equal(text, mine),
  });

  leavesUnreadableTest('a config.toml asimov cannot read is left exactly as it was', scratch, {
    file, text: 'a = \n', error: /could not read this TOML/,
  });

  test.after(() => scratch.cleanup());
});
