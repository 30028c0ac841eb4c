// Reading and replacing a client's settings file. The client may read the file at any moment (Claude Code
// re-reads settings while it runs), so a new version appears at once or not at all: it is written to a
// temporary file in the same directory and renamed over the old one. A settings file that is a symlink
// (dotfile managers do that) is written through: the link stays and its target gets the new content.

import { chmodSync, closeSync, fchownSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { AsimovError } from '../core/errors.ts';

/** Symlinks followed before giving up, as the kernel's own limit (ELOOP) would. */
const MAX_LINKS = 40;

export interface ResolvedTarget {
  /** The file that is really read and written: `path` itself, or where its symlinks lead. */
  realPath: string;
  /** Whether `path` was a symlink (the caller should say where the write really goes). */
  viaSymlink: boolean;
}

/** Follows `path` through symlinks, also to a target that does not exist yet. */
export function resolveTarget(path: string): ResolvedTarget {
  let p = resolve(path);
  let viaSymlink = false;
  for (let i = 0; i < MAX_LINKS; i++) {
    let st;
    try {
      st = lstatSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { realPath: p, viaSymlink };
      throw ioError(`cannot inspect ${p}`, path, e);
    }
    if (!st.isSymbolicLink()) return { realPath: p, viaSymlink };
    viaSymlink = true;
    p = resolve(dirname(p), readlinkSync(p));
  }
  throw new AsimovError('wire_io_error', `too many levels of symbolic links`, { file: path });
}

/** The file's text, or null when it does not exist. Bytes that are not UTF-8 are refused, never guessed. */
export function readTextFile(path: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ioError('cannot read the file', path, e);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new AsimovError('wire_settings_invalid', 'the file is not UTF-8 text', { file: path });
  }
}

export interface WriteOptions {
  /** Mode of a file that does not exist yet (an existing file keeps its own). Default 0600. */
  fileMode?: number;
  /** Mode of directories created on the way to the file. Default 0700. */
  dirMode?: number;
}

/**
 * Replaces the file's content atomically, keeping its mode (and its owner, where permitted). Creates
 * the missing parent directories. Writes through symlinks; returns where the bytes really went.
 */
export function writeFileAtomic(path: string, text: string, o: WriteOptions = {}): ResolvedTarget {
  const target = resolveTarget(path);
  const file = target.realPath;
  const dir = dirname(file);
  try {
    mkdirSync(dir, { recursive: true, mode: o.dirMode ?? 0o700 });
  } catch (e) {
    throw ioError(`cannot create the directory ${dir}`, path, e);
  }
  let existing: { mode: number; uid: number; gid: number } | null = null;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new AsimovError('wire_io_error', 'not a regular file', { file });
    existing = { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  } catch (e) {
    if (e instanceof AsimovError) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError('cannot inspect the file', file, e);
  }
  const mode = existing?.mode ?? o.fileMode ?? 0o600;
  const tmp = join(dir, `.${basename(file)}.asimov-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | null = null;
  try {
    fd = openSync(tmp, 'wx', mode);
    writeSync(fd, text);
    fsyncSync(fd);
    if (existing && typeof process.getuid === 'function' && (existing.uid !== process.getuid() || existing.gid !== process.getgid?.())) {
      // Only root can give a file away; for anyone else the new file is theirs, as an editor's would be.
      try {
        fchownSync(fd, existing.uid, existing.gid);
      } catch {
        // keep our own ownership
      }
    }
    closeSync(fd);
    fd = null;
    chmodSync(tmp, mode); // the umask narrowed the mode given to open
    renameSync(tmp, file);
  } catch (e) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw ioError('cannot write the file', file, e);
  }
  return target;
}

function ioError(what: string, file: string, e: unknown): AsimovError {
  return new AsimovError('wire_io_error', `${what}: ${e instanceof Error ? e.message : String(e)}`, { file }, { cause: e });
}
