// A real OTLP/HTTP logs receiver for tests: a node:http server on 127.0.0.1 that accepts POST /v1/logs with a
// JSON ExportLogsServiceRequest, keeps each request (raw text, headers, parsed body), and answers with the
// status a test sets (200 by default).

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values: OtlpKeyValue['value'][] } };
}

export interface OtlpLogRecord {
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber: number;
  severityText: string;
  body: { stringValue: string };
  eventName?: string;
  attributes: OtlpKeyValue[];
}

export interface OtlpRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as it came over the wire. */
  raw: string;
  body: {
    resourceLogs: { resource: { attributes: OtlpKeyValue[] }; scopeLogs: { scope: { name: string; version?: string }; logRecords: OtlpLogRecord[] }[] }[];
  };
}

export interface OtlpReceiver {
  /** The base URL (no path). */
  url: string;
  requests: OtlpRequest[];
  /** The status of the next answers; 200 accepts. */
  status: number;
  /** Every log record received, in order. */
  records(): OtlpLogRecord[];
  /** Resolves when at least n records have arrived (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<OtlpLogRecord[]>;
  close(): Promise<void>;
}

/** An attribute list as a plain object: strings, numbers (int64 as numbers), booleans, arrays. */
export function attrs(list: OtlpKeyValue[]): Record<string, unknown> {
  const val = (v: OtlpKeyValue['value']): unknown => {
    if (v.stringValue !== undefined) return v.stringValue;
    if (v.intValue !== undefined) return Number(v.intValue);
    if (v.doubleValue !== undefined) return v.doubleValue;
    if (v.boolValue !== undefined) return v.boolValue;
    if (v.arrayValue !== undefined) return v.arrayValue.values.map(val);
    return undefined;
  };
  return Object.fromEntries(list.map((kv) => [kv.key, val(kv.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpRequest[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const records = () => requests.flatMap((r) => r.body.resourceLogs.flatMap((rl) => rl.scopeLogs.flatMap((sl) => sl.logRecords)));
  const r: OtlpReceiver = {
    url: '',
    requests,
    status: 200,
    records,
    waitFor(n, timeoutMs = 10_000) {
      if (records().length >= n) return Promise.resolve(records());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${records().length} records, not ${n}, in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(records())) });
      });
    },
    close: () => new Promise<void>((res) => {
      server.closeAllConnections();
      server.close(() => res());
    }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/logs' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(404).end();
        return;
      }
      if (r.status !== 200) {
        res.writeHead(r.status, { 'content-type': 'text/plain' }).end('receiver says no');
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      requests.push({ path: req.url, headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const n = records().length;
      for (const w of waiters.splice(0)) {
        if (n >= w.n) w.resolve();
        else waiters.push(w);
      }
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}
