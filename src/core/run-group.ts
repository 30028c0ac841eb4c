// Runs a shell line in a process group of its own, with a time limit: the one way asimov runs a command line
// it did not write (a policy's hook chains, the gated bash tool, doctor running an installed hook line).
// Whatever the line starts stays in the group unless it leaves on purpose, so one signal to the group reaches
// all of it: on a timeout, on an abort, and once the shell has exited, so nothing it left running in the
// background outlives the run. The output is read to the end but only a bounded part of it is kept, so a
// line that prints without end neither blocks on a full pipe nor fills memory.

import type { ChildProcess } from 'node:child_process';
import { lazyChildProcess } from './lazy.ts';

/**
 * Once the group has been sent SIGKILL, the least time its output gets to close before reading stops. Only a
 * process that left the group can hold the output open then; the wait is for what the shell wrote just
 * before it exited and Node has not read yet.
 */
const MIN_OUTPUT_CLOSE_WAIT_MS = 250;
/** setTimeout's largest delay: a longer one fires at once (Node warns and uses 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Keeps the first and the last `max / 2` bytes of a stream (or, with `keep: 'head'`, its first `max` bytes)
 * and counts the rest.
 */
export class BoundedOutput {
  private readonly headMax: number;
  private readonly tailMax: number;
  private readonly head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  total = 0;

  constructor(max: number, keep: 'head-and-tail' | 'head' = 'head-and-tail') {
    this.headMax = keep === 'head' ? max : Math.ceil(max / 2);
    this.tailMax = keep === 'head' ? 0 : Math.floor(max / 2);
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

  /**
   * The kept output: its head and its tail, with a marker between them when bytes were dropped. A head-only
   * output is just the kept prefix (`dropped` says whether it was cut), so it can be parsed as the start of
   * what was written.
   */
  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (this.tailMax === 0) return head;
    if (this.dropped === 0) return head + Buffer.concat(this.tail).toString('utf8');
    return `${head}\n[… ${this.dropped} bytes of output dropped …]\n${Buffer.concat(this.tail).toString('utf8')}`;
  }
}

export interface GroupRunOptions {
  /** The shell, run as `file ...args`: the command line is the last argument (`['-c', line]`). */
  file: string;
  args: readonly string[];
  cwd: string;
  /** The complete environment of the shell. */
  env: NodeJS.ProcessEnv;
  /** Written to the shell's stdin, which is then closed. Without it stdin is /dev/null. */
  stdin?: string;
  /** Where each stream's bytes go as they arrive; the same sink for both keeps them in arrival order. */
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL to the group (so a command can clean up); 0 sends SIGKILL at once. */
  killGraceMs: number;
  /** Stops the run as a timeout does. */
  signal?: AbortSignal;
}

export interface GroupRun {
  /** Why the shell could not be started (spawn's error, thrown or emitted); nothing ran then. */
  spawnError: NodeJS.ErrnoException | null;
  /** The shell's pid, which is also the process group's id; -1 when it did not start. */
  pid: number;
  /** The shell's exit code, or null when a signal ended it (or it did not end before the run did). */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The time limit passed before the shell exited. */
  timedOut: boolean;
  /** The abort signal fired before the run ended. */
  aborted: boolean;
  /** The sinks given in the options, for convenience. */
  stdout: BoundedOutput;
  stderr: BoundedOutput;
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
 * Runs the shell and resolves once it has exited and its output is closed, or once reading its output was
 * given up (see MIN_OUTPUT_CLOSE_WAIT_MS). Never rejects: a shell that cannot start is `spawnError`.
 *
 * The group is stopped (SIGTERM, then SIGKILL after `killGraceMs`) on the first of: the time limit, the
 * abort signal, the shell's exit. The SIGKILL is sent even when the run has resolved by then, so a process
 * that ignores SIGTERM does not survive. From the SIGKILL on, the output gets `killGraceMs` (at least
 * MIN_OUTPUT_CLOSE_WAIT_MS) to close; then reading stops and the run resolves with what it has.
 */
export function runGroup(o: GroupRunOptions): Promise<GroupRun> {
  return new Promise<GroupRun>((resolve) => {
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let exited = false;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let child: ChildProcess | undefined;
    const timers: NodeJS.Timeout[] = [];

    const settle = (spawnError: NodeJS.ErrnoException | null) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      o.signal?.removeEventListener('abort', onAbort);
      // Stop reading (after a give-up, a process outside the group still holds the pipes) and writing.
      child?.stdin?.destroy();
      child?.stdout?.destroy();
      child?.stderr?.destroy();
      resolve({ spawnError, pid: child?.pid ?? -1, exitCode, signal: exitSignal, timedOut, aborted, stdout: o.stdout, stderr: o.stderr });
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };

    if (o.signal?.aborted) {
      aborted = true;
      settle(null);
      return;
    }
    try {
      child = lazyChildProcess().spawn(o.file, o.args, {
        cwd: o.cwd,
        env: o.env,
        // Its own process group (setsid): the group id is the shell's pid, and signalling -pid reaches every
        // process the line started that did not leave the group on purpose.
        detached: true,
        stdio: [o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (e) {
      // Thrown, not emitted: an argument the OS refuses (a NUL byte, a line longer than the kernel takes).
      settle(e as NodeJS.ErrnoException);
      return;
    }
    const pid = child.pid;
    const grace = Math.min(Math.max(o.killGraceMs, 0), MAX_TIMER_MS);

    let stopping = false;
    const stop = () => {
      if (stopping || settled || pid === undefined) return;
      stopping = true;
      const closeWait = Math.max(grace, MIN_OUTPUT_CLOSE_WAIT_MS);
      const giveUpLater = () => {
        if (!settled) timers.push(setTimeout(() => settle(null), closeWait));
      };
      const kill = () => {
        signalGroup(pid, 'SIGKILL');
        giveUpLater();
      };
      if (grace === 0) return kill();
      // Nobody left to stop: only a process outside the group can still hold the output.
      if (!signalGroup(pid, 'SIGTERM')) return giveUpLater();
      setTimeout(kill, grace).unref();
    };

    child.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      settle(e);
    });
    if (pid === undefined) return; // 'error' follows

    child.stdout!.on('data', (b: Buffer) => o.stdout.push(b));
    child.stderr!.on('data', (b: Buffer) => o.stderr.push(b));
    if (child.stdin) {
      child.stdin.on('error', () => {}); // EPIPE: a line need not read its input
      child.stdin.end(o.stdin);
    }
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const limit = setTimeout(() => {
      timedOut = true;
      stop();
    }, Math.min(o.timeoutMs, MAX_TIMER_MS));
    timers.push(limit);

    child.on('exit', (code, sig) => {
      exited = true;
      clearTimeout(limit);
      exitCode = code;
      exitSignal = sig;
      // What the shell left running in its group goes too (and stops holding the output open).
      stop();
    });
    child.on('close', () => {
      if (exited) settle(null);
    });
  });
}
