// The audit event (one versioned JSON line per decision, after OPA's EventV1) and the hash chain over it.

import { sha256Hex as hashHex } from '../core/lazy.ts';
import type { Decision, DecisionApproval, DecisionLayer, Finding, Tier, ToolCall, Verdict } from '../core/types.ts';
import { redactInput, redactText } from './redact.ts';

export const AUDIT_EVENT_VERSION = 1;
/** `prev` of the first line of a log: there is no line before it. */
export const GENESIS_HASH = '0'.repeat(64);

/** A finding as the log keeps it (free text redacted). */
export interface AuditFinding {
  rule: string;
  tier: Tier;
  reason: string;
  subject?: string;
  source?: string;
}

/** What the judge (Layer 2) said, when it was asked. */
export interface AuditJudge {
  provider: string;
  model: string;
  verdict: string;
  latency_ms: number;
  cache_hit: boolean;
  reason: string;
}

/**
 * One line of the audit log. Field names are snake_case because the log is read by other tools
 * (jq, log shippers) as much as by us. Absent optional facts are null rather than missing, so every
 * line has the same keys; only `error_code` and `judge` appear just when they apply.
 */
export interface AuditEvent {
  v: 1;
  /** The Decision's id, so a caller holding a decision can find its line. */
  decision_id: string;
  /** ISO 8601 UTC with milliseconds. */
  ts: string;
  agent: string | null;
  session: string | null;
  call_id: string | null;
  /** Normalized tool kind (`shell`, `write`, …) or the raw name. */
  tool: string;
  client_tool: string | null;
  cwd: string;
  verdict: Verdict;
  tier: Tier;
  rule: string | null;
  reason: string;
  layer: DecisionLayer;
  findings: AuditFinding[];
  /** Gate time in milliseconds, rounded to microseconds. */
  ms: number;
  /** Hash of the effective policy that decided, so a decision can be replayed against the same rules. */
  policy_hash: string | null;
  error_code?: string;
  judge?: AuditJudge;
  /** Who asked through asimov serve: the name of the API token the request carried. */
  principal?: string;
  /** When a person on call was asked: the approval's id, who answered, the scope, the verdict and the reason. */
  approval?: DecisionApproval;
  /** The call's arguments with secrets replaced by `[REDACTED:<kind>]` and long strings cut. */
  input: Record<string, unknown>;
  /** JSON paths of the fields where something secret was removed (`input.command`, `findings[0].subject`). */
  erased: string[];
  /** `hash` of the previous line, or GENESIS_HASH on the first line. */
  prev: string;
  /** sha256 hex of canonicalJson(this event without `hash`). */
  hash: string;
}

/** An event before the writer chains it to the log. */
export type AuditEventDraft = Omit<AuditEvent, 'prev' | 'hash'>;

export interface BuildEventExtra {
  /** When the decision was made; default now. */
  ts?: Date;
  policyHash?: string | null;
  judge?: AuditJudge;
  /** The API token's name, for a call that came through asimov serve. */
  principal?: string;
}

/** The draft event for one decision, with every free-text field redacted. */
export function buildEvent(call: ToolCall, decision: Decision, extra: BuildEventExtra = {}): AuditEventDraft {
  const input = redactInput(call.input ?? {});
  const erased = [...input.erased];
  const reason = redactField(decision.reason, 'reason', erased);
  const findings = (decision.findings ?? []).map((f: Finding, i: number): AuditFinding => {
    const out: AuditFinding = { rule: f.rule, tier: f.tier, reason: redactField(f.reason, `findings[${i}].reason`, erased) };
    if (f.subject !== undefined) out.subject = redactField(f.subject, `findings[${i}].subject`, erased);
    if (f.source !== undefined) out.source = f.source;
    return out;
  });

  const draft: AuditEventDraft = {
    v: AUDIT_EVENT_VERSION,
    decision_id: decision.decisionId,
    ts: (extra.ts ?? new Date()).toISOString(),
    agent: call.agent ?? null,
    session: call.sessionId ?? null,
    call_id: call.callId ?? null,
    tool: call.tool,
    client_tool: call.clientTool ?? null,
    cwd: call.cwd,
    verdict: decision.verdict,
    tier: decision.tier,
    rule: decision.rule,
    reason,
    layer: decision.layer,
    findings,
    ms: Number.isFinite(decision.ms) ? Math.round(decision.ms * 1000) / 1000 : 0,
    policy_hash: extra.policyHash ?? null,
    input: input.value,
    erased,
  };
  if (decision.errorCode !== undefined) draft.error_code = decision.errorCode;
  if (extra.judge) draft.judge = { ...extra.judge, reason: redactField(extra.judge.reason, 'judge.reason', erased) };
  if (extra.principal !== undefined) draft.principal = extra.principal;
  if (decision.approval !== undefined) {
    const a = decision.approval;
    draft.approval = { ...a, reason: a.reason === null ? null : redactField(a.reason, 'approval.reason', erased) };
  }
  return draft;
}

/** One free-text field as the log keeps it; its path is added to `erased` when a secret was removed. */
function redactField(s: string, path: string, erased: string[]): string {
  const r = redactText(s);
  if (r.redacted) erased.push(path);
  return r.text;
}

/**
 * Canonical JSON: the exact text the chain hashes. It is RFC 8785 (JCS) for the values asimov writes:
 * - object keys sorted by UTF-16 code units (the default order of Array.prototype.sort), at every depth;
 * - no whitespace; arrays keep their order;
 * - strings and numbers exactly as JSON.stringify writes them (shortest round-trip numbers, -0 as 0);
 * - what JSON cannot hold follows JSON.stringify: toJSON honoured, undefined/functions/symbols dropped
 *   from objects and null in arrays, NaN and ±Infinity as null.
 * The line on disk uses a readable key order instead (serializeEventLine); the hash does not depend on
 * it, so anyone can verify a line by parsing it, deleting `hash` and re-serializing this way.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value);
}

// One string built by concatenation (V8 ropes) rather than an array of parts joined at the end: the writer
// runs this once per decision, and the parts array was a third of its cost.
function canonical(value: unknown): string {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: () => unknown }).toJSON();
  }
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'bigint') throw new TypeError('canonicalJson: a bigint cannot be written as JSON');
    return JSON.stringify(v) ?? 'null';
  }
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + canonical(v[i]);
    return `${out}]`;
  }
  const rec = v as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of Object.keys(rec).sort()) {
    const item = rec[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonical(item)}`;
    first = false;
  }
  return `${out}}`;
}

export function sha256Hex(text: string): string {
  return hashHex(text);
}

/** The hash an event must carry: sha256 of its canonical JSON without the `hash` field. */
export function eventHash(event: Record<string, unknown>): string {
  const { hash: _ignored, ...rest } = event;
  return sha256Hex(canonicalJson(rest));
}

/** Chains a draft to the line before it. `hash` computes sha256 hex (any implementation: the result is the same). */
export function sealEvent(draft: AuditEventDraft, prev: string, hash: (text: string) => string = sha256Hex): AuditEvent {
  const event = { ...draft, prev } as AuditEvent;
  // Hashed before `hash` exists, so without eventHash's copy of the event minus that key.
  event.hash = hash(canonicalJson(event));
  return event;
}

/** Key order of a line on disk: the decision first for people reading the file, `prev` and `hash` last. */
const LINE_ORDER: readonly string[] = [
  'v', 'decision_id', 'ts', 'agent', 'session', 'call_id', 'tool', 'client_tool', 'cwd',
  'verdict', 'tier', 'rule', 'reason', 'layer', 'findings', 'ms', 'policy_hash', 'error_code', 'judge', 'principal', 'approval',
  'input', 'erased', 'prev', 'hash',
];

/**
 * The text of one log line, without the newline. `hash` is always the last key, which lets the
 * writer read the previous hash from the last few bytes of the file.
 */
export function serializeEventLine(event: AuditEvent): string {
  const src = event as unknown as Record<string, unknown>;
  // A sealed event from buildEvent usually has its keys in this order already (not with error_code or
  // judge, which it adds last): then it is written as it is, without an ordered copy.
  if (inLineOrder(src)) return JSON.stringify(src);
  const ordered: Record<string, unknown> = {};
  for (const k of LINE_ORDER) if (k !== 'prev' && k !== 'hash' && k in src) ordered[k] = src[k];
  for (const k of Object.keys(src)) if (!(k in ordered) && k !== 'prev' && k !== 'hash') ordered[k] = src[k];
  ordered.prev = event.prev;
  ordered.hash = event.hash;
  return JSON.stringify(ordered);
}

function inLineOrder(src: Record<string, unknown>): boolean {
  let i = 0;
  for (const k of Object.keys(src)) {
    while (i < LINE_ORDER.length && LINE_ORDER[i] !== k) i++;
    if (i === LINE_ORDER.length) return false;
    i++;
  }
  return src.hash !== undefined && LINE_ORDER[i - 1] === 'hash';
}

const HEX64 = /^[0-9a-f]{64}$/;

/** A parsed line that has the shape of an event (enough to read, filter and chain it). */
export function isAuditEvent(x: unknown): x is AuditEvent {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  const e = x as Record<string, unknown>;
  return (
    e.v === AUDIT_EVENT_VERSION &&
    typeof e.ts === 'string' &&
    typeof e.verdict === 'string' &&
    typeof e.tier === 'string' &&
    typeof e.tool === 'string' &&
    typeof e.prev === 'string' && HEX64.test(e.prev) &&
    typeof e.hash === 'string' && HEX64.test(e.hash)
  );
}
