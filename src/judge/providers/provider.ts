// What every judge back-end does: send one prompt, within a time budget, and say what came back. A provider
// never throws and never retries: it reports a failure with enough detail (retryable? wait how long?) for
// the factory to decide on its one retry within the caller's deadline.

import type { JudgePrompt } from '../prompt.ts';
import type { ParsedVerdict } from '../parse.ts';

export interface ProviderRequest {
  prompt: JudgePrompt;
  model: string;
  baseUrl?: string;
  env: NodeJS.ProcessEnv;
  /** Milliseconds this attempt may take; the provider stops waiting (and aborts) after it. */
  timeoutMs: number;
  /** Aborted when the budget ends or the caller gives up. */
  signal: AbortSignal;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type ProviderReply =
  /** The model answered; `parsed` says whether the answer was a valid verdict. */
  | { kind: 'answer'; parsed: ParsedVerdict; usage?: Usage }
  | ProviderFailure;

export interface ProviderFailure {
  kind: 'failure';
  /** judge_timeout, judge_refused, judge_http_<status>, judge_missing_key, judge_missing_binary, … */
  code: string;
  message: string;
  /** Worth one more try (429, 5xx, a dropped connection). */
  retryable: boolean;
  /** What the server asked us to wait before retrying (retry-after), in milliseconds. */
  retryAfterMs?: number;
}

export type Provider = (req: ProviderRequest) => Promise<ProviderReply>;

export function failure(code: string, message: string, extra: { retryable?: boolean; retryAfterMs?: number } = {}): ProviderFailure {
  const f: ProviderFailure = { kind: 'failure', code, message, retryable: extra.retryable ?? false };
  if (extra.retryAfterMs !== undefined) f.retryAfterMs = extra.retryAfterMs;
  return f;
}

/** `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date), as both SDKs read them. */
export function retryAfterMs(get: (name: string) => string | null | undefined, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number.parseFloat(raw) * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Error codes (ECONNREFUSED, UND_ERR_SOCKET…) anywhere in an error's cause chain. */
function causeCodes(e: unknown): string[] {
  const codes: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; cur && typeof cur === 'object' && depth < 8; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const errors = (cur as { errors?: unknown }).errors; // AggregateError (happy eyeballs)
    if (Array.isArray(errors)) for (const x of errors) codes.push(...causeCodes(x));
    cur = (cur as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * A thrown SDK error as a failure. Both official SDKs share the shape: `status` and `headers` on HTTP
 * errors; connection errors carry the socket's error as `cause`.
 */
export function sdkFailure(e: unknown, timedOut: boolean): ProviderFailure {
  if (timedOut) return failure('judge_timeout', 'the judge did not answer within its time budget');
  const err = e as { status?: unknown; headers?: unknown; message?: unknown; name?: unknown };
  const message = typeof err?.message === 'string' ? err.message : String(e);
  if (typeof err?.status === 'number') {
    const status = err.status;
    const headers = err.headers as { get?: (n: string) => string | null } | undefined;
    const after = typeof headers?.get === 'function' ? retryAfterMs((n) => headers.get!(n)) : undefined;
    const retryable = status === 429 || status >= 500;
    return failure(`judge_http_${status}`, `the judge's server answered HTTP ${status}: ${message}`, after !== undefined ? { retryable, retryAfterMs: after } : { retryable });
  }
  const name = typeof err?.name === 'string' ? err.name : '';
  if (name === 'APIConnectionTimeoutError' || name === 'AbortError' || name === 'APIUserAbortError') {
    return failure('judge_timeout', 'the judge did not answer within its time budget');
  }
  const codes = causeCodes(e);
  if (codes.includes('ECONNREFUSED')) return failure('judge_refused', `the judge's server refused the connection: ${message}`);
  if (name === 'APIConnectionError' || codes.length > 0) {
    // A reset or dropped connection is usually passing; DNS and TLS failures are not, but one retry is cheap.
    const retryable = codes.some((c) => c === 'ECONNRESET' || c === 'EPIPE' || c === 'UND_ERR_SOCKET' || c === 'UND_ERR_CLOSED');
    return failure('judge_connection', `the connection to the judge's server failed: ${[message, ...new Set(codes)].join(' ')}`, { retryable });
  }
  return failure('judge_internal', `the judge call failed: ${message}`);
}
