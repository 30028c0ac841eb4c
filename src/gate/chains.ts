// External hook chains (the policy's `chains:`): commands that follow Claude Code's PreToolUse contract,
// run by the gate after the static layer and the judge, so every adapter has them. JSON on stdin; exit 0
// passes, exit 2 blocks with stderr as the reason. Anything else a chain does (another exit code, no
// answer in time, a missing command) denies, unless the policy marked the chain optional.

import { BoundedOutput, runGroup } from '../core/run-group.ts';
import type { ToolCall } from '../core/types.ts';
import type { ChainSpec } from '../policy/layers.ts';

/** How much of a chain's output is kept: the reason is read from stderr, a JSON answer from stdout. */
const MAX_STDERR_BYTES = 16 * 1024;
const MAX_STDOUT_BYTES = 64 * 1024;
/** A reason longer than this is cut: it ends up in a reply to the model and in the audit log. */
export const MAX_CHAIN_REASON_CHARS = 1000;

/** What one chain said. `failed` is every way of not answering; whether it denies depends on `optional`. */
export type ChainResult =
  | { kind: 'pass' }
  | { kind: 'block'; reason: string }
  | { kind: 'ask'; reason: string }
  | { kind: 'failed'; code: ChainFailure; detail: string };

/** Audit codes (Decision.errorCode) of a chain that could not answer. */
export type ChainFailure = 'chain_missing' | 'chain_timeout' | 'chain_failed' | 'chain_aborted';

export interface ChainRunOptions {
  /** The call's directory: the chain runs there, as a Claude Code hook runs in the project. */
  cwd: string;
  projectRoot: string;
  env: NodeJS.ProcessEnv;
  /** Date.now() milliseconds by which the decision is due; a chain's timeout is cut to fit. */
  deadline?: number;
  signal?: AbortSignal;
}

/** The first chain that did not pass, and what it said. */
export interface ChainStop {
  chain: ChainSpec;
  result: Exclude<ChainResult, { kind: 'pass' }>;
}

/** The chains that apply to a call: those naming its kind, or `all`. Unknown tools match only `all`. */
export function chainsForCall(call: Pick<ToolCall, 'tool'>, chains: readonly ChainSpec[]): ChainSpec[] {
  return chains.filter((c) => c.tools.includes('all') || (c.tools as readonly string[]).includes(call.tool));
}

/** What a chain reads on stdin: a Claude Code PreToolUse hook payload for the call. */
export function chainPayload(call: ToolCall, cwd: string, decisionId: string): Record<string, unknown> {
  return {
    session_id: call.sessionId ?? '',
    ...(call.intentSource?.kind === 'claude-transcript' ? { transcript_path: call.intentSource.path } : {}),
    cwd,
    hook_event_name: 'PreToolUse',
    tool_name: call.clientTool ?? call.tool,
    tool_input: call.input ?? {},
    // Without a client id, the decision's own id: unique, and it finds the call's audit line.
    tool_use_id: call.callId ?? decisionId,
  };
}

/**
 * Runs the chains in order and stops at the first that does not pass (later ones are not run). An
 * optional chain that fails to answer counts as a pass; one that blocks or asks never does.
 */
export async function runChains(chains: readonly ChainSpec[], payload: Record<string, unknown>, o: ChainRunOptions): Promise<ChainStop | null> {
  const stdin = `${JSON.stringify(payload)}\n`;
  for (const chain of chains) {
    const result = await runChain(chain, stdin, o);
    if (result.kind === 'pass') continue;
    // An aborted run means the adapter gave up on the decision: nothing may pass then, optional or not.
    if (result.kind === 'failed' && chain.optional && result.code !== 'chain_aborted') continue;
    return { chain, result };
  }
  return null;
}

/**
 * One chain: `/bin/sh -c command` in its own process group, fed `stdin`. The group is killed when the
 * chain times out or is aborted, and also once the chain exits, so a chain leaves no process behind.
 */
export async function runChain(chain: ChainSpec, stdin: string, o: ChainRunOptions): Promise<ChainResult> {
  const budget = Math.min(chain.timeoutMs, o.deadline !== undefined ? o.deadline - Date.now() : Infinity);
  const cutByDeadline = budget < chain.timeoutMs;
  const timeoutText = cutByDeadline ? 'before the decision was due' : `within ${chain.timeoutMs} ms`;
  if (budget <= 0) return { kind: 'failed', code: 'chain_timeout', detail: `it could not run ${timeoutText}` };
  if (o.signal?.aborted) return { kind: 'failed', code: 'chain_aborted', detail: 'the decision was abandoned before it ran' };

  const stdout = new BoundedOutput(MAX_STDOUT_BYTES, 'head');
  const stderr = new BoundedOutput(MAX_STDERR_BYTES, 'head');
  const run = await runGroup({
    file: '/bin/sh',
    args: ['-c', chain.command],
    cwd: o.cwd,
    env: { ...o.env, CLAUDE_PROJECT_DIR: o.projectRoot },
    stdin,
    stdout,
    stderr,
    timeoutMs: budget,
    killGraceMs: 0, // the decision is waiting: no grace
    signal: o.signal,
  });
  if (run.spawnError) return { kind: 'failed', code: 'chain_missing', detail: `it could not be started (${run.spawnError.code ?? run.spawnError.message})` };
  if (run.aborted) return { kind: 'failed', code: 'chain_aborted', detail: 'the decision was abandoned while it ran' };
  if (run.timedOut) return { kind: 'failed', code: 'chain_timeout', detail: `it did not answer ${timeoutText}` };
  return interpret({ code: run.exitCode, signal: run.signal }, stdout, stderr);
}

function interpret(exit: { code: number | null; signal: NodeJS.Signals | null }, stdout: BoundedOutput, stderr: BoundedOutput): ChainResult {
  const errText = cleanReason(stderr.text());
  if (exit.code === 0) return fromJsonAnswer(stdout);
  if (exit.code === 2) return { kind: 'block', reason: errText };
  const said = errText ? `: ${errText}` : '';
  if (exit.code === 127) return { kind: 'failed', code: 'chain_missing', detail: `its command was not found (exit 127)${said}` };
  if (exit.code === 126) return { kind: 'failed', code: 'chain_missing', detail: `its command could not be executed (exit 126)${said}` };
  if (exit.code === null) return { kind: 'failed', code: 'chain_failed', detail: `it was killed by ${exit.signal ?? 'a signal'}${said}` };
  return { kind: 'failed', code: 'chain_failed', detail: `it exited with ${exit.code}, which is neither 0 (pass) nor 2 (block)${said}` };
}

/**
 * Exit 0 may still carry Claude Code's JSON answer on stdout. A deny (or the older `decision: block`, or
 * `continue: false`) blocks and `ask` asks, so a hook written for Claude Code keeps its meaning here;
 * `allow` adds nothing, since a chain can only tighten. Any other output is no opinion.
 */
function fromJsonAnswer(stdout: BoundedOutput): ChainResult {
  const text = stdout.text().trim();
  if (!text.startsWith('{')) return { kind: 'pass' };
  if (stdout.dropped > 0) return { kind: 'failed', code: 'chain_failed', detail: `its JSON answer is larger than ${MAX_STDOUT_BYTES} bytes` };
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return { kind: 'pass' };
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return { kind: 'pass' };
  const a = answer as Record<string, unknown>;
  const specific = typeof a['hookSpecificOutput'] === 'object' && a['hookSpecificOutput'] !== null ? (a['hookSpecificOutput'] as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' ? cleanReason(v) : '');
  if (specific['permissionDecision'] === 'deny') return { kind: 'block', reason: str(specific['permissionDecisionReason']) };
  if (a['decision'] === 'block') return { kind: 'block', reason: str(a['reason']) };
  if (a['continue'] === false) return { kind: 'block', reason: str(a['stopReason']) };
  if (specific['permissionDecision'] === 'ask') return { kind: 'ask', reason: str(specific['permissionDecisionReason']) };
  return { kind: 'pass' };
}

/** Trimmed, control characters (but newlines and tabs) removed, and cut to a bounded length. */
export function cleanReason(text: string): string {
  const t = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').trim();
  return t.length > MAX_CHAIN_REASON_CHARS ? `${t.slice(0, MAX_CHAIN_REASON_CHARS)}…` : t;
}
