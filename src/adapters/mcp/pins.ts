// The pin store: which definition of each MCP tool was approved, as a hash, so that a server changing a
// tool after it was trusted (a rug pull) is noticed. One JSON file per user, shared by every proxy and by
// `asimov mcp pins|scan`; written atomically under a cross-process lock, mode 0600.
//
// Per server: `tools` holds the approved hash of each tool, `pending` the definition a proxy saw but hid
// (changed since pinned, or poisoned), so that `asimov mcp pins approve` can approve exactly what was
// seen without connecting to the server. A store that cannot be read is never rewritten on its own: every
// tool stays unapproved until a person fixes or deletes it.

import { writeFileAtomicSync } from '../../core/atomic-write.ts';
import { asimovStateDir } from '../../core/asimov-dirs.ts';
import { mkdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AsimovError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/lazy.ts';
import { shellQuote } from '../../core/tools.ts';
import type { ToolDef } from './poison.ts';
import { isPlainObject } from '../../core/json.ts';

export const PINS_VERSION = 1;

export interface Pin {
  /** sha256 of the canonical JSON of what the model reads (see hashTool). */
  hash: string;
  pinnedAt: string;
  /** `first-use`: pinned by a proxy on first sight of a clean tool; `person`: by `asimov mcp pins approve`. */
  by: 'first-use' | 'person';
  /** Finding details a person accepted when approving a tool the poisoning check blocks. */
  acceptedFindings?: string[];
}

export interface PendingDef {
  /** Hash of the definition that was hidden: approving pins exactly this. */
  hash: string;
  kind: 'changed' | 'poisoned';
  seenAt: string;
  /** The block findings (for poisoned definitions). */
  findings?: string[];
  /** The hidden definition itself, for review (omitted when over MAX_STORED_DEF characters). */
  definition?: ToolDef;
}

export interface ServerPins {
  tools: Record<string, Pin>;
  pending: Record<string, PendingDef>;
}

export interface PinStore {
  version: typeof PINS_VERSION;
  servers: Record<string, ServerPins>;
}

/** A hidden definition larger than this is recorded by hash only. */
const MAX_STORED_DEF = 32 * 1024;
const LOCK_STALE_MS = 5_000;
const LOCK_TIMEOUT_MS = 10_000;
const SHA_RE = /^[0-9a-f]{64}$/;

/** `$XDG_STATE_HOME/asimov/mcp-pins.json` (when absolute, as XDG requires), else `~/.local/state/asimov/mcp-pins.json`. */
export function defaultPinsPath(env: NodeJS.ProcessEnv = process.env, home?: string): string {
  return join(asimovStateDir(env, home), 'mcp-pins.json');
}

// ---------------------------------------------------------------------------------------------
// Identity: of a tool definition, and of a server
// ---------------------------------------------------------------------------------------------

/** JSON with object keys sorted at every level, no whitespace: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/**
 * The hash a tool is pinned by: everything of it a client shows the model (title, description, input
 * and output schema, annotations). The description alone would miss poisoning inside the schema.
 */
export function hashTool(tool: ToolDef): string {
  return sha256Hex(canonicalJson({
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool['outputSchema'],
    annotations: tool.annotations,
  }));
}

export type ServerSpec = { command: string; args?: readonly string[] } | { url: string };

/**
 * A server's identity in the store: its command line (words quoted as a shell would need) or its URL
 * without credentials, fragment or secret-looking query values. The proxy and the scanner both derive
 * it from here, so a scan reports the pins a proxy made.
 */
export function serverIdFor(spec: ServerSpec): string {
  if ('url' in spec) return normalizeUrl(spec.url);
  return [spec.command, ...(spec.args ?? [])].map(shellQuote).join(' ');
}

const SECRET_PARAM_RE = /key|token|secret|auth|pass|sig|cred|session|code/i;

function normalizeUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return raw.trim();
  }
  u.username = '';
  u.password = '';
  u.hash = '';
  for (const k of [...u.searchParams.keys()]) if (SECRET_PARAM_RE.test(k)) u.searchParams.set(k, 'redacted');
  // URL already lower-cases scheme and host and drops a default port.
  return u.toString();
}

// ---------------------------------------------------------------------------------------------
// Reading and writing
// ---------------------------------------------------------------------------------------------

function corrupt(path: string, why: string): AsimovError {
  return new AsimovError(
    'mcp_pins_invalid',
    `the MCP pin store is corrupt (${why}): every MCP tool stays hidden until you fix the file or delete it (deleting it pins every tool again on first use)`,
    { file: path },
  );
}

/** The store; a missing file is an empty store. Throws mcp_pins_invalid when unreadable as a store. */
export function readPins(path: string): PinStore {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return emptyStore();
    throw new AsimovError('mcp_pins_io_error', `cannot read the MCP pin store: ${(e as Error).message}`, { file: path }, { cause: e });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw corrupt(path, `not JSON: ${(e as Error).message}`);
  }
  return validate(data, path);
}

function emptyStore(): PinStore {
  return { version: PINS_VERSION, servers: {} };
}

function validate(data: unknown, path: string): PinStore {
  if (!isPlainObject(data)) throw corrupt(path, 'not a JSON object');
  if (data['version'] !== PINS_VERSION) throw corrupt(path, `unknown version ${JSON.stringify(data['version'])}`);
  const servers = data['servers'];
  if (!isPlainObject(servers)) throw corrupt(path, '"servers" is not an object');
  const out: PinStore = { version: PINS_VERSION, servers: {} };
  for (const [id, s] of Object.entries(servers)) {
    if (!isPlainObject(s) || !isPlainObject(s['tools']) || !isPlainObject(s['pending'])) throw corrupt(path, `server ${JSON.stringify(id)} has no "tools" and "pending" objects`);
    const tools: Record<string, Pin> = {};
    for (const [name, p] of Object.entries(s['tools'])) {
      if (!isPlainObject(p) || typeof p['hash'] !== 'string' || !SHA_RE.test(p['hash']) || typeof p['pinnedAt'] !== 'string' || (p['by'] !== 'first-use' && p['by'] !== 'person')) {
        throw corrupt(path, `the pin of ${JSON.stringify(name)} on ${JSON.stringify(id)} is malformed`);
      }
      const af = p['acceptedFindings'];
      if (af !== undefined && (!Array.isArray(af) || !af.every((x) => typeof x === 'string'))) throw corrupt(path, `the pin of ${JSON.stringify(name)} on ${JSON.stringify(id)} is malformed`);
      tools[name] = { hash: p['hash'], pinnedAt: p['pinnedAt'], by: p['by'], ...(af ? { acceptedFindings: af as string[] } : {}) };
    }
    const pending: Record<string, PendingDef> = {};
    for (const [name, p] of Object.entries(s['pending'])) {
      if (!isPlainObject(p) || typeof p['hash'] !== 'string' || !SHA_RE.test(p['hash']) || typeof p['seenAt'] !== 'string' || (p['kind'] !== 'changed' && p['kind'] !== 'poisoned')) {
        throw corrupt(path, `the pending definition of ${JSON.stringify(name)} on ${JSON.stringify(id)} is malformed`);
      }
      const f = p['findings'];
      if (f !== undefined && (!Array.isArray(f) || !f.every((x) => typeof x === 'string'))) throw corrupt(path, `the pending definition of ${JSON.stringify(name)} on ${JSON.stringify(id)} is malformed`);
      const def = p['definition'];
      pending[name] = {
        hash: p['hash'], kind: p['kind'], seenAt: p['seenAt'],
        ...(f ? { findings: f as string[] } : {}),
        ...(isPlainObject(def) && typeof def['name'] === 'string' ? { definition: def as ToolDef } : {}),
      };
    }
    out.servers[id] = { tools, pending };
  }
  return out;
}

/**
 * Reads the store under the lock, lets `change` edit it, and writes it back when it changed. `change`
 * sees the store as it is now (not as the caller last read it), so concurrent proxies never lose each
 * other's pins. A corrupt store throws before `change` runs: it is never overwritten.
 */
export function updatePins<T>(path: string, change: (store: PinStore) => T): T {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new AsimovError('mcp_pins_io_error', `cannot create the directory of the MCP pin store: ${(e as Error).message}`, { file: path }, { cause: e });
  }
  const lock = `${path}.lock`;
  acquireLock(lock);
  try {
    const store = readPins(path);
    const before = JSON.stringify(store);
    const result = change(store);
    for (const [id, s] of Object.entries(store.servers)) {
      if (Object.keys(s.tools).length === 0 && Object.keys(s.pending).length === 0) delete store.servers[id];
    }
    const after = JSON.stringify(store);
    if (after !== before) writeAtomic(path, `${JSON.stringify(store, null, 2)}\n`);
    return result;
  } finally {
    releaseLock(lock);
  }
}

/** A hidden definition as recorded for review; the definition itself only when small. */
export function pendingRecord(tool: ToolDef, hash: string, kind: PendingDef['kind'], findings?: string[]): PendingDef {
  const rec: PendingDef = { hash, kind, seenAt: new Date().toISOString(), ...(findings?.length ? { findings } : {}) };
  const text = canonicalJson(tool);
  if (text.length <= MAX_STORED_DEF) rec.definition = JSON.parse(text) as ToolDef;
  return rec;
}

export function serverEntry(store: PinStore, serverId: string): ServerPins {
  return (store.servers[serverId] ??= { tools: {}, pending: {} });
}

// ---------------------------------------------------------------------------------------------
// What `asimov mcp pins` does
// ---------------------------------------------------------------------------------------------

export interface PinChange {
  serverId: string;
  tool: string;
  /** What happened: approved a pending definition, forgot a pin, dropped a pending definition. */
  action: 'approved' | 'forgot' | 'dropped-pending';
  hash?: string;
}

export interface ApproveOptions {
  /** Tools to approve; none: every pending definition of the server that is not poisoned. */
  tools?: readonly string[];
  /** Also approve poisoned definitions (only when named in `tools`). */
  acceptFindings?: boolean;
}

/**
 * Approves what a proxy recorded as pending: the exact definitions it hid. No connection to the server:
 * a definition nobody has seen cannot be approved. Throws usage errors naming what cannot be approved.
 */
export function approvePending(path: string, serverId: string, o: ApproveOptions = {}): PinChange[] {
  return updatePins(path, (store) => {
    const server = store.servers[serverId];
    if (!server) throw new AsimovError('usage', `no pins or pending definitions for server ${JSON.stringify(serverId)}${suggest(store, serverId)}`);
    const named = o.tools && o.tools.length > 0 ? [...o.tools] : null;
    const names = named ?? Object.keys(server.pending).filter((n) => server.pending[n]!.kind !== 'poisoned');
    if (names.length === 0) {
      const poisoned = Object.keys(server.pending).filter((n) => server.pending[n]!.kind === 'poisoned');
      throw new AsimovError('usage', poisoned.length > 0
        ? `nothing to approve on ${JSON.stringify(serverId)} but poisoned definitions (${poisoned.join(', ')}): name them and add --accept-findings after reading them`
        : `nothing pending on ${JSON.stringify(serverId)}`);
    }
    const changes: PinChange[] = [];
    for (const name of names) {
      const p = server.pending[name];
      if (!p) {
        const pinned = server.tools[name] ? ' (it is pinned and unchanged)' : '';
        throw new AsimovError('usage', `no pending definition of ${JSON.stringify(name)} on ${JSON.stringify(serverId)}${pinned}`);
      }
      if (p.kind === 'poisoned' && !(named && o.acceptFindings)) {
        throw new AsimovError('usage', `${JSON.stringify(name)} was hidden as poisoned (${(p.findings ?? []).join('; ')}); to approve it anyway, name it and add --accept-findings`);
      }
      server.tools[name] = {
        hash: p.hash, pinnedAt: new Date().toISOString(), by: 'person',
        ...(p.kind === 'poisoned' ? { acceptedFindings: p.findings ?? [] } : {}),
      };
      delete server.pending[name];
      changes.push({ serverId, tool: name, action: 'approved', hash: p.hash });
    }
    return changes;
  });
}

/** Forgets pins (and pending definitions) of the named tools, or of the whole server. */
export function forgetPins(path: string, serverId: string, tools?: readonly string[]): PinChange[] {
  return updatePins(path, (store) => {
    const server = store.servers[serverId];
    if (!server) throw new AsimovError('usage', `no pins or pending definitions for server ${JSON.stringify(serverId)}${suggest(store, serverId)}`);
    const names = tools && tools.length > 0 ? [...tools] : [...new Set([...Object.keys(server.tools), ...Object.keys(server.pending)])];
    const changes: PinChange[] = [];
    for (const name of names) {
      const pin = server.tools[name];
      const pending = server.pending[name];
      if (!pin && !pending) throw new AsimovError('usage', `${JSON.stringify(name)} has no pin on ${JSON.stringify(serverId)}`);
      if (pin) changes.push({ serverId, tool: name, action: 'forgot', hash: pin.hash });
      if (pending) changes.push({ serverId, tool: name, action: 'dropped-pending', hash: pending.hash });
      delete server.tools[name];
      delete server.pending[name];
    }
    return changes;
  });
}

/** " (known servers: …)" naming ids that contain the given text, to help with a mistyped id. */
function suggest(store: PinStore, serverId: string): string {
  const ids = Object.keys(store.servers);
  if (ids.length === 0) return ' (the store is empty)';
  const close = ids.filter((id) => id.includes(serverId) || serverId.includes(id));
  const shown = (close.length > 0 ? close : ids).slice(0, 5).map((id) => JSON.stringify(id));
  return ` (${close.length > 0 ? 'did you mean' : 'known servers:'} ${shown.join(', ')})`;
}

// ---------------------------------------------------------------------------------------------
// Atomic write and the lock (mkdir is atomic on every local filesystem)
// ---------------------------------------------------------------------------------------------

function writeAtomic(path: string, text: string): void {
  try {
    writeFileAtomicSync(path, text);
  } catch (e) {
    throw new AsimovError('mcp_pins_io_error', `cannot write the MCP pin store: ${(e as Error).message}`, { file: path }, { cause: e });
  }
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

function acquireLock(lock: string): void {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  let delay = 1;
  for (;;) {
    try {
      mkdirSync(lock, { mode: 0o700 });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new AsimovError('mcp_pins_io_error', `cannot lock the MCP pin store: ${(e as Error).message}`, { file: lock }, { cause: e });
      }
    }
    // A lock this old was left by a crashed process. Removing it can race with another process doing the
    // same; the worst case is two writers in turn, each writing a complete store (rename is atomic).
    try {
      if (Date.now() - statSync(lock).mtimeMs >= LOCK_STALE_MS) {
        rmdirSync(lock);
        continue;
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
      throw new AsimovError('mcp_pins_io_error', `cannot lock the MCP pin store: ${(e as Error).message}`, { file: lock }, { cause: e });
    }
    if (Date.now() >= deadline) {
      throw new AsimovError('mcp_pins_io_error', 'the MCP pin store is locked by another process; if no asimov process is running, remove this directory', { file: lock });
    }
    Atomics.wait(SLEEPER, 0, 0, delay + Math.random() * delay);
    delay = Math.min(delay * 2, 25);
  }
}

function releaseLock(lock: string): void {
  try {
    rmdirSync(lock);
  } catch {
    // broken as stale by another process meanwhile
  }
}
