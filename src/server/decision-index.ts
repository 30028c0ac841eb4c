// The dashboard's index of decisions: the audit log's events in the database (table `decisions`, migration 2),
// for filtered lists, one decision's detail and the charts. server/audit-feed.ts fills it from the log; the
// log stays the record of truth, so a lost index is rebuilt from it.

import * as z from 'zod';
import type { AuditEvent } from '../audit/event.ts';
import { summarizeInput } from '../audit/reader.ts';
import type { Queryable } from '../store/database.ts';
import { TierSchema, VerdictSchema } from './schemas.ts';

/** One decision as the feed and the list show it: the event's facts without the input and the chain. */
export const DecisionItemSchema = z.object({
  decisionId: z.string(),
  ts: z.string().describe('ISO 8601 UTC'),
  verdict: VerdictSchema,
  tier: TierSchema,
  rule: z.string().nullable(),
  reason: z.string(),
  agent: z.string().nullable(),
  session: z.string().nullable(),
  tool: z.string(),
  clientTool: z.string().nullable(),
  cwd: z.string(),
  principal: z.string().nullable(),
  summary: z.string().describe('A one-line gist of the call: its command, path or URL (redacted)'),
});
export type DecisionItem = z.infer<typeof DecisionItemSchema>;

export function itemOf(e: AuditEvent): DecisionItem {
  return {
    decisionId: e.decision_id,
    ts: new Date(e.ts).toISOString(),
    verdict: e.verdict,
    tier: e.tier,
    rule: e.rule,
    reason: e.reason,
    agent: e.agent,
    session: e.session,
    tool: e.tool,
    clientTool: e.client_tool,
    cwd: e.cwd,
    principal: e.principal ?? null,
    summary: summarizeInput(e),
  };
}

/** Rows in one INSERT at most (11 parameters each, well under PostgreSQL's 65,535). */
const INSERT_CHUNK = 500;

/**
 * Adds events to the index; an event already there (the same decision_id, read again after the log was
 * replaced by a copy of itself) is left as it is. Returns the events that were new, in the given order.
 */
export async function insertEvents(tx: Queryable, events: readonly AuditEvent[]): Promise<AuditEvent[]> {
  const added = new Set<string>();
  for (let i = 0; i < events.length; i += INSERT_CHUNK) {
    const chunk = events.slice(i, i + INSERT_CHUNK);
    const params: unknown[] = [];
    const values = chunk.map((e) => {
      const item = itemOf(e);
      const base = params.length;
      params.push(item.decisionId, item.ts, item.verdict, item.tier, item.rule, item.agent, item.session, item.tool, item.principal, item.summary, JSON.stringify(e));
      return `(${Array.from({ length: 11 }, (_, k) => `$${base + k + 1}`).join(', ')})`;
    });
    const rows = await tx.query<{ decision_id: string }>(
      `INSERT INTO decisions (decision_id, ts, verdict, tier, rule, agent, session, tool, principal, summary, event)
       VALUES ${values.join(', ')} ON CONFLICT (decision_id) DO NOTHING RETURNING decision_id`,
      params,
    );
    for (const r of rows) added.add(r.decision_id);
  }
  // A log may repeat a decision_id (a line copied by hand); only its first occurrence is new.
  return events.filter((e) => added.delete(e.decision_id));
}

export interface DecisionQuery {
  verdict?: string;
  tier?: string;
  rule?: string;
  agent?: string;
  session?: string;
  /** The token name the call came with. */
  principal?: string;
  /** The machine that shipped it (decisions.client_id). */
  client?: string;
  /** Text the summary, reason or rule contains (case-insensitive). */
  q?: string;
  limit: number;
  /** The id of the last decision of the previous page: this page starts just after it (older). */
  before?: string;
}

/** LIKE's wildcards taken literally. */
function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Newest first; null when `before` names no indexed decision. */
export async function listDecisions(db: Queryable, f: DecisionQuery): Promise<{ decisions: DecisionItem[]; nextBefore: string | null } | null> {
  const where: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown): string => {
    params.push(v);
    return `$${params.length}`;
  };
  for (const col of ['verdict', 'tier', 'rule', 'agent', 'session', 'principal'] as const) {
    const v = f[col];
    if (v !== undefined && v !== '') where.push(`${col} = ${p(v)}`);
  }
  if (f.client !== undefined && f.client !== '') where.push(`client_id = ${p(f.client)}`);
  if (f.q !== undefined && f.q.trim() !== '') {
    const pat = p(`%${likeLiteral(f.q.trim())}%`);
    where.push(`(summary ILIKE ${pat} OR event->>'reason' ILIKE ${pat} OR coalesce(rule, '') ILIKE ${pat})`);
  }
  if (f.before !== undefined) {
    const cursor = await db.query<{ ts: Date; decision_id: string }>('SELECT ts, decision_id FROM decisions WHERE decision_id = $1', [f.before]);
    if (!cursor[0]) return null;
    where.push(`(ts, decision_id) < (${p(cursor[0].ts)}, ${p(cursor[0].decision_id)})`);
  }
  const rows = await db.query<{ event: AuditEvent }>(
    `SELECT event FROM decisions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ts DESC, decision_id DESC LIMIT ${p(f.limit + 1)}`,
    params,
  );
  const page = rows.slice(0, f.limit).map((r) => itemOf(r.event));
  return { decisions: page, nextBefore: rows.length > f.limit ? (page.at(-1)?.decisionId ?? null) : null };
}

export async function getDecisionEvent(db: Queryable, id: string): Promise<AuditEvent | null> {
  const rows = await db.query<{ event: AuditEvent }>('SELECT event FROM decisions WHERE decision_id = $1', [id]);
  return rows[0]?.event ?? null;
}

export interface Count {
  key: string;
  count: number;
}

export interface DecisionStats {
  since: string;
  until: string;
  /** Seconds per bucket. */
  bucketSeconds: number;
  /** Each bucket's start (ISO) and the decisions in it by verdict; empty buckets included. */
  buckets: { start: string; allow: number; deny: number; ask: number }[];
  total: number;
  topRules: Count[];
  /** The calls most often asked about or soft-denied: where a person is, or would be, interrupted. */
  topAsked: Count[];
}

/** Bucket widths to choose from: the smallest giving at most MAX_BUCKETS buckets over the range. */
const BUCKET_SECONDS = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400, 7 * 86_400];
const MAX_BUCKETS = 96;
const TOP = 10;

export function bucketSecondsFor(rangeMs: number): number {
  return BUCKET_SECONDS.find((b) => rangeMs / 1000 / b <= MAX_BUCKETS) ?? BUCKET_SECONDS.at(-1)!;
}

export async function decisionStats(db: Queryable, since: Date, now: Date = new Date()): Promise<DecisionStats> {
  const bucket = bucketSecondsFor(now.getTime() - since.getTime());
  const first = Math.floor(since.getTime() / 1000 / bucket) * bucket;
  const last = Math.floor(now.getTime() / 1000 / bucket) * bucket;
  const rows = await db.query<{ b: number; verdict: string; n: number }>(
    `SELECT (floor(extract(epoch FROM ts) / $2) * $2)::float8 AS b, verdict, count(*)::int AS n
       FROM decisions WHERE ts >= $1 GROUP BY 1, 2`,
    [since, bucket],
  );
  const byStart = new Map<number, { start: string; allow: number; deny: number; ask: number }>();
  for (let t = first; t <= last; t += bucket) byStart.set(t, { start: new Date(t * 1000).toISOString(), allow: 0, deny: 0, ask: 0 });
  let total = 0;
  for (const r of rows) {
    const b = byStart.get(Number(r.b));
    total += r.n;
    if (b && (r.verdict === 'allow' || r.verdict === 'deny' || r.verdict === 'ask')) b[r.verdict] += r.n;
  }
  const topRules = await db.query<{ key: string; count: number }>(
    `SELECT rule AS key, count(*)::int AS count FROM decisions WHERE ts >= $1 AND rule IS NOT NULL
      GROUP BY rule ORDER BY count DESC, rule LIMIT ${TOP}`,
    [since],
  );
  const topAsked = await db.query<{ key: string; count: number }>(
    `SELECT summary AS key, count(*)::int AS count FROM decisions WHERE ts >= $1 AND (verdict = 'ask' OR tier = 'soft_deny')
      GROUP BY summary ORDER BY count DESC, summary LIMIT ${TOP}`,
    [since],
  );
  return {
    since: since.toISOString(),
    until: now.toISOString(),
    bucketSeconds: bucket,
    buckets: [...byStart.values()],
    total,
    topRules,
    topAsked,
  };
}
