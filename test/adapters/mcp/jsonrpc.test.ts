// The relay's view of JSON-RPC: what kind of message a value is, and newline framing that survives UTF-8
// split across reads, CRLF, blank lines and a line too long to keep.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLineSplitter, excerpt, kindOf, parseLine, progressTokenOf } from '../../../src/adapters/mcp/jsonrpc.ts';

test('kindOf: requests, notifications, responses; anything else is not a message', () => {
  assert.equal(kindOf({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), 'request');
  assert.equal(kindOf({ jsonrpc: '2.0', id: 'a', method: 'x', params: {} }), 'request');
  assert.equal(kindOf({ jsonrpc: '2.0', method: 'notifications/initialized' }), 'notification');
  assert.equal(kindOf({ jsonrpc: '2.0', id: 1, result: {} }), 'response');
  assert.equal(kindOf({ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } }), 'response');
  for (const bad of [
    null, [], 'x', { id: 1, method: 'x' }, { jsonrpc: '2.0', id: null, method: 'x' }, { jsonrpc: '2.0', method: 'x', params: [1] },
    { jsonrpc: '2.0', id: 1 }, { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }, { jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } },
    [{ jsonrpc: '2.0', id: 1, method: 'batch' }],
  ]) assert.equal(kindOf(bad), null, JSON.stringify(bad));
  assert.deepEqual(parseLine('not json'), { junk: 'not json' });
  assert.deepEqual(parseLine('{"a":1}'), { junk: '{"a":1}' });
  assert.equal(progressTokenOf({ _meta: { progressToken: 7 } }), 7);
  assert.equal(progressTokenOf({ _meta: { progressToken: {} } }), undefined);
});

test('the line splitter: UTF-8 split across chunks, CRLF, blank lines, what is left without a newline', () => {
  const lines: string[] = [];
  const sp = createLineSplitter((l) => lines.push(l), () => assert.fail('no overflow'));
  const bytes = Buffer.from('{"t":"é✓"}\r\n\n  \n{"u":2}\n{"partial"', 'utf8');
  for (let i = 0; i < bytes.length; i++) sp.push(bytes.subarray(i, i + 1));
  assert.deepEqual(lines, ['{"t":"é✓"}', '{"u":2}']);
  assert.equal(sp.rest(), '{"partial"');
});

test('an over-long line is reported and dropped up to its newline; the next line is read', () => {
  const lines: string[] = [];
  let overflows = 0;
  const sp = createLineSplitter((l) => lines.push(l), () => overflows++);
  const chunk = 'x'.repeat(8 * 1024 * 1024);
  for (let i = 0; i < 9; i++) sp.push(chunk);
  sp.push('tail of the long line\n{"ok":1}\n');
  assert.equal(overflows, 1);
  assert.deepEqual(lines, ['{"ok":1}']);
  assert.equal(excerpt('a\nb\u0000c' + 'z'.repeat(200), 10), 'a b czzzzz…');
});
