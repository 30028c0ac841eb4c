// The embedded database of `asimov serve`: PGlite (PostgreSQL compiled to WebAssembly) in a directory of its
// own, or in memory. Nothing to install or run beside asimov, and its SQL is PostgreSQL's, so the schema and
// every query carry over to the PostgreSQL server of the teams setup.
//
// PGlite is one process's database: two processes opening one directory would corrupt it. The directory is
// therefore held with a lock file for as long as it is open (store/dir-lock.ts); a second `asimov serve`, or
// a CLI command while the server runs, is told who holds it.

import { mkdirSync } from 'node:fs';
import { AsimovError, describeError } from '../core/errors.ts';
import { MIGRATIONS, type Migration } from './migrations.ts';
import { lockDirectory, type DirLock } from './dir-lock.ts';

/** The part of a connection that runs statements: the database itself, or a transaction. */
export interface Queryable {
  /** One statement with `$1`-style parameters; its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Database extends Queryable {
  /** Statements without parameters, several at once (schema changes). */
  exec(sql: string): Promise<void>;
  /** Runs fn in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Where it lives, for messages: a directory, or `memory`. */
  readonly location: string;
}

export interface OpenDatabaseOptions {
  /** The data directory (created owner-only); omitted: in memory, gone when closed (tests, one-off runs). */
  dir?: string;
  /** Migrations to apply (tests); default the released ones. */
  migrations?: readonly Migration[];
}

interface PGliteLike {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(fn: (tx: { query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> }) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function openDatabase(o: OpenDatabaseOptions = {}): Promise<Database> {
  let lock: DirLock | undefined;
  if (o.dir !== undefined) {
    mkdirSync(o.dir, { recursive: true, mode: 0o700 });
    lock = lockDirectory(o.dir);
  }
  let pg: PGliteLike;
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    pg = (await PGlite.create(o.dir === undefined ? undefined : `file://${o.dir}`)) as unknown as PGliteLike;
  } catch (e) {
    lock?.release();
    throw new AsimovError('io_error', `The database${o.dir ? ` in ${o.dir}` : ''} could not be opened: ${describeError(e)}`, undefined, { cause: e });
  }
  const db: Database = {
    location: o.dir ?? 'memory',
    query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params)).rows,
    exec: async (sql) => {
      await pg.exec(sql);
    },
    transaction: (fn) => pg.transaction((tx) => fn({ query: async <T>(sql: string, params?: unknown[]) => (await tx.query<T>(sql, params)).rows })),
    close: async () => {
      try {
        await pg.close();
      } finally {
        lock?.release();
      }
    },
  };
  try {
    await migrate(db, o.migrations ?? MIGRATIONS);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}

/** Applies, in order and each in its own transaction, the migrations the database has not seen yet. */
export async function migrate(db: Database, migrations: readonly Migration[]): Promise<number[]> {
  await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  const done = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
  const newest = Math.max(0, ...done);
  const known = Math.max(0, ...migrations.map((m) => m.version));
  if (newest > known) {
    throw new AsimovError('io_error', `The database at ${db.location} has schema version ${newest}, newer than this asimov knows (${known}): upgrade asimov, or give it another directory.`);
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
