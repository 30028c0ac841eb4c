import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parseShell } from '../../src/shell/parse.ts';
import { decodeAnsiC } from '../../src/shell/lexer.ts';
import { buildWord } from '../../src/shell/words.ts';
import type { Word } from '../../src/shell/types.ts';

const BASH = ['/bin/bash', '/usr/bin/bash'].find((p) => existsSync(p));

function word(src: string, index = 1): Word {
  const a = parseShell(`echo ${src}`);
  assert.equal(a.status, 'ok', `${src}: ${a.message}`);
  return a.commands[0]!.argv[index]!;
}

describe('ANSI-C strings', () => {
  const BODIES = [
    'plain', 'a\\nb', 'a\\tb', '\\\\', "\\'", '\\"', '\\?', '\\a\\b\\e\\E\\f\\r\\v', '\\x41', '\\x4a4', '\\x4', '\\xZ', '\\x',
    '\\101', '\\1010', '\\7', '\\u00e9', '\\u263a', '\\U0001F600', '\\u', '\\uZZ', '\\cA', '\\ca', '\\c?', '\\c[', '\\c\\\\',
    '\\z', '\\q\\w', 'a\\0b', '\\x00z', '\\x{41}b', '\\x{41b', '\\x{0041}z', '\\x{}z', '\\xc3\\xa9', '\\303\\251', '\\x{263a}z',
  ];

  test('decodes every escape the way bash does', { skip: BASH ? false : 'bash not found' }, () => {
    const script = BODIES.map((b) => `printf '%s\\0' $'${b}'`).join('\n');
    const r = spawnSync(BASH!, ['--norc', '--noprofile', '-c', script], { encoding: 'utf8', env: { LC_ALL: 'C.UTF-8' } });
    const fromBash = r.stdout.split('\0').slice(0, -1);
    assert.equal(fromBash.length, BODIES.length);
    BODIES.forEach((b, i) => assert.equal(decodeAnsiC(b), fromBash[i], `$'${b}'`));
  });

  test('bytes that are not valid UTF-8 are refused, valid sequences decode', () => {
    assert.equal(decodeAnsiC('\\xff'), null);
    assert.equal(decodeAnsiC('\\xc3'), null);
    assert.equal(decodeAnsiC('\\xc3\\xa9'), 'é');
    assert.equal(parseShell("echo $'\\xa4'").status, 'refused');
  });

  test('a code point outside Unicode is refused', () => {
    assert.equal(decodeAnsiC('\\U00110000'), null);
    assert.equal(decodeAnsiC('\\ud800'), null);
  });

  test("$'…' is decoded in a word and counts as quoted", () => {
    const w = word("$'r\\x6d *'");
    assert.equal(w.value, 'rm *');
    assert.equal(w.literal, true);
    assert.equal(w.glob, false);
  });

  test("$'…' inside double quotes is not ANSI-C", () => {
    assert.equal(word(`"$'\\x41'"`).value, "$'\\x41'");
  });
});

describe('word values and flags', () => {
  test('quote removal keeps what each quoting style means', () => {
    assert.equal(word(`a'b c'"d e"\\ f`).value, 'ab cd e f');
    assert.equal(word(`"a\\$b\\\`c\\"d\\\\e\\f"`).value, 'a$b`c"d\\e\\f');
  });

  test('raw is the source text of the word', () => {
    assert.equal(word(`"a"'b'`).raw, `"a"'b'`);
  });

  test('an expansion stays as its source text in value', () => {
    assert.equal(word('$HOME/.ssh').value, '$HOME/.ssh');
    assert.equal(word('"${HOME}"/x').value, '${HOME}/x');
    assert.equal(word('$(whoami)').value, '$(whoami)');
    assert.equal(word('`id`').value, '`id`');
    assert.equal(word('$((1+2))').value, '$((1+2))');
  });

  test('vars lists every parameter, nested ones included, and specials by their name', () => {
    assert.deepEqual(word('$a${b}"$c"${d:-$e}$1$@$?${#f}${g[0]}').vars, ['a', 'b', 'c', 'd', 'e', '1', '@', '?', 'f', 'g']);
  });

  test('substitution kinds are listed in source order, nested ones inside parameters too', () => {
    assert.deepEqual(word('$(a)`b`<(c)>(d)$((1))${x:-$(e)}').substitutionKinds,
      ['command', 'backtick', 'process-in', 'process-out', 'arithmetic', 'command']);
  });

  test('glob characters only count when unquoted; a lone [ is not a pattern', () => {
    assert.deepEqual([word('*').glob, word('a?').glob, word('[ab]').glob, word('[').glob, word('a[').glob, word('"*"').glob],
      [true, true, true, false, false, false]);
    assert.equal(word('[').literal, true);
  });

  test('a tilde is home only at the start and followed by / or nothing', () => {
    assert.deepEqual(['~', '~/x', '~root', '~+', 'a~', '"~"', '~"/x"', '\\~/x'].map((s) => {
      const w = word(s);
      return [w.value, w.literal];
    }), [['~', true], ['~/x', true], ['~root', false], ['~+', false], ['a~', true], ['~', true], ['~/x', false], ['~/x', true]]);
  });

  test('a tilde after = or : in an assignment is an expansion', () => {
    const a = parseShell('P=~/bin:~/x cmd');
    const v = a.commands[0]!.assignments[0]!.value;
    assert.equal(v.value, '~/bin:~/x');
    assert.equal(v.literal, false);
  });

  test('buildWord substitutes a constant and keeps literal only when it is exact', () => {
    const consts = new Map([['d', 'build'], ['s', 'a b'], ['e', '']]);
    const param = (name: string, q: boolean) => ({ t: 'param' as const, raw: '$' + name, name, q, simple: true, indirect: false, assigns: false, inner: [], arith: false });
    assert.deepEqual([buildWord('$d', [param('d', false)], { consts }).value, buildWord('$d', [param('d', false)], { consts }).literal], ['build', true]);
    assert.equal(buildWord('$s', [param('s', false)], { consts }).literal, false);
    assert.equal(buildWord('"$s"', [param('s', true)], { consts }).literal, true);
    assert.equal(buildWord('$e', [param('e', false)], { consts }).literal, false);
    assert.equal(buildWord('$x', [param('x', false)], { consts }).literal, false);
  });
});

describe('comments and word boundaries', () => {
  test('# starts a comment only at the start of a word', () => {
    const a = parseShell('echo a#b "c"#d \\#e #f g');
    assert.deepEqual(a.commands[0]!.argv.map((w) => w.value), ['echo', 'a#b', 'c#d', '#e']);
  });

  test('process substitution glued inside a word stays in the word', () => {
    assert.equal(word('a<(x)b').value, 'a<(x)b');
  });

  test('a backslash-newline inside a word joins it', () => {
    assert.equal(word('r\\\nm').value, 'rm');
    assert.equal(word('"a\\\nb"').value, 'ab');
  });
});
