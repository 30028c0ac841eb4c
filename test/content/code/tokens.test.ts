import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenizePython } from '../../../src/content/code/python-tokens.ts';
import { tokenizeJs } from '../../../src/content/code/js-tokens.ts';
import type { Tok } from '../../../src/content/code/tokens.ts';

const names = (toks: Tok[]): string[] => toks.filter((t) => t.k === 'name').map((t) => t.v);
const strs = (toks: Tok[]): string[] => toks.filter((t) => t.k === 'str').map((t) => t.v);

describe('the Python tokenizer', () => {
  test('comments and strings hide code; code outside them is seen', () => {
    const { toks } = tokenizePython("print('os.system(1)')  # os.system('rm -rf ~')\nimport os");
    assert.deepEqual(names(toks), ['print', 'import', 'os']);
  });
  test('every string prefix and triple quotes decode', () => {
    const { toks } = tokenizePython("a = r'\\x41' + b'\\x41' + '\\x41' + Rb\"\\n\" + '''x\ny'''");
    assert.deepEqual(strs(toks), ['\\x41', 'A', 'A', '\\n', 'x\ny']);
  });
  test('f-string holes are code, nested quotes and format specs included', () => {
    const { toks } = tokenizePython('print(f"{os.system(\'id\')!r:>{w}} {{x}}")');
    const t = toks.find((x) => x.k === 'tmpl')!;
    assert.deepEqual(names(t.parts!.holes[0]!), ['os', 'system', 'w']);
    assert.equal(t.parts!.quasis.at(-1), ' {x}');
  });
  test('line continuation and brackets join lines; ; and newlines end statements', () => {
    const { toks } = tokenizePython('x = (1,\n 2)\ny = 1 \\\n + 2; z = 3');
    assert.equal(toks.filter((t) => t.k === 'nl').length, 2);
  });
  test('identifiers are NFKC-normalized as Python reads them', () => assert.deepEqual(names(tokenizePython('ｅｖａｌ(1)').toks), ['eval']));
  test('an unterminated string is an error, not a silent end', () => assert.ok(tokenizePython("x = 'abc").error));
});

describe('the JavaScript tokenizer', () => {
  test('regex literals and division are told apart', () => {
    const a = tokenizeJs("const re = /require\\('child_process'\\)[/]/g; a = b / c / d");
    assert.equal(a.toks.filter((t) => t.k === 'regex').length, 1);
    assert.deepEqual(strs(a.toks), []);
    const b = tokenizeJs("if (x) /'/.test(y); require('fs')");
    assert.deepEqual(strs(b.toks), ['fs'], 'a regex after a control head does not open a string');
  });
  test('template literals keep their holes as code, nested', () => {
    const t = tokenizeJs('x = `a${ `b${c}` }d`').toks.find((x) => x.k === 'tmpl')!;
    assert.deepEqual(t.parts!.quasis, ['a', 'd']);
  });
  test('comments are dropped; unicode escapes in names are decoded', () => {
    assert.deepEqual(names(tokenizeJs('/* eval */ // x\n\\u0065val(1)').toks), ['eval']);
  });
  test('TypeScript types tokenize harmlessly', () => assert.equal(tokenizeJs('const f = (a: string): void => {}; let n: Array<number> = []').error, undefined));
  test('an unterminated template is an error', () => assert.ok(tokenizeJs('x = `abc').error));
});
