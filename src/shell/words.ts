// Turns a parsed word (its parts) into the Word the rules see: value after quote removal, whether it
// is fully literal, the parameters it expands and the substitutions it runs.

import type { Word, SubstitutionKind } from './types.ts';
import type { Part } from './parser.ts';

export interface BuildOptions {
  /** No pathname expansion here (assignment values, here-strings, case words). */
  noGlob?: boolean;
  /** Never literal (e.g. `declare a=(…)`). */
  dynamic?: boolean;
  /** Variables known to hold a constant (see constant propagation in parse.ts). */
  consts?: ReadonlyMap<string, string> | null;
}

// Characters that make an unquoted expansion's value change under word splitting or globbing.
const SPLIT_OR_GLOB = /[\s*?[\]]/;

export function buildWord(raw: string, parts: readonly Part[], opts: BuildOptions = {}): Word {
  let value = '';
  let dynamic = opts.dynamic === true;
  let glob = false;
  const vars: string[] = [];
  const subs: number[] = [];
  const kinds: SubstitutionKind[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    switch (p.t) {
      case 'lit':
        value += p.s;
        break;
      case 'glob':
        value += p.s;
        if (!opts.noGlob) {
          glob = true;
          dynamic = true;
        }
        break;
      case 'tilde': {
        value += p.s;
        // A leading `~` or `~/…` stays `~` in value (path classification expands it); anything else
        // (`~user`, `~+`, a tilde after `=` or `:`) is an expansion we do not resolve.
        const next = parts[i + 1];
        // bash expands it only when an unquoted `/` (or the end) follows: `~"/x"` stays as written.
        const plainHome = i === 0 && p.s === '~' &&
          (next === undefined || (next.t === 'lit' && !next.q && next.s.startsWith('/')));
        if (!plainHome) dynamic = true;
        break;
      }
      case 'param': {
        vars.push(p.name);
        collectInner(p.inner, vars, subs, kinds);
        const c = p.simple && opts.consts ? opts.consts.get(p.name) : undefined;
        if (c !== undefined) {
          value += c;
          // Unquoted, the value is split and globbed; it stays exact only when that changes nothing.
          if (!p.q && (c.length === 0 || SPLIT_OR_GLOB.test(c))) dynamic = true;
        } else {
          value += p.raw;
          dynamic = true;
        }
        break;
      }
      case 'sub':
        value += p.raw;
        dynamic = true;
        kinds.push(p.kind);
        if (p.ids) subs.push(...p.ids);
        collectInner(p.inner, vars, subs, kinds);
        break;
    }
  }
  if (!dynamic && !glob) {
    const win = windowsPath(raw, value);
    if (win !== null) return { raw, value: win, literal: true, glob, vars, substitutions: subs, substitutionKinds: kinds, windows: true };
  }
  return { raw, value, literal: !dynamic, glob, vars, substitutions: subs, substitutionKinds: kinds };
}

/** A Windows path as written: `.\x\y`, `..\x`, `C:\x`, `C:/x` (backslashes unquoted, or the whole word quoted). */
const WIN_UNQUOTED = /^(?:\.{1,2}|[A-Za-z]:)(?:\\[\p{L}\p{N}_.+@~-]+)+\\?$/u;
const WIN_VALUE = /^(?:\.{1,2}|[A-Za-z]:)[\\/]/;

/**
 * The POSIX reading of a Windows path that reached a bash tool (Git Bash, WSL, an agent that writes Windows
 * paths): `.\gradlew` is `./gradlew` (bash alone would read `.gradlew`), `"C:\Users\me\proj"` and `C:/Users`
 * are Git Bash's `/c/Users/me/proj`, an absolute path. Judging the Windows meaning is the reading that matters
 * where the command works at all, and never a milder one: an absolute path outside the project instead of a
 * name inside it. Only a leading `.\`, `..\` or drive counts, so an escaped name (`r\m`, `\rm`) stays as
 * bash reads it. null when the word is no such path.
 */
function windowsPath(raw: string, value: string): string | null {
  let text: string;
  if (WIN_UNQUOTED.test(raw)) text = raw;
  else if (WIN_VALUE.test(value) && ((raw.startsWith('"') && raw === `"${value}"`) || (raw.startsWith("'") && raw === `'${value}'`) || (raw === value && value.includes('/') && !value.includes('\\')))) text = value;
  else return null;
  // A colon after the drive's own is no Windows path (`:` is not allowed in a Windows name): a sed or perl
  // script with `:` for delimiter (`s:/dev/::`, `s:\s\+:\t:g`) must keep its text.
  if (/^[A-Za-z]:/.test(text) && text.slice(2).includes(':')) return null;
  const slashed = text.replace(/\\/g, '/');
  const drive = /^([A-Za-z]):(\/.*)$/.exec(slashed);
  return drive ? `/${drive[1]!.toLowerCase()}${drive[2]!}` : slashed;
}

function collectInner(parts: readonly Part[], vars: string[], subs: number[], kinds: SubstitutionKind[]): void {
  for (const p of parts) {
    if (p.t === 'param') {
      vars.push(p.name);
      collectInner(p.inner, vars, subs, kinds);
    } else if (p.t === 'sub') {
      kinds.push(p.kind);
      if (p.ids) subs.push(...p.ids);
      collectInner(p.inner, vars, subs, kinds);
    }
  }
}

/** The literal text of parts (quoted or not), with a space where an expansion sits. */
export function literalText(parts: readonly Part[]): string {
  let out = '';
  for (const p of parts) {
    if (p.t === 'lit' || p.t === 'glob' || p.t === 'tilde') out += p.s;
    else out += ' ';
  }
  return out;
}
