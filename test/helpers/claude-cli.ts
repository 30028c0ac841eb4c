// Runs the real Claude Code CLI (node_modules/.bin/claude, a native binary) headless against a scripted
// model server, in a scratch HOME and a scratch project, with an environment built from nothing so that
// the developer's own login, settings and proxies never leak in.
//
// Verified with 2.1.330 (test/e2e/claude-harness.test.ts proves each point):
// - `-p` with no extra flags loads hooks from <HOME>/.claude/settings.json AND <cwd>/.claude/settings.json
//   (where `asimov wire claude` writes); both files' hooks fire for the same call.
// - The workspace trust dialog is skipped in -p mode: no ~/.claude.json or onboarding state is needed.
// - Plain -p: a PreToolUse "ask" is a denial; its reason is the model's error tool_result and the call is
//   listed in the result's permission_denials. PermissionRequest hooks do not fire.
// - SDK mode (`-p --input-format stream-json --output-format stream-json --verbose --permission-prompt-tool
//   stdio`): a PreToolUse "ask" sends the call to a `can_use_tool` control request on stdout (with
//   decision_reason = the hook's reason, decision_reason_type "hook", tool_use_id), and a configured
//   PermissionRequest hook fires too. The two race: the first answer wins, and when the hook wins the CLI
//   sends the host a `control_cancel_request`. A control_response allow runs the tool; deny does not, and
//   the deny message is the model's error tool_result.
// - The model's requests carry `role: "system"` entries inside `messages`; anthropic-server's step count
//   ignores them.
// - WebFetch first asks https://api.anthropic.com/api/web/domain_info (the "preflight") and fails with
//   "Unable to verify if domain … is safe" when that fails; settings `skipWebFetchPreflight: true`
//   (user settings, project settings or --settings all work) sends it straight to the URL. It honours
//   HTTPS_PROXY/https_proxy (CONNECT) and upgrades http: URLs to https: first.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stopDaemonFor } from './daemon.ts';

export interface ClaudeRunOptions {
  home: string; cwd: string; baseUrl: string; prompt: string;
  allowedTools?: string[]; args?: string[]; env?: Record<string, string>;
  timeoutMs?: number;           // default 60000; kills the whole process group when passed
}
export interface ClaudeRunResult { code: number | null; signal: string | null; stdout: string; stderr: string; json: any | null; ms: number }

export const CLAUDE_BIN: string = realpathSync(resolve(import.meta.dirname, '../../node_modules/.bin/claude'));

const DEFAULT_TIMEOUT_MS = 60_000;

/** Settings that send WebFetch straight to its URL instead of first asking api.anthropic.com (see above). */
export const WEBFETCH_DIRECT_SETTINGS = { skipWebFetchPreflight: true } as const;

export function claudeEnv(o: { home: string; baseUrl: string; extra?: Record<string, string> }): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: o.home,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    // Claude Code keeps per-project task output and sockets under its temp dir (/tmp/claude-<uid>/… by
    // default); pointing both at the scratch HOME keeps every trace of a run inside the scratch tree.
    TMPDIR: join(o.home, '.tmp'),
    CLAUDE_CODE_TMPDIR: join(o.home, '.tmp'),
    // Without this, a test that sets HTTPS_PROXY/HTTP_PROXY (to watch WebFetch) would also send the model
    // requests to 127.0.0.1 through that proxy, and the CLI keeps retrying the refused requests (seen: still
    // retrying when killed after 40 s).
    NO_PROXY: '127.0.0.1,localhost,::1',
    no_proxy: '127.0.0.1,localhost,::1',
    ANTHROPIC_BASE_URL: o.baseUrl,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
  // As root, Claude Code refuses bypass permission modes unless it is told it runs in a sandbox.
  if (process.getuid?.() === 0) env.IS_SANDBOX = '1';
  return { ...env, ...o.extra };
}

export function makeScratch(prefix: string): { root: string; home: string; project: string; cleanup(): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return {
    root, home, project,
    cleanup: () => {
      stopDaemonFor(home);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function baseArgs(o: ClaudeRunOptions): string[] {
  const args: string[] = [];
  if (o.allowedTools?.length) args.push('--allowedTools', o.allowedTools.join(','));
  return [...args, ...(o.args ?? [])];
}

function parseJson(text: string): any | null {
  try { return JSON.parse(text.trim()); } catch { return null; }
}

interface Spawned {
  child: ReturnType<typeof spawn>;
  done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; ms: number }>;
}

/**
 * Starts the CLI in its own process group; the group is SIGKILLed when the timeout passes, so a hung
 * CLI (or a hook or MCP server it started) never outlives the test.
 */
function spawnClaude(o: ClaudeRunOptions, args: string[], stdin: 'ignore' | 'pipe', onStdout?: (chunk: string) => void): Spawned {
  const started = Date.now();
  const env = claudeEnv({ home: o.home, baseUrl: o.baseUrl, extra: o.env });
  if (env.TMPDIR) mkdirSync(env.TMPDIR, { recursive: true });
  if (env.CLAUDE_CODE_TMPDIR) mkdirSync(env.CLAUDE_CODE_TMPDIR, { recursive: true });
  const child = spawn(CLAUDE_BIN, args, {
    cwd: o.cwd,
    env,
    stdio: [stdin, 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (c: string) => { stdout += c; onStdout?.(c); });
  child.stderr!.on('data', (c: string) => { stderr += c; });
  const killGroup = (): void => {
    try { if (child.pid) process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
  };
  const timer = setTimeout(() => {
    stderr += `\n[claude-cli harness] timed out after ${o.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms; killed the process group\n`;
    killGroup();
  }, o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; ms: number }>((resolveDone) => {
    child.on('error', (err) => { stderr += `\n[claude-cli harness] spawn failed: ${String(err)}\n`; });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Hooks and MCP servers the CLI left behind die with its group.
      killGroup();
      resolveDone({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
  return { child, done };
}

/** One headless session: `-p <prompt> --output-format json`, stdin /dev/null. */
export async function runClaude(o: ClaudeRunOptions): Promise<ClaudeRunResult> {
  const args = ['-p', o.prompt, '--output-format', 'json', ...baseArgs(o)];
  const r = await spawnClaude(o, args, 'ignore').done;
  return { ...r, json: parseJson(r.stdout) };
}

/** stream-json SDK mode with --permission-prompt-tool stdio: answers each can_use_tool control request with decide(). */
export async function runClaudeStream(o: ClaudeRunOptions & {
  decide: (req: { tool_name: string; input: unknown; raw: any }) => { behavior: 'allow' } | { behavior: 'deny'; message: string };
}): Promise<ClaudeRunResult & { messages: any[]; permissionRequests: any[] }> {
  const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--permission-prompt-tool', 'stdio', ...baseArgs(o)];
  const messages: any[] = [];
  const permissionRequests: any[] = [];
  let pending = '';
  let spawned: Spawned | undefined;

  const write = (obj: unknown): void => {
    const stdin = spawned?.child.stdin;
    if (stdin && !stdin.destroyed && stdin.writable) stdin.write(JSON.stringify(obj) + '\n');
  };

  const onLine = (line: string): void => {
    const msg = parseJson(line);
    if (msg === null) return;
    messages.push(msg);
    if (msg.type === 'control_request' && msg.request?.subtype === 'can_use_tool') {
      permissionRequests.push(msg);
      let answer: Record<string, unknown>;
      try {
        const d = o.decide({ tool_name: msg.request.tool_name, input: msg.request.input, raw: msg });
        answer = d.behavior === 'allow' ? { behavior: 'allow', updatedInput: msg.request.input ?? {} } : { behavior: 'deny', message: d.message };
      } catch (err) {
        answer = { behavior: 'deny', message: `harness decide() threw: ${String(err)}` };
      }
      write({ type: 'control_response', response: { subtype: 'success', request_id: msg.request_id, response: answer } });
    } else if (msg.type === 'control_request') {
      // Nothing else is expected from the CLI; an error answer keeps it from waiting forever.
      write({ type: 'control_response', response: { subtype: 'error', request_id: msg.request_id, error: `harness does not handle ${msg.request?.subtype}` } });
    } else if (msg.type === 'result') {
      // One prompt, one result: closing stdin ends the session.
      spawned?.child.stdin?.end();
    }
  };

  spawned = spawnClaude(o, args, 'pipe', (chunk) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
  });
  spawned.child.stdin!.on('error', () => { /* the CLI may exit before reading everything */ });
  write({ type: 'user', message: { role: 'user', content: o.prompt }, parent_tool_use_id: null, session_id: '' });
  const r = await spawned.done;
  if (pending.trim()) onLine(pending);
  const result = messages.findLast((m) => m?.type === 'result') ?? null;
  return { ...r, json: result, messages, permissionRequests };
}
