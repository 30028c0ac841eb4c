// The dashboard's view of the asimov serve API: the shapes it reads (the server's zod schemas are their
// source: server/decision-index.ts, server/routes/dashboard.ts, the approvals contract) and one fetch wrapper.
// Signed in by cookie, so every request carries x-asimov-request, which the server requires of a cookie's
// state-changing requests (no cross-site form can set it).

export type Verdict = 'allow' | 'deny' | 'ask';
export type Tier = 'allow' | 'unknown' | 'soft_deny' | 'hard_deny';
export const VERDICTS: readonly Verdict[] = ['allow', 'deny', 'ask'];
export const TIERS: readonly Tier[] = ['allow', 'unknown', 'soft_deny', 'hard_deny'];

export interface DecisionItem {
  decisionId: string;
  ts: string;
  verdict: Verdict;
  tier: Tier;
  rule: string | null;
  reason: string;
  agent: string | null;
  session: string | null;
  tool: string;
  clientTool: string | null;
  cwd: string;
  principal: string | null;
  summary: string;
  /** The machine that shipped it, on a live event of a shipped decision (the list's rows do not carry it). */
  clientId?: string | null;
  client_id?: string | null;
}

export interface Finding {
  rule: string;
  tier: Tier;
  reason: string;
  subject?: string;
  source?: string;
}

export interface DecisionDetail {
  decision: DecisionItem;
  event: {
    findings?: Finding[];
    judge?: { provider: string; model: string; verdict: string; latency_ms: number; cache_hit: boolean; reason: string };
    input?: Record<string, unknown>;
    erased?: string[];
    layer?: string;
    ms?: number;
    policy_hash?: string | null;
    error_code?: string;
    [k: string]: unknown;
  };
  policy: { projectRoot: string | null; layers: { layer: string; path: string; sha256: string; trusted: boolean }[]; error: string | null };
}

export interface Count {
  key: string;
  count: number;
}

export interface Stats {
  since: string;
  until: string;
  bucketSeconds: number;
  buckets: { start: string; allow: number; deny: number; ask: number }[];
  total: number;
  topRules: Count[];
  topAsked: Count[];
}

export interface VerifyStatus {
  path: string | null;
  exists: boolean;
  ok: boolean;
  lines: number;
  firstBroken?: { line: number; problem: string; message: string };
  error?: string;
}

export interface Session {
  signedIn: boolean;
  name: string | null;
  scopes: string[];
}

/** The approvals contract (serve-common.md); served by the approvals routes. */
export interface Approval {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  createdAt: string;
  expiresAt: string;
  call: { tool: string; clientTool: string | null; cwd: string; agent: string | null; sessionId: string | null; input: Record<string, unknown> };
  decision: { decisionId: string; tier: Tier; rule: string | null; reason: string; findings: Finding[] };
  requestedBy: string | null;
  answeredBy: string | null;
  answeredAt: string | null;
  scope: 'once' | 'session' | 'always' | null;
  reason: string | null;
  proposedRule: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'x-asimov-request': '1', accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(path, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await r.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    /* not JSON: reported below */
  }
  if (!r.ok) {
    const e = parsed as { error?: string; message?: string } | null;
    throw new ApiError(r.status, e?.error ?? 'http_error', e?.message ?? `${method} ${path} answered ${r.status}`);
  }
  return parsed as T;
}

export interface Filters {
  verdict: string;
  tier: string;
  rule: string;
  agent: string;
  session: string;
  /** The token name (a person on a team server). */
  principal: string;
  /** A machine's client id (set from the Team view). */
  client: string;
  q: string;
}

export const NO_FILTERS: Filters = { verdict: '', tier: '', rule: '', agent: '', session: '', principal: '', client: '', q: '' };

export function filterQuery(f: Filters, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v.trim() !== '') p.set(k, v.trim());
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}

/** The server's filter, applied to a live event (the same fields and the same case-insensitive text match). */
export function matches(d: DecisionItem, f: Filters): boolean {
  if (f.verdict && d.verdict !== f.verdict) return false;
  if (f.tier && d.tier !== f.tier) return false;
  if (f.rule.trim() && d.rule !== f.rule.trim()) return false;
  if (f.agent.trim() && d.agent !== f.agent.trim()) return false;
  if (f.session.trim() && d.session !== f.session.trim()) return false;
  if (f.principal.trim() && d.principal !== f.principal.trim()) return false;
  // A live event names its machine when it was shipped; the server's own decisions have none.
  if (f.client.trim() && (d.clientId ?? d.client_id ?? null) !== f.client.trim()) return false;
  const q = f.q.trim().toLowerCase();
  if (q && ![d.summary, d.reason, d.rule ?? ''].some((s) => s.toLowerCase().includes(q))) return false;
  return true;
}

// The team dashboard (server/routes/team.ts).

export interface VerdictCounts {
  allow: number;
  deny: number;
  ask: number;
}

export interface TeamClient {
  clientId: string;
  tokenName: string;
  host: string | null;
  osUser: string | null;
  firstSeen: string;
  lastContact: string;
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
  name: string;
  machines: number;
  broken: number;
  lastContact: string | null;
  decisions: number;
  asks: number;
  denies: number;
  lastDecision: string | null;
}

export interface TeamAgent {
  agent: string | null;
  decisions: number;
  asks: number;
  denies: number;
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
  example: { decisionId: string; principal: string | null; agent: string | null };
}
