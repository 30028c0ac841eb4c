// The team server's side of audit shipping: records from every machine's log, verified as they arrive.
//
// Each client (one machine's log, named by a random client id and bound to the token that first sent it) has a
// chain head here: the position and hash of the last record stored. A record extends the chain when its `prev`
// is the head and its content matches its own hash; then it is stored and becomes the head. What a client's
// log can no longer hide once shipped:
// - edited:    a line whose content does not match its hash (changed by hand, not re-sealed);
// - rewritten: a record the server already has comes again with other content (edited and re-sealed);
// - fork:      a new record that does not follow the head: records before it were cut, changed or re-sealed;
// - restarted: a new record that starts a chain while the server holds one: the log was deleted or replaced;
// - truncated: the client's log now ends at an earlier record than the server's head: lines were cut off the
//   end (which no local check can see);
// - bad_line:  a line that is not an audit record at all.
// Records are stored as received, in arrival order, and the head then follows the client's current chain, so
// a later break is found too. Nothing is ever deleted or updated in audit_records: what arrived stays.
//
// Idempotent by decision id: a record sent twice (a shipper killed before it saved its cursor) is counted as
// a duplicate, whatever the batch boundaries.

import { GENESIS_HASH, eventHash, isAuditEvent, type AuditEvent } from '../audit/event.ts';
import type { Database, Queryable } from '../store/database.ts';
import { itemOf, type DecisionItem } from './decision-index.ts';
import { HttpError } from './route.ts';

export type ChainProblemKind = 'edited' | 'rewritten' | 'fork' | 'restarted' | 'truncated' | 'bad_line';

export interface IngestClient {
  id: string;
  host: string | null;
  user: string | null;
}

export interface IngestRequest {
  client: IngestClient;
  /** The log's lines, exactly as the file holds them, in file order. */
  records: string[];
  /** The client's log as it ends now (sent when the batch reaches its end). */
  local?: { lines: number; head: string | null };
}

export interface ChainProblem {
  kind: ChainProblemKind;
  seq: number | null;
  decisionId: string | null;
  message: string;
}

export interface ChainState {
  status: 'ok' | 'broken';
  problem: string | null;
  headSeq: number;
  headHash: string;
}

export interface IngestResult {
  accepted: number;
  duplicates: number;
  chain: ChainState;
  /** Problems found in this request (the first ones of each request are stored; the rest counted). */
  problems: ChainProblem[];
  /** The decisions newly stored, for the live feed and exporters. */
  added: Array<DecisionItem & { clientId: string; event: AuditEvent }>;
}

/** Problems of one request kept one by one; more than this are summarised in one more. */
const MAX_PROBLEMS_KEPT = 20;

interface ParsedLine {
  text: string;
  event: AuditEvent | null;
  /** The hash the content really has (null when the line is not an event). */
  actual: string | null;
}

function parseLine(text: string): ParsedLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { text, event: null, actual: null };
  }
  if (!isAuditEvent(parsed) || typeof (parsed as { decision_id?: unknown }).decision_id !== 'string' || Number.isNaN(Date.parse(parsed.ts))) {
    return { text, event: null, actual: null };
  }
  return { text, event: parsed, actual: eventHash(parsed as unknown as Record<string, unknown>) };
}

interface ClientRow {
  token_name: string;
  head_seq: string | number;
  head_hash: string;
  status: 'ok' | 'broken';
  problem: string | null;
}

/**
 * Verifies and stores one batch of a client's records, in one transaction under the client's row lock (so two
 * replicas receiving the same client's batches apply them one after the other).
 */
export async function ingestRecords(db: Database, tokenName: string, req: IngestRequest): Promise<IngestResult> {
  // Parsing and hashing happen before the transaction: the lock is held for the database work only.
  const lines = req.records.map(parseLine);
  return db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO audit_clients (client_id, token_name, host, os_user, head_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (client_id) DO NOTHING`,
      [req.client.id, tokenName, req.client.host, req.client.user, GENESIS_HASH],
    );
    const [row] = await tx.query<ClientRow>('SELECT token_name, head_seq, head_hash, status, problem FROM audit_clients WHERE client_id = $1 FOR UPDATE', [req.client.id]);
    if (!row) throw new Error(`the client ${req.client.id} vanished inside its own transaction`);
    if (row.token_name !== tokenName) {
      // A machine's chain is written with its own token: another token cannot extend (or spoil) it.
      throw new HttpError(403, 'forbidden', `Client ${req.client.id} ships with the token '${row.token_name}', not '${tokenName}'.`);
    }
    const ids = lines.flatMap((l) => (l.event ? [l.event.decision_id] : []));
    const known = new Map<string, string>();
    if (ids.length > 0) {
      const rows = await tx.query<{ decision_id: string; hash: string }>(
        'SELECT decision_id, hash FROM audit_records WHERE client_id = $1 AND decision_id = ANY($2::text[])',
        [req.client.id, ids],
      );
      for (const r of rows) known.set(r.decision_id, r.hash);
    }

    let seq = Number(row.head_seq);
    let head = row.head_hash;
    let duplicates = 0;
    const problems: ChainProblem[] = [];
    const fresh: Array<{ seq: number; event: AuditEvent }> = [];
    for (const l of lines) {
      const e = l.event;
      if (!e) {
        problems.push({ kind: 'bad_line', seq: null, decisionId: null, message: 'a line of the log is not an audit record: it was edited or corrupted' });
        continue;
      }
      if (l.actual !== e.hash) {
        problems.push({ kind: 'edited', seq: null, decisionId: e.decision_id, message: `record ${e.decision_id} was edited: its content no longer matches its hash` });
        continue;
      }
      const had = known.get(e.decision_id);
      if (had !== undefined) {
        if (had === e.hash) duplicates++;
        else problems.push({ kind: 'rewritten', seq: null, decisionId: e.decision_id, message: `record ${e.decision_id} differs from the copy shipped before: the log was edited and re-sealed` });
        continue;
      }
      if (e.prev !== head) {
        if (e.prev === GENESIS_HASH) {
          problems.push({ kind: 'restarted', seq: seq + 1, decisionId: e.decision_id, message: `a new chain began after record #${seq}: the log was deleted or replaced` });
        } else {
          problems.push({ kind: 'fork', seq: seq + 1, decisionId: e.decision_id, message: `record #${seq + 1} does not follow record #${seq}: records before it were cut, changed or re-sealed` });
        }
      }
      seq++;
      head = e.hash;
      known.set(e.decision_id, e.hash);
      fresh.push({ seq, event: e });
    }

    if (req.local !== undefined && (req.local.head ?? GENESIS_HASH) !== head) {
      problems.push(await localEndProblem(tx, req.client.id, req.local, seq));
    }

    if (fresh.length > 0) await storeRecords(tx, req.client.id, fresh);
    const added = fresh.length > 0 ? await indexDecisions(tx, req.client.id, tokenName, fresh.map((f) => f.event)) : [];

    const kept = problems.slice(0, MAX_PROBLEMS_KEPT);
    if (problems.length > MAX_PROBLEMS_KEPT) {
      const n = problems.length - MAX_PROBLEMS_KEPT;
      kept.push({ kind: problems[MAX_PROBLEMS_KEPT]!.kind, seq: null, decisionId: null, message: `and ${n} more problem${n === 1 ? '' : 's'} in the same batch` });
    }
    for (const p of kept) {
      await tx.query('INSERT INTO audit_chain_problems (client_id, kind, seq, decision_id, message) VALUES ($1, $2, $3, $4, $5)', [req.client.id, p.kind, p.seq, p.decisionId, p.message]);
    }
    // The first problem names the break; later ones add to the evidence without replacing it.
    const broken = row.status === 'broken' || problems.length > 0;
    const problem = row.status === 'broken' ? row.problem : (problems[0]?.message ?? null);
    await tx.query(
      `UPDATE audit_clients SET head_seq = $2, head_hash = $3, last_contact = now(), host = $4, os_user = $5,
         local_lines = COALESCE($6, local_lines), local_head = COALESCE($7, local_head), status = $8, problem = $9,
         problem_at = CASE WHEN $8 = 'broken' AND status = 'ok' THEN now() ELSE problem_at END
       WHERE client_id = $1`,
      [req.client.id, seq, head, req.client.host, req.client.user, req.local?.lines ?? null, req.local?.head ?? null, broken ? 'broken' : 'ok', problem],
    );
    return {
      accepted: fresh.length,
      duplicates,
      chain: { status: broken ? 'broken' : 'ok', problem, headSeq: seq, headHash: head },
      problems: kept,
      added,
    };
  });
}

/** Why the client's log does not end with the head: a cut (it ends at an earlier shipped record), or another ending. */
async function localEndProblem(tx: Queryable, clientId: string, local: { lines: number; head: string | null }, seq: number): Promise<ChainProblem> {
  if (local.head === null) {
    return { kind: 'truncated', seq, decisionId: null, message: `the local log is empty, but ${seq} record${seq === 1 ? ' was' : 's were'} shipped from it: it was emptied or cut` };
  }
  const [at] = await tx.query<{ seq: string | number; decision_id: string }>('SELECT seq, decision_id FROM audit_records WHERE client_id = $1 AND hash = $2 ORDER BY seq DESC LIMIT 1', [clientId, local.head]);
  if (at) {
    const s = Number(at.seq);
    const cut = seq - s;
    return { kind: 'truncated', seq: s, decisionId: at.decision_id, message: `the local log now ends at record #${s}: the ${cut} record${cut === 1 ? '' : 's'} after it, already shipped, were cut from it` };
  }
  return { kind: 'rewritten', seq, decisionId: null, message: `the local log (${local.lines} lines) ends with a record the server never received: it was rewritten` };
}

/** One multi-row INSERT per chunk; arrays through unnest keep the statement the same whatever the batch size. */
async function storeRecords(tx: Queryable, clientId: string, rows: ReadonlyArray<{ seq: number; event: AuditEvent }>): Promise<void> {
  await tx.query(
    `INSERT INTO audit_records (client_id, seq, decision_id, hash, prev, ts, event)
     SELECT $1, s, d, h, p, t::timestamptz, e::jsonb FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(s, d, h, p, t, e)`,
    [
      clientId,
      rows.map((r) => r.seq),
      rows.map((r) => r.event.decision_id),
      rows.map((r) => r.event.hash),
      rows.map((r) => r.event.prev),
      rows.map((r) => r.event.ts),
      rows.map((r) => JSON.stringify(r.event)),
    ],
  );
}

/** The team's decisions join the server's own in the dashboard's index, with who sent them. */
async function indexDecisions(tx: Queryable, clientId: string, tokenName: string, events: readonly AuditEvent[]): Promise<IngestResult['added']> {
  const items = events.map((e) => ({ ...itemOf(e), principal: tokenName }));
  const rows = await tx.query<{ decision_id: string }>(
    `INSERT INTO decisions (decision_id, ts, verdict, tier, rule, agent, session, tool, principal, summary, event, client_id)
     SELECT d, t::timestamptz, v, ti, r, a, s, tl, $1, su, e::jsonb, $2
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
         AS x(d, t, v, ti, r, a, s, tl, su, e)
     ON CONFLICT (decision_id) DO NOTHING RETURNING decision_id`,
    [
      tokenName,
      clientId,
      items.map((i) => i.decisionId),
      items.map((i) => i.ts),
      items.map((i) => i.verdict),
      items.map((i) => i.tier),
      items.map((i) => i.rule),
      items.map((i) => i.agent),
      items.map((i) => i.session),
      items.map((i) => i.tool),
      items.map((i) => i.summary),
      events.map((e) => JSON.stringify(e)),
    ],
  );
  const added = new Set(rows.map((r) => r.decision_id));
  return items.flatMap((item, k) => (added.has(item.decisionId) ? [{ ...item, clientId, event: events[k]! }] : []));
}

export interface ClientChainReport extends ChainState {
  clientId: string;
  tokenName: string;
  host: string | null;
  user: string | null;
  firstSeen: string;
  lastContact: string;
  problemAt: string | null;
  localLines: number | null;
  problems: Array<ChainProblem & { at: string }>;
}

/** One client's chain as the server holds it, with its most recent problems (newest first). */
export async function clientChainReport(db: Queryable, clientId: string, limit = 50): Promise<ClientChainReport | null> {
  const [c] = await db.query<{
    client_id: string; token_name: string; host: string | null; os_user: string | null; first_seen: Date | string; last_contact: Date | string;
    head_seq: string | number; head_hash: string; status: 'ok' | 'broken'; problem: string | null; problem_at: Date | string | null; local_lines: string | number | null;
  }>('SELECT * FROM audit_clients WHERE client_id = $1', [clientId]);
  if (!c) return null;
  const problems = await db.query<{ kind: ChainProblemKind; seq: string | number | null; decision_id: string | null; message: string; at: Date | string }>(
    'SELECT kind, seq, decision_id, message, at FROM audit_chain_problems WHERE client_id = $1 ORDER BY id DESC LIMIT $2',
    [clientId, limit],
  );
  return {
    clientId: c.client_id,
    tokenName: c.token_name,
    host: c.host,
    user: c.os_user,
    firstSeen: iso(c.first_seen),
    lastContact: iso(c.last_contact),
    headSeq: Number(c.head_seq),
    headHash: c.head_hash,
    status: c.status,
    problem: c.problem,
    problemAt: c.problem_at === null ? null : iso(c.problem_at),
    localLines: c.local_lines === null ? null : Number(c.local_lines),
    problems: problems.map((p) => ({ kind: p.kind, seq: p.seq === null ? null : Number(p.seq), decisionId: p.decision_id, message: p.message, at: iso(p.at) })),
  };
}

function iso(d: Date | string): string {
  return (d instanceof Date ? d : new Date(d)).toISOString();
}
