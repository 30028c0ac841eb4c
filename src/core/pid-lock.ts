// A lock file naming the pid that holds it, created exclusively: one process at a time for a directory or a
// job. A lock whose process is gone (killed with SIGKILL, a crash) is stale and taken over; one whose process
// lives is reported with its pid, and the caller says what that means.

import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export interface PidLock {
  readonly path: string;
  release(): void;
}

/** Whether a process with this pid runs (someone else's process, EPERM, counts as running). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live pid holding the lock file, or null when none (no file, unreadable, or its process has died). */
export function pidLockHolder(path: string): number | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : null;
}

/**
 * Takes the lock, or returns the pid of the live process holding it. Throws the fs error (the caller names
 * what it was locking) when the file cannot be created, and a plain Error when other processes keep taking it.
 */
export function takePidLock(path: string): PidLock | { heldBy: number } {
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = pidLockHolder(path);
      if (holder !== null && holder !== process.pid) return { heldBy: holder };
      // The holder died (or is this process after a failed release): the lock is stale.
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
  throw new Error(`${path}: another process keeps taking it`);
}
