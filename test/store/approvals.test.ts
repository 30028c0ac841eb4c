// The approvals table on the embedded database and on PostgreSQL: rows as the API shows them, one answer
// wins (a second, or one after the expiry, finds nothing pending), expiry of what is due, session grants.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { createApprovalStore, type NewApproval } from '../../src/store/approvals.ts';
import { scratchPostgres } from '../helpers/postgres.ts';

const postgres = scratchPostgres();

const BACKENDS: { name: string; open(): Promise<Database | null> }[] = [
  { name: 'PGlite', open: () => openDatabase() },
  { name: 'PostgreSQL', open: async () => { const url = await postgres.database(); return url ? openDatabase({ url }) : null; } },
];

function approval(id: string, createdAt: Date, ttlMs: number): NewApproval {
  return {
    id, status: 'pending', createdAt, expiresAt: new Date(createdAt.getTime() + ttlMs),
    call: { tool: 'bash', clientTool: 'Bash', cwd: '/p', agent: 'claude-code', sessionId: 's1', input: { command: 'npm publish' } },
    decision: { decisionId: `d-${id}`, tier: 'soft_deny', rule: 'pkg.publish', reason: 'publishes', findings: [] },
    fingerprint: `fp-${id}`, requestedBy: 'bot',
  };
}

for (const backend of BACKENDS) {
  test(`approvals: insert, answer once, expire what is due, session grants (${backend.name})`, async (t) => {
    const db = await backend.open();
    if (!db) return t.skip(postgres.reason());
    t.after(() => db.close());
    const store = createApprovalStore(db);
    const t0 = new Date('2030-01-01T00:00:00Z');
    const a = await store.insert(approval('a1', t0, 60_000));
    assert.equal(a.status, 'pending');
    assert.equal(a.createdAt, t0.toISOString());
    assert.deepEqual(a.call.input, { command: 'npm publish' });
    const answer = { status: 'approved' as const, by: 'alice', scope: 'session' as const, reason: 'ok', proposedRule: null, at: new Date(t0.getTime() + 1000) };
    const done = await store.answer('a1', answer);
    assert.equal(done?.status, 'approved');
    assert.equal(done?.answeredBy, 'alice');
    assert.equal(await store.answer('a1', { ...answer, status: 'denied', by: 'bob' }), null, 'the first answer wins');
    await store.grant('s1', 'a1', 'alice', answer.at);
    assert.deepEqual(await store.grantFor('s1', 'fp-a1'), { approvalId: 'a1', grantedBy: 'alice' });
    assert.equal(await store.grantFor('s2', 'fp-a1'), null);

    await store.insert(approval('a2', t0, 1000));
    await store.insert(approval('a3', t0, 120_000));
    assert.equal(await store.answer('a2', { ...answer, at: new Date(t0.getTime() + 2000) }), null, 'too late');
    assert.deepEqual((await store.expireDue(new Date(t0.getTime() + 2000))).map((x) => x.id), ['a2']);
    assert.deepEqual((await store.list({ status: 'pending', limit: 10 })).map((x) => x.id), ['a3']);
    assert.equal((await store.expire('a3', new Date(t0.getTime() + 3000)))?.status, 'expired');
    assert.equal(await store.expire('a3', new Date(t0.getTime() + 3000)), null);
    assert.equal((await store.list({ status: 'all', limit: 10 })).length, 3);
    assert.equal((await store.get('a2'))?.status, 'expired');
  });
}
