// New decision rows, from one replica to all: several `asimov serve` on one PostgreSQL each publish on their
// own bus (the live feed) only what they inserted themselves. Whoever inserts rows into `decisions` (the
// audit feed, the team ingest) publishes them on its bus and then, after its commit, calls announceDecisions:
// NOTIFY on DECISIONS_CHANNEL with their ids. Every replica follows the channel (followDecisions), reads the
// rows its bus has not carried yet and publishes each once.
//
// Notifications are lost while a replica's LISTEN connection is down; when it is back, the replica reads the
// rows of the last RECOVER_WINDOW_MS (by decision time) and publishes those its bus has not carried. A row
// ingested late with an older time is then missed by the live feed (not by the lists, which read the table).

import type { AuditEvent } from '../audit/event.ts';
import { NOTIFY_PAYLOAD_MAX, type ChannelSignal, type Database } from '../store/database.ts';
import { itemOf, type DecisionItem } from './decision-index.ts';
import type { EventBus } from './events.ts';

export const DECISIONS_CHANNEL = 'asimov_decisions';
/** Decision ids a replica remembers having published (bounded: the oldest are forgotten first). */
const REMEMBERED = 50_000;
/** How far back a replica looks after a lost LISTEN connection. */
export const RECOVER_WINDOW_MS = 10 * 60_000;
/** Rows published at most after a lost LISTEN connection. */
const RECOVER_LIMIT = 1000;

/**
 * Tells the other replicas about new decision rows (committed, and already published on this bus): one or
 * more NOTIFYs whose payloads are JSON arrays of decision ids, each under PostgreSQL's 8000-byte limit.
 */
export async function announceDecisions(db: Pick<Database, 'notify' | 'kind'>, ids: readonly string[]): Promise<void> {
  // The embedded database is one process's: no other replica to tell (and every query there is serialised).
  if (db.kind !== 'postgres') return;
  let batch: string[] = [];
  let size = 2;
  for (const id of ids) {
    const cost = Buffer.byteLength(JSON.stringify(id)) + 1;
    if (cost + 2 > NOTIFY_PAYLOAD_MAX) continue; // not an id asimov makes
    if (size + cost > NOTIFY_PAYLOAD_MAX) {
      await db.notify(DECISIONS_CHANNEL, JSON.stringify(batch));
      batch = [];
      size = 2;
    }
    batch.push(id);
    size += cost;
  }
  if (batch.length > 0) await db.notify(DECISIONS_CHANNEL, JSON.stringify(batch));
}

/** A decision row as the bus carries it: the item, and the team client that shipped it (when not ours). */
export function decisionItemOfRow(r: { event: AuditEvent; client_id?: string | null }): DecisionItem & { clientId?: string } {
  return { ...itemOf(r.event), ...(r.client_id ? { clientId: r.client_id } : {}) };
}

export interface DecisionFollower {
  close(): Promise<void>;
}

/** Follows DECISIONS_CHANNEL onto this replica's bus; resolves once listening. */
export async function followDecisions(o: { db: Database; events: EventBus; log?: (line: string) => void; now?: () => Date }): Promise<DecisionFollower> {
  const now = o.now ?? (() => new Date());
  const startedAt = now().getTime();
  const seen = new Set<string>();
  const remember = (id: string): void => {
    seen.add(id);
    if (seen.size > REMEMBERED) seen.delete(seen.values().next().value!);
  };
  // Everything this bus carries, whoever published it (the audit feed, the ingest, this follower).
  const unsubscribe = o.events.subscribe((e) => {
    const id = e.type === 'decision' ? (e.data as { decisionId?: unknown } | null)?.decisionId : undefined;
    if (typeof id === 'string') remember(id);
  });

  const publishRows = (rows: { event: AuditEvent; client_id: string | null }[]): void => {
    for (const r of rows) {
      if (seen.has(r.event.decision_id)) continue;
      o.events.publish({ type: 'decision', data: decisionItemOfRow(r) });
    }
  };

  const catchUp = async (s: ChannelSignal): Promise<void> => {
    if (s.reconnected) {
      const since = new Date(Math.max(startedAt, now().getTime() - RECOVER_WINDOW_MS));
      publishRows(await o.db.query('SELECT event, client_id FROM decisions WHERE ts >= $1 ORDER BY ts, decision_id LIMIT $2', [since, RECOVER_LIMIT]));
      return;
    }
    let ids: unknown;
    try {
      ids = JSON.parse(s.payload);
    } catch {
      return; // not ours
    }
    if (!Array.isArray(ids)) return;
    const fresh = ids.filter((id): id is string => typeof id === 'string' && !seen.has(id));
    if (fresh.length === 0) return;
    publishRows(await o.db.query('SELECT event, client_id FROM decisions WHERE decision_id = ANY($1::text[]) ORDER BY ts, decision_id', [fresh]));
  };

  // One notification at a time, in order: two carrying one id cannot both find it unseen.
  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  const unlisten = await o.db.listen(DECISIONS_CHANNEL, (s) => {
    queue = queue.then(() => (closed ? undefined : catchUp(s))).catch((e: unknown) => {
      o.log?.(`asimov serve: decisions announced by another replica could not be read: ${e instanceof Error ? e.message : String(e)}`);
    });
  });
  return {
    close: async () => {
      closed = true;
      unsubscribe();
      await unlisten().catch(() => {});
      await queue;
    },
  };
}
