// A Python tokenizer, enough for capability analysis: names (NFKC-normalized, as Python reads them), numbers,
// operators, strings with every prefix (r, b, u, f, rb, fr, t… any case) and triple quotes, decoded; f-strings
// with their `{…}` holes tokenized as code (nested quotes and format specs included); comments dropped; line
// continuations joined. A logical line end (a newline outside brackets, or `;`) is an `nl` token. Indentation
// is not needed by the analysis and is not tracked. Linear in the input; never throws (see Tokens.error).

import { decodeEscapes, TokenError, type Tok, type Tokens } from './tokens.ts';

const OPS3 = new Set(['**=', '//=', '>>=', '<<=', '...']);
const OPS2 = new Set(['**', '//', '==', '!=', '<=', '>=', ':=', '->', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '@=', '<<', '>>']);
const NAME_START = /[\p{L}\p{Nl}_\u1885\u1886\u2118\u212e\u309b\u309c]/u;
const NAME_CHAR = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_\u00b7\u0387\u1369-\u1371\u19da]/u;
const PREFIX_RE = /^(?:[rR][bBfFtT]?|[bBfFtT][rR]?|[uU])(?=['"])/;

const STRING_PREFIX_CHARS = new Set(['r', 'R', 'b', 'B', 'f', 'F', 't', 'T', 'u', 'U']);

function isAsciiNameStart(k: number): boolean {
  return (k >= 97 && k <= 122) || (k >= 65 && k <= 90) || k === 95;
}

export function tokenizePython(src: string): Tokens {
  const t = new PyTokenizer(src);
  try {
    t.run(false);
  } catch (e) {
    if (!(e instanceof TokenError)) throw e;
    return { toks: t.out, error: e.message };
  }
  return { toks: t.out };
}

class PyTokenizer {
  out: Tok[] = [];
  i = 0;
  constructor(readonly src: string) {}

  /** Tokenize until the end, or (hole) until the `}` that closes an f-string hole, which is consumed. */
  run(hole: boolean): void {
    const s = this.src;
    let depth = 0;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '\n' || c === '\r') {
        if (depth === 0 && !hole) this.nl();
        this.i++;
        continue;
      }
      if (c === ' ' || c === '\t' || c === '\f') { this.i++; continue; }
      if (c === '\\' && (s[this.i + 1] === '\n' || s[this.i + 1] === '\r')) { this.i += 2; continue; }
      if (c === '#') {
        while (this.i < s.length && s[this.i] !== '\n') this.i++;
        continue;
      }
      if (hole && depth === 0) {
        if (c === '}') { this.i++; return; }
        // `!r` conversion, then `:` format spec: both end the expression.
        if (c === '!' && s[this.i + 1] !== '=') { this.i += 2; continue; }
        if (c === ':' && s[this.i + 1] !== '=') { this.formatSpec(); return; }
      }
      // Only the prefix letters can start a prefixed string: test the regex for those alone (this loop runs
      // for every character of the code, so the common paths below avoid slices and Unicode regexes).
      const pre = STRING_PREFIX_CHARS.has(c) ? PREFIX_RE.exec(s.slice(this.i, this.i + 3)) : null;
      if (pre || c === '"' || c === "'") {
        this.string(pre ? pre[0] : '');
        continue;
      }
      const code = c.charCodeAt(0);
      if (isAsciiNameStart(code) || (code > 127 && NAME_START.test(c))) {
        const st = this.i;
        let ascii = code <= 127;
        for (;;) {
          this.i++;
          if (this.i >= s.length) break;
          const k = s.charCodeAt(this.i);
          if (isAsciiNameStart(k) || (k >= 48 && k <= 57)) continue;
          if (k > 127 && NAME_CHAR.test(s[this.i]!)) {
            ascii = false;
            continue;
          }
          break;
        }
        const name = s.slice(st, this.i);
        this.out.push({ k: 'name', v: ascii ? name : name.normalize('NFKC'), pos: st });
        continue;
      }
      if ((code >= 48 && code <= 57) || (c === '.' && /[0-9]/.test(s[this.i + 1] ?? ''))) {
        const m = /^(?:0[xXoObB][0-9a-fA-F_]+|(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][+-]?[0-9_]+)?[jJlL]?)/.exec(s.slice(this.i, this.i + 64))!;
        const len = Math.max(1, m[0].length);
        this.out.push({ k: 'num', v: s.slice(this.i, this.i + len), pos: this.i });
        this.i += len;
        continue;
      }
      if (c === ';') {
        if (depth === 0) this.nl();
        else this.out.push({ k: 'op', v: ';', pos: this.i });
        this.i++;
        continue;
      }
      if ('([{'.includes(c)) depth++;
      if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
      const three = s.slice(this.i, this.i + 3);
      const two = s.slice(this.i, this.i + 2);
      const op = OPS3.has(three) ? three : OPS2.has(two) ? two : c;
      this.out.push({ k: 'op', v: op, pos: this.i });
      this.i += op.length;
    }
    if (hole) throw new TokenError('an f-string hole is not closed');
  }

  nl(): void {
    const last = this.out[this.out.length - 1];
    if (last && last.k !== 'nl') this.out.push({ k: 'nl', v: '', pos: this.i });
  }

  /** After `:` in an f-string hole: literal text with nested `{…}` holes, up to the closing `}`. */
  formatSpec(): void {
    const s = this.src;
    this.i++;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '}') { this.i++; return; }
      if (c === '{') {
        this.i++;
        this.run(true);
        continue;
      }
      this.i++;
    }
    throw new TokenError('an f-string format spec is not closed');
  }

  string(prefix: string): void {
    const s = this.src;
    const pos = this.i;
    this.i += prefix.length;
    const p = prefix.toLowerCase();
    const raw = p.includes('r');
    const fmt = p.includes('f') || p.includes('t');
    const q = s[this.i]!;
    const triple = s.startsWith(q + q + q, this.i);
    const close = triple ? q + q + q : q;
    this.i += close.length;
    const quasis: string[] = [];
    const holes: Tok[][] = [];
    let piece = '';
    let pieceStart = this.i;
    for (;;) {
      if (this.i >= s.length) throw new TokenError(`a string starting at ${pos} is not closed`);
      const c = s[this.i]!;
      if (c === '\\') {
        this.i += 2;
        continue;
      }
      if (!triple && c === '\n') throw new TokenError(`a string starting at ${pos} ends at a line end`);
      if (s.startsWith(close, this.i)) break;
      if (fmt && (c === '{' || c === '}')) {
        if (s[this.i + 1] === c) {
          piece += this.decode(s.slice(pieceStart, this.i), raw) + c;
          this.i += 2;
          pieceStart = this.i;
          continue;
        }
        if (c === '{') {
          piece += this.decode(s.slice(pieceStart, this.i), raw);
          quasis.push(piece);
          piece = '';
          this.i++;
          const saved = this.out;
          this.out = [];
          try {
            this.run(true);
            holes.push(this.out);
          } finally {
            this.out = saved;
          }
          pieceStart = this.i;
          continue;
        }
      }
      this.i++;
    }
    piece += this.decode(s.slice(pieceStart, this.i), raw);
    this.i += close.length;
    if (holes.length > 0) {
      quasis.push(piece);
      this.out.push({ k: 'tmpl', v: quasis.join(''), pos, parts: { quasis, holes } });
    } else {
      const tok: Tok = { k: 'str', v: piece, pos };
      if (p.includes('b')) tok.bytes = true;
      this.out.push(tok);
    }
  }

  decode(body: string, raw: boolean): string {
    return raw ? body : decodeEscapes(body, 'python');
  }
}
