// The token shape both code tokenizers (python-tokens.ts, js-tokens.ts) produce, and what the analysis reads.
// Pure data: strings arrive decoded, comments are gone, f-strings and template literals keep their code holes.

export type TokKind = 'name' | 'num' | 'str' | 'op' | 'nl' | 'tmpl' | 'regex';

export interface Tok {
  k: TokKind;
  /** name: the identifier (normalized); num/op: the text; str: the decoded value; regex: the source; nl: ''. */
  v: string;
  /** Offset in the source, for messages. */
  pos: number;
  /** Python f-strings and JS template literals: the literal pieces around each hole and each hole's tokens. */
  parts?: { quasis: string[]; holes: Tok[][] };
  /** A Python bytes literal (b'…'). */
  bytes?: boolean;
}

export interface Tokens {
  toks: Tok[];
  /** Set when the text could not be tokenized to its end (an unterminated string…): the tokens stop there. */
  error?: string;
}

/** Thrown inside a tokenizer and turned into `Tokens.error`. */
export class TokenError extends Error {}

/** Decode the escapes shared by Python and JavaScript string literals (`\n`, `\xhh`, `\uXXXX`, octal…). */
export function decodeEscapes(body: string, lang: 'python' | 'js'): string {
  if (!body.includes('\\')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\' || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const d = body[++i]!;
    switch (d) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'a': out += lang === 'python' ? '\x07' : 'a'; break;
      case '\n': break; // line continuation inside a string
      case 'x': {
        const h = /^[0-9a-fA-F]{2}/.exec(body.slice(i + 1));
        if (h) { out += String.fromCharCode(parseInt(h[0], 16)); i += 2; } else out += 'x';
        break;
      }
      case 'u': {
        const braced = lang === 'js' ? /^\{([0-9a-fA-F]{1,6})\}/.exec(body.slice(i + 1)) : null;
        const h = braced ?? /^[0-9a-fA-F]{4}/.exec(body.slice(i + 1));
        if (h) {
          const cp = parseInt(braced ? h[1]! : h[0], 16);
          out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
          i += h[0].length;
        } else out += 'u';
        break;
      }
      case 'U': {
        const h = lang === 'python' ? /^[0-9a-fA-F]{8}/.exec(body.slice(i + 1)) : null;
        if (h) {
          const cp = parseInt(h[0], 16);
          out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
          i += 8;
        } else out += lang === 'python' ? '\\U' : 'U';
        break;
      }
      default: {
        const o = /^[0-7]{1,3}/.exec(body.slice(i));
        if (o && (lang === 'python' || o[0] !== '0' || true)) {
          out += String.fromCharCode(parseInt(o[0], 8) & 0xff);
          i += o[0].length - 1;
        } else if (lang === 'python' && !'\\\'"'.includes(d)) out += '\\' + d; // Python keeps unknown escapes
        else out += d;
      }
    }
  }
  return out;
}
