// Appends events to the audit log: under a cross-process lock, chained to the last line, one write per line,
// through a descriptor the process keeps open while the path still names the same file.

import {
  closeSync, constants, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, readSync, rmdirSync, statSync, writeSync, unlinkSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AsimovError, describeError, errnoOf } from '../core/errors.ts';
import { lazyCrypto } from '../core/lazy.ts';
import { GENESIS_HASH, sealEvent, serializeEventLine, sha256Hex, type AuditEvent, type AuditEventDraft } from './event.ts';
import { resolveAuditPath } from './paths.ts';

/** A lock older than this is taken to be left by a crashed process and is removed. */
export const LOCK_STALE_MS = 5_000;
/** How long append waits for a live lock before giving up. Longer than LOCK_STALE_MS, so a stale lock is always broken first. */
export const LOCK_TIMEOUT_MS = 10_000;

export interface AuditWriterOptions {
  /** The log file; default resolveAuditPath(env). An explicit path is used even when ASIMOV_AUDIT_LOG=off. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  staleMs?: number;
  timeoutMs?: number;
}

export interface AuditWriter {
  readonly path: string;
  /**
   * Chains the draft to the log and writes it; returns the event as written. Throws
   * AsimovError('audit_io_error') on any failure, having written nothing (the caller decides whether
   * that denies the call).
   */
  append(draft: AuditEventDraft): AuditEvent;
  /**
   * The drafts in order, under one lock and in one write (the journal's batches); all or none is written.
   * Throws like append. `lockWaitMs` replaces the writer's timeoutMs for this call (a journal's timed seal
   * gives up early rather than hold its process: its records are safe where they are).
   */
  appendAll(drafts: readonly AuditEventDraft[], o?: { lockWaitMs?: number }): AuditEvent[];
}

/**
 * A writer for the configured log, or null when auditing is off (ASIMOV_AUDIT_LOG=off). Throws
 * AsimovError('audit_io_error') when ASIMOV_AUDIT_LOG is not usable (a relative path).
 */
export function createAuditWriter(opts: AuditWriterOptions = {}): AuditWriter | null {
  const env = opts.env ?? process.env;
  const path = opts.path !== undefined ? resolve(opts.path) : resolveAuditPath(env, opts.home);
  if (path === null) return null;
  const staleMs = opts.staleMs ?? LOCK_STALE_MS;
  const timeoutMs = opts.timeoutMs ?? LOCK_TIMEOUT_MS;

  const appendAll = (drafts: readonly AuditEventDraft[], o?: { lockWaitMs?: number }): AuditEvent[] => {
    if (drafts.length === 0) return [];
    const wait = o?.lockWaitMs ?? timeoutMs;
    try {
      const lock = `${path}.lock`;
      try {
        acquireLock(lock, staleMs, wait);
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw e;
        // The directory is missing (first run, or removed under a long-lived proxy): create it, then retry.
        // 0700: the log records what the agent did and where; other users have no business reading it.
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        acquireLock(lock, staleMs, wait);
      }
      try {
        return appendLocked(path, drafts);
      } finally {
        releaseLock(lock);
      }
    } catch (e) {
      if (e instanceof AsimovError) throw e;
      throw new AsimovError('audit_io_error', `cannot write the audit log: ${describeError(e)}`, { file: path }, { cause: e });
    }
  };
  return { path, appendAll, append: (draft) => appendAll([draft])[0]! };
}

// O_NOFOLLOW: a symlink planted at the log's path (say, to ~/.bashrc) must not make asimov append
// agent-chosen text to another file. O_NONBLOCK: a FIFO planted there must not hang the hook; it is
// then refused by the isFile check. Both are 0 where the platform lacks them.
const OPEN_FLAGS =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * A log file this process holds open. A long-lived process (the MCP proxy, a daemon) appends once per call,
 * and opening, checking and closing the file each time was most of an append's system calls. Under the lock,
 * an lstat of the path says whether the path still names this file (same device and inode: not rotated,
 * replaced or removed; the inode cannot be reused while we hold it open) and how long it is now.
 */
interface OpenLog {
  fd: number;
  dev: number;
  ino: number;
  /** The file's size after our last line, and that line's hash: while the size is unchanged, the chain's head. */
  size: number;
  hash: string | null;
}

/** Open logs by path, shared by every writer of the process; the least recently used beyond MAX_OPEN_LOGS is closed. */
const openLogs = new Map<string, OpenLog>();
const MAX_OPEN_LOGS = 4;

/** Closes a descriptor that may already be unusable; there is nothing to release then. */
export function closeQuiet(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already unusable; nothing to release.
  }
}

function forget(path: string): void {
  const log = openLogs.get(path);
  if (!log) return;
  openLogs.delete(path);
  closeQuiet(log.fd);
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return null;
    throw e;
  }
}

/** The log at `path`, open, and its current size: the held descriptor when the path still names its file, else a new one. */
function currentLog(path: string): { log: OpenLog; size: number } {
  const held = openLogs.get(path);
  if (held) {
    const st = lstatOrNull(path);
    if (st !== null && st.dev === held.dev && st.ino === held.ino) {
      openLogs.delete(path); // re-inserted: most recently used last
      openLogs.set(path, held);
      return { log: held, size: st.size };
    }
    forget(path);
  }
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS, 0o600);
  } catch (e) {
    if (errnoOf(e) === 'ELOOP') {
      throw new AsimovError('audit_io_error', 'the audit log is a symbolic link; asimov writes only to a regular file', { file: path }, { cause: e });
    }
    throw e;
  }
  let st: Stats;
  try {
    st = fstatSync(fd);
    if (!st.isFile()) throw new AsimovError('audit_io_error', 'the audit log is not a regular file', { file: path });
  } catch (e) {
    closeQuiet(fd);
    throw e;
  }
  const log: OpenLog = { fd, dev: st.dev, ino: st.ino, size: -1, hash: null };
  openLogs.set(path, log);
  if (openLogs.size > MAX_OPEN_LOGS) forget(openLogs.keys().next().value!);
  return { log, size: st.size };
}

/**
 * The chain's sha256. A hook process appends once, and loading node:crypto would cost it more (~5 ms) than the
 * pure-JS hash does; a process that appends again (the MCP proxy, a daemon) is long-lived, and there
 * node:crypto is the cheaper per line (measured in the proxy: ~25 µs a line pure-JS, ~10 µs or less native).
 */
let appendsInProcess = 0;
function hasher(): ((text: string) => string) | undefined {
  return ++appendsInProcess === 1 ? undefined : nodeSha256Hex;
}

function nodeSha256Hex(text: string): string {
  const crypto = lazyCrypto();
  // crypto.hash (Node ≥ 20.12: one call, no Hash object) is the cheaper; older Node 20 lacks it.
  return typeof crypto.hash === 'function' ? crypto.hash('sha256', text, 'hex') : crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Chains the draft to the log's last line and writes it: called under the lock. When the file is still the
 * length our last line left it at, that line is still the last (other writers only append, under the same
 * lock), and its hash is the head; otherwise (another writer's lines, a truncation, a cut line) the end of
 * the file is read as a fresh process would. Only a file cut and refilled by hand to exactly our length
 * in between would slip past the size check, and verify would then report the break, not hide a line.
 */
function appendLocked(path: string, drafts: readonly AuditEventDraft[]): AuditEvent[] {
  const { log, size } = currentLog(path);
  try {
    const tail: Tail = log.hash !== null && log.size === size ? { prev: log.hash, needsNewline: false } : chainTail(log.fd, size);
    const hash = hasher();
    const events: AuditEvent[] = [];
    let line = tail.needsNewline ? '\n' : '';
    let prev = tail.prev;
    for (const draft of drafts) {
      const event = sealEvent(draft, prev, hash);
      events.push(event);
      line += `${serializeEventLine(event)}\n`;
      prev = event.hash;
    }
    const length = Buffer.byteLength(line, 'utf8');
    // One write on an O_APPEND descriptor, under the lock: a line is never interleaved with another.
    // A short or failed write is undone, so the log never keeps half a line (or half a batch) from us.
    let written = 0;
    try {
      written = writeSync(log.fd, line, null, 'utf8');
    } finally {
      if (written !== length) {
        try {
          ftruncateSync(log.fd, size);
        } catch {
          // Nothing more to do: verify will report the cut line.
        }
      }
    }
    if (written !== length) throw new Error(`short write (${written} of ${length} bytes)`);
    log.size = size + length;
    log.hash = prev;
    return events;
  } catch (e) {
    // Whatever went wrong, the next append starts from a fresh open rather than trusting this descriptor.
    forget(path);
    throw e;
  }
}

interface Tail {
  /** The hash the next line must carry as `prev`. */
  prev: string;
  /** The file ends without a newline (a write cut short): the next line must start with one. */
  needsNewline: boolean;
}

/** Up to `length` bytes at `position` (fewer at the end of the file). */
export function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let off = 0;
  while (off < length) {
    const n = readSync(fd, buf, off, length - off, position + off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

const LAST_HASH = /"hash":"([0-9a-f]{64})"\}\n$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** The `hash` of a line, or null when the line is not an event. */
function hashOfLine(text: string): string | null {
  try {
    const v = JSON.parse(text) as { hash?: unknown } | null;
    return v !== null && typeof v === 'object' && typeof v.hash === 'string' && HEX64.test(v.hash) ? v.hash : null;
  } catch {
    return null;
  }
}

/**
 * What to chain to, reading only the end of the file. Fast path: we write `hash` as the last key, so
 * the previous hash is in the last 80 bytes. Otherwise (a cut last line, a line someone rewrote) read
 * back in growing windows to the last line that is an event: a cut line is left in place and skipped
 * (verify reports it), an unreadable last line is chained to by the hash of its text.
 */
function chainTail(fd: number, size: number): Tail {
  if (size === 0) return { prev: GENESIS_HASH, needsNewline: false };
  const end = readAt(fd, Math.max(0, size - 128), Math.min(size, 128)).toString('latin1');
  const fast = LAST_HASH.exec(end);
  if (fast?.[1]) return { prev: fast[1], needsNewline: false };

  for (let window = 64 * 1024; ; window *= 4) {
    const start = Math.max(0, size - window);
    const buf = readAt(fd, start, size - start);
    const needsNewline = buf[buf.length - 1] !== 0x0a;
    const lines = buf.toString('utf8').split('\n');
    const partial = lines.pop() ?? ''; // '' when the file ends with a newline
    if (start > 0) lines.shift(); // may begin mid-line
    if (partial.trim() !== '') {
      const h = hashOfLine(partial);
      if (h) return { prev: h, needsNewline };
    }
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i] ?? '';
      if (l.trim() === '') continue;
      return { prev: hashOfLine(l) ?? sha256Hex(l), needsNewline };
    }
    if (start === 0) return { prev: GENESIS_HASH, needsNewline };
  }
}

// ---------------------------------------------------------------------------------------------
// The lock: creating `<log>.lock` with O_EXCL is atomic on every local filesystem, and (open, close,
// unlink) costs about a third of mkdir/rmdir here, which matters on a path taken once per tool call. A lock
// older than staleMs was left by a crashed process. A directory at that path (the lock of asimov before
// 0.1) excludes just the same, and is removed like a file when stale. Breaking it is itself serialized by a second directory (`.lock.break`)
// and re-checked under it, so two processes that both saw the same stale lock cannot remove a fresh
// lock that a third process took in between.
// ---------------------------------------------------------------------------------------------

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
  Atomics.wait(SLEEPER, 0, 0, ms);
}

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return null;
    throw e;
  }
}

function isStale(st: Stats, staleMs: number): boolean {
  return Date.now() - st.mtimeMs >= staleMs;
}

function acquireLock(lock: string, staleMs: number, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  for (;;) {
    try {
      closeSync(openSync(lock, LOCK_FLAGS, 0o600));
      return;
    } catch (e) {
      if (errnoOf(e) !== 'EEXIST') throw e;
    }
    if (breakIfStale(lock, staleMs)) continue;
    if (Date.now() >= deadline) {
      throw new AsimovError(
        'audit_io_error',
        'the audit log is locked by another process; if no asimov process is running, remove this lock file',
        { file: lock },
      );
    }
    sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 25);
  }
}

/** Removes the lock if it is stale; true when the caller should try to take it again at once. */
function breakIfStale(lock: string, staleMs: number): boolean {
  const st = statOrNull(lock);
  if (st === null) return true; // released meanwhile
  if (!isStale(st, staleMs)) return false;
  const breaker = `${lock}.break`;
  try {
    mkdirSync(breaker, { mode: 0o700 });
  } catch (e) {
    if (errnoOf(e) !== 'EEXIST') throw e;
    // Someone else is breaking it; a breaker left by a crash is itself removed once stale.
    const bs = statOrNull(breaker);
    if (bs && isStale(bs, staleMs)) rmdirQuiet(breaker);
    return false;
  }
  try {
    const again = statOrNull(lock);
    if (again !== null && isStale(again, staleMs)) removeLock(lock, again);
  } finally {
    rmdirQuiet(breaker);
  }
  return true;
}

function rmdirQuiet(p: string): void {
  try {
    rmdirSync(p);
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT') throw e;
  }
}

/** O_EXCL: fails when the lock exists; O_NOFOLLOW: a symlink planted there is never followed. */
const LOCK_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

function removeLock(lock: string, st: Stats): void {
  if (st.isDirectory()) rmdirQuiet(lock);
  else unlinkQuiet(lock);
}

function unlinkQuiet(p: string): void {
  try {
    unlinkSync(p);
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT') throw e;
  }
}

/** Never throws: the line is already written, and a lock left behind is broken once stale. */
function releaseLock(lock: string): void {
  try {
    unlinkSync(lock);
  } catch {
    // See above.
  }
}
