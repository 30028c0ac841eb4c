// The one detector of credential VALUES (a private key, a cloud key, a provider's API token, a JWT, a
// password in a URL), shared by the DLP rules (a value that leaves the machine) and the audit's redaction
// (a value the log must not keep). Pure text analysis: no policy, no I/O.
//
// Two modes. `redact` finds every value of a known SHAPE (placeholders and documentation examples included:
// removing them from a log costs nothing). `dlp` (the default) also checks what the format allows checking,
// so that a denial means a real value: GitHub's and npm's CRC32 suffix, a JWT header that decodes to JSON
// with an `alg`, a PEM body, character variety, and known placeholders (`xxxx`, `<token>`, `your-api-key`,
// `${{ secrets.X }}`, `$VAR` never match at all). Each hit carries a confidence:
//   high    - the value has the format's exact shape and passes its checks;
//   low     - the shape is there but a check failed or the prefix is shared (a `ghp_` whose checksum does not
//             verify, a generic `sk-` key, a Stripe test key): possibly real, so the caller should ask;
//   example - a value a vendor publishes in its documentation (AKIAIOSFODNN7EXAMPLE): public, not a secret.
//
// Linear time: one global trigger regex finds the places where a value may start (literal prefixes and a
// few bounded shapes); a hand-written reader per kind looks forward from there, and the scan resumes after
// whatever that reader looked at, so no text is read more than a constant number of times.

export type CredentialKind =
  | 'private-key'
  | 'gcp-service-account'
  | 'aws-access-key'
  | 'aws-secret'
  | 'github-token'
  | 'gitlab-token'
  | 'slack-token'
  | 'slack-webhook'
  | 'stripe-key'
  | 'openai-key'
  | 'anthropic-key'
  | 'google-api-key'
  | 'npm-token'
  | 'pypi-token'
  | 'jwt'
  | 'url-credentials'
  | 'azure-storage-key'
  | 'twilio-key'
  | 'sendgrid-key'
  | 'discord-token'
  | 'discord-webhook'
  | 'telegram-bot-token'
  | 'huggingface-token'
  | 'digitalocean-token'
  | 'databricks-token'
  | 'shopify-token';

/** Every kind, for policy validation (`dlp.allow[].credential`). */
export const CREDENTIAL_KINDS: readonly CredentialKind[] = [
  'private-key', 'gcp-service-account', 'aws-access-key', 'aws-secret', 'github-token', 'gitlab-token', 'slack-token',
  'slack-webhook', 'stripe-key', 'openai-key', 'anthropic-key', 'google-api-key', 'npm-token', 'pypi-token', 'jwt',
  'url-credentials', 'azure-storage-key', 'twilio-key', 'sendgrid-key', 'discord-token', 'discord-webhook',
  'telegram-bot-token', 'huggingface-token', 'digitalocean-token', 'databricks-token', 'shopify-token',
];

export type Confidence = 'high' | 'low' | 'example';

export interface Credential {
  kind: CredentialKind;
  /** The span of the secret in the text: what redaction replaces (for url-credentials, the password only). */
  start: number;
  end: number;
  /** A redacted form safe to print (`ghp_…Mq3x`): the kind's public prefix and at most the last 4 characters. */
  preview: string;
  confidence: Confidence;
  /** For url-credentials: the host the credentials are written for (lower-cased), when it can be read. */
  host?: string;
}

export interface FindOptions {
  /** `dlp` (default): values that pass their format's checks. `redact`: every value of a known shape. */
  mode?: 'dlp' | 'redact';
  /** Stop after this many hits (default unlimited). */
  limit?: number;
}

// ---------------------------------------------------------------------------------------------------------
// Character classes (by char code, for the hand-written readers)

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isUrlsafe(c: number): boolean {
  return isAlnum(c) || c === 45 /* - */ || c === 95 /* _ */;
}
function isB64(c: number): boolean {
  return isAlnum(c) || c === 43 /* + */ || c === 47 /* / */ || c === 61 /* = */;
}
function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}
function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
/** AWS key ids: upper-case base32 (A-Z, 2-7); digits 0, 1, 8, 9 are accepted in redact mode only. */
function isUpperAlnum(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** End of the run of `cls` characters starting at `from` (at most `max` long). */
function runEnd(s: string, from: number, cls: (c: number) => boolean, max = 1 << 20): number {
  let i = from;
  const stop = Math.min(s.length, from + max);
  while (i < stop && cls(s.charCodeAt(i))) i++;
  return i;
}

// ---------------------------------------------------------------------------------------------------------
// Checks

const CRC_TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32 (IEEE) of an ASCII string. */
export function crc32(s: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < s.length; i++) crc = CRC_TABLE[(crc ^ s.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(n: number, width: number): string {
  let out = '';
  while (n > 0) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(width, '0');
}

/**
 * GitHub's and npm's token format (2021): prefix, 30 random base62 characters, then the CRC32 of those 30
 * characters in 6 base62 digits. Exported for tests that need valid-looking fakes.
 */
export function base62Checksum(entropy: string): string {
  return base62(crc32(entropy), 6);
}

function checksumOk(body36: string): boolean {
  return body36.length === 36 && base62Checksum(body36.slice(0, 30)) === body36.slice(30);
}

const PLACEHOLDER_WORDS = /x{5,}|X{5,}|\*{3,}|\.{3,}|\u2026|0{8,}|1234567|abcdefgh|ABCDEFGH|your[-_]?|[-_]here\b|example|EXAMPLE|placeholder|PLACEHOLDER|redacted|REDACTED|dummy|DUMMY|changeme|CHANGEME|fake[-_]|sample|<|>|\$\{|\{\{|%s/;

/** Values people write in docs and templates instead of a secret. */
export function isPlaceholder(v: string): boolean {
  return PLACEHOLDER_WORDS.test(v) || variety(v) < Math.min(8, Math.ceil(v.length / 3));
}

/** How many distinct characters a value has: random keys use many, placeholders (`aaaa…`, `1111…`) few. */
function variety(v: string): number {
  const seen = new Set<string>();
  for (let i = 0; i < v.length && seen.size < 16; i++) seen.add(v[i]!);
  return seen.size;
}

/** Shannon entropy in bits per character. */
function entropy(v: string): number {
  const counts = new Map<string, number>();
  for (const ch of v) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / v.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** A random-looking body: no placeholder words and enough entropy for its length. */
function looksRandom(v: string, minBits = 3): boolean {
  return !isPlaceholder(v) && entropy(v) >= minBits;
}

/** Keys AWS prints in its documentation; public, so never a secret. */
const DOC_EXAMPLES = new Set([
  'AKIAIOSFODNN7EXAMPLE', 'ASIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AKIAI44QH8DHBEXAMPLE',
  'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
]);

function preview(value: string, prefixLen: number): string {
  const tail = value.length - prefixLen >= 12 ? value.slice(-4) : '';
  return `${value.slice(0, prefixLen)}…${tail}`;
}

// ---------------------------------------------------------------------------------------------------------
// The readers. Each gets the text, where its trigger matched and the mode, and returns what it found (zero
// or more hits) and where the scan resumes (never before the trigger's own end unless it wants the text
// inside re-scanned, as url-credentials does for a token in a password).

type Mode = 'dlp' | 'redact';
interface Read {
  hits: Credential[];
  resume: number;
}
const NOTHING: Credential[] = [];

function hit(kind: CredentialKind, start: number, end: number, s: string, confidence: Confidence, prefixLen: number, extra?: { host?: string }): Credential {
  const c: Credential = { kind, start, end, preview: preview(s.slice(start, end), prefixLen), confidence };
  if (extra?.host !== undefined) c.host = extra.host;
  return c;
}

/** A prefix followed by a run of `cls`; `min` characters of body needed (`exact`: only the first `exact` count). */
function prefixed(
  s: string, at: number, prefix: number, mode: Mode, kind: CredentialKind,
  o: { cls: (c: number) => boolean; min: number; redactMin?: number; exact?: number; bits?: number; check?: (body: string) => Confidence | null },
): Read {
  const bodyStart = at + prefix;
  const end = runEnd(s, bodyStart, o.cls, 4096);
  const body = s.slice(bodyStart, end);
  if (mode === 'redact') {
    if (body.length < (o.redactMin ?? o.min)) return { hits: NOTHING, resume: end };
    return { hits: [hit(kind, at, end, s, 'high', prefix)], resume: end };
  }
  if (body.length < o.min) return { hits: NOTHING, resume: end };
  // A value longer than the format (junk appended to slip past a right-hand boundary) is still the value.
  const used = o.exact !== undefined ? body.slice(0, o.exact) : body;
  const valueEnd = bodyStart + used.length;
  const value = s.slice(at, valueEnd);
  if (DOC_EXAMPLES.has(value)) return { hits: [hit(kind, at, valueEnd, s, 'example', prefix)], resume: end };
  let conf: Confidence | null;
  if (o.check) conf = o.check(used);
  else conf = looksRandom(used, o.bits ?? 3) ? 'high' : null;
  if (conf === null) return { hits: NOTHING, resume: end };
  return { hits: [hit(kind, at, valueEnd, s, conf, prefix)], resume: end };
}

function checksummed(body: string): Confidence | null {
  if (isPlaceholder(body.slice(0, 30))) return null;
  return checksumOk(body) ? 'high' : 'low';
}

const PEM_HEAD = /-----BEGIN ([A-Z0-9 ]{0,40}?)PRIVATE KEY( BLOCK)?-----/y;

/**
 * The first `-----END ` at or after `from`. Remembered per text, so that many BEGIN lines without an END
 * (hostile input) cost one search of the text, not one each.
 */
let endMemo: { s: string; at: number; found: number } | null = null;
function nextEnd(s: string, from: number): number {
  const m = endMemo;
  if (m !== null && m.s === s && from >= m.at && (m.found < 0 || m.found >= from)) return m.found;
  const found = s.indexOf('-----END ', from);
  endMemo = { s, at: from, found };
  return found;
}

/** How far after a BEGIN line a key's base64 body must start (room for Proc-Type/DEK-Info headers). */
const PEM_BODY_WINDOW = 256;

function pem(s: string, at: number, mode: Mode): Read {
  PEM_HEAD.lastIndex = at;
  const m = PEM_HEAD.exec(s);
  if (!m) return { hits: NOTHING, resume: at + 11 };
  const from = at + m[0].length;
  const endLine = nextEnd(s, from);
  let end = s.length;
  let closed = false;
  if (endLine >= 0) {
    const close = s.indexOf('-----', endLine + 9);
    if (close >= 0 && close - endLine < 80) {
      end = close + 5;
      closed = true;
    }
  }
  const before = s.slice(Math.max(0, at - 40), at);
  const kind: CredentialKind = /"private_key"\s*:\s*"$/.test(before) ? 'gcp-service-account' : 'private-key';
  const pv = `-----BEGIN ${m[1] ?? ''}PRIVATE KEY-----…`;
  if (mode === 'redact') return { hits: [{ kind, start: at, end, preview: pv, confidence: 'high' }], resume: end };
  // A key has a body: a run of at least 40 base64 characters (lines are 64) near the BEGIN line; `…`,
  // `<key>` and an empty block are how documentation shows one. A block cut off before its END line counts
  // to 64 KiB past the header.
  // The window ends at the next `-----` (an END line, or another BEGIN: a list of headers has no body).
  const dash = s.slice(from, from + PEM_BODY_WINDOW).indexOf('-----');
  const windowEnd = Math.min(closed ? endLine : s.length, dash >= 0 ? from + dash : from + PEM_BODY_WINDOW);
  let body = false;
  for (let i = from; i < windowEnd && !body; ) {
    const e = runEnd(s, i, isB64, 64);
    if (e - i >= 40 && !isPlaceholder(s.slice(i, e))) body = true;
    else i = e > i ? e : i + 1;
  }
  if (!body) return { hits: NOTHING, resume: closed ? end : from };
  const hitEnd = closed ? end : Math.min(s.length, from + 65536);
  return { hits: [{ kind, start: at, end: hitEnd, preview: pv, confidence: 'high' }], resume: hitEnd };
}

/** `LS0tLS1CRUdJTi…`: the base64 of a PEM block; decoded (up to 64 KiB) and read as one. */
function pemBase64(s: string, at: number, mode: Mode): Read {
  const end = runEnd(s, at, isB64, 65536 * 2);
  const raw = s.slice(at, end);
  let decoded: string;
  try {
    decoded = Buffer.from(raw.slice(0, raw.length - (raw.length % 4)), 'base64').toString('latin1');
  } catch {
    return { hits: NOTHING, resume: end };
  }
  const inner = pem(decoded, 0, mode);
  if (inner.hits.length === 0) return { hits: NOTHING, resume: end };
  return { hits: [{ kind: 'private-key', start: at, end, preview: 'base64 of -----BEGIN … PRIVATE KEY-----', confidence: 'high' }], resume: end };
}

const AWS_SECRET_CTX = /(?:aws_secret_access_key|aws_secret_key|secretaccesskey|secret_access_key)["']?[ \t]*(?:[:=][ \t]*|[ \t]+)["']?/iy;

function awsSecret(s: string, at: number, mode: Mode): Read {
  AWS_SECRET_CTX.lastIndex = at;
  const m = AWS_SECRET_CTX.exec(s);
  if (!m) return { hits: NOTHING, resume: at + 1 };
  const vs = at + m[0].length;
  const ve = runEnd(s, vs, isB64, 4096);
  const v = s.slice(vs, ve);
  if (mode === 'redact') {
    if (v.length < 16 || v.startsWith('[REDACTED')) return { hits: NOTHING, resume: Math.max(ve, vs) };
    return { hits: [{ kind: 'aws-secret', start: vs, end: ve, preview: 'aws secret …', confidence: 'high' }], resume: ve };
  }
  if (v.length !== 40) return { hits: NOTHING, resume: Math.max(ve, vs) };
  if (DOC_EXAMPLES.has(v)) return { hits: [{ kind: 'aws-secret', start: vs, end: ve, preview: 'aws secret …', confidence: 'example' }], resume: ve };
  if (!looksRandom(v, 3.5)) return { hits: NOTHING, resume: ve };
  return { hits: [{ kind: 'aws-secret', start: vs, end: ve, preview: `aws secret …${v.slice(-4)}`, confidence: 'high' }], resume: ve };
}

function awsKeyId(s: string, at: number, mode: Mode): Read {
  const end = runEnd(s, at + 4, isUpperAlnum, 64);
  const body = s.slice(at + 4, end);
  if (mode === 'redact') {
    if (body.length !== 16 || (at > 0 && isAlnum(s.charCodeAt(at - 1)))) return { hits: NOTHING, resume: end };
    return { hits: [hit('aws-access-key', at, end, s, 'high', 4)], resume: end };
  }
  if (body.length < 16) return { hits: NOTHING, resume: end };
  const id = s.slice(at, at + 20);
  if (DOC_EXAMPLES.has(id)) return { hits: [hit('aws-access-key', at, at + 20, s, 'example', 4)], resume: end };
  const key = body.slice(0, 16);
  // Real key ids are base32 (A-Z, 2-7).
  if (!/^[A-Z2-7]{16}$/.test(key) || isPlaceholder(key) || variety(key) < 8) return { hits: NOTHING, resume: end };
  return { hits: [hit('aws-access-key', at, at + 20, s, 'high', 4)], resume: end };
}

function githubToken(s: string, at: number, mode: Mode): Read {
  if (s.startsWith('github_pat_', at)) {
    return prefixed(s, at, 11, mode, 'github-token', { cls: (c) => isAlnum(c) || c === 95, min: 60, redactMin: 20, bits: 3.5 });
  }
  return prefixed(s, at, 4, mode, 'github-token', { cls: isAlnum, min: 36, redactMin: 20, exact: 36, check: checksummed });
}

function jwt(s: string, at: number, mode: Mode): Read {
  const end = runEnd(s, at, (c) => isUrlsafe(c) || c === 46 /* . */, 1 << 16);
  const parts = s.slice(at, end).split('.');
  const [header, payload, signature] = parts;
  if (parts.length < 3 || header === undefined || payload === undefined || signature === undefined) return { hits: NOTHING, resume: end };
  if (header.length < 10 || payload.length < 10 || !payload.startsWith('eyJ')) return { hits: NOTHING, resume: end };
  const tokenEnd = at + header.length + payload.length + signature.length + 2;
  const pv = `eyJ…${signature.length >= 12 ? signature.slice(-4) : ''}`;
  if (mode === 'redact') return { hits: [{ kind: 'jwt', start: at, end: tokenEnd, preview: pv, confidence: 'high' }], resume: end };
  const h = decodeJson(header);
  const p = decodeJson(payload);
  if (h === null || p === null || typeof h['alg'] !== 'string') return { hits: NOTHING, resume: end };
  // An unsigned token (`alg: none`) proves nothing to a server that checks signatures.
  if (/^none$/i.test(h['alg']) || signature.length < 16) return { hits: NOTHING, resume: end };
  return { hits: [{ kind: 'jwt', start: at, end: tokenEnd, preview: pv, confidence: 'high' }], resume: end };
}

function decodeJson(part: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Passwords that are defaults or template words, not someone's secret. */
const DEFAULT_PASSWORDS = /^(?:pass(?:word)?|passwd|pw|pwd|secret|root|admin|guest|test|user|postgres|mysql|redis|rabbit|changeme|example|token|x-oauth-basic|anonymous|none|null)$/i;

function urlCredentials(s: string, at: number, mode: Mode): Read {
  // `at` is the `://`; the scheme is letters before it.
  const after = at + 3;
  if (at === 0 || !isLetter(s.charCodeAt(at - 1))) return { hits: NOTHING, resume: after };
  let colon = -1;
  let i = after;
  const stop = Math.min(s.length, after + 2048);
  for (; i < stop; i++) {
    const c = s[i]!;
    if (c === '@') break;
    // No userinfo: resume right after `://`, so a value in the host or path (`hooks.slack.com/…`) is found.
    if (c === '/' || c === '?' || c === '#' || c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '"' || c === "'" || c === '<' || c === '>' || c === '`' || c === '\\') return { hits: NOTHING, resume: after };
    if (c === ':' && colon < 0) colon = i;
  }
  if (i >= stop || s[i] !== '@' || colon < 0) return { hits: NOTHING, resume: after };
  const user = s.slice(after, colon);
  const pass = s.slice(colon + 1, i);
  const hostEnd = runEnd(s, i + 1, (c) => isAlnum(c) || c === 45 || c === 46 || c === 95, 255);
  const host = s.slice(i + 1, hostEnd).toLowerCase();
  // Resume inside the password, so a token there (`x-access-token:ghs_…@`) is found and named too.
  const resume = colon + 1;
  if (pass === '' || pass.startsWith('[REDACTED')) return { hits: NOTHING, resume: i };
  if (/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(pass)) return { hits: NOTHING, resume: i };
  const c: Credential = { kind: 'url-credentials', start: colon + 1, end: i, preview: `${user === '' ? '' : `${user.slice(0, 16)}:`}…@${host}`, confidence: 'high' };
  if (host !== '') c.host = host;
  if (mode === 'redact') return { hits: [c], resume };
  if (DEFAULT_PASSWORDS.test(pass) || pass === user || pass.length < 4 || isPlaceholder(pass) || /^%[0-9a-z]|^\{|\$/i.test(pass)) return { hits: NOTHING, resume };
  return { hits: [c], resume };
}

function openai(s: string, at: number, mode: Mode): Read {
  const prev = at > 0 ? s.charCodeAt(at - 1) : 32;
  if (isUrlsafe(prev)) return { hits: NOTHING, resume: at + 3 };
  if (s.startsWith('sk-ant-', at)) {
    return prefixed(s, at, 7, mode, 'anthropic-key', { cls: isUrlsafe, min: 32, redactMin: 16, bits: 3.5 });
  }
  const end = runEnd(s, at + 3, isUrlsafe, 4096);
  const body = s.slice(at + 3, end);
  if (mode === 'redact') {
    if (body.length < 20) return { hits: NOTHING, resume: end };
    return { hits: [hit('openai-key', at, end, s, 'high', 3)], resume: end };
  }
  const typed = /^(proj|svcacct|admin|None)-/.exec(body);
  if (typed) {
    const rest = body.slice(typed[0].length);
    if (rest.length < 40 || !looksRandom(rest, 3.5)) return { hits: NOTHING, resume: end };
    return { hits: [hit('openai-key', at, end, s, 'high', 3 + typed[0].length)], resume: end };
  }
  // The legacy format: 48 alphanumerics with `T3BlbkFJ` (base64 of `OpenAI`) in the middle.
  if (/^[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}/.test(body)) return { hits: [hit('openai-key', at, at + 51, s, 'high', 3)], resume: end };
  // Other providers' `sk-` keys (DeepSeek, Moonshot, proxies): the prefix is shared and loose, so a hit is
  // only asked about, and only when it looks random (digits and letters, no words).
  if (body.length >= 32 && /[0-9]/.test(body) && /[A-Za-z]/.test(body) && !/[a-z]{3,}-[a-z]{3,}-/.test(body) && looksRandom(body, 3.8)) {
    return { hits: [hit('openai-key', at, end, s, 'low', 3)], resume: end };
  }
  return { hits: NOTHING, resume: end };
}

function stripe(s: string, at: number, mode: Mode): Read {
  if (at > 0 && isAlnum(s.charCodeAt(at - 1))) return { hits: NOTHING, resume: at + 3 };
  const live = s.startsWith('live_', at + 3);
  return prefixed(s, at, 8, mode, 'stripe-key', {
    cls: isAlnum, min: 20, redactMin: 10,
    // Test-mode keys move no money but still open the account's test data: asked, not denied.
    check: (b) => (looksRandom(b, 3.5) ? (live ? 'high' : 'low') : null),
  });
}

function slack(s: string, at: number, mode: Mode): Read {
  if (at > 0 && isAlnum(s.charCodeAt(at - 1))) return { hits: NOTHING, resume: at + 5 };
  return prefixed(s, at, 5, mode, 'slack-token', {
    cls: (c) => isAlnum(c) || c === 45, min: 20, redactMin: 10,
    check: (b) => (/^[0-9]+-/.test(b) && looksRandom(b, 3) ? 'high' : null),
  });
}

function slackWebhook(s: string, at: number, mode: Mode): Read {
  const m = /hooks\.slack\.com\/(?:services|workflows)\/(T[A-Z0-9]{6,12})\/([AB][A-Z0-9]{6,12})\/([A-Za-z0-9]{20,32})/y;
  m.lastIndex = at;
  const r = m.exec(s);
  if (!r) return { hits: NOTHING, resume: at + 16 };
  const end = at + r[0].length;
  const secretStart = end - r[3]!.length;
  if (mode === 'dlp' && !looksRandom(r[3]!, 3.5)) return { hits: NOTHING, resume: end };
  return { hits: [{ kind: 'slack-webhook', start: mode === 'redact' ? secretStart : at, end, preview: `hooks.slack.com/services/${r[1]}/…${r[3]!.slice(-4)}`, confidence: 'high' }], resume: end };
}

function discordWebhook(s: string, at: number, mode: Mode): Read {
  const m = /discord(?:app)?\.com\/api\/webhooks\/(\d{15,21})\/([A-Za-z0-9_-]{60,72})/y;
  m.lastIndex = at;
  const r = m.exec(s);
  if (!r) return { hits: NOTHING, resume: at + 7 };
  const end = at + r[0].length;
  if (mode === 'dlp' && !looksRandom(r[2]!, 3.5)) return { hits: NOTHING, resume: end };
  return { hits: [{ kind: 'discord-webhook', start: mode === 'redact' ? end - r[2]!.length : at, end, preview: `discord.com/api/webhooks/${r[1]}/…${r[2]!.slice(-4)}`, confidence: 'high' }], resume: end };
}

/** Discord bot tokens: base64 of the bot's numeric id, a timestamp part, an HMAC part. */
function discordBot(s: string, at: number, mode: Mode): Read {
  const m = /([A-Za-z0-9_-]{24,28})\.([A-Za-z0-9_-]{6})\.([A-Za-z0-9_-]{27,40})/y;
  m.lastIndex = at;
  const r = m.exec(s);
  if (!r || (at > 0 && isUrlsafe(s.charCodeAt(at - 1)))) return { hits: NOTHING, resume: at + 2 };
  const end = at + r[0].length;
  let id = '';
  try {
    id = Buffer.from(r[1]!, 'base64url').toString('latin1');
  } catch {
    id = '';
  }
  if (!/^\d{17,20}$/.test(id) || (mode === 'dlp' && !looksRandom(r[3]!, 3.5))) return { hits: NOTHING, resume: end };
  return { hits: [{ kind: 'discord-token', start: at, end, preview: `${r[1]!.slice(0, 4)}…${r[3]!.slice(-4)}`, confidence: 'high' }], resume: end };
}

/** Telegram bot tokens: `<bot id>:AA<33 characters>`; the trigger is the `:AA`. */
function telegram(s: string, at: number, mode: Mode): Read {
  let d = at;
  while (d > 0 && d > at - 11 && isDigit(s.charCodeAt(d - 1))) d--;
  const digits = at - d;
  if (digits < 8 || digits > 10 || (d > 0 && isAlnum(s.charCodeAt(d - 1)))) return { hits: NOTHING, resume: at + 3 };
  const end = runEnd(s, at + 1, isUrlsafe, 64);
  const secret = s.slice(at + 1, end);
  if (secret.length < 35 || (mode === 'dlp' && !looksRandom(secret.slice(2, 35), 3.5))) return { hits: NOTHING, resume: end };
  return { hits: [{ kind: 'telegram-bot-token', start: mode === 'redact' ? at + 1 : d, end: at + 36, preview: `${s.slice(d, at)}:AA…${secret.slice(31, 35)}`, confidence: 'high' }], resume: end };
}

function azure(s: string, at: number, mode: Mode): Read {
  const shared = s.startsWith('SharedAccessKey=', at);
  const prefix = shared ? 16 : 11;
  const vs = at + prefix;
  const ve = runEnd(s, vs, isB64, 256);
  const v = s.slice(vs, ve);
  const min = shared ? 43 : 86;
  if (v.length < (mode === 'redact' ? 20 : min) || (mode === 'dlp' && !looksRandom(v, 4))) return { hits: NOTHING, resume: ve };
  return { hits: [{ kind: 'azure-storage-key', start: vs, end: ve, preview: `${s.slice(at, vs)}…${v.slice(-6, -2)}`, confidence: 'high' }], resume: ve };
}

/** Readers by trigger. The first matching test wins; the order follows TRIGGER's alternatives. */
function dispatch(s: string, at: number, m: string, mode: Mode): Read {
  const c0 = m.charCodeAt(0);
  switch (c0) {
    case 45 /* - */:
      return pem(s, at, mode);
    case 76 /* L */:
      return pemBase64(s, at, mode);
    case 58 /* : */:
      return m === '://' ? urlCredentials(s, at, mode) : telegram(s, at, mode);
    default:
      break;
  }
  if (m === 'AKIA' || m === 'ASIA') return awsKeyId(s, at, mode);
  if (/^(?:aws_|secret)/i.test(m)) return awsSecret(s, at, mode);
  if (m.startsWith('gh') || m === 'github_pat_') return githubToken(s, at, mode);
  if (m.startsWith('gl')) return prefixed(s, at, m.length, mode, 'gitlab-token', { cls: isUrlsafe, min: 20, redactMin: 16, bits: 3.5 });
  if (m.startsWith('xox')) return slack(s, at, mode);
  if (m.startsWith('hooks.')) return slackWebhook(s, at, mode);
  if (m.startsWith('discord.') || m.startsWith('discordapp')) return discordWebhook(s, at, mode);
  if (m === 'sk-') return openai(s, at, mode);
  if (/^[sr]k_/.test(m)) return stripe(s, at, mode);
  if (m === 'AIza') return prefixed(s, at, 4, mode, 'google-api-key', { cls: isUrlsafe, min: 35, redactMin: 30, exact: 35, bits: 3.5 });
  if (m === 'npm_') {
    if (at > 0 && isUrlsafe(s.charCodeAt(at - 1))) return { hits: NOTHING, resume: at + 4 };
    return prefixed(s, at, 4, mode, 'npm-token', { cls: isAlnum, min: 36, exact: 36, check: checksummed });
  }
  if (m === 'pypi-AgEI') return prefixed(s, at, 5, mode, 'pypi-token', { cls: isUrlsafe, min: 50, bits: 3.5 });
  if (m === 'eyJ') return at > 0 && isUrlsafe(s.charCodeAt(at - 1)) ? { hits: NOTHING, resume: at + 3 } : jwt(s, at, mode);
  if (m.startsWith('Account') || m.startsWith('Shared')) return azure(s, at, mode);
  if (m === 'hf_') return prefixed(s, at, 3, mode, 'huggingface-token', { cls: isLetter, min: 34, exact: 34, bits: 3.5 });
  if (m.startsWith('do')) return prefixed(s, at, 7, mode, 'digitalocean-token', { cls: isHex, min: 64, exact: 64, bits: 3.3 });
  if (m === 'dapi') {
    if (at > 0 && isAlnum(s.charCodeAt(at - 1))) return { hits: NOTHING, resume: at + 4 };
    return prefixed(s, at, 4, mode, 'databricks-token', { cls: isHex, min: 32, exact: 32, bits: 3.3 });
  }
  if (m.startsWith('shp')) return prefixed(s, at, 6, mode, 'shopify-token', { cls: isHex, min: 32, exact: 32, bits: 3.3 });
  if (m === 'SG.') {
    const r = /SG\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})/y;
    r.lastIndex = at;
    const x = r.exec(s);
    if (!x || (mode === 'dlp' && !looksRandom(x[2]!, 3.5))) return { hits: NOTHING, resume: at + 3 };
    return { hits: [hit('sendgrid-key', at, at + x[0].length, s, 'high', 3)], resume: at + x[0].length };
  }
  if (m === 'SK') {
    // A Twilio API key SID: the SID itself is an identifier, its secret has no prefix. Named so that
    // redaction removes it and DLP asks; never denied on its own.
    if ((at > 0 && isAlnum(s.charCodeAt(at - 1))) || (at + 34 < s.length && isAlnum(s.charCodeAt(at + 34)))) return { hits: NOTHING, resume: at + 2 };
    const v = s.slice(at + 2, at + 34);
    if (mode === 'dlp' && !looksRandom(v, 3.3)) return { hits: NOTHING, resume: at + 34 };
    return { hits: [hit('twilio-key', at, at + 34, s, 'low', 2)], resume: at + 34 };
  }
  if (m === 'discord-bot') return discordBot(s, at, mode);
  return { hits: NOTHING, resume: at + 1 };
}

// Where a value may start: literal prefixes, bucketed by their first character, plus two bounded shapes
// (Twilio's `SK` + 32 hex, a Discord bot token's id part). A loop over the characters with a switch on
// the few that can start a prefix is several times faster than one regex with thirty alternatives, which
// V8 tries one by one at every position.
const PREFIXES: readonly string[] = [
  '-----BEGIN ', 'LS0tLS1CRUdJTi', '://', ':AA', 'AKIA', 'ASIA',
  'aws_secret_access_key', 'AWS_SECRET_ACCESS_KEY', 'aws_secret_key', 'AWS_SECRET_KEY', 'SecretAccessKey', 'secret_access_key',
  'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'glpat-', 'gldt-', 'glrt-', 'glptt-', 'glcbt-', 'glsoat-', 'glft-',
  'xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-', 'hooks.slack.com/', 'discord.com/api/webhooks/', 'discordapp.com/api/webhooks/',
  'sk-', 'sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'AIza', 'npm_', 'pypi-AgEI', 'eyJ', 'AccountKey=', 'SharedAccessKey=',
  'hf_', 'dop_v1_', 'doo_v1_', 'dor_v1_', 'dapi', 'shpat_', 'shpca_', 'shppa_', 'shpss_', 'SG.',
];

/** Prefixes by their first two characters (a 128x128 table): most characters of a text end the test at one load. */
const PAIRS: (readonly string[] | undefined)[] = (() => {
  const t: string[][] = [];
  const add = (key: string, p: string): void => {
    (t[key.charCodeAt(0) * 128 + key.charCodeAt(1)] ??= []).push(p);
  };
  for (const p of PREFIXES) add(p, p);
  add('SK', 'SK');
  for (const k of ['MT', 'Mj', 'Mz', 'MD', 'ND', 'NT', 'Nj', 'Nz', 'OD', 'OT']) add(k, 'discord-bot');
  for (const list of t) list?.sort((x, y) => y.length - x.length);
  return t;
})();

const TWILIO_SID = /SK[0-9a-fA-F]{32}/y;
const DISCORD_ID = /(?:M[TjzD]|N[DTjz]|O[DT])[A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{6}\./y;

function hasAt(s: string, i: number, p: string): boolean {
  if (i + p.length > s.length) return false;
  for (let k = 2; k < p.length; k++) if (s.charCodeAt(i + k) !== p.charCodeAt(k)) return false;
  return true;
}

/** The trigger starting at `i`, or null. */
function triggerAt(s: string, i: number): string | null {
  const c1 = s.charCodeAt(i + 1);
  if (!(c1 < 128)) return null;
  const list = PAIRS[s.charCodeAt(i) * 128 + c1];
  if (list === undefined) return null;
  for (const p of list) {
    if (p === 'SK') {
      TWILIO_SID.lastIndex = i;
      if (TWILIO_SID.test(s)) return p;
    } else if (p === 'discord-bot') {
      DISCORD_ID.lastIndex = i;
      if (DISCORD_ID.test(s)) return p;
    } else if (hasAt(s, i, p)) return p;
  }
  return null;
}

/** First characters of triggers: a byte table, so the loop skips every other character with one load. */
const STARTS: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (const p of PREFIXES) t[p.charCodeAt(0)] = 1;
  for (const c of 'SMNO') t[c.charCodeAt(0)] = 1;
  return t;
})();

/**
 * Every credential value in `text`, in order of position. Linear in the text's length; overlapping hits
 * are all kept (a token inside a URL's password is reported as both), callers that replace spans merge them.
 */
export function findCredentials(text: string, opts: FindOptions = {}): Credential[] {
  const mode: Mode = opts.mode ?? 'dlp';
  const limit = opts.limit ?? Infinity;
  const out: Credential[] = [];
  const n = text.length;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c >= 128 || STARTS[c] === 0) {
      i++;
      continue;
    }
    const t = triggerAt(text, i);
    if (t === null) {
      i++;
      continue;
    }
    const r = dispatch(text, i, t, mode);
    for (const h of r.hits) {
      out.push(h);
      if (out.length >= limit) return out;
    }
    i = Math.max(r.resume, i + 1);
  }
  return out;
}

/** Whether any credential value is in the text (DLP mode, any confidence but `example`). */
export function hasCredential(text: string): boolean {
  return findCredentials(text).some((c) => c.confidence !== 'example');
}
