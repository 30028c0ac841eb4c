// Section 4 of the bench: the judge (issue 4). (1) How much Layer 1 settles alone, without the judge: the
// share of calls whose tier is allow or hard_deny, on NL2Bash and on the peer suites' allow-labelled cases.
// (2) What the judge path costs beyond the model's own latency: gate.decide with the judge on against an
// in-process scripted server that answers at once, alternated with a direct SDK call to the same server,
// and a cache hit.

import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { Tier } from '../src/core/types.ts';
import { startAnthropicServer } from '../test/helpers/anthropic-server.ts';
import { CORPORA, readRows, type CorpusSpec } from './corpora.ts';
import { createGate } from './lib.ts';
import { ruleKey, type BenchCase, type CorpusId } from './labels.ts';
import { formatCount, formatMs, infoRow, skipRow, targetRow, type SummaryRow } from './report.ts';
import type { BenchEnv } from './setup.ts';
import { formatPercent, median, percent, quantile, topCounts } from './stats.ts';

/** One set of calls and how many of them Layer 1 settles alone. */
export interface SettledShare {
  corpus: CorpusId;
  /** What the set is: `all lines`, `allow-labelled (headline)`. */
  set: string;
  title: string;
  n: number;
  /** Tier allow or hard_deny: the judge is never asked. */
  settled: number;
  tiers: Record<Tier, number>;
  /** The rules (or, without one, why) most often behind a call left to the judge: where calibration would pay. */
  topToJudge: [string, number][];
}

/** The sets the issue's ≥ 95% target is about: every NL2Bash line, and each peer suite's allow-labelled cases. */
export const SETTLED_SETS: ReadonlyArray<{ corpus: CorpusId; set: string; pick: (c: BenchCase) => boolean }> = [
  { corpus: 'nl2bash', set: 'all lines', pick: () => true },
  { corpus: 'dcg', set: 'allow-labelled', pick: (c) => c.bucket === 'headline' && c.expect === 'allow' },
  { corpus: 'cc-safety-net-v2', set: 'allow-labelled', pick: (c) => c.bucket === 'headline' && c.expect === 'allow' },
  { corpus: 'safety_net', set: 'allow-labelled', pick: (c) => c.bucket === 'headline' && c.expect === 'allow' },
  { corpus: 'gatekeeper-v1', set: 'allow-labelled', pick: (c) => c.bucket === 'headline' && c.expect === 'allow' },
];

/** Tier allow or hard_deny: Layer 1 answers and the judge is never asked (DESIGN §2). */
export function settledAlone(tier: Tier): boolean {
  return tier === 'allow' || tier === 'hard_deny';
}

export interface SettledReport {
  shares: SettledShare[];
  /** Corpora that were absent or unreadable, with why. */
  missing: { corpus: CorpusId; why: string }[];
}

/** Decides every case of the sets statically, as the corpora section does (same cases, same dedup). */
export function measureSettled(env: BenchEnv, dir: string): SettledReport {
  const report: SettledReport = { shares: [], missing: [] };
  for (const set of SETTLED_SETS) {
    const spec = CORPORA.find((s) => s.id === set.corpus) as CorpusSpec;
    let rows: Record<string, unknown>[];
    try {
      rows = readRows(join(dir, spec.file), spec.format).rows;
    } catch (e) {
      report.missing.push({ corpus: set.corpus, why: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'corpus absent' : 'unreadable' });
      continue;
    }
    const share: SettledShare = { corpus: set.corpus, set: set.set, title: spec.title, n: 0, settled: 0, tiers: { allow: 0, unknown: 0, soft_deny: 0, hard_deny: 0 }, topToJudge: [] };
    const seen = new Set<string>();
    const toJudge: string[] = [];
    rows.forEach((row, i) => {
      const c = spec.map(row, i);
      if (c === null || !set.pick(c)) return;
      if (spec.dedup) {
        const key = spec.dedup(c);
        if (seen.has(key)) return;
        seen.add(key);
      }
      const d = env.gate.decideStatic(env.call(c.tool, c.input)); // never throws: failures are deny decisions
      share.n++;
      share.tiers[d.tier]++;
      if (settledAlone(d.tier)) share.settled++;
      else toJudge.push(ruleKey(d.rule, d.reason));
    });
    share.topToJudge = topCounts(toJudge, 10);
    report.shares.push(share);
  }
  return report;
}

/** The peers' allow-labelled sets taken together. */
export function peersCombined(shares: readonly SettledShare[]): { n: number; settled: number } {
  const peers = shares.filter((s) => s.corpus !== 'nl2bash');
  return { n: peers.reduce((a, s) => a + s.n, 0), settled: peers.reduce((a, s) => a + s.settled, 0) };
}

export function formatSettled(r: SettledReport): string {
  const lines: string[] = ['Share of calls Layer 1 settles alone (allow or hard_deny; the rest, soft_deny and unknown, would go to the judge):'];
  for (const s of r.shares) {
    const t = s.tiers;
    lines.push(
      `  ${`${s.title}, ${s.set}`.padEnd(52)} ${formatPercent(percent(s.settled, s.n)).padStart(6)} (${formatCount(s.settled)}/${formatCount(s.n)})` +
        `  to the judge: unknown ${formatCount(t.unknown)}, soft_deny ${formatCount(t.soft_deny)}`,
    );
  }
  const p = peersCombined(r.shares);
  if (p.n > 0) lines.push(`  ${'peer suites together, allow-labelled'.padEnd(52)} ${formatPercent(percent(p.settled, p.n)).padStart(6)} (${formatCount(p.settled)}/${formatCount(p.n)})`);
  const nl = r.shares.find((s) => s.corpus === 'nl2bash');
  if (nl && nl.topToJudge.length > 0) {
    lines.push('  most common rules behind NL2Bash lines left to the judge:');
    for (const [rule, n] of nl.topToJudge) lines.push(`    ${String(n).padStart(5)}  ${rule}`);
  }
  for (const m of r.missing) lines.push(`  ${m.corpus}: ${m.why}; skipped`);
  return lines.join('\n');
}

export function settledSummaryRows(r: SettledReport): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const pct = (n: number): string => formatPercent(n);
  const nl = r.shares.find((s) => s.corpus === 'nl2bash');
  if (nl) rows.push({ ...targetRow('judge', 'NL2Bash settled without the judge', percent(nl.settled, nl.n), '>=', 95, pct), value: `${pct(percent(nl.settled, nl.n))} (${formatCount(nl.settled)}/${formatCount(nl.n)})` });
  else rows.push(skipRow('judge', 'NL2Bash settled without the judge', 'corpus absent'));
  const p = peersCombined(r.shares);
  if (p.n > 0) rows.push({ ...targetRow('judge', 'peer allow-labelled cases settled without the judge', percent(p.settled, p.n), '>=', 95, pct), value: `${pct(percent(p.settled, p.n))} (${formatCount(p.settled)}/${formatCount(p.n)})` });
  else rows.push(skipRow('judge', 'peer allow-labelled cases settled without the judge', 'corpora absent'));
  for (const s of r.shares) {
    if (s.corpus === 'nl2bash') continue;
    rows.push(infoRow('judge', `${s.title} allow-labelled settled without the judge`, `${pct(percent(s.settled, s.n))} (${formatCount(s.settled)}/${formatCount(s.n)})`));
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------------
// (2) The judge path's own overhead.

/** Median and p95 (nearest rank) of one series of milliseconds. */
export interface MsStats {
  n: number;
  median: number;
  p95: number;
}

export function msStats(values: readonly number[]): MsStats {
  const s = values.slice().sort((a, b) => a - b);
  return { n: s.length, median: median(s), p95: quantile(s, 0.95) };
}

/**
 * Per round, the judge path's time minus the direct SDK call's in the same round: what the gate adds
 * around the model call (classification, ground rules, prompt, cache and loop-guard files, parsing).
 */
export function pairedOverhead(judgeMs: readonly number[], directMs: readonly number[]): number[] {
  const n = Math.min(judgeMs.length, directMs.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(judgeMs[i]! - directMs[i]!);
  return out;
}

export interface OverheadReport {
  rounds: number;
  /** gate.decide with the judge on, each call new (a cache miss). */
  judge: MsStats;
  /** The same request body sent with the SDK straight to the same server. */
  direct: MsStats;
  /** judge − direct, round by round. */
  overhead: MsStats;
  /** gate.decide of a call already in the judge's cache. */
  cacheHit: MsStats;
  /** decideStatic of the same calls, for scale: the part of the overhead Layer 1 takes anyway. */
  staticOnly: MsStats;
  /** Something went wrong and the figures do not mean what they say (a decision not from the judge…). */
  problem?: string;
}

const ALLOW_REPLY = {
  kind: 'message' as const,
  content: [{ type: 'tool_use' as const, id: 'toolu_bench', name: 'record_verdict', input: { verdict: 'allow', reason: 'Benchmark: allowed at once.' } }],
  usage: { input_tokens: 1000, output_tokens: 20 },
};

/**
 * gate.decide with the judge on (Anthropic provider, the real SDK) against a scripted server in this process
 * that answers at once, alternated round by round with a direct SDK call carrying the judge's own request
 * body to the same server, so that the server's time, the HTTP round trip and the SDK's own work cancel out.
 * Each judged call is new (no cache hit); a second series decides one call already cached.
 */
export async function measureOverhead(env: BenchEnv, rounds: number): Promise<OverheadReport> {
  const server = await startAnthropicServer({ onRequest: () => ALLOW_REPLY });
  const judgeEnv: NodeJS.ProcessEnv = {
    HOME: env.home,
    PATH: process.env.PATH ?? '',
    XDG_CACHE_HOME: join(env.root, 'cache'),
    XDG_STATE_HOME: join(env.root, 'state'),
    ANTHROPIC_API_KEY: 'sk-ant-bench',
  };
  const policy = { ...env.policy, judge: { provider: 'anthropic' as const, model: 'claude-haiku-4-5', baseUrl: server.url } };
  const gate = createGate({ audit: false, policy, personAvailable: true, home: env.home, env: judgeEnv });
  const client = new Anthropic({ apiKey: 'sk-ant-bench', baseURL: server.url, maxRetries: 0, logLevel: 'off' });
  let problem: string | undefined;
  let seq = 0;
  // An unknown program, so the tier is `unknown` and the judge is asked; a new argument each time, so no cache hit.
  const freshCall = () => env.call('Bash', { command: `frobnicate --bench-run ${++seq}` });
  const judged = async (call: ReturnType<typeof freshCall>): Promise<number> => {
    const t0 = process.hrtime.bigint();
    const d = await gate.decide(call);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if ((d.layer !== 'judge' || d.verdict !== 'allow') && problem === undefined) problem = `a decision did not come from the judge: ${d.layer} ${d.verdict}: ${d.reason.slice(0, 160)}`;
    return ms;
  };
  try {
    await judged(freshCall());
    const body = server.requests[0]?.body as Anthropic.MessageCreateParamsNonStreaming | undefined;
    if (body === undefined) throw new Error('the judge sent no request to the scripted server');
    const direct = async (): Promise<number> => {
      const t0 = process.hrtime.bigint();
      await client.messages.create(body);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    for (let i = 0; i < 20; i++) {
      await judged(freshCall());
      await direct();
    }
    const judgeMs: number[] = [];
    const directMs: number[] = [];
    const calls: ReturnType<typeof freshCall>[] = [];
    for (let i = 0; i < rounds; i++) {
      const call = freshCall();
      calls.push(call);
      // Alternate which goes first, so neither always finds the connection or the caches warmer.
      if (i % 2 === 0) {
        judgeMs.push(await judged(call));
        directMs.push(await direct());
      } else {
        directMs.push(await direct());
        judgeMs.push(await judged(call));
      }
    }
    const before = server.requests.length;
    const cached = calls[0]!;
    const hitMs: number[] = [];
    for (let i = 0; i < rounds; i++) hitMs.push(await judged(cached));
    if (server.requests.length !== before && problem === undefined) problem = `${server.requests.length - before} cache-hit decisions reached the server`;
    const staticMs = calls.map((c) => {
      const t0 = process.hrtime.bigint();
      gate.decideStatic(c);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    });
    const report: OverheadReport = {
      rounds,
      judge: msStats(judgeMs),
      direct: msStats(directMs),
      overhead: msStats(pairedOverhead(judgeMs, directMs)),
      cacheHit: msStats(hitMs),
      staticOnly: msStats(staticMs),
    };
    if (problem !== undefined) report.problem = problem;
    return report;
  } finally {
    await server.close();
  }
}

function fmt(n: number): string {
  return n < 1 ? `${(n * 1000).toFixed(0)} µs` : formatMs(n);
}

export function formatOverhead(r: OverheadReport): string {
  const line = (label: string, s: MsStats): string => `  ${label.padEnd(58)} median ${fmt(s.median).padStart(8)} · p95 ${fmt(s.p95).padStart(8)}`;
  return [
    `The judge path against a scripted server in this process that answers at once (${r.rounds} alternating rounds after 20 warm-up rounds):`,
    line('gate.decide, judge on, a new call each time (cache miss)', r.judge),
    line('the same request body straight through the SDK', r.direct),
    line('overhead: judge path − direct call, round by round', r.overhead),
    line('gate.decide of a call already in the judge cache', r.cacheHit),
    line('decideStatic of the same calls (Layer 1 alone, for scale)', r.staticOnly),
    ...(r.problem !== undefined ? [`  problem: ${r.problem}`] : []),
  ].join('\n');
}

export function overheadSummaryRows(r: OverheadReport): SummaryRow[] {
  if (r.problem !== undefined) return [{ section: 'judge', metric: 'judge path overhead', value: `error: ${r.problem}`.slice(0, 60), target: '< 5 ms', status: 'FAIL' }];
  return [
    targetRow('judge', 'judge path overhead beyond the model call, median', r.overhead.median, '<=', 5, formatMs),
    targetRow('judge', 'judge path overhead beyond the model call, p95', r.overhead.p95, '<=', 5, formatMs),
    targetRow('judge', 'judge cache hit (gate.decide), median', r.cacheHit.median, '<=', 1, fmt),
    infoRow('judge', 'judge cache hit p95 / direct SDK call median', `${fmt(r.cacheHit.p95)} / ${fmt(r.direct.median)}`),
  ];
}
