// The team dashboard's routes on a real server over a team built in its database (helpers/team.ts: alice with
// two machines, bob with one whose chain is broken, ci-bot that only calls the API). Each route's answer, its
// scope, and the decision list's principal and client filters.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../helpers/serve.ts';
import { CURL, insertTeam, LONG, MIN } from '../../helpers/team.ts';

let s: TestServer;
let reader: string;
const now = Date.now();
const ago = (ms: number) => new Date(now - ms);

before(async () => {
  s = await startTestServer();
  reader = await s.token(['read'], 'lead');
  await insertTeam(s.server.deps.db, now);
});
after(() => s.close());

test('GET /v1/team/clients: every machine, broken chains first, with its last contact, records and decisions by verdict', async () => {
  const r = await s.call('GET', '/v1/team/clients', { token: reader });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.clients.map((c: { clientId: string }) => c.clientId), ['c-bob', 'c-al1', 'c-al2']);
  const [bob, al1, al2] = r.body.clients;
  assert.equal(bob.status, 'broken');
  assert.match(bob.problem, /does not follow record 4/);
  assert.ok(bob.problemAt);
  assert.equal(bob.tokenName, 'bob');
  assert.equal(bob.host, 'bob-thinkpad');
  assert.equal(bob.headSeq, 7);
  assert.deepEqual(bob.last24h, { allow: 1, deny: 0, ask: 6 });
  assert.equal(al1.status, 'ok');
  assert.equal(al1.problem, null);
  assert.equal(al1.osUser, 'alice');
  assert.equal(Date.parse(al1.lastContact), now - 5 * MIN);
  assert.deepEqual(al1.last24h, { allow: 1, deny: 1, ask: 2 });
  assert.deepEqual(al1.last7d, { allow: 1, deny: 1, ask: 2 }, 'the 8-day-old decision is outside the week');
  assert.deepEqual(al2.last24h, { allow: 0, deny: 0, ask: 0 });
  assert.deepEqual(al2.last7d, { allow: 0, deny: 0, ask: 1 });
});

test('GET /v1/team/clients/:id: the machine and its chain problems, newest first, limited', async () => {
  const r = await s.call('GET', '/v1/team/clients/c-bob', { token: reader });
  assert.equal(r.status, 200);
  assert.equal(r.body.client.clientId, 'c-bob');
  assert.equal(r.body.client.status, 'broken');
  assert.deepEqual(r.body.problems.map((p: { kind: string }) => p.kind), ['cut', 'prev_mismatch']);
  assert.equal(r.body.problems[1].seq, 5);
  assert.equal(r.body.problems[1].decisionId, 'd-bob-5');
  const one = await s.call('GET', '/v1/team/clients/c-bob?limit=1', { token: reader });
  assert.deepEqual(one.body.problems.map((p: { kind: string }) => p.kind), ['cut']);
  const ok = await s.call('GET', '/v1/team/clients/c-al1', { token: reader });
  assert.deepEqual(ok.body.problems, []);
  const missing = await s.call('GET', '/v1/team/clients/nope', { token: reader });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error, 'not_found');
  assert.equal((await s.call('GET', '/v1/team/clients/c-bob?limit=0', { token: reader })).status, 400);
});

test('GET /v1/team/people: per token name, machines (and broken ones), decisions, asks, denies, last contact', async () => {
  const r = await s.call('GET', '/v1/team/people', { token: reader });
  assert.equal(r.status, 200);
  const byName = Object.fromEntries(r.body.people.map((p: { name: string }) => [p.name, p]));
  assert.deepEqual(r.body.people.map((p: { name: string }) => p.name), ['bob', 'alice', 'ci-bot'], 'most asked first');
  assert.deepEqual(
    { ...byName.alice, lastDecision: undefined },
    { name: 'alice', machines: 2, broken: 0, lastContact: ago(5 * MIN).toISOString(), decisions: 5, asks: 3, denies: 1, lastDecision: undefined },
  );
  assert.equal(byName.bob.machines, 1);
  assert.equal(byName.bob.broken, 1);
  assert.equal(byName.bob.asks, 6);
  assert.equal(byName.bob.decisions, 7);
  assert.equal(byName['ci-bot'].machines, 0);
  assert.equal(byName['ci-bot'].lastContact, null, 'a token that only calls the API has no machine');
  assert.equal(byName['ci-bot'].denies, 1);
  const month = await s.call('GET', '/v1/team/people?since=30d', { token: reader });
  assert.equal(month.body.people.find((p: { name: string }) => p.name === 'alice').asks, 4);
});

test('GET /v1/team/agents: per agent, decisions, asks, denies and how many people', async () => {
  const r = await s.call('GET', '/v1/team/agents?since=7d', { token: reader });
  assert.equal(r.status, 200);
  const byAgent = Object.fromEntries(r.body.agents.map((a: { agent: string }) => [a.agent, a]));
  assert.equal(r.body.agents[0].agent, 'codex', 'the busiest first');
  assert.deepEqual({ ...byAgent.codex, lastSeen: undefined }, { agent: 'codex', decisions: 7, asks: 6, denies: 0, users: 1, lastSeen: undefined });
  assert.deepEqual({ ...byAgent['claude-code'], lastSeen: undefined }, { agent: 'claude-code', decisions: 4, asks: 2, denies: 1, users: 1, lastSeen: undefined });
  assert.equal(byAgent.gemini.asks, 1);
  assert.equal(byAgent.ci.denies, 1);
  const hour = await s.call('GET', '/v1/team/agents?since=1h', { token: reader });
  assert.equal(hour.body.agents.find((a: { agent: string }) => a.agent === 'gemini'), undefined);
});

test('GET /v1/team/top-asked: asked calls grouped by rule and summary, most frequent first, with people, machines and an example', async () => {
  const r = await s.call('GET', '/v1/team/top-asked?since=7d&limit=20', { token: reader });
  assert.equal(r.status, 200);
  const calls = r.body.calls as { rule: string; summary: string; count: number; users: number; machines: number; example: { decisionId: string; principal: string } }[];
  assert.deepEqual(calls.map((c) => [c.rule, c.count]), [
    ['net.pipe-to-shell', 4],
    ['git.push-force', 2],
    ['db.migrate', 2],
    ['shell.unknown', 1],
  ]);
  const curl = calls[0]!;
  assert.equal(curl.summary, CURL);
  assert.equal(curl.users, 2);
  assert.equal(curl.machines, 3);
  assert.equal(curl.example.decisionId, 'd-bob-1', 'the newest of the group');
  assert.equal(curl.example.principal, 'bob');
  const migrate = calls.find((c) => c.rule === 'db.migrate')!;
  assert.ok(migrate.summary.length <= 80, 'the summary is capped');
  assert.ok(LONG('users').startsWith(migrate.summary.replace(/…$/, '')));
  assert.deepEqual((await s.call('GET', '/v1/team/top-asked?limit=1', { token: reader })).body.calls.length, 1);
  const month = await s.call('GET', '/v1/team/top-asked?since=30d', { token: reader });
  assert.ok(month.body.calls.some((c: { rule: string }) => c.rule === 'pkg.publish'), 'the 8-day-old ask is in the month');
  assert.ok(!calls.some((c) => c.rule === 'pkg.publish'), 'and not in the week');
  for (const q of ['since=yesterday', 'since=2099-01-01', 'limit=0', 'limit=101']) {
    const bad = await s.call('GET', `/v1/team/top-asked?${q}`, { token: reader });
    assert.equal(bad.status, 400, q);
    assert.equal(bad.body.error, 'bad_request', q);
  }
});

test('the decision list filters by principal (the token name) and by client (the machine)', async () => {
  const list = async (q: string) => (await s.call('GET', `/v1/decisions?${q}&limit=100`, { token: reader })).body.decisions.map((d: { decisionId: string }) => d.decisionId);
  assert.deepEqual(await list('principal=alice'), ['d-al1-1', 'd-al1-2', 'd-al1-3', 'd-al1-4', 'd-al2-1', 'd-al1-old']);
  assert.deepEqual(await list('client=c-al2'), ['d-al2-1']);
  assert.deepEqual(await list('principal=bob&verdict=allow'), ['d-bob-7']);
  assert.deepEqual(await list('client=c-bob&rule=git.push-force'), ['d-bob-2', 'd-bob-3']);
  assert.deepEqual(await list('principal=nobody'), []);
});

test('the team routes need the read scope: no token is 401, a laptop\'s report token is 403', async () => {
  const report = await s.token(['report'], 'laptop');
  for (const path of ['/v1/team/clients', '/v1/team/clients/c-bob', '/v1/team/people', '/v1/team/agents', '/v1/team/top-asked']) {
    assert.equal((await s.call('GET', path)).status, 401, path);
    const r = await s.call('GET', path, { token: report });
    assert.equal(r.status, 403, path);
    assert.equal(r.body.error, 'forbidden', path);
  }
});
