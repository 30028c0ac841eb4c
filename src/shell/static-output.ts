// The STATIC output of commands of a line: what a producer pipeline of literals prints (`echo X | base64 -d
// | gunzip`, `printf '\x72\x6d …'`, `xxd -r -p <<< 6c73`, `cat <<'EOF' … EOF`), what a `$(…)` of such a
// pipeline expands to, and the value a variable was given earlier in the same line. Used by the payload
// sinks (eval, `sh -c`, `| sh`, source, make -f -, arithmetic…) to parse what they run as commands of the
// line. Pure over the analysis; every answer is null when anything is not exactly known.

import { closeParen } from '../content/carriers.ts';
import { MAX_PAYLOAD, runFilter, runProducer } from '../content/payloads.ts';
import { basename, staticValue } from './program.ts';
import type { SimpleCommand, Word } from './types.ts';

/** Known text and the decoding steps that produced it (empty when it was written out plainly). */
export interface Known {
  text: Buffer;
  /** How the text was obtained when that hid it: `base64 -d`, `printf`, `$p`…; empty for plain literals. */
  decoded: string[];
}

/** How many commands deep a producer chain is followed (pipes and substitutions together). */
const MAX_CHAIN = 16;

const NOTHING: readonly string[] = [];

/** The programs runProducer and runFilter model (payloads.ts). */
const MODELLED: ReadonlySet<string> = new Set([
  'echo', 'printf', 'cat', 'base64', 'gbase64', 'basenc', 'base32', 'xxd', 'openssl', 'rev', 'tr', 'gunzip', 'zcat', 'gzcat',
  'gzip', 'pigz', 'brotli', 'zlib-flate',
]);

/** The first words of a label for a decoding step (`base64 -d`, `xxd -r -p`). */
function stepLabel(name: string, args: readonly string[]): string {
  const opts = args.filter((a) => a.startsWith('-')).slice(0, 2);
  return [name, ...opts].join(' ');
}

class Evaluator {
  private steps = 0;

  constructor(private readonly commands: readonly SimpleCommand[]) {}

  /** What command `id` writes to standard output, or null. */
  stdout(id: number): Known | null {
    const c = this.commands[id];
    if (!c || ++this.steps > MAX_CHAIN * 4) return null;
    // Output sent elsewhere (`> f`, `>&2`) or a command that is not a plain program: not modelled.
    for (const r of c.redirects) if (r.access === 'write' || r.access === 'fd') return null;
    // Only producers and filters payloads.ts models can have a known output: one lookup rejects the rest.
    const v0 = staticValue(c.argv[0]);
    if (v0 === null || !MODELLED.has(basename(v0).toLowerCase())) return null;
    const fields: string[] = [];
    const decoded: string[] = [];
    for (const w of c.argv) {
      const f = this.fields(c, w);
      if (f === null) return null;
      fields.push(...f.fields);
      decoded.push(...f.decoded);
    }
    const name = basename(fields[0] ?? '').toLowerCase();
    const args = fields.slice(1);
    const produced = runProducer(name, args);
    if (produced === null) return null;
    if (produced !== undefined) {
      if (produced.decodes) decoded.push(name === 'echo' ? 'echo -e' : name);
      return { text: produced.out, decoded };
    }
    const input = this.stdin(c);
    if (input === null) return null;
    const filtered = runFilter(name, args, input.text);
    if (filtered === null || filtered === undefined) return null;
    return { text: filtered.out, decoded: [...input.decoded, ...decoded, ...(filtered.decodes ? [stepLabel(name, args)] : NOTHING)] };
  }

  /** What a command reads on standard input, when it is known: a pipe of known producers, a here-doc, a here-string. */
  stdin(c: SimpleCommand): Known | null {
    const s = c.stdin;
    switch (s.kind) {
      case 'pipe': {
        if (s.from.length === 0) return null;
        return this.joined(s.from);
      }
      case 'heredoc':
        // An unquoted here-doc expands `$x`, `$(…)` and backslashes before the reader sees it.
        if (!s.quoted && /[$`\\]/.test(s.body)) return null;
        return { text: Buffer.from(s.body, 'utf8'), decoded: [] };
      case 'herestring': {
        const k = this.text(c, s.word);
        return k === null ? null : { text: Buffer.concat([k.text, Buffer.from('\n')]), decoded: k.decoded };
      }
      case 'file':
        // `< <(…)`: the output of a process substitution.
        return s.path.substitutionKinds.includes('process-in') ? this.text(c, s.path) : null;
      default:
        return null;
    }
  }

  /** A word's value as one string (no field splitting: a quoted word, an assignment value, a here-string). */
  text(owner: SimpleCommand, w: Word): Known | null {
    const v = staticValue(w);
    if (v !== null) return { text: Buffer.from(v, 'utf8'), decoded: [] };
    // The value keeps each expansion as its source text, quotes removed around it.
    const inner = w.value;
    const sub = this.substitution(w, inner);
    if (sub !== undefined) return sub;
    // Literal text and `$name`/`${name}` of variables set in the line (`"$p1$p2"`, `${a}x`).
    if (!/^(?:[^$`\\"']|\$[A-Za-z_][A-Za-z0-9_]*|\$\{[A-Za-z_][A-Za-z0-9_]*\})*$/.test(inner)) return null;
    const parts: Buffer[] = [];
    const decoded: string[] = [];
    // Every `$` must be one of the word's real expansions (a quoted '$x' is text, and a placeholder is no variable).
    const names = [...inner.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
    if (names.length !== w.vars.length || names.some((n, i) => n !== w.vars[i])) return null;
    for (const m of inner.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?|[^$]+/g)) {
      if (m[1] === undefined) {
        parts.push(Buffer.from(m[0], 'utf8'));
        continue;
      }
      const k = this.variable(owner, m[1]);
      if (k === null) return null;
      parts.push(k.text);
      decoded.push(...k.decoded, `$${m[1]}`);
    }
    return { text: Buffer.concat(parts), decoded };
  }

  /** A word's fields: one when quoted, split at blanks when an unquoted expansion (null when it would glob). */
  fields(owner: SimpleCommand, w: Word): { fields: string[]; decoded: string[] } | null {
    const v = staticValue(w);
    if (v !== null) return { fields: [v], decoded: [] };
    const k = this.text(owner, w);
    if (k === null) return null;
    const s = k.text.toString('utf8');
    if (w.raw.startsWith('"')) return { fields: [s], decoded: k.decoded };
    // Unquoted: split at IFS (unknown when the line changes it) and globbed (unknown when it could match).
    if (/[*?[]/.test(s) || ifsChanged(this.commands)) return null;
    return { fields: s.split(/[ \t\n]+/).filter((x) => x !== ''), decoded: k.decoded };
  }

  /**
   * The output of a word that is exactly one `$(…)`, `` `…` `` or `<(…)` (the output of its last commands,
   * trailing newlines removed as bash does for `$(…)`); undefined when the word is not one substitution.
   */
  private substitution(w: Word, inner: string): Known | null | undefined {
    if (w.substitutions.length === 0) return undefined;
    const whole = inner.startsWith('$(') ? closes(inner, 2, ')') : inner.startsWith('<(') ? closes(inner, 2, ')') : inner.startsWith('`') ? closes(inner, 1, '`') : false;
    if (!whole) return undefined;
    const out = this.subOutput(w.substitutions);
    if (out === null) return null;
    if (inner.startsWith('<(')) return out;
    let end = out.text.length;
    while (end > 0 && out.text[end - 1] === 10) end--;
    return { text: out.text.subarray(0, end), decoded: out.decoded };
  }

  /** The output of a substitution's commands: those at its top level whose output is not piped on. */
  subOutput(ids: readonly number[]): Known | null {
    const set = new Set(ids);
    const nested = new Set<number>();
    for (const id of ids) {
      const c = this.commands[id];
      if (!c) return null;
      for (const w of c.argv) for (const s of w.substitutions) nested.add(s);
      for (const a of c.assignments) for (const s of a.value.substitutions) nested.add(s);
      for (const r of c.redirects) for (const s of r.target.substitutions) nested.add(s);
    }
    const printing: number[] = [];
    for (const id of ids) {
      if (nested.has(id)) continue;
      const c = this.commands[id]!;
      if (c.pipeTo.some((p) => set.has(p))) continue;
      if (c.argv.length === 0) {
        // A bare assignment prints nothing; `$(<file)` prints the file, which is not known here.
        if (c.redirects.length > 0) return null;
        continue;
      }
      printing.push(id);
    }
    return this.joined(printing);
  }

  /** The outputs of these commands one after the other, when every one is known and the whole stays bounded. */
  private joined(ids: readonly number[]): Known | null {
    const parts: Buffer[] = [];
    const decoded: string[] = [];
    for (const id of ids) {
      const k = this.stdout(id);
      if (k === null) return null;
      parts.push(k.text);
      decoded.push(...k.decoded);
    }
    const text = Buffer.concat(parts);
    return text.length > MAX_PAYLOAD ? null : { text, decoded };
  }

  /**
   * The value `name` was given by the one plain assignment statement of the line that sets it, before `use`.
   * Null when it is set more than once, by a command that names it (read, declare, export, printf -v, a
   * `for` variable we cannot see is covered by the callers' soft floor), or its value is not known.
   */
  variable(use: SimpleCommand, name: string): Known | null {
    let found: { c: SimpleCommand; w: Word } | null = null;
    for (const c of this.commands) {
      for (const a of c.assignments) {
        if (a.name !== name) continue;
        if (found !== null || c.argv.length > 0 || a.append || a.array || c.inFunction || c.id >= use.id) return null;
        found = { c, w: a.value };
      }
      for (const w of c.argv) {
        const v = w.value;
        if (v === name || (v.startsWith(name) && /^[=[+]/.test(v.slice(name.length)))) return null;
      }
    }
    if (found === null) return null;
    return this.text(found.c, found.w);
  }
}

/** Whether the line assigns IFS anywhere (then unquoted expansions split in ways not modelled here). */
export function ifsChanged(commands: readonly SimpleCommand[]): boolean {
  for (const c of commands) {
    for (const a of c.assignments) if (a.name === 'IFS') return true;
    for (const w of c.argv) if (w.value.startsWith('IFS')) return true;
  }
  return false;
}

/**
 * Known text as a script a shell reads: null when it holds a NUL byte or is not valid UTF-8 (bash's handling
 * of those bytes is not what a parse of the decoded string shows).
 */
export function asScript(k: Known): string | null {
  if (k.text.includes(0)) return null;
  const s = k.text.toString('utf8');
  return s.includes('\uFFFD') && !Buffer.from(s, 'utf8').equals(k.text) ? null : s;
}

/** Whether the construct opened at the start of `s` (content from `from`) closes exactly at its end. */
function closes(s: string, from: number, close: ')' | '`'): boolean {
  if (!s.endsWith(close)) return false;
  if (close === '`') return s.indexOf('`', 1) === s.length - 1;
  return closeParen(s, from - 1, 1) === s.length - 1;
}

/** What command `id` of `commands` prints, when fully known. */
export function staticStdout(commands: readonly SimpleCommand[], id: number): Known | null {
  return new Evaluator(commands).stdout(id);
}

/** What `cmd` reads on standard input, when fully known (a pipe of literal producers, a here-doc, a here-string). */
export function staticStdin(commands: readonly SimpleCommand[], cmd: SimpleCommand): Known | null {
  return new Evaluator(commands).stdin(cmd);
}

/** A word of `owner` as one string, resolving one `$(…)`/`<(…)` of known output or a variable set in the line. */
export function staticText(commands: readonly SimpleCommand[], owner: SimpleCommand, w: Word): Known | null {
  return new Evaluator(commands).text(owner, w);
}

/** A word of `owner` as the fields bash passes (split when an unquoted expansion), or null. */
export function staticFields(commands: readonly SimpleCommand[], owner: SimpleCommand, w: Word): { fields: string[]; decoded: string[] } | null {
  return new Evaluator(commands).fields(owner, w);
}

/** The value a variable holds from a plain assignment earlier in the line (see Evaluator.variable). */
export function staticVariable(commands: readonly SimpleCommand[], use: SimpleCommand, name: string): Known | null {
  return new Evaluator(commands).variable(use, name);
}
