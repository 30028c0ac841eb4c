// The project root of each directory, remembered for a process that decides many calls (`check --batch`, the
// daemon) yet exact as a fresh walk: a new or removed `.asimov/` or `.git` takes effect on the very next call.
//
// findProjectRoot probes two markers in every directory from the call's up to the root it finds. A marker can
// only appear, disappear or change kind through an entry of its directory, which changes that directory's
// mtime and ctime; so one stat of each directory on the walk proves the walk would end where it did. Not
// covered by that proof, and so never remembered: a marker that is a symbolic link (its target can change
// without its directory), and a walk through a directory changed within the last second (file times advance
// in clock ticks, so a second change in the same tick could leave them equal: git's "racy clean" rule).

import { lstatSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { findProjectRoot } from '../policy/load.ts';
import { RACY_MS } from './policy-freshness.ts';

/** Directories remembered at most; beyond it the oldest is forgotten. */
export const MAX_REMEMBERED_DIRS = 4096;

const MARKERS = ['.asimov', '.git'] as const;

export interface ProjectRoots {
  /** What findProjectRoot(cwd) returns now. Throws as it does (a directory that cannot be searched). */
  rootOf(cwd: string): string;
  /** Directories whose walk is remembered now. */
  readonly size: number;
}

interface Walk {
  root: string;
  /** Each directory walked, from the call's up to the root (or `/`), with its stat when it was walked. */
  dirs: { path: string; sig: string }[];
}

export function createProjectRoots(o: { max?: number; now?: () => number } = {}): ProjectRoots {
  const max = o.max ?? MAX_REMEMBERED_DIRS;
  const now = o.now ?? Date.now;
  const walks = new Map<string, Walk>();

  const stillTrue = (w: Walk): boolean => {
    for (const d of w.dirs) if (dirSignature(d.path) !== d.sig) return false;
    return true;
  };

  return {
    rootOf(cwd) {
      const start = resolve(cwd);
      const known = walks.get(start);
      if (known !== undefined) {
        if (stillTrue(known)) return known.root;
        walks.delete(start);
      }
      // Signed before the walk: a change during it leaves a signature that no longer matches, so is not trusted.
      const walk = rememberable(start, now());
      const root = findProjectRoot(start);
      if (walk !== null && walk.root === root) {
        walks.set(start, walk);
        if (walks.size > max) walks.delete(walks.keys().next().value!);
      }
      return root;
    },
    get size() {
      return walks.size;
    },
  };
}

/**
 * The walk from `start` with each directory's signature, or null when it cannot be proven by those alone: a
 * marker that is a link, a directory changed within RACY_MS, or anything that cannot be read.
 */
function rememberable(start: string, nowMs: number): Walk | null {
  const dirs: Walk['dirs'] = [];
  try {
    for (let dir = start; ; dir = dirname(dir)) {
      const st = statSync(dir);
      if (nowMs - st.mtimeMs < RACY_MS || nowMs - st.ctimeMs < RACY_MS) return null;
      dirs.push({ path: dir, sig: signature(st) });
      let found = false;
      for (const m of MARKERS) {
        const l = lstatSync(join(dir, m), { throwIfNoEntry: false });
        if (l === undefined) continue;
        if (l.isSymbolicLink()) return null;
        if (m === '.git' || l.isDirectory()) found = true;
      }
      if (found) return { root: dir, dirs };
      if (dirname(dir) === dir) return { root: start, dirs };
    }
  } catch {
    return null;
  }
}

function dirSignature(path: string): string | null {
  try {
    return signature(statSync(path));
  } catch {
    return null;
  }
}

function signature(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.mode}:${st.mtimeMs}:${st.ctimeMs}`;
}
