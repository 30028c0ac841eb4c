// What every client hook shares: read the payload with limits, decide before a deadline, and reply exactly
// once. Many clients run the tool when a hook crashes, prints nothing parseable or times out, so every path
// here ends in a reply that blocks: an exception, a payload that is too big or not UTF-8, stdin that never
// closes, a decision that does not come back in time.

import type { Decision, ToolCall } from '../core/types.ts';
import { describeError } from '../core/errors.ts';

/** What the hook process writes and how it exits. */
export interface HookReply {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Bigger payloads are refused unread: a tool call's input has no business being this large. */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;
/** Time kept back from the deadline to write the reply and exit. */
const REPLY_MARGIN_MS = 250;

export interface DecideFn {
  (call: ToolCall, opts: { deadline: number; signal: AbortSignal }): Promise<Decision>;
}

/** One client's protocol: payload in, reply out. */
export interface HookProtocol<P> {
  client: string;
  /** Validates the payload; a string is the reason it cannot be handled (the reply blocks). */
  parse(value: unknown): P | string;
  toCall(payload: P): ToolCall;
  /** The native reply for a decision on this payload. */
  reply(payload: P, decision: Decision): HookReply;
  /** A reply that blocks, for failures; `payload` is absent when the payload itself was unusable. */
  block(reason: string, payload?: P): HookReply;
  /**
   * For `asimov doctor`: the payload the client would send for its shell tool running `command` in `cwd`,
   * in the client's own format (it must pass this protocol's `parse`).
   */
  doctorPayload?(command: string, cwd: string): unknown;
  /**
   * For `asimov doctor`: what the CLIENT makes of a hook process's exit and output, read as the client
   * reads it (not as asimov meant it): 'deny' when the call is stopped, 'allow' when it goes on, anything
   * else a short description of what the client would see (such as "exit 1: the tool runs").
   */
  doctorVerdict?(reply: DoctorReply): DoctorVerdict;
}

/** A finished hook process as a client sees it. */
export interface DoctorReply {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** 'deny', 'allow', or what else the client would make of a reply. */
export type DoctorVerdict = 'deny' | 'allow' | (string & {});

/**
 * The reading most clients share (Claude Code's contract, copied widely): exit 2 blocks; any other non-zero
 * exit, a crash and a kill let the tool run; exit 0 with nothing on stdout lets it go on; exit 0 with JSON
 * is read by `json` (undefined: the JSON says nothing that stops the call).
 */
export function exit2Verdict(r: DoctorReply, json?: (value: unknown) => DoctorVerdict | undefined): DoctorVerdict {
  if (r.code === 2) return 'deny';
  if (r.code !== 0) return r.code === null ? 'killed: the tool runs' : `exit ${r.code}: the tool runs`;
  if (r.stdout.trim() === '') return 'allow';
  let value: unknown;
  try {
    value = JSON.parse(r.stdout);
  } catch {
    return 'output that is not JSON';
  }
  return json?.(value) ?? 'allow';
}

/** `hookSpecificOutput.permissionDecision` of a Claude-shaped reply, or undefined. */
export function permissionDecisionOf(value: unknown): string | undefined {
  const d = (value as { hookSpecificOutput?: { permissionDecision?: unknown } } | null)?.hookSpecificOutput?.permissionDecision;
  return typeof d === 'string' ? d : undefined;
}

export interface RunHookOptions<P> {
  protocol: HookProtocol<P>;
  /** Reads all of standard input. */
  stdin: () => AsyncIterable<string | Buffer>;
  decide: DecideFn;
  /** Date.now() milliseconds by which the reply must be written. */
  deadline: number;
}

class PayloadError extends Error {}

/**
 * Runs one hook invocation to its reply. Never rejects; when the deadline passes first, the reply is the
 * protocol's block, and whatever was still running is abandoned (the caller exits the process).
 */
export async function runHook<P>(o: RunHookOptions<P>): Promise<HookReply> {
  const { protocol } = o;
  const abort = new AbortController();
  let payload: P | undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeLeft = o.deadline - REPLY_MARGIN_MS - Date.now();
  const late = new Promise<HookReply>((resolveLate) => {
    timer = setTimeout(() => {
      abort.abort();
      resolveLate(protocol.block(`asimov did not reach a decision within its deadline, so the call is blocked.`, payload));
    }, Math.max(0, timeLeft));
  });
  const work = (async (): Promise<HookReply> => {
    let value: unknown;
    try {
      value = JSON.parse(await readPayload(o.stdin));
    } catch (e) {
      const why = e instanceof PayloadError ? e.message : `the hook payload is not valid JSON (${describeError(e)})`;
      return protocol.block(`asimov could not read the ${protocol.client} hook payload, so the call is blocked: ${why}.`);
    }
    const parsed = protocol.parse(value);
    if (typeof parsed === 'string') {
      return protocol.block(`asimov could not use the ${protocol.client} hook payload, so the call is blocked: ${parsed}.`);
    }
    payload = parsed;
    const decision = await o.decide(protocol.toCall(parsed), { deadline: o.deadline - REPLY_MARGIN_MS, signal: abort.signal });
    return protocol.reply(parsed, decision);
  })().catch((e: unknown) =>
    protocol.block(`asimov failed while checking this call, so it is blocked: ${describeError(e)}`, payload),
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

async function readPayload(stdin: () => AsyncIterable<string | Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin()) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    size += b.length;
    if (size > MAX_PAYLOAD_BYTES) throw new PayloadError(`the payload is larger than ${MAX_PAYLOAD_BYTES} bytes`);
    chunks.push(b);
  }
  if (size === 0) throw new PayloadError('standard input was empty');
  try {
    return decoder.decode(Buffer.concat(chunks, size));
  } catch {
    throw new PayloadError('the payload is not valid UTF-8');
  }
}
