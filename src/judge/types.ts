// Layer 2's contracts (DESIGN §5): what the judge is asked, what it may answer, and what the gate records.
// The judge sees the ground rules, the call as quoted data, Layer 1's finding and, only where the client
// provides it and the policy enables it, the user's own request. Never assistant text or tool output.

import type { Classification, ToolCall } from '../core/types.ts';

/** The judge's answer. `unsure` covers every failure: a malformed reply, a timeout, a refused connection. */
export type JudgeVerdict = 'allow' | 'deny' | 'unsure';

export interface JudgeRequest {
  call: ToolCall;
  /** Layer 1's classification (soft_deny or unknown; hard_deny never reaches the judge). */
  classification: Classification;
  /** The ground rules' text (`.asimov/ground-rules.md`), or a built-in default. */
  groundRules: string;
  /** The user's own request(s), only when the client gave them and the policy allows sending them. */
  intent?: string;
  /** Date.now() milliseconds by which an answer is needed; the provider's timeout is cut to fit. */
  deadline?: number;
  signal?: AbortSignal;
}

export interface JudgeResult {
  verdict: JudgeVerdict;
  reason: string;
  provider: string;
  model: string;
  latencyMs: number;
  cacheHit: boolean;
  /** Why the result is `unsure` when it comes from a failure (`judge_timeout`, `judge_http_429`…). */
  errorCode?: string;
  /** Token counts when the provider reports them (for `asimov judge eval`). */
  usage?: { inputTokens: number; outputTokens: number };
}

export interface Judge {
  evaluate(req: JudgeRequest): Promise<JudgeResult>;
}
