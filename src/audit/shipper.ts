// Shipping the local audit log to the team's `asimov serve`: at least once, in chain order, idempotent by
// decision id on the server. Nothing here is on a call's path: the gate writes its line to the local log as
// always, and this reads the log afterwards (a background `asimov audit ship`, started by the hook when none
// runs). While the server is unreachable the lines simply wait in the log; the cursor (audit/log-cursor.ts)
// says where shipping resumes, also after a kill.
//
// Lines are sent as the exact text of the log, not re-serialised: the server recomputes every hash from what
// the file held, so an edited line, a cut or a re-sealed chain shows there, whatever this process believes.

import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import { describeError } from '../core/errors.ts';
import { cursorAfter, loadCursor, readBatch, saveCursor } from './log-cursor.ts';
import { clientIdOf, cursorPathOf, loadShipStatus, osUserName, saveShipStatus, serverKey, statusPathOf, type ShipStatus } from './ship-state.ts';

/** A batch: at most this many lines and bytes (the server accepts 1,000 lines and 1 MiB by default). */
export const SHIP_MAX_LINES = 500;
export const SHIP_MAX_BYTES = 512 * 1024;
const REQUEST_TIMEOUT_MS = 15_000;

export interface ShipTarget {
  logPath: string;
  /** The server's base URL, without a trailing slash. */
  server: string;
  token: string;
  fetch?: typeof fetch;
  maxLines?: number;
  maxBytes?: number;
}

/** The server's view of this client's chain, as it answers each batch. */
export interface ChainView {
  status: 'ok' | 'broken';
  problem: string | null;
  headSeq: number;
  headHash: string;
}

export interface ShipBatchResult {
  /** Lines sent in this batch. */
  sent: number;
  /** Of those, lines the server already had (sent before, by a shipper killed before it saved its cursor). */
  duplicates: number;
  /** Whether the log has no complete line left to ship. */
  atEnd: boolean;
  /** Why shipping began again at line 1 (the log was rewritten under the cursor). */
  rewound?: string;
  /** Lines of the log passed on so far, this batch included (the cursor's position). */
  shipped: number;
  chain: ChainView;
}

/** A failure to ship: `retry` when waiting may help (server down, overloaded), false when a person must act (token refused). */
export class ShipError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ShipError';
  }
}

/**
 * Ships the next batch after the cursor and moves the cursor only once the server has the batch. With nothing
 * new, it still reports the log's end (`local`), so the server can tell a log that was cut short.
 */
export async function shipBatch(t: ShipTarget): Promise<ShipBatchResult> {
  const sink = serverKey(t.server);
  const cursorPath = cursorPathOf(t.logPath, sink);
  const clientId = clientIdOf(t.logPath);
  const batch = readBatch(t.logPath, loadCursor(cursorPath), { maxLines: t.maxLines ?? SHIP_MAX_LINES, maxBytes: t.maxBytes ?? SHIP_MAX_BYTES });
  const next = cursorAfter(batch);
  const body = {
    client: { id: clientId, host: hostname(), user: osUserName() },
    records: batch.lines.map((l) => l.text),
    // Only at the end of the log does the client know its head: what the server compares with what it holds.
    ...(batch.atEnd ? { local: { lines: next.seq, head: next.seq === 0 ? null : next.hash } } : {}),
    ...(batch.rewound !== undefined ? { rewound: batch.rewound } : {}),
  };
  const reply = await post(t, '/v1/audit/records', body);
  saveCursor(cursorPath, next);
  return {
    sent: batch.lines.length,
    duplicates: reply.duplicates,
    atEnd: batch.atEnd,
    ...(batch.rewound !== undefined ? { rewound: batch.rewound } : {}),
    shipped: next.seq,
    chain: reply.chain,
  };
}

interface RecordsReply {
  accepted: number;
  duplicates: number;
  chain: ChainView;
}

async function post(t: ShipTarget, path: string, body: unknown): Promise<RecordsReply> {
  const doFetch = t.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(`${t.server}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    throw new ShipError(`the team server ${t.server} cannot be reached: ${describeError(e)}`, true);
  }
  const text = await res.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const msg = (parsed as { message?: unknown } | undefined)?.message;
    const why = typeof msg === 'string' ? msg : text.slice(0, 200) || res.statusText;
    const retry = res.status === 408 || res.status === 429 || res.status >= 500;
    const hint = res.status === 401 || res.status === 403 ? ' (the token is missing, revoked, or lacks the `report` scope)' : '';
    throw new ShipError(`the team server ${t.server} refused the records: ${res.status} ${why}${hint}`, retry, res.status);
  }
  const r = parsed as Partial<RecordsReply> | undefined;
  if (!r || typeof r.accepted !== 'number' || typeof r.duplicates !== 'number' || !r.chain) {
    throw new ShipError(`the team server ${t.server} answered something that is not an asimov server's reply`, true, res.status);
  }
  return r as RecordsReply;
}

export interface FollowOptions extends ShipTarget {
  signal: AbortSignal;
  /** Stop after this long with nothing to ship (a shipper the hook started); undefined: never. */
  idleExitMs?: number;
  /** How often a caught-up shipper reports the log's end anyway (and so its contact). */
  heartbeatMs?: number;
  /** How often the log is looked at for new lines. */
  pollMs?: number;
  /** Called after each attempt, with the status also saved beside the log. */
  onStatus?: (s: ShipStatus) => void;
  /** Runs beside shipping on every pass (other readers of the log: OpenTelemetry, the team policy). */
  alongside?: () => Promise<void>;
}

/**
 * Ships until the signal aborts (or the idle time passes): batches back to back while there is a backlog,
 * then a look at the log every pollMs. A server that cannot be reached is retried with a growing pause (up to
 * a minute); a refused token is retried every minute, and said in the status each time.
 */
export async function followAndShip(o: FollowOptions): Promise<void> {
  const statusPath = statusPathOf(o.logPath, serverKey(o.server));
  const clientId = clientIdOf(o.logPath);
  const pollMs = o.pollMs ?? 250;
  const heartbeatMs = o.heartbeatMs ?? 60_000;
  let backoff = 0;
  let lastSent = Date.now();
  let lastContact = 0;
  let lastSize = -1;
  let shipped = loadCursor(cursorPathOf(o.logPath, serverKey(o.server)))?.seq ?? 0;
  let lastSuccess = loadShipStatus(statusPath)?.lastSuccess;
  while (!o.signal.aborted) {
    const size = sizeOf(o.logPath);
    const due = size !== lastSize || Date.now() - lastContact >= heartbeatMs || backoff > 0;
    if (due) {
      try {
        const r = await shipBatch(o);
        const now = new Date().toISOString();
        shipped = r.shipped;
        lastSuccess = now;
        lastContact = Date.now();
        backoff = 0;
        if (r.sent > 0) lastSent = Date.now();
        report(o, clientId, statusPath, { ok: true, at: now, lastSuccess, shipped, caughtUp: r.atEnd, chain: { status: r.chain.status, problem: r.chain.problem, headSeq: r.chain.headSeq } });
        if (r.atEnd) lastSize = size;
        else continue; // a backlog: the next batch now
      } catch (e) {
        const se = e instanceof ShipError ? e : new ShipError(describeError(e), true);
        backoff = se.retry ? Math.min(60_000, Math.max(1_000, backoff * 2)) : 60_000;
        report(o, clientId, statusPath, { ok: false, at: new Date().toISOString(), error: se.message, shipped, caughtUp: false, ...(lastSuccess ? { lastSuccess } : {}) });
        await o.alongside?.().catch(() => {});
        // A shipper the hook started gives up after its idle time with the server unreachable too: the lines
        // wait in the log, and the next call starts another.
        if (o.idleExitMs !== undefined && Date.now() - lastSent >= o.idleExitMs) return;
        await sleep(backoff, o.signal);
        continue;
      }
    }
    await o.alongside?.().catch(() => {});
    if (o.idleExitMs !== undefined && Date.now() - lastSent >= o.idleExitMs) return;
    await sleep(pollMs, o.signal);
  }
}

/** Runs `pass` whenever the log changes (and once at start) until the signal aborts or the idle time passes. */
export async function followLog(logPath: string, signal: AbortSignal, idleExitMs: number | undefined, pass: () => Promise<void>, pollMs = 250): Promise<void> {
  let lastSize = -2;
  let lastChange = Date.now();
  let lastPass = 0;
  while (!signal.aborted) {
    const size = sizeOf(logPath);
    // Also every 10 s unchanged: a pass that could not finish (a receiver down) is tried again.
    if (size !== lastSize || Date.now() - lastPass >= 10_000) {
      if (size !== lastSize) lastChange = Date.now();
      lastSize = size;
      lastPass = Date.now();
      await pass().catch(() => {});
    }
    if (idleExitMs !== undefined && Date.now() - lastChange >= idleExitMs) return;
    await sleep(pollMs, signal);
  }
}

function report(o: FollowOptions, clientId: string, path: string, s: Omit<ShipStatus, 'server' | 'clientId'>): void {
  const full: ShipStatus = { server: o.server, clientId, ...s };
  saveShipStatus(path, full);
  o.onStatus?.(full);
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Exposed for tests and `audit verify --remote`: what the cursor of this server says was shipped. */
export function shippedSoFar(logPath: string, server: string): number {
  return loadCursor(cursorPathOf(logPath, serverKey(server)))?.seq ?? 0;
}
