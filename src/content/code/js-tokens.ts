// A JavaScript/TypeScript tokenizer, enough for capability analysis: names (with `\uXXXX` escapes decoded, as
// the engine reads them), numbers, operators, strings (decoded), template literals with their `${…}` holes
// tokenized as code (nested templates included), regex literals told from division by the previous token
// (the usual heuristic), comments dropped, a hashbang skipped. TypeScript types tokenize as ordinary names
// and operators, which the analysis ignores. A `;` or a line end outside brackets is an `nl` token.
// Linear in the input; never throws (see Tokens.error).

import { decodeEscapes, TokenError, type Tok, type Tokens } from './tokens.ts';

const PUNCT = [
  '>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>',
];
/** After these keywords an expression starts, so a `/` opens a regex. */
const EXPR_KEYWORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);
/** Statements whose parenthesized head may be followed by a regex: `if (x) /re/.test(y)`. */
const CONTROL = new Set(['if', 'while', 'for', 'with']);
const NAME_START = /[\p{L}\p{Nl}$_]/u;
const NAME_CHAR = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_\u200c\u200d]/u;

export function tokenizeJs(src: string): Tokens {
  const t = new JsTokenizer(src);
  try {
    if (src.startsWith('#!')) while (t.i < src.length && src[t.i] !== '\n') t.i++;
    t.run(false);
  } catch (e) {
    if (!(e instanceof TokenError)) throw e;
    return { toks: t.out, error: e.message };
  }
  return { toks: t.out };
}

class JsTokenizer {
  out: Tok[] = [];
  i = 0;
  /** Per open `(`: whether it follows if/while/for/with, after whose `)` a `/` opens a regex. */
  private parens: boolean[] = [];
  /** The `)` tokens that closed such a control head. */
  private controlClose = new Set<Tok>();
  constructor(readonly src: string) {}

  /** Tokenize until the end, or (hole) until the `}` closing a template's `${`, which is consumed. */
  run(hole: boolean): void {
    const s = this.src;
    let depth = 0;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029') {
        if (depth === 0 && !hole) this.nl();
        this.i++;
        continue;
      }
      if (/\s/.test(c)) { this.i++; continue; }
      if (c === '/' && s[this.i + 1] === '/') {
        while (this.i < s.length && s[this.i] !== '\n') this.i++;
        continue;
      }
      if (c === '/' && s[this.i + 1] === '*') {
        const end = s.indexOf('*/', this.i + 2);
        if (end < 0) throw new TokenError('a comment is not closed');
        if (depth === 0 && !hole && s.slice(this.i, end).includes('\n')) this.nl();
        this.i = end + 2;
        continue;
      }
      if (hole && depth === 0 && c === '}') { this.i++; return; }
      if (c === '"' || c === "'") { this.string(c); continue; }
      if (c === '`') { this.template(); continue; }
      if (NAME_START.test(c) || c === '\\' || c === '#') {
        this.name();
        continue;
      }
      if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(s[this.i + 1] ?? ''))) {
        const m = /^(?:0[xXoObB][0-9a-fA-F_]+n?|(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][+-]?[0-9_]+)?n?)/.exec(s.slice(this.i, this.i + 64))!;
        const len = Math.max(1, m[0].length);
        this.out.push({ k: 'num', v: s.slice(this.i, this.i + len), pos: this.i });
        this.i += len;
        continue;
      }
      if (c === '/' && this.regexAllowed()) { this.regex(); continue; }
      if (c === ';') {
        if (depth === 0 && !hole) this.nl();
        else this.out.push({ k: 'op', v: ';', pos: this.i });
        this.i++;
        continue;
      }
      if ('([{'.includes(c)) depth++;
      if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
      let op = c;
      for (const p of PUNCT) if (s.startsWith(p, this.i)) { op = p; break; }
      // `?.5` is a conditional and a number, not optional chaining.
      if (op === '?.' && /[0-9]/.test(s[this.i + 2] ?? '')) op = '?';
      const tok: Tok = { k: 'op', v: op, pos: this.i };
      if (op === '(') {
        const prev = this.out[this.out.length - 1];
        this.parens.push(prev !== undefined && prev.k === 'name' && CONTROL.has(prev.v));
      } else if (op === ')' && this.parens.pop()) this.controlClose.add(tok);
      this.out.push(tok);
      this.i += op.length;
    }
    if (hole) throw new TokenError('a template literal hole is not closed');
  }

  nl(): void {
    const last = this.out[this.out.length - 1];
    if (last && last.k !== 'nl') this.out.push({ k: 'nl', v: '', pos: this.i });
  }

  regexAllowed(): boolean {
    for (let k = this.out.length - 1; k >= 0; k--) {
      const p = this.out[k]!;
      if (p.k === 'nl') return true;
      if (p.k === 'name') return EXPR_KEYWORDS.has(p.v);
      if (p.k === 'num' || p.k === 'str' || p.k === 'tmpl' || p.k === 'regex') return false;
      if (p.v === ')') return this.controlClose.has(p);
      return !( p.v === ']' || p.v === '}' || p.v === '++' || p.v === '--');
    }
    return true;
  }

  name(): void {
    const s = this.src;
    const st = this.i;
    let v = '';
    if (s[this.i] === '#') { v = '#'; this.i++; }
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '\\' && s[this.i + 1] === 'u') {
        const m = /^\\u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/.exec(s.slice(this.i, this.i + 10));
        if (!m) throw new TokenError(`a bad escape in a name at ${this.i}`);
        const cp = parseInt(m[1] ?? m[2]!, 16);
        v += cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
        this.i += m[0].length;
        continue;
      }
      if (!NAME_CHAR.test(c)) break;
      v += c;
      this.i++;
    }
    if (v === '' || v === '#') throw new TokenError(`an unexpected character at ${st}`);
    this.out.push({ k: 'name', v, pos: st });
  }

  string(q: string): void {
    const s = this.src;
    const pos = this.i;
    let j = this.i + 1;
    while (j < s.length && s[j] !== q) {
      if (s[j] === '\\') j++;
      else if (s[j] === '\n') throw new TokenError(`a string starting at ${pos} ends at a line end`);
      j++;
    }
    if (j >= s.length) throw new TokenError(`a string starting at ${pos} is not closed`);
    this.out.push({ k: 'str', v: decodeEscapes(s.slice(this.i + 1, j), 'js'), pos });
    this.i = j + 1;
  }

  template(): void {
    const s = this.src;
    const pos = this.i;
    this.i++;
    const quasis: string[] = [];
    const holes: Tok[][] = [];
    let start = this.i;
    for (;;) {
      if (this.i >= s.length) throw new TokenError(`a template literal starting at ${pos} is not closed`);
      const c = s[this.i]!;
      if (c === '\\') { this.i += 2; continue; }
      if (c === '`') break;
      if (c === '$' && s[this.i + 1] === '{') {
        quasis.push(decodeEscapes(s.slice(start, this.i), 'js'));
        this.i += 2;
        const saved = this.out;
        this.out = [];
        try {
          this.run(true);
          holes.push(this.out);
        } finally {
          this.out = saved;
        }
        start = this.i;
        continue;
      }
      this.i++;
    }
    quasis.push(decodeEscapes(s.slice(start, this.i), 'js'));
    this.i++;
    if (holes.length === 0) this.out.push({ k: 'str', v: quasis[0]!, pos });
    else this.out.push({ k: 'tmpl', v: quasis.join(''), pos, parts: { quasis, holes } });
  }

  regex(): void {
    const s = this.src;
    const pos = this.i;
    let j = this.i + 1;
    let cls = false;
    while (j < s.length) {
      const c = s[j]!;
      if (c === '\n') throw new TokenError(`a regex starting at ${pos} ends at a line end`);
      if (c === '\\') { j += 2; continue; }
      if (c === '[') cls = true;
      else if (c === ']') cls = false;
      else if (c === '/' && !cls) break;
      j++;
    }
    if (j >= s.length) throw new TokenError(`a regex starting at ${pos} is not closed`);
    j++;
    while (j < s.length && /[a-z]/i.test(s[j]!)) j++;
    this.out.push({ k: 'regex', v: s.slice(pos, j), pos });
    this.i = j;
  }
}
