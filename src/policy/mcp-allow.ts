// The custom rule `asimov mcp allow` writes: one `allow` rule per MCP server, `mcp-allow.<server>`, whose
// `tool` globs name the allowed tools (`mcp__<server>__<tool>`, or `mcp__<server>__*` for all of them) and
// whose examples pass the loader's check. Re-running merges into that rule instead of adding another.

import { isPlainObject } from '../core/json.ts';
import { shellQuote } from '../core/tools.ts';

/** A server name as the proxy writes it in `mcp__<server>__…` (proxy-args.ts checks `--name` the same way). */
export const MCP_SERVER_NAME_RE = /^[A-Za-z0-9_-]+$/;

/** What `asimov mcp allow` allows: named tools, or every tool of the server. */
export type AllowScope = { tools: readonly string[] } | 'all';

/** The custom rule, as plain data for the policy file (policy/schema.ts `custom[]`). */
export interface McpAllowRule {
  id: string;
  tier: 'allow';
  reason: string;
  match: { tool: string[] };
  examples: { match: Array<{ tool: string; input: Record<string, never> }>; notMatch: Array<{ tool: string; input: Record<string, never> }> };
}

/** The result of merging what was asked for into the rule already in the file (if any). */
export interface MergedAllow {
  rule: McpAllowRule;
  /** Tools (or `*`) newly covered by the rule. */
  added: string[];
  /** Tools asked for that the existing rule already covers. */
  already: string[];
  /** The file already holds a rule with this id, written by an earlier `asimov mcp allow`. */
  updates: boolean;
}

export function checkServerName(server: string): string | null {
  if (!MCP_SERVER_NAME_RE.test(server) || server.includes('__')) {
    return `the server name must be letters, digits, - and _ (no __), as in mcp__<server>__<tool>; not '${server}'`;
  }
  return null;
}

export function checkToolName(tool: string): string | null {
  if (tool === '' || /[\s\u0000-\u001f\u007f]/.test(tool)) return `'${tool}' is not an MCP tool name`;
  return null;
}

/**
 * The `asimov mcp allow` command line that would allow this client tool, for refusals of a tool no rule
 * decides; null when the name is not an MCP tool's `mcp__<server>__<tool>` this command can write a rule for.
 */
export function mcpAllowCommandFor(clientTool: string): string | null {
  const m = /^mcp__(.+?)__(.+)$/.exec(clientTool);
  if (!m || checkServerName(m[1]!) !== null || checkToolName(m[2]!) !== null) return null;
  return `asimov mcp allow ${m[1]!} ${shellQuote(m[2]!)}`;
}

/** `mcp-allow.<server>`: rule ids are dotted lower-case words, so `My_Server` becomes `my-server`. */
export function mcpAllowRuleId(server: string): string {
  return `mcp-allow.${server.toLowerCase().replace(/_/g, '-')}`;
}

/** The client tool name the gate sees for a tool of the server. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** A literal tool name as a `tool:` glob (custom.ts globToRegExp): `*`, `?`, `[` and `\` escaped. */
export function toolGlob(server: string, tool: string): string {
  return `mcp__${server}__${tool === '*' ? '*' : tool.replace(/[\\*?[\]]/g, '\\$&')}`;
}

/** The tool a glob written by toolGlob names: `*` for all of them, null for a glob it did not write. */
function toolOfGlob(server: string, glob: string): string | null {
  const prefix = `mcp__${server}__`;
  if (!glob.startsWith(prefix)) return null;
  const rest = glob.slice(prefix.length);
  if (rest === '*') return '*';
  let out = '';
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (c === '\\' && i + 1 < rest.length) out += rest[++i]!;
    else if ('*?[]'.includes(c)) return null;
    else out += c;
  }
  return out === '' ? null : out;
}

/** Builds the rule for these tools (`*`: all of them). */
export function buildMcpAllowRule(server: string, tools: readonly string[]): McpAllowRule {
  const all = tools.includes('*');
  const list = all ? ['*'] : [...new Set(tools)].sort();
  const other = notListedTool(list);
  return {
    id: mcpAllowRuleId(server),
    tier: 'allow',
    reason: all
      ? `The user allowed every tool of the MCP server ${server} (asimov mcp allow --all).`
      : `The user allowed ${list.length === 1 ? 'this tool' : 'these tools'} of the MCP server ${server} (asimov mcp allow).`,
    match: { tool: list.map((t) => toolGlob(server, t)) },
    examples: {
      match: all ? [{ tool: mcpToolName(server, 'any_tool'), input: {} }] : list.map((t) => ({ tool: mcpToolName(server, t), input: {} })),
      notMatch: [all ? { tool: mcpToolName(`${server}-other`, 'any_tool'), input: {} } : { tool: mcpToolName(server, other), input: {} }],
    },
  };
}

/** A tool name that is not in the list, for the rule's notMatch example. */
function notListedTool(list: readonly string[]): string {
  let name = 'some_other_tool';
  for (let i = 2; list.includes(name); i++) name = `some_other_tool_${i}`;
  return name;
}

/**
 * The tools an existing `mcp-allow.<server>` rule allows, when it has the shape this module writes (tier
 * allow, only `tool` globs of this server, no overrides); a string saying why not otherwise, so that a rule
 * the user wrote under that id is never silently rewritten.
 */
export function toolsOfExistingRule(server: string, existing: unknown): string[] | string {
  if (!isPlainObject(existing)) return 'it is not a mapping';
  const keys = Object.keys(existing).filter((k) => !['id', 'tier', 'reason', 'match', 'examples'].includes(k));
  if (keys.length > 0) return `it also sets ${keys.join(', ')}`;
  if (existing['tier'] !== 'allow') return `its tier is ${String(existing['tier'])}, not allow`;
  const match = existing['match'];
  if (!isPlainObject(match) || Object.keys(match).some((k) => k !== 'tool')) return 'it matches on more than tool names';
  const globs = typeof match['tool'] === 'string' ? [match['tool']] : match['tool'];
  if (!Array.isArray(globs)) return 'its `tool` is not a list of names';
  const tools: string[] = [];
  for (const g of globs) {
    const t = typeof g === 'string' ? toolOfGlob(server, g) : null;
    if (t === null) return `its tool glob ${JSON.stringify(g)} is not one of server ${server}'s tools`;
    tools.push(t);
  }
  return tools;
}

/**
 * Merges the tools asked for into the existing rule (from toolsOfExistingRule) or makes a new one. With
 * `all`, the rule becomes the single glob `mcp__<server>__*`.
 */
export function mergeMcpAllow(server: string, scope: AllowScope, existingTools: readonly string[] | null): MergedAllow {
  const before = existingTools ?? [];
  const wanted = scope === 'all' ? ['*'] : [...new Set(scope.tools)];
  const covered = (t: string): boolean => before.includes('*') || before.includes(t);
  const already = wanted.filter(covered);
  const added = wanted.filter((t) => !covered(t));
  const tools = before.includes('*') ? ['*'] : scope === 'all' ? ['*'] : [...before, ...added];
  return { rule: buildMcpAllowRule(server, tools), added, already, updates: existingTools !== null };
}
