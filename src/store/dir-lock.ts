// One process at a time in a database directory. PGlite has no postmaster to refuse a second process, so the
// directory carries a lock file naming the pid that holds it, created exclusively. A lock whose process is gone
// (a server killed with SIGKILL) is taken over; one whose process lives is refused with that pid.

import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { AsimovError } from '../core/errors.ts';

export interface DirLock {
  readonly path: string;
  release(): void;
}

export const LOCK_NAME = 'asimov.lock';

/** The pid holding the directory, or null when none (or the holder has died). */
export function lockHolder(dir: string): number | null {
  let text: string;
  try {
    text = readFileSync(join(dir, LOCK_NAME), 'utf8');
  } catch {
    return null;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
}

export function lockDirectory(dir: string): DirLock {
  const path = join(dir, LOCK_NAME);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new AsimovError('io_error', `Cannot lock ${dir}: ${(e as Error).message}`);
      const holder = lockHolder(dir);
      if (holder !== null && holder !== process.pid) {
        throw new AsimovError('io_error', `The database in ${dir} is in use by process ${holder} (another asimov serve?). Stop it first, or give this one another --data-dir.`);
      }
      // The holder died (or is this process after a failed close): the lock is stale.
      try {
        unlinkSync(path);
      } catch {
        /* raced with another taker; the next attempt decides */
      }
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    let released = false;
    return {
      path,
      release: () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
        } catch {
          /* gone already */
        }
      },
    };
  }
  throw new AsimovError('io_error', `Cannot lock ${dir}: another process keeps taking it.`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
