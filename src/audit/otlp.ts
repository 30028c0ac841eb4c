// Decision events as OpenTelemetry logs (OTLP/HTTP, JSON): one LogRecord per audit record, sent with the
// official OpenTelemetry JS SDK so a SIEM or an observability stack receives what the audit log holds.
// The SDK is loaded by import() on the first export, never by a hook process that does not export.

import type { LoggerProvider, LogRecordProcessor, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import type { AnyValueMap, SeverityNumber } from '@opentelemetry/api-logs';
import { AsimovError, describeError } from '../core/errors.ts';
import type { AuditSettings } from '../policy/layers.ts';
import type { AuditEvent } from './event.ts';
import { summarizeInput } from './reader.ts';

/** Where the logs go and the headers that go with them (an API key, a tenant), resolved from settings. */
export interface OtlpConfig {
  /** The full OTLP/HTTP logs URL (ending in /v1/logs). */
  endpoint: string;
  headers: Record<string, string>;
}

/** What the resource (the sender) says about itself; each field is optional. */
export interface OtlpResourceInfo {
  /** `host.name`. */
  hostName?: string;
  /** `user.name`: the OS user the decisions were made for. */
  user?: string;
  /** `service.version`: asimov's version. */
  version?: string;
  /** `asimov.client_id`: this machine's id with the team server. */
  clientId?: string;
}

export interface OtlpExporterOptions extends OtlpConfig {
  /** `service.name`; default `asimov`. */
  serviceName?: string;
  resource?: OtlpResourceInfo;
  /** How long one export may take, retries included (the SDK retries 429, 502-504 and refused connections); default 10 s. */
  timeoutMillis?: number;
}

/** An audit record to export, with the id of the machine that made it when the server received it from one. */
export type OtlpEvent = AuditEvent & { client_id?: string | null };

export interface OtlpExporter {
  /** Endpoint URL the records go to (for messages). */
  readonly endpoint: string;
  /**
   * Sends one batch. Resolves only when the receiver accepted it (a 2xx answer), so a caller can move its
   * cursor; rejects with AsimovError('upstream_failed') naming the endpoint and the HTTP status or network error.
   */
  export(events: readonly OtlpEvent[]): Promise<void>;
  /** Waits for exports in flight, then releases the SDK's connections. */
  shutdown(): Promise<void>;
}

/** The instrumentation scope of every record. */
export const OTLP_SCOPE = 'asimov.audit';
/** The OpenTelemetry event name of a decision record. */
export const OTLP_EVENT_NAME = 'asimov.decision';
const DEFAULT_TIMEOUT_MS = 10_000;
const LOGS_PATH = '/v1/logs';

// SeverityNumber values (api-logs' enum), written out so this module needs no value import of the SDK.
const SEVERITY = { INFO: 9, WARN: 13, ERROR: 17 } as const;

/**
 * The logs URL from an endpoint as a person writes it: a collector's base URL gets `/v1/logs` appended
 * (the OTEL_EXPORTER_OTLP_ENDPOINT convention); a URL already ending in `/v1/logs` is used as it is.
 * Throws AsimovError('usage') for anything but an http(s) URL without credentials in it.
 */
export function otlpLogsUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint.trim());
  } catch {
    throw new AsimovError('usage', `the OTLP endpoint '${endpoint}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AsimovError('usage', `the OTLP endpoint must be an http:// or https:// URL, not '${endpoint}'`);
  if (url.username !== '' || url.password !== '') throw new AsimovError('usage', 'the OTLP endpoint must not carry credentials: give them as headers');
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(LOGS_PATH)) url.pathname = `${path}${LOGS_PATH}`;
  return url.href;
}

export type OtlpConfigResult = { ok: true; config: OtlpConfig } | { ok: false; reason: string };

/**
 * The exporter's config from `audit.otlp` of the policy: the logs URL, the literal headers, and the headers
 * whose values are read from environment variables (`headers_env: { authorization: OTLP_AUTH }`). A variable
 * that is unset is an error rather than a request without its credential.
 */
export function otlpConfigFromSettings(
  s: NonNullable<AuditSettings['otlp']>,
  env: NodeJS.ProcessEnv = process.env,
  source = 'the policy',
): OtlpConfigResult {
  let endpoint: string;
  try {
    endpoint = otlpLogsUrl(s.endpoint);
  } catch (e) {
    return { ok: false, reason: `audit.otlp.endpoint in ${source}: ${describeError(e)}` };
  }
  const headers: Record<string, string> = { ...s.headers };
  for (const [name, variable] of Object.entries(s.headersEnv)) {
    const v = env[variable]?.trim();
    if (!v) return { ok: false, reason: `audit.otlp.headers_env in ${source}: ${variable} (for the header ${name}) is not set` };
    headers[name] = v;
  }
  return { ok: true, config: { endpoint, headers } };
}

/** Severity by verdict: a hard_deny is an error, any other refusal or question a warning, an allow info. */
export function severityOf(e: Pick<AuditEvent, 'verdict' | 'tier'>): { number: number; text: string } {
  if (e.verdict === 'deny' && e.tier === 'hard_deny') return { number: SEVERITY.ERROR, text: 'ERROR' };
  if (e.verdict === 'allow') return { number: SEVERITY.INFO, text: 'INFO' };
  return { number: SEVERITY.WARN, text: 'WARN' };
}

/** The record's body: `DENY hard_deny fs.rm-root  rm -rf /  — reason` (audit tail's line without the time). */
export function otlpBody(e: AuditEvent): string {
  const reason = e.reason.replace(/\s+/g, ' ').trim();
  return `${e.verdict.toUpperCase()} ${e.tier} ${e.rule ?? '-'}  ${summarizeInput(e)}  — ${reason}`;
}

/**
 * The record's attributes: every field of the (already redacted) audit record under `asimov.`, nested
 * objects flattened with dots (`asimov.judge.model`), the input and findings as JSON text, null fields left
 * out. Nothing is added that the record does not hold (but the client id of a record the server received).
 */
export function otlpAttributes(e: OtlpEvent): AnyValueMap {
  const a: AnyValueMap = {};
  const put = (key: string, v: unknown): void => {
    if (v === null || v === undefined) return;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') a[`asimov.${key}`] = v;
    else a[`asimov.${key}`] = JSON.stringify(v);
  };
  put('decision_id', e.decision_id);
  put('v', e.v);
  put('agent', e.agent);
  put('session', e.session);
  put('call_id', e.call_id);
  put('tool', e.tool);
  put('client_tool', e.client_tool);
  put('cwd', e.cwd);
  put('verdict', e.verdict);
  put('tier', e.tier);
  put('rule', e.rule);
  put('reason', e.reason);
  put('layer', e.layer);
  put('findings', e.findings);
  put('ms', e.ms);
  put('policy_hash', e.policy_hash);
  put('error_code', e.error_code);
  if (e.judge) for (const [k, v] of Object.entries(e.judge)) put(`judge.${k}`, v);
  put('principal', e.principal);
  if (e.approval) for (const [k, v] of Object.entries(e.approval)) put(`approval.${k}`, v);
  put('input', e.input);
  if (e.erased.length > 0) a['asimov.erased'] = [...e.erased];
  put('prev', e.prev);
  put('hash', e.hash);
  put('client_id', e.client_id);
  return a;
}

interface Sdk {
  provider: LoggerProvider;
  exporter: OTLPLogExporter;
  /** Emits the events through the SDK's logger and returns the records it built. */
  build(events: readonly OtlpEvent[]): ReadableLogRecord[];
}

/**
 * An exporter to one OTLP/HTTP endpoint. Creating it loads nothing; the SDK is imported on the first export.
 *
 * The SDK's exporter also adds the standard OTEL_EXPORTER_OTLP_HEADERS / OTEL_EXPORTER_OTLP_LOGS_HEADERS of
 * this process to every request, as every OpenTelemetry exporter does.
 */
export function createOtlpExporter(o: OtlpExporterOptions): OtlpExporter {
  const endpoint = otlpLogsUrl(o.endpoint);
  let sdk: Promise<Sdk> | undefined;
  let closed = false;
  const inFlight = new Set<Promise<unknown>>();

  const load = async (): Promise<Sdk> => {
    const [{ LoggerProvider }, { OTLPLogExporter }, { resourceFromAttributes }] = await Promise.all([
      import('@opentelemetry/sdk-logs'),
      import('@opentelemetry/exporter-logs-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
    const r = o.resource ?? {};
    const resource = resourceFromAttributes({
      'service.name': o.serviceName ?? 'asimov',
      ...(r.version !== undefined ? { 'service.version': r.version } : {}),
      ...(r.hostName !== undefined ? { 'host.name': r.hostName } : {}),
      ...(r.user !== undefined ? { 'user.name': r.user } : {}),
      ...(r.clientId !== undefined ? { 'asimov.client_id': r.clientId } : {}),
    });
    // The records an emit produces are collected here rather than handed to a batch processor: export()
    // must know when its own batch was accepted, which the SDK's processors do not tell.
    let collected: ReadableLogRecord[] | null = null;
    const collector: LogRecordProcessor = {
      onEmit: (record) => collected?.push(record),
      forceFlush: async () => {},
      shutdown: async () => {},
    };
    const provider = new LoggerProvider({ resource, processors: [collector] });
    const logger = provider.getLogger(OTLP_SCOPE, r.version);
    const exporter = new OTLPLogExporter({
      url: endpoint,
      headers: { ...o.headers },
      timeoutMillis: o.timeoutMillis ?? DEFAULT_TIMEOUT_MS,
    });
    return {
      provider,
      exporter,
      build(events) {
        const out: ReadableLogRecord[] = [];
        collected = out;
        try {
          for (const e of events) {
            const sev = severityOf(e);
            const t = Date.parse(e.ts);
            logger.emit({
              eventName: OTLP_EVENT_NAME,
              ...(Number.isNaN(t) ? {} : { timestamp: new Date(t) }),
              severityNumber: sev.number as SeverityNumber,
              severityText: sev.text,
              body: otlpBody(e),
              attributes: otlpAttributes(e),
            });
          }
        } finally {
          collected = null;
        }
        return out;
      },
    };
  };

  const send = async (events: readonly OtlpEvent[]): Promise<void> => {
    let s: Sdk;
    try {
      s = await (sdk ??= load());
    } catch (e) {
      sdk = undefined;
      throw new AsimovError('upstream_failed', `cannot load the OpenTelemetry SDK: ${describeError(e)}`, undefined, { cause: e });
    }
    const records = s.build(events);
    await new Promise<void>((resolve, reject) => {
      s.exporter.export(records, (result) => {
        if (result.code === 0) resolve();
        else reject(exportError(endpoint, result.error));
      });
    });
  };

  return {
    endpoint,
    export(events) {
      if (closed) return Promise.reject(new AsimovError('upstream_failed', `the OTLP exporter for ${endpoint} is shut down`));
      if (events.length === 0) return Promise.resolve();
      const p = send(events);
      const tracked = p.catch(() => {});
      inFlight.add(tracked);
      void tracked.finally(() => inFlight.delete(tracked));
      return p;
    },
    async shutdown() {
      if (closed) return;
      closed = true;
      await Promise.all(inFlight);
      if (sdk === undefined) return;
      const s = await sdk.catch(() => null);
      if (s === null) return;
      await s.exporter.shutdown().catch(() => {});
      await s.provider.shutdown().catch(() => {});
    },
  };
}

/** What went wrong, for a person: the endpoint and the HTTP status, or the network error. */
function exportError(endpoint: string, err: unknown): AsimovError {
  const e = err as (Error & { code?: unknown; data?: unknown }) | undefined;
  let what: string;
  if (e && typeof e.code === 'number') {
    const body = typeof e.data === 'string' && e.data.trim() !== '' ? `: ${e.data.trim().slice(0, 200)}` : '';
    what = `the receiver answered HTTP ${e.code}${e.message ? ` ${e.message}` : ''}${body}`;
  } else if (e && typeof e.code === 'string') {
    what = `cannot reach the receiver (${e.code}: ${e.message})`;
  } else {
    what = e?.message ? e.message : 'the export failed';
  }
  return new AsimovError('upstream_failed', `OTLP export to ${endpoint} failed: ${what}`, undefined, { cause: err });
}
