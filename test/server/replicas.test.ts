// Replicas: two `asimov serve` on one PostgreSQL (test/helpers/postgres.ts; skipped, and said so, without
// one). An approval asked on A and answered on B releases the call waiting on A; a decision made on A reaches
// B's live feed; both still hold when the LISTEN connections are killed and kept down (connections to the
// database refused for a while) so that only the reconnect's re-read can deliver them; and after every
// connection of asimov's is killed, the next requests work.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/serve.ts';
import { querySql, scratchPostgres } from '../helpers/postgres.ts';

const postgres = scratchPostgres();
const SOFT = 'npm publish';

let url: string | null = null;
let a: TestServer;
let b: TestServer;
let decideToken = '';
let approveToken = '';
let readToken = '';
const logs: string[] = [];

before(async () => {
  url = await postgres.database();
  if (!url) return;
  a = await startTestServer({ databaseUrl: url, log: (l) => logs.push(`A ${l}`) });
  b = await startTestServer({ databaseUrl: url, log: (l) => logs.push(`B ${l}`) });
  for (const s of [a, b]) {
    const dir = join(s.home, '.config', 'asimov');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'policy.yaml'), 'version: 1\napprovals:\n  timeoutSec: 20\n');
  }
  // Tokens live in the shared database: made through A, good on B.
  decideToken = await a.token(['decide'], 'bot');
  approveToken = await a.token(['approve', 'read'], 'alice');
  readToken = await a.token(['read'], 'viewer');
});

after(async () => {
  await a?.close();
  await b?.close();
});

/** Runs SQL as the server's superuser (what an operator, or a failover, does to asimov's connections). */
async function admin<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return querySql<T>((await postgres.adminUrl())!, sql, params);
}

/** Kills asimov's connections to the test database whose current or last query matches; how many. */
async function kill(pattern: string): Promise<number> {
  const db = new URL(url!).pathname.slice(1);
  const rows = await admin<{ pid: number }>(
    `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'asimov serve' AND query ILIKE $2`,
    [db, pattern],
  );
  // Wait for the backends to be gone, so the next request meets the aftermath and not the kill itself.
  const pids = rows.map((r) => r.pid);
  for (let i = 0; i < 200 && (await admin('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids])).length > 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return rows.length;
}

/** Well under the policy's 20 s timeout, whose deadline would also re-read the row: the release came by NOTIFY. */
const PROMPT_MS = 5000;

/** The call's answer, which must come promptly after the approval was answered. */
async function releasedPromptly<T>(pending: Promise<T>, answeredAt: number): Promise<T> {
  const d = await pending;
  assert.ok(Date.now() - answeredAt < PROMPT_MS, `released ${Date.now() - answeredAt} ms after the answer`);
  return d;
}

function decide(s: TestServer, command: string) {
  return s.call('POST', '/v1/decide', { token: decideToken, body: { tool: 'Bash', input: { command }, cwd: s.project } });
}

async function pendingOn(s: TestServer, command: string): Promise<any> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const r = await s.call('GET', '/v1/approvals', { token: readToken });
    const found = r.body.approvals?.find((x: any) => x.call.input.command === command && x.status === 'pending');
    if (found) return found;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`no pending approval for ${command}`);
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}; logs:\n${logs.join('\n')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('an approval asked on replica A and answered on replica B releases the call waiting on A', async (t) => {
  if (!url) return t.skip(postgres.reason());
  const cmd = `${SOFT} --tag ab`;
  const pending = decide(a, cmd);
  const ap = await pendingOn(b, cmd); // B sees A's approval: it is in the shared table
  assert.equal(ap.requestedBy, 'bot');
  const answered = await b.call('POST', `/v1/approvals/${ap.id}/answer`, { token: approveToken, body: { verdict: 'allow', reason: 'from B' } });
  assert.equal(answered.status, 200, JSON.stringify(answered.body));
  const d = await releasedPromptly(pending, Date.now());
  assert.equal(d.body.verdict, 'allow', JSON.stringify(d.body));
  assert.match(d.body.reason, /Approved by alice: from B/);
});

/** Reads B's /v1/events until a decision with this id arrives. */
async function streamUntil(s: TestServer, cond: (text: string) => boolean, act: () => Promise<void>): Promise<string> {
  const ac = new AbortController();
  const r = await fetch(`${s.url}/v1/events`, { headers: { authorization: `Bearer ${readToken}` }, signal: ac.signal });
  assert.equal(r.status, 200);
  const body = r.body!.getReader();
  await act();
  let text = '';
  const deadline = Date.now() + 10_000;
  try {
    while (!cond(text) && Date.now() < deadline) {
      const next = await Promise.race([body.read(), new Promise<null>((res) => setTimeout(() => res(null), deadline - Date.now()))]);
      if (next === null || next.done) break;
      text += new TextDecoder().decode(next.value);
    }
  } finally {
    ac.abort();
  }
  return text;
}

test('a decision made on replica A appears once on replica B\'s live feed', async (t) => {
  if (!url) return t.skip(postgres.reason());
  let id = '';
  const text = await streamUntil(b, (x) => id !== '' && x.includes(id), async () => {
    const d = await decide(a, 'echo made-on-a');
    assert.equal(d.status, 200);
    id = d.body.decisionId;
  });
  assert.match(text, new RegExp(`event: decision\\ndata: \\{[^\\n]*"decisionId":"${id}"`), `B's stream:\n${text}\nlogs:\n${logs.join('\n')}`);
  assert.equal(text.split(`"decisionId":"${id}"`).length - 1, 1, 'published once');
});

test('after the LISTEN connections are killed, an answer on B still releases the call on A', async (t) => {
  if (!url) return t.skip(postgres.reason());
  const cmd = `${SOFT} --tag relisten`;
  const pending = decide(a, cmd);
  const ap = await pendingOn(b, cmd); // B's pool holds a live connection now
  // No new connections for a while: the LISTEN connections stay down while B answers, so A misses the
  // NOTIFY for sure, and only its reconnect (which re-reads what its calls wait for) can release the call.
  const db = new URL(url!).pathname.slice(1);
  let settled = false;
  void pending.then(() => (settled = true));
  await admin(`ALTER DATABASE ${db} ALLOW_CONNECTIONS false`);
  try {
    assert.equal(await kill('LISTEN%'), 2, 'one LISTEN connection per replica');
    const answered = await b.call('POST', `/v1/approvals/${ap.id}/answer`, { token: approveToken, body: { verdict: 'deny', reason: 'no' } });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(settled, false, 'A heard nothing while its LISTEN connection was down');
  } finally {
    await admin(`ALTER DATABASE ${db} ALLOW_CONNECTIONS true`);
  }
  const d = await releasedPromptly(pending, Date.now());
  assert.equal(d.body.verdict, 'deny');
  assert.match(d.body.reason, /Refused by alice: no/);
  await until('both LISTEN connections back', () => logs.filter((l) => /LISTEN connection .* is back/.test(l)).length >= 2);
  // And notifications flow again.
  const cmd2 = `${SOFT} --tag relisten-2`;
  const pending2 = decide(a, cmd2);
  const ap2 = await pendingOn(b, cmd2);
  assert.equal((await b.call('POST', `/v1/approvals/${ap2.id}/answer`, { token: approveToken, body: { verdict: 'allow' } })).status, 200);
  assert.equal((await releasedPromptly(pending2, Date.now())).body.verdict, 'allow');
});

test('every connection of asimov\'s killed mid-way: the next requests work', async (t) => {
  if (!url) return t.skip(postgres.reason());
  assert.ok((await kill('%')) >= 2);
  // The pools drop the dead connections; a request may meet one and fail cleanly, the one after works.
  for (const s of [a, b]) {
    const first = await s.call('GET', '/v1/approvals?status=all', { token: readToken });
    assert.ok(first.status === 200 || (first.status >= 500 && typeof first.body.error === 'string'), JSON.stringify(first.body));
    const next = await s.call('GET', '/v1/approvals?status=all', { token: readToken });
    assert.equal(next.status, 200, JSON.stringify(next.body));
  }
  const cmd = `${SOFT} --tag after-kill`;
  const pending = decide(a, cmd);
  const ap = await pendingOn(b, cmd);
  assert.equal((await b.call('POST', `/v1/approvals/${ap.id}/answer`, { token: approveToken, body: { verdict: 'allow' } })).status, 200);
  assert.equal((await releasedPromptly(pending, Date.now())).body.verdict, 'allow');
});

test('a decision made while B\'s LISTEN connection is down reaches B\'s live feed once it is back', async (t) => {
  if (!url) return t.skip(postgres.reason());
  const db = new URL(url).pathname.slice(1);
  let id = '';
  const text = await streamUntil(b, (x) => id !== '' && x.includes(id), async () => {
    await a.call('GET', '/v1/approvals', { token: readToken }); // A's pool holds a live connection now
    await admin(`ALTER DATABASE ${db} ALLOW_CONNECTIONS false`);
    try {
      assert.equal(await kill('LISTEN%'), 2);
      const d = await decide(a, 'echo while-b-was-deaf');
      assert.equal(d.status, 200);
      id = d.body.decisionId;
      await until('A to index it', async () => (await a.server.db.query('SELECT 1 FROM decisions WHERE decision_id = $1', [id])).length === 1);
    } finally {
      await admin(`ALTER DATABASE ${db} ALLOW_CONNECTIONS true`);
    }
  });
  assert.equal(text.split(`"decisionId":"${id}"`).length - 1, 1, `B's stream:\n${text}\nlogs:\n${logs.join('\n')}`);
});
