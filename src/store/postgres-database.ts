// A PostgreSQL server as the database of `asimov serve` (`--database postgres://…`), which several replicas
// may share. No directory lock (the server arbitrates), a pool of connections for queries and transactions,
// migrations applied under an advisory lock so replicas starting together do not race, and one dedicated
// connection for LISTEN that comes back by itself when it is lost.
//
// Connections die: a PostgreSQL restart, a failover, an operator's pg_terminate_backend. An idle pooled one
// reports an 'error' event (handled: the pool drops it, the process does not crash); a query on one that dies
// under it fails with an AsimovError naming the server, and the next query gets a fresh connection.

import type { Client, ClientConfig, Pool, PoolClient } from 'pg';
import { AsimovError, describeError } from '../core/errors.ts';
import type { Migration } from './migrations.ts';
import { checkChannel, checkPayload, migrate, type ChannelSignal, type Database, type Queryable } from './database.ts';

/** The advisory lock key migrations are applied under (any fixed bigint; this one spells "asimov"). */
export const MIGRATION_LOCK_KEY = 0x6173696d6f76;
/** Connections in the pool: a replica's concurrent statements; requests beyond wait their turn. */
const POOL_MAX = 10;
const CONNECT_TIMEOUT_MS = 10_000;
/** The LISTEN connection's reconnect delays: doubling from the first to the last, then the last again. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/** The URL as messages show it: without its password (nor a password given as a parameter). */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '';
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '***');
    return u.href.replace(/:@/, '@');
  } catch {
    return '(an unparsable database URL)';
  }
}

/** Checks a --database value before anything is opened: a postgres:// or postgresql:// URL naming a host. */
export function checkDatabaseUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AsimovError('usage', `the database '${redactDatabaseUrl(url)}' is not a URL (postgres://user@host:port/db)`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new AsimovError('usage', `the database URL must start with postgres:// or postgresql://, not ${u.protocol}//`);
  }
}

/** SQLSTATEs and socket codes that mean the connection, not the statement, failed. */
const CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return e instanceof Error && /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect/i.test(e.message);
}

export async function openPostgresDatabase(o: { url: string; migrations: readonly Migration[]; log?: (line: string) => void }): Promise<Database> {
  checkDatabaseUrl(o.url);
  const location = redactDatabaseUrl(o.url);
  const log = o.log ?? (() => {});
  const { Pool: PoolClass, Client: ClientClass } = await import('pg');
  const config: ClientConfig = { connectionString: o.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, application_name: 'asimov serve' };
  const pool: Pool = new PoolClass({ ...config, max: POOL_MAX });
  // An idle connection killed under the pool: the pool drops it; without a handler the process would crash.
  pool.on('error', (e) => log(`asimov serve: a pooled connection to ${location} was lost: ${describeError(e)}`));
  // A connection killed while checked out (a query running, or between a transaction's statements) emits
  // 'error' on its client, sometimes after the query already failed: the pool listens only while a client is
  // idle, so every client gets a listener of its own for its whole life, or that late event crashes the server.
  pool.on('connect', (client) => {
    client.on('error', (e) => log(`asimov serve: a connection to ${location} in use was lost: ${describeError(e)}`));
  });

  const lost = (e: unknown): never => {
    if (e instanceof AsimovError) throw e;
    if (isConnectionError(e)) {
      throw new AsimovError('io_error', `The connection to PostgreSQL at ${location} failed: ${describeError(e)}`, undefined, { cause: e });
    }
    throw e;
  };

  const onClient = (c: PoolClient | Client): Queryable => ({
    query: async <T>(sql: string, params?: unknown[]) => (await c.query(sql, params)).rows as T[],
  });

  /** Runs fn on one pooled client; a client whose connection failed is destroyed rather than reused. */
  const withClient = async <T>(fn: (c: PoolClient) => Promise<T>): Promise<T> => {
    let c: PoolClient;
    try {
      c = await pool.connect();
    } catch (e) {
      throw new AsimovError('io_error', `Cannot connect to PostgreSQL at ${location}: ${describeError(e)}`, undefined, { cause: e });
    }
    let broken: Error | undefined;
    try {
      return await fn(c);
    } catch (e) {
      if (isConnectionError(e)) broken = e instanceof Error ? e : new Error(String(e));
      return lost(e);
    } finally {
      c.release(broken);
    }
  };

  const transactionOn = async <T>(c: PoolClient, fn: (tx: Queryable) => Promise<T>): Promise<T> => {
    await c.query('BEGIN');
    try {
      const out = await fn(onClient(c));
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    }
  };

  try {
    await withClient(async (c) => {
      await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      try {
        await migrate(
          {
            location,
            query: onClient(c).query,
            exec: async (sql) => {
              await c.query(sql);
            },
            transaction: (fn) => transactionOn(c, fn),
          },
          o.migrations,
        );
      } finally {
        await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
      }
    });
  } catch (e) {
    await pool.end().catch(() => {});
    if (e instanceof AsimovError) throw e;
    throw new AsimovError('io_error', `PostgreSQL at ${location} could not be opened: ${describeError(e)}`, undefined, { cause: e });
  }

  const listener = createListener({ config, location, log, makeClient: () => new ClientClass(config) });

  return {
    kind: 'postgres',
    location,
    query: async <T>(sql: string, params?: unknown[]) => {
      try {
        return (await pool.query(sql, params)).rows as T[];
      } catch (e) {
        return lost(e);
      }
    },
    exec: async (sql) => {
      try {
        await pool.query(sql);
      } catch (e) {
        lost(e);
      }
    },
    transaction: (fn) => withClient((c) => transactionOn(c, fn)),
    listen: (channel, fn) => listener.listen(checkChannel(channel), fn),
    notify: async (channel, payload) => {
      try {
        await pool.query('SELECT pg_notify($1, $2)', [checkChannel(channel), checkPayload(payload)]);
      } catch (e) {
        lost(e);
      }
    },
    close: async () => {
      await listener.close();
      await pool.end();
    },
  };
}

interface Listener {
  listen(channel: string, fn: (s: ChannelSignal) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * The LISTEN connection: made on the first subscription, and made again (with backoff) whenever it is lost,
 * LISTENing again to every channel and then telling every subscriber `{ reconnected: true }`.
 */
function createListener(o: { config: ClientConfig; location: string; log: (line: string) => void; makeClient: () => Client }): Listener {
  const subs = new Map<string, Set<(s: ChannelSignal) => void>>();
  let client: Client | null = null;
  /** The connection being made (the first one, or a reconnect), awaited by a subscription made meanwhile. */
  let connecting: Promise<Client> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let delay = RECONNECT_FIRST_MS;
  let closed = false;

  const deliver = (channel: string, s: ChannelSignal): void => {
    for (const fn of [...(subs.get(channel) ?? [])]) {
      try {
        fn(s);
      } catch {
        /* one broken subscriber must not stop the others */
      }
    }
  };

  const connect = async (): Promise<Client> => {
    const c = o.makeClient();
    let dead = false;
    const onLost = (e?: Error): void => {
      if (dead) return;
      dead = true;
      c.removeAllListeners('notification');
      c.end().catch(() => {});
      if (client === c) client = null;
      if (closed) return;
      o.log(`asimov serve: the LISTEN connection to ${o.location} was lost${e ? ` (${describeError(e)})` : ''}; reconnecting`);
      scheduleReconnect();
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    c.on('notification', (n) => deliver(n.channel, { payload: n.payload ?? '' }));
    try {
      await c.connect();
      for (const channel of subs.keys()) await c.query(`LISTEN ${channel}`);
    } catch (e) {
      dead = true;
      c.end().catch(() => {});
      throw e;
    }
    client = c;
    return c;
  };

  const scheduleReconnect = (): void => {
    if (closed || timer || connecting) return;
    timer = setTimeout(() => {
      timer = null;
      connecting = connect();
      connecting.then(
        () => {
          connecting = null;
          delay = RECONNECT_FIRST_MS;
          o.log(`asimov serve: the LISTEN connection to ${o.location} is back`);
          for (const channel of subs.keys()) deliver(channel, { reconnected: true });
        },
        () => {
          connecting = null;
          delay = Math.min(delay * 2, RECONNECT_MAX_MS);
          scheduleReconnect();
        },
      );
    }, delay);
    timer.unref();
  };

  /** The live connection, waiting for one being made; a first connection that fails fails the caller. */
  const current = async (): Promise<Client | null> => {
    if (client) return client;
    if (connecting) return connecting.catch(() => null);
    if (timer) return null; // reconnecting later: the reconnect LISTENs to every channel in subs
    connecting = connect();
    try {
      return await connecting;
    } finally {
      connecting = null;
    }
  };

  return {
    async listen(channel, fn) {
      if (closed) throw new AsimovError('io_error', `The database at ${o.location} is closed.`);
      let set = subs.get(channel);
      const first = !set;
      if (!set) subs.set(channel, (set = new Set()));
      set.add(fn);
      try {
        const c = await current();
        if (c && first) await c.query(`LISTEN ${channel}`);
      } catch (e) {
        set.delete(fn);
        if (set.size === 0) subs.delete(channel);
        throw new AsimovError('io_error', `LISTEN ${channel} on PostgreSQL at ${o.location} failed: ${describeError(e)}`, undefined, { cause: e });
      }
      return async () => {
        set.delete(fn);
        if (set.size > 0 || subs.get(channel) !== set) return;
        subs.delete(channel);
        await client?.query(`UNLISTEN ${channel}`).catch(() => {});
      };
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await connecting?.catch(() => {});
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
