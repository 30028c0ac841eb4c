// Where each command of a line really acts: the directory it runs in after `cd`/`pushd`/`popd` earlier in its
// own shell environment, or under a wrapper that changes directory (`env -C`, `sudo -D`), and the links that
// earlier commands of the line made (`ln -s ~ h`, `cp -s`, `cp -l`, `link`). `ln -s ~ h && echo … >> h/.bashrc`
// writes ~/.bashrc, and `cd ~ && rm -rf *` removes home: the rules must see that, not "inside the project".
//
// Directories are kept as written, joined with `/` but not normalised (`~/..` must not become `.`): the policy
// layer expands `~` and resolves them against the call's cwd (policy/workdir.ts). null is a directory only known
// at run time (`cd "$d"`, `cd -`, `popd` past what the line pushed): relative paths there are dynamic.

import { programName, staticValue } from './program.ts';
import type { Analysis, SimpleCommand, Word } from './types.ts';

/** A link made earlier in the line: `link` names the same file as `target` from then on. */
export interface LineLink {
  /** Where the link is (a path as written, joined with its command's directory); null when only known at run time. */
  link: string | null;
  /** What it points to, as a path from the call's cwd (relative targets of symlinks already joined with the link's directory). */
  target: string | null;
  /** The command that made it, for reasons. */
  text: string;
}

export interface WorkDir {
  /** The directory: absolute, `~`-based, or relative to the call's cwd (`.` is the call's cwd); null when dynamic. */
  dir: string | null;
  /** The command that moved it there (`cd ~`, `env -C /`), for reasons. */
  by?: string;
  /** Links made by earlier commands of the line, in the order they were made. */
  links?: readonly LineLink[];
}

const CD = new Set(['cd', 'chdir', 'pushd', 'popd']);
/** Wrappers with an option that sets the inner command's directory, and the option's spellings. */
const CHDIR_OPTIONS: ReadonlyMap<string, { short?: string; long: readonly string[] }> = new Map([
  ['env', { short: 'C', long: ['chdir'] }],
  ['sudo', { short: 'D', long: ['chdir'] }],
  ['run0', { long: ['chdir'] }],
  ['unshare', { long: ['wd'] }],
  ['nsenter', { short: 'w', long: ['wd'] }],
]);
const LINKERS = new Set(['ln', 'cp', 'gcp', 'link']);
/** Wrappers that run their command in the same shell (a `cd` under them moves the shell). */
const SAME_SHELL = new Set(['builtin', 'command']);

/** The program's name (cached on the command by programName: this runs for every command of every line). */
function progOf(cmd: SimpleCommand): string | null {
  return programName(cmd);
}

/**
 * Sets `cwd` on the commands of an unwrapped analysis that run somewhere else than the call's cwd or after a link
 * was made. Costs one pass over the program names when the line has no cd, chdir wrapper or link maker.
 */
export function assignWorkDirs(analysis: Analysis): void {
  const cmds = analysis.commands;
  let relevant = false;
  for (const c of cmds) {
    const p = progOf(c);
    if (p !== null && (CD.has(p) || CHDIR_OPTIONS.has(p) || LINKERS.has(p))) {
      relevant = true;
      break;
    }
  }
  if (!relevant) return;
  const facts = lineFacts(analysis);
  const cds = cdAnchors(cmds);
  const dirs: (string | null)[] = new Array(cmds.length);
  const by: (string | undefined)[] = new Array(cmds.length);
  // Wrappers come before what they wrap (unwrapped commands are appended), so one pass in id order sees each
  // wrapper's directory before its inner commands need it.
  for (let i = 0; i < cmds.length; i++) {
    const d = cmds[i]!;
    let dir: string | null = '.';
    let how: string | undefined;
    if (d.wrappedBy !== undefined) {
      const w = cmds[d.wrappedBy]!;
      dir = dirs[w.id] ?? null;
      how = by[w.id];
      const opt = chdirOption(w, d);
      if (opt !== undefined) {
        dir = opt === null ? null : join(dir, opt);
        how = w.text;
      }
    }
    const stack: (string | null)[] = [];
    for (const c of cdsBefore(d, cds, cmds)) {
      dir = applyCd(c.cmd, dir, stack, facts);
      how = c.cmd.text;
    }
    dirs[i] = dir;
    by[i] = how;
  }
  const links = collectLinks(cmds, dirs);
  for (let i = 0; i < cmds.length; i++) {
    const d = cmds[i]!;
    const mine = links.length === 0 ? undefined : links.filter((l) => before(order(l.cmd, cmds), order(d, cmds))).map((l) => l.link);
    if (dirs[i] === '.' && (mine === undefined || mine.length === 0)) continue;
    const wd: WorkDir = { dir: dirs[i]! };
    if (by[i] !== undefined) wd.by = by[i]!;
    if (mine !== undefined && mine.length > 0) wd.links = mine;
    d.cwd = wd;
  }
}

interface LineFacts {
  /** The line assigns CDPATH (bash then looks relative names up there) or HOME (`cd` alone, `~`). */
  cdpath: boolean;
  home: boolean;
}

function lineFacts(analysis: Analysis): LineFacts {
  let cdpath = false;
  let home = false;
  for (const c of analysis.commands) {
    for (const a of c.assignments) {
      if (a.name === 'CDPATH') cdpath = true;
      if (a.name === 'HOME' && !isCdWithOwnHome(c)) home = true;
    }
    const p = progOf(c);
    if (p === 'export' || p === 'declare' || p === 'typeset' || p === 'readonly' || p === 'local' || p === 'read') {
      for (const w of c.argv.slice(1)) {
        if (/^CDPATH(=|$)/.test(w.value)) cdpath = true;
        if (/^HOME(=|$)/.test(w.value)) home = true;
      }
    }
  }
  return { cdpath, home };
}

function isCdWithOwnHome(c: SimpleCommand): boolean {
  const p = progOf(c);
  return p === 'cd' || p === 'chdir';
}

/** The directory a wrapper's own option gives its inner command: a value, null when dynamic, undefined when none. */
function chdirOption(w: SimpleCommand, inner: SimpleCommand): string | null | undefined {
  const p = progOf(w);
  const spec = p === null ? undefined : CHDIR_OPTIONS.get(p);
  if (!spec) return undefined;
  // The wrapper's options end where its inner command starts (the same Word objects).
  let end = w.argv.indexOf(inner.argv[0]!);
  if (end < 0) end = w.argv.length;
  let out: string | null | undefined;
  for (let i = 1; i < end; i++) {
    const v = w.argv[i]!.value;
    if (v === '--') break;
    let value: Word | string | undefined;
    for (const l of spec.long) {
      if (v === `--${l}`) value = w.argv[++i];
      else if (v.startsWith(`--${l}=`)) value = v.slice(l.length + 3);
    }
    if (value === undefined && spec.short !== undefined && /^-[A-Za-z]+/.test(v) && !v.startsWith('--')) {
      const at = v.indexOf(spec.short);
      // Only a cluster of flags before it: `-iC dir` (env -i -C dir), `-CDIR`.
      if (at > 0) value = at === v.length - 1 ? w.argv[++i] : v.slice(at + 1);
    }
    if (value === undefined) continue;
    out = typeof value === 'string' ? (w.argv[i]!.literal ? value : dynamicOr(value)) : dirWord(value);
  }
  return out;
}

/** `$HOME/x` and `${HOME}` as `~`-paths; null for any other run-time value. */
function dirWord(w: Word): string | null {
  const v = staticValue(w);
  if (v !== null) return w.glob ? null : v;
  return dynamicOr(w.value);
}

function dynamicOr(v: string): string | null {
  const m = /^(?:\$HOME|\$\{HOME\})(?=\/|$)/.exec(v);
  if (m && !/[$`*?[]/.test(v.slice(m[0].length))) return '~' + v.slice(m[0].length);
  return /[$`*?[]/.test(v) ? null : v;
}

function join(dir: string | null, to: string): string | null {
  if (to.startsWith('/') || to === '~' || to.startsWith('~/')) return to;
  if (to.startsWith('~')) return null; // ~user, ~+, ~-: not followed here
  if (dir === null) return null;
  if (to === '' || to === '.') return dir;
  return dir === '.' ? to : dir.endsWith('/') ? dir + to : `${dir}/${to}`;
}

interface Cd {
  cmd: SimpleCommand;
  /** Where it stands in its group: itself, or the `builtin`/`command` wrapper it runs under. */
  at: SimpleCommand;
}

/** The line's cd/pushd/popd commands, each with the place it stands (`builtin cd` stands where `builtin` is). */
function cdAnchors(cmds: readonly SimpleCommand[]): Cd[] {
  const out: Cd[] = [];
  for (const c of cmds) {
    const p = progOf(c);
    if (p === null || !CD.has(p)) continue;
    let at = c;
    while (at.wrappedBy !== undefined && SAME_SHELL.has(progOf(cmds[at.wrappedBy]!) ?? '')) at = cmds[at.wrappedBy]!;
    out.push({ cmd: c, at });
  }
  return out.sort((a, b) => a.at.id - b.at.id);
}

/**
 * The cds that move the shell `d` runs in, in order: in the same group of commands (the same wrapper string, or
 * the line itself), before it, and in a subshell scope that encloses `d`'s. A cd inside a function body runs only
 * if the function is called: not followed.
 */
function cdsBefore(d: SimpleCommand, cds: readonly Cd[], cmds: readonly SimpleCommand[]): Cd[] {
  const out: Cd[] = [];
  for (const c of cds) {
    if (c.at.wrappedBy !== d.wrappedBy || c.at.id >= d.id) continue;
    if (c.cmd.inFunction && !d.inFunction) continue;
    // `cd "$(node app)"`: the substitutions in the cd's own words run before it, where the shell still is.
    if (d.inSubstitution && ownSubstitutions(c.at, cmds).has(d.id)) continue;
    if (isPrefix(c.at.scope, d.scope)) out.push(c);
  }
  return out;
}

/** Ids of the commands run by substitutions in a command's words, assignments and redirects, nested ones included. */
function ownSubstitutions(c: SimpleCommand, cmds: readonly SimpleCommand[]): Set<number> {
  const out = new Set<number>();
  const add = (w: Word): void => {
    for (const id of w.substitutions) {
      if (out.has(id)) continue;
      out.add(id);
      const inner = cmds[id];
      if (inner) for (const x of wordsOf(inner)) add(x);
    }
  };
  for (const w of wordsOf(c)) add(w);
  return out;
}

function wordsOf(c: SimpleCommand): Word[] {
  return [...c.argv, ...c.assignments.map((a) => a.value), ...c.redirects.map((r) => r.target)];
}

function isPrefix(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (a === undefined || a.length === 0) return true;
  if (b === undefined || b.length < a.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const CD_FLAG = /^-[LPe@]+$/;

function applyCd(c: SimpleCommand, dir: string | null, stack: (string | null)[], facts: LineFacts): string | null {
  const p = progOf(c);
  const args = c.argv.slice(1).filter((w) => !CD_FLAG.test(w.value));
  if (p === 'popd') {
    if (args.some((w) => w.value === '-n')) return dir;
    return stack.length > 0 ? stack.pop()! : null;
  }
  if (p === 'pushd') {
    if (args.some((w) => w.value === '-n')) return dir;
    const t = args[0];
    if (!t || /^[+-]\d+$/.test(t.value)) return null;
    stack.push(dir);
  }
  const t = args[0];
  if (t === undefined || t.value === '--' && args.length === 1) {
    const own = c.assignments.find((a) => a.name === 'HOME');
    if (own) return dirWord(own.value);
    return facts.home ? null : '~';
  }
  const target = t.value === '--' ? args[1]! : t;
  const v = staticValue(target);
  if (v === '-') return null;
  const value = dirWord(target);
  if (value === null) return null;
  if ((value === '~' || value.startsWith('~/')) && facts.home) return null;
  // bash looks a relative name that does not start with ./ or ../ up in CDPATH first.
  if (facts.cdpath && !value.startsWith('/') && !value.startsWith('~') && !value.startsWith('./') && !value.startsWith('../') && value !== '.' && value !== '..') return null;
  return join(dir, value);
}

// ---------------------------------------------------------------------------------------------------------
// Links

interface MadeLink {
  cmd: SimpleCommand;
  link: LineLink;
}

function collectLinks(cmds: readonly SimpleCommand[], dirs: readonly (string | null)[]): MadeLink[] {
  const out: MadeLink[] = [];
  for (const c of cmds) {
    const p = progOf(c);
    if (p === null || !LINKERS.has(p)) continue;
    for (const l of linksOf(c, p, dirs[c.id] ?? null)) out.push({ cmd: c, link: l });
  }
  return out;
}

/**
 * The links one command makes. `ln [-s] T… NAME`, `ln -t DIR T…`, `ln T` (into .), `cp -s|-l SRC… DEST`,
 * `link T NAME`. A NAME that is `.`, `..`, ends in `/`, or takes several targets is a directory: the link is
 * NAME/basename(T). (A NAME that is an existing directory on disk is not looked at: the link is taken as NAME.)
 */
export function linksOf(c: SimpleCommand, prog: string, dir: string | null): LineLink[] {
  const words = c.argv.slice(1);
  let symbolic = false;
  let relative = false;
  let noTargetDir = false;
  let targetDir: Word | undefined;
  let makesLinks = prog === 'ln' || prog === 'link';
  const ops: Word[] = [];
  let optionsDone = prog === 'link';
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (!optionsDone && v === '--') {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && v.startsWith('--') && v.length > 2) {
      const [k, val] = v.includes('=') ? [v.slice(2, v.indexOf('=')), v.slice(v.indexOf('=') + 1)] : [v.slice(2), undefined];
      if (k === 'symbolic' || k === 'symbolic-link') symbolic = makesLinks = true;
      else if (k === 'link') makesLinks = true;
      else if (k === 'relative') relative = true;
      else if (k === 'no-target-directory') noTargetDir = true;
      else if (k === 'target-directory') targetDir = val !== undefined ? { ...w, value: val } : words[++i];
      else if ((k === 'suffix' || k === 'sparse' || k === 'no-preserve') && val === undefined) i++;
      continue;
    }
    if (!optionsDone && v.startsWith('-') && v.length > 1) {
      for (let j = 1; j < v.length; j++) {
        const ch = v[j]!;
        if (ch === 's') symbolic = makesLinks = true;
        else if (ch === 'l' && prog !== 'ln') makesLinks = true;
        else if (ch === 'r' && prog === 'ln') relative = true;
        else if (ch === 'T') noTargetDir = true;
        else if (ch === 't' || ch === 'S') {
          const val = v.slice(j + 1);
          const word = val.length > 0 ? { ...w, value: val } : words[++i];
          if (ch === 't') targetDir = word;
          break;
        }
      }
      continue;
    }
    ops.push(w);
  }
  if (!makesLinks || ops.length === 0) return [];
  let targets: Word[];
  let linkOf: (t: string | null) => string | null;
  if (targetDir !== undefined) {
    const d = dirWord(targetDir);
    targets = ops;
    linkOf = (t) => (d === null || t === null ? null : join(dir, `${d}/${lastName(t)}`));
  } else if (ops.length >= 2) {
    targets = ops.slice(0, -1);
    const nameWord = ops[ops.length - 1]!;
    const name = dirWord(nameWord);
    const isDir = !noTargetDir && name !== null && (ops.length > 2 || name.endsWith('/') || name === '.' || name === '..' || name === '~' || /\/\.\.?$/.test(name));
    linkOf = (t) => (name === null ? null : isDir ? (t === null ? null : join(dir, `${name.replace(/\/+$/, '')}/${lastName(t)}`)) : join(dir, name));
  } else {
    targets = ops;
    linkOf = (t) => (t === null ? null : join(dir, lastName(t)));
  }
  const out: LineLink[] = [];
  for (const tw of targets) {
    const t = dirWord(tw);
    const link = linkOf(t);
    let target: string | null;
    if (t === null) target = null;
    else if (t.startsWith('/') || t.startsWith('~')) target = join(dir, t);
    // A symlink's relative target is read from the link's own directory; a hard link's, cp's and `ln -r`'s from the cwd.
    else if (symbolic && !relative && prog === 'ln') target = link === null ? null : join(parentOf(link), t);
    else target = join(dir, t);
    out.push({ link, target, text: c.text });
  }
  return out;
}

function lastName(p: string): string {
  const s = p.replace(/\/+$/, '');
  if (s === '~') return basenameOfHome;
  const i = s.lastIndexOf('/');
  return i < 0 ? s : s.slice(i + 1);
}

/**
 * The name `ln -s ~ .` gives its link is home's own basename, which only the policy layer knows; this marker
 * stands for it and is replaced there.
 */
export const basenameOfHome = '\u0000home-basename';

function parentOf(p: string): string {
  const s = p.replace(/\/+$/, '');
  const i = s.lastIndexOf('/');
  if (i < 0) return '.';
  if (i === 0) return '/';
  return s.slice(0, i);
}

// ---------------------------------------------------------------------------------------------------------
// Order: unwrapped commands are appended after the line's own, so a command's place is the chain of ids from
// its outermost wrapper down to itself, compared lexicographically.

function order(cmd: SimpleCommand, cmds: readonly SimpleCommand[]): number[] {
  const chain = [cmd.id];
  let w = cmd.wrappedBy;
  let guard = 0;
  while (w !== undefined && guard++ < 64) {
    chain.unshift(w);
    w = cmds[w]?.wrappedBy;
  }
  return chain;
}

function before(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  }
  return a.length < b.length;
}
