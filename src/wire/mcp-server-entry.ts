// asimov's gated MCP tools (`asimov mcp tools`) as an entry in a client's JSON MCP configuration: the
// `mcpServers.asimov` object that tiers 2 and 3 of `asimov wire` install (the client's own shell and file
// tools switched off, or only an instruction to prefer asimov's). Pure: text in, text and changes out, with
// the same format-keeping edits as the hooks (json-settings.ts), so uninstalling gives back the file's bytes.
//
// The entry is recognised as asimov's by what it runs (asimov's bin/asimov.cjs with `mcp tools`), not by
// its name alone: a server someone else called "asimov" is never overwritten or removed.

import { getNodeValue } from 'jsonc-parser';
import { AsimovError } from '../core/errors.ts';
import { OWN_MCP_SERVER } from '../core/tools.ts';
import {
  isBlank, parseJsonDocument, propertyNode, removeJsonValue, serializeJson, setJsonValue, type JsonDialect, type JsonDocument, type JsonPath,
} from './json-settings.ts';

/** How to start `asimov mcp tools` on this machine: absolute node and asimov, as for the hooks. */
export interface ToolsServerLaunch {
  command: string;
  args: string[];
}

export function toolsServerLaunch(nodePath: string, asimovPath: string): ToolsServerLaunch {
  return { command: nodePath, args: [asimovPath, 'mcp', 'tools'] };
}

/** Whether a launch (command + args) runs asimov's gated tools, from any install. */
export function isToolsServerLaunch(command: unknown, args: unknown): boolean {
  if (typeof command !== 'string' || !Array.isArray(args)) return false;
  const [entry, sub, verb] = args as unknown[];
  return typeof entry === 'string' && /(^|\/)bin\/asimov\.cjs$/.test(entry) && sub === 'mcp' && verb === 'tools';
}

export interface McpEntryPlanOptions {
  /** Where the servers live in the file: `['mcpServers']`. */
  serversPath: JsonPath;
  /** The entry to install, given the launch (the client's own shape), or null when uninstalling. */
  entry: Record<string, unknown> | null;
  /** Reads command and args out of an existing entry (clients nest them differently). */
  launchOf(entry: unknown): { command: unknown; args: unknown };
  dialect: JsonDialect;
  uninstall: boolean;
  file: string;
}

/**
 * Installs (or removes) `<serversPath>.asimov`. Idempotent: an equal entry is left alone, an entry of
 * asimov's that differs (a moved install) is replaced. A server named "asimov" that does not run asimov's
 * tools is refused rather than overwritten.
 */
export function planMcpServerEntry(text: string | null, o: McpEntryPlanOptions): { text: string | null; changes: string[] } {
  const at: JsonPath = [...o.serversPath, OWN_MCP_SERVER];
  const where = `${o.serversPath.join('.')}.${OWN_MCP_SERVER}`;
  if (text === null || isBlank(text)) {
    if (o.uninstall || !o.entry) return { text, changes: [] };
    return { text: serializeJson(nest(o.serversPath, { [OWN_MCP_SERVER]: o.entry })), changes: [`added MCP server ${where} (asimov mcp tools)`] };
  }
  const doc = parseJsonDocument(text, o.file, o.dialect);
  const existing = valueAt(doc, at);
  const launch = existing !== undefined ? o.launchOf(existing) : null;
  const ours = launch !== null && isToolsServerLaunch(launch.command, launch.args);
  if (o.uninstall || !o.entry) {
    return ours ? { text: removeEmptied(doc, at, o), changes: [`removed MCP server ${where}`] } : { text, changes: [] };
  }
  if (existing !== undefined && !ours) {
    throw new AsimovError(
      'wire_settings_invalid',
      `${where} is another server, not asimov's tools; asimov does not overwrite it (rename it, then run this again)`,
      { file: o.file, key: where },
    );
  }
  if (existing !== undefined && JSON.stringify(existing) === JSON.stringify(o.entry)) return { text, changes: [] };
  return { text: setJsonValue(doc, at, o.entry), changes: [`${existing === undefined ? 'added' : 'updated'} MCP server ${where} (asimov mcp tools)`] };
}

/**
 * Whether a config text holds asimov's tools at `<serversPath>.asimov` (for --list). Never throws: a file the
 * client could not read holds nothing that runs.
 */
export function hasToolsServerEntry(
  text: string | null,
  o: Pick<McpEntryPlanOptions, 'serversPath' | 'launchOf' | 'dialect' | 'file'>,
): boolean {
  if (text === null || isBlank(text)) return false;
  try {
    const entry = valueAt(parseJsonDocument(text, o.file, o.dialect), [...o.serversPath, OWN_MCP_SERVER]);
    return entry !== undefined && isToolsServerLaunch(o.launchOf(entry).command, o.launchOf(entry).args);
  } catch {
    return false;
  }
}

/** The plain value at a path, or undefined. */
export function valueAt(doc: JsonDocument, path: JsonPath): unknown {
  let node = doc.root;
  const walked: (string | number)[] = [];
  for (const key of path) {
    if (node.type !== 'object' || typeof key !== 'string') return undefined;
    const next = propertyNode(doc, node, key, walked);
    if (!next) return undefined;
    node = next;
    walked.push(key);
  }
  return getNodeValue(node) as unknown;
}

/** Removes the entry, then each container on the way up that this left empty (asimov created it). */
function removeEmptied(doc: JsonDocument, at: JsonPath, o: McpEntryPlanOptions): string {
  let text = removeJsonValue(doc, at);
  for (let depth = at.length - 1; depth >= 1; depth--) {
    const d = parseJsonDocument(text, o.file, o.dialect);
    const v = valueAt(d, at.slice(0, depth));
    if (v === null || typeof v !== 'object' || Object.keys(v).length > 0) break;
    text = removeJsonValue(d, at.slice(0, depth));
  }
  return text;
}

function nest(path: JsonPath, leaf: Record<string, unknown>): Record<string, unknown> {
  let v: Record<string, unknown> = leaf;
  for (const key of [...path].reverse()) v = { [String(key)]: v };
  return v;
}
