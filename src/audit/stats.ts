// `asimov audit stats`: counts by verdict, tier, rule, tool and agent, and gate latency percentiles, over a window.

import { describeError } from '../core/errors.ts';
import type { AuditEvent } from './event.ts';
import { readEvents, type AuditFilter, type Out } from './reader.ts';

export const DEFAULT_TOP_RULES = 20;
/** Key used for events without a rule or an agent. */
export const NONE = '(none)';

export interface Count {
  key: string;
  count: number;
}

export interface AuditStats {
  total: number;
  /** ts of the first and last counted event. */
  from: string | null;
  to: string | null;
  /** Each list is sorted by count, most first, ties by key. */
  byVerdict: Count[];
  byTier: Count[];
  /** The most frequent rules only (DEFAULT_TOP_RULES unless asked otherwise). */
  byRule: Count[];
  byTool: Count[];
  byAgent: Count[];
  /** Gate time percentiles in ms (nearest-rank); null when there are no events. */
  ms: { p50: number | null; p95: number | null; max: number | null };
}

function sorted(m: Map<string, number>, limit = Infinity): Count[] {
  return [...m.entries()]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, limit);
}

/** Nearest-rank percentile of ascending values: the smallest value with at least p% of values at or below it. */
export function percentile(ascending: readonly number[], p: number): number | null {
  if (ascending.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * ascending.length));
  return ascending[Math.min(rank, ascending.length) - 1] ?? null;
}

export function computeStats(events: Iterable<AuditEvent>, topRules: number = DEFAULT_TOP_RULES): AuditStats {
  const verdict = new Map<string, number>();
  const tier = new Map<string, number>();
  const rule = new Map<string, number>();
  const tool = new Map<string, number>();
  const agent = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const ms: number[] = [];
  let total = 0;
  let from: string | null = null;
  let to: string | null = null;
  for (const e of events) {
    total++;
    if (from === null || e.ts < from) from = e.ts;
    if (to === null || e.ts > to) to = e.ts;
    bump(verdict, e.verdict);
    bump(tier, e.tier);
    bump(rule, e.rule ?? NONE);
    bump(tool, e.tool);
    bump(agent, e.agent ?? NONE);
    if (typeof e.ms === 'number' && Number.isFinite(e.ms)) ms.push(e.ms);
  }
  ms.sort((a, b) => a - b);
  return {
    total,
    from,
    to,
    byVerdict: sorted(verdict),
    byTier: sorted(tier),
    byRule: sorted(rule, topRules),
    byTool: sorted(tool),
    byAgent: sorted(agent),
    ms: { p50: percentile(ms, 50), p95: percentile(ms, 95), max: ms.length > 0 ? (ms[ms.length - 1] ?? null) : null },
  };
}

export interface StatsOptions {
  filter?: AuditFilter;
  json?: boolean;
  topRules?: number;
  err?: Out;
}

function inline(cs: Count[]): string {
  return cs.length === 0 ? '-' : cs.map((c) => `${c.key} ${c.count}`).join(', ');
}

function fmtMs(x: number | null): string {
  return x === null ? '-' : `${x}`;
}

/** Human-readable report of the stats. */
export function formatStats(s: AuditStats, topRules: number = DEFAULT_TOP_RULES): string {
  const lines = [
    `events: ${s.total}${s.from !== null ? ` (${s.from} .. ${s.to})` : ''}`,
    `verdict: ${inline(s.byVerdict)}`,
    `tier: ${inline(s.byTier)}`,
    `tool: ${inline(s.byTool)}`,
    `agent: ${inline(s.byAgent)}`,
    `ms: p50 ${fmtMs(s.ms.p50)}  p95 ${fmtMs(s.ms.p95)}  max ${fmtMs(s.ms.max)}`,
    `rules (top ${topRules}):`,
  ];
  const width = Math.max(1, ...s.byRule.map((c) => String(c.count).length));
  for (const c of s.byRule) lines.push(`  ${String(c.count).padStart(width)}  ${c.key}`);
  if (s.byRule.length === 0) lines.push('  -');
  return `${lines.join('\n')}\n`;
}

/** `asimov audit stats`. Exit code 0, or 1 when the log cannot be read. */
export function statsCommand(path: string, out: Out, opts: StatsOptions = {}): number {
  const err = opts.err ?? out;
  const top = opts.topRules ?? DEFAULT_TOP_RULES;
  let skipped = 0;
  let s: AuditStats;
  try {
    s = computeStats(readEvents(path, { filter: opts.filter, onSkip: () => { skipped++; } }), top);
  } catch (e) {
    err(`asimov audit stats: ${describeError(e)}\n`);
    return 1;
  }
  out(opts.json ? `${JSON.stringify(s, null, 2)}\n` : formatStats(s, top));
  if (skipped > 0) err(`asimov audit stats: skipped ${skipped} line(s) that are not events; run \`asimov audit verify\`\n`);
  return 0;
}
