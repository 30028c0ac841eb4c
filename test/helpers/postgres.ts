// A scratch PostgreSQL database for tests of the PostgreSQL backend (store/postgres-database.ts, replicas).
// With ASIMOV_TEST_DATABASE_URL (CI's cluster, or any server the tester names) each database() is a fresh
// database created on that server and dropped after the file's tests. Without it, when PostgreSQL's binaries
// are installed (/usr/lib/postgresql/<ver>/bin or PATH), the file starts a cluster of its own in a temp dir on a
// free loopback port (as the `postgres` user when run as root: initdb refuses root), stopped after its tests.
// Otherwise database() returns null and reason() says why, for `t.skip(reason)`.

import { after } from 'node:test';
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface ScratchPostgres {
  /** A URL naming a new, empty database (null: no PostgreSQL here, see reason()). */
  database(): Promise<string | null>;
  /** Why there is no PostgreSQL (for t.skip). */
  reason(): string;
  /** A URL of the server's maintenance database, as the superuser (to kill connections, look at pg_stat_activity). */
  adminUrl(): Promise<string | null>;
}

interface Server {
  adminUrl: string;
  stop(): void;
}

/** Call at a test file's top level. */
export function scratchPostgres(): ScratchPostgres {
  let server: Promise<Server | null> | null = null;
  let why = '';
  const made: string[] = [];
  const start = (): Promise<Server | null> =>
    (server ??= (async () => {
      const given = process.env.ASIMOV_TEST_DATABASE_URL;
      if (given) return { adminUrl: given, stop: () => {} };
      const found = await startCluster();
      if (typeof found === 'string') {
        why = `no PostgreSQL: ${found} (set ASIMOV_TEST_DATABASE_URL, or install postgresql)`;
        return null;
      }
      return found;
    })());
  after(async () => {
    const s = await server;
    if (!s) return;
    if (made.length > 0) {
      const { Client } = await import('pg');
      const c = new Client({ connectionString: s.adminUrl });
      c.on('error', () => {});
      try {
        await c.connect();
        for (const name of made) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      } finally {
        await c.end().catch(() => {});
      }
    }
    s.stop();
  });
  return {
    reason: () => why,
    adminUrl: async () => (await start())?.adminUrl ?? null,
    async database() {
      const s = await start();
      if (!s) return null;
      const name = `asimov_test_${randomBytes(6).toString('hex')}`;
      const { Client } = await import('pg');
      const c = new Client({ connectionString: s.adminUrl });
      c.on('error', () => {});
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      made.push(name);
      const u = new URL(s.adminUrl);
      u.pathname = `/${name}`;
      return u.href;
    },
  };
}

/** The directory holding initdb, pg_ctl and postgres: the newest Debian one, else PATH's. */
function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl'))) return join(root, v, 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'postgres'))) return dir;
  }
  return null;
}

/** A free loopback port (free when asked; the cluster takes it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

async function startCluster(): Promise<Server | string> {
  const bin = binDir();
  if (!bin) return 'no initdb/pg_ctl in /usr/lib/postgresql/*/bin or PATH';
  const asRoot = process.getuid?.() === 0;
  let uid: number | undefined;
  let gid: number | undefined;
  if (asRoot) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0 || spawnSync('runuser', ['--help'], { stdio: 'ignore' }).status !== 0) {
      return 'running as root, and initdb refuses root: no `postgres` user or no runuser to run it as';
    }
    uid = Number(id.stdout.trim());
    gid = Number(g.stdout.trim());
  }
  const dir = mkdtempSync(join(tmpdir(), 'asimov-pg-'));
  if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid);
  const run = (cmd: string, args: string[]): ReturnType<typeof spawnSync> =>
    asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { encoding: 'utf8', cwd: dir })
      : spawnSync(join(bin, cmd), args, { encoding: 'utf8', cwd: dir });
  const data = join(dir, 'data');
  const init = run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `initdb failed: ${String(init.stderr).trim().split('\n').at(-1)}`;
  }
  const port = await freePort();
  const logFile = join(dir, 'postgres.log');
  // Unix sockets in the scratch dir too (the default /var/run/postgresql may not exist); fsync off: scratch data.
  const opts = `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const started = run('pg_ctl', ['-D', data, '-l', logFile, '-o', opts, '-w', '-t', '30', 'start']);
  if (started.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `pg_ctl start failed: ${String(started.stderr || started.stdout).trim().split('\n').at(-1)}`;
  }
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs one statement on its own connection to `url` (as a test's operator: looking at pg_stat_activity, killing asimov's connections). */
export async function querySql<T = Record<string, unknown>>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end().catch(() => {});
  }
}
