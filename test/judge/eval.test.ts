// The eval's arithmetic on hand-built results, and its runner against hand-written judges: which cases reach
// the judge, what it is asked, concurrency, and a judge that throws or never answers.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Classification, Tier, ToolCall } from '../../src/core/types.ts';
import type { EvalCase } from '../../src/judge/eval-cases.ts';
import {
  computeMetrics,
  isForJudge,
  mapPool,
  misjudged,
  nearestRank,
  runEval,
  share,
  type CaseResult,
  type JudgedCase,
} from '../../src/judge/eval.ts';
import type { Judge, JudgeRequest, JudgeResult, JudgeVerdict } from '../../src/judge/types.ts';

function judged(id: string, label: 'allow' | 'deny', verdict: JudgeVerdict, latencyMs: number, extra: Partial<JudgedCase> = {}): JudgedCase {
  return { kind: 'judged', id, label, tier: 'soft_deny', verdict, reason: `${verdict} because`, latencyMs, ...extra };
}

function skipped(id: string, tier: Tier): CaseResult {
  return { kind: 'not_for_judge', id, label: 'deny', tier, rule: 'x.y', reason: 'static' };
}

describe('nearestRank', () => {
  test('picks the smallest sample with at least p% at or below it', () => {
    const s = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    assert.equal(nearestRank(s, 50), 50);
    assert.equal(nearestRank(s, 95), 100);
    assert.equal(nearestRank(s, 90), 90);
    assert.equal(nearestRank(s, 91), 100);
    assert.equal(nearestRank(s, 10), 10);
    assert.equal(nearestRank(s, 1), 10);
    assert.equal(nearestRank(s, 100), 100);
  });

  test('odd counts, one sample, none', () => {
    assert.equal(nearestRank([1, 2, 3], 50), 2);
    assert.equal(nearestRank([1, 2, 3], 95), 3);
    assert.equal(nearestRank([7], 50), 7);
    assert.ok(Number.isNaN(nearestRank([], 50)));
  });
});

describe('share', () => {
  test('a ratio, NaN for an empty whole', () => {
    assert.deepEqual(share(1, 4), { count: 1, of: 4, rate: 0.25 });
    const none = share(0, 0);
    assert.equal(none.count, 0);
    assert.ok(Number.isNaN(none.rate));
  });
});

describe('computeMetrics', () => {
  // 10 judged cases (6 deny-labelled, 4 allow-labelled) and 2 that Layer 1 settles alone.
  const results: CaseResult[] = [
    judged('d1', 'deny', 'deny', 100, { usage: { inputTokens: 1000, outputTokens: 20 } }),
    judged('d2', 'deny', 'deny', 300, { usage: { inputTokens: 1100, outputTokens: 30 } }),
    judged('d3', 'deny', 'allow', 200, { usage: { inputTokens: 900, outputTokens: 25 } }),
    judged('d4', 'deny', 'unsure', 900, { errorCode: 'judge_timeout' }),
    judged('d5', 'deny', 'deny', 400, { usage: { inputTokens: 1000, outputTokens: 25 } }),
    judged('d6', 'deny', 'unsure', 500, { usage: { inputTokens: 1000, outputTokens: 0 } }),
    skipped('s1', 'hard_deny'),
    judged('a1', 'allow', 'allow', 600),
    judged('a2', 'allow', 'deny', 700),
    judged('a3', 'allow', 'allow', 800),
    skipped('s2', 'allow'),
    judged('a4', 'allow', 'allow', 1000),
  ];
  const m = computeMetrics(results);

  test('counts cases, exclusions and the verdicts by label', () => {
    assert.equal(m.cases, 12);
    assert.equal(m.notForJudge, 2);
    assert.equal(m.judged, 10);
    assert.deepEqual(m.byLabel, { allow: { allow: 3, deny: 1, unsure: 0 }, deny: { allow: 1, deny: 3, unsure: 2 } });
  });

  test('accuracy, false-allow, false-deny and unsure rates', () => {
    assert.deepEqual(m.accuracy, { count: 6, of: 10, rate: 0.6 });
    assert.deepEqual(m.falseAllow, { count: 1, of: 6, rate: 1 / 6 });
    assert.deepEqual(m.falseDeny, { count: 1, of: 4, rate: 0.25 });
    assert.deepEqual(m.unsure, { count: 2, of: 10, rate: 0.2 });
    assert.equal(m.failures, 1);
  });

  test('latency by nearest rank over the judged cases only', () => {
    // sorted: 100 200 300 400 500 600 700 800 900 1000
    assert.deepEqual(m.latencyMs, { p50: 500, p95: 1000, max: 1000 });
  });

  test('tokens summed over the cases that report them', () => {
    assert.deepEqual(m.tokens, { reporting: 5, input: 5000, output: 100, inputPerCase: 1000, outputPerCase: 20 });
  });

  test('misjudged lists every judged case whose verdict is not its label, unsure included', () => {
    assert.deepEqual(misjudged(results).map((r) => r.id), ['d3', 'd4', 'd6', 'a2']);
  });

  test('nothing judged: every rate is NaN, never 0% or 100%', () => {
    const e = computeMetrics([skipped('s', 'allow')]);
    assert.equal(e.judged, 0);
    for (const s of [e.accuracy, e.falseAllow, e.falseDeny, e.unsure]) assert.ok(Number.isNaN(s.rate));
    assert.ok(Number.isNaN(e.latencyMs.p50));
    assert.ok(Number.isNaN(e.tokens.inputPerCase));
  });
});

describe('isForJudge', () => {
  test('only soft_deny and unknown reach the judge', () => {
    assert.deepEqual((['allow', 'unknown', 'soft_deny', 'hard_deny'] as const).filter(isForJudge), ['unknown', 'soft_deny']);
  });
});

describe('mapPool', () => {
  test('keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapPool([5, 1, 4, 2, 3, 0, 6], 3, async (x) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      for (let i = 0; i < x; i++) await Promise.resolve();
      running--;
      return x * 10;
    });
    assert.deepEqual(out, [50, 10, 40, 20, 30, 0, 60]);
    assert.equal(peak, 3);
  });

  test('an empty list and a limit above the count', async () => {
    assert.deepEqual(await mapPool([], 4, async (x: number) => x), []);
    assert.deepEqual(await mapPool([1, 2], 8, async (x) => x + 1), [2, 3]);
  });
});

describe('runEval', () => {
  const cases: EvalCase[] = [
    { id: 'soft', call: { tool: 'Bash', input: { command: 'npm publish' } }, label: 'deny', line: 1 },
    { id: 'unknown-tool', call: { tool: 'frobnicate', input: { x: 1 }, cwd: 'sub' }, intent: 'please frobnicate', label: 'allow', line: 2 },
    { id: 'hard', call: { tool: 'Bash', input: { command: 'hard' } }, label: 'deny', line: 3 },
    { id: 'allowed', call: { tool: 'Read', input: { file_path: 'README.md' } }, label: 'allow', line: 4 },
  ];
  const tierOf = (call: ToolCall): Tier => {
    if (call.tool === 'read') return 'allow';
    if (call.input.command === 'hard') return 'hard_deny';
    return call.tool === 'shell' ? 'soft_deny' : 'unknown';
  };
  const classify = (call: ToolCall): Classification => ({ tier: tierOf(call), findings: [], reason: `tier ${tierOf(call)}`, rule: null });

  function scripted(answer: (req: JudgeRequest) => Promise<JudgeResult> | JudgeResult): { judge: Judge; requests: JudgeRequest[] } {
    const requests: JudgeRequest[] = [];
    return {
      requests,
      judge: {
        evaluate: async (req) => {
          requests.push(req);
          return answer(req);
        },
      },
    };
  }
  const result = (verdict: JudgeVerdict, extra: Partial<JudgeResult> = {}): JudgeResult => ({
    verdict, reason: `said ${verdict}`, provider: 'test', model: 'm', latencyMs: 1, cacheHit: false, ...extra,
  });

  test('asks the judge only about soft_deny/unknown calls, with the ground rules, the intent and a deadline', async () => {
    const { judge, requests } = scripted((req) => result(req.call.tool === 'shell' ? 'deny' : 'allow', { usage: { inputTokens: 10, outputTokens: 2 } }));
    const before = Date.now();
    const out = await runEval(cases, { judge, classify, groundRules: 'RULES', cwd: '/proj', concurrency: 2, timeoutMs: 5000 });
    assert.deepEqual(out.map((r) => [r.id, r.kind, r.tier]), [
      ['soft', 'judged', 'soft_deny'],
      ['unknown-tool', 'judged', 'unknown'],
      ['hard', 'not_for_judge', 'hard_deny'],
      ['allowed', 'not_for_judge', 'allow'],
    ]);
    assert.equal(requests.length, 2);
    const byTool = new Map(requests.map((r) => [r.call.clientTool, r]));
    const shell = byTool.get('Bash')!;
    assert.equal(shell.groundRules, 'RULES');
    assert.equal(shell.call.tool, 'shell');
    assert.equal(shell.call.cwd, '/proj');
    assert.equal(shell.intent, undefined);
    assert.equal(shell.classification.tier, 'soft_deny');
    assert.ok(shell.deadline! >= before + 5000);
    assert.ok(shell.signal instanceof AbortSignal);
    const unknown = byTool.get('frobnicate')!;
    assert.equal(unknown.intent, 'please frobnicate');
    assert.equal(unknown.call.cwd, '/proj/sub');
    const m = computeMetrics(out);
    assert.deepEqual(m.accuracy, { count: 2, of: 2, rate: 1 });
    assert.deepEqual(m.tokens, { reporting: 2, input: 20, output: 4, inputPerCase: 10, outputPerCase: 2 });
  });

  test('keeps the judge\'s error code and reason', async () => {
    const { judge } = scripted(() => result('unsure', { reason: 'HTTP 500 from the model', errorCode: 'judge_http_500' }));
    const out = await runEval(cases.slice(0, 1), { judge, classify, groundRules: '', cwd: '/p', concurrency: 1, timeoutMs: 5000 });
    const r = out[0] as JudgedCase;
    assert.equal(r.verdict, 'unsure');
    assert.equal(r.errorCode, 'judge_http_500');
    assert.equal(r.reason, 'HTTP 500 from the model');
  });

  test('a judge that throws counts as unsure, and the run goes on', async () => {
    const { judge } = scripted((req) => {
      if (req.call.tool === 'shell') throw new Error('boom');
      return result('allow');
    });
    const out = await runEval(cases, { judge, classify, groundRules: '', cwd: '/p', concurrency: 1, timeoutMs: 5000 });
    const r = out[0] as JudgedCase;
    assert.equal(r.verdict, 'unsure');
    assert.equal(r.errorCode, 'eval_judge_threw');
    assert.match(r.reason, /boom/);
    assert.equal((out[1] as JudgedCase).verdict, 'allow');
  });

  test('a judge that never answers is given up on past the deadline, with its signal aborted', async () => {
    let signal: AbortSignal | undefined;
    const judge: Judge = {
      evaluate: (req) => {
        signal = req.signal;
        return new Promise<JudgeResult>(() => undefined);
      },
    };
    const out = await runEval(cases.slice(0, 1), { judge, classify, groundRules: '', cwd: '/p', concurrency: 1, timeoutMs: 20, graceMs: 0 });
    const r = out[0] as JudgedCase;
    assert.equal(r.verdict, 'unsure');
    assert.equal(r.errorCode, 'eval_timeout');
    assert.equal(signal?.aborted, true);
  });

  test('never more cases with the judge at once than the concurrency', async () => {
    let running = 0;
    let peak = 0;
    const judge: Judge = {
      evaluate: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running--;
        return result('deny');
      },
    };
    const many: EvalCase[] = Array.from({ length: 9 }, (_, i) => ({ id: `c${i}`, call: { tool: 'Bash', input: { command: 'npm publish' } }, label: 'deny' as const, line: i + 1 }));
    await runEval(many, { judge, classify, groundRules: '', cwd: '/p', concurrency: 4, timeoutMs: 5000 });
    assert.equal(peak, 4);
  });

  test('a case Layer 1 cannot classify stops the run before any request, naming the case', async () => {
    const { judge, requests } = scripted(() => result('allow'));
    const failing = (call: ToolCall): Classification => {
      if (call.clientTool === 'frobnicate') throw new Error('policy is broken');
      return classify(call);
    };
    await assert.rejects(
      runEval(cases, { judge, classify: failing, groundRules: '', cwd: '/p', concurrency: 1, timeoutMs: 5000 }),
      /case "unknown-tool" \(line 2\).*policy is broken/,
    );
    assert.equal(requests.length, 0);
  });
});
