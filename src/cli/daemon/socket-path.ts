// Where the resident daemon listens, and the checks that make its socket trustworthy: a directory of this
// user's own, with no permission for anyone else, so that no other user can listen in its place.
// bin/daemon-client.cjs holds a plain-JavaScript copy of socketPathFor and isPrivateDir (it loads before
// any bundle); test/bin/daemon-client.test.ts keeps the two equal.

import { chmodSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AsimovError } from '../../core/errors.ts';
import { currentUid, isPrivateDir } from '../../core/private-dir.ts';

// The private-directory check lives in core (the hook approvals use it too); re-exported for the daemon's users.
export { currentUid, isPrivateDir };

export const SOCKET_NAME = 'd.sock';
/** sockaddr_un holds 108 bytes with the terminating NUL (104 on macOS); stay below both. */
export const MAX_SOCKET_PATH_BYTES = 100;

/**
 * `$XDG_RUNTIME_DIR/asimov/d.sock` when that directory is usable (absolute, a directory of this user's),
 * else `<home>/.cache/asimov/run/d.sock` (a place the policy already keeps agents from writing), and
 * `/tmp/asimov-<uid>/d.sock` when the chosen path is too long for a unix socket.
 */
export function socketPathFor(env: NodeJS.ProcessEnv, uid: number = currentUid()): string {
  let dir: string;
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && xdg.startsWith('/') && ownDirectory(xdg, uid)) dir = join(xdg, 'asimov');
  else dir = join(env.HOME || homedir(), '.cache', 'asimov', 'run');
  let path = join(dir, SOCKET_NAME);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) path = join(`/tmp/asimov-${uid}`, SOCKET_NAME);
  return path;
}

function ownDirectory(dir: string, uid: number): boolean {
  const st = statSync(dir, { throwIfNoEntry: false });
  return st !== undefined && st.isDirectory() && st.uid === uid;
}

/**
 * Creates the socket's directory 0700, or tightens one of this user's that is looser. A directory that is
 * a symlink or belongs to another user is refused: whoever owns it could put their own socket there.
 */
export function ensurePrivateDir(dir: string, uid: number = currentUid()): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid) {
    throw new AsimovError('path_refused', `${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a directory of this user'}; the daemon will not listen there`);
  }
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  if (!isPrivateDir(dir, uid)) throw new AsimovError('path_refused', `${dir} could not be made private (0700); the daemon will not listen there`);
}
