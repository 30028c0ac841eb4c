// Whether a directory is this user's alone: what makes a file placed in it trustworthy (the daemon's socket,
// the hook approvals' notes). Anyone who can write a directory can put their own file there.

import { lstatSync } from 'node:fs';

/** The user's id; 0 where the platform has none (no unix sockets or modes there either). */
export function currentUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/** A real directory (lstat: not a symlink) owned by `uid` with no group or other permission bits. */
export function isPrivateDir(dir: string, uid: number = currentUid()): boolean {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return false;
  }
  return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
}
