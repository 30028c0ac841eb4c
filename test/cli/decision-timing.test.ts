// The per-decision summary `check --batch` prints and the daemon reports: the mean over every decision, the
// median and p99 over the recent window, as real samples.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecisionTiming, formatTiming } from '../../src/cli/decision-timing.ts';

test('nothing timed yet is no summary', () => {
  assert.equal(createDecisionTiming().summary(), null);
});

test('the mean counts the slow tail that the median hides', () => {
  const t = createDecisionTiming();
  for (let i = 0; i < 99; i++) t.record(10);
  t.record(10_000);
  const s = t.summary()!;
  assert.equal(s.decisions, 100);
  assert.equal(s.medianUs, 10);
  assert.equal(s.p99Us, 10);
  assert.equal(s.maxUs, 10_000);
  assert.ok(Math.abs(s.meanUs - 109.9) < 1e-9);
  assert.equal(formatTiming(s), '100 decisions: mean 110 µs, median 10.0 µs, p99 10.0 µs, max 10 ms');
});

test('median and p99 are over the last window only; the mean and count over all', () => {
  const t = createDecisionTiming(4);
  for (const us of [1000, 1000, 1000, 1000, 1, 2, 3, 4]) t.record(us);
  const s = t.summary()!;
  assert.equal(s.decisions, 8);
  assert.equal(s.medianUs, 2);
  assert.equal(s.p99Us, 4);
  assert.equal(s.meanUs, 4010 / 8);
});

test('begin() records the time until its stop function is called', () => {
  const t = createDecisionTiming();
  const stop = t.begin();
  stop();
  const s = t.summary()!;
  assert.equal(s.decisions, 1);
  assert.ok(s.meanUs >= 0 && s.meanUs < 1_000_000);
});
