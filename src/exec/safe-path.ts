// Where a gated file tool may act: the requested path resolved as the kernel will see it, then checked
// against the allowed roots component by component. This is the check; safe-fs.ts opens what was checked
// in a way that notices when the file system changed in between.

import { lstatSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { AsimovError, errnoOf } from '../core/errors.ts';
import { isWithin } from '../policy/paths.ts';

/** Who a directory entry is, as far as a swap is concerned: the same device and inode is the same file. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
  kind: 'file' | 'dir' | 'symlink' | 'other';
  /** Permission bits (without the file type). */
  mode: number;
  nlink: bigint;
  size: bigint;
}

export function identityOf(st: BigIntStats): FileIdentity {
  const kind = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other';
  return { dev: st.dev, ino: st.ino, kind, mode: Number(st.mode & 0o7777n), nlink: st.nlink, size: st.size };
}

export function sameFile(a: Pick<FileIdentity, 'dev' | 'ino'>, b: Pick<FileIdentity, 'dev' | 'ino'>): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

export interface CheckedPath {
  /** The path as requested, made absolute and with `.`/`..` resolved lexically (this is what is opened). */
  requested: string;
  /** Where it really lands: the deepest existing ancestor canonicalised, the rest appended. */
  real: string;
  /** The allowed root that contains `real`. */
  root: string;
  /** The deepest existing directory on the way (canonical), and who it was when checked. */
  dir: string;
  dirIdentity: FileIdentity;
  /** Directories between `dir` and the leaf that do not exist yet (a write creates them), outermost first. */
  missing: string[];
  /** The leaf's name. */
  name: string;
  /** The leaf as it was when checked, or null when it did not exist. */
  leaf: FileIdentity | null;
}

/**
 * The allowed roots, canonical: each directory resolved with realpath, so that containment is decided on
 * the same kind of path as the checked one. Throws `path_refused` for a root that is not an existing directory.
 */
export function canonicalRoots(dirs: readonly string[], base: string): string[] {
  const out: string[] = [];
  for (const d of dirs) {
    const abs = resolve(base, d);
    let real: string;
    try {
      real = realpathSync.native(abs);
    } catch (e) {
      throw new AsimovError('path_refused', `The allowed root ${abs} does not exist (${(e as NodeJS.ErrnoException).code ?? String(e)}).`);
    }
    if (!statSync(real).isDirectory()) throw new AsimovError('path_refused', `The allowed root ${abs} is not a directory.`);
    if (!out.includes(real)) out.push(real);
  }
  return out;
}

function lstatOrNull(p: string): BigIntStats | null {
  try {
    return lstatSync(p, { bigint: true });
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return null;
    if (errnoOf(e) === 'ENOTDIR') throw new AsimovError('path_refused', `A parent of ${p} is not a directory.`);
    throw new AsimovError('io_error', `Cannot inspect ${p}: ${(e as Error).message}`);
  }
}

/**
 * Checks `p` (absolute, or relative to `cwd`) for a file tool. Refuses, with AsimovError `path_refused`:
 * a symlink at the leaf (never followed: name the target itself), a path whose real location (symlinked
 * parents resolved) lies outside every root, and a parent that is a dangling link or not a directory.
 * `/proj` as a root admits `/proj/a`, never `/proj-evil`.
 */
export function checkPath(p: unknown, o: { cwd: string; roots: readonly string[] }): CheckedPath {
  if (typeof p !== 'string' || p === '') throw new AsimovError('bad_input', 'The path is missing.');
  if (p.includes('\0')) throw new AsimovError('bad_input', 'The path contains a NUL byte.');
  if (p.startsWith('~')) {
    throw new AsimovError('bad_input', `The path ${p} starts with ~, which the tools do not expand: give an absolute path or one relative to ${o.cwd}.`);
  }
  if (o.roots.length === 0) throw new AsimovError('path_refused', 'No directory is allowed to the file tools.');
  const requested = isAbsolute(p) ? resolve(p) : resolve(o.cwd, p);
  const name = basename(requested);
  if (requested === '/' || name === '') throw new AsimovError('path_refused', 'The path names the root directory, not a file.');

  const leafStat = lstatOrNull(requested);
  if (leafStat?.isSymbolicLink()) {
    throw new AsimovError('path_refused', `${requested} is a symbolic link; the tools never follow a link at the end of a path (name the file it points to).`);
  }

  // The deepest existing ancestor, canonicalised; what does not exist yet is appended as written.
  const missing: string[] = [];
  let cur = dirname(requested);
  let dir: string;
  for (;;) {
    try {
      dir = realpathSync.native(cur);
      break;
    } catch (e) {
      if (errnoOf(e) === 'ENOTDIR') throw new AsimovError('path_refused', `A parent of ${requested} is not a directory.`);
      if (errnoOf(e) === 'ELOOP') throw new AsimovError('path_refused', `${cur} is a loop of symbolic links.`);
      // A link that stopped being one between two steps of the resolution.
      if (errnoOf(e) === 'EINVAL') throw new AsimovError('path_changed', `${cur} changed while it was being checked; nothing was done, try again.`);
      if (errnoOf(e) !== 'ENOENT') throw new AsimovError('io_error', `Cannot resolve ${cur}: ${(e as Error).message}`);
      missing.unshift(basename(cur));
      cur = dirname(cur);
    }
  }
  if (missing.length > 0) {
    // realpath fails on a dangling link too: the first "missing" directory may be a link pointing nowhere,
    // which a write would otherwise follow when creating it.
    const first = lstatOrNull(join(dir, missing[0]!));
    if (first) throw new AsimovError('path_refused', `${join(cur, missing[0]!)} is a symbolic link to nothing or not a directory.`);
  }
  const real = join(dir, ...missing, name);
  const root = o.roots.find((r) => isWithin(r, real));
  if (root === undefined) {
    const via = real === requested ? '' : ` (it resolves to ${real})`;
    throw new AsimovError('path_refused', `${requested} is outside the directories the tools may touch${via}: ${o.roots.join(', ')}.`);
  }
  let dirStat: BigIntStats;
  try {
    dirStat = statSync(dir, { bigint: true });
  } catch (e) {
    throw new AsimovError('path_changed', `${dir} changed while it was being checked (${errnoOf(e) ?? String(e)}); nothing was done, try again.`);
  }
  // The leaf, seen through its canonical parent: the same entry as `requested` unless something moved.
  const leaf = missing.length > 0 ? null : lstatOrNull(real);
  if (leaf?.isSymbolicLink()) throw new AsimovError('path_changed', `${real} became a symbolic link while it was being checked.`);
  return { requested, real, root, dir, dirIdentity: identityOf(dirStat), missing, name, leaf: leaf ? identityOf(leaf) : null };
}
