// Replacing a small state file so that a reader sees the old content or the new, never half of either, and a
// crash leaves one of the two: written to a private temporary file beside it, synced, then renamed over it.

import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Throws the underlying fs error (the caller names what it was writing); the temporary file never stays behind. */
export function writeFileAtomicSync(path: string, text: string, mode = 0o600): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  let fd: number | null = null;
  try {
    fd = openSync(tmp, 'wx', mode);
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw e;
  }
}
