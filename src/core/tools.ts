// Client tool names and arguments, normalized: which kind of action a call is, and the command, paths and URLs in it.

import type { ToolKind } from './types.ts';

export interface NormalizedTool {
  /**
   * The input the policy judges, when it is not the client's own: Claude Code's `SlashCommand` naming an MCP
   * prompt becomes the prompt request it sends (see claudeMcpRequest). Absent: the client's input as it is.
   */
  input?: Record<string, unknown>;
  /** Our kind for the tool, or the client's raw name when it is not one we map (internal or unknown tools). */
  tool: ToolKind | string;
  /** True when the name was recognised (a mapped tool, or a known harmless internal tool). */
  known: boolean;
  /** For MCP tools: the server and the tool name on that server. */
  mcp?: { server: string; tool: string };
  /**
   * Set when the call is to asimov's own gated MCP tools (`asimov mcp tools`, registered as server
   * `asimov`): judged as the shell or file action it performs, and the action is named here.
   */
  ownTool?: OwnToolName;
}

/**
 * The server name `asimov wire` registers `asimov mcp tools` under, and the tools it offers with the
 * kind of action each performs. A hook that sees `mcp__asimov__bash` judges a shell command, not an
 * opaque MCP call: that is what the tool will run (after deciding again, see src/gate/hook-approvals.ts).
 */
export const OWN_MCP_SERVER = 'asimov';
export const OWN_MCP_TOOLS = { bash: 'shell', read: 'read', write: 'write', edit: 'edit' } as const satisfies Record<string, ToolKind>;
export type OwnToolName = keyof typeof OWN_MCP_TOOLS;

function ownToolOf(mcp: { server: string; tool: string }): OwnToolName | undefined {
  if (mcp.server !== OWN_MCP_SERVER || !Object.hasOwn(OWN_MCP_TOOLS, mcp.tool)) return undefined;
  return mcp.tool as OwnToolName;
}

/** Which own tool a client's tool name is (`mcp__asimov__bash`, Gemini's `mcp_asimov_bash`), if any. */
export function ownToolOfClientName(clientTool: string | undefined): OwnToolName | null {
  const m = clientTool ? parseMcpName(clientTool) : null;
  return (m && ownToolOf(m)) ?? null;
}

/*
 * Names per client (see notes/claude-code.md and notes/agent-clis.md):
 * Claude Code: Bash, Write, Edit, MultiEdit, NotebookEdit, Read, NotebookRead, Glob, Grep, LS, WebFetch,
 * WebSearch, mcp__<server>__<tool>. Gemini CLI / Qwen Code: run_shell_command, write_file, replace, read_file,
 * read_many_files, list_directory, glob, search_file_content, web_fetch, google_web_search, mcp_<server>_<tool>.
 * Codex: Bash / shell / exec_command / local_shell, apply_patch. Factory Droid: Execute, Create, Edit,
 * ApplyPatch. Copilot CLI, OpenCode, Cline, Cursor: bash, write, edit, read, view, create, … (lower case).
 * Copilot CLI 1.0.102 offers bash, view, create, edit, apply_patch, grep (rg for some models), glob, task and
 * session tools (read_bash, stop_bash, list_bash, read_agent, list_agents, write_agent, skill, sql).
 */
const KIND_BY_NAME: ReadonlyMap<string, ToolKind> = new Map<string, ToolKind>([
  // shell
  ['Bash', 'shell'], ['run_shell_command', 'shell'], ['shell', 'shell'], ['exec_command', 'shell'],
  ['local_shell', 'shell'], ['container.exec', 'shell'], ['Execute', 'shell'], ['bash', 'shell'],
  ['execute', 'shell'], ['execute_command', 'shell'], ['run_terminal_cmd', 'shell'], ['run_command', 'shell'],
  ['Shell', 'shell'],
  // Kimi CLI (its docs): WriteFile, StrReplaceFile, ReadFile, SearchWeb, FetchURL.
  ['WriteFile', 'write'], ['StrReplaceFile', 'edit'], ['ReadFile', 'read'], ['SearchWeb', 'search'], ['FetchURL', 'fetch'],
  // write (create or overwrite a whole file)
  ['Write', 'write'], ['write_file', 'write'], ['Create', 'write'], ['write', 'write'], ['create', 'write'],
  ['create_file', 'write'], ['write_to_file', 'write'],
  // edit (change part of a file)
  ['Edit', 'edit'], ['MultiEdit', 'edit'], ['NotebookEdit', 'edit'], ['replace', 'edit'], ['edit', 'edit'],
  ['multiedit', 'edit'], ['edit_file', 'edit'], ['str_replace', 'edit'], ['replace_in_file', 'edit'],
  ['apply_patch', 'edit'], ['ApplyPatch', 'edit'], ['patch', 'edit'],
  // Cursor: StrReplace and EditNotebook change part of a file; Delete removes one, judged by the same path rules.
  ['StrReplace', 'edit'], ['EditNotebook', 'edit'], ['Delete', 'edit'],
  // read
  ['Read', 'read'], ['NotebookRead', 'read'], ['read_file', 'read'], ['read_many_files', 'read'],
  ['read', 'read'], ['view', 'read'],
  // search: read-only listings and searches, local or on the web
  ['Glob', 'search'], ['Grep', 'search'], ['LS', 'search'], ['list_directory', 'search'], ['glob', 'search'],
  ['search_file_content', 'search'], ['grep_search', 'search'], ['grep', 'search'], ['ls', 'search'], ['list', 'search'],
  ['list_files', 'search'], ['search_files', 'search'], ['codebase_search', 'search'], ['rg', 'search'],
  ['WebSearch', 'search'], ['google_web_search', 'search'], ['web_search', 'search'], ['websearch', 'search'],
  // fetch
  ['WebFetch', 'fetch'], ['web_fetch', 'fetch'], ['webfetch', 'fetch'], ['fetch', 'fetch'],
  // already normalized (the MCP proxy, the HTTP API and the CLI may send our own kinds)
  ['mcp', 'mcp'],
]);

/**
 * Clients' own tools that change nothing outside the agent's session: planning, to-do lists, sub-agents
 * (whose own tool calls pass the gate again), reading a background shell's output. They keep their names
 * and the `tool.internal` rule allows them. Not here on purpose: Gemini's `save_memory` (it writes the
 * user's GEMINI.md, i.e. agent config).
 */
export const INTERNAL_TOOLS: ReadonlySet<string> = new Set([
  'Task', 'Agent', 'TodoWrite', 'TodoRead', 'ExitPlanMode', 'EnterPlanMode', 'BashOutput', 'KillShell',
  'KillBash', 'AskUserQuestion', 'SlashCommand', 'Skill', 'ListMcpResourcesTool',
  'write_todos', 'update_plan', 'todowrite', 'todoread', 'task', 'view_image',
  // Qwen Code: its to-do list and leaving plan mode (its other tools map above).
  'todo_write', 'exit_plan_mode',
  // Copilot CLI: its own background shells and sub-agents, skills, its bundled docs. Not here on purpose:
  // write_bash (types into a running shell) and sql (a SQLite database, which can ATTACH files).
  'read_bash', 'stop_bash', 'list_bash', 'read_agent', 'list_agents', 'write_agent', 'skill', 'ask_user',
  'fetch_copilot_cli_documentation',
]);

export function normalizeTool(clientTool: string, input: Record<string, unknown> = {}): NormalizedTool {
  const name = typeof clientTool === 'string' ? clientTool : String(clientTool);
  const request = claudeMcpRequest(name, input);
  if (request) return request;
  const mcp = parseMcpName(name);
  if (mcp) {
    const own = ownToolOf(mcp);
    return own ? { tool: OWN_MCP_TOOLS[own], known: true, mcp, ownTool: own } : { tool: 'mcp', known: true, mcp };
  }
  const kind = KIND_BY_NAME.get(name);
  // Codex sends patches through its shell tool as `["apply_patch", "*** Begin Patch…"]`: that is an edit.
  if (kind === 'shell' && isApplyPatchArgv(input)) return { tool: 'edit', known: true };
  if (kind) return { tool: kind, known: true };
  return { tool: name, known: INTERNAL_TOOLS.has(name) };
}

// ---------------------------------------------------------------------------------------------------------
// MCP requests other than tools/call. A server runs code for `prompts/get`, `resources/read` and
// `completion/complete` as it does for a tool call (mcp-server-commands' `run_command` PROMPT runs its
// argument), so they pass the gate too. They are MCP calls (`tool: 'mcp'`) named `mcp__<server>__<method>`,
// with the request's params as the input: `prompts/get` {name, arguments}, `resources/read` {uri},
// `completion/complete` {ref, argument, context}. A `/` is never in a client's tool name (Claude Code keeps
// `[A-Za-z0-9_-]`), and the proxy refuses an upstream tool named like one of these methods, so the names
// cannot be taken by a tool. policy/rules/mcp.ts judges them.

/** The MCP methods the gate decides besides tools/call, and what each is. */
export const MCP_REQUESTS = { 'prompts/get': 'prompt', 'resources/read': 'resource', 'completion/complete': 'completion' } as const;
export type McpRequestMethod = keyof typeof MCP_REQUESTS;
export type McpRequestKind = (typeof MCP_REQUESTS)[McpRequestMethod];

/** The request kind of an MCP "tool" name (`prompts/get` → `prompt`), or null for a real tool. */
export function mcpRequestKind(tool: string): McpRequestKind | null {
  return Object.hasOwn(MCP_REQUESTS, tool) ? MCP_REQUESTS[tool as McpRequestMethod] : null;
}

/** Claude Code's MCP prompts as slash commands: `/mcp__<server>__<prompt> [(MCP)] [arguments…]`. */
const SLASH_MCP_PROMPT = /^\s*\/mcp__([A-Za-z0-9_-]+?)__([A-Za-z0-9_.-]+)(?:\s+\(MCP\))?(?:\s+([\s\S]*))?$/;

/**
 * Claude Code's two tools that reach MCP servers outside tools/call, as the requests they send:
 * `SlashCommand` with `/mcp__<server>__<prompt> args` is a `prompts/get` (Claude Code splits the text at
 * spaces and gives the words to the prompt's arguments in order; the hook does not know their names, so
 * the words are kept by position and the whole text as `text`), and `ReadMcpResourceTool` ({server, uri}) is
 * a `resources/read`. Any other slash command stays Claude Code's own (internal) tool.
 */
function claudeMcpRequest(name: string, input: Record<string, unknown>): NormalizedTool | null {
  if (name === 'SlashCommand') {
    const command = input?.['command'];
    const m = typeof command === 'string' ? SLASH_MCP_PROMPT.exec(command) : null;
    if (!m) return null;
    const text = (m[3] ?? '').trim();
    const words = text === '' ? [] : text.split(/\s+/);
    const args: Record<string, string> = {};
    words.forEach((w, i) => { args[String(i + 1)] = w; });
    return { tool: 'mcp', known: true, mcp: { server: m[1]!, tool: 'prompts/get' }, input: { server: m[1]!, name: m[2]!, arguments: args, text } };
  }
  if (name === 'ReadMcpResourceTool') {
    const server = input?.['server'];
    return { tool: 'mcp', known: true, mcp: { server: typeof server === 'string' ? server : '', tool: 'resources/read' } };
  }
  return null;
}

function isApplyPatchArgv(input: Record<string, unknown>): boolean {
  const cmd = input && typeof input === 'object' ? input['command'] : undefined;
  return Array.isArray(cmd) && cmd.length === 2 && (cmd[0] === 'apply_patch' || cmd[0] === 'applypatch') && typeof cmd[1] === 'string';
}

/**
 * `mcp__<server>__<tool>` (Claude Code, Codex) or `mcp_<server>_<tool>` (Gemini CLI) into its parts.
 * Claude's form splits at the first `__` after the prefix. Gemini's form is ambiguous when the server name
 * has an underscore; it splits at the first `_`, since tool names (`read_file`) carry underscores far more
 * often than server names do.
 */
export function parseMcpName(name: string): { server: string; tool: string } | null {
  if (typeof name !== 'string') return null;
  let m = /^mcp__(.+?)__(.+)$/.exec(name);
  if (m) return { server: m[1]!, tool: m[2]! };
  if (name.startsWith('mcp__')) return null;
  m = /^mcp_([^_]+)_(.+)$/.exec(name);
  if (m) return { server: m[1]!, tool: m[2]! };
  return null;
}

/** Characters that never need quoting in a POSIX shell word. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argv element as a POSIX shell word that means exactly that string. */
export function shellQuote(s: string): string {
  if (s !== '' && SAFE_WORD.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The shell command of a shell tool call: `input.command` (or Codex's `cmd`) as a string, or an argv array
 * joined with shell quoting (Codex sends `["bash", "-lc", "…"]`). Null when there is none or it is malformed.
 */
export function extractShellCommand(input: Record<string, unknown>): string | null {
  if (!input || typeof input !== 'object') return null;
  for (const key of ['command', 'cmd']) {
    const v = input[key];
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) {
      if (v.length === 0 || !v.every((x): x is string => typeof x === 'string')) return null;
      return v.map(shellQuote).join(' ');
    }
  }
  return null;
}

/**
 * The argument under which each client's shell tool takes the directory a command runs in, by the agent
 * name its adapter gives the call: Codex's `shell`/`exec_command` and OpenCode's bash use `workdir`, Gemini
 * CLI's `run_shell_command` uses `dir_path` (0.61; Qwen Code, a fork, has `directory` in older builds). The
 * command must be judged where it runs (`rm -rf notes` in ~ is not the same call as in the project), and
 * ONLY the sending client's own key counts: a key the client ignores (Gemini runs in `dir_path`, whatever a
 * `workdir` says) must not move the judgment away from where the command really runs. Clients not listed
 * (Claude Code, Copilot…) run shell commands in the session's directory, so their calls have none. The MCP
 * proxy resolves a proxied shell tool's directory itself (call-mapping.ts).
 */
const SHELL_DIR_KEYS_BY_AGENT: Readonly<Record<string, readonly string[]>> = {
  codex: ['workdir'],
  opencode: ['workdir'],
  gemini: ['dir_path'],
  qwen: ['dir_path', 'directory'],
};

/**
 * The directory a shell call names for itself under its client's own key: a non-empty string, or null when
 * it names none. Throws RangeError for a value of another type, or for two of the client's keys that
 * disagree (the call is malformed, and is refused rather than guessed at).
 */
export function shellWorkdir(input: Record<string, unknown>, agent: string | undefined): string | null {
  const keys = agent !== undefined && Object.hasOwn(SHELL_DIR_KEYS_BY_AGENT, agent) ? SHELL_DIR_KEYS_BY_AGENT[agent]! : [];
  if (!input || typeof input !== 'object') return null;
  let found: { key: string; value: string } | null = null;
  for (const key of keys) {
    const v = input[key];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') throw new RangeError(`the shell call's "${key}" is not a string`);
    if (found && found.value !== v) throw new RangeError(`the shell call names two directories ("${found.key}" and "${key}")`);
    found ??= { key, value: v };
  }
  return found?.value ?? null;
}

/** Argument names that hold one file or directory path, across clients. */
const PATH_KEYS = [
  'file_path', 'filePath', 'path', 'notebook_path', 'absolute_path', 'dir_path', 'target_file', 'filename',
  'source', 'destination', 'old_path', 'new_path',
];
/** Argument names that hold a list of paths. */
const PATH_LIST_KEYS = ['paths', 'file_paths', 'files'];

/**
 * Every file path a file tool call touches: the usual path arguments, lists of paths, and the file
 * headers of a patch (`*** Update File:`, `*** Add File:`, `*** Delete File:`, `*** Move to:`; or the
 * `+++`/`---` lines of a git diff). Shell calls have none here: their paths come from shell analysis.
 */
export function extractPaths(tool: string, input: Record<string, unknown>): string[] {
  if (!input || typeof input !== 'object' || tool === 'shell') return [];
  const out: string[] = [];
  const add = (p: unknown) => {
    if (typeof p === 'string' && p !== '' && !out.includes(p)) out.push(p);
  };
  for (const k of PATH_KEYS) add(input[k]);
  for (const k of PATH_LIST_KEYS) {
    const v = input[k];
    if (Array.isArray(v)) for (const p of v) add(typeof p === 'object' && p !== null ? (p as Record<string, unknown>)['path'] : p);
  }
  for (const v of Object.values(input)) {
    if (typeof v === 'string') for (const p of patchPaths(v)) add(p);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') for (const p of patchPaths(x)) add(p);
  }
  return out;
}

const NO_PATHS: string[] = [];

/** File names in a Codex-style patch or a git diff; empty for any other text (the shared empty array: do not modify). */
export function patchPaths(text: string): string[] {
  // Substring tests first: every string of a file tool's input passes here, for every rule that asks for the
  // call's paths, and a multi-line regex over a megabyte of content costs milliseconds each time.
  const codex = text.includes('*** ');
  const git = text.includes('diff --git ') || text.includes('+++ ');
  if (!codex && !git) return NO_PATHS;
  const out: string[] = [];
  if (text.includes('*** Begin Patch') || (codex && /^\*\*\* (Update|Add|Delete) File: /m.test(text))) {
    for (const m of text.matchAll(/^\*\*\* (?:Update File|Add File|Delete File|Move to): (.+?)\s*$/gm)) out.push(m[1]!);
  } else if (/^diff --git /m.test(text) || /^--- .+\n\+\+\+ /m.test(text)) {
    for (const m of text.matchAll(/^(?:\+\+\+|---) (?:[ab]\/)?(.+?)\s*$/gm)) if (m[1] !== '/dev/null') out.push(m[1]!);
  }
  return [...new Set(out)];
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`)\]]+/gi;

/** Every URL a fetch call would fetch: `url`/`uri`/`href`, or, when none, the URLs written in `prompt` (Gemini's web_fetch). */
export function extractUrls(input: Record<string, unknown>): string[] {
  if (!input || typeof input !== 'object') return [];
  const out: string[] = [];
  for (const k of ['url', 'uri', 'href']) {
    const v = input[k];
    if (typeof v === 'string' && v !== '') out.push(v);
  }
  const urls = input['urls'];
  if (Array.isArray(urls)) for (const u of urls) if (typeof u === 'string' && u !== '') out.push(u);
  if (out.length === 0 && typeof input['prompt'] === 'string') {
    for (const m of input['prompt'].matchAll(URL_IN_TEXT)) out.push(m[0].replace(/[.,;:!?]+$/, ''));
  }
  return [...new Set(out)];
}

/** The first URL of a fetch call, or null. */
export function extractUrl(input: Record<string, unknown>): string | null {
  return extractUrls(input)[0] ?? null;
}
