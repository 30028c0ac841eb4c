// The Team view's "3 min ago" and its stale mark (a machine silent for more than a day).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ago, isStale, STALE_AFTER_MS } from '../../src/web/ago.ts';

const now = Date.parse('2026-11-22T12:00:00Z');
const before = (ms: number) => new Date(now - ms).toISOString();

test('ago reads as a person says it: just now, minutes, hours, then days', () => {
  assert.equal(ago(before(10_000), now), 'just now');
  assert.equal(ago(before(-5_000), now), 'just now', 'a clock a little ahead is not the future');
  assert.equal(ago(before(3 * 60_000), now), '3 min ago');
  assert.equal(ago(before(59 * 60_000), now), '59 min ago');
  assert.equal(ago(before(5 * 3_600_000), now), '5 h ago');
  assert.equal(ago(before(30 * 3_600_000), now), '30 h ago');
  assert.equal(ago(before(3 * 86_400_000), now), '3 d ago');
  assert.equal(ago('not a time', now), 'not a time');
});

test('a machine is stale after a day without contact, not before', () => {
  assert.equal(isStale(before(STALE_AFTER_MS - 1000), now), false);
  assert.equal(isStale(before(STALE_AFTER_MS + 1000), now), true);
});
