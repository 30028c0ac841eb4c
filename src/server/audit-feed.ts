// Follows the audit log into the decision index (server/decision-index.ts) and onto the event bus. Every asimov
// process of this user (hooks, the MCP proxy, the daemon, this server's own gate) appends to the one log
// that the environment names, so following it shows the decisions of all of them.
//
// The read position is kept in the database (table `audit_feed`) with what identifies the file: its device
// and inode, and a hash of its first line, which names the chain (every line's hash covers its time and
// decision id, so two logs never share a first line). The file is read again from its start when:
// - the index is empty (lost, or never built): "the index is rebuilt from the log";
// - the path names another file (replaced, rotated) or the file shrank below the position (truncated), or its
//   first line changed (cut and rewritten between two looks).
// Only complete lines are read: a line still being written stays for the next look. New lines are found by
// fs.watch on the log's directory, with a short poll behind it (watchers miss events on some filesystems and
// cannot see a directory created later).

import { closeSync, fstatSync, openSync, readSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createHash } from 'node:crypto';
import { describeError } from '../core/errors.ts';
import { isAuditEvent, type AuditEvent } from '../audit/event.ts';
import type { Database } from '../store/database.ts';
import { insertEvents, itemOf } from './decision-index.ts';
import { announceDecisions } from './decision-announce.ts';
import type { EventBus } from './events.ts';

export const DEFAULT_POLL_MS = 1000;
/** Bytes read (and indexed in one transaction) at a time. */
const READ_CHUNK = 1024 * 1024;
/** The first line read to fingerprint the file, at most. */
const HEAD_MAX = 256 * 1024;

export interface AuditFeedOptions {
  /** The audit log (resolveAuditPath of the server's env). */
  path: string;
  db: Database;
  events: EventBus;
  pollMs?: number;
  /** One line per problem (an unreadable log, a failed insert); default nothing. */
  log?: (line: string) => void;
}

export interface AuditFeed {
  readonly path: string;
  /** Reads what the log holds now (and waits for a read under way); resolves when it is indexed. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

interface Position {
  dev: string;
  ino: string;
  /** sha256 of the first line (with its newline); null while the file has no complete line. */
  head: string | null;
  offset: number;
}

export function startAuditFeed(o: AuditFeedOptions): AuditFeed {
  const log = o.log ?? (() => {});
  let pos: Position | null | undefined; // undefined: not loaded from the database yet
  let closed = false;
  let running: Promise<void> | null = null;
  let again = false;
  let watcher: FSWatcher | null = null;
  let lastError = '';

  const report = (msg: string): void => {
    // The poll retries every second; one line per distinct problem, not one a second.
    if (msg !== lastError) log(`asimov serve: audit feed: ${msg}`);
    lastError = msg;
  };

  const pass = async (): Promise<void> => {
    if (pos === undefined) pos = await loadPosition(o.db, o.path);
    watchDir();
    for (;;) {
      if (closed) return;
      const read = readNew(o.path, pos);
      if (read === null) return; // no file (yet)
      const fresh = read.events.length > 0 ? await o.db.transaction(async (tx) => {
        const added = await insertEvents(tx, read.events);
        await savePosition(tx, o.path, read.next);
        return added;
      }) : (samePosition(pos, read.next) ? [] : (await savePosition(o.db, o.path, read.next), []));
      pos = read.next;
      for (const e of fresh) o.events.publish({ type: 'decision', data: itemOf(e) });
      // The other replicas on this database publish them on their buses (server/decision-announce.ts).
      if (fresh.length > 0) await announceDecisions(o.db, fresh.map((e) => e.decision_id)).catch((e: unknown) => report(`announcing to other replicas: ${describeError(e)}`));
      lastError = '';
      if (!read.more) return;
    }
  };

  const sync = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (e) {
          report(describeError(e));
        }
      } while (again && !closed);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  const watchDir = (): void => {
    if (watcher || closed) return;
    try {
      const name = basename(o.path);
      watcher = watch(dirname(o.path), { persistent: false }, (_ev, file) => {
        if (file === null || file === name) void sync();
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = null;
      });
    } catch {
      watcher = null; // no directory yet: the poll finds the log when it appears
    }
  };

  const timer = setInterval(() => void sync(), o.pollMs ?? DEFAULT_POLL_MS);
  timer.unref();
  void sync();

  return {
    path: o.path,
    sync: async () => {
      await sync();
      // A pass that was running when asked may have started before the latest lines: run one more.
      await sync();
    },
    close: async () => {
      closed = true;
      clearInterval(timer);
      watcher?.close();
      watcher = null;
      await running?.catch(() => {});
    },
  };
}

function samePosition(a: Position | null, b: Position): boolean {
  return a !== null && a.dev === b.dev && a.ino === b.ino && a.head === b.head && a.offset === b.offset;
}

async function loadPosition(db: Database, path: string): Promise<Position | null> {
  const [row] = await db.query<{ dev: string; ino: string; head: string | null; byte_offset: string | number }>(
    'SELECT dev, ino, head, byte_offset FROM audit_feed WHERE path = $1',
    [path],
  );
  if (!row) return null;
  // A position without the decisions it stands for (the table emptied by hand): build the index again.
  const [any] = await db.query('SELECT 1 FROM decisions LIMIT 1');
  if (!any) return null;
  return { dev: row.dev, ino: row.ino, head: row.head, offset: Number(row.byte_offset) };
}

async function savePosition(db: { query: Database['query'] }, path: string, p: Position): Promise<void> {
  await db.query(
    `INSERT INTO audit_feed (path, dev, ino, head, byte_offset, updated_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (path) DO UPDATE SET dev = $2, ino = $3, head = $4, byte_offset = $5, updated_at = now()`,
    [path, p.dev, p.ino, p.head, p.offset],
  );
}

interface ReadResult {
  events: AuditEvent[];
  next: Position;
  /** The chunk ended before the file did: read again. */
  more: boolean;
}

/** The complete lines after the position (from the start when the file is not the one the position is in). */
function readNew(path: string, pos: Position | null): ReadResult | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    const size = Number(st.size);
    const dev = String(st.dev);
    const ino = String(st.ino);
    const head = firstLineHash(fd, size);
    let offset = pos?.offset ?? 0;
    // Another file (replaced, rotated), another chain (cut and rewritten between two looks), or a shorter
    // file (truncated): from its start. Decisions read twice are indexed once.
    if (!pos || pos.dev !== dev || pos.ino !== ino || pos.head !== head || size < offset || head === null) offset = 0;
    const want = Math.min(size - offset, READ_CHUNK);
    const buf = Buffer.allocUnsafe(Math.max(0, want));
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    const end = buf.subarray(0, got).lastIndexOf(10);
    const events: AuditEvent[] = [];
    let consumed = 0;
    if (end >= 0) {
      consumed = end + 1;
      for (const line of buf.subarray(0, end).toString('utf8').split('\n')) {
        const e = parseEvent(line);
        if (e) events.push(e);
      }
    } else if (got === READ_CHUNK) {
      // One line longer than a chunk: not an event asimov writes (inputs are cut); skip to its end.
      consumed = skipLongLine(fd, offset + got, size) - offset;
    }
    const next: Position = { dev, ino, head, offset: offset + consumed };
    return { events, next, more: consumed > 0 && offset + consumed < size && got === READ_CHUNK };
  } finally {
    closeSync(fd);
  }
}

function parseEvent(line: string): AuditEvent | null {
  if (line.trim() === '') return null;
  try {
    const v: unknown = JSON.parse(line);
    // A line that is not an event (edited, corrupted) is left out of the index; /v1/audit/verify names it.
    return isAuditEvent(v) ? (v as AuditEvent) : null;
  } catch {
    return null;
  }
}

/** sha256 of the file's first line, newline included; null when there is no complete first line. */
function firstLineHash(fd: number, size: number): string | null {
  const buf = Buffer.allocUnsafe(Math.min(size, HEAD_MAX));
  const n = buf.length > 0 ? readSync(fd, buf, 0, buf.length, 0) : 0;
  const nl = buf.subarray(0, n).indexOf(10);
  if (nl < 0) return n === HEAD_MAX ? createHash('sha256').update(buf).digest('hex') : null;
  return createHash('sha256').update(buf.subarray(0, nl + 1)).digest('hex');
}

/** The offset just after the newline that ends the line running on from `from` (the file's size if none). */
function skipLongLine(fd: number, from: number, size: number): number {
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (let at = from; at < size; ) {
    const n = readSync(fd, buf, 0, buf.length, at);
    if (n === 0) break;
    const nl = buf.subarray(0, n).indexOf(10);
    if (nl >= 0) return at + nl + 1;
    at += n;
  }
  return size;
}
