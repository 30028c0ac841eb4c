// The machine's OpenTelemetry export: the same log, read by its own cursor (audit/log-cursor.ts), sent to the
// OTLP receiver named by `audit.otlp`, the cursor moved only once the receiver accepted the batch. It runs in
// the background shipper beside the team server's shipping, so a call's path never loads the SDK.

import { isAuditEvent, type AuditEvent } from './event.ts';
import { cursorAfter, loadCursor, readBatch, saveCursor } from './log-cursor.ts';
import type { OtlpExporter } from './otlp.ts';
import { cursorPathOf, serverKey } from './ship-state.ts';

const OTLP_MAX_LINES = 512;
const OTLP_MAX_BYTES = 1024 * 1024;

export interface OtlpPassResult {
  sent: number;
  atEnd: boolean;
}

/** Exports the next batch after this receiver's cursor; throws (keeping the cursor) when the receiver refused it. */
export async function exportNextBatch(logPath: string, exporter: OtlpExporter): Promise<OtlpPassResult> {
  const cursorPath = cursorPathOf(logPath, `otlp-${serverKey(exporter.endpoint)}`);
  const batch = readBatch(logPath, loadCursor(cursorPath), { maxLines: OTLP_MAX_LINES, maxBytes: OTLP_MAX_BYTES });
  // A rewritten log is read again from its start: the receiver gets those records again (it is a stream of
  // events, not a chain; the team server is where a rewrite is judged).
  const events: AuditEvent[] = [];
  for (const l of batch.lines) {
    try {
      const e: unknown = JSON.parse(l.text);
      if (isAuditEvent(e)) events.push(e);
    } catch {
      /* not a record: nothing to export */
    }
  }
  if (events.length > 0) await exporter.export(events);
  saveCursor(cursorPath, cursorAfter(batch));
  return { sent: events.length, atEnd: batch.atEnd };
}

/** Exports until the log's end (or the first refusal, thrown). */
export async function exportBacklog(logPath: string, exporter: OtlpExporter): Promise<number> {
  let sent = 0;
  for (;;) {
    const r = await exportNextBatch(logPath, exporter);
    sent += r.sent;
    if (r.atEnd) return sent;
  }
}
