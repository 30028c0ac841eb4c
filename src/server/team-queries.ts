// The team dashboard's queries: the machines that ship their audit logs (audit_clients, migration 4) with the
// state of their chains, and the team's decisions (the decision index holds the shipped ones too) by person,
// by agent, and the calls the policy asks about most. Every query reads a bounded window of decisions
// through an index: decisions (client_id, ts), (principal, ts), (verdict, ts) or (ts).

import type { Queryable } from '../store/database.ts';

/** Decisions by verdict in one window. */
export interface VerdictCounts {
  allow: number;
  deny: number;
  ask: number;
}

export interface TeamClient {
  clientId: string;
  /** The name of the token the machine ships with: who (or which machine account) it is. */
  tokenName: string;
  host: string | null;
  osUser: string | null;
  firstSeen: string;
  lastContact: string;
  /** Records shipped and verified: the sequence number of the chain's head as the server holds it. */
  headSeq: number;
  status: 'ok' | 'broken';
  problem: string | null;
  problemAt: string | null;
  last24h: VerdictCounts;
  last7d: VerdictCounts;
}

export interface ChainProblem {
  id: number;
  at: string;
  kind: string;
  seq: number | null;
  decisionId: string | null;
  message: string;
}

export interface TeamPerson {
  /** The token name: a person, or a machine account with a token of its own. */
  name: string;
  /** Machines shipping with this token, and how many of them have a broken chain. */
  machines: number;
  broken: number;
  /** The latest contact of any of its machines; null for a token that only calls the API (/v1/decide). */
  lastContact: string | null;
  decisions: number;
  asks: number;
  denies: number;
  lastDecision: string | null;
}

export interface TeamAgent {
  /** decisions.agent; null for calls that named no agent. */
  agent: string | null;
  decisions: number;
  asks: number;
  denies: number;
  /** Distinct token names (people) whose calls these were. */
  users: number;
  lastSeen: string;
}

export interface AskedCall {
  rule: string | null;
  summary: string;
  count: number;
  users: number;
  machines: number;
  lastSeen: string;
  /** The newest decision of the group, to open. */
  example: { decisionId: string; principal: string | null; agent: string | null };
}

const DAY_MS = 86_400_000;

/**
 * The longest summary a group of asked calls is keyed by. The index's summary is already the redacted
 * one-line gist (whitespace collapsed, at most 80 characters: audit/reader.ts summarizeInput); the cap is
 * applied again here because the rows come from many clients' shipped events and the key must stay short.
 */
export const ASKED_SUMMARY_MAX = 80;

function iso(v: unknown): string {
  return (v instanceof Date ? v : new Date(String(v))).toISOString();
}

function isoOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : iso(v);
}

interface ClientRow {
  client_id: string;
  token_name: string;
  host: string | null;
  os_user: string | null;
  first_seen: Date;
  last_contact: Date;
  head_seq: number;
  status: 'ok' | 'broken';
  problem: string | null;
  problem_at: Date | null;
  allow_24h: number;
  deny_24h: number;
  ask_24h: number;
  allow_7d: number;
  deny_7d: number;
  ask_7d: number;
}

// One lateral count per machine over its last 7 days: an index range on decisions (client_id, ts).
const CLIENTS_SQL = `
  SELECT c.client_id, c.token_name, c.host, c.os_user, c.first_seen, c.last_contact, c.head_seq::float8 AS head_seq,
         c.status, c.problem, c.problem_at, d.*
    FROM audit_clients c
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE verdict = 'allow' AND ts >= $1)::int AS allow_24h,
             count(*) FILTER (WHERE verdict = 'deny' AND ts >= $1)::int AS deny_24h,
             count(*) FILTER (WHERE verdict = 'ask' AND ts >= $1)::int AS ask_24h,
             count(*) FILTER (WHERE verdict = 'allow')::int AS allow_7d,
             count(*) FILTER (WHERE verdict = 'deny')::int AS deny_7d,
             count(*) FILTER (WHERE verdict = 'ask')::int AS ask_7d
        FROM decisions WHERE decisions.client_id = c.client_id AND ts >= $2
    ) d ON true`;

function clientOf(r: ClientRow): TeamClient {
  return {
    clientId: r.client_id,
    tokenName: r.token_name,
    host: r.host,
    osUser: r.os_user,
    firstSeen: iso(r.first_seen),
    lastContact: iso(r.last_contact),
    headSeq: Number(r.head_seq),
    status: r.status,
    problem: r.problem,
    problemAt: isoOrNull(r.problem_at),
    last24h: { allow: r.allow_24h, deny: r.deny_24h, ask: r.ask_24h },
    last7d: { allow: r.allow_7d, deny: r.deny_7d, ask: r.ask_7d },
  };
}

/** Every machine: broken chains first, then the most recently heard from. */
export async function listClients(db: Queryable, now: Date = new Date()): Promise<TeamClient[]> {
  const rows = await db.query<ClientRow>(
    `${CLIENTS_SQL} ORDER BY (c.status = 'broken') DESC, c.last_contact DESC, c.client_id`,
    [new Date(now.getTime() - DAY_MS), new Date(now.getTime() - 7 * DAY_MS)],
  );
  return rows.map(clientOf);
}

export async function getClient(db: Queryable, clientId: string, now: Date = new Date()): Promise<TeamClient | null> {
  const rows = await db.query<ClientRow>(`${CLIENTS_SQL} WHERE c.client_id = $3`, [
    new Date(now.getTime() - DAY_MS),
    new Date(now.getTime() - 7 * DAY_MS),
    clientId,
  ]);
  return rows[0] ? clientOf(rows[0]) : null;
}

/** A machine's chain problems, newest first (index audit_chain_problems (client_id, id)). */
export async function chainProblems(db: Queryable, clientId: string, limit: number): Promise<ChainProblem[]> {
  const rows = await db.query<{ id: number; at: Date; kind: string; seq: number | null; decision_id: string | null; message: string }>(
    `SELECT id::float8 AS id, at, kind, seq::float8 AS seq, decision_id, message
       FROM audit_chain_problems WHERE client_id = $1 ORDER BY id DESC LIMIT $2`,
    [clientId, limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    at: iso(r.at),
    kind: r.kind,
    seq: r.seq === null ? null : Number(r.seq),
    decisionId: r.decision_id,
    message: r.message,
  }));
}

/**
 * Per token name: every name that ships from a machine, and every principal with decisions since `since`
 * (a token that only calls the API). Each name's decisions are one index range on decisions (principal, ts).
 */
export async function listPeople(db: Queryable, since: Date): Promise<TeamPerson[]> {
  const rows = await db.query<{
    name: string; machines: number; broken: number; last_contact: Date | null;
    decisions: number; asks: number; denies: number; last_decision: Date | null;
  }>(
    `WITH names AS (
       SELECT token_name AS name FROM audit_clients
       UNION
       SELECT principal FROM decisions WHERE ts >= $1 AND principal IS NOT NULL
     )
     SELECT n.name, m.machines, m.broken, m.last_contact, d.decisions, d.asks, d.denies, d.last_decision
       FROM names n
       LEFT JOIN LATERAL (
         SELECT count(*)::int AS machines, count(*) FILTER (WHERE status = 'broken')::int AS broken, max(last_contact) AS last_contact
           FROM audit_clients WHERE token_name = n.name
       ) m ON true
       LEFT JOIN LATERAL (
         SELECT count(*)::int AS decisions, count(*) FILTER (WHERE verdict = 'ask')::int AS asks,
                count(*) FILTER (WHERE verdict = 'deny')::int AS denies, max(ts) AS last_decision
           FROM decisions WHERE principal = n.name AND ts >= $1
       ) d ON true
      ORDER BY d.asks DESC, d.decisions DESC, n.name`,
    [since],
  );
  return rows.map((r) => ({
    name: r.name,
    machines: r.machines,
    broken: r.broken,
    lastContact: isoOrNull(r.last_contact),
    decisions: r.decisions,
    asks: r.asks,
    denies: r.denies,
    lastDecision: isoOrNull(r.last_decision),
  }));
}

/** Per agent since `since`: one range of decisions (ts), grouped. */
export async function listAgents(db: Queryable, since: Date): Promise<TeamAgent[]> {
  const rows = await db.query<{ agent: string | null; decisions: number; asks: number; denies: number; users: number; last_seen: Date }>(
    `SELECT agent, count(*)::int AS decisions, count(*) FILTER (WHERE verdict = 'ask')::int AS asks,
            count(*) FILTER (WHERE verdict = 'deny')::int AS denies, count(DISTINCT principal)::int AS users, max(ts) AS last_seen
       FROM decisions WHERE ts >= $1
      GROUP BY agent ORDER BY decisions DESC, agent NULLS LAST`,
    [since],
  );
  return rows.map((r) => ({ agent: r.agent, decisions: r.decisions, asks: r.asks, denies: r.denies, users: r.users, lastSeen: iso(r.last_seen) }));
}

/**
 * The calls that cost people the most time: the decisions that asked a person since `since`, grouped by
 * (rule, summary) and ordered by how often. Grouping by the rule alone would lump every call one broad rule
 * asks about (all of `shell.unknown`) into one row that says nothing about what to allow; by the summary
 * alone, one command asked about for two different reasons would read as one. The pair is what a policy
 * change acts on: this rule, for this call. The summary is capped (ASKED_SUMMARY_MAX) so long commands that
 * start alike fall into one group and the key stays small. One range of decisions (verdict, ts); the
 * example is a point lookup on the same index at the group's newest ts.
 */
export async function topAsked(db: Queryable, since: Date, limit: number): Promise<AskedCall[]> {
  const rows = await db.query<{
    rule: string | null; summary: string; count: number; users: number; machines: number; last_seen: Date;
    example_id: string; example_principal: string | null; example_agent: string | null;
  }>(
    `WITH g AS (
       SELECT rule, left(summary, ${ASKED_SUMMARY_MAX}) AS summary, count(*)::int AS count,
              count(DISTINCT principal)::int AS users, count(DISTINCT client_id)::int AS machines, max(ts) AS last_seen
         FROM decisions WHERE verdict = 'ask' AND ts >= $1
        GROUP BY 1, 2 ORDER BY count DESC, last_seen DESC, summary LIMIT $2
     )
     SELECT g.*, e.decision_id AS example_id, e.principal AS example_principal, e.agent AS example_agent
       FROM g
       LEFT JOIN LATERAL (
         SELECT decision_id, principal, agent FROM decisions
          WHERE verdict = 'ask' AND ts = g.last_seen AND rule IS NOT DISTINCT FROM g.rule
            AND left(summary, ${ASKED_SUMMARY_MAX}) = g.summary
          ORDER BY decision_id DESC LIMIT 1
       ) e ON true
      ORDER BY g.count DESC, g.last_seen DESC, g.summary`,
    [since, limit],
  );
  return rows.map((r) => ({
    rule: r.rule,
    summary: r.summary,
    count: r.count,
    users: r.users,
    machines: r.machines,
    lastSeen: iso(r.last_seen),
    example: { decisionId: r.example_id, principal: r.example_principal, agent: r.example_agent },
  }));
}
