// How far a reader of the audit log (a shipper to the team server, an OpenTelemetry exporter) has come, and the
// next lines after that point.
//
// The log is the journal: records wait in it until each reader has passed them on, so nothing is kept twice and
// a reader that was killed resumes from its cursor. A cursor names the file (device and inode), the byte offset
// after the last line passed on, that line's position and its hash. Before reading on, the cursor is checked
// against the file: a log that was replaced, shortened, or whose last passed-on line no longer carries the same
// hash has been rewritten under the reader, and the reader starts again from line 1. It does not judge the log:
// the receiver, which kept what arrived before, compares the two and says what changed.

import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { AsimovError, describeError } from '../core/errors.ts';
import { writeFileAtomicSync } from '../core/atomic-write.ts';
import { GENESIS_HASH } from './event.ts';

export interface LogCursor {
  v: 1;
  /** Device and inode of the log the cursor is in, so a replaced log is told from a grown one. */
  dev: number;
  ino: number;
  /** Byte offset just after the last line passed on (0: nothing yet). */
  offset: number;
  /** Where that line starts, to read it back and check its hash. */
  lineStart: number;
  /** Lines passed on: the last one's 1-based line number. */
  seq: number;
  /** The hash field of the last line passed on (GENESIS_HASH before the first; '' for a line that has none). */
  hash: string;
}

export const START: Omit<LogCursor, 'dev' | 'ino'> = { v: 1, offset: 0, lineStart: 0, seq: 0, hash: GENESIS_HASH };

export interface LogLineAt {
  /** The line without its newline. */
  text: string;
  /** 1-based line number in the log. */
  seq: number;
  start: number;
  /** Byte offset after its newline. */
  end: number;
  /** The line's own `hash` field when it has one (else null: not JSON, or not an event). */
  hash: string | null;
}

export interface Batch {
  lines: LogLineAt[];
  /** Whether the batch reaches the end of what the log holds now (complete lines only). */
  atEnd: boolean;
  /** Where reading started: the cursor checked against the file, or START when it had to begin again. */
  from: LogCursor;
  /** Why reading began again at line 1 when the cursor no longer fitted the file. */
  rewound?: string;
}

export interface ReadBatchOptions {
  maxLines: number;
  maxBytes: number;
}

/** The cursor stored at `path`, or null when there is none (or it is unreadable: the reader then starts again, and the receiver deduplicates). */
export function loadCursor(path: string): LogCursor | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  const c = parsed as Partial<LogCursor>;
  const nums = [c.dev, c.ino, c.offset, c.lineStart, c.seq];
  if (c.v !== 1 || nums.some((n) => typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) || typeof c.hash !== 'string') return null;
  return c as LogCursor;
}

export function saveCursor(path: string, c: LogCursor): void {
  try {
    writeFileAtomicSync(path, `${JSON.stringify(c)}\n`);
  } catch (e) {
    throw new AsimovError('audit_io_error', `cannot save the audit reader's position in ${path}: ${describeError(e)}`, { file: path }, { cause: e });
  }
}

/** The line after the cursor end of the batch: where the next read starts. */
export function cursorAfter(batch: Batch): LogCursor {
  const last = batch.lines[batch.lines.length - 1];
  if (!last) return batch.from;
  return { ...batch.from, offset: last.end, lineStart: last.start, seq: last.seq, hash: last.hash ?? '' };
}

/**
 * The complete lines after the cursor, up to the limits. Throws AsimovError('audit_io_error') when the log
 * cannot be read; a log that does not exist yet is an empty batch.
 */
export function readBatch(logPath: string, cursor: LogCursor | null, o: ReadBatchOptions): Batch {
  let fd: number;
  try {
    // Non-blocking: a FIFO where the log belongs is reported below, never waited on.
    fd = openSync(logPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], atEnd: true, from: cursor ?? { ...START, dev: 0, ino: 0 } };
    throw new AsimovError('audit_io_error', `cannot read the audit log ${logPath}: ${describeError(e)}`, { file: logPath }, { cause: e });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new AsimovError('audit_io_error', `the audit log ${logPath} is not a regular file`, { file: logPath });
    const fresh: LogCursor = { ...START, dev: st.dev, ino: st.ino };
    let from = fresh;
    let rewound: string | undefined;
    if (cursor !== null && cursor.offset > 0) {
      const why = mismatch(fd, st.dev, st.ino, st.size, cursor);
      if (why === null) from = cursor;
      else rewound = why;
    } else if (cursor !== null && (cursor.dev !== st.dev || cursor.ino !== st.ino)) {
      from = fresh; // nothing passed on yet: a new file changes nothing
    }
    const lines = readLinesFrom(fd, from, Math.min(o.maxBytes, Math.max(0, st.size - from.offset)), o.maxLines);
    const end = lines.length > 0 ? lines[lines.length - 1]!.end : from.offset;
    const atEnd = lines.length < o.maxLines && !hasCompleteLineAfter(fd, end, st.size);
    return { lines, atEnd, from, ...(rewound !== undefined ? { rewound } : {}) };
  } finally {
    closeSync(fd);
  }
}

/** Why the cursor no longer describes this file, or null when it does. */
function mismatch(fd: number, dev: number, ino: number, size: number, c: LogCursor): string | null {
  if (c.dev !== dev || c.ino !== ino) return 'the log is another file than before (replaced, or rotated away)';
  if (size < c.offset) return `the log is shorter (${size} bytes) than what was already passed on (${c.offset} bytes): lines were cut`;
  const len = c.offset - c.lineStart;
  if (len <= 0 || len > 64 * 1024 * 1024) return 'the saved position is not a line of the log';
  const buf = Buffer.alloc(len);
  readSync(fd, buf, 0, len, c.lineStart);
  if (buf[len - 1] !== 0x0a) return `the line passed on last (line ${c.seq}) no longer ends where it did: the log was edited`;
  if ((hashOf(buf.subarray(0, len - 1).toString('utf8')) ?? '') !== c.hash) return `line ${c.seq}, passed on last, is no longer the same: the log was edited or re-sealed`;
  return null;
}

const CHUNK = 256 * 1024;

function readLinesFrom(fd: number, from: LogCursor, budget: number, maxLines: number): LogLineAt[] {
  const out: LogLineAt[] = [];
  let pos = from.offset;
  let seq = from.seq;
  let carry = Buffer.alloc(0);
  let carryStart = pos;
  let read = 0;
  while (out.length < maxLines) {
    const want = Math.min(CHUNK, budget - read);
    // A single line longer than the budget is still read whole, or the reader would stop at it forever.
    const chunkLen = want > 0 ? want : carry.length > 0 ? CHUNK : 0;
    if (chunkLen === 0) break;
    const buf = Buffer.allocUnsafe(chunkLen);
    const n = readSync(fd, buf, 0, chunkLen, pos);
    if (n === 0) break;
    pos += n;
    read += n;
    let data = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
    let lineStart = carryStart;
    let i = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, i);
      if (nl < 0) break;
      const text = data.subarray(i, nl).toString('utf8');
      seq++;
      out.push({ text, seq, start: lineStart, end: lineStart + (nl - i) + 1, hash: hashOf(text) });
      lineStart += nl - i + 1;
      i = nl + 1;
      if (out.length >= maxLines) return out;
    }
    carry = Buffer.from(data.subarray(i));
    carryStart = lineStart;
    data = Buffer.alloc(0);
    if (want <= 0 && carry.length === 0) break;
  }
  return out;
}

function hasCompleteLineAfter(fd: number, offset: number, size: number): boolean {
  let pos = offset;
  const buf = Buffer.allocUnsafe(64 * 1024);
  while (pos < size) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) return false;
    if (buf.subarray(0, n).includes(0x0a)) return true;
    pos += n;
  }
  return false;
}

/** A line's `hash` field, read without trusting the rest of it (the receiver verifies). */
function hashOf(text: string): string | null {
  try {
    const o = JSON.parse(text) as { hash?: unknown };
    return typeof o?.hash === 'string' && /^[0-9a-f]{64}$/.test(o.hash) ? o.hash : null;
  } catch {
    return null;
  }
}
