// Codex's hook trust: a user-level hook runs only when `$CODEX_HOME/config.toml` records its hash, as
//   [hooks.state."<hooks file>:pre_tool_use:<group>:<handler>"]
//   trusted_hash = "sha256:<hex>"
// Without that record Codex skips the hook silently and runs every tool unchecked (verified with codex
// 0.169.0). `asimov wire codex` records the trust of exactly its own entry, the same act as a person
// approving it in Codex's hook review; no other hook, folder or setting is trusted or changed.
//
// The hash (codex-rs hooks discovery, `command_hook_hash`): SHA-256 over the compact JSON, keys sorted,
// of {event_name, matcher, hooks: [{type: "command", command, timeout, async}]}, with absent options
// left out. Verified against the real CLI: a record computed here makes Codex run the hook.
//
// config.toml is the person's own file, so it is edited in place: a small TOML scanner finds the
// statements, and only the bytes of asimov's record are added, changed or removed.

import { createHash } from 'node:crypto';
import { AsimovError } from '../core/errors.ts';
import { invalidAt } from './json-settings.ts';

/** One hook's identity as Codex hashes it. */
export interface CodexHookIdentity {
  /** Codex's state-key label of the event: `pre_tool_use`. */
  event: string;
  /** Absent when the group has no matcher (Codex then omits it from the hash). */
  matcher?: string;
  command: string;
  timeoutSec: number;
}

export interface TrustRecord {
  key: string;
  hash: string;
}

export function codexTrustHash(h: CodexHookIdentity): string {
  const identity: Record<string, unknown> = {
    event_name: h.event,
    hooks: [{ type: 'command', command: h.command, timeout: Math.max(1, h.timeoutSec), async: false }],
  };
  if (h.matcher !== undefined) identity['matcher'] = h.matcher;
  return `sha256:${createHash('sha256').update(JSON.stringify(sortKeys(identity))).digest('hex')}`;
}

/** The state key of the hook at `hooks.<event>[group].hooks[handler]` of a hooks file. */
export function codexTrustKey(hooksFile: string, event: string, group: number, handler: number): string {
  return `${hooksFile}:${event}:${group}:${handler}`;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  }
  return v;
}

export interface TrustPlanOptions {
  /** For messages: config.toml's path. */
  file: string;
  /** The record that must be there (asimov's current hook); null when uninstalling. */
  want: TrustRecord | null;
  /** Records of asimov's earlier entries: removed where they still hold exactly that hash. */
  drop: readonly TrustRecord[];
}

/**
 * Adds, updates or removes asimov's trust records in config.toml's text, leaving every other byte alone.
 * A record asimov did not write (a different hash) is never removed. Throws AsimovError
 * wire_settings_invalid where the file cannot be read, or defines the record in a form this edit would
 * break (an inline `hooks.state = {…}`, dotted keys).
 */
export function planCodexTrust(text: string | null, o: TrustPlanOptions): { text: string | null; changes: string[] } {
  let t = text ?? '';
  const changes: string[] = [];
  for (const d of o.drop) {
    if (o.want && d.key === o.want.key) continue;
    const table = findStateTable(t, o.file, d.key);
    if (!table?.hash || table.hash.value !== d.hash) continue;
    t = table.onlyOurs ? removeTable(t, table) : cut(t, table.hash.start, table.hash.end);
    changes.push(o.want ? `removed the trust record of an earlier asimov hook (${d.key})` : `removed the trust record of asimov's hook (${d.key})`);
  }
  if (o.want) {
    const eol = /\r\n/.test(t) ? '\r\n' : '\n';
    let table = findStateTable(t, o.file, o.want.key);
    if (table?.enabledFalse) {
      t = cut(t, table.enabledFalse.start, table.enabledFalse.end);
      changes.push(`removed enabled = false from asimov's hook state (it switched the hook off)`);
      table = findStateTable(t, o.file, o.want.key);
    }
    if (!table) {
      const sep = t === '' ? '' : t.endsWith('\n') ? eol : eol + eol;
      t += `${sep}[hooks.state.${tomlString(o.want.key)}]${eol}trusted_hash = ${tomlString(o.want.hash)}${eol}`;
      changes.push(`trusted asimov's hook (hooks.state."${o.want.key}")`);
    } else {
      if (!table.hash) {
        t = `${t.slice(0, table.headerEnd)}trusted_hash = ${tomlString(o.want.hash)}${eol}${t.slice(table.headerEnd)}`;
        changes.push(`trusted asimov's hook (hooks.state."${o.want.key}")`);
      } else if (table.hash.value !== o.want.hash) {
        t = `${t.slice(0, table.hash.valueStart)}${tomlString(o.want.hash)}${t.slice(table.hash.valueEnd)}`;
        changes.push(`updated the trust record of asimov's hook (hooks.state."${o.want.key}")`);
      }
    }
  }
  if (changes.length === 0) return { text, changes };
  return { text: t, changes };
}

function cut(t: string, start: number, end: number): string {
  return t.slice(0, start) + t.slice(end);
}

/** Removes a whole table, and the blank line that set it apart (so an install then an uninstall gives the bytes back). */
function removeTable(t: string, table: StateTable): string {
  let start = table.start;
  let end = table.end;
  const before = t.slice(0, start);
  const blank = /(\r?\n)[ \t]*\r?\n$/.exec(before);
  if (blank) start -= blank[0].length - blank[1]!.length;
  else if (start === 0) {
    const after = /^[ \t]*\r?\n/.exec(t.slice(end));
    if (after) end += after[0].length;
  }
  return cut(t, start, end);
}

/** A TOML basic string for any text (control characters and DEL escaped). */
export function tomlString(s: string): string {
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) throw new AsimovError('wire_settings_invalid', 'a trust key or hash is not valid Unicode', {});
  return JSON.stringify(s).replace(/\x7f/g, '\\u007f');
}

interface StateTable {
  start: number;
  end: number;
  headerEnd: number;
  hash?: { start: number; end: number; valueStart: number; valueEnd: number; value: string | null };
  enabledFalse?: { start: number; end: number };
  /** The table holds nothing but trusted_hash and enabled: removing the record may remove the table. */
  onlyOurs: boolean;
}

/** The `[hooks.state."<key>"]` table, or undefined; throws where the key is defined in another form. */
function findStateTable(t: string, file: string, key: string): StateTable | undefined {
  const target = ['hooks', 'state', key];
  let current: string[] = [];
  let found: StateTable | undefined;
  let inFound = false;
  for (const s of scanToml(t, file)) {
    if (s.kind !== 'keyval') {
      inFound = false;
      current = s.path;
      const related = isPrefix(s.path, target) || isPrefix(target, s.path);
      if (s.kind === 'table' && equal(s.path, target)) {
        if (found) throw invalidAt({ text: t, file }, s.start, `the table [hooks.state."${key}"] is defined twice`);
        found = { start: s.start, end: s.end, headerEnd: s.end, onlyOurs: true };
        inFound = true;
      } else if (s.kind === 'array-table' && related) {
        throw invalidAt({ text: t, file }, s.start, `[[${s.path.join('.')}]] is in the way of Codex's hook state; asimov does not edit it`);
      }
      continue;
    }
    const full = [...current, ...s.path];
    if (inFound && found) {
      found.end = s.end;
      if (equal(s.path, ['trusted_hash'])) {
        found.hash = { start: s.start, end: s.end, valueStart: s.valueStart!, valueEnd: s.valueEnd!, value: stringValue(t.slice(s.valueStart, s.valueEnd)) };
      } else if (equal(s.path, ['enabled'])) {
        if (t.slice(s.valueStart, s.valueEnd) === 'false') found.enabledFalse = { start: s.start, end: s.end };
      } else found.onlyOurs = false;
      continue;
    }
    if (isPrefix(full, target) || isPrefix(target, full)) {
      throw invalidAt({ text: t, file }, s.start, `\`${s.path.join('.')}\` defines Codex's hook state (${full.join('.')}) in a form asimov does not edit; write it as a [hooks.state."…"] table`);
    }
  }
  return found;
}

function isPrefix(a: readonly string[], b: readonly string[]): boolean {
  return a.length <= b.length && a.every((x, i) => x === b[i]);
}

function equal(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && isPrefix(a, b);
}

/** The value of a one-line TOML string literal, or null for any other value. */
export function stringValue(raw: string): string | null {
  if (raw.startsWith("'") && !raw.startsWith("'''")) return raw.slice(1, -1);
  if (raw.startsWith('"') && !raw.startsWith('"""')) return decodeBasic(raw.slice(1, -1));
  return null;
}

function decodeBasic(s: string): string | null {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = s[++i];
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };
    if (e !== undefined && e in simple) out += simple[e];
    else if (e === 'u' || e === 'U' || e === 'x') {
      const len = e === 'u' ? 4 : e === 'U' ? 8 : 2;
      const hex = s.slice(i + 1, i + 1 + len);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) return null;
      out += String.fromCodePoint(parseInt(hex, 16));
      i += len;
    } else return null;
  }
  return out;
}

// --- a TOML statement scanner: enough to find tables and keys with their offsets, never a full parser ---

interface Statement {
  kind: 'table' | 'array-table' | 'keyval';
  /** The header's key, or the key of a key/value pair (relative to its table). */
  path: string[];
  /** Start of the statement's line and the offset after its line ending. */
  start: number;
  end: number;
  valueStart?: number;
  valueEnd?: number;
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const SCALAR = /[^\s,\]}#]+(?: \d{2}:[^\s,\]}#]*)?/y;

export function scanToml(text: string, file: string): Statement[] {
  const out: Statement[] = [];
  let i = 0;
  const fail = (at: number, why: string): never => {
    throw invalidAt({ text, file }, at, `asimov could not read this TOML: ${why}`);
  };
  const ws = (j: number) => {
    while (text[j] === ' ' || text[j] === '\t') j++;
    return j;
  };
  const eolAt = (j: number) => (text[j] === '\n' ? 1 : text[j] === '\r' && text[j + 1] === '\n' ? 2 : 0);
  /** Spaces, line endings and comments, as allowed inside arrays and inline tables. */
  const wsAll = (j: number) => {
    for (;;) {
      j = ws(j);
      if (text[j] === '#') while (j < text.length && !eolAt(j)) j++;
      const e = eolAt(j);
      if (!e) return j;
      j += e;
    }
  };
  const endOfLine = (j: number) => {
    j = ws(j);
    if (text[j] === '#') while (j < text.length && !eolAt(j)) j++;
    if (j >= text.length) return j;
    const e = eolAt(j);
    if (!e) fail(j, 'expected the end of the line');
    return j + e;
  };
  const quoted = (j: number): { value: string; next: number } => {
    const q = text[j]!;
    let k = j + 1;
    while (k < text.length && text[k] !== q) {
      if (eolAt(k)) fail(k, 'a line ending inside a string');
      k += q === '"' && text[k] === '\\' ? 2 : 1;
    }
    if (k >= text.length) fail(j, 'an unterminated string');
    const raw = text.slice(j + 1, k);
    const value = q === "'" ? raw : decodeBasic(raw);
    if (value === null) fail(j, 'a string with an escape asimov does not know');
    return { value: value!, next: k + 1 };
  };
  const key = (j: number): { path: string[]; next: number } => {
    const path: string[] = [];
    for (;;) {
      j = ws(j);
      const c = text[j];
      if (c === '"' || c === "'") {
        const q = quoted(j);
        path.push(q.value);
        j = q.next;
      } else {
        const s = j;
        while (j < text.length && BARE_KEY.test(text[j]!)) j++;
        if (j === s) fail(j, 'a key was expected');
        path.push(text.slice(s, j));
      }
      j = ws(j);
      if (text[j] !== '.') return { path, next: j };
      j++;
    }
  };
  const value = (j: number): number => {
    if (text.startsWith('"""', j) || text.startsWith("'''", j)) {
      const q = text.slice(j, j + 3);
      let k = j + 3;
      for (;;) {
        const at = text.indexOf(q, k);
        if (at < 0) fail(j, 'an unterminated multi-line string');
        let backslashes = 0;
        for (let b = at - 1; q === '"""' && text[b] === '\\'; b--) backslashes++;
        if (backslashes % 2 === 0) {
          let end = at + 3;
          while (text[end] === q[0] && end < at + 5) end++;
          return end;
        }
        k = at + 1;
      }
    }
    const c = text[j];
    if (c === '"' || c === "'") return quoted(j).next;
    if (c === '[' || c === '{') {
      const close = c === '[' ? ']' : '}';
      j = wsAll(j + 1);
      while (text[j] !== close) {
        if (c === '{') {
          j = key(j).next;
          if (text[j] !== '=') fail(j, "'=' was expected");
          j = ws(j + 1);
        }
        j = wsAll(value(j));
        if (text[j] === ',') j = wsAll(j + 1);
        else if (text[j] !== close) fail(j, `',' or '${close}' was expected`);
      }
      return j + 1;
    }
    // A number, boolean or date; the one space a scalar may hold is between a date and its time.
    SCALAR.lastIndex = j;
    const m = SCALAR.exec(text);
    if (!m) fail(j, 'a value was expected');
    return j + m![0].length;
  };

  if (text.charCodeAt(0) === 0xfeff) i = 1;
  while (i < text.length) {
    const start = i;
    i = ws(i);
    if (i >= text.length) break;
    const e = eolAt(i);
    if (e) {
      i += e;
      continue;
    }
    if (text[i] === '#') {
      i = endOfLine(i);
      continue;
    }
    if (text[i] === '[') {
      const array = text[i + 1] === '[';
      const k = key(i + (array ? 2 : 1));
      let j = k.next;
      if (text[j] !== ']' || (array && text[j + 1] !== ']')) fail(j, "']' was expected");
      j = endOfLine(j + (array ? 2 : 1));
      out.push({ kind: array ? 'array-table' : 'table', path: k.path, start, end: j });
      i = j;
      continue;
    }
    const k = key(i);
    if (text[k.next] !== '=') fail(k.next, "'=' was expected");
    const valueStart = ws(k.next + 1);
    const valueEnd = value(valueStart);
    i = endOfLine(valueEnd);
    out.push({ kind: 'keyval', path: k.path, start, end: i, valueStart, valueEnd });
  }
  return out;
}
