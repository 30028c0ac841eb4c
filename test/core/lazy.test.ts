// The hash every decision uses (policy hash, audit chain, pins) must be exactly SHA-256, as node:crypto computes it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../src/core/lazy.ts';

test('sha256Hex equals node:crypto for strings (UTF-8) and bytes, including the empty input and large ones', () => {
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  for (const s of ['', 'é✓\u{1F600}', 'line\nwith\0nul', 'x'.repeat(200_000)]) {
    assert.equal(sha256Hex(s), createHash('sha256').update(s).digest('hex'));
  }
  const bytes = Buffer.from([0, 255, 1, 2, 0xc3]);
  assert.equal(sha256Hex(bytes), createHash('sha256').update(bytes).digest('hex'));
});
