// Bearer tokens: shown once, stored as a hash, scoped, named, revocable; on the embedded database and on
// PostgreSQL (skipped, and said so, without one: test/helpers/postgres.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { createTokenStore, hashToken, looksLikeToken, parseScopes } from '../../src/store/tokens.ts';
import { scratchPostgres } from '../helpers/postgres.ts';

const postgres = scratchPostgres();

const BACKENDS: { name: string; open(): Promise<Database | null> }[] = [
  { name: 'PGlite', open: () => openDatabase() },
  { name: 'PostgreSQL', open: async () => { const url = await postgres.database(); return url ? openDatabase({ url }) : null; } },
];

for (const backend of BACKENDS) {
  test(`create, verify, list, revoke (${backend.name})`, async (t) => {
    const db = await backend.open();
    if (!db) return t.skip(postgres.reason());
    t.after(() => db.close());
    const store = createTokenStore(db);
    const { token, info } = await store.create('ci-bot', ['decide', 'execute']);
    assert.ok(looksLikeToken(token));
    assert.deepEqual(info.scopes, ['decide', 'execute']);
    assert.equal((await store.verify(token))?.name, 'ci-bot');
    assert.equal(await store.verify(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')), null);
    assert.equal(await store.verify('not a token'), null);
    const rows = await db.query<{ hash: string }>('SELECT hash FROM tokens WHERE name = $1', ['ci-bot']);
    assert.equal(rows[0]!.hash, hashToken(token), 'only the hash is stored');
    await assert.rejects(store.create('ci-bot', ['decide']), /a live token named 'ci-bot' exists/);
    assert.equal(await store.revoke('ci-bot'), true);
    assert.equal(await store.verify(token), null);
    assert.equal(await store.revoke('ci-bot'), false);
    const again = await store.create('ci-bot', ['read']);
    assert.deepEqual((await store.list()).map((t) => t.name), ['ci-bot']);
    assert.equal((await store.list({ all: true })).length, 2);
    assert.equal((await store.verify(again.token))?.scopes[0], 'read');
    assert.match((await store.list())[0]!.createdAt, /^\d{4}-\d\d-\d\dT/);
  });
}

test('names and scopes are checked', async (t) => {
  const db = await openDatabase();
  t.after(() => db.close());
  const store = createTokenStore(db);
  await assert.rejects(store.create('', ['decide']), /token name/);
  await assert.rejects(store.create('has space', ['decide']), /token name/);
  assert.deepEqual(parseScopes('decide, approve,decide'), ['decide', 'approve']);
  assert.throws(() => parseScopes('decide,root'), /unknown scope 'root'/);
  assert.throws(() => parseScopes(','), /at least one scope/);
});
