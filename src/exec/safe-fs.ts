// Reading, writing and editing files for the gated tools, so that what is touched is what safe-path.ts
// checked, even when the file system changes in between (another process swapping a symlink in, a parent
// directory replaced, a file replaced by another).
//
// How: the checked directory is opened first (no link followed at its end) and proven to be the checked
// one (same device and inode; on Linux also its current path, read back from /proc/self/fd). Every later
// step goes through that open directory: on Linux as `/proc/self/fd/<dirfd>/<name>`, which the kernel
// resolves to exactly the open directory (the equivalent of openat(2), which Node does not offer), so a
// swapped parent cannot redirect it. Leaves are opened with O_NOFOLLOW and their fd compared with the
// checked inode. Writes go to a new temp file in that directory (O_CREAT|O_EXCL|O_NOFOLLOW) renamed over the
// leaf after the leaf is re-checked: a rename replaces a link, it never writes through one. Elsewhere
// (no /proc) the same steps use plain paths with the same checks before and after, which narrows the window
// to the instants between them.

import { randomBytes } from 'node:crypto';
import {
  closeSync, constants, existsSync, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, readlinkSync,
  renameSync, unlinkSync, writeSync, type BigIntStats,
} from 'node:fs';
import { join } from 'node:path';
import { AsimovError } from '../core/errors.ts';
import { checkPath, identityOf, sameFile, type CheckedPath, type FileIdentity } from './safe-path.ts';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

export const DEFAULT_READ_LIMIT_LINES = 2000;
export const DEFAULT_MAX_READ_BYTES = 1024 * 1024;
/** Larger files are not edited: an exact-string edit reads the whole file into memory. */
export const MAX_EDIT_BYTES = 16 * 1024 * 1024;
const CHUNK = 64 * 1024;
/** A NUL byte in this much of the start of a file makes it binary. */
const BINARY_PROBE = 8192;

export interface SafeFsOptions {
  cwd: string;
  /** Canonical allowed roots (canonicalRoots). */
  roots: readonly string[];
  /** Test seam: runs after the path is checked and before anything is opened, to race the check deterministically. */
  afterCheck?: (checked: CheckedPath) => void;
  /** Open relative to the verified directory through /proc/self/fd (default: when /proc is there). False forces the portable way. */
  procFd?: boolean;
}

let procAvailable: boolean | undefined;
function procFdAvailable(): boolean {
  procAvailable ??= process.platform === 'linux' && existsSync('/proc/self/fd');
  return procAvailable;
}

/** Errors that mean an entry vanished or turned into something else under us: a race, not a failure. */
const RACE_CODES: ReadonlySet<string> = new Set(['ENOENT', 'ELOOP', 'ENOTDIR']);

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

function changed(what: string): AsimovError {
  return new AsimovError('path_changed', `${what} changed while the call was running, so nothing was done; try again.`);
}

/** An open directory that was proven to be the checked one; names inside it are reached through it. */
class VerifiedDir {
  constructor(public fd: number, public path: string, private readonly viaProc: boolean) {}

  /** The path that reaches `name` inside exactly this open directory. */
  at(name: string): string {
    return this.viaProc ? `/proc/self/fd/${this.fd}/${name}` : join(this.path, name);
  }

  /** Where the open directory is now (Linux), or null when that cannot be known. */
  currentPath(): string | null {
    if (!this.viaProc) return null;
    try {
      return readlinkSync(`/proc/self/fd/${this.fd}`);
    } catch {
      return null;
    }
  }

  /** Creates (or enters) one subdirectory, opened and verified the same way; closes this handle. */
  descend(name: string): VerifiedDir {
    try {
      mkdirSync(this.at(name), 0o777);
    } catch (e) {
      if (RACE_CODES.has(code(e) ?? '')) throw changed(this.path);
      if (code(e) !== 'EEXIST') throw new AsimovError('io_error', `Cannot create ${join(this.path, name)}: ${(e as Error).message}`);
    }
    const path = join(this.path, name);
    const fd = openDir(this.at(name), path);
    const next = new VerifiedDir(fd, path, this.viaProc);
    try {
      // Through /proc the open cannot have left this directory; by plain path, check it did not.
      if (!this.viaProc && !sameFile(identityOf(fstatSync(fd, { bigint: true })), identityOf(lstatSync(path, { bigint: true })))) throw changed(path);
    } catch (e) {
      next.close();
      throw e;
    }
    this.close();
    return next;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

function openDir(at: string, shown: string): number {
  try {
    return openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (e) {
    if (RACE_CODES.has(code(e) ?? '')) throw changed(shown);
    throw new AsimovError('io_error', `Cannot open the directory ${shown}: ${(e as Error).message}`);
  }
}

/** Opens the checked directory and proves it is the one that was checked, still where it was. */
function openCheckedDir(c: CheckedPath, o: SafeFsOptions): VerifiedDir {
  const viaProc = o.procFd ?? procFdAvailable();
  const dir = new VerifiedDir(openDir(c.dir, c.dir), c.dir, viaProc);
  try {
    const now = identityOf(fstatSync(dir.fd, { bigint: true }));
    if (!sameFile(now, c.dirIdentity)) throw changed(c.dir);
    const where = dir.currentPath();
    if (viaProc && where !== c.dir) throw changed(c.dir);
    return dir;
  } catch (e) {
    dir.close();
    throw e;
  }
}

/** Opens the checked, existing leaf for reading: no link followed, no blocking on a FIFO, the same inode as checked. */
function openCheckedLeaf(dir: VerifiedDir, c: CheckedPath): { fd: number; st: BigIntStats } {
  if (!c.leaf) throw new AsimovError('bad_input', `${c.requested} does not exist.`);
  if (c.leaf.kind === 'dir') throw new AsimovError('bad_input', `${c.requested} is a directory, not a file.`);
  if (c.leaf.kind !== 'file') throw new AsimovError('path_refused', `${c.requested} is not a regular file.`);
  let fd: number;
  try {
    fd = openSync(dir.at(c.name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    if (code(e) === 'ELOOP' || code(e) === 'ENOENT' || code(e) === 'ENXIO') throw changed(c.real);
    throw new AsimovError('io_error', `Cannot open ${c.real}: ${(e as Error).message}`);
  }
  const st = fstatSync(fd, { bigint: true });
  if (!st.isFile() || !sameFile(identityOf(st), c.leaf)) {
    closeSync(fd);
    throw changed(c.real);
  }
  return { fd, st };
}

/** Runs one operation; a file-system error that escaped the steps above becomes an AsimovError naming the path. */
function named<T>(p: unknown, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof AsimovError) throw e;
    if (RACE_CODES.has(code(e) ?? '')) throw changed(String(p));
    throw new AsimovError('io_error', `${String(p)}: ${(e as Error).message}`, undefined, { cause: e });
  }
}

function check(p: unknown, o: SafeFsOptions): CheckedPath {
  const c = checkPath(p, o);
  o.afterCheck?.(c);
  return c;
}

// ---------------------------------------------------------------------------------------------------------
// read

export interface ReadOptions {
  /** First line to return, 1-based. */
  offset?: number;
  /** How many lines. */
  limit?: number;
  /** At most this many bytes of text are returned. */
  maxBytes?: number;
}

export interface ReadResult {
  /** The canonical path that was read. */
  path: string;
  text: string;
  /** The lines returned (lastLine < firstLine when none). */
  firstLine: number;
  lastLine: number;
  /** Lines follow after lastLine. */
  more: boolean;
  /** The text was cut at maxBytes (inside lastLine). */
  cut: boolean;
  /** The file's size in bytes. */
  size: number;
  /** The number of lines in the file, when the whole file was scanned. */
  totalLines?: number;
}

function positiveInt(v: unknown, name: string, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new AsimovError('bad_input', `${name} must be a whole number of at least 1.`);
  return v;
}

/** Reads lines `offset … offset+limit-1` of a text file, streaming: a huge file is never held in memory. */
export function safeRead(p: unknown, o: SafeFsOptions & ReadOptions): ReadResult {
  return named(p, () => readImpl(p, o));
}

function readImpl(p: unknown, o: SafeFsOptions & ReadOptions): ReadResult {
  const offset = positiveInt(o.offset, 'offset', 1);
  const limit = positiveInt(o.limit, 'limit', DEFAULT_READ_LIMIT_LINES);
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  const last = offset + limit - 1;
  const c = check(p, o);
  const dir = openCheckedDir(c, o);
  let fd = -1;
  try {
    const leaf = openCheckedLeaf(dir, c);
    fd = leaf.fd;
    const buf = Buffer.allocUnsafe(CHUNK);
    const parts: Buffer[] = [];
    let bytes = 0;
    let line = 1;
    let lastLine = offset - 1;
    let cut = false;
    let more = false;
    let pos = 0;
    let lastByte = -1;
    let done = false;
    while (!done) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
      if (n === 0) break;
      const data = buf.subarray(0, n);
      if (pos === 0 && data.subarray(0, BINARY_PROBE).includes(0)) {
        throw new AsimovError('bad_input', `${c.real} is a binary file (${leaf.st.size} bytes); the read tool returns text only.`);
      }
      pos += n;
      lastByte = data[n - 1]!;
      let i = 0;
      while (i < n) {
        if (line > last) {
          more = true;
          done = true;
          break;
        }
        const nl = data.indexOf(10, i);
        const end = nl === -1 ? n : nl + 1;
        if (line >= offset) {
          const piece = data.subarray(i, end);
          if (bytes + piece.length > maxBytes) {
            // Cut before a UTF-8 continuation byte, so the text does not end in half a character.
            let k = maxBytes - bytes;
            while (k > 0 && (piece[k]! & 0xc0) === 0x80) k--;
            parts.push(Buffer.from(piece.subarray(0, k)));
            bytes = maxBytes;
            lastLine = line;
            cut = true;
            done = true;
            break;
          }
          parts.push(Buffer.from(piece));
          bytes += piece.length;
          lastLine = line;
        }
        if (nl !== -1) line++;
        i = end;
      }
    }
    const result: ReadResult = { path: c.real, text: Buffer.concat(parts).toString('utf8'), firstLine: offset, lastLine, more, cut, size: Number(leaf.st.size) };
    // Scanned to the end: a last line without a newline still counts.
    if (!done) result.totalLines = pos === 0 ? 0 : lastByte === 10 ? line - 1 : line;
    return result;
  } finally {
    if (fd >= 0) closeSync(fd);
    dir.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// write and edit

export interface WriteResult {
  /** The canonical path written. */
  path: string;
  created: boolean;
  bytes: number;
}

function tempName(name: string): string {
  return `.${name.slice(0, 100)}.${randomBytes(6).toString('hex')}.asimov-tmp`;
}

/**
 * Puts `data` at `c.name` inside `dir`: a new temp file, then, once the entry there is still what was checked
 * (`expect`: the same inode, or still absent), a rename over it.
 */
function replaceLeaf(dir: VerifiedDir, c: CheckedPath, data: Buffer, expect: FileIdentity | null): void {
  const tmp = tempName(c.name);
  let fd: number;
  try {
    // A new file keeps the usual default mode (umask applies); a replaced one keeps its own permission bits below.
    fd = openSync(dir.at(tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, expect ? 0o600 : 0o666);
  } catch (e) {
    if (RACE_CODES.has(code(e) ?? '')) throw changed(dir.path);
    throw new AsimovError('io_error', `Cannot create a file in ${dir.path}: ${(e as Error).message}`);
  }
  let renamed = false;
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    if (expect) fchmodSync(fd, expect.mode & 0o777);
    const ours = identityOf(fstatSync(fd, { bigint: true }));

    // The final path, re-checked just before the rename: still the file that was checked (or still nothing).
    let now: BigIntStats | null;
    try {
      now = lstatSync(dir.at(c.name), { bigint: true });
    } catch (e) {
      if (code(e) !== 'ENOENT') throw e;
      now = null;
    }
    if (expect === null ? now !== null : now === null || now.isSymbolicLink() || !sameFile(identityOf(now), expect)) throw changed(c.real);

    renameSync(dir.at(tmp), dir.at(c.name));
    renamed = true;
    // And after it: our file is what the name holds, in a directory still inside the checked place.
    const landed = lstatSync(dir.at(c.name), { bigint: true });
    const where = dir.currentPath();
    if (!sameFile(identityOf(landed), ours) || (where !== null && where !== dir.path)) {
      throw new AsimovError('path_changed', `${c.real} was written, but it or its directory was moved or replaced at the same moment; check where the content went.`);
    }
  } catch (e) {
    if (!renamed) {
      try {
        unlinkSync(dir.at(tmp));
      } catch {
        // Already gone; nothing else to undo.
      }
    }
    if (e instanceof AsimovError) throw e;
    if (RACE_CODES.has(code(e) ?? '')) {
      throw renamed
        ? new AsimovError('path_changed', `${c.real} was written, but its directory was moved or removed at the same moment; check where the content went.`)
        : changed(c.real);
    }
    throw new AsimovError('io_error', `Cannot write ${c.real}: ${(e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** Creates or replaces a file with `content` (missing parent directories are created inside the roots). */
export function safeWrite(p: unknown, content: string, o: SafeFsOptions): WriteResult {
  return named(p, () => writeImpl(p, content, o));
}

function writeImpl(p: unknown, content: string, o: SafeFsOptions): WriteResult {
  if (typeof content !== 'string') throw new AsimovError('bad_input', 'The content must be a string.');
  const c = check(p, o);
  if (c.leaf && c.leaf.kind === 'dir') throw new AsimovError('bad_input', `${c.requested} is a directory, not a file.`);
  if (c.leaf && c.leaf.kind !== 'file') throw new AsimovError('path_refused', `${c.requested} is not a regular file.`);
  let dir = openCheckedDir(c, o);
  try {
    for (const m of c.missing) dir = dir.descend(m);
    const data = Buffer.from(content, 'utf8');
    replaceLeaf(dir, c, data, c.leaf);
    return { path: c.real, created: c.leaf === null, bytes: data.length };
  } finally {
    dir.close();
  }
}

export interface EditOptions {
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}

export interface EditResult {
  path: string;
  replacements: number;
}

function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) at.push(i);
  return at;
}

/**
 * Replaces `oldString` with `newString` in a UTF-8 text file: exactly one occurrence, or every one with
 * `replaceAll`. Anything else is a `bad_input` error that says what to fix, and the file is left as it was.
 */
export function safeEdit(p: unknown, e: EditOptions, o: SafeFsOptions): EditResult {
  return named(p, () => editImpl(p, e, o));
}

function editImpl(p: unknown, e: EditOptions, o: SafeFsOptions): EditResult {
  if (typeof e.oldString !== 'string' || typeof e.newString !== 'string') throw new AsimovError('bad_input', 'old_string and new_string must be strings.');
  if (e.oldString === '') throw new AsimovError('bad_input', 'old_string is empty; to create or overwrite a whole file, use the write tool.');
  if (e.oldString === e.newString) throw new AsimovError('bad_input', 'old_string and new_string are the same; nothing would change.');
  const c = check(p, o);
  const dir = openCheckedDir(c, o);
  let fd = -1;
  try {
    const leaf = openCheckedLeaf(dir, c);
    fd = leaf.fd;
    if (leaf.st.size > BigInt(MAX_EDIT_BYTES)) {
      throw new AsimovError('bad_input', `${c.real} is ${leaf.st.size} bytes; files over ${MAX_EDIT_BYTES} bytes are not edited.`);
    }
    const size = Number(leaf.st.size);
    const raw = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, raw, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw.subarray(0, off));
    } catch {
      throw new AsimovError('bad_input', `${c.real} is not UTF-8 text; it is not edited.`);
    }
    const at = occurrences(text, e.oldString);
    if (at.length === 0) throw new AsimovError('bad_input', `old_string was not found in ${c.real}; it must match the file exactly (whitespace and indentation included).`);
    if (at.length > 1 && !e.replaceAll) {
      throw new AsimovError('bad_input', `old_string occurs ${at.length} times in ${c.real}; add surrounding lines to make it unique, or set replace_all to change every one.`);
    }
    const next = e.replaceAll ? text.split(e.oldString).join(e.newString) : text.slice(0, at[0]!) + e.newString + text.slice(at[0]! + e.oldString.length);
    // The file must not have changed since it was read (another writer): its size and time, seen through the fd.
    const before = fstatSync(fd, { bigint: true });
    if (before.size !== leaf.st.size || before.mtimeNs !== leaf.st.mtimeNs) throw changed(c.real);
    replaceLeaf(dir, c, Buffer.from(next, 'utf8'), c.leaf);
    return { path: c.real, replacements: e.replaceAll ? at.length : 1 };
  } finally {
    if (fd >= 0) closeSync(fd);
    dir.close();
  }
}
