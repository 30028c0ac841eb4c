// `asimov mcp scan`: connect to each configured MCP server, list its tools, and report what the proxy
// would do with them: poisoning findings, and whether each definition is new, pinned, or changed since
// it was pinned. A scan only reads the pin store (it never approves). It runs offline: nothing leaves
// the machine but the connections the configuration itself asks for.

import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describeError } from '../../core/errors.ts';
import { parseProxyArgs } from './proxy-args.ts';
import { deriveServerName } from './call-mapping.ts';
import { CLIENT_LABELS, type ClientName, type ConfigNote, type ServerEntry, type Transport } from './client-configs.ts';
import { inspectTool, printable, type Finding, type ToolDef } from './poison.ts';
import { hashTool, readPins, serverIdFor, type PinStore } from './pins.ts';

export const DEFAULT_SCAN_TIMEOUT_MS = 15_000;
/** Servers started at once. */
const CONCURRENCY = 4;
/** tools/list pages followed before the listing counts as endless. */
const MAX_PAGES = 100;
/** Bytes of a server's stderr kept to explain a failure. */
const STDERR_TAIL = 2048;

export type PinStatus = 'new' | 'pinned' | 'changed' | 'unknown';

export interface ToolReport {
  name: string;
  findings: Finding[];
  /** Null when the definition cannot be hashed. */
  hash: string | null;
  pin: PinStatus;
  pinnedHash?: string;
  /** A person approved exactly this definition despite its findings (`pins approve --accept-findings`). */
  accepted?: boolean;
  /** What the proxy would do: hide it for a block finding (not accepted) or a changed pin. */
  hidden: boolean;
}

export interface ServerReport {
  client: ClientName;
  file: string;
  name: string;
  scope: string;
  transport: Transport;
  /** The command line or URL that was (or would be) reached; never its environment or headers. */
  target: string;
  /** The identity pins are recorded under (`asimov mcp pins … <serverId>`). */
  serverId: string;
  /** The entry runs the server through `asimov mcp proxy`: the upstream behind it was scanned. */
  viaProxy?: boolean;
  status: 'ok' | 'failed' | 'skipped';
  reason?: string;
  server?: { name: string; version: string };
  tools: ToolReport[];
}

export interface ScanReport {
  servers: ServerReport[];
  notes: ConfigNote[];
  pinStore: { path: string; error?: string };
  summary: { servers: number; failed: number; skipped: number; tools: number; blocked: number; changed: number; warned: number };
}

export interface ScanOptions {
  entries: ServerEntry[];
  notes?: ConfigNote[];
  pinsPath: string;
  timeoutMs?: number;
  /** Start servers from a project's own files too (off by default: a cloned repository wrote them). */
  includeProject?: boolean;
}

export async function scanServers(o: ScanOptions): Promise<ScanReport> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_SCAN_TIMEOUT_MS;
  let store: PinStore | null = null;
  let storeError: string | undefined;
  try {
    store = readPins(o.pinsPath);
  } catch (e) {
    storeError = describeError(e);
  }
  const servers: ServerReport[] = new Array(o.entries.length);
  let next = 0;
  const worker = async () => {
    while (next < o.entries.length) {
      const i = next++;
      servers[i] = await scanOne(o.entries[i]!, { timeoutMs, store, includeProject: o.includeProject === true });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, o.entries.length) }, worker));
  const tools = servers.flatMap((s) => s.tools);
  return {
    servers,
    notes: o.notes ?? [],
    pinStore: { path: o.pinsPath, ...(storeError ? { error: storeError } : {}) },
    summary: {
      servers: servers.length,
      failed: servers.filter((s) => s.status === 'failed').length,
      skipped: servers.filter((s) => s.status === 'skipped').length,
      tools: tools.length,
      blocked: tools.filter((t) => t.findings.some((f) => f.severity === 'block') && !t.accepted).length,
      changed: tools.filter((t) => t.pin === 'changed').length,
      warned: tools.filter((t) => t.findings.some((f) => f.severity === 'warn')).length,
    },
  };
}

/** 2 when a tool would be hidden for poisoning or a changed pin; else 1 when a server or the pin store failed; else 0. */
export function scanExitCode(r: ScanReport): number {
  if (r.summary.blocked > 0 || r.summary.changed > 0) return 2;
  if (r.summary.failed > 0 || r.pinStore.error) return 1;
  return 0;
}

// ---------------------------------------------------------------------------------------------
// One server
// ---------------------------------------------------------------------------------------------

/**
 * What to connect to: the entry itself, or the upstream of an `asimov mcp proxy` entry. `viaProxy` says the
 * proxy guards it: an entry behind `--passthrough` is scanned as its upstream but counts as unguarded.
 * `proxyName` is the server name the proxy gives its tools (`--name`, else derived from the upstream).
 */
export function upstreamOf(entry: ServerEntry): { entry: ServerEntry; viaProxy: boolean; proxyName?: string } {
  if (entry.transport !== 'stdio' || entry.command === undefined) return { entry, viaProxy: false };
  const words = [entry.command, ...(entry.args ?? [])];
  const at = words.findIndex((w, i) => w === 'mcp' && words[i + 1] === 'proxy' && words.slice(0, i).some(isAsimov));
  if (at < 0) return { entry, viaProxy: false };
  // The proxy's own parser, so that scan reads an entry exactly as the proxy will (`--` is optional).
  let parsed: ReturnType<typeof parseProxyArgs>;
  try {
    parsed = parseProxyArgs(words.slice(at + 2));
  } catch {
    return { entry, viaProxy: false };
  }
  if (parsed === 'help') return { entry, viaProxy: false };
  if (parsed.command && parsed.command.length > 0) {
    const [command, ...args] = parsed.command;
    return { entry: { ...entry, command: command!, args }, viaProxy: !parsed.passthrough, proxyName: parsed.name ?? deriveServerName({ command: command!, args }) };
  }
  if (parsed.url === undefined) return { entry, viaProxy: false };
  const { command: _c, args: _a, env: _e, cwd: _w, ...base } = entry;
  const headers = parsed.headers;
  return {
    entry: { ...base, transport: parsed.sse ? 'sse' : 'http', url: parsed.url, ...(Object.keys(headers).length > 0 ? { headers } : {}), ...(parsed.sse ? {} : { transportGuessed: true }) },
    viaProxy: !parsed.passthrough,
    proxyName: parsed.name ?? deriveServerName({ url: parsed.url }),
  };
}

function isAsimov(w: string): boolean {
  // `asimov`, its bin/asimov.cjs, or the package name a runner is given (`npx -y asimov-firewall mcp proxy …`).
  return /^asimov(?:\.c?js)?$/.test(basename(w)) || /^asimov-firewall(@.*)?$/.test(w);
}

/** The server id of an entry to connect to (an upstream: upstreamOf first), as pins and scan name it. */
export function targetOf(e: ServerEntry): string {
  return e.transport === 'stdio' ? serverIdFor({ command: e.command ?? '', args: e.args ?? [] }) : serverIdFor({ url: e.url ?? '' });
}

async function scanOne(original: ServerEntry, o: { timeoutMs: number; store: PinStore | null; includeProject: boolean }): Promise<ServerReport> {
  const { entry, viaProxy } = upstreamOf(original);
  const target = targetOf(entry);
  const report: ServerReport = {
    client: original.client, file: original.file, name: original.name, scope: original.scope, transport: entry.transport,
    target, serverId: target, ...(viaProxy ? { viaProxy } : {}), status: 'ok', tools: [],
  };
  if (original.disabled) return { ...report, status: 'skipped', reason: 'disabled in the client\'s configuration' };
  if (original.fromProject && !o.includeProject) {
    return { ...report, status: 'skipped', reason: 'from the project\'s own file, which a cloned repository controls: not started unless --project is given' };
  }
  let listed: { server: { name: string; version: string }; tools: ToolDef[] };
  try {
    listed = await listTools(entry, o.timeoutMs);
  } catch (e) {
    return { ...report, status: 'failed', reason: e instanceof Error ? e.message : String(e) };
  }
  report.server = listed.server;
  const names = listed.tools.map((t) => (typeof t.name === 'string' ? t.name : ''));
  report.tools = listed.tools.map((t, i) => toolReport(t, names[i]!, names, o.store?.servers[target]?.tools ?? null, o.store !== null));
  return report;
}

function toolReport(tool: ToolDef, name: string, siblings: string[], pins: Record<string, { hash: string; acceptedFindings?: string[] }> | null, storeRead: boolean): ToolReport {
  let findings: Finding[];
  let hash: string | null = null;
  try {
    findings = inspectTool(tool, { siblings });
    hash = hashTool(tool);
  } catch (e) {
    findings = [{ kind: 'uninspectable', severity: 'block', detail: `cannot be inspected: ${describeError(e)}`, where: '$' }];
  }
  const pin = pins?.[name];
  const status: PinStatus = !storeRead ? 'unknown' : !pin ? 'new' : pin.hash === hash ? 'pinned' : 'changed';
  const accepted = status === 'pinned' && pin?.acceptedFindings !== undefined;
  const blocked = findings.some((f) => f.severity === 'block') && !accepted;
  return {
    name, findings, hash, pin: status,
    ...(status === 'changed' ? { pinnedHash: pin!.hash } : {}),
    ...(accepted ? { accepted } : {}),
    hidden: blocked || status === 'changed' || status === 'unknown',
  };
}

/** Lists the tools of a configured server, or of the upstream behind an `asimov mcp proxy` entry (`asimov mcp allow`). */
export function listServerTools(entry: ServerEntry, timeoutMs = DEFAULT_SCAN_TIMEOUT_MS): Promise<{ server: { name: string; version: string }; tools: ToolDef[] }> {
  return listTools(upstreamOf(entry).entry, timeoutMs);
}

/** Connects (the guessed transport of a bare URL: Streamable HTTP, then SSE) and lists every page of tools. */
async function listTools(entry: ServerEntry, timeoutMs: number): Promise<{ server: { name: string; version: string }; tools: ToolDef[] }> {
  if (entry.transport === 'http' && entry.transportGuessed) {
    try {
      return await listWith(entry, 'http', timeoutMs);
    } catch (httpError) {
      try {
        return await listWith(entry, 'sse', timeoutMs);
      } catch {
        throw httpError;
      }
    }
  }
  return listWith(entry, entry.transport, timeoutMs);
}

async function listWith(entry: ServerEntry, transport: Transport, timeoutMs: number): Promise<{ server: { name: string; version: string }; tools: ToolDef[] }> {
  let stderrTail = '';
  let t: SdkTransport;
  if (transport === 'stdio') {
    if (entry.cwd !== undefined && !(existsSync(entry.cwd) && statSync(entry.cwd).isDirectory())) {
      throw new Error(`its working directory ${entry.cwd} does not exist`);
    }
    const stdio = new StdioClientTransport({
      command: entry.command!,
      args: entry.args ?? [],
      ...(entry.env ? { env: entry.env } : {}),
      ...(entry.cwd ? { cwd: entry.cwd } : {}),
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (d: Buffer) => {
      stderrTail = (stderrTail + d.toString('utf8')).slice(-STDERR_TAIL);
    });
    t = stdio;
  } else {
    let url: URL;
    try {
      url = new URL(entry.url!);
    } catch {
      throw new Error(`not a valid URL: ${entry.url}`);
    }
    const requestInit = entry.headers ? { headers: entry.headers } : undefined;
    t = transport === 'sse'
      ? new SSEClientTransport(url, requestInit ? { requestInit } : {})
      : new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {});
  }
  const client = new Client({ name: 'asimov-mcp-scan', version: '1.0.0' });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const work = (async () => {
      await client.connect(t, { timeout: timeoutMs });
      const tools: ToolDef[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const r = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
        tools.push(...(r.tools as ToolDef[]));
        cursor = r.nextCursor;
        if (!cursor) break;
        if (page === MAX_PAGES - 1) throw new Error(`the tool list goes on past ${MAX_PAGES} pages`);
      }
      const info = client.getServerVersion();
      return { server: { name: info?.name ?? '', version: info?.version ?? '' }, tools };
    })();
    work.catch(() => {}); // the deadline may win; the loser's rejection is not an unhandled one
    return await Promise.race([work, deadline]);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const tail = stderrTail.trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${transport === 'stdio' ? 'cannot start or list it' : `cannot reach it (${transport})`}: ${why}${tail ? ` (stderr: ${tail})` : ''}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// Text report
// ---------------------------------------------------------------------------------------------

export function formatScanText(r: ScanReport): string {
  const lines: string[] = [];
  let lastGroup = '';
  for (const s of r.servers) {
    const group = `${CLIENT_LABELS[s.client]}: ${s.file}`;
    if (group !== lastGroup) {
      if (lines.length > 0) lines.push('');
      lines.push(group);
      lastGroup = group;
    }
    const via = s.viaProxy ? ', through asimov mcp proxy' : '';
    const head = `  server "${printable(s.name, 80)}" (${printable(s.scope, 120)}, ${s.transport}${via}: ${printable(s.target, 160)})`;
    if (s.status === 'skipped') {
      lines.push(`${head} skipped: ${s.reason}`);
      continue;
    }
    if (s.status === 'failed') {
      lines.push(`${head} FAILED: ${printable(s.reason ?? '', 400)}`);
      continue;
    }
    const info = s.server && (s.server.name || s.server.version) ? ` ${printable(`${s.server.name} ${s.server.version}`.trim(), 80)}` : '';
    lines.push(`${head}${info}, ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}`);
    lines.push(`    pins: ${printable(s.serverId, 200)}`);
    const width = Math.min(32, Math.max(8, ...s.tools.map((t) => printable(t.name, 32).length)));
    for (const t of s.tools) {
      const blocks = t.findings.filter((f) => f.severity === 'block');
      const mark = blocks.length > 0 && !t.accepted ? 'BLOCK  ' : t.pin === 'changed' ? 'CHANGED' : t.findings.length > 0 ? 'warn   ' : 'ok     ';
      const pin = t.pin === 'changed' ? `changed since pinned (pinned ${t.pinnedHash!.slice(0, 12)}, now ${(t.hash ?? '?').slice(0, 12)})`
        : t.pin === 'pinned' ? (t.accepted ? 'pinned (findings accepted by a person)' : 'pinned')
        : t.pin === 'new' ? 'new (not pinned yet)' : 'pin unknown (the pin store cannot be read)';
      lines.push(`    ${mark} ${printable(t.name, 32).padEnd(width)}  ${pin}`);
      for (const f of t.findings) lines.push(`             ${f.severity === 'block' ? 'block' : 'warn '} ${f.kind}: ${printable(f.detail, 300)} (at ${printable(f.where, 120)})`);
    }
  }
  if (r.servers.length === 0) lines.push('No MCP servers found in the configuration of any known client.');
  if (r.notes.length > 0) {
    lines.push('', 'Notes:');
    for (const n of r.notes) lines.push(`  ${n.file}: ${printable(n.message, 300)}`);
  }
  if (r.pinStore.error) lines.push('', `Pin store: ${r.pinStore.error}`);
  const m = r.summary;
  const parts = [`${m.blocked} blocked`, `${m.changed} changed since pinned`, `${m.warned} with warnings`];
  const serverParts = [m.failed ? `${m.failed} failed` : '', m.skipped ? `${m.skipped} skipped` : ''].filter(Boolean).join(', ');
  lines.push('', `Summary: ${m.servers} server${m.servers === 1 ? '' : 's'}${serverParts ? ` (${serverParts})` : ''}, ${m.tools} tool${m.tools === 1 ? '' : 's'}: ${parts.join(', ')}.`);
  return `${lines.join('\n')}\n`;
}
