// `asimov doctor` for Claude Code: is asimov really in front of every tool call? Reads every settings file
// Claude Code would read for this directory, runs the installed command line the way Claude Code would (a
// shell, a payload on stdin), and checks the things that silently switch protection off: hooks disabled, a
// matcher that misses tools, a client timeout shorter than asimov's deadline, a policy that does not load.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isAsimovHookCommand } from './hook-command.ts';
import { ALL_TOOLS_MATCHERS, claudeSettingsPaths } from './claude.ts';
import { isPlainObject } from '../core/json.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'info';

export interface DoctorCheck {
  status: CheckStatus;
  title: string;
  detail?: string;
  /** What to do about it, when something is wrong. */
  fix?: string;
}

export interface DoctorReport {
  client: 'claude';
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
}

/** Matchers that Claude Code applies to every tool, MCP tools included (notes/claude-code.md). */

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

  try {
    checks.push({ status: 'ok', title: 'the policy loads', detail: o.loadPolicy() });
  } catch (e) {
    checks.push({ status: 'fail', title: 'the policy does not load: every call will be refused', detail: (e as Error).message, fix: 'fix the file named above, then run `asimov policy`' });
  }

  const ok = !checks.some((c) => c.status === 'fail');
  const verdict = ok
    ? 'PROTECTED: Claude Code runs asimov before every tool call in this directory, and its failures block.'
    : 'NOT PROTECTED: fix the items marked ✗ above; until then Claude Code may run tool calls asimov never sees.';
  return { client: 'claude', checks, protected: ok, verdict };
}

/** Runs the installed command line twice, as Claude Code would: a call it must deny and one it must not. */
async function checkCommandLine(hook: FoundHook, o: DoctorOptions): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  const deadline = /--deadline-ms (\d+)/.exec(hook.command);
  const deadlineMs = deadline ? Number(deadline[1]) : null;
  if (deadlineMs !== null && hook.timeoutSec * 1000 <= deadlineMs + 2000) {
    out.push({
      status: 'fail',
      title: `the hook's timeout (${hook.timeoutSec} s) does not exceed asimov's deadline (${deadlineMs} ms): Claude Code would give up first and run the tool`,
      fix: 'run `asimov wire claude` again',
    });
  }
  if (!/^\S*(timeout|perl)['"]? /.test(hook.command)) {
    out.push({ status: 'warn', title: 'the command line has no watchdog (timeout or perl): a hang inside asimov would end at Claude Code\'s timeout, which runs the tool' });
  }
  const env = { ...o.env, CLAUDE_PROJECT_DIR: o.projectRoot };
  const run = o.runCommand ?? ((c: string, i: string, t: number) => runThroughShell(c, i, t, o.cwd, env));
  const payload = (command: string) => JSON.stringify({
    session_id: 'asimov-doctor', transcript_path: '', cwd: o.cwd, permission_mode: 'default', hook_event_name: 'PreToolUse',
    tool_name: 'Bash', tool_input: { command }, tool_use_id: 'asimov-doctor',
  });
  const timeoutMs = hook.timeoutSec * 1000;
  // The payloads are data on stdin: asimov decides on them, nothing runs them.
  const denied = await run(hook.command, payload('rm -rf /'), timeoutMs);
  const verdictOf = (r: CommandRun): string => {
    if (r.code === 2) return 'deny';
    if (r.code !== 0) return `exit ${r.code}`;
    if (r.stdout.trim() === '') return 'no opinion';
    try {
      return String((JSON.parse(r.stdout) as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput?.permissionDecision);
    } catch {
      return 'unparseable output';
    }
  };
  const d = verdictOf(denied);
  if (d === 'deny') out.push({ status: 'ok', title: `the installed command line runs and blocks a dangerous call (${Math.round(denied.ms)} ms)` });
  else {
    out.push({
      status: 'fail',
      title: `the installed command line did not block a dangerous call (got: ${d})`,
      detail: (denied.stderr || denied.stdout).trim().slice(0, 500),
      fix: 'run `asimov wire claude` again; if it persists, report it',
    });
  }
  const everyday = await run(hook.command, payload('git status'), timeoutMs);
  const e = verdictOf(everyday);
  if (e === 'allow' || e === 'no opinion') out.push({ status: 'ok', title: `an everyday call passes (${e}, ${Math.round(everyday.ms)} ms)` });
  else {
    const why = (everyday.stderr || reasonOf(everyday.stdout)).trim().slice(0, 500);
    const broken = /failed \(exit/.test(why);
    out.push({
      status: broken ? 'fail' : 'warn',
      title: broken
        ? 'the installed command line fails, so Claude Code blocks every tool call'
        : `an everyday call (git status) is not allowed (${e}): check the policy`,
      detail: why,
      ...(broken ? { fix: 'run `asimov wire claude` again (node or asimov may have moved)' } : {}),
    });
  }
  return out;
}

function reasonOf(stdout: string): string {
  try {
    return String((JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecisionReason?: string } }).hookSpecificOutput?.permissionDecisionReason ?? '');
  } catch {
    return stdout;
  }
}

/** Runs a command line as Claude Code runs hooks: through a shell, in the project, payload on stdin. */
function runThroughShell(command: string, input: string, timeoutMs: number, cwd: string, env: NodeJS.ProcessEnv): Promise<CommandRun> {
  return new Promise((resolveRun) => {
    const start = performance.now();
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => { stderr += e.message; });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr, ms: performance.now() - start });
    });
    child.stdin.on('error', () => { /* the command may exit before reading */ });
    child.stdin.end(input);
  });
}
