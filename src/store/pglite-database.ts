// The embedded database: PGlite in a directory of its own, or in memory.
//
// PGlite is one process's database: two processes opening one directory would corrupt it. The directory is
// therefore held with a lock file for as long as it is open (store/dir-lock.ts); a second `asimov serve`, or
// a CLI command while the server runs, is told who holds it. LISTEN and NOTIFY work within the process, which
// is all one process needs.

import { mkdirSync } from 'node:fs';
import { AsimovError, describeError } from '../core/errors.ts';
import type { Migration } from './migrations.ts';
import { checkChannel, checkPayload, migrate, type Database } from './database.ts';
import { lockDirectory, type DirLock } from './dir-lock.ts';

interface PGliteLike {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(fn: (tx: { query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> }) => Promise<T>): Promise<T>;
  listen(channel: string, fn: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export async function openPGliteDatabase(o: { dir?: string; migrations: readonly Migration[] }): Promise<Database> {
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
    kind: 'pglite',
    location: o.dir ?? 'memory',
    query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params)).rows,
    exec: async (sql) => {
      await pg.exec(sql);
    },
    transaction: (fn) => pg.transaction((tx) => fn({ query: async <T>(sql: string, params?: unknown[]) => (await tx.query<T>(sql, params)).rows })),
    listen: async (channel, fn) => pg.listen(checkChannel(channel), (payload) => fn({ payload })),
    notify: async (channel, payload) => {
      await pg.query('SELECT pg_notify($1, $2)', [checkChannel(channel), checkPayload(payload)]);
    },
    close: async () => {
      try {
        await pg.close();
      } finally {
        lock?.release();
      }
    },
  };
  try {
    await migrate(db, o.migrations);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}
