// The server's audit sink: group commit. A server answers many calls at once, and taking the log's lock once
// per record made the lock file's create and unlink most of a decision's cost under load. Records made in
// the same turn of the event loop are appended together, under one lock and in one write (the writer's
// appendAll: all or none); each request waits for the write that holds its record before it answers, so
// no decision leaves the server unrecorded, and a failed write turns its decisions into refusals
// (server/routes/decide.ts), exactly as the gate's own synchronous sink does.

import type { AuditEventDraft } from '../audit/event.ts';
import { createAuditWriter, type AuditWriter } from '../audit/writer.ts';
import type { AuditSink } from '../gate/gate.ts';

export interface BatchedAuditSink extends AuditSink {
  /** Resolves once every record appended so far is on disk; rejects with the write's error. */
  settled(): Promise<void>;
  readonly path: string | null;
}

/** A batching sink for the log the environment names; null when auditing is off (ASIMOV_AUDIT_LOG=off). */
export function createBatchedAuditSink(env: NodeJS.ProcessEnv, writer: AuditWriter | null = createAuditWriter({ env })): BatchedAuditSink | null {
  if (writer === null) return null;
  let queue: AuditEventDraft[] = [];
  let pending: Promise<void> | null = null;

  const flush = (): void => {
    const drafts = queue;
    queue = [];
    pending = null;
    // Throws (nothing written) or writes all: the caller's promise carries the outcome.
    writer.appendAll(drafts);
  };

  return {
    path: writer.path,
    append(draft) {
      queue.push(draft as AuditEventDraft);
      pending ??= new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          try {
            flush();
            resolve();
          } catch (e) {
            reject(e);
          }
        });
      });
      // Unobserved rejections are observed by settled(); never let one crash the server.
      pending.catch(() => {});
    },
    settled() {
      return pending ?? Promise.resolve();
    },
  };
}
