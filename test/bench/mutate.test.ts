// Tests of the fuzz input generator: the PRNG is reproducible, each mutation does what it says, inputs replay.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMutation, createRng, flipByte, fuzzInput, generateShell, inputSeed, MAX_MUTANT_CHARS, mutate } from '../../bench/mutate.ts';

describe('the seeded PRNG', () => {
  test('the same seed gives the same sequence, another seed another one', () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const sa = Array.from({ length: 5 }, () => a.next());
    assert.deepEqual(sa, Array.from({ length: 5 }, () => b.next()));
    assert.notDeepEqual(sa, Array.from({ length: 5 }, () => c.next()));
  });

  test('integers stay in range and every value is reached', () => {
    const r = createRng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const v = r.int(6);
      assert.ok(v >= 0 && v < 6);
      seen.add(v);
    }
    assert.equal(seen.size, 6);
  });
});

describe('mutations', () => {
  test('a byte flip changes exactly one bit of the UTF-8 bytes of an ASCII line', () => {
    const before = 'git status';
    const after = flipByte(createRng(1), before);
    const a = Buffer.from(before);
    const b = Buffer.from(after, 'utf8');
    assert.equal(b.length, a.length);
    let bits = 0;
    for (let i = 0; i < a.length; i++) bits += (a[i]! ^ b[i]!).toString(2).split('1').length - 1;
    assert.equal(bits, 1);
  });

  test('a deletion only shortens the line', () => {
    const r = createRng(3);
    for (let i = 0; i < 50; i++) {
      const out = applyMutation(r, 'delete', 'rm -rf node_modules', () => '');
      assert.ok(out.length < 'rm -rf node_modules'.length);
    }
  });

  test('a duplication only lengthens the line', () => {
    const r = createRng(4);
    const out = applyMutation(r, 'duplicate', 'ls -la', () => '');
    assert.ok(out.length > 'ls -la'.length);
  });

  test('a splice joins the start of one line to the end of another', () => {
    const r = createRng(5);
    for (let i = 0; i < 20; i++) {
      const out = applyMutation(r, 'splice', 'aaaa', () => 'bbbb');
      assert.match(out, /^a*b*$/);
    }
  });

  test('stacked mutations never exceed the size cap', () => {
    const r = createRng(9);
    const long = 'x'.repeat(MAX_MUTANT_CHARS - 10);
    for (let i = 0; i < 30; i++) assert.ok(mutate(r, long, () => long).text.length <= MAX_MUTANT_CHARS);
  });
});

describe('generated shell and replay', () => {
  test('the grammar produces varied non-empty lines', () => {
    const r = createRng(11);
    const lines = new Set(Array.from({ length: 200 }, () => generateShell(r)));
    assert.ok(lines.size > 150);
    for (const l of lines) assert.ok(l.length > 0);
  });

  test('fuzz input number i is rebuilt exactly from the seed and i alone', () => {
    const seeds = ['ls -la', 'rm -rf /', 'git push --force'];
    for (const i of [0, 1, 999, 123456]) assert.deepEqual(fuzzInput(2024, i, seeds), fuzzInput(2024, i, seeds));
    assert.notEqual(inputSeed(1, 0), inputSeed(1, 1));
    assert.notEqual(inputSeed(1, 0), inputSeed(2, 0));
  });

  test('without seed lines every input is generated', () => {
    for (let i = 0; i < 20; i++) assert.equal(fuzzInput(1, i, []).origin, 'generated');
  });
});
