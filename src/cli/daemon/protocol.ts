// The daemon's wire format: one request and one reply per connection, each a 4-byte big-endian length
// followed by that many bytes of UTF-8 JSON. bin/daemon-client.cjs speaks the same (by hand, without this
// module), so every shape here is checked field by field: nothing a peer sends is trusted to be well formed.

import type { TimingSummary } from '../decision-timing.ts';

export const PROTOCOL_VERSION = 1;
/** The largest frame either side accepts: a 16 MiB hook payload in base64 plus the environment. */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;

/** Decide a command as `asimov <argv…>` would in the client's own process. */
export interface RunRequest {
  v: number;
  op: 'run';
  build: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /**
   * The client process's start (Date.now() ms): a hook's deadline counts from it. A client without a
   * millisecond clock (the perl first stage) sends `age` instead, how long it has run, and the daemon works
   * the start out from its own clock.
   */
  started: number;
  /** Standard input, base64. */
  stdin: string;
  /**
   * The reply's form: JSON (the default), or 'bytes' for a client with no JSON parser (the perl first stage):
   * see encodeBytesReply.
   */
  reply?: 'json' | 'bytes';
}

export interface StatusRequest {
  v: number;
  op: 'status';
}

export interface StopRequest {
  v: number;
  op: 'stop';
}

export type Request = RunRequest | StatusRequest | StopRequest;

/** What the client writes and how it exits. */
export interface RunReply {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface DaemonStatus {
  pid: number;
  build: string;
  socket: string;
  startedAt: number;
  uptimeMs: number;
  served: number;
  inFlight: number;
  idleMinutes: number;
  /** Time per request served (null before the first). */
  timing: TimingSummary | null;
  /** The daemon's resident memory. */
  rssBytes: number;
}

/**
 * `stale`: the daemon runs another build than the client's (it then exits, so the next start is fresh).
 * `refused`: a request the daemon does not serve; the client decides in its own process instead.
 */
export type Reply = RunReply | { stale: true } | { refused: string } | { status: DaemonStatus } | { stopping: true };

/**
 * A reply for a client that asked for bytes: 'r', the exit code (one byte), stdout's length in bytes (4, big
 * endian), stdout, then stderr to the end; 's' for stale; 'x' and a reason for anything else. The same
 * 4-byte length frames it as encodeFrame does JSON.
 */
export function encodeBytesReply(reply: Reply): Buffer {
  let body: Buffer;
  if ('exitCode' in reply) {
    const out = Buffer.from(reply.stdout, 'utf8');
    const head = Buffer.allocUnsafe(6);
    head.write('r', 0, 'latin1');
    head.writeUInt8(reply.exitCode, 1);
    head.writeUInt32BE(out.length, 2);
    body = Buffer.concat([head, out, Buffer.from(reply.stderr, 'utf8')]);
  } else if ('stale' in reply) {
    body = Buffer.from('s', 'latin1');
  } else {
    body = Buffer.from(`x${'refused' in reply ? reply.refused : 'not a run reply'}`, 'utf8');
  }
  const frame = Buffer.allocUnsafe(4);
  frame.writeUInt32BE(body.length, 0);
  return Buffer.concat([frame, body]);
}

export function encodeFrame(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/**
 * Collects one frame from a stream's chunks. `push` returns the parsed JSON once the frame is complete,
 * undefined while more bytes are needed, and throws on an oversized frame or a body that is not JSON.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private want: number | undefined;

  push(chunk: Buffer): unknown {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.want === undefined) {
      if (this.size < 4) return undefined;
      const all = Buffer.concat(this.chunks, this.size);
      this.want = all.readUInt32BE(0);
      if (this.want > MAX_FRAME_BYTES) throw new Error(`frame of ${this.want} bytes is larger than ${MAX_FRAME_BYTES}`);
      this.chunks = [all];
    }
    if (this.size < 4 + this.want) return undefined;
    const all = Buffer.concat(this.chunks, this.size);
    return JSON.parse(all.toString('utf8', 4, 4 + this.want)) as unknown;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request, or a string saying what is wrong with it. */
export function parseRequest(value: unknown): Request | string {
  if (!isObject(value)) return 'the request is not a JSON object';
  if (value.v !== PROTOCOL_VERSION) return `protocol version ${String(value.v)} is not ${PROTOCOL_VERSION}`;
  const op = value.op ?? 'run';
  if (op === 'status') return { v: PROTOCOL_VERSION, op };
  if (op === 'stop') return { v: PROTOCOL_VERSION, op };
  if (op !== 'run') return `unknown operation ${JSON.stringify(op)}`;
  const { build, argv, cwd, env, stdin, age, reply } = value;
  let started = value.started;
  if (started === undefined && typeof age === 'number' && Number.isFinite(age) && age >= 0) started = Date.now() - age;
  if (typeof build !== 'string') return '"build" must be a string';
  if (!Array.isArray(argv) || !argv.every((a): a is string => typeof a === 'string')) return '"argv" must be an array of strings';
  if (typeof cwd !== 'string' || !cwd.startsWith('/')) return '"cwd" must be an absolute path';
  if (!isObject(env) || !Object.values(env).every((x) => typeof x === 'string')) return '"env" must map names to strings';
  if (typeof started !== 'number' || !Number.isFinite(started)) return '"started" (or "age") must be a number';
  if (typeof stdin !== 'string') return '"stdin" must be a base64 string';
  if (reply !== undefined && reply !== 'json' && reply !== 'bytes') return '"reply" must be "json" or "bytes"';
  const req: RunRequest = { v: PROTOCOL_VERSION, op: 'run', build, argv, cwd, env: env as Record<string, string>, started, stdin };
  if (reply !== undefined) req.reply = reply;
  return req;
}
