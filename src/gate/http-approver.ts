// The Approver of every process that is not the server itself (the MCP proxy, the gated tools, hooks of
// headless runs): it puts the question to an `asimov serve` over HTTP (POST /v1/approvals) and long-polls
// for the answer (GET /v1/approvals/:id/wait) until the call's deadline. Any failure is a deny outcome with
// its cause; nothing here throws and nothing here can turn into an allow but the server's `approved`.

import { describeError } from '../core/errors.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { failedOutcome, type ApprovalOutcome, type Approver, type ApprovalScope } from './approver.ts';

/** One long poll at most this long; the loop polls again until the deadline. */
const POLL_MS = 25_000;
/** Below this much time left there is no point asking anyone. */
const MIN_WAIT_MS = 1_000;

export interface HttpApproverOptions {
  /** Base URL of the approvals server (`https://gate.example:7420`). */
  server: string;
  /** Bearer token with the `decide` scope; absent: requests go without one (and a real server refuses them). */
  token?: string;
  /** Which variable the token was expected in, for messages. */
  tokenEnv?: string;
  fetch?: typeof fetch;
}

interface ApprovalJson {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  answeredBy: string | null;
  scope: ApprovalScope | null;
  reason: string | null;
}

type Sent = { ok: ApprovalJson } | { fail: ApprovalOutcome };

export function createHttpApprover(o: HttpApproverOptions): Approver {
  const base = o.server.replace(/\/+$/, '');
  const doFetch = o.fetch ?? fetch;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;

  /** One request bounded by the deadline and the caller's signal; the parsed answer or a failure outcome. */
  const send = async (method: 'GET' | 'POST', path: string, deadline: number, signal: AbortSignal | undefined, body?: unknown): Promise<Sent> => {
    const left = deadline - Date.now();
    const signals = [AbortSignal.timeout(Math.max(1, left))];
    if (signal) signals.push(signal);
    let r: Response;
    try {
      r = await doFetch(base + path, { method, headers, signal: AbortSignal.any(signals), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    } catch (e) {
      if (signal?.aborted) return { fail: failedOutcome('aborted', 'the call was abandoned while it waited for a person') };
      if (Date.now() >= deadline - 5) return { fail: failedOutcome('timeout', `nobody answered at ${base} before the call's deadline`) };
      return { fail: failedOutcome('unreachable', `the approvals server ${base} could not be reached: ${describeError(e)}`) };
    }
    let parsed: unknown;
    try {
      parsed = await r.json();
    } catch {
      parsed = null;
    }
    if (!r.ok) {
      const msg = (parsed as { message?: unknown } | null)?.message;
      const hint = r.status === 401 && !o.token ? ` (no token: set ${o.tokenEnv ?? 'ASIMOV_APPROVALS_TOKEN'})` : '';
      return { fail: failedOutcome('error', `the approvals server ${base} answered ${r.status}${typeof msg === 'string' ? `: ${msg}` : ''}${hint}`) };
    }
    const a = parsed as ApprovalJson | null;
    if (!a || typeof a.id !== 'string' || typeof a.status !== 'string') return { fail: failedOutcome('error', `the approvals server ${base} sent an answer that is not an approval`) };
    return { ok: a };
  };

  return {
    async request({ call, decision, deadline, signal }) {
      if (deadline - Date.now() < MIN_WAIT_MS) return failedOutcome('timeout', 'too little time was left before the call\'s deadline to ask a person');
      const timeoutSec = Math.max(1, Math.floor((deadline - Date.now()) / 1000));
      const created = await send('POST', '/v1/approvals', deadline, signal, { call: callBody(call), decision: decisionBody(decision), timeoutSec });
      if ('fail' in created) return created.fail;
      let a = created.ok;
      while (a.status === 'pending') {
        const left = deadline - Date.now();
        if (left <= 0) return failedOutcome('timeout', `nobody answered approval ${a.id} at ${base} before the call's deadline`, a.id);
        const next = await send('GET', `/v1/approvals/${encodeURIComponent(a.id)}/wait?timeoutMs=${Math.min(POLL_MS, left)}`, deadline, signal);
        if ('fail' in next) return { ...next.fail, approvalId: a.id };
        a = next.ok;
      }
      return outcomeOf(a, base);
    },
  };
}

/** What an answered approval means for the call. */
export function outcomeOf(a: ApprovalJson, where: string): ApprovalOutcome {
  if (a.status === 'approved') return { verdict: 'allow', by: a.answeredBy, scope: a.scope, reason: a.reason, approvalId: a.id };
  if (a.status === 'denied') return { verdict: 'deny', by: a.answeredBy, scope: a.scope, reason: a.reason, approvalId: a.id };
  return failedOutcome('timeout', `nobody answered approval ${a.id} at ${where} before it expired`, a.id);
}

/** The call as the API's ToolCall body (the judge's intent stays here: a person on call does not need it). */
function callBody(call: ToolCall): Record<string, unknown> {
  const out: Record<string, unknown> = { tool: call.tool, input: call.input ?? {}, cwd: call.cwd };
  if (call.clientTool !== undefined) out.clientTool = call.clientTool;
  if (call.projectRoot !== undefined) out.projectRoot = call.projectRoot;
  if (call.agent !== undefined) out.agent = call.agent;
  if (call.sessionId !== undefined) out.sessionId = call.sessionId;
  if (call.callId !== undefined) out.callId = call.callId;
  return out;
}

function decisionBody(d: Decision): Record<string, unknown> {
  return { decisionId: d.decisionId, tier: d.tier, rule: d.rule, reason: d.reason, findings: d.findings };
}
