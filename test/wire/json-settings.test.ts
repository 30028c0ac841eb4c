import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import {
  detectFormat, isBlank, lineColumn, parseJsonDocument, removeJsonValue, serializeJson, setJsonValue, type JsonDialect,
} from '../../src/wire/json-settings.ts';

const F = '/h/settings.json';
const doc = (text: string, dialect?: JsonDialect) => parseJsonDocument(text, F, dialect);

function refusal(text: string, dialect?: JsonDialect): AsimovError {
  try {
    doc(text, dialect);
  } catch (e) {
    assert.ok(e instanceof AsimovError, String(e));
    assert.equal(e.code, 'wire_settings_invalid');
    return e;
  }
  assert.fail(`accepted: ${JSON.stringify(text)}`);
}

describe('detectFormat', () => {
  test('spaces, tabs and line endings as the file has them', () => {
    assert.deepEqual(detectFormat('{\n  "a": {\n    "b": 1\n  }\n}\n'), { indent: '  ', eol: '\n' });
    assert.deepEqual(detectFormat('{\r\n    "a": 1\r\n}\r\n'), { indent: '    ', eol: '\r\n' });
    assert.deepEqual(detectFormat('{\n\t"a": [\n\t\t1\n\t]\n}'), { indent: '\t', eol: '\n' });
  });
  test('two spaces and LF when the text shows nothing', () => {
    assert.deepEqual(detectFormat('{"a":1}'), { indent: '  ', eol: '\n' });
    assert.deepEqual(detectFormat('{}'), { indent: '  ', eol: '\n' });
  });
});

describe('parseJsonDocument', () => {
  test('names line and column of a syntax error', () => {
    const e = refusal('{\n  "a": 1\n  "b": 2\n}\n');
    assert.deepEqual(e.location, { file: F, line: 3, column: 3 });
    assert.match(e.toString(), /^\/h\/settings\.json:3:3: not valid JSON: a ',' was expected$/);
  });
  test('an unterminated object', () => {
    const e = refusal('{\n  "a": [1, 2\n');
    assert.equal(e.location?.line, 3);
    assert.match(e.message, /not valid JSON/);
  });
  test('comments and trailing commas only where the dialect allows them', () => {
    const withComment = '{\n  // note\n  "a": 1\n}';
    assert.deepEqual(refusal(withComment).location, { file: F, line: 2, column: 3 });
    assert.match(refusal(withComment).message, /comments are not allowed/);
    assert.equal(doc(withComment, { comments: true }).root.type, 'object');
    const trailing = '{\n  "a": [1, 2,]\n}';
    assert.deepEqual(refusal(trailing).location, { file: F, line: 2, column: 14 });
    assert.match(refusal(trailing).message, /a trailing comma before this bracket/);
    assert.equal(doc(trailing, { trailingCommas: true }).root.type, 'object');
  });
  test('a top-level value that is not an object is refused', () => {
    const e = refusal('\n[{"hooks": {}}]\n');
    assert.deepEqual(e.location, { file: F, line: 2, column: 1 });
    assert.match(e.message, /top-level value must be an object.*found an array/);
    assert.match(refusal('"x"').message, /found a string/);
    assert.match(refusal('null').message, /found null/);
  });
  test('an empty text has no value (callers treat blank files as missing)', () => {
    assert.match(refusal('').message, /no value|a value was expected/);
    assert.ok(isBlank(' \n\t'));
    assert.ok(!isBlank('{}'));
  });
  test('lineColumn counts from 1', () => {
    assert.deepEqual(lineColumn('ab\ncd', 0), { line: 1, column: 1 });
    assert.deepEqual(lineColumn('ab\ncd', 4), { line: 2, column: 2 });
    assert.deepEqual(lineColumn('ab\r\ncd', 5), { line: 2, column: 2 });
  });
});

describe('setJsonValue', () => {
  test('replaces a scalar in place and touches nothing else', () => {
    const t = '{\n  "a" :  1,   "b": [ true ]\n}\n';
    assert.equal(setJsonValue(doc(t), ['a'], 22), '{\n  "a" :  22,   "b": [ true ]\n}\n');
    assert.equal(setJsonValue(doc(t), ['b', 0], 'x'), '{\n  "a" :  1,   "b": [ "x" ]\n}\n');
  });
  test('appends a property after the last one, at its indentation, in the file\'s line endings', () => {
    assert.equal(setJsonValue(doc('{\r\n    "a": 1\r\n}\r\n'), ['b'], { c: [1] }), '{\r\n    "a": 1,\r\n    "b": {\r\n        "c": [\r\n            1\r\n        ]\r\n    }\r\n}\r\n');
    assert.equal(setJsonValue(doc('{\n\t"a": 1\n}'), ['b'], { c: 2 }), '{\n\t"a": 1,\n\t"b": {\n\t\t"c": 2\n\t}\n}');
  });
  test('appends to a list (index = length) and creates missing objects and lists on the way', () => {
    const t = '{\n  "x": {\n    "l": [\n      1\n    ]\n  }\n}\n';
    assert.equal(setJsonValue(doc(t), ['x', 'l', 1], 2), '{\n  "x": {\n    "l": [\n      1,\n      2\n    ]\n  }\n}\n');
    assert.equal(setJsonValue(doc(t), ['x', 'm', 0], 'v'), '{\n  "x": {\n    "l": [\n      1\n    ],\n    "m": [\n      "v"\n    ]\n  }\n}\n');
  });
  test('fills an empty container on new lines', () => {
    assert.equal(setJsonValue(doc('{}'), ['a'], 1), '{\n  "a": 1\n}');
    assert.equal(setJsonValue(doc('{\n  "l": [ ]\n}'), ['l', 0], 1), '{\n  "l": [\n    1\n  ]\n}');
  });
  test('keeps a one-line container on one line', () => {
    assert.equal(setJsonValue(doc('{"a":1}'), ['b'], { c: 2 }), '{"a":1, "b": {"c":2}}');
    assert.equal(setJsonValue(doc('{"l":[1]}'), ['l', 1], 2), '{"l":[1, 2]}');
  });
  test('after a trailing comma (where allowed) the comma stays last', () => {
    assert.equal(setJsonValue(doc('{\n  "a": 1,\n}', { trailingCommas: true }), ['b'], 2), '{\n  "a": 1,\n  "b": 2,\n}');
  });
  test('refuses to go through a value of the wrong type, naming where', () => {
    const t = '{\n  "hooks": []\n}';
    assert.throws(() => setJsonValue(doc(t), ['hooks', 'PreToolUse'], []), (e: AsimovError) =>
      e.code === 'wire_settings_invalid' && e.toString() === `${F}:2:12: hooks: must be an object, found an array`);
    assert.throws(() => setJsonValue(doc('{"a": {}}'), ['a', 0], 1), /must be a list/);
  });
  test('refuses a key given twice on the way', () => {
    const t = '{\n  "hooks": {},\n  "hooks": {}\n}';
    assert.throws(() => setJsonValue(doc(t), ['hooks', 'X'], 1), (e: AsimovError) =>
      e.code === 'wire_settings_invalid' && /3:3: hooks: the key "hooks" appears twice/.test(e.toString()));
  });
});

describe('removeJsonValue', () => {
  const cases: [string, string, (string | number)[], unknown][] = [
    ['last property', '{\n  "a": 1\n}\n', ['b'], { c: [1, 2] }],
    ['only property', '{}', ['b'], 1],
    ['list element', '{\n  "l": [\n    1\n  ]\n}', ['l', 1], { x: 1 }],
    ['nested creation', '{\n  "x": 1\n}', ['y', 'z', 0], 'v'],
    ['crlf and 4 spaces', '{\r\n    "a": 1\r\n}\r\n', ['b'], [1]],
    ['tabs', '{\n\t"a": 1\n}', ['b'], { c: 1 }],
    ['one line', '{"a":[1]}', ['a', 1], { b: 2 }],
  ];
  for (const [name, original, path, value] of cases) {
    test(`undoes an insertion byte for byte: ${name}`, () => {
      const added = setJsonValue(doc(original), path, value);
      assert.notEqual(added, original);
      // Remove the outermost value the insertion created.
      const created = path.findIndex((_, i) => !hasPath(original, path.slice(0, i + 1)));
      assert.equal(removeJsonValue(doc(added), path.slice(0, created + 1)), original);
    });
  }
  test('removes the first of several elements with its comma', () => {
    assert.equal(removeJsonValue(doc('{\n  "l": [\n    1,\n    2\n  ]\n}'), ['l', 0]), '{\n  "l": [\n    2\n  ]\n}');
    assert.equal(removeJsonValue(doc('{"a": 1, "b": 2}'), ['a']), '{"b": 2}');
  });
  test('keeps comments that sit between the removed item and its neighbour', () => {
    const t = '{\n  "a": 1, // about a\n  "b": 2\n}';
    assert.equal(removeJsonValue(doc(t, { comments: true }), ['b']), '{\n  "a": 1 // about a\n  \n}');
  });
  test('does nothing when the path is absent', () => {
    const t = '{\n  "a": 1\n}';
    assert.equal(removeJsonValue(doc(t), ['b']), t);
    assert.equal(removeJsonValue(doc(t), ['x', 'y']), t);
  });
});

test('serializeJson: indentation, line endings and a final line ending', () => {
  assert.equal(serializeJson({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}\n');
  assert.equal(serializeJson({ a: 1 }, { indent: '\t', eol: '\r\n' }), '{\r\n\t"a": 1\r\n}\r\n');
});

function hasPath(text: string, path: (string | number)[]): boolean {
  let v: unknown = JSON.parse(text);
  for (const p of path) {
    if (v === null || typeof v !== 'object' || !(p in (v as object))) return false;
    v = (v as Record<string | number, unknown>)[p];
  }
  return true;
}
