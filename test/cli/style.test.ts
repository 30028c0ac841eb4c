import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { colorWanted, makeStyle, table, visibleWidth } from '../../src/cli/style.ts';

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/asimov.cjs');

test('colour follows NO_COLOR, FORCE_COLOR, TERM=dumb and whether the output is a terminal', () => {
  assert.equal(colorWanted(true, {}), true);
  assert.equal(colorWanted(false, {}), false);
  assert.equal(colorWanted(undefined, {}), false);
  assert.equal(colorWanted(true, { NO_COLOR: '1' }), false);
  assert.equal(colorWanted(true, { NO_COLOR: '' }), true, 'an empty NO_COLOR does not count (no-color.org)');
  assert.equal(colorWanted(true, { NO_COLOR: '1', FORCE_COLOR: '1' }), false, 'NO_COLOR wins');
  assert.equal(colorWanted(false, { FORCE_COLOR: '1' }), true);
  assert.equal(colorWanted(true, { FORCE_COLOR: '0' }), false);
  assert.equal(colorWanted(true, { TERM: 'dumb' }), false);
});

test('a style colours verdicts by severity, and a plain one changes nothing', () => {
  const on = makeStyle(true);
  assert.equal(on.verdict('hard_deny'), '\x1b[31mhard_deny\x1b[39m');
  assert.equal(on.verdict('ASK'), '\x1b[33mASK\x1b[39m');
  assert.equal(on.verdict('allow'), '\x1b[32mallow\x1b[39m');
  assert.equal(on.verdict('something'), 'something');
  const off = makeStyle(false);
  for (const w of ['hard_deny', 'ask', 'allow']) assert.equal(off.verdict(w), w);
  assert.equal(off.bold('x'), 'x');
});

test('tables align by what a terminal shows, colour codes left out, and the last column is not padded', () => {
  const st = makeStyle(true);
  const out = table([[st.verdict('allow'), 'b', 'last'], ['hard_deny', 'bb', 'x']], { head: ['TIER', 'K', 'WHY'] });
  const lines = out.split('\n').map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
  assert.deepEqual(lines, ['TIER       K   WHY', 'allow      b   last', 'hard_deny  bb  x']);
  assert.equal(visibleWidth(st.red('abc')), 3);
});

test('asimov rules: coloured only when asked for, never into a pipe by default', () => {
  const plain = spawnSync(process.execPath, [BIN, 'rules', '--builtin'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  assert.equal(plain.status, 0);
  assert.ok(!plain.stdout.includes('\x1b['), 'no escape codes into a pipe');
  assert.match(plain.stdout, /^RULE\s+TIER\s+REASON/);
  assert.match(plain.stdout, /\nfs\.rm-catastrophic\s+hard_deny\s+locked\s+/);
  const forced = spawnSync(process.execPath, [BIN, 'rules', '--builtin'], { encoding: 'utf8', env: { PATH: process.env.PATH, FORCE_COLOR: '1' } });
  assert.match(forced.stdout, /\x1b\[31mhard_deny\x1b\[39m/);
  const no = spawnSync(process.execPath, [BIN, 'rules', '--builtin'], { encoding: 'utf8', env: { PATH: process.env.PATH, FORCE_COLOR: '1', NO_COLOR: '1' } });
  assert.ok(!no.stdout.includes('\x1b['));
});

test('check, explain and doctor colour their verdicts on request, and print plain text into a pipe', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent-asimov-home', ...env } });
  const plain = run(['check', '--', 'rm -rf ~']);
  assert.match(plain.stdout, /^DENY \(hard_deny, fs\.rm-catastrophic\)/);
  assert.match(run(['check', '--', 'rm -rf ~'], { FORCE_COLOR: '1' }).stdout, /^\x1b\[1m\x1b\[31mDENY\x1b\[39m\x1b\[22m/);
  const explained = run(['explain', '--', 'ls && rm -rf ~'], { FORCE_COLOR: '1' }).stdout;
  assert.match(explained, /1\. \x1b\[32mallow\x1b\[39m {6}ls/);
  assert.match(explained, /2\. \x1b\[31mhard_deny\x1b\[39m {2}rm -rf ~/);
  assert.ok(!run(['explain', '--', 'ls']).stdout.includes('\x1b['));
});
