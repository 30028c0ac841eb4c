// Redaction: removes secrets from everything the audit log keeps and caps large strings, in linear time.

import { sha256Hex } from '../core/lazy.ts';
import { findCredentials, type CredentialKind } from '../content/secrets.ts';

/** Strings longer than this many UTF-8 bytes (a Write's file content, a pasted log) are cut. */
export const MAX_STRING_BYTES = 8 * 1024;
/** Deeper nesting than this is replaced by a marker, so a hostile input cannot overflow the stack. */
export const MAX_DEPTH = 64;

/**
 * The kinds named in `[REDACTED:<kind>]` markers: the credential values content/secrets.ts finds (under the
 * names the log has always used for the first ones), plus what only context reveals here (a value after
 * `password=`, in an Authorization header, after `curl -u user:`).
 */
export type SecretKind =
  | Exclude<CredentialKind, 'aws-access-key' | 'aws-secret' | 'gcp-service-account'>
  | 'aws-access-key-id'
  | 'aws-secret-key'
  | 'cli-credentials'
  | 'authorization'
  | 'bearer-token'
  | 'secret-assignment'
  | 'secret-field';

/** Marker names that predate the shared detector, kept so that logs stay comparable. */
function markerKind(k: CredentialKind): SecretKind {
  if (k === 'aws-access-key') return 'aws-access-key-id';
  if (k === 'aws-secret') return 'aws-secret-key';
  if (k === 'gcp-service-account') return 'private-key';
  return k;
}

export function redactionMarker(kind: SecretKind): string {
  return `[REDACTED:${kind}]`;
}

const MARKER_PREFIX = '[REDACTED:';

// ---------------------------------------------------------------------------------------------
// Linear time. JavaScript regexes backtrack, so a pattern that scans far and then fails, tried at
// every start position, is quadratic. Every pattern below therefore has one of two shapes:
//   - a literal prefix followed by bounded classes (fails after a constant number of steps), or
//   - a literal prefix followed by ONE greedy class with nothing required after it (once the prefix
//     matches, the match succeeds and consumes the run, so the run is never scanned again).
// Anything more (where a value ends, whether a JWT has three parts) is decided by hand-written code
// that scans forward once, and the scan resumes after whatever that code looked at.
// ---------------------------------------------------------------------------------------------

interface Hit {
  start: number;
  end: number;
  replacement: string;
}
/** A hit to replace, or the index to resume scanning from when the match is not a secret. */
type Handler = (m: RegExpExecArray, s: string) => Hit | number;

/** Runs one global regex over `s`; returns the rewritten string, or null when nothing was replaced. */
function scan(s: string, re: RegExp, handle: Handler): string | null {
  const parts: string[] = [];
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const r = handle(m, s);
    if (typeof r === 'number') {
      re.lastIndex = Math.max(r, m.index + 1);
      continue;
    }
    parts.push(s.slice(last, r.start), r.replacement);
    last = r.end;
    re.lastIndex = Math.max(r.end, m.index + 1);
  }
  if (parts.length === 0) return null;
  parts.push(s.slice(last));
  return parts.join('');
}

/** Replaces capture group 1 (the secret) and keeps the context around it; the regex needs the `d` flag. */
function group1(kind: SecretKind): Handler {
  return (m) => {
    const secret = m[1] ?? '';
    const span = m.indices?.[1];
    const end = m.index + m[0].length;
    if (!span || secret === '' || !isSecretValue(secret)) return end;
    return { start: span[0], end: span[1], replacement: redactionMarker(kind) };
  };
}

// Character classes used by the hand-written scanners.
function isSpaceOrTab(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}
function isWhitespace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
}
/** Characters of a variable, flag or config key name: `GITHUB_TOKEN`, `--api-key`, `db.password`. */
function isNameChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) ||
    code === 95 /* _ */ || code === 45 /* - */ || code === 46 /* . */
  );
}

/** `$TOKEN` or `${TOKEN}`: a reference to a secret, not the secret; kept so the log stays useful. */
function isReference(v: string): boolean {
  return /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(v);
}

function isSecretValue(v: string): boolean {
  if (v === '' || v.startsWith(MARKER_PREFIX) || isReference(v)) return false;
  return !/^(?:null|true|false|none|~)$/i.test(v);
}

// The names the brief lists (TOKEN, SECRET, PASSWORD, PASSWD, API_KEY, APIKEY, PRIVATE_KEY, CREDENTIAL)
// plus PASSPHRASE. TOKENS/TOKENIZER are excluded: `max_tokens=4096` is an LLM setting, not a secret.
const SENSITIVE_NAME = /TOKEN(?!S|IZ)|SECRET|PASSW(?:OR)?D|API_?KEY|PRIVATE_?KEY|CREDENTIAL|PASSPHRASE/;
// Names that hold where a secret is, not the secret: `--token-file ./t`, `SECRETS_DIR=/run/secrets`.
const LOCATION_NAME = /_(?:FILE|FILENAME|PATH|DIR)$/;
// Object keys also hide a header's value: {"headers": {"Authorization": "Bearer …"}}.
const SENSITIVE_KEY = /AUTHORIZATION|COOKIE/;

function normalizeName(name: string): string {
  return name.toUpperCase().replace(/[-.\s]/g, '_');
}

/** Whether a variable, flag or key name says its value is a secret (`GITHUB_TOKEN`, `--password`). */
export function isSensitiveName(name: string): boolean {
  const n = normalizeName(name);
  return SENSITIVE_NAME.test(n) && !LOCATION_NAME.test(n);
}

function isSensitiveKey(key: string): boolean {
  return isSensitiveName(key) || SENSITIVE_KEY.test(normalizeName(key));
}

// --- Authorization headers: `Authorization: Bearer x`, `authorization=Basic x`, `-H 'Authorization: token x'` ---
const AUTH_HEADER =
  /(?<![A-Za-z0-9_-])(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token|digest|negotiate|bot|apikey)[ \t]+)?/gi;
const authValue: Handler = (m, s) => {
  const start = m.index + m[0].length;
  let end = start;
  while (end < s.length) {
    const c = s[end];
    if (isWhitespace(c) || c === '"' || c === "'" || c === '`' || c === '\\' || c === ',') break;
    end++;
  }
  const value = s.slice(start, end);
  if (!isSecretValue(value)) return end;
  return { start, end, replacement: redactionMarker('authorization') };
};

// --- name=value and name: value assignments whose name says secret ---
const SENSITIVE_WORD = /token|secret|passw(?:or)?d|api[_-]?key|private[_-]?key|credential|passphrase/gi;

/** Whether the name at `a` begins its line (only indentation or a YAML `- ` before it). */
function startsLine(s: string, a: number): boolean {
  let i = a - 1;
  while (i >= 0 && isSpaceOrTab(s[i])) i--;
  if (i >= 0 && s[i] === '-') {
    i--;
    while (i >= 0 && isSpaceOrTab(s[i])) i--;
  }
  return i < 0 || s[i] === '\n' || s[i] === '\r';
}

function lineEnd(s: string, from: number): number {
  const nl = s.indexOf('\n', from);
  return nl < 0 ? s.length : nl;
}

/**
 * Index of the quote closing a string opened just before `from`, or the end of the text when it is
 * never closed: the value is then redacted to the end, which also keeps the scan from ever running
 * over the same text twice.
 */
function closingQuote(s: string, from: number, q: string): number {
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && q === '"') i++;
    else if (c === q) return i;
  }
  return s.length;
}

function indentOf(s: string, lineStart: number): number {
  let i = lineStart;
  while (i < s.length && isSpaceOrTab(s[i])) i++;
  return i - lineStart;
}

/** End of a YAML block scalar (`key: |`): the following lines indented deeper than the key, and blank lines. */
function blockScalarEnd(s: string, keyStart: number, from: number): number {
  const keyLineStart = s.lastIndexOf('\n', keyStart) + 1;
  const keyIndent = indentOf(s, keyLineStart);
  let end = lineEnd(s, from);
  let next = end + 1;
  while (next < s.length) {
    const e = lineEnd(s, next);
    const blank = s.slice(next, e).trim() === '';
    if (!blank && indentOf(s, next) <= keyIndent) break;
    if (!blank) end = e;
    next = e + 1;
  }
  return end;
}

const assignment: Handler = (m, s) => {
  let a = m.index;
  while (a > 0 && isNameChar(s.charCodeAt(a - 1))) a--;
  let b = m.index + m[0].length;
  while (b < s.length && isNameChar(s.charCodeAt(b))) b++;
  // Resume after the whole name, so a name is examined once however many sensitive words it holds.
  if (!isSensitiveName(s.slice(a, b))) return b;

  let p = b;
  const q = a > 0 ? s[a - 1] : undefined;
  const quotedKey = (q === '"' || q === "'") && s[p] === q;
  if (quotedKey) p++;
  while (isSpaceOrTab(s[p])) p++;
  const next = s[p];
  let sep: '=' | ':' | 'word';
  if (next === '=') {
    if (s[p + 1] === '=') return b; // `token == x` is a comparison
    sep = '=';
  } else if (next === ':') {
    if (s[p + 1] === ':') return b; // `Token::new`
    if (!quotedKey && !startsLine(s, a)) return b; // prose: "invalid token: expected …"
    sep = ':';
  } else if (s[a] === '-' && p > b && next !== undefined && next !== '-' && !isWhitespace(next) && !'<>|;&'.includes(next)) {
    sep = 'word'; // a flag and its value as the next word: `--password hunter2`, `--api-key "k"`
  } else {
    return b;
  }
  if (sep !== 'word') {
    p++;
    while (isSpaceOrTab(s[p])) p++;
  }

  let vs: number;
  let ve: number;
  const c = s[p];
  if (c === '"' || c === "'") {
    vs = p + 1;
    ve = closingQuote(s, vs, c);
  } else if (sep !== ':') {
    vs = p;
    ve = p;
    while (ve < s.length) {
      const d = s[ve];
      if (isWhitespace(d) || d === ';' || d === '&' || d === '|' || d === '<' || d === '>' ||
          d === '(' || d === ')' || d === '`' || d === '"' || d === "'") break;
      ve++;
    }
  } else if (quotedKey) {
    // JSON / Python dict with an unquoted value: up to the next `,` `}` `]` or line end.
    vs = p;
    ve = p;
    while (ve < s.length && s[ve] !== ',' && s[ve] !== '}' && s[ve] !== ']' && s[ve] !== '\n') ve++;
    while (ve > vs && isWhitespace(s[ve - 1])) ve--;
  } else {
    // YAML `password: value` to the end of the line, or a `|` / `>` block on the lines below.
    vs = p;
    ve = lineEnd(s, p);
    while (ve > vs && isWhitespace(s[ve - 1])) ve--;
    if (/^[|>][-+0-9]*$/.test(s.slice(vs, ve))) {
      const end = blockScalarEnd(s, a, ve);
      if (end <= ve) return Math.max(ve, b);
      vs = ve;
      ve = end;
      return { start: vs, end: ve, replacement: ` ${redactionMarker('secret-assignment')}` };
    }
  }
  if (!isSecretValue(s.slice(vs, ve))) return Math.max(ve, b);
  return { start: vs, end: ve, replacement: redactionMarker('secret-assignment') };
};

// --- `curl -u user:password`, `--user=user:password`, `--proxy-user user:password` ---
// The user part stops at whitespace, so each try is short.
const CLI_USER = /(?<![A-Za-z0-9_-])(-u|--user|--proxy-user)(?:[ \t]+|=)["']?[^\s:"']+:([^\s"']+)/dg;
const cliUser: Handler = (m, s) => {
  const end = m.index + m[0].length;
  // `-u` is also git push's `-u origin src:dst`; take it as credentials only in a curl command nearby.
  if (m[1] === '-u' && !/\bcurl\b/.test(s.slice(Math.max(0, m.index - 300), m.index))) return end;
  const span = m.indices?.[2];
  const secret = m[2] ?? '';
  if (!span || !isSecretValue(secret)) return end;
  return { start: span[0], end: span[1], replacement: redactionMarker('cli-credentials') };
};

interface Pass {
  kind: SecretKind;
  re: RegExp;
  handle: Handler;
}

// The credential values (keys, tokens, JWTs, URL passwords) come first, from the shared detector
// (valueRedaction below); these passes then find what only its context makes secret, and skip values
// that are already markers.
const PASSES: readonly Pass[] = [
  { kind: 'cli-credentials', re: CLI_USER, handle: cliUser },
  { kind: 'authorization', re: AUTH_HEADER, handle: authValue },
  { kind: 'bearer-token', re: /(?<![A-Za-z0-9_-])bearer[ \t]+([A-Za-z0-9._~+/-]{8,}=*)/dgi, handle: group1('bearer-token') },
  { kind: 'secret-assignment', re: SENSITIVE_WORD, handle: assignment },
];

/**
 * Every credential value of a known shape (content/secrets.ts in `redact` mode: placeholders and
 * documentation examples included, since removing them costs nothing), replaced by its marker. Where two
 * hits overlap (a token that is also a URL's password) the one that starts first, and then the one the
 * detector reported first, is kept.
 */
function valueRedaction(s: string): { text: string; kinds: SecretKind[] } | null {
  const hits = findCredentials(s, { mode: 'redact' });
  if (hits.length === 0) return null;
  hits.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  const kinds: SecretKind[] = [];
  let last = 0;
  for (const h of hits) {
    if (h.start < last) continue;
    const kind = markerKind(h.kind);
    parts.push(s.slice(last, h.start), redactionMarker(kind));
    if (!kinds.includes(kind)) kinds.push(kind);
    last = h.end;
  }
  parts.push(s.slice(last));
  return { text: parts.join(''), kinds };
}

export interface TextRedaction {
  text: string;
  /** The kinds of secret found, in the order the passes ran; empty when the text was clean. */
  kinds: SecretKind[];
}

/** Replaces every secret in one string by `[REDACTED:<kind>]`. Does not truncate. */
export function redactSecrets(s: string): TextRedaction {
  let text = s;
  const kinds: SecretKind[] = [];
  const values = valueRedaction(s);
  if (values !== null) {
    text = values.text;
    kinds.push(...values.kinds);
  }
  for (const pass of PASSES) {
    const next = scan(text, pass.re, pass.handle);
    if (next !== null) {
      text = next;
      kinds.push(pass.kind);
    }
  }
  return { text, kinds };
}

/**
 * Cuts a string to MAX_STRING_BYTES of UTF-8 (never inside a character) and says what was cut. The
 * sha256 is of the whole string after redaction: it matches the original whenever nothing secret was
 * in it, and can never confirm a guess at a secret.
 */
export function truncateString(s: string): string {
  if (s.length * 3 <= MAX_STRING_BYTES) return s;
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= MAX_STRING_BYTES) return s;
  let cut = MAX_STRING_BYTES;
  while (cut > 0 && ((buf[cut] ?? 0) & 0xc0) === 0x80) cut--;
  const sha = sha256Hex(buf);
  return `${buf.subarray(0, cut).toString('utf8')}…[truncated ${buf.length - cut} bytes, sha256 ${sha}]`;
}

/**
 * One string as the log keeps it: secrets redacted, then cut to MAX_STRING_BYTES. `redacted` says
 * whether a secret was removed (a cut alone does not count).
 */
export function redactText(s: string): { text: string; redacted: boolean } {
  const r = redactSecrets(s);
  return { text: truncateString(r.text), redacted: r.kinds.length > 0 };
}

function childPath(parent: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

export interface Redacted<T> {
  value: T;
  /** JSON paths (`input.command`, `input.env.GITHUB_TOKEN`, `input.args[2]`) where something was removed. */
  erased: string[];
}

/**
 * A JSON-safe copy of `value` with every secret removed and every long string cut. Follows
 * JSON.stringify for what JSON cannot hold (toJSON honoured, undefined and functions dropped from
 * objects and null in arrays, NaN as null, bigint as its digits); cycles and deep nesting become markers.
 */
export function redactValue(value: unknown, path: string): Redacted<unknown> {
  const erased = new Set<string>();
  const v = walk(value, path, 0, erased, new Set<object>());
  return { value: v, erased: [...erased] };
}

/** The input of a tool call, redacted; paths start with `input`. */
export function redactInput(input: Record<string, unknown>): Redacted<Record<string, unknown>> {
  const r = redactValue(input, 'input');
  const v = r.value;
  const value = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  return { value, erased: r.erased };
}

function walk(v: unknown, path: string, depth: number, erased: Set<string>, ancestors: Set<object>): unknown {
  switch (typeof v) {
    case 'string': {
      const c = redactText(v);
      if (c.redacted) erased.add(path);
      return c.text;
    }
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'boolean':
      return v;
    case 'bigint':
      return v.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (v === null) return null;
  const obj = v as object;
  if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') {
    return walk((obj as { toJSON: () => unknown }).toJSON(), path, depth, erased, ancestors);
  }
  if (ancestors.has(obj)) return '[CIRCULAR]';
  if (depth >= MAX_DEPTH) return '[TRUNCATED:depth]';
  ancestors.add(obj);
  try {
    if (Array.isArray(obj)) {
      return obj.map((item, i) => {
        const w = walk(item, `${path}[${i}]`, depth + 1, erased, ancestors);
        return w === undefined ? null : w;
      });
    }
    const out: Record<string, unknown> = {};
    for (const rawKey of Object.keys(obj)) {
      const item = (obj as Record<string, unknown>)[rawKey];
      const k = redactText(rawKey);
      const key = k.text;
      const p = childPath(path, key);
      if (k.redacted) erased.add(p);
      if (isSensitiveKey(rawKey) && holdsSecret(item)) {
        out[key] = redactionMarker('secret-field');
        erased.add(p);
        continue;
      }
      const w = walk(item, p, depth + 1, erased, ancestors);
      if (w !== undefined) out[key] = w;
    }
    return out;
  } finally {
    ancestors.delete(obj);
  }
}

/** Values under a secret-sounding key that are replaced whole: strings and containers, not counts or flags. */
function holdsSecret(v: unknown): boolean {
  if (typeof v === 'string') return isSecretValue(v);
  return v !== null && typeof v === 'object';
}
