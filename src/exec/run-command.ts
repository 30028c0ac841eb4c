// Runs one shell command for a gated tool: in its own process group, so a timeout (or the end of the
// command) reaches every process it started; with stdin closed; with its output bounded in memory while
// still being read to the end, so a command that prints without limit neither blocks nor fills the server.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AsimovError } from '../core/errors.ts';

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** How long a process group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2000;

export interface RunOptions {
  command: string;
  cwd: string;
  /** The complete environment of the child (see env.ts); nothing of the server's own is added. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Output kept in memory (stdout and stderr together, in arrival order): the first and the last half. */
  maxOutputBytes?: number;
  killGraceMs?: number;
  /** Ends the command early, as a timeout does (the client cancelled the call, the server is closing). */
  signal?: AbortSignal;
  /** The shell, run as `<shell> -c <command>`; default /bin/bash, else /bin/sh. */
  shell?: string;
}

export interface RunResult {
  /** The exit code, or null when a signal ended the shell. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The kept output: its head and its tail, with a marker between them when bytes were dropped. */
  output: string;
  /** Every byte the command wrote, kept or not. */
  outputBytes: number;
  droppedBytes: number;
  /** The shell's pid, which is also the process group's id. */
  pid: number;
}

function defaultShell(): { file: string; args: string[] } {
  // Never a login or interactive shell: start-up files are code the gate did not see.
  if (existsSync('/bin/bash')) return { file: '/bin/bash', args: ['--noprofile', '--norc', '-c'] };
  return { file: '/bin/sh', args: ['-c'] };
}

/** Keeps the first and the last `max / 2` bytes of a stream and counts the rest. */
export class BoundedOutput {
  private readonly headMax: number;
  private readonly tailMax: number;
  private readonly head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  total = 0;

  constructor(max: number) {
    this.headMax = Math.ceil(max / 2);
    this.tailMax = Math.floor(max / 2);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLen < this.headMax) {
      const take = Math.min(this.headMax - this.headLen, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headLen += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailMax === 0) return;
    // Copy what is kept: a view would pin the whole chunk (pipes deliver 64 KiB at a time).
    if (rest.length >= this.tailMax) {
      this.tail = [Buffer.from(rest.subarray(rest.length - this.tailMax))];
      this.tailLen = this.tailMax;
      return;
    }
    this.tail.push(Buffer.from(rest));
    this.tailLen += rest.length;
    while (this.tailLen > this.tailMax) {
      const first = this.tail[0]!;
      const excess = this.tailLen - this.tailMax;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailLen -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailLen -= excess;
      }
    }
  }

  get kept(): number {
    return this.headLen + this.tailLen;
  }

  get dropped(): number {
    return this.total - this.kept;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (this.dropped === 0) return head + Buffer.concat(this.tail).toString('utf8');
    return `${head}\n[… ${this.dropped} bytes of output dropped …]\n${Buffer.concat(this.tail).toString('utf8')}`;
  }
}

/** Signals a whole process group; false when no process of it is left. */
function signalGroup(pgid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the command and resolves once the shell has ended and its output is closed. Rejects only when the
 * shell cannot be started (AsimovError `exec_failed`).
 */
export function runCommand(o: RunOptions): Promise<RunResult> {
  const max = o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const grace = o.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const shell = o.shell ? { file: o.shell, args: ['-c'] } : defaultShell();
  const out = new BoundedOutput(max);

  return new Promise<RunResult>((resolve, reject) => {
    if (o.signal?.aborted) {
      reject(new AsimovError('exec_failed', 'The command was cancelled before it started.'));
      return;
    }
    const child = spawn(shell.file, [...shell.args, o.command], {
      cwd: o.cwd,
      env: o.env,
      // Its own process group (setsid): the group id is the shell's pid, and signalling -pid reaches every
      // process the command started that did not leave the group on purpose.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const pid = child.pid;
    let timedOut = false;
    let aborted = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let exited = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const finish = () => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      o.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, signal: exitSignal, timedOut, aborted, output: out.text(), outputBytes: out.total, droppedBytes: out.dropped, pid: pid ?? -1 });
    };

    // SIGTERM to the group, then SIGKILL after the grace period even if the call has ended by then (a
    // process that ignores SIGTERM must not survive). If the output is still held open after that (a process
    // that left the group keeps the pipe), stop reading so the call can end.
    let stopping = false;
    const stopGroup = () => {
      if (stopping || pid === undefined) return;
      stopping = true;
      if (!signalGroup(pid, 'SIGTERM')) return;
      setTimeout(() => {
        signalGroup(pid, 'SIGKILL');
        if (settled) return;
        timers.push(setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish();
        }, grace));
      }, grace).unref();
    };

    const onAbort = () => {
      aborted = true;
      stopGroup();
    };

    child.on('error', (e) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      o.signal?.removeEventListener('abort', onAbort);
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      reject(new AsimovError('exec_failed', `The command could not be started: ${e.message}`, undefined, { cause: e }));
    });
    if (pid === undefined) return; // 'error' follows

    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => out.push(c));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    timers.push(setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, o.timeoutMs));

    child.on('exit', (code, sig) => {
      exited = true;
      exitCode = code;
      exitSignal = sig;
      // Nothing a call started outlives it: what the shell left running in its group is stopped now.
      stopGroup();
    });
    child.on('close', () => {
      if (exited) finish();
    });
  });
}
