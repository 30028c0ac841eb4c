// Tests of the bench's statistics: medians, nearest-rank percentiles, shares and top counts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatPercent, median, percent, quantile, summarize, topCounts } from '../../bench/stats.ts';

describe('bench statistics', () => {
  test('the median of an even number of samples is the mean of the two middle ones', () => {
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([5, 1, 3]), 3);
  });

  test('percentiles use the nearest rank, so p99 is always a sample that was measured', () => {
    const s = Array.from({ length: 200 }, (_, i) => i + 1);
    assert.equal(quantile(s, 0.99), 198);
    assert.equal(quantile(s, 0.9), 180);
    assert.equal(quantile([7], 0.99), 7);
    assert.equal(quantile(s, 1), 200);
  });

  test('a summary of unsorted samples reports median, p90, p99, max and mean', () => {
    const s = summarize([10, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(s, { n: 10, median: 5.5, p90: 9, p99: 10, max: 10, mean: 5.5 });
  });

  test('no samples give NaN rather than a number that looks measured', () => {
    const s = summarize([]);
    assert.ok(Number.isNaN(s.median) && Number.isNaN(s.p99) && Number.isNaN(s.max));
    assert.ok(Number.isNaN(percent(0, 0)));
    assert.equal(formatPercent(percent(0, 0)), 'n/a');
  });

  test('shares are percentages with one decimal', () => {
    assert.equal(formatPercent(percent(97, 100)), '97.0%');
    assert.equal(formatPercent(percent(1, 3)), '33.3%');
  });

  test('shares are rounded down, so a near miss never reads as the target or as 100%', () => {
    assert.equal(formatPercent(percent(741, 764)), '96.9%');
    assert.equal(formatPercent(percent(2999, 3000)), '99.9%');
    assert.equal(formatPercent(percent(291, 300)), '97.0%');
  });

  test('top counts list the most common keys first, ties in key order', () => {
    assert.deepEqual(topCounts(['b', 'a', 'b', 'c', 'a', 'b'], 2), [['b', 3], ['a', 2]]);
    assert.deepEqual(topCounts(['z', 'y'], 10), [['y', 1], ['z', 1]]);
  });
});
