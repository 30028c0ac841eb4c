// A person on call: where the gate would ask and nobody is at the agent's terminal (the API, the MCP proxy,
// gated tools, hooks of headless runs), a policy's `approvals:` routes the question to someone who answers
// elsewhere (the dashboard, `asimov approvals`, a notification). An Approver carries the question there and
// brings the answer back within the call's deadline. Only an explicit allow lets the call run; everything
// else (a refusal, no answer in time, an unreachable server, any error) is a deny that names its cause.

import { canonicalJson } from '../audit/event.ts';
import { sha256Hex } from '../core/lazy.ts';
import type { Decision, ToolCall } from '../core/types.ts';

export type ApprovalScope = 'once' | 'session' | 'always';

export interface ApprovalRequest {
  call: ToolCall;
  /** The gate's decision as it would be with a person present: verdict `ask`. */
  decision: Decision;
  /** Date.now() milliseconds by which the answer must be in; past it the call is denied. */
  deadline: number;
  signal?: AbortSignal;
}

/** Why a call that went to a person on call was not allowed, when nobody refused it. */
export type ApprovalFailure = 'timeout' | 'unreachable' | 'error' | 'aborted';

export interface ApprovalOutcome {
  verdict: 'allow' | 'deny';
  /** Who answered (a token name, `local`), or null when nobody did. */
  by: string | null;
  scope: ApprovalScope | null;
  /** The answerer's reason, or the cause when nobody answered. */
  reason: string | null;
  approvalId: string | null;
  /** Set when the deny is not a person's answer. */
  failure?: ApprovalFailure;
}

export interface Approver {
  /** Never rejects: a failure is a deny outcome with `failure` set. */
  request(r: ApprovalRequest): Promise<ApprovalOutcome>;
}

/**
 * What makes two calls "the same call" for a session grant: the tool, the client's tool name, the whole
 * input and the directory, hashed (never stored in clear: the input may hold secrets).
 */
export function callFingerprint(call: Pick<ToolCall, 'tool' | 'clientTool' | 'input' | 'cwd'>): string {
  return sha256Hex(canonicalJson({ tool: call.tool, clientTool: call.clientTool ?? null, input: call.input ?? {}, cwd: call.cwd }));
}

/** A deny outcome for a failure that is nobody's answer. */
export function failedOutcome(failure: ApprovalFailure, reason: string, approvalId: string | null = null): ApprovalOutcome {
  return { verdict: 'deny', by: null, scope: null, reason, approvalId, failure };
}
