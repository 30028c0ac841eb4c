// Payload decoders: what `base64 -d`, `xxd -r -p`, `printf '\x72…'`, `echo -e`, `rev`, `tr`, `gunzip`… print
// for a known input, computed here without running anything, so that a payload a line decodes and runs can
// be judged as if it were written out. Pure: bytes in, bytes out, no policy and no shell knowledge beyond
// each program's own argument conventions. Every function is bounded (MAX_PAYLOAD bytes of output) and
// answers null when it cannot know the output exactly (invalid input, an option it does not model): the
// caller then treats the payload as unknown, never as empty.

import { lazyZlib } from '../core/lazy.ts';

/** The most bytes a decoder produces; larger payloads are unknown (a decompression bomb must not cost us). */
export const MAX_PAYLOAD = 64 * 1024;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function clip(b: Buffer): Buffer | null {
  return b.length > MAX_PAYLOAD ? null : b;
}

/**
 * Base64 (`base64 -d`): whitespace is skipped, missing padding tolerated (GNU prints the bytes, then
 * complains). Any other character outside the alphabet makes the answer null, unless `ignoreGarbage`
 * (`-i`), which drops it as base64 does.
 */
export function decodeBase64(text: string, opts: { url?: boolean; ignoreGarbage?: boolean } = {}): Buffer | null {
  const alphabet = opts.url ? B64URL : B64;
  let clean = '';
  let padSeen = false;
  for (const ch of text) {
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue;
    if (ch === '=') {
      padSeen = true;
      continue;
    }
    if (!alphabet.includes(ch)) {
      if (opts.ignoreGarbage) continue;
      return null;
    }
    // Data after padding: base64 stops with an error there; what it printed is not worth modelling.
    if (padSeen && !opts.ignoreGarbage) return null;
    clean += ch;
  }
  if (clean.length % 4 === 1) return null;
  if (clean.length * 0.75 > MAX_PAYLOAD) return null;
  return Buffer.from(opts.url ? clean.replace(/-/g, '+').replace(/_/g, '/') : clean, 'base64');
}

/** Base32 (`base32 -d`), RFC 4648 alphabet; whitespace and padding skipped, anything else null. */
export function decodeBase32(text: string): Buffer | null {
  let bits = 0;
  let acc = 0;
  const out: number[] = [];
  for (const ch of text) {
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t' || ch === '=') continue;
    const v = B32.indexOf(ch);
    if (v < 0) return null;
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
      if (out.length > MAX_PAYLOAD) return null;
    }
  }
  return Buffer.from(out);
}

/** Plain hex (`xxd -r -p`): pairs of hex digits, whitespace anywhere; any other character: null. */
export function decodeHex(text: string): Buffer | null {
  const clean = text.replace(/\s+/g, '');
  if (!/^(?:[0-9a-fA-F]{2})*[0-9a-fA-F]?$/.test(clean)) return null;
  if (clean.length / 2 > MAX_PAYLOAD) return null;
  return Buffer.from(clean.length % 2 === 1 ? clean.slice(0, -1) : clean, 'hex');
}

/**
 * A classic xxd dump (`xxd -r`): `00000000: 726d 202d  rm -` lines; the hex columns before the two-space gap
 * are the bytes (offsets are taken in order; a dump that jumps is not modelled: null).
 */
export function decodeXxdDump(text: string): Buffer | null {
  const parts: Buffer[] = [];
  let expected = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^([0-9a-fA-F]+):\s?(.*)$/.exec(line);
    if (!m) return null;
    if (parseInt(m[1]!, 16) !== expected) return null;
    const gap = m[2]!.indexOf('  ');
    const hex = (gap >= 0 ? m[2]!.slice(0, gap) : m[2]!).replace(/\s+/g, '');
    const b = decodeHex(hex);
    if (b === null || hex.length % 2 === 1) return null;
    parts.push(b);
    expected += b.length;
    if (expected > MAX_PAYLOAD) return null;
  }
  return Buffer.concat(parts);
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 7, b: 8, e: 27, E: 27, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92,
};

function pushCodePoint(out: number[], cp: number): void {
  for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) out.push(b);
}

/**
 * Backslash escapes as printf's format (`octal` = 'format': `\NNN`), `%b` and `echo -e` (`\0NNN`; %b takes
 * both) decode them. Returns the bytes and whether `\c` stopped the output (only %b and echo honour it).
 */
function unescape(s: string, octal: 'format' | 'b' | 'echo'): { bytes: number[]; stop: boolean } {
  const out: number[] = [];
  const src = Buffer.from(s, 'utf8');
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c !== 92 || i + 1 >= src.length) {
      out.push(c);
      continue;
    }
    const n = String.fromCharCode(src[i + 1]!);
    if (n in SIMPLE_ESCAPES) {
      out.push(SIMPLE_ESCAPES[n]!);
      i++;
    } else if (n === '"' || n === "'" || n === '?') {
      // printf's format decodes \" \' \?; echo -e and %b leave them as written.
      if (octal === 'format') out.push(n.charCodeAt(0));
      else out.push(92, n.charCodeAt(0));
      i++;
    } else if (n === 'c' && octal !== 'format') {
      return { bytes: out, stop: true };
    } else if (n === 'x') {
      const digits = hexRun(src, i + 2, 2);
      if (digits === '') {
        out.push(92, 120);
        i++;
        continue;
      }
      out.push(parseInt(digits, 16));
      i += 1 + digits.length;
    } else if (n === 'u' || n === 'U') {
      const digits = hexRun(src, i + 2, n === 'u' ? 4 : 8);
      if (digits === '') {
        out.push(92, n.charCodeAt(0));
        i++;
        continue;
      }
      const cp = parseInt(digits, 16);
      if (cp > 0x10ffff) return { bytes: out, stop: true };
      pushCodePoint(out, cp);
      i += 1 + digits.length;
    } else if (/[0-7]/.test(n)) {
      // format: \NNN (the 0 counts); echo: only \0NNN; %b: \0NNN and \NNN.
      let j = i + 1;
      if (octal === 'echo' && n !== '0') {
        out.push(92);
        continue;
      }
      if (octal !== 'format' && n === '0') j++;
      const m = /^[0-7]{1,3}/.exec(String.fromCharCode(...src.subarray(j, j + 3)));
      const digits = m ? m[0] : '';
      out.push(parseInt(digits || '0', 8) & 0xff);
      i = j + digits.length - 1;
    } else {
      out.push(92);
    }
  }
  return { bytes: out, stop: false };
}

/** Up to `max` hex digits of src from byte `at`, as text. */
function hexRun(src: Buffer, at: number, max: number): string {
  let out = '';
  for (let j = at; j < src.length && out.length < max; j++) {
    const ch = String.fromCharCode(src[j]!);
    if (!/[0-9a-fA-F]/.test(ch)) break;
    out += ch;
  }
  return out;
}

/**
 * What `printf FORMAT ARGS…` prints (bash's builtin): escapes in the format, the conversions %s %b %c %d %i %u
 * %x %X %o %%, with flags and a literal width; the format is reused while arguments are left. Anything else
 * (`%q`, `*` widths, `-v`): null.
 */
export function printfOutput(args: readonly string[]): Buffer | null {
  if (args.length === 0) return null;
  let i = 0;
  if (args[0] === '--') i++;
  const format = args[i];
  if (format === undefined || (format.startsWith('-') && format !== '-')) return null;
  const rest = args.slice(i + 1);
  const out: number[] = [];
  let k = 0;
  for (let round = 0; round < 10_000; round++) {
    const used = k;
    const r = printfOnce(format, rest, k, out);
    if (r === null) return null;
    if (r.stop) break;
    k = r.k;
    if (out.length > MAX_PAYLOAD) return null;
    if (k >= rest.length || k === used) break;
  }
  return clip(Buffer.from(out));
}

function printfOnce(format: string, args: readonly string[], k: number, out: number[]): { k: number; stop: boolean } | null {
  const re = /%([-+ #0]*)(\d*|\*)(?:\.(\d*|\*))?([a-zA-Z%])/g;
  let last = 0;
  for (let m = re.exec(format); m !== null; m = re.exec(format)) {
    // A `%` that is no conversion modelled here (`%*s`, `%'d`): bash would print something else.
    if (format.slice(last, m.index).includes('%')) return null;
    out.push(...unescape(format.slice(last, m.index), 'format').bytes);
    last = re.lastIndex;
    let [, flags = '', width = '', precision, conv] = m;
    if (conv === '%') {
      out.push(37);
      continue;
    }
    // `*` takes the width (or precision) from the next argument.
    for (const star of ['w', 'p'] as const) {
      if ((star === 'w' ? width : precision) !== '*') continue;
      const n = args[k] ?? '0';
      if (k < args.length) k++;
      if (!/^-?\d+$/.test(n)) return null;
      if (star === 'w') {
        if (n.startsWith('-')) flags += '-';
        width = n.replace('-', '');
      } else precision = n.startsWith('-') ? undefined : n;
    }
    const arg = args[k] ?? '';
    if (k < args.length) k++;
    let text: number[];
    switch (conv) {
      case 's':
        text = [...Buffer.from(precision !== undefined ? arg.slice(0, Number(precision || '0')) : arg, 'utf8')];
        break;
      case 'b': {
        const u = unescape(arg, 'b');
        out.push(...pad(u.bytes, flags, width));
        if (u.stop) return { k, stop: true };
        continue;
      }
      case 'c':
        text = arg === '' ? [] : [...Buffer.from(String.fromCodePoint(arg.codePointAt(0)!), 'utf8')];
        break;
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
        const n = arg === '' ? 0 : /^[-+]?\d+$/.test(arg.trim()) ? Number(arg.trim()) : null;
        if (n === null || !Number.isSafeInteger(n)) return null;
        const base = conv === 'x' || conv === 'X' ? 16 : conv === 'o' ? 8 : 10;
        let s = Math.abs(n).toString(base);
        if (conv === 'X') s = s.toUpperCase();
        if (n < 0) s = '-' + s;
        text = [...Buffer.from(s, 'ascii')];
        break;
      }
      default:
        return null;
    }
    out.push(...pad(text, flags, width));
  }
  if (format.slice(last).includes('%')) return null;
  out.push(...unescape(format.slice(last), 'format').bytes);
  return { k, stop: false };
}

function pad(bytes: number[], flags: string, width: string): number[] {
  const w = width === '' ? 0 : Number(width);
  if (w <= bytes.length) return bytes;
  const fill = new Array<number>(w - bytes.length).fill(flags.includes('0') && !flags.includes('-') ? 48 : 32);
  return flags.includes('-') ? [...bytes, ...fill] : [...fill, ...bytes];
}

/** What bash's `echo ARGS…` prints: leading -n/-e/-E option words, escapes decoded with -e. */
export function echoOutput(args: readonly string[]): Buffer {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!/^-[neE]+$/.test(a)) break;
    for (const ch of a.slice(1)) {
      if (ch === 'n') newline = false;
      else if (ch === 'e') escapes = true;
      else escapes = false;
    }
  }
  const text = args.slice(i).join(' ');
  if (!escapes) return Buffer.from(newline ? text + '\n' : text, 'utf8');
  const u = unescape(text, 'echo');
  if (!u.stop && newline) u.bytes.push(10);
  return Buffer.from(u.bytes);
}

/** `rev`: each line's characters reversed. */
export function reverseLines(input: Buffer): Buffer {
  const text = input.toString('utf8');
  const lines = text.split('\n');
  return Buffer.from(lines.map((l) => [...l].reverse().join('')).join('\n'), 'utf8');
}

/** A tr SET expanded to its characters (ranges, escapes, [:upper:]/[:lower:]/[:digit:]); null for what is not modelled. */
export function expandTrSet(set: string): string[] | null {
  const chars: string[] = [];
  const src = set.replace(/\[:(upper|lower|digit|alpha|alnum|space):\]/g, (_, c: string) => {
    switch (c) {
      case 'upper': return 'A-Z';
      case 'lower': return 'a-z';
      case 'digit': return '0-9';
      case 'alpha': return 'A-Za-z';
      case 'alnum': return '0-9A-Za-z';
      default: return ' \t\n\r\v\f';
    }
  });
  if (/\[[^\]]*\*|\[=|\[:|\\[0-7]/.test(src)) return null; // [c*n] repeats, equivalence classes, other classes, octal escapes
  const raw: string[] = [];
  for (let i = 0; i < src.length; i++) {
    let ch = src[i]!;
    if (ch === '\\' && i + 1 < src.length) {
      const n = src[++i]!;
      ch = n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n === '\\' ? '\\' : n;
    }
    raw.push(ch);
  }
  for (let i = 0; i < raw.length; i++) {
    if (raw[i + 1] === '-' && i + 2 < raw.length) {
      const a = raw[i]!.codePointAt(0)!;
      const b = raw[i + 2]!.codePointAt(0)!;
      if (b < a) return null;
      for (let c = a; c <= b; c++) chars.push(String.fromCodePoint(c));
      i += 2;
    } else chars.push(raw[i]!);
  }
  return chars.length > 4096 ? null : chars;
}

/** `tr SET1 SET2` (SET2 padded with its last character) and `tr -d SET1`; -c/-s and others: null. */
export function trMap(options: readonly string[], sets: readonly string[], input: Buffer): Buffer | null {
  const text = input.toString('utf8');
  const del = options.includes('d');
  if (options.some((o) => o !== 'd')) return null;
  const s1 = sets[0] === undefined ? null : expandTrSet(sets[0]);
  if (s1 === null) return null;
  if (del) {
    if (sets.length !== 1) return null;
    const d = new Set(s1);
    return Buffer.from([...text].filter((c) => !d.has(c)).join(''), 'utf8');
  }
  if (sets.length !== 2) return null;
  const s2 = expandTrSet(sets[1]!);
  if (s2 === null || s2.length === 0) return null;
  const map = new Map<string, string>();
  s1.forEach((c, i) => map.set(c, s2[Math.min(i, s2.length - 1)]!));
  return Buffer.from([...text].map((c) => map.get(c) ?? c).join(''), 'utf8');
}

/** gzip, zlib or brotli data decompressed, bounded; null when it is not valid or too large. */
export function decompress(kind: 'gzip' | 'zlib' | 'brotli', input: Buffer): Buffer | null {
  try {
    const z = lazyZlib();
    if (kind === 'gzip') return z.gunzipSync(input, { maxOutputLength: MAX_PAYLOAD });
    if (kind === 'zlib') return z.inflateSync(input, { maxOutputLength: MAX_PAYLOAD });
    return z.brotliDecompressSync(input, { maxOutputLength: MAX_PAYLOAD });
  } catch {
    return null;
  }
}

/** Short options of one word (`-di` -> d, i) and long options (`--decode`), for the filter table below. */
function optionsOf(args: readonly string[]): { short: Set<string>; long: Set<string>; operands: string[] } {
  const short = new Set<string>();
  const long = new Set<string>();
  const operands: string[] = [];
  let ended = false;
  for (const a of args) {
    if (ended || a === '-' || !a.startsWith('-')) operands.push(a);
    else if (a === '--') ended = true;
    else if (a.startsWith('--')) long.add(a.slice(2));
    else for (const ch of a.slice(1)) short.add(ch);
  }
  return { short, long, operands };
}

/** Operands that mean "standard input" (or none at all). */
function readsOnlyStdin(operands: readonly string[]): boolean {
  return operands.every((o) => o === '-');
}

/**
 * The output of a filter program (`name`, lower-cased basename, and its literal arguments) given its input,
 * for the decoders and pass-throughs modelled here. `undefined`: not a filter this module knows (the caller
 * treats the output as unknown); null: a known filter whose output cannot be known (it reads a file, an
 * option is not modelled, the input is invalid). `decodes` says whether it transformed the data (a hidden
 * payload), as opposed to passing it through (`cat`).
 */
export function runFilter(name: string, args: readonly string[], input: Buffer): { out: Buffer; decodes: boolean } | null | undefined {
  const o = optionsOf(args);
  const dec = (b: Buffer | null): { out: Buffer; decodes: boolean } | null => (b === null ? null : { out: b, decodes: true });
  switch (name) {
    case 'cat':
      if (o.short.size > 0 || o.long.size > 0 || !readsOnlyStdin(o.operands)) return null;
      return { out: input, decodes: false };
    case 'base64':
    case 'gbase64': {
      if (!o.short.has('d') && !o.short.has('D') && !o.long.has('decode')) return undefined;
      if (!readsOnlyStdin(o.operands)) return null;
      return dec(decodeBase64(input.toString('latin1'), { ignoreGarbage: o.short.has('i') || o.long.has('ignore-garbage') }));
    }
    case 'basenc': {
      if (!o.short.has('d') && !o.long.has('decode')) return undefined;
      if (!readsOnlyStdin(o.operands)) return null;
      const text = input.toString('latin1');
      if (o.long.has('base64')) return dec(decodeBase64(text));
      if (o.long.has('base64url')) return dec(decodeBase64(text, { url: true }));
      if (o.long.has('base32')) return dec(decodeBase32(text));
      if (o.long.has('base16')) return dec(decodeHex(text));
      return null;
    }
    case 'base32':
      if (!o.short.has('d') && !o.long.has('decode')) return undefined;
      if (!readsOnlyStdin(o.operands)) return null;
      return dec(decodeBase32(input.toString('latin1')));
    case 'xxd': {
      if (!o.short.has('r') && !o.long.has('revert') && !args.includes('-revert')) return undefined;
      if (!readsOnlyStdin(o.operands)) return null;
      const plain = o.short.has('p') || args.includes('-ps') || args.includes('-plain') || args.includes('-postscript');
      return dec(plain ? decodeHex(input.toString('latin1')) : decodeXxdDump(input.toString('latin1')));
    }
    case 'openssl': {
      // `openssl base64 -d`, `openssl enc -d -base64` / `-a`: no file options (-in) modelled.
      const sub = args[0];
      const rest = args.slice(1);
      if (!rest.includes('-d')) return undefined;
      if (rest.some((a) => a === '-in' || a.startsWith('-k') || a.startsWith('-pass') || /^-aes|^-des|^-chacha/.test(a))) return null;
      if (sub === 'base64' || (sub === 'enc' && (rest.includes('-base64') || rest.includes('-a')))) {
        return dec(decodeBase64(input.toString('latin1')));
      }
      if (sub === 'zlib') return dec(decompress('zlib', input));
      return null;
    }
    case 'rev':
      if (!readsOnlyStdin(o.operands) || o.short.size > 0) return null;
      return { out: reverseLines(input), decodes: true };
    case 'tr': {
      const opts = [...o.short];
      return dec(trMap(opts, o.operands, input));
    }
    case 'gunzip':
    case 'zcat':
    case 'gzcat':
      if (!readsOnlyStdin(o.operands)) return null;
      return dec(decompress('gzip', input));
    case 'gzip':
    case 'pigz':
      if (!o.short.has('d') && !o.long.has('decompress')) return undefined;
      if (!readsOnlyStdin(o.operands)) return null;
      return dec(decompress('gzip', input));
    case 'brotli':
      if (!o.short.has('d') && !o.long.has('decompress')) return undefined;
      if (!readsOnlyStdin(o.operands)) return null;
      return dec(decompress('brotli', input));
    case 'zlib-flate':
      if (!args.includes('-uncompress')) return undefined;
      return dec(decompress('zlib', input));
    default:
      return undefined;
  }
}

/**
 * What a producer (`echo`, `printf`) of literal arguments prints, and whether that involved decoding
 * (escapes or format conversions beyond plain text). undefined for other programs.
 */
export function runProducer(name: string, args: readonly string[]): { out: Buffer; decodes: boolean } | null | undefined {
  if (name === 'echo') {
    let escapes = false;
    let decided = false;
    let i = 0;
    for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
      escapes = /e[^E]*$/.test(args[i]!) || (escapes && !args[i]!.includes('E'));
      if (/[eE]/.test(args[i]!)) decided = true;
    }
    const backslash = args.slice(i).some((a) => a.includes('\\'));
    // Without -e or -E, whether escapes are decoded depends on the shell's xpg_echo setting: unknown.
    if (backslash && !decided) return null;
    return { out: echoOutput(args), decodes: escapes && backslash };
  }
  if (name === 'printf') {
    const out = printfOutput(args);
    if (out === null) return null;
    const fmt = args[0] === '--' ? args[1] ?? '' : args[0] ?? '';
    // A plain format (no escape beyond \n, \t and a lone \0, no conversion beyond one %s) prints what is written.
    const decodes = /\\(?![nt]|0(?![0-7]))|%(?!s)/.test(fmt) || (fmt.match(/%s/g)?.length ?? 0) > 1 || args.slice(1).some((a) => /%b/.test(fmt) && a.includes('\\'));
    return { out, decodes };
  }
  return undefined;
}
