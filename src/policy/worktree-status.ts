// Whether a file in the working tree is the project's own, reviewed code or something new: tracked and
// unchanged against git's index, or untracked / modified. Scripts that are new or modified are read before
// they run (rules/scripts.ts); a tracked, unchanged file stays the project's tooling. git's index is read
// directly (no `git` process: a decision has a budget of a few milliseconds) and cached by its stat.
//
// The index format (git's Documentation/gitformat-index.txt): "DIRC", version (2, 3 or 4), entry count;
// each entry: ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size (32 bits each), the object
// id (20 bytes for SHA-1), 16 bits of flags (name length in the low 12), in version 3+ an extended-flags word
// when the extended bit is set, then the path: NUL-padded to a multiple of 8 in versions 2/3; in version 4
// prefix-compressed (a varint of bytes to drop from the previous path, then the rest, NUL-terminated).

import { closeSync, fstatSync, lstatSync, openSync, readSync, constants, type Stats } from 'node:fs';
import { lazyCrypto } from '../core/lazy.ts';
import { dirname, join, relative, sep } from 'node:path';
import { readRegularFile } from '../core/read-regular.ts';

export type WorktreeStatus =
  | { kind: 'clean' }                      // tracked and identical to the index
  | { kind: 'changed'; why: string; content?: Buffer } // untracked or modified (content: the bytes hashed to find out)
  | { kind: 'unknown'; why: string };      // no repository, or an index asimov cannot read

interface IndexEntry {
  mtimeS: number;
  mtimeNs: number;
  size: number;
  oid: string;
}

interface ParsedIndex {
  entries: Map<string, IndexEntry>;
  /** The index file's own mtime in ms: an entry whose file has the same or a later mtime is "racy" (re-hash). */
  mtimeMs: number;
}

/** An index read from disk: its bytes, and its entries parsed only when a lookup needs them all (version 4). */
interface LoadedIndex {
  buf: Buffer;
  mtimeMs: number;
  parsed?: ParsedIndex | null;
}

/** Largest index read (a repository of ~400,000 files); a larger one is left unread: unknown. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;
/** Largest file hashed to compare with the index. */
const MAX_HASH_BYTES = 1024 * 1024;

const indexCache = new Map<string, { key: string; loaded: LoadedIndex | null }>();

/** The git directory of the repository that contains `dir` (walking up), or null. A `.git` file (worktree, submodule) is followed. */
export function gitDirFor(dir: string): { gitDir: string; top: string } | null {
  for (let d = dir, i = 0; i < 64; i++) {
    const dot = join(d, '.git');
    let st: Stats | undefined;
    try {
      st = lstatSync(dot);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) return { gitDir: dot, top: d };
    if (st?.isFile()) {
      const text = readRegularFile(dot, 4096)?.toString('utf8') ?? '';
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
      if (m) return { gitDir: m[1]!.startsWith('/') ? m[1]! : join(d, m[1]!), top: d };
      return null;
    }
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
  return null;
}

function readIndex(indexPath: string): LoadedIndex | null {
  let st: Stats;
  try {
    st = lstatSync(indexPath);
  } catch {
    return null;
  }
  if (!st.isFile() || st.size > MAX_INDEX_BYTES) return null;
  const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  const hit = indexCache.get(indexPath);
  if (hit && hit.key === key) return hit.loaded;
  let loaded: LoadedIndex | null = null;
  try {
    const buf = readRegularFile(indexPath, MAX_INDEX_BYTES);
    loaded = buf && buf.length >= 12 && buf.toString('latin1', 0, 4) === 'DIRC' ? { buf, mtimeMs: st.mtimeMs } : null;
  } catch {
    loaded = null;
  }
  if (indexCache.size > 16) indexCache.clear();
  indexCache.set(indexPath, { key, loaded });
  return loaded;
}

/**
 * One path's stage-0 entry. Versions 2 and 3 are scanned entry by entry comparing bytes (no string per
 * entry: a hook process reads the index once and looks up one path); version 4's prefix-compressed paths
 * are parsed whole, once per loaded index. undefined: not tracked; null: the index is not one asimov reads.
 */
function lookup(index: LoadedIndex, rel: string): IndexEntry | undefined | null {
  const buf = index.buf;
  const version = buf.readUInt32BE(4);
  if (version === 4) {
    if (index.parsed === undefined) index.parsed = parseIndex(buf, index.mtimeMs);
    return index.parsed === null ? null : index.parsed.entries.get(rel);
  }
  if (version !== 2 && version !== 3) return null;
  const want = Buffer.from(rel, 'utf8');
  const count = buf.readUInt32BE(8);
  let off = 12;
  for (let n = 0; n < count; n++) {
    if (off + 62 > buf.length) return null;
    const flags = buf.readUInt16BE(off + 60);
    let p = off + 62;
    if (version === 3 && (flags & 0x4000) !== 0) p += 2;
    const end = buf.indexOf(0, p);
    if (end < 0) return null;
    if (end - p === want.length && ((flags >> 12) & 0x3) === 0 && buf.compare(want, 0, want.length, p, end) === 0) {
      return { mtimeS: buf.readUInt32BE(off + 8), mtimeNs: buf.readUInt32BE(off + 12), size: buf.readUInt32BE(off + 36), oid: buf.toString('hex', off + 40, off + 60) };
    }
    off += (end - off + 8) & ~7;
  }
  return undefined;
}

/** The entries of a git index (stage 0 only); null for anything that is not a version 2-4 SHA-1 index. */
export function parseIndex(buf: Buffer, mtimeMs: number): ParsedIndex | null {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = buf.readUInt32BE(8);
  const entries = new Map<string, IndexEntry>();
  let off = 12;
  let prev = '';
  for (let n = 0; n < count; n++) {
    if (off + 62 > buf.length) return null;
    const mtimeS = buf.readUInt32BE(off + 8);
    const mtimeNs = buf.readUInt32BE(off + 12);
    const size = buf.readUInt32BE(off + 36);
    const oid = buf.toString('hex', off + 40, off + 60);
    const flags = buf.readUInt16BE(off + 60);
    let p = off + 62;
    if (version >= 3 && (flags & 0x4000) !== 0) p += 2;
    let path: string;
    if (version === 4) {
      // A varint (git's offset encoding) of bytes to drop from the previous path, then a NUL-terminated suffix.
      let drop = 0;
      let byte: number;
      let first = true;
      do {
        if (p >= buf.length) return null;
        byte = buf[p++]!;
        drop = first ? byte & 0x7f : ((drop + 1) << 7) | (byte & 0x7f);
        first = false;
      } while (byte & 0x80);
      const end = buf.indexOf(0, p);
      if (end < 0 || drop > prev.length) return null;
      path = prev.slice(0, prev.length - drop) + buf.toString('utf8', p, end);
      off = end + 1;
    } else {
      const end = buf.indexOf(0, p);
      if (end < 0) return null;
      path = buf.toString('utf8', p, end);
      // Entries are padded with 1-8 NULs to a multiple of 8 bytes from the entry's start.
      const len = end - off;
      off += (len + 8) & ~7;
    }
    prev = path;
    const stage = (flags >> 12) & 0x3;
    if (stage === 0) entries.set(path, { mtimeS, mtimeNs, size, oid });
  }
  return { entries, mtimeMs };
}

function blobId(content: Buffer): string {
  return lazyCrypto().createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/**
 * The status of an existing regular file: clean when git's index holds it with the same stat data (and the
 * index was written after the file's last change) or the same content. Never runs git, never blocks.
 */
export function worktreeStatus(absPath: string): WorktreeStatus {
  const repo = gitDirFor(dirname(absPath));
  if (repo === null) return { kind: 'unknown', why: 'not in a git repository' };
  const index = readIndex(join(repo.gitDir, 'index'));
  if (index === null) return { kind: 'unknown', why: "git's index could not be read" };
  const rel = relative(repo.top, absPath).split(sep).join('/');
  const e = lookup(index, rel);
  if (e === null) return { kind: 'unknown', why: "git's index is in a format asimov does not read" };
  if (e === undefined) return { kind: 'changed', why: 'not tracked by git' };
  let st: Stats;
  let fd: number;
  try {
    fd = openSync(absPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return { kind: 'unknown', why: 'cannot be opened' };
  }
  try {
    st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'unknown', why: 'not a regular file' };
    const sameStat = st.size % 2 ** 32 === e.size && Math.floor(st.mtimeMs / 1000) === e.mtimeS;
    // "Racy git": a file changed within the same second the index was written may keep its stat data.
    if (sameStat && st.mtimeMs < index.mtimeMs - 1000) return { kind: 'clean' };
    if (st.size > MAX_HASH_BYTES) return { kind: 'changed', why: 'changed since it was staged' };
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < buf.length) {
      const r = readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
    }
    const content = buf.subarray(0, n);
    return blobId(content) === e.oid ? { kind: 'clean' } : { kind: 'changed', why: 'modified since it was committed or staged', content };
  } finally {
    closeSync(fd);
  }
}
