// The approvals table (migration 3): questions put to a person on call and their answers, and the session
// grants an answer "for this session" leaves. Rows only; waiting, redaction and notifications are the
// service's (server/approvals.ts). Every state change is one conditional UPDATE, so two answers racing for
// one approval (two people, or an answer and the expiry) cannot both win, here or on a shared PostgreSQL.

import type { Queryable } from './database.ts';

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export const APPROVAL_SCOPES = ['once', 'session', 'always'] as const;
export type ApprovalScope = (typeof APPROVAL_SCOPES)[number];

/** The call as an approval shows it: its input already redacted as the audit log keeps it. */
export interface ApprovalCall {
  tool: string;
  clientTool: string | null;
  cwd: string;
  agent: string | null;
  sessionId: string | null;
  input: Record<string, unknown>;
}

export interface ApprovalDecision {
  decisionId: string;
  tier: string;
  rule: string | null;
  reason: string;
  findings: { rule: string; tier: string; reason: string; subject?: string }[];
}

/** One approval, as the API and the dashboard show it (the shared contract of issue 16). */
export interface Approval {
  id: string;
  status: ApprovalStatus;
  createdAt: string;
  expiresAt: string;
  call: ApprovalCall;
  decision: ApprovalDecision;
  requestedBy: string | null;
  answeredBy: string | null;
  answeredAt: string | null;
  scope: ApprovalScope | null;
  reason: string | null;
  proposedRule: string | null;
}

export interface NewApproval {
  id: string;
  status: 'pending' | 'approved';
  createdAt: Date;
  expiresAt: Date;
  call: ApprovalCall;
  decision: ApprovalDecision;
  /** sha256 of the unredacted call (tool, client tool, input, cwd): what a session grant is keyed on. */
  fingerprint: string;
  requestedBy: string | null;
  /** Set for a row born answered (a call a session grant allowed). */
  answeredBy?: string;
  scope?: ApprovalScope;
  reason?: string;
}

export interface ApprovalAnswer {
  status: 'approved' | 'denied';
  by: string;
  scope: ApprovalScope;
  reason: string | null;
  proposedRule: string | null;
  at: Date;
}

export interface SessionGrant {
  approvalId: string;
  grantedBy: string;
}

interface Row {
  id: string;
  status: ApprovalStatus;
  created_at: Date;
  expires_at: Date;
  call: ApprovalCall | string;
  decision: ApprovalDecision | string;
  requested_by: string | null;
  answered_by: string | null;
  answered_at: Date | null;
  scope: ApprovalScope | null;
  reason: string | null;
  proposed_rule: string | null;
}

function json<T>(v: T | string): T {
  return typeof v === 'string' ? (JSON.parse(v) as T) : v;
}

function iso(d: Date | string): string {
  return new Date(d).toISOString();
}

function approvalOf(r: Row): Approval {
  return {
    id: r.id,
    status: r.status,
    createdAt: iso(r.created_at),
    expiresAt: iso(r.expires_at),
    call: json(r.call),
    decision: json(r.decision),
    requestedBy: r.requested_by,
    answeredBy: r.answered_by,
    answeredAt: r.answered_at ? iso(r.answered_at) : null,
    scope: r.scope,
    reason: r.reason,
    proposedRule: r.proposed_rule,
  };
}

const COLUMNS = 'id, status, created_at, expires_at, call, decision, requested_by, answered_by, answered_at, scope, reason, proposed_rule';

export interface ApprovalStore {
  insert(a: NewApproval): Promise<Approval>;
  get(id: string): Promise<Approval | null>;
  /** Newest first. */
  list(o: { status: 'pending' | 'all'; limit: number }): Promise<Approval[]>;
  /** Answers a pending approval that has not expired; null when it is no longer pending (or never was). */
  answer(id: string, a: ApprovalAnswer): Promise<Approval | null>;
  /** Expires one pending approval (its waiter gave up); null when it was not pending. */
  expire(id: string, at: Date): Promise<Approval | null>;
  /** Expires every pending approval whose time has passed; the ones it expired. */
  expireDue(at: Date): Promise<Approval[]>;
  /** Records a session grant for the call of this approval (its fingerprint, in this session). */
  grant(sessionId: string, approvalId: string, by: string, at: Date): Promise<void>;
  grantFor(sessionId: string, fingerprint: string): Promise<SessionGrant | null>;
}

export function createApprovalStore(db: Queryable): ApprovalStore {
  return {
    async insert(a) {
      const rows = await db.query<Row>(
        `INSERT INTO approvals (id, status, created_at, expires_at, call, decision, fingerprint, requested_by, answered_by, answered_at, scope, reason)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`,
        [
          a.id, a.status, a.createdAt.toISOString(), a.expiresAt.toISOString(), JSON.stringify(a.call), JSON.stringify(a.decision),
          a.fingerprint, a.requestedBy, a.answeredBy ?? null, a.answeredBy !== undefined ? a.createdAt.toISOString() : null,
          a.scope ?? null, a.reason ?? null,
        ],
      );
      return approvalOf(rows[0]!);
    },
    async get(id) {
      const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM approvals WHERE id = $1`, [id]);
      return rows[0] ? approvalOf(rows[0]) : null;
    },
    async list(o) {
      const rows = await db.query<Row>(
        `SELECT ${COLUMNS} FROM approvals ${o.status === 'pending' ? "WHERE status = 'pending'" : ''} ORDER BY created_at DESC, id DESC LIMIT $1`,
        [o.limit],
      );
      return rows.map(approvalOf);
    },
    async answer(id, a) {
      const rows = await db.query<Row>(
        `UPDATE approvals SET status = $2, answered_by = $3, answered_at = $4, scope = $5, reason = $6, proposed_rule = $7
         WHERE id = $1 AND status = 'pending' AND expires_at > $4 RETURNING ${COLUMNS}`,
        [id, a.status, a.by, a.at.toISOString(), a.scope, a.reason, a.proposedRule],
      );
      return rows[0] ? approvalOf(rows[0]) : null;
    },
    async expire(id, at) {
      const rows = await db.query<Row>(
        `UPDATE approvals SET status = 'expired', answered_at = $2 WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
        [id, at.toISOString()],
      );
      return rows[0] ? approvalOf(rows[0]) : null;
    },
    async expireDue(at) {
      const rows = await db.query<Row>(
        `UPDATE approvals SET status = 'expired', answered_at = $1 WHERE status = 'pending' AND expires_at <= $1 RETURNING ${COLUMNS}`,
        [at.toISOString()],
      );
      return rows.map(approvalOf);
    },
    async grant(sessionId, approvalId, by, at) {
      await db.query(
        `INSERT INTO approval_grants (session_id, fingerprint, approval_id, granted_by, created_at)
         SELECT $1, fingerprint, id, $3, $4 FROM approvals WHERE id = $2
         ON CONFLICT (session_id, fingerprint) DO UPDATE SET approval_id = EXCLUDED.approval_id, granted_by = EXCLUDED.granted_by, created_at = EXCLUDED.created_at`,
        [sessionId, approvalId, by, at.toISOString()],
      );
    },
    async grantFor(sessionId, fingerprint) {
      const rows = await db.query<{ approval_id: string; granted_by: string }>(
        'SELECT approval_id, granted_by FROM approval_grants WHERE session_id = $1 AND fingerprint = $2',
        [sessionId, fingerprint],
      );
      return rows[0] ? { approvalId: rows[0].approval_id, grantedBy: rows[0].granted_by } : null;
    },
  };
}
