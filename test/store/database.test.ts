// The embedded database: migrations applied once and in order, a database newer than asimov refused, and one
// process at a time in a data directory (PGlite has no postmaster to refuse a second one).

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, splitStatements } from '../../src/store/database.ts';
import { lockDirectory, lockHolder, LOCK_NAME } from '../../src/store/dir-lock.ts';
import { tempDirs } from '../helpers/temp-dirs.ts';

const temp = tempDirs();
const children: ReturnType<typeof spawn>[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

test('migrations run once, in order, each in its own transaction; a newer database is refused', async () => {
  const dir = join(temp('asimov-db-'), 'db');
  const m1 = { version: 1, name: 'one', sql: 'CREATE TABLE a (x int);\n-- a comment line\nINSERT INTO a VALUES (1);' };
  const m2 = { version: 2, name: 'two', sql: 'ALTER TABLE a ADD COLUMN y text;' };
  let db = await openDatabase({ dir, migrations: [m1] });
  assert.deepEqual(await db.query('SELECT x FROM a'), [{ x: 1 }]);
  await db.close();
  db = await openDatabase({ dir, migrations: [m2, m1] });
  assert.deepEqual(await db.query('SELECT x, y FROM a'), [{ x: 1, y: null }], 'm1 not applied twice, m2 applied');
  await db.close();
  await assert.rejects(openDatabase({ dir, migrations: [m1] }), /schema version 2, newer than this asimov knows \(1\)/);
  // A failed migration leaves nothing half-done.
  const bad = { version: 3, name: 'bad', sql: 'ALTER TABLE a ADD COLUMN z int;\nSELECT no_such_function();' };
  await assert.rejects(openDatabase({ dir, migrations: [m1, m2, bad] }));
  db = await openDatabase({ dir, migrations: [m1, m2] });
  assert.deepEqual((await db.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_name = 'a' ORDER BY 1")).map((r) => r.column_name), ['x', 'y']);
  await db.close();
});

test('splitStatements: on semicolons that end a line, without comment lines', () => {
  assert.deepEqual(splitStatements('CREATE TABLE t (a text);\n-- note; here\nCREATE INDEX i ON t (a);'), ['CREATE TABLE t (a text)', 'CREATE INDEX i ON t (a)']);
});

test('a data directory is one process\'s: a live holder is named, a dead one\'s lock is taken over', async () => {
  const dir = temp('asimov-lock-');
  // A live process holds it.
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(child);
  writeFileSync(join(dir, LOCK_NAME), `${child.pid}\n`);
  assert.equal(lockHolder(dir), child.pid);
  assert.throws(() => lockDirectory(dir), new RegExp(`in use by process ${child.pid}`));
  // It dies (SIGKILL: nothing cleaned up): the lock is stale and taken over.
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  assert.equal(lockHolder(dir), null);
  const lock = lockDirectory(dir);
  assert.equal(lockHolder(dir), process.pid);
  lock.release();
  assert.equal(lockHolder(dir), null);
});

test('opening a directory another process holds fails with who holds it, before touching the data', async () => {
  const dir = temp('asimov-db2-');
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(child);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(dir, 'db'));
  writeFileSync(join(dir, 'db', LOCK_NAME), `${child.pid}\n`);
  await assert.rejects(openDatabase({ dir: join(dir, 'db') }), /in use by process/);
  child.kill('SIGKILL');
});

test('LISTEN/NOTIFY within the process on the embedded database', async (t) => {
  const db = await openDatabase();
  t.after(() => db.close());
  const got: string[] = [];
  const unlisten = await db.listen('asimov_test', (s) => got.push(s.payload ?? 'reconnected'));
  await db.notify('asimov_test', 'one');
  await db.transaction(async (tx) => {
    await tx.query("SELECT pg_notify('asimov_test', 'two')");
  });
  for (let i = 0; i < 100 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(got, ['one', 'two']);
  await unlisten();
  await db.notify('asimov_test', 'three');
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(got, ['one', 'two']);
  await assert.rejects(db.listen('Bad Name; DROP', () => {}), /not a channel name/);
});
