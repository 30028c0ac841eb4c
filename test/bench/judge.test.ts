// Tests of the bench's judge section arithmetic: what counts as settled without the judge, the peers taken
// together, the paired overhead and the summary rows against issue 4's targets.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  msStats,
  overheadSummaryRows,
  pairedOverhead,
  peersCombined,
  settledAlone,
  settledSummaryRows,
  type OverheadReport,
  type SettledShare,
} from '../../bench/judge.ts';

const tiers = { allow: 0, unknown: 0, soft_deny: 0, hard_deny: 0 };
const share = (corpus: SettledShare['corpus'], n: number, settled: number): SettledShare => ({ corpus, set: 's', title: corpus, n, settled, tiers, topToJudge: [] });

describe('bench judge section', () => {
  test('only allow and hard_deny are settled without the judge', () => {
    assert.deepEqual((['allow', 'unknown', 'soft_deny', 'hard_deny'] as const).filter(settledAlone), ['allow', 'hard_deny']);
  });

  test('the peers are summed case by case, NL2Bash left out', () => {
    assert.deepEqual(peersCombined([share('nl2bash', 100, 10), share('dcg', 10, 9), share('gatekeeper-v1', 30, 3)]), { n: 40, settled: 12 });
  });

  test('overhead is the difference within each round; stats by nearest rank', () => {
    assert.deepEqual(pairedOverhead([3, 5, 4], [1, 1, 2, 9]), [2, 4, 2]);
    const s = msStats([5, 1, 4, 2, 3, 6, 7, 8, 9, 10]);
    assert.deepEqual(s, { n: 10, median: 5.5, p95: 10 });
  });

  test('settled rows hold the ≥ 95% target and say when a corpus is absent', () => {
    const rows = settledSummaryRows({ shares: [share('nl2bash', 100, 96), share('dcg', 100, 94)], missing: [] });
    assert.deepEqual(rows.map((r) => [r.metric, r.value, r.status]), [
      ['NL2Bash settled without the judge', '96.0% (96/100)', 'PASS'],
      ['peer allow-labelled cases settled without the judge', '94.0% (94/100)', 'FAIL'],
      ['dcg allow-labelled settled without the judge', '94.0% (94/100)', 'INFO'],
    ]);
    assert.deepEqual(settledSummaryRows({ shares: [], missing: [] }).map((r) => r.status), ['SKIP', 'SKIP']);
  });

  test('overhead rows: < 5 ms for the overhead, < 1 ms for a cache hit; a problem is a failure', () => {
    const stats = (median: number, p95: number) => ({ n: 10, median, p95 });
    const r: OverheadReport = { rounds: 10, judge: stats(2, 3), direct: stats(1, 2), overhead: stats(1, 6), cacheHit: stats(0.2, 0.3), staticOnly: stats(0.01, 0.02) };
    assert.deepEqual(overheadSummaryRows(r).map((x) => x.status), ['PASS', 'FAIL', 'PASS', 'INFO']);
    assert.deepEqual(overheadSummaryRows({ ...r, problem: 'a decision did not come from the judge' }).map((x) => x.status), ['FAIL']);
  });
});
