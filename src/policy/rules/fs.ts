// Built-in rules: fs family (irreversible file destruction, writes outside the project or to the system,
// permission changes) and the dev.* device rules (disk formatting, raw device writes, partitioning).

import { lstatSync, readdirSync } from 'node:fs';
import picomatch from 'picomatch';
import { posix } from 'node:path';
import type { Tier } from '../../core/types.ts';
import { parseArgs } from '../../shell/args.ts';
import { programName, staticValue } from '../../shell/program.ts';
import type { Analysis, SimpleCommand, Word } from '../../shell/types.ts';
import { wrapsDirectly } from '../../shell/unwrap.ts';
import type { PathInfo } from '../paths.ts';
import { worktreeStatus } from '../worktree-status.ts';
import { defineShellRule, type Rule, type RuleContext, type RuleHit } from '../rule.ts';
import {
  DELETE_HOWS, globDir, has, isCatastrophicDir, parseChmod, findArgsOf, parseRm, pathTargets, type PathTarget, isRemoteSpec,
  linkTargets,
} from './writes.ts';

// ---------------------------------------------------------------------------------------------------------
// Shared pieces

interface Verdict {
  rule: string;
  tier: Tier;
  reason: string;
  subject: string;
}

const TIER_RANK: Readonly<Record<Tier, number>> = { allow: 0, unknown: 1, soft_deny: 2, hard_deny: 3 };

/** The most severe verdict for one rule id, as a RuleHit. */
function pick(verdicts: readonly Verdict[], rule: string): RuleHit | null {
  let best: Verdict | null = null;
  for (const v of verdicts) {
    if (v.rule !== rule) continue;
    if (best === null || TIER_RANK[v.tier] > TIER_RANK[best.tier]) best = v;
  }
  return best === null ? null : { tier: best.tier, reason: best.reason, subject: best.subject };
}

/** Directory names whose content tools regenerate, beyond the classifier's own list (component of a project path). */
const EXTRA_ARTIFACTS: ReadonlySet<string> = new Set([
  'node_modules', 'dist', 'build', 'out', 'coverage', 'target', '.next', '.nuxt', '.svelte-kit', '.cache', '.turbo',
  '.parcel-cache', '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.tox', '.venv', 'venv', '.gradle',
  '.eggs', 'htmlcov', '.nyc_output', 'storybook-static', '.docusaurus', '.vite', '.angular', '.expo', '.dart_tool',
  '.serverless', '.webpack', '.output', 'tmp', 'temp', '.tmp', '.sass-cache', '.hypothesis', '.benchmarks',
  'cmake-build-debug', 'cmake-build-release', '_build', '.terraform', 'DerivedData', '.build', 'elm-stuff',
  'zig-cache', 'zig-out', '.zig-cache', '.stack-work', 'dist-newstyle', '.pnpm-store', '.eslintcache',
  '.stylelintcache', 'pip-wheel-metadata', '.coverage', 'lib-cov', '.jest-cache', '.swc', '.wrangler',
]);

/**
 * A path inside the project under a directory tools regenerate. Only the part below the project root
 * counts: a project that itself lives under `~/build/` is not a build artefact.
 */
function isArtifact(info: PathInfo, path: string, ctx: RuleContext): boolean {
  if (has(info, 'build-artifact')) return true;
  if (!has(info, 'project')) return false;
  const root = ctx.projectRoot.endsWith('/') ? ctx.projectRoot : `${ctx.projectRoot}/`;
  let rel = path;
  if (path.startsWith('/')) {
    if (!path.startsWith(root)) return false;
    rel = path.slice(root.length);
  }
  const comps = rel.split('/');
  return comps.some((c) => EXTRA_ARTIFACTS.has(c) || c.endsWith('.egg-info'));
}

/** Extensions that usually name a directory, so `rm -r x.<ext>` is not "just a file". */
const DIR_EXTENSIONS = new Set(['d', 'app', 'bundle', 'framework', 'git', 'old', 'bak', 'orig', 'backup', 'xcodeproj', 'xcworkspace', 'lproj', 'xcassets', 'egg-info']);
const FILE_EXT = /\.([A-Za-z][A-Za-z0-9]{0,7})$/;

/** A name that looks like a file (`package-lock.json`, `*.log`) rather than a directory. */
function fileLike(name: string): boolean {
  if (name.startsWith('.') && name.indexOf('.', 1) < 0) return false;
  const m = FILE_EXT.exec(name);
  return m !== null && !DIR_EXTENSIONS.has(m[1]!.toLowerCase());
}

function lastComponent(p: string): string {
  const s = p.endsWith('/') && p.length > 1 ? p.slice(0, -1) : p;
  return s.slice(s.lastIndexOf('/') + 1);
}

/** For `dir/*`: the classification of `dir` (whose whole content goes); otherwise null. */
function dirOfGlob(t: PathTarget, ctx: RuleContext): PathInfo | null {
  if (!t.word.glob) return null;
  const d = globDir(t.path);
  return d === null ? null : ctx.path(d);
}

/** True when the path is the top of a temp area (`/tmp` itself), found by asking whether its parent is temp. */
function isTempRoot(info: PathInfo, ctx: RuleContext): boolean {
  if (info.abs === null || !has(info, 'temp')) return false;
  return !has(ctx.path(posix.dirname(info.abs)), 'temp');
}

/** The unwrapped commands whose chain of wrappers leads back to `id` (find -exec X, xargs X, sh -c 'X'). */
function innerOf(id: number, analysis: Analysis): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  for (const c of analysis.commands) {
    let w = c.wrappedBy;
    let guard = 0;
    while (w !== undefined && w !== id && guard++ < 64) w = analysis.commands[w]?.wrappedBy;
    if (w === id) out.push(c);
  }
  return out;
}


/** The outermost wrapper of a command (itself when not wrapped). */
function wrapperChain(cmd: SimpleCommand, analysis: Analysis): SimpleCommand[] {
  const chain: SimpleCommand[] = [];
  let w = cmd.wrappedBy;
  let guard = 0;
  while (w !== undefined && guard++ < 64) {
    const c = analysis.commands[w];
    if (!c) break;
    chain.push(c);
    w = c.wrappedBy;
  }
  return chain;
}

const DELETERS: ReadonlySet<string> = new Set(['rm', 'rmdir', 'unlink', 'shred', 'srm', 'grm']);
const RM_PROGRAMS = ['rm', 'rmdir', 'unlink', 'grm'] as const;

// ---------------------------------------------------------------------------------------------------------
// rm: one verdict per operand, each owned by exactly one rule id.

const rmCache = new WeakMap<SimpleCommand, { ctx: RuleContext; verdicts: Verdict[] }>();

function rmVerdicts(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis): Verdict[] {
  const hit = rmCache.get(cmd);
  if (hit && hit.ctx === ctx) return hit.verdicts;
  const name = programName(cmd);
  const p = parseRm(cmd);
  const R = name === 'rm' || name === 'grm' ? p.flags.has('r') : false;
  const F = name === 'rm' || name === 'grm' ? p.flags.has('f') : false;
  const noPreserveRoot = p.flags.has('no-preserve-root');
  const verdicts: Verdict[] = [];
  for (const t of pathTargets(cmd, ctx, analysis)) {
    if (t.kind !== 'delete' || !DELETE_HOWS.has(t.how)) continue;
    verdicts.push(judgeRm(t, cmd, R, F, noPreserveRoot, ctx, analysis));
  }
  // `rm -rf` with no operand at all (`rm -rf 2>/dev/null`) only prints a usage error.
  // Not for a command unwrapped from xargs or parallel, which append their input as operands at run time.
  if (verdicts.length === 0 && p.operands.length === 0 && !p.dynamic && !noPreserveRoot && cmd.via.length === 0) {
    verdicts.push({ rule: 'fs.rm-file', tier: 'allow', reason: 'Nothing to remove: with no operand rm only prints a usage error.', subject: cmd.text });
  }
  rmCache.set(cmd, { ctx, verdicts });
  return verdicts;
}

/** True when every command feeding this xargs-wrapped command through a pipe is a find (judged by fs.find-delete). */
function fedByFind(cmd: SimpleCommand, analysis: Analysis): boolean {
  for (const w of wrapperChain(cmd, analysis)) {
    if (programName(w) === 'find') return true;
    if (programName(w) === 'xargs' && w.stdin.kind === 'pipe' && w.stdin.from.length > 0) {
      return w.stdin.from.every((id) => {
        const s = analysis.commands[id];
        return s !== undefined && programName(s) === 'find';
      });
    }
  }
  return false;
}

function judgeRm(t: PathTarget, cmd: SimpleCommand, R: boolean, F: boolean, noPreserveRoot: boolean, ctx: RuleContext, analysis: Analysis): Verdict {
  const subject = t.path;
  const v = (rule: string, tier: Tier, reason: string): Verdict => ({ rule, tier, reason, subject });
  if (noPreserveRoot) return v('fs.rm-catastrophic', 'hard_deny', '`--no-preserve-root` exists only to delete `/`; never run it.');
  if (t.placeholder) {
    if (fedByFind(cmd, analysis)) return v('fs.rm-file', 'allow', 'Removes the files find selects; the find command decides how risky that is.');
    return R
      ? v('fs.rm-dynamic', 'soft_deny', 'Recursive removal of paths only known at run time (xargs input); list them first and remove them explicitly.')
      : v('fs.rm-dynamic', 'unknown', 'Removes paths only known at run time (xargs input); a person should check what they are.');
  }
  const info = t.info;
  if (R && /^\/+\$/.test(t.word.value)) {
    return v('fs.rm-catastrophic', 'hard_deny', `\`rm -r ${t.word.value}\` removes / when the variable is empty or names a system directory; use an explicit path.`);
  }
  const dirInfo = dirOfGlob(t, ctx);
  const whole = dirInfo ?? info;
  const wholeAbs = whole.abs;
  const sweeping = R || F || dirInfo !== null;

  if (has(whole, 'root', 'home-root') || isCatastrophicDir(wholeAbs, ctx)) {
    if (sweeping) return v('fs.rm-catastrophic', 'hard_deny', `Removing ${subject} wipes the system or the home directory; remove the specific files you mean instead.`);
    return v('fs.rm-outside-project', 'soft_deny', `${subject} is a top-level directory outside the project; remove only what you mean.`);
  }
  if (has(whole, 'system')) {
    if (R || (dirInfo !== null && F)) return v('fs.rm-catastrophic', 'hard_deny', `Recursive removal of the system path ${subject} breaks the machine; do not touch system directories.`);
    return v('fs.write-system', 'hard_deny', `Removing the system file ${subject} can break the machine; leave system files to the administrator.`);
  }
  if (has(info, 'device', 'null-device') || (wholeAbs !== null && (wholeAbs === '/dev' || wholeAbs.startsWith('/dev/')))) {
    return v('fs.write-system', 'hard_deny', `Removing the device node ${subject} breaks the system.`);
  }
  if (info.abs === null && has(info, 'dynamic') && !has(info, 'project', 'temp', 'home', 'outside')) {
    const raw = t.word.value;
    if (R) {
      const leadingVar = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?\/+\*?$/.test(raw);
      return v('fs.rm-dynamic', 'soft_deny', leadingVar
        ? `\`rm -r ${raw}\` removes / when the variable is empty; use \${VAR:?} or an explicit path.`
        : `Recursive removal of ${raw}, a path only known at run time; resolve it and remove an explicit path.`);
    }
    return v('fs.rm-dynamic', 'unknown', `Removes ${raw}, a path only known at run time; a person should check it.`);
  }
  if (has(whole, 'temp')) {
    // The temp directory itself (not its content) is shared system structure.
    if (R && dirInfo === null && isTempRoot(info, ctx)) {
      return v('fs.rm-outside-project', 'soft_deny', `Removing ${info.abs ?? subject} itself breaks every program that needs a temp directory; remove your own temp files by name.`);
    }
    return v('fs.rm-temp', 'allow', 'Removes temporary files.');
  }
  if (has(whole, 'project')) {
    if (has(whole, 'project-root')) {
      if (dirInfo === null) return v('fs.rm-project-root', 'soft_deny', 'Removing the project root deletes the whole project; remove the specific files or build directories instead.');
      const pattern = lastComponent(t.path);
      if (/^[*?.]+$/.test(pattern)) {
        return v('fs.rm-project-root', 'soft_deny', `\`rm ${R ? '-r ' : ''}${pattern}\` in the project root deletes the whole project; name what you mean to remove.`);
      }
    }
    const path = info.abs ?? t.path;
    if (lastComponent(path) === '.git' && has(info, 'git-internals') && R) {
      return v('fs.rm-recursive', 'soft_deny', 'Removing .git deletes the repository and its whole history; ask the user first.');
    }
    if (isArtifact(info, path, ctx) || (dirInfo !== null && isArtifact(dirInfo, dirInfo.abs ?? '', ctx))) {
      return v(R ? 'fs.rm-artifacts' : 'fs.rm-file', 'allow', 'Removes build artefacts inside the project; tools regenerate them.');
    }
    if (!R || fileLike(lastComponent(t.path))) {
      const lost = dirInfo !== null
        ? (dirInfo.abs !== null ? uncommittedInGlob(dirInfo.abs, lastComponent(t.path), ctx) : null)
        : info.abs !== null ? uncommittedFile(info.abs, posix.resolve(ctx.cwd, t.path), ctx) : null;
      if (lost !== null) return v('fs.rm-untracked', 'soft_deny', `${subject} is ${lost}, and this session did not create it: removing it may lose the user's uncommitted work. Ask the user, or commit it first.`);
      return v('fs.rm-file', 'allow', 'Removes files inside the project.');
    }
    // What this session made, it may clean up (a glob's directory is not checked entry by entry: it asks).
    if (dirInfo === null && info.abs !== null && ctx.createdInSession(info.abs)) {
      return v('fs.rm-created', 'allow', `${subject} was created by the agent in this session (asimov recorded it), and nothing older was moved into it; removing it is cleanup.`);
    }
    return v('fs.rm-recursive', 'soft_deny', `Recursive removal of ${subject} inside the project may lose untracked work; check \`git status\` and remove only what you mean.`);
  }
  if (has(whole, 'home', 'outside', 'home-root')) {
    return v('fs.rm-outside-project', 'soft_deny', `Removing ${subject} outside the project; the user's other files are not yours to delete.`);
  }
  return v('fs.rm-dynamic', 'unknown', `Removes ${subject}, whose location is unclear; a person should check it.`);
}

/**
 * Why removing this existing regular file inside the project would lose work git cannot give back (untracked,
 * or changed since it was staged), or null when nothing would be lost: not there, not a regular file (a link
 * loses only itself), the same as git's index, created by this session, or in no git repository at all
 * (there asimov cannot tell the user's work from anything else, and asking for every removal would teach
 * people to click through).
 */
function uncommittedFile(abs: string, named: string, ctx: RuleContext): string | null {
  let st;
  try {
    // The operand as named: rm removes a link itself, not what it points at.
    if (lstatSync(named).isSymbolicLink()) return null;
    st = lstatSync(abs);
  } catch {
    return null;
  }
  if (!st.isFile()) return null;
  const status = worktreeStatus(abs);
  if (status.kind !== 'changed') return null;
  if (ctx.createdInSession(abs)) return null;
  return status.why;
}

/** Entries of a directory looked at for a glob, and matching files checked, before the removal just asks. */
const MAX_GLOB_ENTRIES = 5000;
const MAX_GLOB_CHECKS = 500;

/** Compiled last-component globs, kept across calls (a pure function of the text); null: picomatch could not read it. */
const globMatchers = new Map<string, ((n: string) => boolean) | null>();

/** A matcher for a glob as bash expands it (a leading dot matched only explicitly); compiling costs more than a call. */
function globMatcher(pattern: string): ((n: string) => boolean) | null {
  let m = globMatchers.get(pattern);
  if (m === undefined) {
    try {
      m = picomatch(pattern, { dot: pattern.startsWith('.') });
    } catch {
      m = null;
    }
    if (globMatchers.size >= 1024) globMatchers.clear();
    globMatchers.set(pattern, m);
  }
  return m;
}

/**
 * The first file a last-component glob (`rm notes-*.md`) would remove that git cannot give back, as bash expands
 * it (a leading dot matched only explicitly); null when none. A directory too large to look through asks.
 */
function uncommittedInGlob(dir: string, pattern: string, ctx: RuleContext): string | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  if (names.length > MAX_GLOB_ENTRIES) return `one of ${names.length} entries, too many to check one by one`;
  const match = globMatcher(pattern);
  if (match === null) return `one of the files \`${pattern}\` may match (a pattern asimov could not read)`;
  let checked = 0;
  for (const n of names) {
    if (!match(n)) continue;
    if (++checked > MAX_GLOB_CHECKS) return `one of more than ${MAX_GLOB_CHECKS} files \`${pattern}\` matches`;
    const abs = posix.join(dir, n);
    const why = uncommittedFile(abs, abs, ctx);
    if (why !== null) return `${n} (which \`${pattern}\` matches): ${why}`;
  }
  return null;
}

function rmRule(id: string, rest: Omit<Parameters<typeof defineShellRule>[0], 'id' | 'match' | 'programs'>): Rule {
  return defineShellRule({
    id,
    programs: RM_PROGRAMS,
    ...rest,
    match: (cmd, ctx, analysis) => pick(rmVerdicts(cmd, ctx, analysis), id),
  });
}

// ---------------------------------------------------------------------------------------------------------
// Generic write rules over every command's targets (redirects included).

/** Hows that a dedicated rule judges; the generic write rules skip them. */
const OWNED_HOWS: ReadonlySet<string> = new Set([...DELETE_HOWS, 'truncate']);

function isTcpDevice(p: string | null): boolean {
  return p !== null && /^\/dev\/(tcp|udp)\//.test(p);
}

function firstTarget(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis, test: (t: PathTarget) => boolean): PathTarget | null {
  for (const t of pathTargets(cmd, ctx, analysis)) if (test(t)) return t;
  return null;
}

function verb(t: PathTarget): string {
  if (t.kind === 'delete') return 'Deleting';
  if (t.kind === 'modify') return 'Changing';
  return 'Writing';
}

const RISKY_FOR_ALLOW = ['root', 'system', 'device', 'credentials', 'shell-init', 'persistence', 'agent-config', 'agent-instructions', 'asimov-config', 'protected', 'dynamic', 'home', 'home-root', 'outside'] as const;

/** A target the everyday file operations may touch without asking. */
function benign(t: PathTarget): boolean {
  if (t.placeholder) return false;
  const i = t.info;
  if (has(i, 'null-device') && !has(i, 'device')) return true;
  if (has(i, ...RISKY_FOR_ALLOW)) return false;
  if (has(i, 'git-internals') && /\/\.git\/(hooks(\/|$)|config$)/.test(i.abs ?? '')) return false;
  return has(i, 'project', 'temp', 'build-artifact');
}

/** coreutils/BSD split's own options (no --filter), with at most `input prefix` as operands. */
const SPLIT_OPTION = /^(-[aCblnpt]|--(suffix-length|bytes|line-bytes|lines|number|separator|additional-suffix)(=.*)?|-[dxeu]+|--(numeric-suffixes|hex-suffixes)(=.*)?|--(elide-empty-files|unbuffered|verbose|help|version)|-[aCblnt]\S+|-\d+)$/;
const SPLIT_WITH_VALUE = /^(-[aCblnpt]|--(suffix-length|bytes|line-bytes|lines|number|separator|additional-suffix))$/;
function coreutilsSplit(cmd: SimpleCommand): boolean {
  const words = cmd.argv.slice(1).map((w) => staticValue(w));
  let operands = 0;
  for (let i = 0; i < words.length; i++) {
    const v = words[i];
    if (v === null || v === undefined) return false;
    if (v === '-' || !v.startsWith('-')) { operands++; continue; }
    if (!SPLIT_OPTION.test(v)) return false;
    if (SPLIT_WITH_VALUE.test(v)) i++;
  }
  return operands <= 2;
}

/** Compressors: with -c, -t, -l or on a pipe they only read and print. */
const COMPRESSORS = [
  'gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'pigz', 'unpigz', 'pbzip2', 'lbzip2', 'lzma', 'unlzma', 'lzip',
  'compress', 'uncompress', 'zstd', 'unzstd', 'lz4', 'unlz4', 'brotli',
] as const;
const COMPRESSOR_SET: ReadonlySet<string> = new Set(COMPRESSORS);

/** Everyday file tools; `sed`/`perl`/`ruby` only count when they edit in place. */
const FILE_OPS = [
  'mkdir', 'touch', 'cp', 'mv', 'ln', 'install', 'rsync', 'tee', 'sponge', 'dd', 'truncate', 'chmod', 'chown', 'chgrp',
  'tar', 'bsdtar', 'gtar', 'unzip', 'patch', 'mkfifo', 'sed', 'gsed', 'gcp', 'gmv', 'split', 'csplit', 'dos2unix',
  'unix2dos', 'zip', '7z', '7za', '7zz', 'jar', 'ar', 'ddrescue', 'scp', ...COMPRESSORS,
] as const;

// ---------------------------------------------------------------------------------------------------------
// chmod helpers

interface ModeBits {
  worldWritable: boolean;
  setid: boolean;
}

function modeBits(mode: string): ModeBits {
  if (/^[0-7]{1,5}$/.test(mode)) {
    const n = parseInt(mode, 8);
    return { worldWritable: (n & 0o002) !== 0, setid: (n & 0o6000) !== 0 };
  }
  let worldWritable = false;
  let setid = false;
  for (const clause of mode.split(',')) {
    const m = /^([ugoa]*)(.*)$/.exec(clause);
    if (!m) continue;
    const who = m[1]!;
    const opRe = /([-+=])([rwxXstugo]*)/g;
    let op: RegExpExecArray | null;
    while ((op = opRe.exec(m[2]!)) !== null) {
      if (op[1] === '-') continue;
      const perms = op[2]!;
      if (perms.includes('w') && (who.includes('o') || who.includes('a'))) worldWritable = true;
      if (perms.includes('s') && (who === '' || /[uga]/.test(who))) setid = true;
    }
  }
  return { worldWritable, setid };
}

function chownRecursive(cmd: SimpleCommand): boolean {
  const name = programName(cmd);
  if (name === 'chmod') return parseChmod(cmd.argv.slice(1)).recursive;
  const p = parseArgs(cmd, { longWithValue: ['from'], aliases: { recursive: 'R' } });
  return p.flags.has('R');
}

// ---------------------------------------------------------------------------------------------------------
// Device helpers

const MKFS_PROGRAMS = [
  'mkfs', 'mkfs.ext2', 'mkfs.ext3', 'mkfs.ext4', 'mkfs.xfs', 'mkfs.btrfs', 'mkfs.vfat', 'mkfs.fat', 'mkfs.msdos',
  'mkfs.ntfs', 'mkfs.exfat', 'mkfs.f2fs', 'mkfs.minix', 'mkfs.bfs', 'mkfs.cramfs', 'mkfs.jfs', 'mkfs.reiserfs',
  'mkfs.hfsplus', 'mkfs.udf', 'mkfs.nilfs2', 'mkfs.bcachefs', 'mke2fs', 'mkswap', 'mkdosfs', 'mkntfs', 'mkexfatfs',
  'mkfs.apfs', 'newfs', 'newfs_hfs', 'newfs_apfs', 'newfs_msdos', 'newfs_exfat', 'mkreiserfs', 'mkudffs',
] as const;

const PARTITION_PROGRAMS = ['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'cgdisk', 'sgdisk', 'parted', 'wipefs', 'blkdiscard', 'mdadm', 'hdparm', 'diskutil', 'gpart', 'fdformat'] as const;

const SFDISK_READ = /^(-l|--list|-d|--dump|-s|--show-size|-V|--verify|-J|--json|-g|--show-geometry|-F|--list-free|-r|--reorder-no|--help|-h|--version|-v|-q|--quiet|--color.*|-n|--no-act|-o|--output)$/;
const SGDISK_READ = /^(-p|--print|-i|--info(=.*)?|-v|--verify|-L|--list-types|-O|--print-mbr|-P|--pretend|-V|--version|-h|--help|-\?)$/;
const PARTED_WRITE = new Set(['mklabel', 'mktable', 'mkpart', 'mkpartfs', 'rm', 'resizepart', 'resize', 'rescue', 'move', 'cp', 'mkfs', 'set', 'toggle', 'name', 'disk_set', 'disk_toggle']);
const DISKUTIL_WRITE = new Set(['erasedisk', 'erasevolume', 'partitiondisk', 'zerodisk', 'randomdisk', 'secureerase', 'reformat', 'splitpartition', 'mergepartitions', 'resizevolume', 'deletecontainer', 'deletevolume', 'erasecontainer', 'eject']);
const HDPARM_WRITE = /^--(security-erase|security-erase-enhanced|security-set-pass|security-disable|trim-sector-ranges|trim-sector-ranges-stdin|write-sector|make-bad-sector|fwdownload.*|dco-restore|dco-setmax|repair-sector|set-sector-size)$|^-[NzY]/;

/** Why a partitioning tool call destroys data, or null for its read-only forms. */
function partitionHit(cmd: SimpleCommand): string | null {
  const name = programName(cmd);
  const words = cmd.argv.slice(1).map((w) => staticValue(w) ?? w.value);
  const opts = words.filter((w) => w.startsWith('-'));
  const onlyRead = (re: RegExp): boolean => opts.length > 0 && opts.every((o) => re.test(o));
  switch (name) {
    case 'fdisk':
    case 'gdisk':
      if (words.some((w) => w === '-l' || w === '--list' || w === '-h' || w === '--help' || w === '-V' || w === '--version' || w === '-v')) return null;
      return `\`${name}\` rewrites partition tables; disk partitioning is for a person to do.`;
    case 'sfdisk':
      if (onlyRead(SFDISK_READ)) return null;
      return '`sfdisk` rewrites partition tables; disk partitioning is for a person to do.';
    case 'sgdisk':
      if (onlyRead(SGDISK_READ)) return null;
      return '`sgdisk` rewrites or zaps GPT partition tables; disk partitioning is for a person to do.';
    case 'cfdisk':
    case 'cgdisk':
    case 'fdformat':
      return `\`${name}\` rewrites a disk's layout; disk partitioning is for a person to do.`;
    case 'parted': {
      if (words.some((w) => PARTED_WRITE.has(w.toLowerCase()))) return '`parted` changes partitions; disk partitioning is for a person to do.';
      if (words.some((w) => w === '-l' || w === '--list' || w === 'print' || w === 'p' || w === '-h' || w === '--help' || w === '-v' || w === '--version')) return null;
      return '`parted` without a read-only command opens the partition editor; disk partitioning is for a person to do.';
    }
    case 'wipefs':
      if (words.some((w) => w === '-n' || w === '--no-act')) return null;
      if (words.some((w) => w === '-a' || w === '--all' || w === '-o' || w.startsWith('--offset') || /^-[a-z]*[ao][a-z]*$/.test(w))) return '`wipefs` erases filesystem signatures and makes the data unreachable.';
      return null;
    case 'blkdiscard':
      return '`blkdiscard` discards every block of a device: the data is gone.';
    case 'mdadm':
      if (words.some((w) => w === '--zero-superblock' || w === '--create' || w === '-C' || w === '--build' || w === '-B')) return '`mdadm` overwrites RAID superblocks; that destroys arrays.';
      return null;
    case 'hdparm':
      if (words.some((w) => HDPARM_WRITE.test(w))) return '`hdparm` with erase/write options destroys drive data or firmware state.';
      return null;
    case 'diskutil': {
      const sub = words.find((w) => !w.startsWith('-'))?.toLowerCase();
      const sub2 = words.filter((w) => !w.startsWith('-'))[1]?.toLowerCase();
      if (sub && (DISKUTIL_WRITE.has(sub) || (sub === 'apfs' && sub2 && DISKUTIL_WRITE.has(sub2)))) return `\`diskutil ${sub}\` erases or repartitions a disk.`;
      return null;
    }
    case 'gpart':
      if (words.some((w) => ['destroy', 'delete', 'create', 'add', 'resize'].includes(w))) return '`gpart` changes partition tables.';
      return null;
    default:
      return null;
  }
}

const VOLUME_PROGRAMS = ['lvremove', 'vgremove', 'pvremove', 'lvreduce', 'zpool', 'zfs', 'cryptsetup', 'btrfs', 'dmsetup'] as const;

function volumeHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  const words = cmd.argv.slice(1).map((w) => staticValue(w) ?? w.value);
  const ops = words.filter((w) => !w.startsWith('-'));
  switch (name) {
    case 'lvremove':
    case 'vgremove':
    case 'pvremove':
    case 'lvreduce':
      return { reason: `\`${name}\` destroys LVM volumes and the data on them.` };
    case 'zpool':
      if (ops[0] === 'destroy' || ops[0] === 'labelclear') return { reason: `\`zpool ${ops[0]}\` destroys a storage pool.` };
      return null;
    case 'zfs':
      if (ops[0] === 'destroy') return { reason: '`zfs destroy` deletes datasets or snapshots irreversibly.' };
      return null;
    case 'cryptsetup': {
      const a = ops[0]?.toLowerCase();
      if (a === 'luksformat' || a === 'erase' || a === 'lukserase' || a === 'lukskillslot') return { reason: `\`cryptsetup ${ops[0]}\` destroys encryption keys; the data becomes unreadable.` };
      return null;
    }
    case 'btrfs':
      if (ops[0]?.startsWith('sub') && (ops[1] === 'delete' || ops[1] === 'del')) return { reason: '`btrfs subvolume delete` removes a subvolume and its files.', tier: 'soft_deny' };
      return null;
    case 'dmsetup':
      if (ops[0] === 'remove_all' || ops[0] === 'wipe_table') return { reason: `\`dmsetup ${ops[0]}\` tears down device-mapper devices in use.`, tier: 'soft_deny' };
      return null;
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------------
// find -delete / -exec rm / | xargs rm

function findDeletes(cmd: SimpleCommand, analysis: Analysis): boolean {
  const f = findArgsOf(cmd);
  if (f.deletes) return true;
  if (wrapsDirectly(cmd.id, analysis)) for (const c of innerOf(cmd.id, analysis)) {
    const n = programName(c);
    if (n !== null && DELETERS.has(n)) return true;
  }
  for (const id of cmd.pipeTo) {
    const x = analysis.commands[id];
    if (!x || programName(x) !== 'xargs') continue;
    for (const c of innerOf(x.id, analysis)) {
      const n = programName(c);
      if (n !== null && DELETERS.has(n)) return true;
    }
  }
  return false;
}

/**
 * `find . -name node_modules -type d -prune -exec rm -rf {} +`: every match is a build-output directory picked by
 * its exact name. Only plain conjunctions count (no -o, no negation, no parentheses), and not -delete.
 */
function artifactDirsByName(expr: readonly Word[]): boolean {
  let names = 0;
  for (let j = 0; j < expr.length; j++) {
    const v = expr[j]!.value;
    if (v === '-exec' || v === '-execdir') {
      while (j + 1 < expr.length && expr[j + 1]!.value !== ';' && expr[j + 1]!.value !== '+') j++;
      j++;
      continue;
    }
    if (v === '-name' || v === '-iname') {
      const n = staticValue(expr[j + 1]);
      if (n === null || !EXTRA_ARTIFACTS.has(n)) return false;
      names++;
      j++;
      continue;
    }
    if (v === '-type' || v === '-maxdepth' || v === '-mindepth') { j++; continue; }
    if (v === '-prune' || v === '-a' || v === '-and' || v === '-print' || v === '-depth' || v === '-xdev') continue;
    return false;
  }
  return names > 0;
}

function findDeleteHit(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis): RuleHit | null {
  if (!findDeletes(cmd, analysis)) return null;
  const f = findArgsOf(cmd);
  const artifactsOnly = !f.deletes && artifactDirsByName(f.expr);
  const verdicts: Verdict[] = [];
  const targets = pathTargets(cmd, ctx, analysis).filter((t) => t.how === 'find -delete');
  // -exec rm / | xargs rm: the roots are not delete targets of find itself; classify them here.
  const roots = targets.length > 0 ? targets.map((t) => ({ path: t.path, info: t.info })) : f.roots.map((w) => ({ path: staticValue(w) ?? w.value, info: ctx.path(staticValue(w) ?? w.value) }));
  for (const r of roots) {
    const v = (tier: Tier, reason: string): void => { verdicts.push({ rule: 'fs.find-delete', tier, reason, subject: r.path }); };
    const i = r.info;
    if (has(i, 'root', 'system', 'device') || (isCatastrophicDir(i.abs, ctx) && !has(i, 'home-root') && !f.filtered)) {
      v('hard_deny', `Deleting files found under ${r.path} damages the system; do not delete there.`);
    } else if (has(i, 'home-root') && !f.filtered) {
      // Nothing narrows what it deletes (`-type f` is no filter): the whole home directory, as `rm -rf ~`.
      v('hard_deny', `find without a -name/-path filter deletes every file under ${r.path}, the home directory; never do this.`);
    } else if (isCatastrophicDir(i.abs, ctx) && !has(i, 'home-root')) {
      v('soft_deny', `Deleting the files find selects under ${r.path} reaches every user's files; check the filter with the user.`);
    } else if (has(i, 'home-root', 'home', 'outside')) {
      v('soft_deny', `Deleting files found under ${r.path}, outside the project; the user's files are not yours to delete.`);
    } else if (i.abs === null) {
      v('soft_deny', `Deleting files found under ${r.path}, a path only known at run time; resolve it first.`);
    } else if (has(i, 'temp') && isTempRoot(i, ctx) && !f.filtered) {
      v('soft_deny', `find -delete without a filter empties ${r.path} and removes the temp directory itself; delete your own files by name.`);
    } else if (artifactsOnly && has(i, 'project') && !has(i, 'outside', 'dynamic')) {
      v('allow', 'Removes build-output directories (node_modules, __pycache__…) that find selects by their exact name.');
    } else if (has(i, 'temp') || has(i, 'build-artifact') || isArtifact(i, i.abs, ctx)) {
      // Never allow: a find filter is easy to get wrong and nothing shows what it matched (issue 2 lists find -delete).
      v('soft_deny', `find deletes whatever its filter matches under ${r.path}; run it with -print first and remove the files by name, or ask the user.`);
    } else if (has(i, 'project')) {
      if (f.filtered) v('soft_deny', `find deletes every file its filter matches under ${r.path}, with no way back for untracked files; run it with -print first and remove the files by name, or ask the user.`);
      else v('soft_deny', `find without a -name/-path filter deletes everything under ${r.path}; add a filter or remove explicit paths.`);
    } else {
      v('soft_deny', `Deleting files found under ${r.path}; a person should check what that is.`);
    }
  }
  return pick(verdicts, 'fs.find-delete');
}

// ---------------------------------------------------------------------------------------------------------
// The rules

/**
 * Classes a symlink may not point at from where the agent writes: a write through the link lands there. Not
 * `system`: links to the system's programs (`.venv/bin/python -> /usr/bin/python3`) are how tools get installed,
 * and writes to system paths need privileges the agent should not have.
 */
const LINK_SENSITIVE = ['shell-init', 'persistence', 'agent-config', 'agent-instructions', 'asimov-config', 'credentials'] as const;

export const rules: Rule[] = [
  // Soft: a link from where the agent may write to a shell init file, a credential store or agent configuration
  // makes every later write through it a write there (`ln -s ~/.bashrc notes && echo x >> notes`, in one line
  // before anything exists to resolve; a hard link, `ln ~/.bashrc notes`, even on later calls, since no realpath
  // shows it); links to such places are rarely part of a project, so a person looks.
  defineShellRule({
    id: 'fs.link-to-sensitive',
    tier: 'soft_deny',
    programs: ['ln'],
    reason: 'This links to a sensitive file (shell init, credentials, agent configuration); writes through the link would change that file. Ask the user.',
    examples: {
      match: ['ln -s ~/.bashrc notes.txt', 'ln -sf ~/.ssh/authorized_keys keys', 'ln -s ../../.claude/settings.json cfg.json', 'ln -s /etc/sudoers x', 'ln -st links ~/.zshrc', 'ln ~/.bashrc hard-copy'],
      notMatch: ['ln -s ../shared/config.js config.js', 'ln -s dist/app.js app.js', 'ln notes.txt notes-link.txt', 'ln -s /usr/bin/python3 .venv/bin/python'],
    },
    match: (cmd, ctx) => {
      for (const { target, link, symbolic } of linkTargets(cmd)) {
        const c = ctx.path(target).classes;
        const hit = LINK_SENSITIVE.find((k) => c.has(k));
        if (hit === undefined) continue;
        const kind = symbolic ? 'would point at' : 'would be another name for';
        return { subject: `${link} -> ${target}`, reason: `\`${link}\` ${kind} ${target} (${hit}); writes through the link would change it. Ask the user.` };
      }
      return null;
    },
  }),
  // Hard and locked: removing /, the home directory or a system tree is never a step in development work,
  // and no policy may lower it.
  rmRule('fs.rm-catastrophic', {
    tier: 'hard_deny',
    locked: true,
    reason: 'Recursive or forced removal of /, the home directory or a system directory destroys the machine; remove the specific files you mean.',
    examples: {
      match: ['rm -rf /', 'rm -rf /*', 'rm -fr ~', 'rm -rf ~/', 'rm --recursive --force /etc', 'sudo rm -rf /usr', '/bin/rm -rf "$HOME"', 'rm -rf --no-preserve-root /', 'rm -rf /home', 'RM -RF /', 'cd / && rm -rf *', 'rm -r -f /var', 'rm -rf /tmp/../etc', 'busybox rm -rf /'],
      notMatch: ['rm -rf node_modules', 'rm -rf /tmp/build-cache', 'rm -rf ~/project-old/cache', 'rm file.txt', 'echo rm -rf /'],
    },
  }),
  // Soft: a recursive delete outside the project may be intended (an old checkout), but the user's files are
  // not the agent's; a person decides.
  rmRule('fs.rm-outside-project', {
    tier: 'soft_deny',
    reason: 'Removal outside the project touches the user\'s other files; ask before deleting them.',
    examples: {
      match: ['rm -rf ~/Documents', 'rm -rf ../other-project', 'rm -r /home/dev/notes', 'rm ~/notes.txt', 'rm -rf /tmp', 'rm -rf /var/tmp/'],
      notMatch: ['rm -rf /tmp/x', 'rm -rf /tmp/*', 'rm -rf build', 'rm notes.txt', 'rm -rf /'],
    },
  }),
  // Soft: deleting the whole project is almost never meant; when it is, a person says so.
  rmRule('fs.rm-project-root', {
    tier: 'soft_deny',
    reason: 'This removes the whole project; remove the specific files or build directories instead.',
    examples: {
      match: ['rm -rf .', 'rm -rf *', 'rm -rf ./*', 'rm -rf /home/dev/project', 'rm -f *'],
      notMatch: ['rm -rf build', 'rm -rf src/*', 'rm *.log', 'rm -rf ~'],
    },
  }),
  // Soft: recursive removal of source directories can lose untracked work; often fine, but worth a look.
  rmRule('fs.rm-recursive', {
    tier: 'soft_deny',
    reason: 'Recursive removal inside the project may lose untracked work; check `git status` and remove only what you mean.',
    examples: {
      match: ['rm -rf src', 'rm -r docs/old', 'rm -rf .git', 'rm -rf src/*', 'rm -R --force lib'],
      notMatch: ['rm -rf node_modules', 'rm -rf dist build coverage', 'rm src/old.ts', 'rm -rf package-lock.json', 'rm -rf /tmp/work'],
    },
  }),
  // Allow: the agent removing a directory it created itself in this session (recorded by the gate from the
  // calls it allowed), inside the project, with nothing under it older than the record: its own scratch work.
  // Attack tests: test/gate/session-files.test.ts (moved-in work, links out, tampered records, other sessions).
  rmRule('fs.rm-created', {
    tier: 'allow',
    reason: 'Removes what the agent created in this session; nothing of the user\'s is in it.',
    // The match examples need a session that created the directory: test/gate/session-files.test.ts.
    examplesNeedDisk: true,
    examples: {
      match: ['rm -rf repro_app  # repro_app created by this session (mkdir repro_app)'],
      notMatch: ['rm -rf src', 'rm -rf ~/repro_app', 'rm -rf /'],
    },
  }),
  // Soft: a file git does not have (untracked, or changed since it was staged) that this session did not create
  // may be the user's uncommitted work, and rm cannot be undone; files git holds, build output, files the agent
  // made in this session, and projects without git stay allowed (fs.rm-file). Attack tests:
  // test/policy/rules/fs-untracked.test.ts (real repositories: untracked, modified, created, linked).
  rmRule('fs.rm-untracked', {
    tier: 'soft_deny',
    reason: 'This removes a file git does not have and this session did not create: it may be the user\'s uncommitted work.',
    // The match examples need a git repository with an untracked file: test/policy/rules/fs-untracked.test.ts.
    examplesNeedDisk: true,
    examples: {
      match: ['rm notes-draft.md  # untracked in a git repository, not created by this session'],
      notMatch: ['rm notes.txt', 'rm -rf dist', 'rm /tmp/x.log'],
    },
  }),
  // Allow: build output is regenerated by the project's tools; removing it is routine.
  rmRule('fs.rm-artifacts', {
    tier: 'allow',
    reason: 'Removes build artefacts inside the project; tools regenerate them.',
    examples: {
      match: ['rm -rf node_modules', 'rm -rf dist', 'rm -rf build coverage', 'rm -rf .next/cache', 'rm -rf packages/web/node_modules', 'rm -rf __pycache__', 'rm -rf dist/*'],
      notMatch: ['rm -rf src', 'rm -rf ~/node_modules', 'rm dist/index.js'],
    },
  }),
  // Allow: deleting files inside the project is everyday work: git keeps the tracked ones, and the agent's own
  // are its to remove (untracked files it did not make: fs.rm-untracked).
  rmRule('fs.rm-file', {
    tier: 'allow',
    reason: 'Removes files inside the project.',
    examples: {
      match: ['rm notes.txt', 'rm -f src/old.ts', 'rm *.log', 'rm -f .git/index.lock', 'find . -name "*.pyc" -exec rm {} +', 'rm -rf package-lock.json'],
      notMatch: ['rm -rf src', 'rm ~/notes.txt', 'rm -rf /tmp/x'],
    },
  }),
  // Allow: temp directories are scratch space.
  rmRule('fs.rm-temp', {
    tier: 'allow',
    reason: 'Removes temporary files.',
    examples: {
      match: ['rm -rf /tmp/build-123', 'rm /tmp/out.log', 'rm -rf /var/tmp/cache', 'rm -rf /tmp/*', 'rm -rf ${TMPDIR:-/tmp}/build'],
      notMatch: ['rm -rf /tmp', 'rm -rf build'],
    },
  }),
  // Soft: the path is only known at run time (an unset variable has deleted whole disks); a person checks it.
  rmRule('fs.rm-dynamic', {
    tier: 'soft_deny',
    reason: 'Recursive removal of a path only known at run time; resolve it and remove an explicit path.',
    examples: {
      match: ['rm -rf "$BUILD_DIR"', 'rm -rf $TARGET/*', 'rm -rf "$X/"', 'ls | xargs rm -rf', 'rm -rf $(cat dirs.txt)'],
      notMatch: ['rm -rf "$HOME/project/build"', 'd=build; rm -rf $d', 'rm -rf build'],
    },
  }),
  // Hard for system roots, soft everywhere else: the search root decides how much can go, and even a filtered
  // delete inside the project is never allowed, since nothing shows what the filter matched.
  defineShellRule({
    id: 'fs.find-delete',
    tier: 'hard_deny',
    programs: ['find', 'gfind'],
    reason: 'find -delete / -exec rm removes everything it matches under its search root; check the root and the filter.',
    examples: {
      match: ['find / -name "*.log" -delete', 'find ~ -type f -delete', 'find . -delete', 'find /etc -exec rm -f {} \\;', 'find . -name "*.pyc" -delete', 'find $DIR -delete', 'find / -name core | xargs rm -f'],
      notMatch: ['find . -name "*.ts"', 'find . -name "*.pyc" -print', 'find /tmp -exec grep x {} +'],
    },
    match: (cmd, ctx, analysis) => findDeleteHit(cmd, ctx, analysis),
  }),
  // Hard onto /, home or system trees (a mirror of an empty directory wipes them); soft elsewhere outside build
  // and temp directories: --delete removes whatever the destination has that the source lacks.
  defineShellRule({
    id: 'fs.rsync-delete',
    tier: 'hard_deny',
    programs: ['rsync'],
    reason: 'rsync --delete removes every file in the destination that the source lacks; check the destination.',
    examples: {
      match: ['rsync -a --delete empty/ /', 'rsync -av --delete src/ ~/backup/', 'rsync --delete src/ dest/', 'rsync -a --delete-after x/ /etc/', 'rsync --del a/ b/'],
      notMatch: ['rsync -a src/ dest/', 'rsync -a --delete public/ dist/', 'rsync -a --delete x/ /tmp/y/', 'rsync -a --delete ./ host:/srv/app/'],
    },
    match: (cmd, ctx, analysis) => {
      let best: RuleHit | null = null;
      for (const t of pathTargets(cmd, ctx, analysis)) {
        if (t.how !== 'rsync --delete') continue;
        const i = t.info;
        if (has(i, 'root', 'home-root', 'system', 'device') || isCatastrophicDir(i.abs, ctx)) {
          return { tier: 'hard_deny', subject: t.path, reason: `rsync --delete into ${t.path} deletes everything there the source lacks; never do this from an agent.` };
        }
        if (has(i, 'temp') && !has(i, 'home', 'outside') || isArtifact(i, i.abs ?? t.path, ctx)) continue;
        best ??= { tier: 'soft_deny', subject: t.path, reason: `rsync --delete removes whatever ${t.path} has that the source lacks; check the destination, or drop --delete.` };
      }
      return best;
    },
  }),
  // Soft (hard on devices): shred makes recovery impossible by design; on a device it wipes a disk.
  defineShellRule({
    id: 'fs.shred',
    tier: 'hard_deny',
    programs: ['shred', 'srm', 'wipe'],
    reason: 'shred overwrites files so they can never be recovered; delete normally, or ask the user.',
    examples: {
      match: ['shred -u secrets.txt', 'shred -n 3 -z /dev/sda', 'srm -r old/', 'shred ~/.bash_history'],
      notMatch: ['rm secrets.txt', 'echo shred'],
    },
    match: (cmd, ctx, analysis) => {
      const words = cmd.argv.slice(1).map((w) => staticValue(w) ?? w.value);
      // With no file operand shred only prints a usage error (it never reads standard input as a target).
      if (!words.some((w) => !w.startsWith('-') || w === '-') && cmd.via.length === 0) return { tier: 'allow', reason: 'With no file operand shred only prints a usage error.' };
      const dev = words.find((w) => w.startsWith('/dev/') && !/^\/dev\/(null|zero|stdout|stderr|fd\/)/.test(w));
      if (dev) return { tier: 'hard_deny', reason: `shred of ${dev} wipes a whole device; never do this from an agent.`, subject: dev };
      for (const t of pathTargets(cmd, ctx, analysis)) {
        if (has(t.info, 'device')) return { tier: 'hard_deny', reason: `shred of ${t.path} wipes a whole device.`, subject: t.path };
      }
      return { tier: 'soft_deny' };
    },
  }),
  // Hard for system files, soft outside the project: truncation loses the file's content at once.
  defineShellRule({
    id: 'fs.truncate',
    tier: 'hard_deny',
    programs: ['truncate'],
    reason: 'truncate destroys a file\'s content outside the project; leave files you do not own alone.',
    examples: {
      match: ['truncate -s 0 /var/log/syslog', 'truncate -s 0 ~/.bash_history', 'truncate --size=0 /etc/passwd', 'truncate -s0 $LOG'],
      notMatch: ['truncate -s 0 build/app.log', 'truncate -s 1M /tmp/disk.img'],
    },
    match: (cmd, ctx, analysis) => {
      let best: RuleHit | null = null;
      for (const t of pathTargets(cmd, ctx, analysis)) {
        if (t.how !== 'truncate') continue;
        const i = t.info;
        if (has(i, 'root', 'system', 'device')) return { tier: 'hard_deny', reason: `Truncating the system file ${t.path} can break the machine.`, subject: t.path };
        if (has(i, 'temp') && !has(i, 'credentials')) continue;
        if (has(i, 'home', 'home-root', 'outside', 'credentials', 'dynamic', 'shell-init', 'persistence')) {
          best = { tier: 'soft_deny', reason: `Truncating ${t.path} destroys its content, and it is not a project file; ask first.`, subject: t.path };
        }
      }
      return best;
    },
  }),
  // Hard: `mv x /dev/null` destroys x and, as root, replaces /dev/null with a regular file.
  defineShellRule({
    id: 'fs.mv-to-dev-null',
    tier: 'hard_deny',
    programs: ['mv', 'gmv'],
    reason: 'Moving a file onto /dev/null destroys it (and, as root, breaks /dev/null); delete it explicitly instead.',
    examples: {
      match: ['mv important.db /dev/null', 'sudo mv ~/.ssh /dev/null', 'mv -f x /dev/null'],
      notMatch: ['mv a b', 'cp x /dev/null', 'cat x > /dev/null'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) => x.how === 'mv' && x.kind === 'write' && (x.info.abs === '/dev/null' || x.path === '/dev/null'));
      return t ? { subject: t.path } : null;
    },
  }),
  // Hard: moving /, the home directory or a system directory away breaks the machine as surely as deleting it.
  defineShellRule({
    id: 'fs.mv-catastrophic',
    tier: 'hard_deny',
    programs: ['mv', 'gmv'],
    reason: 'Moving /, the home directory or a system directory away breaks the machine; move the specific files you mean.',
    examples: {
      match: ['mv ~ /tmp/old-home', 'mv /etc /etc.bak', 'sudo mv /usr/bin /tmp/', 'mv /home/dev ~/../x'],
      notMatch: ['mv ~/a.txt ~/b.txt', 'mv src lib', 'mv /tmp/a /tmp/b'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) => {
        if (x.how !== 'mv' || x.kind !== 'delete') return false;
        const i = x.info;
        return has(i, 'root', 'home-root') || isCatastrophicDir(i.abs, ctx) || (has(i, 'system') && i.abs !== null && i.abs.split('/').length <= 3);
      });
      return t ? { subject: t.path, reason: `Moving ${t.path} away breaks the machine; move the specific files you mean.` } : null;
    },
  }),
  // Hard for /, home and system trees (ownership or mode changes there can lock everyone out); soft outside the project.
  defineShellRule({
    id: 'fs.chmod-recursive',
    tier: 'hard_deny',
    programs: ['chmod', 'chown', 'chgrp'],
    reason: 'Recursive permission or ownership changes outside the project can break the system or expose files; change only the files you mean.',
    examples: {
      match: ['chmod -R 777 /', 'chown -R dev:dev /usr', 'chmod -R u+w ~', 'chgrp -R staff /etc', 'chmod --recursive 755 ~/Documents', 'sudo chown -R nobody /var/www', 'chown -R me $DIR'],
      notMatch: ['chmod -R u+w src', 'chmod 644 ~/notes.txt', 'chown -R dev:dev build', 'chmod -R 755 /tmp/x'],
    },
    match: (cmd, ctx, analysis) => {
      if (!chownRecursive(cmd)) return null;
      let best: RuleHit | null = null;
      for (const t of pathTargets(cmd, ctx, analysis)) {
        if (t.kind !== 'modify') continue;
        const whole = dirOfGlob(t, ctx) ?? t.info;
        if (has(whole, 'root', 'home-root', 'system', 'device') || isCatastrophicDir(whole.abs, ctx)) {
          return { tier: 'hard_deny', reason: `Recursive ${programName(cmd)} of ${t.path} can lock users out or expose the whole system; never do this from an agent.`, subject: t.path };
        }
        if (has(whole, 'temp') && !has(whole, 'home', 'outside')) continue;
        if (has(whole, 'home', 'outside', 'dynamic', 'credentials')) {
          best = { tier: 'soft_deny', reason: `Recursive ${programName(cmd)} of ${t.path}, outside the project; ask first.`, subject: t.path };
        }
      }
      return best;
    },
  }),
  // Soft: world-writable files let any local user or process change them; sometimes wanted for scratch dirs.
  defineShellRule({
    id: 'fs.chmod-world-writable',
    tier: 'soft_deny',
    programs: ['chmod'],
    reason: 'Making files writable by everyone lets any user or process change them; grant only what is needed (e.g. u+w or 755).',
    examples: {
      match: ['chmod 777 script.sh', 'chmod -R 777 .', 'chmod o+w data', 'chmod a+rwx file', 'chmod 666 db.sqlite', 'chmod 0777 /tmp/x', 'chmod ugo+w x'],
      notMatch: ['chmod 755 script.sh', 'chmod +x run.sh', 'chmod u+w file', 'chmod 644 x', 'chmod o-w x', 'chmod +w x'],
    },
    match: (cmd) => {
      const c = parseChmod(cmd.argv.slice(1));
      if (c.mode === null || !modeBits(c.mode).worldWritable) return null;
      return { subject: c.mode };
    },
  }),
  // Soft: setuid/setgid bits run a file with its owner's rights, a classic privilege escalation.
  defineShellRule({
    id: 'fs.chmod-setuid',
    tier: 'soft_deny',
    programs: ['chmod'],
    reason: 'setuid/setgid makes a program run with its owner\'s privileges; that is how privilege escalation works. Ask first.',
    examples: {
      match: ['chmod u+s /usr/local/bin/tool', 'chmod 4755 ./bin/helper', 'chmod +s x', 'chmod g+s dir', 'chmod 6755 x'],
      notMatch: ['chmod 755 x', 'chmod +x x', 'chmod +t /tmp/shared', 'chmod u-s x'],
    },
    match: (cmd) => {
      const c = parseChmod(cmd.argv.slice(1));
      if (c.mode === null || !modeBits(c.mode).setid) return null;
      return { subject: c.mode };
    },
  }),
  // Hard: system files belong to the OS and the administrator; an agent never needs to change them.
  defineShellRule({
    id: 'fs.write-system',
    needs: { traits: ['path-targets'], programs: RM_PROGRAMS },
    tier: 'hard_deny',
    reason: 'Writing to system paths (/etc, /usr, /boot…) can break the machine; keep changes inside the project.',
    examples: {
      match: ['echo "127.0.0.1 x" >> /etc/hosts', 'cp app.conf /etc/nginx/conf.d/', 'sudo tee /etc/resolv.conf < x', 'sed -i s/a/b/ /etc/ssh/sshd_config', 'mv ./bin/tool /usr/local/bin/', 'tar -xzf x.tgz -C /usr/local', 'rm /etc/passwd', 'install -m 755 tool /usr/bin/tool', 'echo 1 > /proc/sys/kernel/sysrq', 'ln -sf /tmp/x /etc/cron.d/x', 'curl -o /usr/local/bin/x https://example.com/x'],
      notMatch: ['cat /etc/hosts', 'echo x > out.txt', 'cp /etc/hosts ./hosts.bak', 'ls /usr/bin > list.txt', 'echo x 2>/dev/null', 'cmd > /dev/stderr'],
    },
    match: (cmd, ctx, analysis) => {
      if ((RM_PROGRAMS as readonly string[]).includes(programName(cmd) ?? '')) {
        const h = pick(rmVerdicts(cmd, ctx, analysis), 'fs.write-system');
        if (h) return h;
      }
      const t = firstTarget(cmd, ctx, analysis, (x) => !OWNED_HOWS.has(x.how) && has(x.info, 'root', 'system') && !has(x.info, 'null-device', 'device'));
      if (!t) return null;
      return { reason: `${verb(t)} the system path ${t.path} (via ${t.how}) can break the machine; keep changes inside the project.`, subject: t.path };
    },
  }),
  // Soft: the user's other files are not the agent's to change, but it is sometimes the task (a dotfile the
  // user asked for). Temp dirs are scratch space and allowed.
  defineShellRule({
    id: 'fs.write-outside-project',
    needs: { traits: ['path-targets'] },
    tier: 'soft_deny',
    reason: 'Writing outside the project touches the user\'s other files; keep changes inside the project or ask first.',
    examples: {
      match: ['echo x > ~/notes.txt', 'cp build/app ~/bin/', 'mkdir -p ~/.local/share/x', 'touch /home/dev/other/x', 'sed -i s/a/b/ ../other/file.txt', 'curl -o ~/Downloads/x.zip https://example.com/x.zip', 'mv ~/a ~/b'],
      notMatch: ['echo x > notes.txt', 'cp a /tmp/a', 'mkdir -p build/out', 'echo x > /dev/null', 'cat ~/notes.txt', 'touch /tmp/x'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) =>
        !OWNED_HOWS.has(x.how) && !x.placeholder && x.how !== 'git worktree' &&
        has(x.info, 'home', 'home-root', 'outside') && !has(x.info, 'temp', 'null-device', 'root', 'system', 'device') &&
        !isTcpDevice(x.info.abs ?? x.path));
      if (!t) return null;
      return { reason: `${verb(t)} ${t.path}, outside the project (via ${t.how}); keep changes inside the project or ask first.`, subject: t.path };
    },
  }),
  // Soft: credential files hold secrets and access; overwriting or deleting one can lock the user out or plant keys.
  defineShellRule({
    id: 'fs.write-credentials',
    needs: { traits: ['path-targets'] },
    tier: 'soft_deny',
    reason: 'Writing or deleting a credentials file (keys, tokens, .env) can lock the user out or plant access; ask first.',
    examples: {
      match: ['echo KEY=x >> .env', 'cp key.pem ~/.ssh/id_rsa', 'rm ~/.aws/credentials', 'echo token > ~/.npmrc', 'cp .env.example .env'],
      notMatch: ['cat .env', 'echo x > .env.example', 'cp id_rsa.pub /tmp/', 'echo x > config.json'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) => has(x.info, 'credentials') && !x.placeholder);
      if (!t) return null;
      return { reason: `${verb(t)} the credentials file ${t.path} (via ${t.how}); ask the user first.`, subject: t.path };
    },
  }),
  // Soft: the policy's protectedPaths say a person must see every change there.
  defineShellRule({
    id: 'fs.write-protected',
    needs: { traits: ['path-targets'] },
    tier: 'soft_deny',
    reason: 'This path is protected by the policy; a person must approve changes to it.',
    examples: {
      // Protected paths come from the policy; the example machine protects `migrations/**` (as for file.write-protected).
      match: ['echo "DROP TABLE x;" > migrations/001.sql'],
      notMatch: ['echo x > notes.txt'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) => has(x.info, 'protected') && !x.placeholder);
      return t ? { reason: `${t.path} is protected by the policy; a person must approve ${verb(t).toLowerCase()} it.`, subject: t.path } : null;
    },
  }),
  // Unknown: where the write lands is only known at run time, so nothing can be said either way; a person looks.
  defineShellRule({
    id: 'fs.write-dynamic',
    needs: { traits: ['path-targets'] },
    tier: 'unknown',
    reason: 'Writes to a path only known at run time; a person should check where it lands.',
    examples: {
      match: ['echo x > "$OUT"', 'cp a "$DEST"', 'sed -i s/a/b/ $FILE', 'cmd | tee $(mktemp)'],
      notMatch: ['echo x > out.txt', 'echo x > "$HOME/project/out.txt"', 'f=out.txt; echo x > $f'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) =>
        !DELETE_HOWS.has(x.how) && x.info.abs === null && !has(x.info, 'project', 'temp', 'home', 'home-root', 'outside', 'system', 'root', 'credentials', 'shell-init', 'persistence', 'agent-config', 'agent-instructions', 'asimov-config', 'device'));
      return t ? { reason: `${verb(t)} ${t.path}, a path only known at run time (via ${t.how}); a person should check where it lands.`, subject: t.path } : null;
    },
  }),
  // Allow: creating, copying, moving and editing files inside the project or a temp dir is everyday work.
  defineShellRule({
    id: 'fs.ops-in-project',
    tier: 'allow',
    programs: FILE_OPS,
    reason: 'File operations inside the project or a temp directory.',
    examples: {
      match: ['mkdir -p src/components', 'touch README.md', 'cp a.txt b.txt', 'mv old.ts new.ts', 'ln -s ../shared lib', 'chmod +x scripts/run.sh', 'tar -xzf vendor.tgz -C vendor', 'echo x | tee out.log', 'sed -i "s/a/b/" src/x.ts', 'cp -r src /tmp/backup', 'unzip data.zip -d data', 'dd if=/dev/zero of=disk.img bs=1M count=1'],
      notMatch: ['cp a ~/a', 'mv x /etc/x', 'cp x .claude/settings.json', 'mkdir "$DIR"', 'sed "s/a/b/" x.ts', 'tee ~/.bashrc'],
    },
    match: (cmd, ctx, analysis) => {
      const name = programName(cmd);
      const targets = pathTargets(cmd, ctx, analysis);
      if (targets.length === 0) {
        // Listing an archive writes nothing; other tools with no target are left to their own rules.
        if (name === 'tar' || name === 'bsdtar' || name === 'gtar') return { reason: 'Reads an archive.' };
        if (name !== null && COMPRESSOR_SET.has(name)) return { reason: 'Compresses or decompresses to standard output.' };
        // A local rsync dry run lists what would change; with a host it would still talk to the other machine.
        if (name === 'rsync' && cmd.argv.some((w) => /^(-[a-zA-Z]*n[a-zA-Z]*|--dry-run|--list-only)$/.test(w.value)) && !cmd.argv.slice(1).some((w) => isRemoteSpec(w.value))) {
          return { reason: 'A dry run changes nothing.' };
        }
        return null;
      }
      // Only coreutils split as it is documented: --filter hands each piece to a shell command, and other words
      // mean another program named split (the Split.io CLI: `split environments delete staging`).
      if (name === 'split' && !coreutilsSplit(cmd)) return null;
      // truncate without a size fails without touching anything; do not vouch for what it was meant to be.
      if (name === 'truncate' && !cmd.argv.some((w) => /^(-s|-r|--size|--reference)/.test(w.value))) return null;
      return targets.every(benign) ? true : null;
    },
  }),
  // Hard: fast, total and silent data loss (a whole filesystem), never part of development work.
  defineShellRule({
    id: 'dev.mkfs',
    tier: 'hard_deny',
    programs: MKFS_PROGRAMS,
    reason: 'Creating a filesystem erases everything on the target device; disk formatting is for a person to do.',
    examples: {
      match: ['mkfs.ext4 /dev/sda1', 'mkfs -t ext4 /dev/nvme0n1p1', 'sudo mkswap /dev/sdb2', 'mkfs.vfat $DEV', 'newfs_apfs /dev/disk2s1'],
      notMatch: ['mkdir fs', 'echo mkfs.ext4 /dev/sda'],
    },
    match: (cmd, ctx) => {
      const ops = parseArgs(cmd, { shortWithValue: 'tLbcCdEgGiIjJmMnNoOrsSTUv' }).operands;
      const deviceish = ops.some((w) => {
        const v = staticValue(w);
        return v === null || v.startsWith('/dev/');
      });
      // An image file in the project or a temp dir (`mkfs.ext4 disk.img`) is overwritten like any file the project
      // writes; the path classifier resolves symlinks, so a link to a device is still a device.
      if (!deviceish && ops.length > 0 && ops.every((w) => {
        const c = ctx.path(w.value).classes;
        return (c.has('project') || c.has('temp')) && !c.has('device') && !c.has('outside') && !c.has('credentials') && !c.has('agent-config') && !c.has('agent-instructions') && !c.has('asimov-config') && !c.has('protected');
      })) {
        return { tier: 'allow', reason: 'Formats an image file inside the project or a temp directory, not a device.' };
      }
      return true;
    },
  }),
  // Hard: dd onto a disk overwrites it block by block; one wrong letter destroys the machine.
  defineShellRule({
    id: 'dev.dd-device',
    tier: 'hard_deny',
    programs: ['dd', 'dcfldd', 'dc3dd'],
    reason: 'dd onto a block device overwrites the disk; never do this from an agent.',
    examples: {
      match: ['dd if=/dev/zero of=/dev/sda', 'dd of=/dev/nvme0n1 if=image.iso bs=4M', 'sudo dd if=x.img of=/dev/disk2', 'dd if=/dev/urandom of="/dev/sdb" bs=1M'],
      notMatch: ['dd if=/dev/zero of=disk.img bs=1M count=10', 'dd if=/dev/sda of=/dev/null count=1', 'dd if=x of=/tmp/y'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) => x.how === 'dd' && (has(x.info, 'device') || (/^\/dev\//.test(x.path) && !has(x.info, 'null-device'))));
      return t ? { subject: t.path, reason: `dd onto ${t.path} overwrites that device; never do this from an agent.` } : null;
    },
  }),
  // Hard: a redirect, tee or copy into a block device overwrites it just like dd.
  defineShellRule({
    id: 'dev.write-device',
    needs: { traits: ['path-targets'] },
    tier: 'hard_deny',
    reason: 'Writing into a block device overwrites the disk; never do this from an agent.',
    examples: {
      match: ['cat image.iso > /dev/sda', 'echo x | sudo tee /dev/nvme0n1', 'cp disk.img /dev/sdb', 'head -c 1M /dev/zero > /dev/mmcblk0', 'echo x > /dev/mem'],
      notMatch: ['echo x > /dev/null', 'cmd 2> /dev/stderr', 'cat /dev/sda | head', 'echo x > /dev/tty'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) => !DELETE_HOWS.has(x.how) && x.how !== 'dd' && has(x.info, 'device') && !isTcpDevice(x.info.abs ?? x.path));
      return t ? { subject: t.path, reason: `Writing into ${t.path} (via ${t.how}) overwrites that device; never do this from an agent.` } : null;
    },
  }),
  // Hard: partition-table and signature tools make whole disks unreadable in one call.
  defineShellRule({
    id: 'dev.partition',
    tier: 'hard_deny',
    programs: PARTITION_PROGRAMS,
    reason: 'Partitioning or wiping disks destroys their data; disk work is for a person to do.',
    examples: {
      match: ['fdisk /dev/sda', 'sgdisk --zap-all /dev/sda', 'parted /dev/sda mklabel gpt', 'wipefs -a /dev/sdb', 'blkdiscard /dev/nvme0n1', 'mdadm --zero-superblock /dev/sdb1', 'hdparm --security-erase pass /dev/sda', 'diskutil eraseDisk APFS X disk2', 'sfdisk /dev/sda < layout'],
      notMatch: ['fdisk -l', 'parted -l', 'sfdisk -l /dev/sda', 'wipefs /dev/sda', 'sgdisk -p /dev/sda', 'diskutil list', 'mdadm --detail /dev/md0', 'hdparm -I /dev/sda'],
    },
    match: (cmd) => {
      const r = partitionHit(cmd);
      return r === null ? null : { reason: r };
    },
  }),
  // Hard (soft for subvolume/device-mapper teardown): removing volumes or encryption headers destroys data at once.
  defineShellRule({
    id: 'dev.volume-destroy',
    tier: 'hard_deny',
    programs: VOLUME_PROGRAMS,
    reason: 'Destroying volumes, pools or encryption headers loses their data; storage work is for a person to do.',
    examples: {
      match: ['lvremove -f vg0/data', 'zpool destroy tank', 'zfs destroy -r tank/home', 'cryptsetup luksFormat /dev/sdb1', 'vgremove vg0', 'btrfs subvolume delete /mnt/snap'],
      notMatch: ['zpool status', 'zfs list', 'cryptsetup status x', 'btrfs subvolume list /'],
    },
    match: (cmd) => volumeHit(cmd),
  }),
];
