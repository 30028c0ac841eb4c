// Strict reading of the judge's reply: one object, a verdict among three words, a reason; anything else unsure.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_REASON_CHARS, parseVerdictText, parseVerdictValue } from '../../src/judge/parse.ts';

test('a well-formed verdict is read', () => {
  assert.deepEqual(parseVerdictText('{"verdict":"allow","reason":"Builds the project."}'), { ok: true, verdict: 'allow', reason: 'Builds the project.' });
  assert.deepEqual(parseVerdictText('  {"verdict": "deny", "reason": "Uploads .env."}\n'), { ok: true, verdict: 'deny', reason: 'Uploads .env.' });
  assert.deepEqual(parseVerdictValue({ verdict: 'unsure', reason: 'Cannot tell.' }), { ok: true, verdict: 'unsure', reason: 'Cannot tell.' });
});

test('everything else is not a verdict', () => {
  const bad: Array<[string, string]> = [
    ['prose', 'I think this is fine, allow.'],
    ['both words', '{"verdict":"allow or deny","reason":"x"}'],
    ['both words as a list', '{"verdict":["allow","deny"],"reason":"x"}'],
    ['truncated', '{"verdict":"allow","reason":"Builds the pro'],
    ['extra text after', '{"verdict":"allow","reason":"x"} but actually deny'],
    ['extra text before', 'Sure! {"verdict":"allow","reason":"x"}'],
    ['code fence', '```json\n{"verdict":"allow","reason":"x"}\n```'],
    ['empty', ''],
    ['blank', '  \n '],
    ['extra key', '{"verdict":"allow","reason":"x","confidence":0.9}'],
    ['no reason', '{"verdict":"allow"}'],
    ['empty reason', '{"verdict":"deny","reason":"   "}'],
    ['capitalised', '{"verdict":"Allow","reason":"x"}'],
    ['not an object', '["allow","x"]'],
    ['two objects', '{"verdict":"allow","reason":"x"}{"verdict":"deny","reason":"y"}'],
  ];
  for (const [name, text] of bad) {
    const r = parseVerdictText(text);
    assert.equal(r.ok, false, name);
    assert.ok(!r.ok && r.problem.length > 0, name);
  }
  assert.equal(parseVerdictValue(null).ok, false);
  assert.equal(parseVerdictValue('allow').ok, false);
});

test('the reason is one line, without control characters, bounded', () => {
  const r = parseVerdictValue({ verdict: 'deny', reason: `line one\nline two\u0007\u001b[31m ${'z'.repeat(5000)}` });
  assert.ok(r.ok);
  assert.ok(r.ok && !/[\u0000-\u001f]/.test(r.reason));
  assert.ok(r.ok && r.reason.startsWith('line one line two'));
  assert.ok(r.ok && r.reason.length === MAX_REASON_CHARS);
});
