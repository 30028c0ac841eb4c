// Runs one shell command for a gated tool or for `asimov serve`'s /v1/execute (through core/run-group.ts): in
// its own process group, so a timeout (or the end of the command) reaches every process it started; with stdin
// closed or fed from a given string; with its output bounded in memory while still being read to the end, so a
// command that prints without limit neither blocks nor fills the server. runCommand merges stdout and stderr
// (what an agent reads); runCommandSplit keeps them apart (what an API caller gets).

import { existsSync } from 'node:fs';
import { AsimovError } from '../core/errors.ts';
import { BoundedOutput, runGroup } from '../core/run-group.ts';

export { BoundedOutput };

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

export interface SplitRunOptions extends Omit<RunOptions, 'maxOutputBytes'> {
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: string;
  /** Output kept in memory for each stream on its own: the first and the last half of it. */
  maxOutputBytes?: number;
}

export interface SplitRunResult extends Omit<RunResult, 'output' | 'outputBytes' | 'droppedBytes'> {
  stdout: string;
  stderr: string;
  /** Every byte written to each stream, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  /** Bytes left out of `stdout` and `stderr` together (a marker in the text says where). */
  droppedBytes: number;
}

function defaultShell(): { file: string; args: string[] } {
  // Never a login or interactive shell: start-up files are code the gate did not see.
  if (existsSync('/bin/bash')) return { file: '/bin/bash', args: ['--noprofile', '--norc', '-c'] };
  return { file: '/bin/sh', args: ['-c'] };
}

/**
 * Runs the command and resolves once the shell has ended and its output is closed. Rejects only when the
 * shell cannot be started (AsimovError `exec_failed`).
 */
export async function runCommand(o: RunOptions): Promise<RunResult> {
  const out = new BoundedOutput(o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const r = await runShell(o, out, out, undefined);
  return {
    exitCode: r.exitCode, signal: r.signal, timedOut: r.timedOut, aborted: r.aborted,
    output: out.text(), outputBytes: out.total, droppedBytes: out.dropped, pid: r.pid,
  };
}

/** As runCommand, with stdout and stderr kept apart (each bounded on its own) and an optional stdin. */
export async function runCommandSplit(o: SplitRunOptions): Promise<SplitRunResult> {
  const max = o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const stdout = new BoundedOutput(max);
  const stderr = new BoundedOutput(max);
  const r = await runShell(o, stdout, stderr, o.stdin);
  return {
    exitCode: r.exitCode, signal: r.signal, timedOut: r.timedOut, aborted: r.aborted, pid: r.pid,
    stdout: stdout.text(), stderr: stderr.text(), stdoutBytes: stdout.total, stderrBytes: stderr.total,
    droppedBytes: stdout.dropped + stderr.dropped,
  };
}

async function runShell(o: Omit<RunOptions, 'maxOutputBytes'>, stdout: BoundedOutput, stderr: BoundedOutput, stdin: string | undefined) {
  if (o.signal?.aborted) throw new AsimovError('exec_failed', 'The command was cancelled before it started.');
  const shell = o.shell ? { file: o.shell, args: ['-c'] } : defaultShell();
  const r = await runGroup({
    file: shell.file,
    args: [...shell.args, o.command],
    cwd: o.cwd,
    env: o.env,
    ...(stdin !== undefined ? { stdin } : {}),
    stdout,
    stderr,
    timeoutMs: o.timeoutMs,
    killGraceMs: o.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    signal: o.signal,
  });
  if (r.spawnError) throw new AsimovError('exec_failed', `The command could not be started: ${r.spawnError.message}`, undefined, { cause: r.spawnError });
  return r;
}
