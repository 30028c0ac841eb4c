// One process at a time in a database directory. PGlite has no postmaster to refuse a second process, so the
// directory carries a lock file naming the pid that holds it (core/pid-lock.ts). A lock whose process is gone
// (a server killed with SIGKILL) is taken over; one whose process lives is refused with that pid.

import { join } from 'node:path';
import { AsimovError } from '../core/errors.ts';
import { pidLockHolder, takePidLock, type PidLock } from '../core/pid-lock.ts';

export type DirLock = PidLock;

export const LOCK_NAME = 'asimov.lock';

/** The pid holding the directory, or null when none (or the holder has died). */
export function lockHolder(dir: string): number | null {
  return pidLockHolder(join(dir, LOCK_NAME));
}

export function lockDirectory(dir: string): DirLock {
  let lock: PidLock | { heldBy: number };
  try {
    lock = takePidLock(join(dir, LOCK_NAME));
  } catch (e) {
    throw new AsimovError('io_error', `Cannot lock ${dir}: ${(e as Error).message}`);
  }
  if ('heldBy' in lock) {
    throw new AsimovError('io_error', `The database in ${dir} is in use by process ${lock.heldBy} (another asimov serve?). Stop it first, or give this one another --data-dir.`);
  }
  return lock;
}
