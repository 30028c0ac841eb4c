// Per-session state files (the judge's loop guard, the session record of created paths) are removed once they
// have not been touched for a while, so the state directory does not grow with every session ever run.

import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Removes the files of `dir` ending in `suffix` whose mtime is older than `maxAgeMs`. Never throws. */
export function removeStaleFiles(dir: string, suffix: string, maxAgeMs: number, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.endsWith(suffix)) continue;
    const p = join(dir, name);
    try {
      if (now - statSync(p).mtimeMs > maxAgeMs) rmSync(p, { force: true });
    } catch {
      /* another process removed it */
    }
  }
}
