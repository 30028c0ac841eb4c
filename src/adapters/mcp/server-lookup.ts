// Which configured MCP server a policy name means (`asimov mcp allow <server>`): the `<server>` of
// `mcp__<server>__<tool>` is the client's name for it (hooks), or the proxy's `--name` (or the name it
// derives) when the entry runs through `asimov mcp proxy`. Only the user's own files are started.

import type { ServerEntry } from './client-configs.ts';
import { CLIENT_LABELS } from './client-configs.ts';
import { targetOf, upstreamOf } from './scan.ts';

export type ServerPick = { entry: ServerEntry; notes: string[] } | { error: string };

/** The names tool calls of this entry carry: the client's own name, and the proxy's when it runs through one. */
export function policyNamesOf(entry: ServerEntry): string[] {
  const { proxyName } = upstreamOf(entry);
  return proxyName !== undefined && proxyName !== entry.name ? [entry.name, proxyName] : [entry.name];
}

function describe(entry: ServerEntry): string {
  return `${CLIENT_LABELS[entry.client]} (${entry.file})`;
}

/** What the entry starts or reaches: the upstream's server id. */
function startsWhat(entry: ServerEntry): string {
  return targetOf(upstreamOf(entry).entry);
}

/**
 * The entry to start for `server`: the first that is enabled and from the user's own files. A server a
 * project's own file names is not started (a cloned repository wrote that command); the error says how to
 * name the command explicitly instead.
 */
export function pickServerEntry(server: string, entries: readonly ServerEntry[]): ServerPick {
  const named = entries.filter((e) => policyNamesOf(e).includes(server));
  const usable = named.filter((e) => !e.disabled && !e.fromProject);
  const explicitly = `name its command: \`asimov mcp allow ${server} --read-only -- <command> [args…]\` (or \`--url <URL>\`)`;
  if (named.length === 0) return { error: `no MCP server named ${server} in any client's configuration; ${explicitly}` };
  if (usable.length === 0) {
    const why = named.map((e) => `${describe(e)}: ${e.disabled ? 'disabled there' : 'a project\'s own file, which a cloned repository controls, so it is not started'}`);
    return { error: `server ${server} is configured only where asimov does not start it (${why.join('; ')}); ${explicitly}` };
  }
  const entry = usable[0]!;
  const notes = usable.slice(1).filter((e) => startsWhat(e) !== startsWhat(entry)).map((e) => `${describe(e)} also names a server ${server}, with another command or URL; its tools were not listed`);
  return { entry, notes };
}
