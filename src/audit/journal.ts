// A write-ahead journal in front of the audit log, for a long-lived process on a hot path (the MCP proxy).
//
// Why: the log is one hash chain shared by every asimov process, so each append takes a cross-process lock
// (a file created and removed next to the log). Measured in the proxy on a busy two-core machine, that
// locked append took 100–170 µs of wall time per call, most of the proxy's added latency, against under
// 20 µs for one write to a file the process holds open. So the proxy makes each record durable first in a
// journal that only it writes (no lock, no directory change), before the call may go upstream, and seals
// the records into the shared log later, in batches, off every call's path: once the process has had no
// request in flight for SEAL_IDLE_MS, or, while it stays busy, SEAL_BUSY_MS after the oldest record waiting
// (one locked append per batch). Sealing right after each answer, as before, still cost the next call of a
// client that sends one straight after an answer: it arrived while the append held the process.
//
// What holds: a call is never passed on before its record is on disk (a journal write that fails throws,
// and the gate then refuses the call); an orderly end (close, or the process's exit) seals everything
// first; a process that dies leaves its journal behind, and the next journaled writer to start takes it
// over and moves its records into the log, skipping any that had already arrived there (by decision id).
//
// How late the log may be, while the process lives: a record is sealed at most SEAL_BUSY_MS (100 ms) after
// it was journaled, plus whatever holds the process's event loop at that moment (a decision being made),
// plus the wait for the log's lock (at most SEAL_LOCK_WAIT_MS, 50 ms). A batch that cannot be written then
// (the lock held longer by another process, a log that cannot be written at all) stays in the journal, is
// said once on the diagnostics line, and is tried again every SEAL_BUSY_MS and at the end; a record is
// never dropped. Meanwhile `asimov audit verify` counts it among the journals' records.

import {
  constants, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync,
  unlinkSync, writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { AsimovError, describeError, errnoOf } from '../core/errors.ts';
import { processAlive } from '../core/pid-lock.ts';
import { lazyCrypto } from '../core/lazy.ts';
import type { AuditEventDraft } from './event.ts';
import { journalDirOf, resolveAuditPath } from './paths.ts';
import { closeQuiet, createAuditWriter, readAt, type AuditWriter } from './writer.ts';


/** `<pid>-<random>.jsonl`, or `….claim-<pid>` while a later process moves a dead one's records. */
const JOURNAL_NAME = /^(\d+)-[0-9a-f]+\.jsonl(?:\.claim-(\d+))?$/;

/** A journal left behind larger than this is set aside for a person rather than read into memory. */
const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;

/** How much of the log's end is read for the ids of records that arrived before their writer died. */
const RECOVERY_TAIL_BYTES = 8 * 1024 * 1024;

/**
 * How long the process must have had no request in flight before its records are sealed. Longer than the
 * gap between the calls of a client that sends the next as soon as it has an answer (well under 1 ms), so
 * a burst is sealed in batches and not call by call; short enough that the log is current as soon as the
 * agent pauses (a model thinks for seconds between calls).
 */
export const SEAL_IDLE_MS = 20;

/**
 * The longest a record waits in the journal while the process stays busy. At the proxy's few thousand
 * calls a second at most, that is one locked append of a few hundred records per 100 ms (well under 1% of
 * the time, and a call only waits for it when it arrives during it), and a log a tenth of a second behind
 * is current for anyone reading it (`asimov audit tail`, a shipper).
 */
export const SEAL_BUSY_MS = 100;

/**
 * How long a seal waits for the log's lock (another process's append) before it gives up until the next
 * timer. The records are safe in the journal meanwhile, so the proxy never stands still for the writer's
 * full LOCK_TIMEOUT_MS: a seal holds the whole process, and a client's call would wait behind it. A lock
 * left by a crashed process is still broken once stale (by the first seal after LOCK_STALE_MS).
 */
export const SEAL_LOCK_WAIT_MS = 50;

export interface JournaledWriterOptions {
  /** The shared log's writer: the records go there in batches. */
  writer: AuditWriter;
  /** Diagnostics (the proxy's stderr): a batch that could not be moved yet, journals taken over. */
  log?: (line: string) => void;
  /**
   * Seal on a timer, off the callers' path (the proxy): SEAL_IDLE_MS after `setIdle(true)`, and at the
   * latest SEAL_BUSY_MS after the oldest record waiting. Without it, only `flush` and `close` move records.
   */
  autoSeal?: { idleMs?: number; busyMs?: number; lockWaitMs?: number };
  /** Told the size of each batch written into the log (diagnostics, and the tests that count batches). */
  onBatch?: (records: number) => void;
}

export interface JournaledAuditWriter {
  /** The shared log. */
  readonly path: string;
  /** This process's journal file (created with the first record). */
  readonly journalPath: string;
  /** Writes the draft to the journal; throws AsimovError('audit_io_error') when it could not, having kept nothing. */
  append(draft: AuditEventDraft): AuditEventDraft;
  /**
   * Moves every journaled record into the log, in order. Throws AsimovError('audit_io_error') when the log
   * cannot be written; the records then stay in the journal and go with the next flush.
   */
  flush(): void;
  /** flush, with a failure reported through `log` (once until it changes) instead of thrown. */
  flushQuietly(): void;
  /** Records journaled and not yet in the log. */
  pending(): number;
  /**
   * Whether the process has no request in flight (true) or has one again (false). With `autoSeal`, the
   * records are sealed once it has stayed idle for SEAL_IDLE_MS. Cheap: called around every request.
   */
  setIdle(idle: boolean): void;
  /** Flushes, then closes and removes the journal (kept, with its records, when the flush failed). */
  close(): void;
}

const OPEN_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export function createJournaledWriter(o: JournaledWriterOptions): JournaledAuditWriter {
  const writer = o.writer;
  const dir = journalDirOf(writer.path);
  const journalPath = join(dir, `${process.pid}-${lazyCrypto().randomBytes(6).toString('hex')}.jsonl`);
  const log = o.log ?? (() => {});
  let fd: number | null = null;
  let pending: AuditEventDraft[] = [];
  let closed = false;
  let lastFailure = '';
  const auto = o.autoSeal;
  const idleMs = auto?.idleMs ?? SEAL_IDLE_MS;
  const busyMs = auto?.busyMs ?? SEAL_BUSY_MS;
  const lockWaitMs = auto?.lockWaitMs ?? SEAL_LOCK_WAIT_MS;
  // Two timers, each made once and re-armed with refresh() (no allocation per call). Unref'd: they never
  // keep the process alive, and its end seals whatever waits (close, or the exit handler).
  let idle = true;
  let idleTimer: NodeJS.Timeout | undefined;
  let busyTimer: NodeJS.Timeout | undefined;
  let busyArmed = false;

  const openJournal = (): number => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The directory must be ours and real: a symlink there would send the records elsewhere.
    if (!lstatSync(dir).isDirectory()) {
      throw new AsimovError('audit_io_error', 'the audit journal directory is not a directory', { file: dir });
    }
    // Before the first record: take over what a process that died left here (once per process; with
    // autoSeal, tried again with each seal until it succeeds).
    takeOver();
    return openSync(journalPath, OPEN_FLAGS, 0o600);
  };

  let tookOver = false;
  let lastTakeOverFailure = '';
  function takeOver(wait?: number): void {
    try {
      const moved = recoverJournals(writer, { log, ...(wait !== undefined ? { lockWaitMs: wait } : {}) });
      tookOver = true;
      if (moved > 0) log(`moved ${moved} record(s) left by a process that had stopped into the audit log`);
    } catch (e) {
      // Said once until it changes: a timed seal tries again every SEAL_BUSY_MS.
      const said = describeError(e);
      if (said !== lastTakeOverFailure) log(`could not take over a journal left by a process that had stopped (it stays for the next try): ${said}`);
      lastTakeOverFailure = said;
    }
  }

  const flushQuiet = (wait?: number): void => {
    try {
      flush(wait);
      lastFailure = '';
    } catch (e) {
      const said = describeError(e);
      if (said !== lastFailure) log(`${pending.length} audit record(s) wait in ${journalPath}, to be moved into the log later: ${said}`);
      lastFailure = said;
    }
  };

  const onExit = (): void => {
    if (!closed) close();
  };

  /** A timer's seal; a batch that failed is tried again SEAL_BUSY_MS later. */
  const seal = (): void => {
    if (closed) return;
    if (!tookOver) takeOver(lockWaitMs);
    flushQuiet(lockWaitMs);
    if (pending.length > 0) armBusy();
  };
  const onIdleTimer = (): void => {
    if (idle && pending.length > 0) seal();
  };
  const onBusyTimer = (): void => {
    busyArmed = false;
    if (pending.length > 0) seal();
  };
  function armBusy(): void {
    if (busyArmed || auto === undefined) return;
    busyArmed = true;
    if (busyTimer === undefined) busyTimer = setTimeout(onBusyTimer, busyMs).unref();
    else busyTimer.refresh();
  }
  const setIdle = (now: boolean): void => {
    idle = now;
    if (!now || auto === undefined || pending.length === 0 || closed) return;
    if (idleTimer === undefined) idleTimer = setTimeout(onIdleTimer, idleMs).unref();
    else idleTimer.refresh();
  };

  function flush(wait?: number): void {
    if (pending.length === 0) return;
    writer.appendAll(pending, wait !== undefined ? { lockWaitMs: wait } : undefined);
    const records = pending.length;
    pending = [];
    // Emptied after the batch is in the log: a process killed between the two leaves records in the
    // journal that the log has too, which the take-over recognises by their decision ids.
    if (fd !== null) {
      try {
        ftruncateSync(fd, 0);
      } catch {
        // A journal that cannot be emptied is abandoned; the next record starts a new one.
        closeQuiet(fd);
        fd = null;
        unlinkQuietly(journalPath);
      }
    }
    o.onBatch?.(records);
  }

  function close(): void {
    if (closed) return;
    flushQuiet();
    closed = true;
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    if (busyTimer !== undefined) clearTimeout(busyTimer);
    process.off('exit', onExit);
    if (fd !== null) {
      closeQuiet(fd);
      fd = null;
      if (pending.length === 0) unlinkQuietly(journalPath);
    }
  }

  process.on('exit', onExit);

  return {
    path: writer.path,
    journalPath,
    append(draft) {
      if (closed) throw new AsimovError('audit_io_error', 'the audit journal is closed', { file: journalPath });
      const line = `${JSON.stringify(draft)}\n`;
      try {
        fd ??= openJournal();
        const length = Buffer.byteLength(line, 'utf8');
        const written = writeSync(fd, line, null, 'utf8');
        if (written !== length) {
          // Nothing half-written may stay: the take-over would skip it, but the log would miss the record.
          const size = fstatSync(fd).size;
          ftruncateSync(fd, Math.max(0, size - written));
          throw new Error(`short write (${written} of ${length} bytes)`);
        }
      } catch (e) {
        if (e instanceof AsimovError) throw e;
        throw new AsimovError('audit_io_error', `cannot write the audit journal: ${describeError(e)}`, { file: journalPath }, { cause: e });
      }
      pending.push(draft);
      if (!busyArmed) armBusy();
      return draft;
    },
    flush: () => flush(),
    flushQuietly: () => flushQuiet(),
    pending: () => pending.length,
    setIdle,
    close,
  };
}

export interface RecoverOptions {
  log?: (line: string) => void;
  /** Whether a process is running (tests). */
  isAlive?: (pid: number) => boolean;
  /** How long to wait for the log's lock (a timed seal's shorter wait); default the writer's. */
  lockWaitMs?: number;
}

/**
 * Moves the records of journals whose process is gone into the log; returns how many were moved. A journal
 * is claimed by renaming it first, so two processes starting together never both move it; one claimed by a
 * process that then died is claimed again. Records the log already holds (the process died after writing
 * the batch and before emptying its journal) are skipped by decision id.
 */
export function recoverJournals(writer: AuditWriter, o: RecoverOptions = {}): number {
  const dir = journalDirOf(writer.path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return 0;
    throw e;
  }
  const alive = o.isAlive ?? processAlive;
  let moved = 0;
  let inLog: Set<string> | undefined;
  for (const name of names) {
    const m = JOURNAL_NAME.exec(name);
    if (!m) continue;
    const owner = Number(m[2] ?? m[1]);
    // One this process claimed before and could not move then (the log was locked) is tried again.
    const ours = m[2] !== undefined && owner === process.pid;
    if (!ours && (owner === process.pid || alive(owner))) continue;
    const claimed = join(dir, `${name.replace(/\.claim-\d+$/, '')}.claim-${process.pid}`);
    try {
      renameSync(join(dir, name), claimed);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') continue; // another process claimed it first
      throw e;
    }
    // Only a regular file of a sane size is read: a FIFO would hang the proxy, a huge file exhaust it.
    const st = lstatSync(claimed);
    if (!st.isFile() || st.size > MAX_JOURNAL_BYTES) {
      o.log?.(`${claimed} is ${st.isFile() ? `larger than ${MAX_JOURNAL_BYTES} bytes` : 'not a regular file'}; set aside, not moved into the audit log`);
      renameSync(claimed, `${claimed}.unreadable`);
      continue;
    }
    const { drafts, unreadable } = readJournal(claimed);
    if (unreadable > 0) o.log?.(`${unreadable} unreadable line(s) in ${claimed} were not moved into the audit log`);
    inLog ??= decisionIdsNearEnd(writer.path);
    const fresh = drafts.filter((d) => !inLog!.has(d.decision_id));
    writer.appendAll(fresh, o.lockWaitMs !== undefined ? { lockWaitMs: o.lockWaitMs } : undefined);
    for (const d of fresh) inLog.add(d.decision_id);
    moved += fresh.length;
    if (unreadable === 0) unlinkQuietly(claimed);
    else renameSync(claimed, `${claimed}.unreadable`); // kept for a person to read, never taken over again
  }
  return moved;
}

/** The journal's records; a line that is not one (cut by a crash mid-write) is counted, not guessed at. */
function readJournal(path: string): { drafts: AuditEventDraft[]; unreadable: number } {
  const drafts: AuditEventDraft[] = [];
  let unreadable = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v = JSON.parse(line) as Partial<AuditEventDraft> | null;
      if (v !== null && typeof v === 'object' && v.v === 1 && typeof v.decision_id === 'string' && typeof v.ts === 'string' && typeof v.verdict === 'string') {
        drafts.push(v as AuditEventDraft);
      } else {
        unreadable++;
      }
    } catch {
      unreadable++;
    }
  }
  return { drafts, unreadable };
}

/** The decision ids in the last few megabytes of the log (where records of a recent crash are). */
function decisionIdsNearEnd(logPath: string): Set<string> {
  const ids = new Set<string>();
  let fd: number;
  try {
    fd = openSync(logPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return ids;
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, RECOVERY_TAIL_BYTES);
    for (const m of readAt(fd, size - length, length).toString('utf8').matchAll(/"decision_id":"([^"\\]*)"/g)) ids.add(m[1]!);
  } finally {
    closeQuiet(fd);
  }
  return ids;
}



function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or left for the take-over to find.
  }
}

/** The gate's sink over a journal, made at the first record, sealing on its own timers (autoSeal). */
export interface JournaledAudit {
  append(draft: AuditEventDraft): unknown;
  /** The process has no request in flight (true), or has one again (false): see JournaledAuditWriter.setIdle. */
  setIdle(idle: boolean): void;
  flushQuietly(): void;
  close(): void;
}

export interface JournaledAuditOptions {
  log?: (line: string) => void;
  onBatch?: (records: number) => void;
}

/**
 * A journaled writer for the log `env` names, sealing in batches while the process is idle or every
 * SEAL_BUSY_MS, or null when auditing is off. It is made at the first record, so an unusable
 * ASIMOV_AUDIT_LOG (a relative path) fails that record, and the gate refuses the call, as it does without
 * a journal.
 */
export function journaledAudit(env: NodeJS.ProcessEnv, o: JournaledAuditOptions = {}): JournaledAudit | null {
  let path: string | null;
  try {
    path = resolveAuditPath(env);
  } catch (e) {
    return { append: () => { throw e; }, setIdle: () => {}, flushQuietly: () => {}, close: () => {} };
  }
  if (path === null) return null;
  const logPath = path;
  let jw: JournaledAuditWriter | undefined;
  let idle = true;
  const open = (): JournaledAuditWriter => {
    const made = createJournaledWriter({ writer: createAuditWriter({ path: logPath, env })!, autoSeal: {}, ...o });
    made.setIdle(idle);
    return made;
  };
  return {
    append: (draft) => (jw ??= open()).append(draft),
    setIdle: (now) => {
      idle = now;
      jw?.setIdle(now);
    },
    flushQuietly: () => jw?.flushQuietly(),
    close: () => jw?.close(),
  };
}

/** What waits in the journals beside a log: for `asimov audit verify`, which reads and never moves them. */
export interface JournalSummary {
  dir: string;
  /** Journal files (live or left by a stopped process), and the records they hold. */
  files: number;
  records: number;
  /** Files set aside because a line could not be read (`….unreadable`). */
  unreadable: string[];
}

export function journalSummary(logPath: string): JournalSummary {
  const dir = journalDirOf(logPath);
  const summary: JournalSummary = { dir, files: 0, records: 0, unreadable: [] };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return summary; // none yet, or not readable: nothing to say beyond the log itself
  }
  for (const name of names) {
    if (name.endsWith('.unreadable')) {
      summary.unreadable.push(join(dir, name));
      continue;
    }
    if (!JOURNAL_NAME.test(name)) continue;
    try {
      const st = lstatSync(join(dir, name));
      if (!st.isFile() || st.size > MAX_JOURNAL_BYTES) {
        summary.unreadable.push(join(dir, name));
        continue;
      }
      const { drafts } = readJournal(join(dir, name));
      summary.files++;
      summary.records += drafts.length;
    } catch {
      // Moved or removed while we looked: its records are in the log by now.
    }
  }
  return summary;
}
