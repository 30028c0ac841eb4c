import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseShell } from '../../src/shell/parse.ts';
import { expandBraces } from '../../src/shell/brace.ts';
import type { Part } from '../../src/shell/parser.ts';

/** The words `echo <word>` passes after brace expansion (values), or the status when not ok. */
function expand(word: string): string[] | string {
  const a = parseShell(`echo ${word}`);
  if (a.status !== 'ok') return a.status;
  return a.commands[0]!.argv.slice(1).map((w) => w.value);
}

// Expected results checked against bash 5.2 (`printf '[%s]' WORD`).
const CASES: Array<[string, string[] | string]> = [
  ['{a,b}', ['a', 'b']],
  ['x{a,b}y', ['xay', 'xby']],
  ['{a,b}{c,d}', ['ac', 'ad', 'bc', 'bd']],
  ['{x,y{1,2}}', ['x', 'y1', 'y2']],
  ['{a,{b},c}', ['a', '{b}', 'c']],
  ['{{a},b}', ['{a}', 'b']],
  ['{a},b}', ['a}', 'b']],
  ['{a}b,c}', ['a}b', 'c']],
  ['{a,b}}', ['a}', 'b}']],
  ['{{a,b}', ['{a', '{b']],
  ['{a{b,c}', ['{ab', '{ac']],
  ['{a}{b,c}', ['{a}b', '{a}c']],
  ['{a}{b}{c,d}', ['{a}{b}c', '{a}{b}d']],
  ['{a,b}x}y,z}', ['ax}y,z}', 'bx}y,z}']],
  ['x{}a,b}', ['x}a', 'xb']],
  ['{}', ['{}']],
  ['{}{a,b}', ['{}a', '{}b']],
  ['{a}', ['{a}']],
  ['{a}}', ['{a}}']],
  ['{a,b', ['{a,b']],
  ['{ab,}', ['ab']],
  ['{a,}b}', ['ab}', 'b}']],
  ['{,}x', ['x', 'x']],
  ['{1..3}', ['1', '2', '3']],
  ['{3..1}', ['3', '2', '1']],
  ['{1..10..3}', ['1', '4', '7', '10']],
  ['{5..1..2}', ['5', '3', '1']],
  ['{1..3..0}', ['1', '2', '3']],
  ['{-3..-1}', ['-3', '-2', '-1']],
  ['{1..-1}', ['1', '0', '-1']],
  ['{01..03}', ['01', '02', '03']],
  ['{1..003}', ['001', '002', '003']],
  ['{-01..2}', ['-01', '000', '001', '002']],
  ['{-1..01}', ['-1', '00', '01']],
  ['{08..10}', ['08', '09', '10']],
  ['{+1..3}', ['1', '2', '3']],
  ['{a..c}', ['a', 'b', 'c']],
  ['{c..a}', ['c', 'b', 'a']],
  ['{a..e..2}', ['a', 'c', 'e']],
  ['{a..c..-1}', ['a', 'b', 'c']],
  ['{a..c}}', ['a}', 'b}', 'c}']],
  ['{a..c},d}', ['a,d}', 'b,d}', 'c,d}']],
  ['{a..}', ['{a..}']],
  ['{ab..c}', ['{ab..c}']],
  ['{1.5..3}', ['{1.5..3}']],
  ['{a..c..}', ['{a..c..}']],
  ['{a..C}', 'refused'],
  ['"{a,b}"', ['{a,b}']],
  ["'{a,b}'", ['{a,b}']],
  ['\\{a,b}', ['{a,b}']],
  ['{a\\,b}', ['{a,b}']],
  ['{"a,b",c}', ['a,b', 'c']],
  ['{"a",b}', ['a', 'b']],
  ['${x,y}', ['${x,y}']],
  ['\\${a,b}', ['$a', '$b']],
  ['$\\{a,b}', ['${a,b}']],
  ['{a,b}$(id)', ['a$(id)', 'b$(id)']],
];

describe('brace expansion', () => {
  for (const [word, want] of CASES) {
    test(`expands ${word} like bash`, () => {
      assert.deepEqual(expand(word), want);
    });
  }

  test('{rm,-rf,/} becomes the command rm -rf /', () => {
    const a = parseShell('{rm,-rf,/}');
    assert.deepEqual(a.commands[0]!.argv.map((w) => [w.value, w.literal]), [['rm', true], ['-rf', true], ['/', true]]);
  });

  test('letters brace expansion glues to an unbraced $name extend the name, as in bash', () => {
    const argv = parseShell('echo $w{a,b} ${w}{a,b}').commands[0]!.argv;
    assert.deepEqual(argv.slice(1).map((w) => [w.value, w.vars]), [['$wa', ['wa']], ['$wb', ['wb']], ['${w}a', ['w']], ['${w}b', ['w']]]);
  });

  test('a literal $ that brace expansion glues to text is refused', () => {
    assert.equal(parseShell('echo {a,b$}x').status, 'refused');
    assert.equal(parseShell('echo {a,$}').status, 'ok');
  });

  test('no brace expansion in assignments, here-strings or case words', () => {
    const a = parseShell('a={x,y} cmd <<< {p,q}');
    assert.equal(a.commands[0]!.assignments[0]!.value.value, '{x,y}');
    assert.equal(a.commands[0]!.redirects[0]!.target.value, '{p,q}');
  });

  test('array elements are brace-expanded', () => {
    const asg = parseShell('a=({1..3} x)').commands[0]!.assignments[0]!;
    assert.deepEqual(asg.array!.map((w) => w.value), ['1', '2', '3', 'x']);
  });

  test('the substitution inside an expanded word is listed on every resulting word', () => {
    const a = parseShell('echo {a,b}$(id)');
    const id = a.commands.find((c) => c.argv[0]?.value === 'id')!.id;
    assert.deepEqual(a.commands[0]!.argv.slice(1).map((w) => w.substitutions), [[id], [id]]);
    assert.equal(a.commands.length, 2);
  });

  test('expansions past the cap are refused, both as products and as sequences', () => {
    assert.equal(expand('{a,b}'.repeat(11)), 'refused');
    assert.equal(expand('{1..2000}'), 'refused');
    assert.equal(expand('{a,b}'.repeat(10)).length, 1024);
  });

  test('expandBraces returns the same parts when there is nothing to expand', () => {
    const parts: Part[] = [{ t: 'lit', s: 'abc', q: false }, { t: 'lit', s: '{a,b}', q: true }];
    const out = expandBraces(parts);
    assert.equal(out.length, 1);
    assert.equal(out[0], parts);
  });

  test('expandBraces honours a smaller cap', () => {
    assert.throws(() => expandBraces([{ t: 'lit', s: '{1..10}', q: false }], 5), /more than 5 words/);
  });
});
