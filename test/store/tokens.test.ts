// Bearer tokens: shown once, stored as a hash, scoped, named, revocable.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { createTokenStore, hashToken, looksLikeToken, parseScopes } from '../../src/store/tokens.ts';

let db: Database;
before(async () => {
  db = await openDatabase();
});
after(() => db.close());

test('create, verify, list, revoke', async () => {
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
});

test('names and scopes are checked', async () => {
  const store = createTokenStore(db);
  await assert.rejects(store.create('', ['decide']), /token name/);
  await assert.rejects(store.create('has space', ['decide']), /token name/);
  assert.deepEqual(parseScopes('decide, approve,decide'), ['decide', 'approve']);
  assert.throws(() => parseScopes('decide,root'), /unknown scope 'root'/);
  assert.throws(() => parseScopes(','), /at least one scope/);
});
