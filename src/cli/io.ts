// What every command gets: its arguments' environment and where to write, so tests can capture output.

import { fstatSync, read } from 'node:fs';
import type { Gate, GateOptions } from '../gate/gate.ts';
import { colorWanted } from './style.ts';

export interface CliIO {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Reads all of standard input (only the commands that need it call this). */
  stdin: () => AsyncIterable<string | Buffer>;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Whether `out` goes to a terminal that wants colour (src/cli/style.ts); absent or false: plain text. */
  color?: boolean;
  /**
   * When the asimov process started (Date.now() milliseconds), where that is not this process's own start:
   * a request forwarded to the resident daemon, or one whose stdin a client already read. A hook's deadline
   * counts from it.
   */
  started?: number;
  /** A gate for these options that outlives the command (the daemon keeps them warm); else each command makes one. */
  gateFor?: (options: GateOptions) => Gate;
  /**
   * What became of standard output: 'closed' when its reader went away (`asimov rules | head -1`), so a
   * command reading a stream may stop early; 'failed' on any other write error (main then exits 1).
   * Absent: output cannot close (captured by a test or the daemon).
   */
  outState?: () => OutState;
}

export type OutState = 'open' | 'closed' | 'failed';

/**
 * Standard input. When it is a regular file (`asimov check --batch < calls.jsonl`), it is read straight
 * from fd 0, which skips setting up a stream. A pipe or a terminal goes through `process.stdin`: a read
 * blocked on a pipe in libuv's threadpool would keep the process from exiting at a hook's deadline.
 */
function readStdin(): AsyncIterable<string | Buffer> {
  let file = false;
  try {
    file = fstatSync(0).isFile();
  } catch {
    file = false;
  }
  return file ? readFileFd0() : process.stdin;
}

async function* readFileFd0(): AsyncIterable<Buffer> {
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const n = await new Promise<number>((res, rej) => read(0, buf, 0, buf.length, null, (e, k) => (e ? rej(e) : res(k))));
    if (n === 0) return;
    yield Buffer.from(buf.subarray(0, n));
  }
}

let outState: OutState = 'open';
let guarded = false;

/**
 * Once per process: a write error on stdout or stderr ends that output instead of crashing with an
 * unhandled 'error' event. A reader that went away (EPIPE: `asimov rules | head -1`) is a normal end, so
 * nothing is said and the command's own exit status stands; any other error is reported once and makes
 * the exit status 1. Later writes to the destroyed stream are dropped by Node without another event.
 * Commands with a protocol on stdout add their own listener (mcp proxy stops on it); both run.
 */
function guardOutput(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (outState !== 'open') return;
    outState = e.code === 'EPIPE' ? 'closed' : 'failed';
    if (outState === 'failed') process.stderr.write(`asimov: cannot write to standard output: ${e.message}\n`);
  });
  // Nowhere is left to report a failing stderr: its output ends, the exit status stays the command's.
  process.stderr.on('error', () => undefined);
}

export function processIO(): CliIO {
  guardOutput();
  return {
    outState: () => outState,
    out: (s) => { if (outState === 'open') process.stdout.write(s); },
    err: (s) => { process.stderr.write(s); },
    stdin: readStdin,
    cwd: process.cwd(),
    env: process.env,
    color: colorWanted(process.stdout.isTTY, process.env),
  };
}

/** Exit codes shared by the commands (documented in the README). */
export const EXIT = {
  ok: 0,
  allow: 0,
  error: 1,
  usage: 1,
  deny: 2,
  failed: 2,
  ask: 3,
} as const;

const USAGE_ERROR = Symbol.for('asimov.UsageError');

/** A wrong option or argument. `instanceof` holds across bundles (see AsimovError). */
export class UsageError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[USAGE_ERROR] === true;
  }

  get [USAGE_ERROR](): boolean {
    return true;
  }
}
