// What a machine keeps about shipping its audit log, in a private directory beside the log (`<log>.ship/`):
// the client id that names this log's chain on the server, a cursor per server, the last outcome per server,
// and the pid of the one shipper that may run for this log.

import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { AsimovError, describeError } from '../core/errors.ts';
import { writeFileAtomicSync } from '../core/atomic-write.ts';
import { lazyCrypto } from '../core/lazy.ts';
import { pidLockHolder, takePidLock, type PidLock } from '../core/pid-lock.ts';

export function shipDirOf(logPath: string): string {
  return `${logPath}.ship`;
}

/** A short stable name for a server in file names (its base URL's hash). */
export function serverKey(server: string): string {
  return lazyCrypto().createHash('sha256').update(server).digest('hex').slice(0, 16);
}

/** The OS user this machine's decisions are made for, as the server and an OTLP receiver are told (null when unknown). */
export function osUserName(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

export function cursorPathOf(logPath: string, sink: string): string {
  return join(shipDirOf(logPath), `cursor-${sink}.json`);
}

export function statusPathOf(logPath: string, sink: string): string {
  return join(shipDirOf(logPath), `status-${sink}.json`);
}

export function ensureShipDir(logPath: string): string {
  const dir = shipDirOf(logPath);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new AsimovError('audit_io_error', `cannot create ${dir}: ${describeError(e)}`, { file: dir }, { cause: e });
  }
  return dir;
}

const CLIENT_ID_RE = /^[0-9a-f-]{36}$/;

/**
 * The id of this log's chain on every server it ships to: random, made once. A log whose id file was deleted
 * gets a new id, and the server sees a new client whose first record does not start a chain (reported).
 */
export function clientIdOf(logPath: string): string {
  const path = join(ensureShipDir(logPath), 'client-id');
  try {
    const id = readFileSync(path, 'utf8').trim();
    if (CLIENT_ID_RE.test(id)) return id;
  } catch {
    /* made below */
  }
  const id = lazyCrypto().randomUUID();
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, `${id}\n`);
    closeSync(fd);
    return id;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      // Another shipper made it first, or the file held something unusable: take what is there if valid.
      const there = readFileSync(path, 'utf8').trim();
      if (CLIENT_ID_RE.test(there)) return there;
      writeFileAtomicSync(path, `${id}\n`);
      return id;
    }
    throw new AsimovError('audit_io_error', `cannot write ${path}: ${describeError(e)}`, { file: path }, { cause: e });
  }
}

/** What the last attempt to ship to a server found (for `audit verify --remote`, `doctor`, and people). */
export interface ShipStatus {
  server: string;
  clientId: string;
  /** ISO time of the attempt. */
  at: string;
  ok: boolean;
  /** Why the last attempt failed (the server unreachable, a refused token). */
  error?: string;
  /** When the server was last reached. */
  lastSuccess?: string;
  /** Lines of the log passed on so far. */
  shipped: number;
  /** Whether every complete line of the log had reached the server at that point. */
  caughtUp: boolean;
  /** The server's view of this client's chain after the last answer. */
  chain?: { status: 'ok' | 'broken'; problem: string | null; headSeq: number };
}

export function loadShipStatus(path: string): ShipStatus | null {
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as ShipStatus;
    return typeof s.server === 'string' && typeof s.at === 'string' ? s : null;
  } catch {
    return null;
  }
}

export function saveShipStatus(path: string, s: ShipStatus): void {
  try {
    writeFileAtomicSync(path, `${JSON.stringify(s, null, 2)}\n`);
  } catch {
    // A status file is a report for people; failing to write it must not stop the shipping.
  }
}

export type ShipperLock = PidLock;

export function shipperLockPath(logPath: string): string {
  return join(shipDirOf(logPath), 'shipper.pid');
}

/** The pid of the live shipper of this log, or null. */
export function shipperPid(logPath: string): number | null {
  return pidLockHolder(shipperLockPath(logPath));
}

/** Takes the log's shipper lock, or returns the pid of the live shipper that holds it. */
export function lockShipper(logPath: string): ShipperLock | { heldBy: number } {
  ensureShipDir(logPath);
  const path = shipperLockPath(logPath);
  try {
    return takePidLock(path);
  } catch (e) {
    throw new AsimovError('audit_io_error', `cannot lock ${path}: ${describeError(e)}`, { file: path }, { cause: e });
  }
}

/** The last attempt, for people (`audit ship`, `doctor`). */
export function describeShipStatus(s: ShipStatus | null): string {
  if (!s) return 'no attempt yet (the hook starts a shipper with the next call; or run `asimov audit ship --once`)\n';
  if (!s.ok) return `last attempt ${s.at}: ${s.error}${s.lastSuccess ? `; last reached ${s.lastSuccess}` : '; never reached'}\n`;
  return `last reached ${s.at}${s.caughtUp ? ', nothing waiting' : ''}\n${s.chain ? chainSentence(s.chain.status, s.chain.problem) : ''}`;
}

export function chainSentence(status: 'ok' | 'broken', problem: string | null): string {
  return status === 'ok'
    ? "the server's copy of this machine's chain is intact\n"
    : `the server found this machine's log tampered with or cut: ${problem}\n`;
}
