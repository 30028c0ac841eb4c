// asimov serve's OpenTelemetry export: every decision on the server's bus (its own, and those its clients ship
// to it) sent as OTLP/HTTP logs, in batches, from a bounded queue that drops the oldest when the receiver stays
// down. The server's config comes from `--otlp-endpoint` / `--otlp-header`, else from its policy's `audit.otlp`.

import { AsimovError, describeError } from '../core/errors.ts';
import { isAuditEvent, type AuditEvent } from '../audit/event.ts';
import { createOtlpExporter, otlpConfigFromSettings, otlpLogsUrl, type OtlpConfig, type OtlpEvent, type OtlpExporter, type OtlpResourceInfo } from '../audit/otlp.ts';
import { loadPolicy } from '../policy/load.ts';
import type { Queryable } from '../store/database.ts';
import type { EventBus } from './events.ts';

/** Records per request at most. */
export const OTLP_BATCH = 512;
/** How often the queue is sent (sooner when a batch is full). */
export const OTLP_INTERVAL_MS = 1000;
/** Decisions held while the receiver is down; beyond this the oldest are dropped. */
export const OTLP_MAX_QUEUE = 20_000;
/** Longest wait between attempts while the receiver fails. */
const MAX_BACKOFF_MS = 30_000;
/** At most one warning about dropped decisions this often. */
const DROP_WARN_EVERY_MS = 60_000;

export interface OtlpExportOptions {
  config: OtlpConfig;
  /** The decision index, where a decision announced by id is read whole. */
  db: Queryable;
  events: EventBus;
  resource?: OtlpResourceInfo;
  log?: (line: string) => void;
  batchSize?: number;
  intervalMs?: number;
  maxQueue?: number;
  /** One export's time limit, retries included (the SDK's default 10 s). */
  timeoutMillis?: number;
}

export interface OtlpExportStatus {
  endpoint: string;
  /** Decisions waiting to be sent. */
  queued: number;
  /** Decisions the receiver accepted. */
  sent: number;
  /** Decisions dropped because the queue was full (the receiver down for long). */
  dropped: number;
  /** The last failure, while the receiver fails; null once a batch is accepted again. */
  lastError: string | null;
}

export interface OtlpExport {
  status(): OtlpExportStatus;
  /** Sends what is queued now (tests, and close); resolves when the queue is empty or an export failed. */
  flush(): Promise<void>;
  /** Stops following the bus, sends what is queued unless the receiver is failing, and releases the SDK. */
  close(): Promise<void>;
}

/** A queued decision: its id, and its record when the bus carried it (else it is read from the index). */
interface Pending {
  id: string;
  event?: OtlpEvent;
}

export function startOtlpExport(o: OtlpExportOptions): OtlpExport {
  const batchSize = o.batchSize ?? OTLP_BATCH;
  const maxQueue = o.maxQueue ?? OTLP_MAX_QUEUE;
  const interval = o.intervalMs ?? OTLP_INTERVAL_MS;
  const log = o.log ?? (() => {});
  const exporter: OtlpExporter = createOtlpExporter({
    ...o.config,
    ...(o.resource ? { resource: o.resource } : {}),
    ...(o.timeoutMillis !== undefined ? { timeoutMillis: o.timeoutMillis } : {}),
  });
  let queue: Pending[] = [];
  let sent = 0;
  let dropped = 0;
  let droppedSinceWarning = 0;
  let lastDropWarning = 0;
  let lastError: string | null = null;
  let retryAt = 0;
  let backoff = interval;
  let running: Promise<void> | null = null;
  let closed = false;

  const bound = (): void => {
    const over = queue.length - maxQueue;
    if (over <= 0) return;
    queue = queue.slice(over);
    dropped += over;
    droppedSinceWarning += over;
    const now = Date.now();
    if (now - lastDropWarning >= DROP_WARN_EVERY_MS) {
      log(`asimov serve: OTLP export to ${exporter.endpoint} is behind (${lastError ?? 'the receiver is slow'}): dropped the ${droppedSinceWarning} oldest decisions (${dropped} in all; the queue holds ${maxQueue})`);
      lastDropWarning = now;
      droppedSinceWarning = 0;
    }
  };

  const unsubscribe = o.events.subscribe((e) => {
    if (e.type !== 'decision' || closed) return;
    const p = pendingOf(e.data);
    if (p === null) return;
    queue.push(p);
    bound();
    if (queue.length >= batchSize && running === null && Date.now() >= retryAt) void flush();
  });

  /** Reads the records announced only by id from the index; ids it does not hold are left out. */
  const resolve = async (batch: Pending[]): Promise<OtlpEvent[]> => {
    const ids = batch.filter((p) => p.event === undefined).map((p) => p.id);
    const found = new Map<string, OtlpEvent>();
    if (ids.length > 0) {
      const rows = await o.db.query<{ event: AuditEvent; client_id: string | null }>('SELECT event, client_id FROM decisions WHERE decision_id = ANY($1)', [ids]);
      for (const r of rows) found.set(r.event.decision_id, r.client_id !== null ? { ...r.event, client_id: r.client_id } : r.event);
    }
    return batch.flatMap((p) => p.event ?? found.get(p.id) ?? []);
  };

  const sendOnce = async (): Promise<boolean> => {
    const batch = queue.splice(0, batchSize);
    if (batch.length === 0) return false;
    let events: OtlpEvent[];
    try {
      events = await resolve(batch);
      await exporter.export(events);
    } catch (e) {
      // Back at the head, in order; whatever arrived meanwhile stays behind it, and the bound still holds.
      queue = batch.concat(queue);
      bound();
      const msg = describeError(e);
      if (lastError === null) log(`asimov serve: ${msg}; decisions wait in a queue of at most ${maxQueue} and are retried`);
      lastError = msg;
      retryAt = Date.now() + backoff;
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      return false;
    }
    sent += events.length;
    if (lastError !== null) log(`asimov serve: OTLP export to ${exporter.endpoint} works again`);
    lastError = null;
    backoff = interval;
    retryAt = 0;
    return true;
  };

  const flush = (): Promise<void> =>
    (running ??= (async () => {
      try {
        while (await sendOnce()) {
          /* until the queue is empty or an export fails */
        }
      } finally {
        running = null;
      }
    })());

  const timer = setInterval(() => {
    if (running === null && queue.length > 0 && Date.now() >= retryAt) void flush();
  }, interval);
  timer.unref();

  return {
    status: () => ({ endpoint: exporter.endpoint, queued: queue.length, sent, dropped, lastError }),
    flush,
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      clearInterval(timer);
      await running;
      if (lastError === null && queue.length > 0) await flush();
      if (queue.length > 0) log(`asimov serve: OTLP export to ${exporter.endpoint}: ${queue.length} decisions were not sent (${lastError ?? 'stopped'})`);
      await exporter.shutdown();
    },
  };
}

/** The decision a bus message announces: a row carrying the record, or an index item carrying its id. */
function pendingOf(data: unknown): Pending | null {
  if (data === null || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  if (isAuditEvent(d.event)) {
    const clientId = typeof d.client_id === 'string' ? d.client_id : typeof d.clientId === 'string' ? d.clientId : null;
    return { id: d.event.decision_id, event: clientId !== null ? { ...d.event, client_id: clientId } : d.event };
  }
  const id = typeof d.decisionId === 'string' ? d.decisionId : typeof d.decision_id === 'string' ? d.decision_id : null;
  return id === null ? null : { id };
}

/** What `asimov serve` was given on its command line. */
export interface OtlpFlags {
  endpoint?: string;
  /** `name=value`, each. */
  headers?: readonly string[];
  /** `name=VARIABLE`, each: the header's value read from the server's environment. */
  headersEnv?: readonly string[];
}

/**
 * The server's OTLP config: from its flags, else from `audit.otlp` of its own (user or managed) policy; null
 * when neither asks for an export. A bad flag, or a header variable that is unset, is AsimovError('usage').
 */
export function serverOtlpConfig(flags: OtlpFlags, env: NodeJS.ProcessEnv, cwd: string, log: (line: string) => void = () => {}): OtlpConfig | null {
  if (flags.endpoint === undefined) {
    if ((flags.headers?.length ?? 0) > 0 || (flags.headersEnv?.length ?? 0) > 0) throw new AsimovError('usage', '--otlp-header and --otlp-header-env go with --otlp-endpoint URL');
    let settings;
    try {
      settings = loadPolicy({ cwd, env }).audit;
    } catch (e) {
      // The gate reports a broken policy (and denies); the export just does not start from it.
      log(`asimov serve: the policy cannot be read, so its audit.otlp (if any) is not used: ${describeError(e)}`);
      return null;
    }
    if (settings?.otlp === undefined) return null;
    const r = otlpConfigFromSettings(settings.otlp, env, settings.source);
    if (!r.ok) throw new AsimovError('usage', r.reason);
    return r.config;
  }
  const headers: Record<string, string> = {};
  for (const [list, flag] of [[flags.headers, '--otlp-header'], [flags.headersEnv, '--otlp-header-env']] as const) {
    for (const h of list ?? []) {
      const eq = h.indexOf('=');
      const name = eq > 0 ? h.slice(0, eq).trim() : '';
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new AsimovError('usage', `${flag} takes 'name=${flag === '--otlp-header' ? 'value' : 'VARIABLE'}', not '${h}'`);
      let value = h.slice(eq + 1).trim();
      if (flag === '--otlp-header-env') {
        const v = env[value]?.trim();
        if (!v) throw new AsimovError('usage', `${flag} ${h}: ${value} is not set`);
        value = v;
      }
      headers[name] = value;
    }
  }
  return { endpoint: otlpLogsUrl(flags.endpoint), headers };
}
