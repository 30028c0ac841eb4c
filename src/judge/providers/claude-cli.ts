// The `claude -p` back-end: the Claude Code CLI the user already has, with its login. One headless run per
// call, in an empty scratch directory, with no tools, no hooks, no CLAUDE.md, no MCP servers and no
// session saved; the verdict comes back as structured output (`--json-schema`). Verified with 2.1.330:
// - `--json-schema` makes the CLI offer a StructuredOutput tool and report its input as
//   `structured_output` in the `--output-format json` result;
// - the CLI runs PreToolUse hooks on that tool call, so an installed asimov hook would call this judge
//   again, recursively: `--settings '{"disableAllHooks":true}'` stops every hook from user and project
//   settings, and ASIMOV_JUDGE_CHILD=1 turns the judge off in any asimov that still runs inside;
// - without CLAUDE_CODE_DISABLE_CLAUDE_MDS=1 the CLI puts ~/.claude/CLAUDE.md and the cwd's CLAUDE.md in
//   front of the prompt as instructions that "OVERRIDE any default behavior", a channel a repository controls;
// - API failures come back as `is_error: true` with `api_error_status`; CLAUDE_CODE_MAX_RETRIES=0 stops its
//   own retries, so the factory's single retry and deadline hold.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { findExecutable, isExecutable } from '../../core/executables.ts';
import { JUDGE_CHILD_ENV } from '../switch.ts';
import { parseVerdictText, parseVerdictValue, VERDICT_JSON_SCHEMA, type ParsedVerdict } from '../parse.ts';
import { failure, type ProviderReply, type ProviderRequest, type Usage } from './provider.ts';

/** Names the binary explicitly (an absolute path) instead of looking `claude` up on PATH. */
export const CLAUDE_BIN_ENV = 'ASIMOV_CLAUDE_BIN';
const MAX_OUTPUT_BYTES = 1024 * 1024;

/** The `claude` binary: $ASIMOV_CLAUDE_BIN when set, else the first executable `claude` on the env's PATH. */
export function findClaudeBinary(env: NodeJS.ProcessEnv): string | undefined {
  const explicit = env[CLAUDE_BIN_ENV]?.trim();
  if (explicit) return isAbsolute(explicit) && isExecutable(explicit) ? explicit : undefined;
  return findExecutable('claude', env) ?? undefined;
}

export function claudeArgs(req: Pick<ProviderRequest, 'prompt' | 'model'>): string[] {
  return [
    '-p',
    '--model', req.model,
    '--system-prompt', req.prompt.system,
    '--tools', '',
    '--output-format', 'json',
    '--json-schema', JSON.stringify(VERDICT_JSON_SCHEMA),
    '--no-session-persistence',
    '--settings', '{"disableAllHooks":true}',
    '--strict-mcp-config',
    '--disable-slash-commands',
    // The prompt after `--`, so no text of it is ever read as an option.
    '--',
    req.prompt.user,
  ];
}

export async function askClaudeCli(req: ProviderRequest): Promise<ProviderReply> {
  const bin = findClaudeBinary(req.env);
  if (!bin) {
    const where = req.env[CLAUDE_BIN_ENV] ? `${CLAUDE_BIN_ENV}=${req.env[CLAUDE_BIN_ENV]} is not an executable absolute path` : 'no `claude` on PATH';
    return failure('judge_missing_binary', `the claude-cli judge needs the Claude Code CLI: ${where}`);
  }
  const env: NodeJS.ProcessEnv = {
    ...req.env,
    [JUDGE_CHILD_ENV]: '1',
    CLAUDE_CODE_DISABLE_CLAUDE_MDS: '1',
    CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  if (req.baseUrl) env.ANTHROPIC_BASE_URL = req.baseUrl;
  // An empty directory: nothing of the agent's project (CLAUDE.md, .claude/, .mcp.json) is found from it.
  let cwd: string;
  try {
    cwd = mkdtempSync(join(tmpdir(), 'asimov-judge-'));
  } catch (e) {
    return failure('judge_internal', `cannot make a scratch directory for the claude-cli judge: ${(e as Error).message}`);
  }
  try {
    const run = await runCli(bin, claudeArgs(req), env, cwd, req.timeoutMs, req.signal);
    return readRun(run);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Killed because the budget ran out or the caller gave up. */
  killed: boolean;
  spawnError?: NodeJS.ErrnoException;
}

function runCli(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<CliRun> {
  return new Promise((resolve) => {
    let killed = false;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    // Its own process group, so that whatever it starts dies with it.
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const kill = () => {
      if (killed) return;
      killed = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(kill, Math.max(1, timeoutMs));
    signal.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (c: Buffer) => {
      if (outBytes < MAX_OUTPUT_BYTES) out.push(c);
      outBytes += c.length;
    });
    child.stderr.on('data', (c: Buffer) => {
      if (errBytes < 64 * 1024) err.push(c);
      errBytes += c.length;
    });
    let spawnError: NodeJS.ErrnoException | undefined;
    child.on('error', (e) => {
      spawnError = e as NodeJS.ErrnoException;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      const run: CliRun = { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), killed };
      if (spawnError) run.spawnError = spawnError;
      resolve(run);
    });
  });
}

function readRun(run: CliRun): ProviderReply {
  if (run.spawnError) {
    const code = run.spawnError.code;
    if (code === 'ENOENT' || code === 'EACCES') return failure('judge_missing_binary', `the Claude Code CLI could not be started: ${run.spawnError.message}`);
    return failure('judge_internal', `the Claude Code CLI could not be started: ${run.spawnError.message}`);
  }
  if (run.killed) return failure('judge_timeout', 'the judge (claude -p) did not answer within its time budget and was stopped');
  let result: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(run.stdout.trim());
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    result = v as Record<string, unknown>;
  } catch {
    const detail = (run.stderr.trim() || run.stdout.trim()).slice(0, 300);
    return failure('judge_cli_error', `claude -p exited with ${run.code} without a JSON result${detail ? `: ${detail}` : ''}`);
  }
  const usage = usageOf(result.usage);
  if (result.is_error === true) {
    const status = result.api_error_status;
    const text = typeof result.result === 'string' ? result.result.slice(0, 300) : String(result.subtype ?? 'error');
    if (typeof status === 'number') {
      return failure(`judge_http_${status}`, `claude -p: ${text}`, { retryable: status === 429 || status >= 500 });
    }
    return failure('judge_cli_error', `claude -p failed: ${text}`);
  }
  let parsed: ParsedVerdict;
  if (result.structured_output !== undefined && result.structured_output !== null) parsed = parseVerdictValue(result.structured_output);
  else if (typeof result.result === 'string') parsed = parseVerdictText(result.result);
  else parsed = { ok: false, problem: 'claude -p gave no result' };
  return usage ? { kind: 'answer', parsed, usage } : { kind: 'answer', parsed };
}

function usageOf(u: unknown): Usage | undefined {
  if (u === null || typeof u !== 'object') return undefined;
  const { input_tokens: i, output_tokens: o } = u as { input_tokens?: unknown; output_tokens?: unknown };
  return typeof i === 'number' && typeof o === 'number' ? { inputTokens: i, outputTokens: o } : undefined;
}
