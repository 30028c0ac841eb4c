// Appends events to the audit log: under a cross-process lock, chained to the last line, one write per line.

import {
  closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, rmdirSync, statSync, writeSync, unlinkSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AsimovError, describeError, errnoOf } from '../core/errors.ts';
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

  return {
    path,
    append(draft) {
      try {
        const lock = `${path}.lock`;
        try {
          acquireLock(lock, staleMs, timeoutMs);
        } catch (e) {
          if (errnoOf(e) !== 'ENOENT') throw e;
          // The directory is missing (first run, or removed under a long-lived proxy): create it, then retry.
          // 0700: the log records what the agent did and where; other users have no business reading it.
          mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
          acquireLock(lock, staleMs, timeoutMs);
        }
        try {
          return appendLocked(path, draft);
        } finally {
          releaseLock(lock);
        }
      } catch (e) {
        if (e instanceof AsimovError) throw e;
        throw new AsimovError('audit_io_error', `cannot write the audit log: ${describeError(e)}`, { file: path }, { cause: e });
      }
    },
  };
}

// O_NOFOLLOW: a symlink planted at the log's path (say, to ~/.bashrc) must not make asimov append
// agent-chosen text to another file. O_NONBLOCK: a FIFO planted there must not hang the hook; it is
// then refused by the isFile check. Both are 0 where the platform lacks them.
const OPEN_FLAGS =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

function appendLocked(path: string, draft: AuditEventDraft): AuditEvent {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new AsimovError('audit_io_error', 'the audit log is a symbolic link; asimov writes only to a regular file', { file: path }, { cause: e });
    }
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new AsimovError('audit_io_error', 'the audit log is not a regular file', { file: path });
    const tail = chainTail(fd, st.size);
    const event = sealEvent(draft, tail.prev);
    const buf = Buffer.from(`${tail.needsNewline ? '\n' : ''}${serializeEventLine(event)}\n`, 'utf8');
    // One write on an O_APPEND descriptor, under the lock: a line is never interleaved with another.
    // A short or failed write is undone, so the log never keeps half a line from us.
    let written = 0;
    try {
      written = writeSync(fd, buf);
    } finally {
      if (written !== buf.length) {
        try {
          ftruncateSync(fd, st.size);
        } catch {
          // Nothing more to do: verify will report the cut line.
        }
      }
    }
    if (written !== buf.length) throw new Error(`short write (${written} of ${buf.length} bytes)`);
    return event;
  } finally {
    closeSync(fd);
  }
}

interface Tail {
  /** The hash the next line must carry as `prev`. */
  prev: string;
  /** The file ends without a newline (a write cut short): the next line must start with one. */
  needsNewline: boolean;
}

function readAt(fd: number, position: number, length: number): Buffer {
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
