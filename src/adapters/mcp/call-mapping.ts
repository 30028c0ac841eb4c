// An MCP tools/call as the gate sees it. Most tools stay what they are (`mcp`, named
// `mcp__<server>__<tool>`, judged by the MCP rules and by the paths and URLs in their arguments). Two kinds
// are recognised so that the policy can read them as well as it reads an agent's own tools: tools that run
// a shell command (their command goes through the shell analysis, stdin and working directory included),
// and file tools (their path arguments are classified as reads, writes or edits).

import { basename, dirname, resolve } from 'node:path';
import type { ToolCall, ToolKind } from '../../core/types.ts';
import { extractPaths, type McpRequestMethod } from '../../core/tools.ts';
import { SHELL_TOOL_NAMES, nameWords, shellLine } from '../../policy/rules/mcp.ts';
import type { ToolDef } from './tool-guard.ts';

/** Tool names of servers that run whatever command they are given (shared with the hook's rule, mcp.carried-command). */
export { SHELL_TOOL_NAMES, shellLine } from '../../policy/rules/mcp.ts';

/** Argument names that hold the command line of a shell tool, most specific first. */
const COMMAND_KEYS = ['command', 'cmd', 'shell_command', 'commandLine', 'command_line', 'script'];
/** The names schema detection accepts (a required string property): the brief's list, kept narrow on purpose. */
const SCHEMA_COMMAND_KEYS = ['command', 'cmd', 'script', 'shell_command'];
/** Argument names that hold the directory the command runs in. */
const WORKDIR_KEYS = ['workdir', 'cwd', 'working_directory', 'workingDirectory', 'directory', 'dir'];

/**
 * Tool names of file servers (the reference server-filesystem and look-alikes) and the kind each is to
 * the policy. Deleting tools are not here: they stay MCP tools, whose destructive names need a person.
 */
const FILE_TOOL_KINDS: ReadonlyMap<string, ToolKind> = new Map<string, ToolKind>([
  ['read_file', 'read'], ['read_text_file', 'read'], ['read_media_file', 'read'], ['read_multiple_files', 'read'],
  ['read_files', 'read'], ['get_file_info', 'read'], ['get_file_contents', 'read'], ['view_file', 'read'],
  ['list_directory', 'search'], ['list_directory_with_sizes', 'search'], ['directory_tree', 'search'],
  ['search_files', 'search'], ['list_files', 'search'],
  ['write_file', 'write'], ['create_file', 'write'], ['create_directory', 'write'], ['move_file', 'write'],
  ['copy_file', 'write'], ['write_to_file', 'write'],
  ['edit_file', 'edit'], ['replace_in_file', 'edit'], ['str_replace', 'edit'], ['apply_patch', 'edit'],
]);

export interface CallContext {
  /** The short name of the upstream: the `<server>` in `mcp__<server>__<tool>`. */
  server: string;
  /** The proxy's working directory (absolute): where relative paths and commands resolve. */
  cwd: string;
  projectRoot?: string;
  /** More shell tool names, from the policy (`mcp.shellTools`). */
  shellTools?: readonly string[];
  sessionId?: string;
}

/** Snake names already worked out: a server has a handful of tools, and the proxy maps every call's name. */
const snakeNames = new Map<string, string>();
const MAX_SNAKE_NAMES = 1024;

/** A tool name as snake_case words: `runCommand`, `run-command` and `RUN_COMMAND` are all `run_command`. */
function snakeName(name: string): string {
  let snake = snakeNames.get(name);
  if (snake === undefined) {
    snake = nameWords(name).join('_');
    if (snakeNames.size >= MAX_SNAKE_NAMES) snakeNames.clear();
    snakeNames.set(name, snake);
  }
  return snake;
}

/** How a shell tool's arguments hold its command, or null when the tool does not run commands. */
export function shellCommandKey(name: string, def: ToolDef | undefined, extra: readonly string[] = [], snake = snakeName(name)): string | null {
  const listed = SHELL_TOOL_NAMES.includes(snake) || extra.includes(name) || extra.includes(snake);
  const props = schemaProperties(def);
  if (listed) return COMMAND_KEYS.find((k) => props?.[k] !== undefined) ?? COMMAND_KEYS[0]!;
  const required = requiredOf(def);
  for (const k of SCHEMA_COMMAND_KEYS) {
    const p = props?.[k] as Record<string, unknown> | undefined;
    if (p && required.includes(k) && (p['type'] === 'string' || (Array.isArray(p['type']) && p['type'].includes('string')))) return k;
  }
  return null;
}

function schemaProperties(def: ToolDef | undefined): Record<string, unknown> | null {
  const schema = def?.inputSchema as Record<string, unknown> | undefined;
  const props = schema && typeof schema === 'object' ? schema['properties'] : undefined;
  return props && typeof props === 'object' && !Array.isArray(props) ? (props as Record<string, unknown>) : null;
}

function requiredOf(def: ToolDef | undefined): string[] {
  const schema = def?.inputSchema as Record<string, unknown> | undefined;
  const req = schema && typeof schema === 'object' ? schema['required'] : undefined;
  return Array.isArray(req) ? req.filter((x): x is string => typeof x === 'string') : [];
}

/** The kind a file tool is to the policy, when it is one and names a path the policy can classify. */
export function fileToolKind(name: string, args: Record<string, unknown>, snake = snakeName(name)): ToolKind | null {
  const kind = FILE_TOOL_KINDS.get(snake);
  if (!kind) return null;
  return extractPaths(kind, args).length > 0 ? kind : null;
}

/** The gate's view of one tools/call. */
export function toToolCall(name: string, rawArgs: unknown, def: ToolDef | undefined, ctx: CallContext, callId: string): ToolCall {
  const args = rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? (rawArgs as Record<string, unknown>) : {};
  const call: ToolCall = {
    tool: 'mcp',
    clientTool: `mcp__${ctx.server}__${name}`,
    input: args,
    cwd: ctx.cwd,
    agent: 'mcp-proxy',
    callId,
  };
  if (ctx.projectRoot !== undefined) call.projectRoot = ctx.projectRoot;
  if (ctx.sessionId !== undefined) call.sessionId = ctx.sessionId;

  const snake = snakeName(name);
  const key = shellCommandKey(name, def, ctx.shellTools, snake);
  if (key !== null) {
    call.tool = 'shell';
    const line = shellLine(args, key);
    // Without a command string the shell classifier answers `unknown` (tool.bad-input): refused, never allowed.
    call.input = line === null ? { ...args, command: undefined } : { ...args, command: line };
    const wd = WORKDIR_KEYS.map((k) => args[k]).find((v): v is string => typeof v === 'string' && v !== '');
    if (wd !== undefined) call.cwd = resolve(ctx.cwd, wd);
    return call;
  }
  const kind = fileToolKind(name, args, snake);
  if (kind !== null) call.tool = kind;
  return call;
}

// ---------------------------------------------------------------------------------------------------------
// The upstream's short name, when `--name` does not give it.

/** Words that say nothing about which server it is. */
const GENERIC = new Set(['index', 'main', 'server', 'cli', 'dist', 'build', 'lib', 'src', 'bin', 'out', 'app', 'mcp', 'run', 'start', '__main__']);
/** Programs that run another program named by their first argument that is not an option. */
const RUNNERS = new Set([
  'npx', 'bunx', 'uvx', 'pipx', 'node', 'nodejs', 'bun', 'deno', 'python', 'python3', 'uv', 'pnpm', 'yarn', 'npm',
  'docker', 'podman', 'ts-node', 'tsx', 'go', 'cargo', 'java', 'ruby', 'php', 'env', 'sudo',
]);
/** Words runners put before the program (`uv run`, `pnpm dlx`, `docker run`, `npm exec`). */
const RUNNER_VERBS = new Set(['run', 'dlx', 'exec', 'x', 'tool']);
/** Options of docker/podman run and friends that take a value (the value is not the image). */
const VALUE_OPTIONS = new Set([
  '-e', '--env', '-v', '--volume', '--name', '-p', '--publish', '--network', '--entrypoint', '-w', '--workdir', '-u',
  '--user', '--mount', '--env-file', '--memory', '--platform', '--from', '--with', '-c', '--package', '--python',
]);

/** A name fit for `mcp__<server>__…`: letters, digits, `-` and `_`, never a double underscore. */
export function sanitizeServerName(s: string): string {
  const clean = s.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/_{2,}/g, '_').replace(/-{2,}/g, '-').replace(/^[-_]+|[-_]+$/g, '');
  return clean === '' ? 'upstream' : clean;
}

function stripAffixes(s: string): string {
  let n = s.toLowerCase().replace(/\.(m?[jt]s|cjs|py|rb|sh|exe)$/, '');
  n = n.replace(/^(mcp[-_]server[-_]|server[-_]|mcp[-_])/, '').replace(/([-_]mcp[-_]server|[-_]server[-_]mcp|[-_]server|[-_]mcp)$/, '');
  return n;
}

/** The telling part of a program or package word: `@scope/server-x` → `x`, `/a/x-mcp/dist/index.js` → `x`. */
function telling(word: string): string | null {
  const w = word.replace(/(?<=.)@[^/@]*$/, '').replace(/:[^/]*$/, ''); // a package version, an image tag
  const parts = w.split(/[\\/]/).filter((p) => p !== '' && p !== '.' && p !== '..');
  for (let i = parts.length - 1; i >= 0; i--) {
    const stripped = stripAffixes(parts[i]!);
    if (stripped !== '' && !GENERIC.has(stripped) && !/^node_modules$|^@/.test(parts[i]!)) return stripped;
  }
  return null;
}

/** A short name for an upstream started as `command args…`, or reached at a URL. */
export function deriveServerName(spec: { command: string; args: readonly string[] } | { url: string }): string {
  if ('url' in spec) return sanitizeServerName(urlName(spec.url));
  const words = [spec.command, ...spec.args];
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    const prog = basename(w).toLowerCase();
    if (i === 0 && !RUNNERS.has(prog)) break;
    if (i > 0 && (w.startsWith('-') || RUNNER_VERBS.has(w) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w))) {
      i += VALUE_OPTIONS.has(w) ? 2 : 1;
      continue;
    }
    if (i > 0 && !RUNNERS.has(prog)) break;
    i++;
  }
  const target = words[i] ?? spec.command;
  const name = telling(target) ?? telling(dirname(target)) ?? telling(spec.command);
  return sanitizeServerName(name ?? 'upstream');
}

function urlName(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'upstream';
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || /^[\d.]+$/.test(host) || host.includes(':')) return u.port ? `localhost-${u.port}` : 'localhost';
  const labels = host.split('.').filter((l) => !['www', 'api', 'mcp', 'server'].includes(l));
  if (labels.length > 1) labels.pop(); // the top-level domain
  return labels.join('-') || host;
}

// ---------------------------------------------------------------------------------------------------------
// MCP requests other than tools/call (core/tools.ts MCP_REQUESTS): `prompts/get`, `resources/read` and
// `completion/complete` reach the gate as the MCP call `mcp__<server>__<method>`, the request's params
// (without `_meta`) as the input. policy/rules/mcp.ts judges them: a prompt or resource that carries a
// command is judged as that command, file URIs as reads, the rest as data.

/** The gate's view of one prompts/get, resources/read or completion/complete. */
export function toRequestCall(method: McpRequestMethod, rawParams: unknown, ctx: CallContext, callId: string): ToolCall {
  const params = rawParams && typeof rawParams === 'object' && !Array.isArray(rawParams) ? (rawParams as Record<string, unknown>) : {};
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) if (k !== '_meta') input[k] = v;
  const call: ToolCall = { tool: 'mcp', clientTool: `mcp__${ctx.server}__${method}`, input, cwd: ctx.cwd, agent: 'mcp-proxy', callId };
  if (ctx.projectRoot !== undefined) call.projectRoot = ctx.projectRoot;
  if (ctx.sessionId !== undefined) call.sessionId = ctx.sessionId;
  return call;
}
