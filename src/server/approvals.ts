// The person on call, server side: approvals are created for calls the gate would ask about, wait for an
// answer (the dashboard, `asimov approvals`, the API), and expire unanswered. The database holds the state;
// the event bus only wakes the waiters. A waiter subscribes first and then reads the row, so an answer given
// between the two is never missed, and every wake-up re-reads the state the event carries.
//
// Replicas (several `asimov serve` on one PostgreSQL): every change of an approval is announced with NOTIFY on
// APPROVALS_CHANNEL (its id), and every replica LISTENs: on a notification it re-reads the row and, when the
// row's status is not the one it last published, publishes it on its own bus, which releases its waiters
// and feeds its live feed. After the LISTEN connection was lost, it re-reads every approval its calls wait
// for, since notifications sent meanwhile are gone.

import { redactInput, redactText } from '../audit/redact.ts';
import { randomId } from '../core/lazy.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { callFingerprint, failedOutcome, type ApprovalOutcome, type Approver } from '../gate/approver.ts';
import { outcomeOf } from '../gate/http-approver.ts';
import { proposedRuleYaml } from '../policy/proposed-rule.ts';
import type { Approval, ApprovalScope, ApprovalStatus, ApprovalStore } from '../store/approvals.ts';
import type { ChannelSignal, Database } from '../store/database.ts';
import type { EventBus } from './events.ts';

/** The NOTIFY channel of approval changes; the payload is the approval's id. */
export const APPROVALS_CHANNEL = 'asimov_approvals';
/** Approvals whose last published status a replica remembers (to publish another replica's change once). */
const REMEMBERED = 10_000;

/** How many approvals a list returns at most. */
export const APPROVALS_LIST_LIMIT = 500;
/** Bounds of an approval's own lifetime, whoever asks. */
export const APPROVAL_MAX_TIMEOUT_MS = 3_600_000;

export type ApprovalErrorCode = 'not_found' | 'conflict' | 'not_approvable' | 'bad_request';

export class ApprovalError extends Error {
  constructor(
    readonly code: ApprovalErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface NewApprovalRequest {
  call: ToolCall;
  decision: Pick<Decision, 'decisionId' | 'tier' | 'rule' | 'reason' | 'findings'>;
  /** The token that asked (null for the server's own calls without one). */
  requestedBy: string | null;
  /** How long a person has to answer. */
  timeoutMs: number;
}

export interface AnswerRequest {
  verdict: 'allow' | 'deny';
  scope?: ApprovalScope;
  /** Who answers: the token's name (`local` on the local socket). */
  by: string;
  reason?: string;
}

export interface ApprovalService {
  /**
   * A new approval for a call, pending, or already approved when a session grant covers the call.
   * Refuses a hard_deny call (ApprovalError not_approvable): that is never offered to anyone.
   */
  create(r: NewApprovalRequest): Promise<Approval>;
  /** The approval once answered or expired, or as it stands (pending) when the deadline or the signal comes first. */
  wait(id: string, o: { deadline: number; signal?: AbortSignal }): Promise<Approval>;
  answer(id: string, a: AnswerRequest): Promise<Approval>;
  get(id: string): Promise<Approval | null>;
  list(status: 'pending' | 'all'): Promise<Approval[]>;
  /** Expires every pending approval past its time. */
  expireDue(): Promise<void>;
  /** The in-process Approver of the server's own routes: asks on behalf of `requestedBy`. */
  approver(requestedBy: string | null): Approver;
  /** Listens for changes made by other replicas (when given a database); resolves once listening. */
  start(): Promise<void>;
  /** Stops the expiry timers (the server is closing); waiters are released by their own signals. */
  close(): void;
}

export interface ApprovalServiceOptions {
  store: ApprovalStore;
  events: EventBus;
  /** Where changes are announced to, and heard from, other replicas (NOTIFY/LISTEN); none: this process only. */
  db?: Pick<Database, 'listen' | 'notify'>;
  /** One line per problem (a failed NOTIFY); default nothing. */
  log?: (line: string) => void;
  /** Told about every new pending approval (webhooks); must not throw or block. */
  notify?: (a: Approval) => void;
  now?: () => Date;
  newId?: () => string;
}

export function createApprovalService(o: ApprovalServiceOptions): ApprovalService {
  const now = o.now ?? (() => new Date());
  const newId = o.newId ?? randomId;
  const timers = new Set<NodeJS.Timeout>();
  /** Waiters to release when the server closes (they answer with the approval as it stands). */
  const waiters = new Set<() => void>();
  let closed = false;

  /** The status last published on this bus, per approval (bounded: the oldest are forgotten first). */
  const published = new Map<string, ApprovalStatus>();
  /** Ids the calls in this process wait for (with how many waiters), re-read after a lost LISTEN connection. */
  const waitingFor = new Map<string, number>();
  let unlisten: (() => Promise<void>) | null = null;

  /** Tells this process's bus. */
  const publishHere = (a: Approval): void => {
    published.delete(a.id);
    published.set(a.id, a.status);
    if (published.size > REMEMBERED) published.delete(published.keys().next().value!);
    o.events.publish({ type: 'approval', data: a });
  };

  /** A change made here: this bus, then the other replicas (after the change is committed). */
  const publish = (a: Approval): void => {
    publishHere(a);
    if (!o.db) return;
    o.db.notify(APPROVALS_CHANNEL, a.id).catch((e: unknown) => {
      o.log?.(`asimov serve: approval ${a.id} could not be announced to other replicas: ${e instanceof Error ? e.message : String(e)}`);
    });
  };

  /** Another replica changed this approval (or may have): publish its row here if it is news. */
  const refresh = async (id: string): Promise<void> => {
    const a = await o.store.get(id);
    if (a && published.get(id) !== a.status) publishHere(a);
  };

  const heard = (s: ChannelSignal): void => {
    const ids = s.reconnected ? [...waitingFor.keys()] : [s.payload];
    for (const id of ids) {
      refresh(id).catch((e: unknown) => o.log?.(`asimov serve: approval ${id} could not be re-read: ${e instanceof Error ? e.message : String(e)}`));
    }
  };

  const expireDue = async (): Promise<void> => {
    for (const a of await o.store.expireDue(now())) publish(a);
  };

  /** Expires the approval at its time, in this process; another replica's sweep (expireDue) does it as well. */
  const scheduleExpiry = (a: Approval): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      void o.store.expire(a.id, now()).then((x) => x && publish(x), () => {});
    }, Math.max(0, Date.parse(a.expiresAt) - now().getTime()) + 5);
    t.unref();
    timers.add(t);
  };

  const create = async (r: NewApprovalRequest): Promise<Approval> => {
    if (closed) throw new ApprovalError('conflict', 'the server is closing');
    if (r.decision.tier === 'hard_deny') {
      throw new ApprovalError('not_approvable', `A hard_deny call is never offered for approval (${r.decision.rule ?? 'no rule'}): ${r.decision.reason}`);
    }
    const at = now();
    const timeoutMs = Math.min(Math.max(1000, Math.floor(r.timeoutMs)), APPROVAL_MAX_TIMEOUT_MS);
    const redacted = redactInput(r.call.input ?? {});
    const base = {
      id: newId(),
      createdAt: at,
      expiresAt: new Date(at.getTime() + timeoutMs),
      call: {
        tool: r.call.tool,
        clientTool: r.call.clientTool ?? null,
        cwd: r.call.cwd,
        agent: r.call.agent ?? null,
        sessionId: r.call.sessionId ?? null,
        input: redacted.value,
      },
      decision: {
        decisionId: r.decision.decisionId,
        tier: r.decision.tier,
        rule: r.decision.rule,
        reason: redactText(r.decision.reason).text,
        findings: r.decision.findings.map((f) => ({
          rule: f.rule,
          tier: f.tier,
          reason: redactText(f.reason).text,
          ...(f.subject !== undefined ? { subject: redactText(f.subject).text } : {}),
        })),
      },
      fingerprint: callFingerprint(r.call),
      requestedBy: r.requestedBy,
    };
    // The same call again in a session someone approved it for: allowed without asking, and recorded so.
    const grant = r.call.sessionId ? await o.store.grantFor(r.call.sessionId, base.fingerprint) : null;
    if (grant) {
      const a = await o.store.insert({
        ...base, status: 'approved', answeredBy: grant.grantedBy, scope: 'session',
        reason: `approved for this session by ${grant.grantedBy} (approval ${grant.approvalId})`,
      });
      publish(a);
      return a;
    }
    const a = await o.store.insert({ ...base, status: 'pending' });
    scheduleExpiry(a);
    publish(a);
    try {
      o.notify?.(a);
    } catch {
      /* a notification never blocks or fails a call */
    }
    return a;
  };

  const wait = (id: string, w: { deadline: number; signal?: AbortSignal }): Promise<Approval> =>
    new Promise<Approval>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (a: Approval | null, err?: unknown): void => {
        if (settled) return;
        settled = true;
        waiters.delete(current);
        const n = (waitingFor.get(id) ?? 1) - 1;
        if (n > 0) waitingFor.set(id, n);
        else waitingFor.delete(id);
        unsubscribe();
        clearTimeout(timer);
        w.signal?.removeEventListener('abort', onAbort);
        if (a) resolve(a);
        else reject(err ?? new ApprovalError('not_found', `No approval ${id}.`));
      };
      const current = (): void => {
        void o.store.get(id).then((a) => finish(a), (e) => finish(null, e));
      };
      const onAbort = (): void => current();
      const unsubscribe = o.events.subscribe((e) => {
        if (e.type !== 'approval') return;
        const a = e.data as Approval;
        if (a.id === id && a.status !== 'pending') finish(a);
      });
      waitingFor.set(id, (waitingFor.get(id) ?? 0) + 1);
      w.signal?.addEventListener('abort', onAbort, { once: true });
      if (w.signal?.aborted || closed) return current();
      waiters.add(current);
      timer = setTimeout(() => void expireDue().then(current, current), Math.max(0, w.deadline - Date.now()));
      void o.store.get(id).then(
        (a) => {
          if (!a) finish(null);
          else if (a.status !== 'pending') finish(a);
        },
        (e) => finish(null, e),
      );
    });

  const answer = async (id: string, r: AnswerRequest): Promise<Approval> => {
    const scope: ApprovalScope = r.scope ?? 'once';
    if (r.verdict === 'deny' && scope !== 'once') throw new ApprovalError('bad_request', `A denial applies to this call only; scope '${scope}' is for approvals.`);
    await expireDue();
    const a = await o.store.get(id);
    if (!a) throw new ApprovalError('not_found', `No approval ${id}.`);
    if (a.status !== 'pending') throw new ApprovalError('conflict', `Approval ${id} is no longer pending: it is ${a.status}.`);
    if (scope === 'session' && !a.call.sessionId) {
      throw new ApprovalError('bad_request', `The call of approval ${id} names no session, so it cannot be approved for one; approve it once.`);
    }
    const at = now();
    const reason = r.reason?.trim() ? r.reason.trim() : null;
    const proposedRule =
      r.verdict === 'allow' && scope === 'always'
        ? proposedRuleYaml({ tool: a.call.tool, clientTool: a.call.clientTool, input: a.call.input, rule: a.decision.rule, by: r.by, reason, at })
        : null;
    const done = await o.store.answer(id, { status: r.verdict === 'allow' ? 'approved' : 'denied', by: r.by, scope, reason, proposedRule, at });
    if (!done) throw new ApprovalError('conflict', `Approval ${id} is no longer pending.`);
    if (r.verdict === 'allow' && scope === 'session' && a.call.sessionId) await o.store.grant(a.call.sessionId, id, r.by, at);
    publish(done);
    return done;
  };

  const approver = (requestedBy: string | null): Approver => ({
    async request({ call, decision, deadline, signal }): Promise<ApprovalOutcome> {
      let a: Approval;
      try {
        a = await create({ call, decision, requestedBy, timeoutMs: deadline - Date.now() });
      } catch (e) {
        return failedOutcome('error', e instanceof Error ? e.message : String(e));
      }
      try {
        a = await wait(a.id, { deadline, ...(signal ? { signal } : {}) });
      } catch (e) {
        return failedOutcome('error', `waiting for approval ${a.id} failed: ${e instanceof Error ? e.message : String(e)}`, a.id);
      }
      if (a.status === 'pending') {
        // The call gives up: its approval must not stay answerable for a call that no longer waits.
        const gone = await o.store.expire(a.id, now()).catch(() => null);
        if (gone) publish(gone);
        if (closed) return failedOutcome('unreachable', `the approvals server closed while approval ${a.id} waited for a person`, a.id);
        return signal?.aborted
          ? failedOutcome('aborted', `the call was abandoned while approval ${a.id} waited for a person`, a.id)
          : failedOutcome('timeout', `nobody answered approval ${a.id} before the call's deadline`, a.id);
      }
      return outcomeOf(a, 'this server');
    },
  });

  return {
    create,
    wait,
    answer,
    get: async (id) => {
      await expireDue();
      return o.store.get(id);
    },
    list: async (status) => {
      await expireDue();
      return o.store.list({ status, limit: APPROVALS_LIST_LIMIT });
    },
    expireDue,
    approver,
    async start() {
      if (o.db && !unlisten && !closed) unlisten = await o.db.listen(APPROVALS_CHANNEL, heard);
    },
    close() {
      closed = true;
      void unlisten?.().catch(() => {});
      unlisten = null;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const release of [...waiters]) release();
    },
  };
}
