// The daemon's gates, kept per environment and options (each one a fresh gate: test/gate/fresh-gate.test.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheKey, createGateCache } from '../../../src/cli/daemon/gate-cache.ts';

test('gates are kept per environment and options, the least recently used dropped', () => {
  const cache = createGateCache({ max: 2 });
  const a = cache.gateFor({ env: { HOME: '/a' } });
  assert.equal(cache.gateFor({ env: { HOME: '/a' } }), a);
  assert.notEqual(cache.gateFor({ env: { HOME: '/a' }, audit: false }), a);
  assert.equal(cache.size, 2);
  cache.gateFor({ env: { HOME: '/b' } });
  assert.equal(cache.size, 2);
  assert.notEqual(cache.gateFor({ env: { HOME: '/a' } }), a, 'the oldest was dropped');
  // Options holding objects are not shared.
  assert.equal(cacheKey({ env: {}, audit: { append: () => undefined } }), null);
  assert.equal(cacheKey({ env: { B: '1', A: '2' } }), cacheKey({ env: { A: '2', B: '1' } }));
});
