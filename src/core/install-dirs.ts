// The directories of the asimov that is running, when it runs from its build: `<install>/bin` (the entry point
// and the hook line's first stage) and `<install>/dist` (the bundle, its code cache and build id). Every hook
// line runs them on every later tool call, so a write there rewrites the check itself: the path rules count
// them as asimov's own configuration. From source (tests under tsx) there is no install, and none is named.

import { realpathSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: readonly string[] | undefined;

/** `<install>/bin` and `<install>/dist`, as named and as resolved (an install reached through a link); [] from source. */
export function runningInstallDirs(moduleUrl: string = import.meta.url): readonly string[] {
  if (moduleUrl === import.meta.url && cached !== undefined) return cached;
  let dirs: string[] = [];
  try {
    const here = dirname(fileURLToPath(moduleUrl));
    if (basename(here) === 'dist') {
      const root = resolve(here, '..');
      const named = [resolve(root, 'bin'), resolve(root, 'dist')];
      dirs = [...new Set([...named, ...named.map(real)])];
    }
  } catch {
    dirs = [];
  }
  if (moduleUrl === import.meta.url) cached = dirs;
  return dirs;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
