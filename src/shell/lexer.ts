// Character-level pieces of the bash parser: character classes, the up-front input screen, ANSI-C
// decoding, and the error that carries an analysis status out of the parser.

import type { AnalysisStatus } from './types.ts';

/** Thrown inside the parser; parseShell turns it into an Analysis status and message. */
export class ShellError extends Error {
  readonly status: Exclude<AnalysisStatus, 'ok'>;
  constructor(status: Exclude<AnalysisStatus, 'ok'>, message: string) {
    // A ShellError becomes the status of an analysis, never a crash to debug, so it takes no stack
    // trace: capturing one through the parser's recursion cost more than parsing most lines.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ShellError';
    this.status = status;
  }
}

// Character codes used here (the parser keeps its own copy, module-local, for its hot loops).
const C_TAB = 9;
const C_NL = 10;
const C_DQUOTE = 34;
const C_SQUOTE = 39;
const C_0 = 48;
const C_9 = 57;
const C_QUESTION = 63;
const C_BACKSLASH = 92;
const C_LBRACE = 123;
const C_RBRACE = 125;

/**
 * Invisible or look-alike characters that must not appear outside quotes: there they would make a
 * command read differently to a person than to bash (NBSP looks like a space but is a word char,
 * a zero-width joiner hides inside a command name, bidi controls reorder what is displayed).
 */
export function isDeceptive(c: number): boolean {
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0xad || c === 0x34f || c === 0x61c || c === 0x115f || c === 0x1160 ||
    c === 0x1680 || c === 0x180e || (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) ||
    (c >= 0x205f && c <= 0x206f) || c === 0x3000 || c === 0x3164 || (c >= 0xfe00 && c <= 0xfe0f) ||
    c === 0xfeff || c === 0xffa0 || (c >= 0xfff9 && c <= 0xfffb);
}

/** Bidi controls reorder displayed text even inside quotes and comments (Trojan Source). */
export function isBidiControl(c: number): boolean {
  return c === 0x61c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/** `line L, column C` of a 0-based offset, for messages. */
export function where(src: string, pos: number, base = 0): string {
  const p = Math.max(0, Math.min(pos, src.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < p; i++) {
    if (src.charCodeAt(i) === C_NL) {
      line++;
      lineStart = i + 1;
    }
  }
  const col = p - lineStart + 1 + (line === 1 ? base : 0);
  return `line ${line}, column ${col}`;
}

function describeChar(c: number): string {
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The up-front screen: control characters (other than tab and newline) and lone surrogates are
 * refused wherever they are, because bash and a person reading the line would not agree on them.
 * Carriage return is refused too: bash reads it as a word character, which no agent means.
 */
export function screenInput(src: string): ShellError | null {
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c < 0x20) {
      if (c === C_TAB || c === C_NL) continue;
      const what = c === 0 ? 'a NUL character' : c === 13 ? 'a carriage return' : `the control character ${describeChar(c)}`;
      return new ShellError('refused', `the command contains ${what} at ${where(src, i)}`);
    }
    if (c < 0x7f) continue;
    if (c <= 0x9f) {
      return new ShellError('refused', `the command contains the control character ${describeChar(c)} at ${where(src, i)}`);
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = src.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return new ShellError('refused', `the command contains invalid UTF-16 (a lone surrogate) at ${where(src, i)}`);
    }
    if (c >= 0xdc00 && c <= 0xdfff) {
      return new ShellError('refused', `the command contains invalid UTF-16 (a lone surrogate) at ${where(src, i)}`);
    }
    if (isBidiControl(c)) {
      return new ShellError('refused', `the command contains the bidirectional control character ${describeChar(c)} at ${where(src, i)}, which can make it display differently from what runs`);
    }
  }
  return null;
}

export function deceptiveMessage(src: string, pos: number, c: number): string {
  return `the command contains the invisible or space-like character ${describeChar(c)} outside quotes at ${where(src, pos)}; bash would read it as part of a word`;
}

function hexVal(c: number): number {
  if (c >= C_0 && c <= C_9) return c - C_0;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * Decodes the body of an ANSI-C string `$'…'` (between the quotes, escapes still in it) the way
 * bash does. A decoded NUL ends the string, as in bash (C strings). Returns null for a code point
 * bash could not represent, which the caller refuses.
 */
export function decodeAnsiC(body: string): string | null {
  let out = '';
  let i = 0;
  const n = body.length;
  // `\xHH` and octal escapes are bytes; runs of them above 0x7f must form valid UTF-8 text.
  let bytes: number[] = [];
  const flush = (): boolean => {
    if (bytes.length === 0) return true;
    try {
      out += UTF8.decode(Uint8Array.from(bytes));
    } catch {
      return false;
    }
    bytes = [];
    return true;
  };
  while (i < n) {
    const bs = body.indexOf('\\', i);
    if (bs < 0) {
      if (!flush()) return null;
      out += body.slice(i);
      break;
    }
    if (bs > i && !flush()) return null;
    out += body.slice(i, bs);
    i = bs + 1;
    if (i >= n) {
      out += '\\';
      break;
    }
    const c = body.charCodeAt(i);
    let code = -1;
    let text: string | null = null;
    switch (c) {
      case 97: code = 7; i++; break; // \a
      case 98: code = 8; i++; break; // \b
      case 101: case 69: code = 27; i++; break; // \e \E
      case 102: code = 12; i++; break; // \f
      case 110: code = 10; i++; break; // \n
      case 114: code = 13; i++; break; // \r
      case 116: code = 9; i++; break; // \t
      case 118: code = 11; i++; break; // \v
      case C_BACKSLASH: text = '\\'; i++; break;
      case C_SQUOTE: text = "'"; i++; break;
      case C_DQUOTE: text = '"'; i++; break;
      case C_QUESTION: text = '?'; i++; break;
      case 120: { // \xHH (one or two hex digits), or \x{H…} (any number, low byte kept)
        if (body.charCodeAt(i + 1) === C_LBRACE) {
          let j = i + 2;
          let v = 0;
          while (j < n && hexVal(body.charCodeAt(j)) >= 0) {
            v = (v * 16 + hexVal(body.charCodeAt(j))) & 0xff;
            j++;
          }
          if (body.charCodeAt(j) === C_RBRACE) j++;
          i = j;
          if (v >= 0x80) {
            bytes.push(v);
            continue;
          }
          code = v;
          break;
        }
        let v = 0;
        let k = 0;
        while (k < 2 && i + 1 + k < n && hexVal(body.charCodeAt(i + 1 + k)) >= 0) {
          v = v * 16 + hexVal(body.charCodeAt(i + 1 + k));
          k++;
        }
        if (k === 0) {
          text = '\\x';
          i++;
        } else {
          i += 1 + k;
          if (v >= 0x80) {
            bytes.push(v);
            continue;
          }
          code = v;
        }
        break;
      }
      case 117: case 85: { // \uHHHH, \UHHHHHHHH
        const max = c === 117 ? 4 : 8;
        let v = 0;
        let k = 0;
        while (k < max && i + 1 + k < n && hexVal(body.charCodeAt(i + 1 + k)) >= 0) {
          v = v * 16 + hexVal(body.charCodeAt(i + 1 + k));
          k++;
        }
        if (k === 0) {
          text = c === 117 ? '\\u' : '\\U';
          i++;
        } else {
          if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return null;
          code = v;
          i += 1 + k;
        }
        break;
      }
      case 99: { // \cX: control character
        if (i + 1 >= n) {
          text = '\\c';
          i++;
          break;
        }
        let x = body.charCodeAt(i + 1);
        let used = 2;
        // `\c\\` is control-backslash; bash consumes both backslashes.
        if (x === C_BACKSLASH && body.charCodeAt(i + 2) === C_BACKSLASH) used = 3;
        if (x >= 0xd800) return null;
        if (x === C_QUESTION) code = 0x7f;
        else {
          if (x >= 97 && x <= 122) x -= 32;
          code = x & 0x1f;
        }
        i += used;
        break;
      }
      default:
        if (c >= C_0 && c <= 55) { // \nnn octal, one to three digits
          let v = 0;
          let k = 0;
          while (k < 3 && i + k < n) {
            const d = body.charCodeAt(i + k);
            if (d < C_0 || d > 55) break;
            v = v * 8 + (d - C_0);
            k++;
          }
          i += k;
          if ((v & 0xff) >= 0x80) {
            bytes.push(v & 0xff);
            continue;
          }
          code = v & 0xff;
        } else {
          // Unknown escape: bash keeps the backslash.
          text = '\\';
        }
    }
    if (!flush()) return null;
    if (text !== null) {
      out += text;
      continue;
    }
    if (code === 0) return out; // NUL ends the C string
    out += String.fromCodePoint(code);
  }
  if (!flush()) return null;
  return out;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
