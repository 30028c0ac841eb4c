// What a change to a JSON settings file changes: both versions parsed the way an agent would read them,
// and the key paths whose values differ. Anything this cannot read with certainty is an error, never a guess.

import { parseTree, type Node, type ParseError } from 'jsonc-parser';

/** A parsed JSON value. Objects are Maps so that keys like `__proto__` are data, never prototype lookups. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

/** `json`: what JSON.parse accepts (Claude Code). `jsonc`: comments allowed too (Gemini CLI, OpenCode). */
export type SettingsSyntax = 'json' | 'jsonc';

/** A settings text larger than this is not analysed (the agent's files are a few KB). */
export const MAX_SETTINGS_CHARS = 256 * 1024;

export type ParsedSettings = { ok: true; value: JsonObject } | { ok: false; why: string };

/**
 * Parse a settings file strictly. Refused (ok: false), because the agent may read them differently from us
 * or skip the file whole (and with it every hook and deny rule in it): a syntax error, a trailing comma,
 * comments in a `json` file, a byte-order mark, a root that is not an object, and a duplicate key in any
 * object (JSON.parse keeps the last one, other parsers the first: `{"hooks":{…},"hooks":{}}` must not
 * read as "no hooks" to us and as hooks to the agent).
 */
export function parseSettings(text: string, syntax: SettingsSyntax): ParsedSettings {
  if (text.length > MAX_SETTINGS_CHARS) return { ok: false, why: `it is larger than ${MAX_SETTINGS_CHARS} characters` };
  if (text.startsWith('\uFEFF')) return { ok: false, why: 'it starts with a byte-order mark, which not every agent reads' };
  if (text.trim() === '') return { ok: false, why: 'it is empty' };
  const errors: ParseError[] = [];
  let tree: Node | undefined;
  try {
    tree = parseTree(text, errors, { disallowComments: syntax === 'json', allowTrailingComma: false, allowEmptyContent: false });
    // Both parsers must accept a `json` file: the agent uses JSON.parse or stricter.
    if (syntax === 'json') JSON.parse(text);
  } catch {
    return { ok: false, why: 'it is not valid JSON' };
  }
  if (errors.length > 0 || tree === undefined) return { ok: false, why: syntax === 'json' ? 'it is not valid JSON' : 'it is not valid JSON with comments' };
  if (tree.type !== 'object') return { ok: false, why: 'its top level is not an object' };
  try {
    const value = toValue(tree);
    return value instanceof Map ? { ok: true, value } : { ok: false, why: 'its top level is not an object' };
  } catch (e) {
    if (e instanceof DuplicateKeyError) return { ok: false, why: `the key "${e.key}" appears twice in one object` };
    return { ok: false, why: 'it could not be read' };
  }
}

class DuplicateKeyError extends Error {
  constructor(readonly key: string) {
    super(`duplicate key ${key}`);
  }
}

/** The value of a parse-tree node; property names arrive unescaped (`"\u0068ooks"` is `hooks`). */
function toValue(n: Node): JsonValue {
  switch (n.type) {
    case 'object': {
      const out: JsonObject = new Map();
      for (const prop of n.children ?? []) {
        const [k, v] = prop.children ?? [];
        if (k === undefined || v === undefined || typeof k.value !== 'string') throw new Error('malformed property');
        if (out.has(k.value)) throw new DuplicateKeyError(k.value);
        out.set(k.value, toValue(v));
      }
      return out;
    }
    case 'array':
      return (n.children ?? []).map(toValue);
    case 'string':
    case 'number':
    case 'boolean':
      return n.value as string | number | boolean;
    case 'null':
      return null;
    default:
      throw new Error(`unexpected node ${n.type}`);
  }
}

/** One key path whose value differs; `before`/`after` are undefined where the key is absent. */
export interface SettingsChange {
  path: string[];
  before: JsonValue | undefined;
  after: JsonValue | undefined;
}

export function isObject(v: JsonValue | undefined): v is JsonObject {
  return v instanceof Map;
}

export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !jsonEqual(v, b.get(k))) return false;
    return true;
  }
  return false;
}

/**
 * Every key path whose value differs between two settings objects, outermost first. A key whose value is
 * an object on both sides (or added or removed as an object) is listed itself AND descended into, so a
 * judge sees both "ui was added" and "ui.theme was set". Arrays and scalars are compared whole.
 */
export function settingsChanges(before: JsonObject, after: JsonObject): SettingsChange[] {
  const out: SettingsChange[] = [];
  const walk = (a: JsonObject, b: JsonObject, prefix: string[]): void => {
    for (const k of new Set([...a.keys(), ...b.keys()])) {
      const x = a.get(k);
      const y = b.get(k);
      if (jsonEqual(x, y)) continue;
      const path = [...prefix, k];
      out.push({ path, before: x, after: y });
      if ((isObject(x) || x === undefined) && (isObject(y) || y === undefined)) walk(x ?? new Map(), y ?? new Map(), path);
    }
  };
  walk(before, after, []);
  return out;
}
