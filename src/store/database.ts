// The database of `asimov serve`, behind one interface: the embedded PGlite (PostgreSQL compiled to WebAssembly,
// the default: nothing to install or run beside asimov) or a PostgreSQL server (`--database postgres://…`,
// the teams setup, where several replicas share it). The SQL is PostgreSQL's either way, so the schema, the
// migrations and every query are the same; only opening, locking and LISTEN/NOTIFY differ
// (store/pglite-database.ts, store/postgres-database.ts).

import { AsimovError } from '../core/errors.ts';
import { MIGRATIONS, type Migration } from './migrations.ts';

/** The part of a connection that runs statements: the database itself, or a transaction. */
export interface Queryable {
  /** One statement with `$1`-style parameters; its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/**
 * What a LISTEN subscriber is told: a notification's payload, or that the connection was lost and is back,
 * so notifications sent in between are gone and what they would have said must be read again.
 */
export type ChannelSignal = { payload: string; reconnected?: undefined } | { payload?: undefined; reconnected: true };

export interface Database extends Queryable {
  /** Statements without parameters, several at once (schema changes). */
  exec(sql: string): Promise<void>;
  /** Runs fn in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Subscribes to a channel (PostgreSQL LISTEN); resolves once listening, with the unsubscribe function.
   * Delivery is at most once: after a lost connection the subscriber gets `{ reconnected: true }`.
   */
  listen(channel: string, fn: (s: ChannelSignal) => void): Promise<() => Promise<void>>;
  /** Sends a notification on a channel (PostgreSQL NOTIFY) to every listener, in this process or another. */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
  /** Which backend: the embedded one (one process) or a PostgreSQL server (possibly shared by replicas). */
  readonly kind: 'pglite' | 'postgres';
  /** Where it lives, for messages: a directory, `memory`, or the server's URL without its password. */
  readonly location: string;
}

export interface OpenDatabaseOptions {
  /** PGlite's data directory (created owner-only); omitted with no url: in memory, gone when closed. */
  dir?: string;
  /** A PostgreSQL server instead of PGlite: postgres://user[:password]@host[:port]/db */
  url?: string;
  /** Migrations to apply (tests); default the released ones. */
  migrations?: readonly Migration[];
  /** One line per problem the caller cannot see otherwise (a lost LISTEN connection); default nothing. */
  log?: (line: string) => void;
}

/** PostgreSQL's limit on a NOTIFY payload is 8000 bytes; asimov's stay under this. */
export const NOTIFY_PAYLOAD_MAX = 7900;

export async function openDatabase(o: OpenDatabaseOptions = {}): Promise<Database> {
  if (o.url !== undefined && o.dir !== undefined) throw new AsimovError('usage', 'a database is a directory (PGlite) or a URL (PostgreSQL), not both');
  if (o.url !== undefined) {
    const { openPostgresDatabase } = await import('./postgres-database.ts');
    return openPostgresDatabase({ url: o.url, migrations: o.migrations ?? MIGRATIONS, ...(o.log ? { log: o.log } : {}) });
  }
  const { openPGliteDatabase } = await import('./pglite-database.ts');
  return openPGliteDatabase({ ...(o.dir !== undefined ? { dir: o.dir } : {}), migrations: o.migrations ?? MIGRATIONS });
}

/** Channel names go into LISTEN/UNLISTEN as identifiers: asimov's own, lower-case words only. */
export function checkChannel(channel: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new AsimovError('internal', `not a channel name: '${channel}'`);
  return channel;
}

export function checkPayload(payload: string): string {
  if (Buffer.byteLength(payload) > NOTIFY_PAYLOAD_MAX) throw new AsimovError('internal', `a notification payload of ${Buffer.byteLength(payload)} bytes is over ${NOTIFY_PAYLOAD_MAX}`);
  return payload;
}

/** What migrate needs of a database: one connection's worth (PostgreSQL migrates on the client holding its lock). */
export type MigrationTarget = Pick<Database, 'query' | 'exec' | 'transaction' | 'location'>;

/** Applies, in order and each in its own transaction, the migrations the database has not seen yet. */
export async function migrate(db: MigrationTarget, migrations: readonly Migration[]): Promise<number[]> {
  await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  const done = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
  const newest = Math.max(0, ...done);
  const known = Math.max(0, ...migrations.map((m) => m.version));
  if (newest > known) {
    throw new AsimovError('io_error', `The database at ${db.location} has schema version ${newest}, newer than this asimov knows (${known}): upgrade asimov, or give it another database.`);
  }
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(m.version)) continue;
    await db.transaction(async (tx) => {
      // One statement at a time: PGlite's extended protocol takes a single statement per query.
      for (const stmt of splitStatements(m.sql)) await tx.query(stmt);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    });
    applied.push(m.version);
  }
  return applied;
}

/** A migration's statements: split on `;` at the end of a line, with `--` comment lines dropped. */
export function splitStatements(sql: string): string[] {
  const lines = sql.split('\n').filter((l) => !l.trim().startsWith('--'));
  return lines
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
