// Jenkinsfile (Groovy): the shell steps `sh`, `bat`, `powershell`, `pwsh` with their script as a string
// literal (`sh 'x'`, `sh "x"`, `sh '''…'''`, `sh """…"""`, `sh(script: '…', returnStdout: true)`, literals
// joined with `+`), and Groovy's own `'cmd'.execute()`. String literals are lexed properly (escapes, triple
// quotes, comments are skipped) so a quote inside a comment or a string does not shift the reading. A `${…}`
// or `$name` interpolation in a double-quoted string is Groovy's, done before the shell runs: it becomes a
// shell variable placeholder (a value nobody can know here).

import type { Collector } from './util.ts';
import { LineIndex } from './util.ts';

type Tok =
  | { t: 'str'; v: string; at: number }
  | { t: 'id'; v: string; at: number }
  | { t: 'p'; v: string; at: number };

/** Groovy escapes in a string literal's body (both quote styles). */
function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|[\s\S])/g, (_, e: string) => {
    switch (e[0]) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'u': return String.fromCharCode(parseInt(e.slice(1), 16));
      case '\n': return ''; // a line continuation
      default: return e; // \' \" \\ \$
    }
  });
}

/** A GString's interpolations as shell variables: `${env.TOKEN}` -> `$ENV_TOKEN`, `$FOO` stays `$FOO`. */
function interpolate(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && i + 1 < raw.length) {
      out += raw[i] + raw[i + 1]!;
      i++;
      continue;
    }
    if (c === '$' && raw[i + 1] === '{') {
      let depth = 1;
      let j = i + 2;
      for (; j < raw.length && depth > 0; j++) {
        if (raw[j] === '{') depth++;
        else if (raw[j] === '}') depth--;
      }
      const body = raw.slice(i + 2, j - 1);
      const name = body.replace(/^\s*(?:env|params)\.(?=\w+\s*$)/, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'GROOVY_EXPR';
      out += '${' + (/^\d/.test(name) ? '_' + name : name) + '}';
      i = j - 1;
      continue;
    }
    out += c;
  }
  return out;
}

function isIdStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36; // A-Z a-z _ $
}
function isIdPart(c: number): boolean {
  return isIdStart(c) || (c >= 48 && c <= 57);
}

/**
 * Groovy tokens, lexed on demand (the reader stops at the command cap, so a 1 MB file is not lexed whole):
 * identifiers, string literals (decoded), newlines and single punctuation; comments skipped.
 */
class Tokens {
  private readonly toks: Tok[] = [];
  private i = 0;
  constructor(private readonly src: string) {}
  get(k: number): Tok | undefined {
    while (this.toks.length <= k && this.i < this.src.length) this.lexOne();
    return this.toks[k];
  }
  private lexOne(): void {
    const src = this.src;
    const toks = this.toks;
    const n = src.length;
    let i = this.i;
    const before = toks.length;
    while (i < n && toks.length === before) {
      const code = src.charCodeAt(i);
      const c = src[i]!;
      if (c === '/' && src[i + 1] === '/') {
        const e = src.indexOf('\n', i);
        i = e === -1 ? n : e;
        continue;
      }
      if (c === '/' && src[i + 1] === '*') {
        const e = src.indexOf('*/', i + 2);
        i = e === -1 ? n : e + 2;
        continue;
      }
      if (c === "'" || c === '"') {
        const triple = src.startsWith(c.repeat(3), i);
        const q = triple ? c.repeat(3) : c;
        let j = i + q.length;
        let closed = false;
        while (j < n) {
          const d = src[j]!;
          if (d === '\\') {
            j += 2;
            continue;
          }
          if (d === c && (!triple || src.startsWith(q, j))) {
            closed = true;
            break;
          }
          if (!triple && d === '\n') break; // an unterminated one-line string ends at the line
          j++;
        }
        const body = src.slice(i + q.length, Math.min(j, n));
        const v = c === '"' ? unescape(interpolate(body)) : unescape(body);
        toks.push({ t: 'str', v, at: i });
        i = closed ? j + q.length : j;
        continue;
      }
      if (isIdStart(code)) {
        let j = i + 1;
        while (j < n && isIdPart(src.charCodeAt(j))) j++;
        toks.push({ t: 'id', v: src.slice(i, j), at: i });
        i = j;
        continue;
      }
      if (c === '\n') {
        toks.push({ t: 'p', v: '\n', at: i });
        i++;
        continue;
      }
      if (code === 32 || code === 9 || code === 13 || code === 12) {
        i++;
        continue;
      }
      toks.push({ t: 'p', v: c, at: i });
      i++;
    }
    this.i = i;
  }
}

const STEPS: Record<string, string | undefined> = { sh: undefined, bat: 'cmd', powershell: 'powershell', pwsh: 'powershell' };

/** A string expression starting at toks[k]: literals joined by `+` (other operands become a placeholder). */
function stringExpr(toks: Tokens, k: number): { v: string; next: number } | null {
  const first = toks.get(k);
  if (!first || first.t !== 'str') return null;
  let v = first.v;
  let j = k + 1;
  while (toks.get(j)?.v === '+') {
    const o = toks.get(j + 1);
    if (!o) break;
    if (o.t === 'str') v += o.v;
    else if (o.t === 'id') v += '$' + o.v.toUpperCase();
    else break;
    j += 2;
  }
  return { v, next: j };
}

export function extractJenkins(src: string, out: Collector): void {
  const toks = new Tokens(src);
  const lines = new LineIndex(src);
  for (let k = 0; toks.get(k) !== undefined && !out.full; k++) {
    const tk = toks.get(k)!;
    // 'cmd'.execute() / "cmd".execute(): Groovy runs it (split on spaces, no shell).
    if (tk.t === 'str' && toks.get(k + 1)?.v === '.' && toks.get(k + 2)?.v === 'execute') {
      out.command(tk.v, `Groovy "…".execute(), line ${lines.lineOf(tk.at)}`);
      continue;
    }
    if (tk.t !== 'id' || !(tk.v in STEPS)) continue;
    if (k > 0 && toks.get(k - 1)?.v === '.') continue; // obj.sh(...) is someone's method
    const lang = STEPS[tk.v];
    const label = `${tk.v} step${lang ? ` (${lang})` : ''}, line ${lines.lineOf(tk.at)}`;
    let j = k + 1;
    if (toks.get(j)?.v === '(') j++;
    const direct = stringExpr(toks, j);
    if (direct) {
      out.command(direct.v, label, lang);
      continue;
    }
    // `sh cmd` / `sh(cmd)` with a variable: what it runs is not known here; a placeholder says so.
    const arg = toks.get(j);
    if (arg?.t === 'id' && toks.get(j + 1)?.v !== ':' && !['label', 'script', 'returnStdout', 'returnStatus', 'encoding'].includes(arg.v)) {
      out.command('$' + arg.v.toUpperCase(), `${label} (runs the value of ${arg.v}, not known here)`, lang);
      continue;
    }
    // Named arguments: sh(script: '…', returnStdout: true) or sh label: 'x', script: "…"
    let depth = 0;
    for (let m = j; toks.get(m) !== undefined && m < j + 200; m++) {
      const t = toks.get(m)!;
      if (t.v === '(' || t.v === '[' || t.v === '{') depth++;
      else if (t.v === ')' || t.v === ']' || t.v === '}') {
        if (depth === 0) break;
        depth--;
      } else if (t.v === '\n' && depth === 0 && toks.get(m - 1)?.v !== ',') break;
      if (t.t === 'id' && t.v === 'script' && toks.get(m + 1)?.v === ':') {
        const e = stringExpr(toks, m + 2);
        if (e) out.command(e.v, label, lang);
        break;
      }
    }
  }
}
