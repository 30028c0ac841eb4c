// Built-in rules: mcp family. MCP tools judged by their names, plus the helpers that find paths and URLs in MCP arguments.

import type { ToolCall } from '../../core/types.ts';
import { parseMcpName } from '../../core/tools.ts';
import { defineToolRule, type Rule, type RuleContext } from '../rule.ts';

/*
 * An MCP tool's name is all we know of what it does, and a server chooses it. So names only ever lower
 * the stakes for reads (`get_`, `list_`…) and raise them for destruction; everything else is left to the
 * engine's default (`unknown`). Paths and URLs in the arguments are judged by the file and web rules
 * (files.ts, web.ts), which use mcpPathArgs/mcpUrlArgs below: an MCP `write_file` to ~/.bashrc is denied
 * exactly like a Write to it.
 */

/** First words of tool names that only read. `query` is not here: it runs whatever SQL it is given. */
export const READ_ONLY_VERBS: readonly string[] = [
  'get', 'list', 'read', 'search', 'fetch', 'describe', 'show', 'find', 'view', 'lookup', 'count', 'inspect',
];

/** Words that make a tool destructive wherever they appear in its name (`delete_file`, `repo_delete`, `force_push`). */
export const DESTRUCTIVE_WORDS: readonly string[] = [
  'delete', 'remove', 'rm', 'drop', 'destroy', 'purge', 'wipe', 'truncate', 'erase', 'terminate', 'uninstall',
  'unpublish', 'revoke', 'force', 'overwrite', 'kill', 'shutdown', 'reset', 'flush',
];

/** Words that mark a tool as running a database statement: judged by the statement, not the name. */
export const SQL_WORDS: readonly string[] = ['query', 'sql', 'execute', 'exec', 'run', 'statement'];

/** Tool names that write straight to a branch (GitHub/GitLab servers): guarded when that branch is a default one. */
export const BRANCH_WRITE_TOOLS: readonly string[] = [
  'push_files', 'create_or_update_file', 'update_file', 'commit_files', 'create_commit', 'push',
];

/**
 * Tool names of file servers (the reference `@modelcontextprotocol/server-filesystem` and look-alikes).
 * For these, a path inside the project may be vouched for by the file rules (`file.read`, `file.write-project`);
 * for any other MCP tool, paths in its arguments can only make the call stricter.
 */
export const MCP_FILE_READ_TOOLS: readonly string[] = [
  'read_file', 'read_text_file', 'read_media_file', 'read_multiple_files', 'list_directory',
  'list_directory_with_sizes', 'directory_tree', 'search_files', 'get_file_info',
];
export const MCP_FILE_WRITE_TOOLS: readonly string[] = ['write_file', 'edit_file', 'create_directory', 'move_file'];

/** `getIssue`, `get-issue` and `GET_ISSUE` all become `['get', 'issue']`. */
export function nameWords(tool: string): string[] {
  return tool
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

export type McpVerb = 'read' | 'destructive' | 'other';

/** What a tool's name says it does. */
export function mcpToolVerb(tool: string): McpVerb {
  const words = nameWords(tool);
  if (words.some((w) => DESTRUCTIVE_WORDS.includes(w))) return 'destructive';
  const first = words[0];
  if (first !== undefined && READ_ONLY_VERBS.includes(first)) return 'read';
  return 'other';
}

/** The MCP server and tool of a call, from the client's tool name; null when the call does not say. */
export function mcpNameOf(call: ToolCall): { server: string; tool: string } | null {
  return parseMcpName(call.clientTool ?? '') ?? parseMcpName(call.tool);
}

const MAX_DEPTH = 4;
const MAX_STRINGS = 256;

/** Every string in the arguments, with the name of the key holding it (array items keep their array's key). */
export function mcpStringArgs(input: unknown): Array<{ key: string; value: string }> {
  const out: Array<{ key: string; value: string }> = [];
  collectStrings(out, input, '', 0);
  return out;
}

// A module-level function, not a closure made per call: the rules call mcpStringArgs about twenty times per
// MCP call, and in the bundle (built with keepNames) every closure made also costs a defineProperty.
function collectStrings(out: Array<{ key: string; value: string }>, v: unknown, key: string, depth: number): void {
  if (out.length >= MAX_STRINGS || depth > MAX_DEPTH) return;
  if (typeof v === 'string') out.push({ key, value: v });
  else if (Array.isArray(v)) for (const x of v) collectStrings(out, x, key, depth + 1);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collectStrings(out, x, k, depth + 1);
}

const PATH_KEY = /(^|_)(path|paths|file|files|filename|filepath|dir|dirs|directory|folder|source|destination|dest|src|target)$/;
const ONE_LINE = /^[^\n\r\0]{1,4096}$/;

/**
 * Strings in MCP arguments that name files: any value under a path-like key (`path`, `file_path`,
 * `destination`…), and any single-line string that looks absolute (`/x…`, `~/…`, `file://…`).
 * A lone `/` counts only under a path-like key (elsewhere it is more often a separator than a path).
 */
export function mcpPathArgs(input: unknown): string[] {
  const out = new Set<string>();
  for (const { key, value } of mcpStringArgs(input)) {
    if (!ONE_LINE.test(value)) continue;
    const k = nameWords(key).join('_');
    if (PATH_KEY.test(k) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim()) ) out.add(value);
    else if (/^(\/[^/\s]|~\/|~$|file:\/\/)/.test(value)) out.add(value);
  }
  return [...out];
}

/** Strings in MCP arguments that are URLs (a scheme and `://`, no spaces). */
export function mcpUrlArgs(input: unknown): string[] {
  const out = new Set<string>();
  for (const { value } of mcpStringArgs(input)) {
    const v = value.trim();
    if (v.length <= 8192 && /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(v)) out.add(v);
  }
  return [...out];
}

// ---------------------------------------------------------------------------------------------------------

const SQL_KEYS = new Set(['sql', 'query', 'statement', 'statements', 'command']);
const SQL_DESTRUCTIVE = /\b(?:drop\s+(?:table|database|schema|index|view|user|role|function|procedure|trigger|sequence|collection)|truncate(?:\s+table)?\s+\w|delete\s+from|alter\s+(?:table|database|schema|user|role)|grant\s|revoke\s)/i;
const SQL_WRITE = /\b(insert|update|delete|drop|alter|create|truncate|grant|revoke|merge|replace|copy|call|exec|execute|vacuum|set|lock|into|attach|detach|pragma|do|load|reindex|cluster|refresh|comment|security|listen|notify)\b/i;
const SQL_READ_START = /^\s*(select|show|explain|describe|desc|with|values|table)\b/i;

function sqlVerdict(input: Record<string, unknown>): McpVerb | null {
  const stmts = mcpStringArgs(input).filter(({ key }) => SQL_KEYS.has(key.toLowerCase())).map(({ value }) => value);
  if (stmts.length === 0) return null;
  if (stmts.some((s) => SQL_DESTRUCTIVE.test(s))) return 'destructive';
  const readOnly = stmts.every((s) => {
    const body = s.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').trim().replace(/;\s*$/, '');
    return SQL_READ_START.test(body) && !body.includes(';') && !SQL_WRITE.test(body);
  });
  return readOnly ? 'read' : 'other';
}

function branchArg(input: Record<string, unknown>, keys: string[]): string | null {
  for (const k of keys) {
    const v = input[k];
    if (typeof v === 'string' && v !== '') return v.replace(/^refs\/heads\//, '');
  }
  return null;
}

function mcpCall(call: ToolCall, ctx: RuleContext) {
  const name = mcpNameOf(call);
  if (!name) return null;
  const subject = `${name.server}/${name.tool}`;
  const words = nameWords(name.tool);
  const verb = mcpToolVerb(name.tool);
  if (verb === 'destructive') {
    return { subject, reason: `The MCP tool \`${subject}\` looks destructive (its name says so); a person has to confirm it.` };
  }
  if (words[0] === 'merge') {
    const base = branchArg(call.input, ['base', 'base_branch', 'target_branch', 'branch', 'into']);
    if (base === null || ctx.defaultBranches.includes(base)) {
      return { subject, reason: `The MCP tool \`${subject}\` merges${base ? ` into the default branch \`${base}\`` : ', possibly into the default branch'}; a person has to confirm it.` };
    }
    return null;
  }
  if (BRANCH_WRITE_TOOLS.includes(words.join('_'))) {
    const branch = branchArg(call.input, ['branch', 'ref', 'target_branch']);
    if (branch !== null && ctx.defaultBranches.includes(branch)) {
      return { subject, reason: `The MCP tool \`${subject}\` writes straight to the default branch \`${branch}\`; push to a feature branch and open a pull request instead.` };
    }
  }
  if (verb !== 'read' && words.some((w) => SQL_WORDS.includes(w))) {
    const sql = sqlVerdict(call.input);
    if (sql === 'destructive') return { subject, reason: `The MCP tool \`${subject}\` runs a destructive SQL statement (DROP, DELETE, TRUNCATE, ALTER…); a person has to confirm it.` };
    if (sql === 'read') return { subject, tier: 'allow' as const, reason: `The MCP tool \`${subject}\` runs a read-only query.` };
    return null;
  }
  if (verb === 'read') return { subject, tier: 'allow' as const, reason: `The MCP tool \`${subject}\` only reads (by its name).` };
  return null;
}

export const rules: Rule[] = [
  defineToolRule({
    id: 'mcp.call',
    // soft_deny for destructive names: the name is the server's claim, not proof, so a person (or the judge)
    // decides; read-only names are graded down to allow on the hit, and other names get no finding (unknown).
    tier: 'soft_deny',
    reason: 'This MCP tool looks destructive; a person has to confirm it.',
    tools: ['mcp'],
    match: mcpCall,
    examples: {
      match: [
        { tool: 'mcp__github__delete_repository', input: { owner: 'o', repo: 'r' } },
        { tool: 'mcp__db__drop_table', input: { table: 'users' } },
        { tool: 'mcp__github__merge_pull_request', input: { owner: 'o', repo: 'r', pull_number: 1 } },
        { tool: 'mcp__github__push_files', input: { branch: 'main', files: [] } },
        { tool: 'mcp__postgres__query', input: { sql: 'DROP TABLE users' } },
        { tool: 'mcp__github__get_issue', input: { owner: 'o', repo: 'r', issue_number: 1 } },
        { tool: 'mcp__postgres__query', input: { sql: 'SELECT * FROM users LIMIT 5' } },
        { tool: 'mcp_github_list_issues', input: { owner: 'o', repo: 'r' } },
      ],
      notMatch: [
        { tool: 'mcp__github__create_issue', input: { owner: 'o', repo: 'r', title: 't' } },
        { tool: 'mcp__github__push_files', input: { branch: 'feature/x', files: [] } },
        { tool: 'mcp__postgres__query', input: { sql: 'UPDATE users SET name = 1' } },
        { tool: 'mcp__slack__post_message', input: { channel: 'c', text: 'hello' } },
        { tool: 'Write', input: { file_path: 'x.txt', content: '' } },
      ],
    },
  }),
];
