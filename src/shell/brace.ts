// Brace expansion (`{a,b}`, `{1..5}`, `{a..e..2}`), done on a word's parts before anything else, as
// bash does, so `{rm,-rf,/}` becomes the three words `rm -rf /`. Only unquoted literal text takes part.

import type { Part } from './parser.ts';
import { ShellError } from './lexer.ts';
import { MAX_BRACE_RESULTS, MAX_BRACES_PER_WORD } from './limits.ts';

/** One character of unquoted text, or a part that brace expansion treats as opaque. */
type Item = string | Part;

/**
 * Whether brace expansion could change the word: it has an unquoted `{`. Most words have none; the
 * analysis asks this first and builds them directly, without expandBraces' one-element list.
 */
export function mayExpandBraces(parts: readonly Part[]): boolean {
  for (const p of parts) if (p.t === 'lit' && !p.q && p.s.includes('{')) return true;
  return false;
}

/** Expands a word's braces into one part list per resulting word (the input itself when none). */
export function expandBraces(parts: Part[], max = MAX_BRACE_RESULTS): Part[][] {
  let opens = 0;
  for (const p of parts) {
    if (p.t === 'lit' && !p.q && p.s.includes('{')) {
      for (let i = 0; i < p.s.length; i++) if (p.s.charCodeAt(i) === 123) opens++;
    }
  }
  if (opens === 0) return [parts];
  if (opens > MAX_BRACES_PER_WORD) {
    throw new ShellError('too_complex', `a word with more than ${MAX_BRACES_PER_WORD} unquoted \`{\` is too complex to expand`);
  }
  const items: Item[] = [];
  for (const p of parts) {
    if (p.t === 'lit' && !p.q) for (const ch of p.s) items.push(ch);
    else items.push(p);
  }
  const results = expand(items, max, { left: MAX_EXPANDED_CHARS });
  if (results.length === 1 && results[0] === items) return [parts];
  const out: Part[][] = [];
  for (const r of results) {
    if (r.length === 0) continue; // bash drops words that brace expansion leaves empty
    const p = toParts(r);
    checkNoNewExpansion(p);
    out.push(p);
  }
  return out;
}

function toParts(items: Item[]): Part[] {
  const out: Part[] = [];
  let run = '';
  const flush = (): void => {
    if (!run) return;
    // Brace expansion is textual: `$w{a,b}` becomes `$wa $wb`, so letters that now follow an
    // unbraced `$name` extend the name, as they do when bash reads the expanded text.
    const prev = out[out.length - 1];
    if (prev && prev.t === 'param' && !prev.q && prev.simple && prev.raw === '$' + prev.name && isNameText(prev.name)) {
      let k = 0;
      while (k < run.length && /[A-Za-z0-9_]/.test(run[k]!)) k++;
      if (k > 0) {
        const name = prev.name + run.slice(0, k);
        out[out.length - 1] = { ...prev, name, raw: '$' + name };
        run = run.slice(k);
        if (!run) return;
      }
    }
    out.push({ t: 'lit', s: run, q: false });
    run = '';
  };
  for (const it of items) {
    if (typeof it === 'string') run += it;
    else {
      flush();
      out.push(it);
    }
  }
  flush();
  return out;
}

/**
 * A literal `$` that brace expansion puts in front of other text (`{a,b$}x` gives `b$x`) becomes an
 * expansion when bash reads the result; we do not try to follow that.
 */
function checkNoNewExpansion(parts: Part[]): void {
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.t !== 'lit' || p.q) continue;
    const k = p.s.indexOf('$');
    if (k < 0) continue;
    const last = p.s.lastIndexOf('$');
    if (k !== last || last !== p.s.length - 1 || i !== parts.length - 1) {
      throw new ShellError('refused', 'brace expansion that puts a `$` in front of other text');
    }
  }
}

function isNameText(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s);
}

function tooMany(max: number): never {
  throw new ShellError('refused', `brace expansion produces more than ${max} words`);
}

/**
 * Index of the `}` that closes the `{` at i, or -1. Like bash, a `}` closes only once a comma has
 * been seen at this level or the text so far is a sequence (`{a},b}` is `a}` and `b`); other `}`
 * are ordinary characters.
 */
function matchBrace(items: Item[], i: number, max: number): number {
  let depth = 0;
  let commas = false;
  for (let j = i + 1; j < items.length; j++) {
    const it = items[j];
    if (it === '{') depth++;
    else if (it === '}') {
      if (depth > 0) depth--;
      else if (commas || (j - i <= MAX_SEQUENCE_TEXT && sequence(items.slice(i + 1, j), max, true) !== null)) return j;
    } else if (it === ',' && depth === 0) commas = true;
  }
  return -1;
}

/** Splits the inside of a brace at its top-level commas; null when there is none. */
function splitCommas(items: Item[]): Item[][] | null {
  const out: Item[][] = [];
  let cur: Item[] = [];
  let depth = 0;
  let found = false;
  for (const it of items) {
    if (it === '{') depth++;
    else if (it === '}') {
      if (depth > 0) depth--;
    } else if (it === ',' && depth === 0) {
      out.push(cur);
      cur = [];
      found = true;
      continue;
    }
    cur.push(it);
  }
  out.push(cur);
  return found ? out : null;
}

/** Longest text between braces that can be a sequence (`{-9999999999..9999999999..99}`, with room). */
const MAX_SEQUENCE_TEXT = 80;

const NUM = /^([+-]?\d+)\.\.([+-]?\d+)(?:\.\.([+-]?\d+))?$/;
const CHR = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.([+-]?\d+))?$/;

/** `{1..5}`, `{01..10}`, `{a..e}`, `{1..10..2}`; null when the text is not a sequence. */
function sequence(items: Item[], max: number, probe = false): Item[][] | null {
  let text = '';
  for (const it of items) {
    if (typeof it !== 'string') return null;
    text += it;
  }
  let m = NUM.exec(text);
  if (m && probe) return [];
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    let step = m[3] !== undefined ? Math.abs(Number(m[3])) : 1;
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || !Number.isSafeInteger(step)) tooMany(max);
    if (step === 0) step = 1;
    const count = Math.floor(Math.abs(b - a) / step) + 1;
    if (count > max) tooMany(max);
    const sa = m[1]!.replace(/^[+-]/, '');
    const sb = m[2]!.replace(/^[+-]/, '');
    const pad = (sa.length > 1 && sa.startsWith('0')) || (sb.length > 1 && sb.startsWith('0'))
      ? Math.max(m[1]!.length, m[2]!.length) : 0;
    const out: Item[][] = [];
    const dir = b >= a ? 1 : -1;
    for (let k = 0, v = a; k < count; k++, v += dir * step) {
      let s = String(Math.abs(v));
      const neg = v < 0;
      if (pad > 0) s = s.padStart(neg ? pad - 1 : pad, '0');
      out.push([...(neg ? '-' + s : s)]);
    }
    return out;
  }
  m = CHR.exec(text);
  if (m && probe) return [];
  if (m) {
    const a = m[1]!.charCodeAt(0);
    const b = m[2]!.charCodeAt(0);
    const upperA = a <= 90;
    const upperB = b <= 90;
    if (upperA !== upperB) {
      // bash walks through the punctuation between `Z` and `a`; we do not guess at it.
      throw new ShellError('refused', `brace sequence \`{${text}}\` spans upper and lower case letters`);
    }
    let step = m[3] !== undefined ? Math.abs(Number(m[3])) : 1;
    if (!Number.isSafeInteger(step)) tooMany(max);
    if (step === 0) step = 1;
    const dir = b >= a ? 1 : -1;
    const count = Math.floor(Math.abs(b - a) / step) + 1;
    const out: Item[][] = [];
    for (let k = 0, v = a; k < count; k++, v += dir * step) out.push([String.fromCharCode(v)]);
    return out;
  }
  return null;
}

/** Most characters all the words of one expansion may add up to (many results of a long word). */
const MAX_EXPANDED_CHARS = 1 << 20;

function expand(items: Item[], max: number, budget: { left: number }): Item[][] {
  // Find the first `{` that opens a real brace expression; others are ordinary characters.
  for (let i = 0; i < items.length; i++) {
    if (items[i] !== '{') continue;
    if (i === 0 && items[1] === '}') continue; // `{}` at the start of a word is literal (find -exec … {})
    const j = matchBrace(items, i, max);
    if (j < 0) continue;
    const inner = items.slice(i + 1, j);
    let alts: Item[][] | null = splitCommas(inner);
    if (alts) {
      const expanded: Item[][] = [];
      for (const a of alts) {
        for (const e of expand(a, max, budget)) {
          expanded.push(e);
          if (expanded.length > max) tooMany(max);
        }
      }
      alts = expanded;
    } else {
      alts = sequence(inner, max);
      if (!alts) continue;
    }
    const pre = items.slice(0, i);
    const post = expand(items.slice(j + 1), max, budget);
    if (alts.length * post.length > max) tooMany(max);
    const out: Item[][] = [];
    for (const a of alts) {
      for (const p of post) {
        budget.left -= pre.length + a.length + p.length;
        if (budget.left < 0) throw new ShellError('refused', 'brace expansion produces too much text');
        out.push([...pre, ...a, ...p]);
      }
    }
    return out;
  }
  return [items];
}
