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
}

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

export function processIO(): CliIO {
  return {
    out: (s) => { process.stdout.write(s); },
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
