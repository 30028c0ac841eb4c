// Built-in rules: where an extraction really writes. Most of "where a command acts" needs no rule of its own:
// the shell analysis works out the directory each command runs in and the links the line made (shell/cwd.ts),
// and the engine hands rules a context that resolves paths there (policy/workdir.ts). What is left is the one
// case where the command line cannot say where files land at all: an archive whose member names decide.

import { staticValue } from '../../shell/program.ts';
import type { SimpleCommand, Word } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleHit } from '../rule.ts';
import { parseTar } from './writes.ts';

/** `s,^,/,` / `s|^|../../|`: a sed-style transform whose replacement can make a name absolute or climb out. */
export function transformEscapes(expr: string): boolean {
  // Several expressions may be joined with `;`; each is s<d>regex<d>replacement<d>flags.
  for (const part of expr.split(';')) {
    const e = part.trim();
    if (e.length < 4 || e[0] !== 's') {
      if (e.length > 0) return true; // not an s/// we can read: the names it makes are unknown
      continue;
    }
    const d = e[1]!;
    const pieces = splitUnescaped(e.slice(2), d);
    if (pieces.length < 2) return true;
    const repl = pieces[1]!;
    // A replacement that starts with `/` or holds `..` can put a member anywhere; `&`/`\1` only move text that
    // was in the name already (tar itself refuses leading `/` and `..` without -P).
    if (repl.startsWith('/') || repl.includes('..')) return true;
  }
  return false;
}

function splitUnescaped(s: string, d: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '\\' && i + 1 < s.length) {
      cur += ch + s[++i]!;
      continue;
    }
    if (ch === d) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out;
}

/** Why a tar/bsdtar/unzip extraction may write outside where it was pointed, or null. */
export function archiveEscape(cmd: SimpleCommand, prog: string): string | null {
  const words = cmd.argv.slice(1);
  if (prog === 'unzip') {
    // `-:` keeps `../` in member names; `-/`? no such option. Only the extraction forms matter.
    return words.some((w) => /^-[A-Za-z]*:/.test(w.value)) ? '`unzip -:` keeps `../` in member names' : null;
  }
  const t = parseTar(words);
  if (!t.extract) return null;
  const first = words[0];
  const oldStyle = first !== undefined && first.literal && /^[A-Za-z]+$/.test(first.value) && first.value.includes('P');
  if (oldStyle || t.parsed.flags.has('P') || t.parsed.flags.has('absolute-names')) return 'it keeps absolute member names (-P)';
  for (const f of t.parsed.flagList) {
    if (f.name !== 'transform' && f.name !== 'xform') continue;
    if (typeof f.value !== 'string') continue;
    if (!f.word.literal && staticValue(f.word) === null) return 'its name transform is only known at run time';
    if (transformEscapes(f.value)) return 'its name transform can make absolute or `..` paths';
  }
  // bsdtar's own substitution option: -s /old/new/.
  if (prog === 'bsdtar' || prog === 'tar') {
    for (let i = 0; i < words.length; i++) {
      const w: Word = words[i]!;
      if (w.value === '-s' && words[i + 1] && transformEscapes(words[i + 1]!.value)) return 'its name substitution (-s) can make absolute or `..` paths';
    }
  }
  return null;
}

export const rules: Rule[] = [
  // Soft: where the files land is decided by member names inside the archive, which no one has read; they can be
  // ~/.bashrc or /etc/cron.d/x. Not hard: extracting a trusted backup with -P is a real (rare) need.
  defineShellRule({
    id: 'fs.archive-absolute-names',
    tier: 'soft_deny',
    programs: ['tar', 'gtar', 'bsdtar', 'unzip'],
    reason: 'This extraction lets the archive decide where files land (absolute or `..` member names), anywhere on the machine; extract without -P or the transform into a directory of the project, and look at `tar -tf` first.',
    examples: {
      match: ['tar -xPf payload.tar', 'tar --absolute-names -xf a.tar', "tar -xf a.tar --transform 's,^,/,'", "tar -xf a.tar --xform='s|^|../../|'", 'tar xPf a.tar', 'unzip -: a.zip', "bsdtar -xf a.tar -s ',^,/etc/,'"],
      notMatch: ['tar -xzf deps.tgz -C vendor', 'tar -xzf a.tgz --strip-components=1 -C vendor', "tar -xf a.tar --transform 's,^pkg/,,'", 'tar -cPf backup.tar /etc', 'unzip a.zip -d vendor', 'tar -tPf a.tar'],
    },
    match: (cmd): RuleHit | null => {
      const prog = (staticValue(cmd.argv[0]) ?? '').split('/').pop()!.toLowerCase();
      const why = archiveEscape(cmd, prog);
      return why === null ? null : { reason: `This extraction lets the archive decide where files land: ${why}, so its member names can be ~/.bashrc or /etc/cron.d/x. Extract into a directory of the project without it, and list the archive (\`tar -tf\`) first.`, subject: cmd.text };
    },
  }),
];
