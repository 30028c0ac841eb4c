// What every command gets: its arguments' environment and where to write, so tests can capture output.

export interface CliIO {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Reads all of standard input (only the commands that need it call this). */
  stdin: () => AsyncIterable<string | Buffer>;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export function processIO(): CliIO {
  return {
    out: (s) => { process.stdout.write(s); },
    err: (s) => { process.stderr.write(s); },
    stdin: () => process.stdin,
    cwd: process.cwd(),
    env: process.env,
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
