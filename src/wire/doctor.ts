// `asimov doctor` for Claude Code: is asimov really in front of every tool call? Reads every settings file
// Claude Code would read for this directory, runs the installed command line the way Claude Code would (a
// shell, a payload on stdin), and checks the things that silently switch protection off: hooks disabled, a
// matcher that misses tools, a client timeout shorter than asimov's deadline, a policy that does not load.
// Also what every client's check shares (the other clients are in doctor-hooks.ts): running an installed
// command line on a dangerous and an everyday call, the policy check, and the verdict.

import { existsSync, readFileSync } from 'node:fs';
import { hookDeadlineMs, hookLineCommand, installedPaths, isAsimovHookCommand, isOwnHookCommand, type OwnInstall } from './hook-command.ts';
import { readWireRecord, wireRecordPath } from './record.ts';
import { wireTargetFor } from './targets.ts';
import { ALL_TOOLS_MATCHERS, claudeSettingsPaths } from './claude.ts';
import { isPlainObject } from '../core/json.ts';
import { BoundedOutput, runGroup } from '../core/run-group.ts';
import { claudeProtocol } from '../adapters/claude.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'info';

export interface DoctorCheck {
  status: CheckStatus;
  title: string;
  detail?: string;
  /** What to do about it, when something is wrong. */
  fix?: string;
}

export interface DoctorReport {
  /** The client's name as `asimov wire` takes it. */
  client: string;
  checks: DoctorCheck[];
  protected: boolean;
  verdict: string;
}

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface DoctorOptions {
  home: string;
  cwd: string;
  projectRoot: string;
  env: NodeJS.ProcessEnv;
  /** Loads the policy for cwd; throws on a broken policy. Returns a one-line summary of the layers. */
  loadPolicy: () => string;
  /** Runs a hook command line through a shell with input; injectable for tests. */
  runCommand?: (command: string, input: string, timeoutMs: number) => Promise<CommandRun>;
  /** What a wiring's tier gives, for the lines about tier 2 and 3 wirings (`asimov wire --list` wording). */
  tierMeaning?: (tier: number) => string;
  /**
   * The node and asimov this doctor runs with; an installed command line is run only when it is exactly the
   * one `asimov wire` writes with them (isOwnHookCommand). Null: this asimov cannot find its own entry
   * point, and no line is run.
   */
  own: OwnInstall | null;
  /** Which path an installed line's calls take (the first stage and the daemon, or node in process). */
  callPath?: (command: string) => Promise<DoctorCheck>;
}

interface FoundHook {
  scope: string;
  file: string;
  event: string;
  matcher: string;
  command: string;
  timeoutSec: number;
}

/** Claude Code's default hook timeout, used when an entry sets none. */
const CLAUDE_DEFAULT_TIMEOUT_S = 600;

export async function doctorClaude(o: DoctorOptions): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const paths = claudeSettingsPaths({ home: o.home, projectRoot: o.projectRoot, env: o.env });
  const found: FoundHook[] = [];
  let hooksDisabled: string | null = null;
  let managedOnly = false;

  for (const scope of ['managed', 'local', 'project', 'user'] as const) {
    const file = paths[scope];
    if (!existsSync(file)) continue;
    let settings: unknown;
    try {
      settings = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      checks.push({
        status: 'fail',
        title: `${file} cannot be parsed`,
        detail: (e as Error).message,
        fix: 'Claude Code ignores a settings file it cannot parse, hooks included; fix the JSON.',
      });
      continue;
    }
    if (!isPlainObject(settings)) continue;
    if (settings['disableAllHooks'] === true) hooksDisabled = file;
    if (scope === 'managed' && settings['allowManagedHooksOnly'] === true) managedOnly = true;
    const hooks = settings['hooks'];
    if (!isPlainObject(hooks)) continue;
    for (const [event, groups] of Object.entries(hooks)) {
      if (!Array.isArray(groups)) continue;
      for (const g of groups) {
        if (!isPlainObject(g) || !Array.isArray(g['hooks'])) continue;
        const matcher = typeof g['matcher'] === 'string' ? g['matcher'] : '';
        for (const h of g['hooks']) {
          if (!isPlainObject(h) || !isAsimovHookCommand(h['command'], 'claude')) continue;
          const t = h['timeout'];
          found.push({
            scope, file, event, matcher, command: h['command'] as string,
            timeoutSec: typeof t === 'number' && t > 0 ? t : CLAUDE_DEFAULT_TIMEOUT_S,
          });
        }
      }
    }
  }

  const pre = found.filter((f) => f.event === 'PreToolUse');
  const preAll = pre.filter((f) => ALL_TOOLS_MATCHERS.has(f.matcher) && (!managedOnly || f.scope === 'managed'));
  if (preAll.length > 0) {
    for (const f of preAll) checks.push({ status: 'ok', title: `PreToolUse hook for every tool in ${f.file} (${f.scope})` });
  } else if (pre.length > 0) {
    const f = pre[0]!;
    checks.push({
      status: 'fail',
      title: managedOnly && f.scope !== 'managed'
        ? `the managed settings allow only managed hooks, so asimov's hook in ${f.file} never runs`
        : `asimov's PreToolUse hook in ${f.file} matches only "${f.matcher}", not every tool`,
      fix: 'run `asimov wire claude` (it installs the hook with matcher "*")',
    });
  } else {
    checks.push({
      status: 'fail',
      title: 'no asimov PreToolUse hook in any Claude Code settings file for this directory',
      detail: `looked in ${Object.values(paths).join(', ')}`,
      fix: 'run `asimov wire claude` (user scope) or `asimov wire claude --scope project`',
    });
  }
  if (hooksDisabled) {
    checks.push({ status: 'fail', title: `"disableAllHooks": true in ${hooksDisabled} switches every hook off, asimov's included`, fix: 'remove that setting' });
  }
  if (found.some((f) => f.event === 'PermissionRequest')) checks.push({ status: 'ok', title: 'PermissionRequest hook installed' });
  else if (pre.length > 0) {
    checks.push({ status: 'warn', title: 'no PermissionRequest hook: permission prompts in SDK/stream-json mode are not checked again', fix: 'run `asimov wire claude` again' });
  }

  const hook = preAll[0] ?? pre[0];
  if (hook) checks.push(...(await checkCommandLine(hook, o)));
  if (hook && o.callPath) checks.push(await o.callPath(hook.command));

  checks.push(policyCheck(o));
  return reportOf('claude', 'Claude Code', checks);
}

/** Whether the policy for this directory loads (a broken one makes asimov refuse every call). */
export function policyCheck(o: DoctorOptions): DoctorCheck {
  try {
    return { status: 'ok', title: 'the policy loads', detail: o.loadPolicy() };
  } catch (e) {
    return { status: 'fail', title: 'the policy does not load: every call will be refused', detail: (e as Error).message, fix: 'fix the file named above, then run `asimov policy`' };
  }
}

/** The report and its verdict: protected when no check failed. */
export function reportOf(client: string, label: string, checks: DoctorCheck[]): DoctorReport {
  const ok = !checks.some((c) => c.status === 'fail');
  const verdict = ok
    ? `PROTECTED: ${label} runs asimov before every tool call in this directory, and its failures block.`
    : `NOT PROTECTED: fix the items marked ✗ above; until then ${label} may run tool calls asimov never sees.`;
  return { client, checks, protected: ok, verdict };
}

/** Runs the installed command line twice, as Claude Code would: a call it must deny and one it must not. */
async function checkCommandLine(hook: FoundHook, o: DoctorOptions): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  const deadlineMs = hookDeadlineMs(hook.command);
  if (deadlineMs !== null && hook.timeoutSec * 1000 <= deadlineMs + 2000) {
    out.push({
      status: 'fail',
      title: `the hook's timeout (${hook.timeoutSec} s) does not exceed asimov's deadline (${deadlineMs} ms): Claude Code would give up first and run the tool`,
      fix: 'run `asimov wire claude` again',
    });
  }
  if (!hasWatchdog(hook.command)) {
    out.push({ status: 'warn', title: 'the command line has no watchdog (timeout or perl): a hang inside asimov would end at Claude Code\'s timeout, which runs the tool' });
  }
  const protocol = claudeProtocol({ onAllow: 'approve', defaultCwd: o.cwd });
  out.push(...(await runCommandLine({
    client: 'claude', label: 'Claude Code', command: hook.command, timeoutMs: hook.timeoutSec * 1000,
    env: { ...o.env, CLAUDE_PROJECT_DIR: o.projectRoot },
    payload: (command) => protocol.doctorPayload!(command, o.cwd),
    verdict: protocol.doctorVerdict!,
    place: { scope: hook.scope, file: hook.file },
  }, o)));
  return out;
}

/** Whether the command line starts with the watchdog buildHookCommand puts in front of asimov. */
export function hasWatchdog(command: string): boolean {
  return /^\S*(timeout|perl)['"]? /.test(hookLineCommand(command));
}

export interface CommandLineRun {
  client: string;
  /** The client's name for people: "Claude Code". */
  label: string;
  command: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** The client's payload for its shell tool running a command. */
  payload: (command: string) => unknown;
  /** What the client makes of the hook's reply (HookProtocol.doctorVerdict). */
  verdict: (r: CommandRun) => string;
  /** The config file the line is installed in, and its scope: for the exact command that fixes it. */
  place?: { scope: string; file: string };
}

/** The verdicts that let an everyday call go on: allowed, or left to the client's own flow. */
const PASSES: ReadonlySet<string> = new Set(['allow', 'no opinion']);

/**
 * Runs an installed command line twice, the way the client runs it (a shell, the project as cwd, the payload
 * on stdin): a dangerous call must be blocked, an everyday one must go on. Read as the client reads replies,
 * so a reply asimov meant as a refusal but the client would ignore counts as not blocked.
 */
export async function runCommandLine(c: CommandLineRun, o: DoctorOptions): Promise<DoctorCheck[]> {
  // A config file of the project is anyone's to edit (a cloned repository's), and a line that only carries
  // asimov's marker could run anything: doctor runs no line it would not have written itself.
  if (o.own === null || !isOwnHookCommand(c.command, c.client, o.own, o.env)) {
    const moved = o.own === null ? null : movedInstallCheck(c, o, o.own);
    if (moved) return [moved];
    return [{
      status: 'fail',
      title: 'doctor did not run the installed command line: it is not the one this asimov installs',
      detail: `installed: ${c.command.slice(0, 400)}${o.own ? `\nthis asimov installs: ${o.own.nodePath} ${o.own.asimovPath} hook ${c.client} …` : '\n(this asimov could not find its own entry point)'}`,
      fix: `run \`asimov wire ${c.client}\` (with the scope it was wired at) to install this asimov's own line; doctor never runs a line it would not write itself, since anyone who can edit the file could have put any command there`,
    }];
  }
  const out: DoctorCheck[] = [];
  const run = o.runCommand ?? ((cmd: string, i: string, t: number) => runThroughShell(cmd, i, t, o.cwd, c.env));
  // The payloads are data on stdin: asimov decides on them, nothing runs them.
  const denied = await run(c.command, JSON.stringify(c.payload('rm -rf /')), c.timeoutMs);
  const d = c.verdict(denied);
  if (d === 'deny') out.push({ status: 'ok', title: `the installed command line runs and blocks a dangerous call (${Math.round(denied.ms)} ms)` });
  else {
    out.push({
      status: 'fail',
      title: `the installed command line did not block a dangerous call (got: ${d})`,
      detail: (denied.stderr || denied.stdout).trim().slice(0, 500),
      fix: `run \`asimov wire ${c.client}\` again; if it persists, report it`,
    });
  }
  const everyday = await run(c.command, JSON.stringify(c.payload('git status')), c.timeoutMs);
  const e = c.verdict(everyday);
  if (PASSES.has(e)) out.push({ status: 'ok', title: `an everyday call passes (${e}, ${Math.round(everyday.ms)} ms)` });
  else {
    const why = (everyday.stderr || reasonOf(everyday.stdout)).trim();
    // The command line's own message when node or asimov did not run (the error before it can be long).
    const broken = /the \S+ hook failed \(exit/.test(why);
    out.push({
      status: broken ? 'fail' : 'warn',
      title: broken
        ? `the installed command line fails, so ${c.label} blocks every tool call`
        : `an everyday call (git status) is not allowed (${e}): check the policy`,
      detail: why.slice(0, 500),
      ...(broken ? { fix: `run \`asimov wire ${c.client}\` again (node or asimov may have moved)` } : {}),
    });
  }
  return out;
}

/**
 * A line of asimov's that names another node or asimov than this install's (node or asimov moved, was
 * upgraded or removed): why that matters and the exact command that rewires it, `asimov wire --refresh`
 * when wire recorded the place, else `asimov wire <client> --scope S`. Null for a line of another shape.
 */
export function movedInstallCheck(c: Pick<CommandLineRun, 'client' | 'label' | 'command' | 'place'>, o: Pick<DoctorOptions, 'home' | 'env'>, own: OwnInstall): DoctorCheck | null {
  const named = installedPaths(c.command, c.client);
  if (named === null || (named.nodePath === own.nodePath && named.asimovPath === own.asimovPath)) return null;
  let why: string;
  if (!existsSync(named.nodePath)) why = `the hook runs ${named.nodePath}, which does not exist: every tool call is blocked until rewired`;
  else if (!existsSync(named.asimovPath)) why = `the hook runs asimov from ${named.asimovPath}, which does not exist: every tool call is blocked until rewired`;
  else {
    const which = named.nodePath !== own.nodePath ? `node ${named.nodePath}, not this install's ${own.nodePath}` : `asimov ${named.asimovPath}, not this install's ${own.asimovPath}`;
    why = `the hook runs ${which}: another or an older asimov decides ${c.label}'s calls`;
  }
  const recorded = c.place !== undefined && readWireRecord(wireRecordPath(o.env, o.home)).places.some((p) => p.client === c.client && p.file === c.place!.file);
  const defaultScope = wireTargetFor(c.client)?.scopes[0];
  const command = recorded ? 'asimov wire --refresh' : `asimov wire ${c.client}${c.place && c.place.scope !== defaultScope ? ` --scope ${c.place.scope}` : ''}`;
  return {
    status: 'fail',
    title: why,
    detail: `installed${c.place ? ` in ${c.place.file}` : ''}: ${c.command.slice(0, 400)}\nthis asimov installs: ${own.nodePath} ${own.asimovPath} hook ${c.client} …`,
    fix: `run \`${command}\` (${recorded ? 'it rewires every place wire recorded with this install\'s node and asimov' : 'wire recorded no such place, so name it'}); doctor does not run a line this asimov would not write`,
  };
}

/** The reason in a JSON reply, in the fields the clients use for it; else the output itself. */
function reasonOf(stdout: string): string {
  try {
    const v = JSON.parse(stdout) as {
      hookSpecificOutput?: { permissionDecisionReason?: string };
      permissionDecisionReason?: string; agent_message?: string; reason?: string;
    };
    return String(v.hookSpecificOutput?.permissionDecisionReason ?? v.permissionDecisionReason ?? v.agent_message ?? v.reason ?? '');
  } catch {
    return stdout;
  }
}

/** What doctor keeps of an installed line's output: far more than a hook replies, far less than a runaway line prints. */
const MAX_RUN_OUTPUT_BYTES = 256 * 1024;

/**
 * Runs a command line as clients run hooks: through a shell, in the project, payload on stdin. In its own
 * process group, killed at the timeout and once the shell exits, so a line that leaves a process behind
 * neither survives doctor nor holds it; the output is bounded (head and tail: a watchdog's message comes last).
 */
export async function runThroughShell(command: string, input: string, timeoutMs: number, cwd: string, env: NodeJS.ProcessEnv): Promise<CommandRun> {
  const start = performance.now();
  const stdout = new BoundedOutput(MAX_RUN_OUTPUT_BYTES);
  const stderr = new BoundedOutput(MAX_RUN_OUTPUT_BYTES);
  const r = await runGroup({ file: '/bin/sh', args: ['-c', command], cwd, env, stdin: input, stdout, stderr, timeoutMs, killGraceMs: 0 });
  const ms = performance.now() - start;
  // A shell that did not start: the code Node's 'close' gives then (the negative errno), as doctor always showed.
  if (r.spawnError) return { code: r.spawnError.errno ?? null, stdout: '', stderr: r.spawnError.message, ms };
  return { code: r.exitCode, stdout: stdout.text(), stderr: stderr.text(), ms };
}
