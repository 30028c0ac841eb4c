// The command line a client runs for asimov's hook. Clients such as Claude Code run the tool when a hook
// exits 1, is missing or hangs past their own timeout, so the line itself must turn every failure of
// asimov's into a block: it names node and asimov by absolute paths (no PATH lookup that a shell profile
// could change), kills asimov at its deadline with a watchdog, and maps any non-zero exit to exit 2 with
// a reason on stderr. asimov's own reply is always JSON on stdout with exit 0, so non-zero means failure.

import { dirname, isAbsolute, join } from 'node:path';
import { findExecutable } from '../core/executables.ts';
import { shellQuote } from '../core/tools.ts';
import { parseShell } from '../shell/parse.ts';

/** Marks asimov's entries in a client's settings so that `wire` can find, update and remove exactly them. */
export const HOOK_MARKER = 'asimov-hook:';

/** How long asimov may take to decide one call before it answers deny on its own (covers the judge). */
export const DEFAULT_DEADLINE_MS = 40_000;
/** Between asimov's own deadline and the watchdog's kill: time to write the deny reply and exit. */
const WATCHDOG_GRACE_MS = 2_000;
/** Between the watchdog's kill and the client's timeout: the client must never be the one to give up. */
const CLIENT_TIMEOUT_MARGIN_S = 8;

/**
 * What runs in front of node on the line. `first-stage`: bin/hook-first-stage.pl under this perl, which asks the
 * resident daemon without starting node at all and is the watchdog too (its alarm survives the exec into node
 * when the call must be decided in process). `timeout` and `perl`: a watchdog only, node always starts.
 */
export type Watchdog =
  | { kind: 'first-stage'; path: string }
  | { kind: 'timeout'; path: string }
  | { kind: 'perl'; path: string }
  | { kind: 'none' };

/**
 * How the line uses the resident daemon (`ASIMOV_DAEMON`): `auto` (the default) uses it and starts one on
 * demand, `manual` uses one that runs but never starts one, `off` decides every call in its own process.
 */
export type DaemonMode = 'auto' | 'manual' | 'off';
export const DAEMON_MODES: readonly DaemonMode[] = ['auto', 'manual', 'off'];

/** The first stage's file, beside asimov's entry point. */
export const FIRST_STAGE_FILE = 'hook-first-stage.pl';

export interface HookCommandOptions {
  /** Client name as `asimov hook <client>` takes it. */
  client: string;
  /** Absolute path of the node binary that runs asimov. */
  nodePath: string;
  /** Absolute path of asimov's entry point (bin/asimov.cjs). */
  asimovPath: string;
  deadlineMs?: number;
  /** Extra arguments for `asimov hook <client>` (such as `--on-allow passthrough`). */
  args?: readonly string[];
  watchdog: Watchdog;
  /** Written into the line as `ASIMOV_DAEMON=…` unless `auto`. */
  daemon?: DaemonMode;
}

export interface HookCommand {
  /** The whole line, for a POSIX shell. */
  command: string;
  /** The timeout to give the client, in seconds: longer than the deadline and the watchdog together. */
  clientTimeoutSec: number;
  deadlineMs: number;
}

export function buildHookCommand(o: HookCommandOptions): HookCommand {
  for (const [what, p] of [['node', o.nodePath], ['asimov', o.asimovPath]] as const) {
    if (!isAbsolute(p)) throw new Error(`the ${what} path in a hook command must be absolute, got ${p}`);
  }
  const deadlineMs = o.deadlineMs ?? DEFAULT_DEADLINE_MS;
  if (!Number.isInteger(deadlineMs) || deadlineMs < 100 || deadlineMs > 600_000) {
    throw new Error(`the hook deadline must be a whole number of milliseconds from 100 to 600000, got ${deadlineMs}`);
  }
  const killAfterSec = watchdogKillSec(deadlineMs);
  const asimov = [o.nodePath, o.asimovPath, 'hook', o.client, '--deadline-ms', String(deadlineMs), ...(o.args ?? [])];
  let prefix: string[] = [];
  if (o.watchdog.kind === 'first-stage') prefix = [o.watchdog.path, firstStagePath(o.asimovPath), String(killAfterSec)];
  else if (o.watchdog.kind === 'timeout') prefix = [o.watchdog.path, '-s', 'KILL', String(killAfterSec)];
  // perl's alarm survives exec, so SIGALRM ends the node process it becomes (macOS has no `timeout`).
  else if (o.watchdog.kind === 'perl') prefix = [o.watchdog.path, '-e', 'alarm shift; exec @ARGV or exit 127', String(killAfterSec)];
  const daemon = o.daemon ?? 'auto';
  if (!DAEMON_MODES.includes(daemon)) throw new Error(`the daemon mode must be one of ${DAEMON_MODES.join(', ')}, got ${String(daemon)}`);
  // A POSIX shell's assignment before a command: in that command's environment only.
  const assignment = daemon === 'auto' ? '' : `ASIMOV_DAEMON=${daemon} `;
  // perl exits 2 when it cannot open its script, which the line would take for asimov's own block and say
  // nothing; the shell's builtin test first makes a missing first stage an ordinary failure.
  const guard = o.watchdog.kind === 'first-stage' ? `[ -r ${shellQuote(firstStagePath(o.asimovPath))} ] && ` : '';
  const words = guard + assignment + [...prefix, ...asimov].map(shellQuote).join(' ');
  // asimov itself exits 2 only when it blocks on purpose (reason already on stderr); anything else non-zero
  // is a failure (node or asimov missing, a crash, the watchdog's kill) and gets a reason of its own.
  const onFailure = `{ s=$?; [ $s -eq 2 ] || echo "asimov: the ${o.client} hook failed (exit $s), so this call is blocked. Run 'asimov doctor'." >&2; exit 2; }`;
  const command = `${words} || ${onFailure} # ${HOOK_MARKER}${o.client}`;
  return { command, clientTimeoutSec: clientTimeoutSecFor(deadlineMs), deadlineMs };
}

/** bin/hook-first-stage.pl of the asimov whose entry point (bin/asimov.cjs) is given. */
export function firstStagePath(asimovPath: string): string {
  return join(dirname(asimovPath), FIRST_STAGE_FILE);
}

/** The first stage's guard (`[ -r <file> ] && `, the file shell-quoted) at the start of a line, as buildHookCommand writes it. */
const GUARD = /^\[ -r (?:'(?:[^']|'\\'')*'|\S+) \] && /;
/** The daemon mode's assignment, which follows the guard. */
const ASSIGNMENT = /^ASIMOV_DAEMON=([a-z]+) /;

/** A line of asimov's from its first command word on: without the first stage's guard and the assignment. */
export function hookLineCommand(line: string): string {
  return line.replace(GUARD, '').replace(ASSIGNMENT, '');
}

/** The daemon mode a line of asimov's is written with (the `ASIMOV_DAEMON=` it starts with, else auto). */
export function hookDaemonMode(line: string): DaemonMode {
  const m = ASSIGNMENT.exec(line.replace(GUARD, ''));
  return m && (DAEMON_MODES as readonly string[]).includes(m[1]!) ? (m[1] as DaemonMode) : 'auto';
}

/** Whether a line of asimov's starts the first stage (bin/hook-first-stage.pl) rather than node. */
export function hookHasFirstStage(line: string): boolean {
  const words = hookLineCommand(line).split(' ', 2);
  return words.length === 2 && /(^|\/)perl'?$/.test(words[0]!) && words[1]!.replace(/'/g, '').endsWith(`/${FIRST_STAGE_FILE}`);
}

/** When the watchdog kills asimov: its deadline plus the time to write the deny reply, in whole seconds. */
function watchdogKillSec(deadlineMs: number): number {
  return Math.ceil((deadlineMs + WATCHDOG_GRACE_MS) / 1000);
}

/** The timeout a client is given for a hook with this deadline, in seconds: past the watchdog's kill. */
export function clientTimeoutSecFor(deadlineMs: number): number {
  return watchdogKillSec(deadlineMs) + CLIENT_TIMEOUT_MARGIN_S;
}

/** The `--deadline-ms` a hook command line names (buildHookCommand writes it unquoted), or null. */
export function hookDeadlineMs(line: string): number | null {
  const m = /--deadline-ms (\d{1,9})(?= |$)/.exec(line);
  return m ? Number(m[1]) : null;
}

/** Whether a hook command line is one of asimov's (for the given client, or any). */
export function isAsimovHookCommand(command: unknown, client?: string): boolean {
  if (typeof command !== 'string') return false;
  const at = command.lastIndexOf(`# ${HOOK_MARKER}`);
  if (at < 0) return false;
  const tag = command.slice(at + 2 + HOOK_MARKER.length).trim();
  return client === undefined ? tag.length > 0 : tag === client;
}

/**
 * What this machine offers in front of node: the first stage under perl (unless the daemon is off, where it
 * would only add a process), else coreutils `timeout`, else perl's alarm, else none (doctor warns).
 */
export function detectWatchdog(env: NodeJS.ProcessEnv = process.env, daemon: DaemonMode = 'auto'): Watchdog {
  if (daemon !== 'off') {
    const perl = findExecutable('perl', env);
    if (perl) return { kind: 'first-stage', path: perl };
  }
  const t = findExecutable('timeout', env);
  if (t) return { kind: 'timeout', path: t };
  const p = findExecutable('perl', env);
  if (p) return { kind: 'perl', path: p };
  return { kind: 'none' };
}

/** Directories a watchdog (`timeout`, `perl`) may be named from in a line doctor runs: the system's own. */
const SYSTEM_BIN_DIRS = ['/usr/bin', '/bin', '/usr/local/bin', '/opt/homebrew/bin', '/usr/sbin', '/sbin'];

export interface OwnInstall {
  /** The node and asimov entry point this asimov runs with (`asimov wire` writes these paths). */
  nodePath: string;
  asimovPath: string;
}

/**
 * Whether `line` is exactly a line buildHookCommand writes for `client` with this node and this asimov: the
 * deadline and `--on-allow` it names, and no watchdog or a `timeout`/`perl` from a system directory. `asimov
 * doctor` runs an installed line through a shell only when this holds. The line comes from a config file
 * that anyone who can write the project (a cloned repository's `.claude/settings.json`) could have edited,
 * and a line that merely carries asimov's marker could run anything.
 */
export function isOwnHookCommand(line: string, client: string, own: OwnInstall, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!isAsimovHookCommand(line, client)) return false;
  const deadlineMs = hookDeadlineMs(line);
  const onAllow = /--on-allow '?([A-Za-z-]{1,20})'? /.exec(line);
  const args = onAllow ? ['--on-allow', onAllow[1]!] : [];
  const daemon = hookDaemonMode(line);
  for (const watchdog of watchdogsOf(line, env)) {
    try {
      const built = buildHookCommand({
        client, nodePath: own.nodePath, asimovPath: own.asimovPath, args, watchdog, daemon,
        ...(deadlineMs !== null ? { deadlineMs } : {}),
      });
      if (built.command === line) return true;
    } catch {
      // A deadline out of range: not a line asimov writes.
    }
  }
  return false;
}

/** The watchdogs a line of asimov's may start with: none, this machine's, or the line's own from a system directory. */
function watchdogsOf(line: string, env: NodeJS.ProcessEnv): Watchdog[] {
  const out: Watchdog[] = [{ kind: 'none' }, detectWatchdog(env, 'auto'), detectWatchdog(env, 'off')];
  const first = /^([^\s']+) /.exec(hookLineCommand(line))?.[1];
  if (first !== undefined && SYSTEM_BIN_DIRS.includes(first.slice(0, first.lastIndexOf('/')))) {
    const name = first.slice(first.lastIndexOf('/') + 1);
    if (name === 'timeout' || name === 'perl') out.push({ kind: name, path: first });
    if (name === 'perl') out.push({ kind: 'first-stage', path: first });
  }
  return out;
}

/**
 * The node and asimov a hook command line of asimov's runs (the two words before `hook <client>`), read by
 * asimov's own shell parser; null for a line not of that shape. Only for saying what a stale line names:
 * nothing here decides whether a line is run.
 */
export function installedPaths(line: string, client: string): OwnInstall | null {
  if (!isAsimovHookCommand(line, client)) return null;
  const analysis = parseShell(line);
  if (analysis.status !== 'ok') return null;
  for (const c of analysis.commands) {
    if (!c.argv.every((w) => w.literal)) continue;
    const words = c.argv.map((w) => w.value);
    const at = words.findIndex((w, i) => w === 'hook' && words[i + 1] === client && i >= 2);
    if (at < 0) continue;
    const nodePath = words[at - 2]!;
    const asimovPath = words[at - 1]!;
    return isAbsolute(nodePath) && isAbsolute(asimovPath) ? { nodePath, asimovPath } : null;
  }
  return null;
}
