// One command for `asimov serve` (POST /v1/execute, POST /v1/proposals with execute): the gate first, and only
// on `allow` the hardened execution the gated MCP tools use (exec/): a working directory inside the allowed
// roots, the environment cleared to an allowlist, a process group killed on timeout or when the client goes
// away, stdout and stderr bounded in memory. A refused command never starts.

import { realpathSync, statSync } from 'node:fs';
import * as z from 'zod';
import { AsimovError, describeError, errnoOf } from '../core/errors.ts';
import type { Decision } from '../core/types.ts';
import { childEnv } from '../exec/env.ts';
import { runCommandSplit } from '../exec/run-command.ts';
import { canonicalRoots } from '../exec/safe-path.ts';
import { toolsSettings, type ToolsSettings } from '../exec/tools-settings.ts';
import { isWithin } from '../policy/paths.ts';
import { GATED_TOOLS_MAX_TIMEOUT_MS } from '../policy/schema.ts';
import type { ServerDeps } from './deps.ts';
import { HttpError, type RouteContext } from './route.ts';
import { decideFor } from './routes/decide.ts';
import { DecisionSchema } from './schemas.ts';

/** The longest a caller may let one command run, whatever it asks for (the policy's own ceiling). */
export const EXECUTE_MAX_TIMEOUT_MS = GATED_TOOLS_MAX_TIMEOUT_MS;

const absolute = (what: string) => z.string().min(1).max(4096).refine((s) => s.startsWith('/'), `${what} must be an absolute path`);

/** What the caller may ask of one run, besides the command (shared with /v1/proposals). */
export const RunFieldsSchema = z.object({
  cwd: absolute('cwd').describe('The directory the command runs in: absolute, inside the server\'s allowed roots (its own working directory and the policy\'s tools.roots)'),
  stdin: z.string().optional().describe('Written to the command\'s stdin, which is then closed; without it stdin is empty (/dev/null)'),
  timeoutMs: z.number().int().min(1).optional().describe(`Stop the command (its whole process group) after this many milliseconds; default the policy's tools.timeoutMs (120 s unless set), at most ${EXECUTE_MAX_TIMEOUT_MS} (10 minutes)`),
  sessionId: z.string().max(200).optional().describe('The caller\'s session, recorded in the audit log and used by session-scoped rules'),
  agent: z.string().max(200).optional().describe('Who proposed the command (default "api"), recorded in the audit log'),
});

export const ExecuteBodySchema = RunFieldsSchema.extend({
  command: z.string().min(1).max(100_000).describe('The command line, run as `bash -c <command>` (no login or rc files)'),
}).strict();
export type ExecuteBody = z.infer<typeof ExecuteBodySchema>;

/** The run's part of an answer; every field is null when the command did not run. */
export const ExecutionFieldsSchema = z.object({
  executed: z.boolean().describe('Whether the command was started (only an `allow` starts it)'),
  exitCode: z.number().int().nullable().describe('The exit code, or null when a signal ended the shell or nothing ran'),
  signal: z.string().nullable().describe('The signal that ended the shell (SIGTERM/SIGKILL after a timeout), or null'),
  stdout: z.string().nullable().describe('Standard output: all of it, or its head and tail with a marker where bytes were dropped'),
  stderr: z.string().nullable(),
  truncated: z.boolean().nullable().describe('Whether bytes of stdout or stderr were dropped (each keeps its first and last halves of the limit)'),
  timedOut: z.boolean().nullable(),
  timeoutMs: z.number().int().nullable().describe('The time limit that applied'),
  durationMs: z.number().nullable(),
});

export const ExecuteAnswerSchema = ExecutionFieldsSchema.extend({ decision: DecisionSchema });
export type ExecutionFields = z.infer<typeof ExecutionFieldsSchema>;
export type ExecuteAnswer = z.infer<typeof ExecuteAnswerSchema>;

export const NOT_EXECUTED: ExecutionFields = {
  executed: false, exitCode: null, signal: null, stdout: null, stderr: null, truncated: null, timedOut: null, timeoutMs: null, durationMs: null,
};

type Ctx = Pick<RouteContext<unknown, unknown, unknown>, 'principal' | 'signal'>;

/**
 * The settings that apply to a command run by this server: the policy of the server's own directory (never
 * the request's: a caller cannot choose its roots), with the server's working directory as the first root.
 * Throws when that policy cannot be loaded; the gate refuses every call then.
 */
function settingsOf(deps: ServerDeps): ToolsSettings {
  const fixedRoots = canonicalRoots([deps.cwd], deps.cwd);
  return toolsSettings(deps.gate.policyFor(deps.cwd).gatedTools, { fixedRoots, base: deps.cwd });
}

/**
 * The request's working directory as the kernel will see it (links resolved), checked to be an existing
 * directory inside the allowed roots. The command is decided and run at this path, so what the gate read
 * is where it runs.
 */
function checkedCwd(cwd: string, roots: readonly string[]): string {
  let real: string;
  try {
    real = realpathSync.native(cwd);
  } catch (e) {
    throw new HttpError(400, 'bad_cwd', `The working directory ${cwd} cannot be used: ${errnoOf(e) === 'ENOENT' ? 'it does not exist' : describeError(e)}.`);
  }
  let isDir = false;
  try {
    isDir = statSync(real).isDirectory();
  } catch {
    // Removed since realpath found it: not a directory to run in either.
  }
  if (!isDir) throw new HttpError(400, 'bad_cwd', `The working directory ${cwd} is not a directory.`);
  if (!roots.some((r) => isWithin(r, real))) {
    const via = real === cwd ? '' : ` (it resolves to ${real})`;
    throw new HttpError(403, 'cwd_outside_roots', `The working directory ${cwd}${via} is outside the directories this server runs commands in: ${roots.join(', ')}. Add it to the policy's tools.roots, or start asimov serve there.`);
  }
  return real;
}

/**
 * The gate, then (on `allow` only) the run. A cwd outside the roots is refused before the gate (HTTP 403,
 * nothing decided, nothing run); once decided, the answer says whether the command ran and how it ended.
 */
export async function executeCommand(deps: ServerDeps, body: ExecuteBody, ctx: Ctx): Promise<ExecuteAnswer> {
  let settings: ToolsSettings | undefined;
  try {
    settings = settingsOf(deps);
  } catch {
    // A broken policy: the gate below refuses (its error decision), so no roots are needed.
    settings = undefined;
  }
  const cwd = settings ? checkedCwd(body.cwd, settings.roots) : body.cwd;
  const decision: Decision = await decideFor(
    deps,
    {
      tool: 'shell',
      input: { command: body.command },
      cwd,
      ...(body.sessionId !== undefined ? { sessionId: body.sessionId } : {}),
      ...(body.agent !== undefined ? { agent: body.agent } : {}),
    },
    ctx,
  );
  if (decision.verdict !== 'allow') return { decision, ...NOT_EXECUTED };
  if (!settings) {
    // Only reachable if the gate allowed under a policy this module could not read: refuse rather than guess.
    throw new HttpError(500, 'policy_error', 'The policy\'s tools settings could not be loaded, so the allowed command was not run.', { decision });
  }
  const timeoutMs = Math.min(body.timeoutMs ?? settings.timeoutMs, EXECUTE_MAX_TIMEOUT_MS);
  const start = performance.now();
  try {
    const r = await runCommandSplit({
      command: body.command,
      cwd,
      env: childEnv(deps.env, settings.env),
      timeoutMs,
      maxOutputBytes: settings.maxOutputBytes,
      signal: ctx.signal,
      ...(body.stdin !== undefined ? { stdin: body.stdin } : {}),
    });
    return {
      decision,
      executed: true,
      exitCode: r.exitCode,
      signal: r.signal,
      stdout: r.stdout,
      stderr: r.stderr,
      truncated: r.droppedBytes > 0,
      timedOut: r.timedOut,
      timeoutMs,
      durationMs: Math.round(performance.now() - start),
    };
  } catch (e) {
    if (e instanceof AsimovError && e.code === 'exec_failed') throw new HttpError(500, 'exec_failed', e.message, { decision });
    throw e;
  }
}
