// The team policy's routes on a real server: 404 before anything is published; PUT by an admin, refused with
// file, line and key when the policy would not load on a client; GET by any team token with an ETag and 304
// for a matching If-None-Match; the same text published twice changes nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../helpers/serve.ts';
import { etagMatches } from '../../../src/server/routes/team-policy.ts';

let s: TestServer;
let admin: string;
let laptop: string;

before(async () => {
  s = await startTestServer();
  admin = await s.token(['admin'], 'ops');
  laptop = await s.token(['report'], 'laptop-1');
});
after(() => s.close());

const POLICY = 'version: 1\nrules:\n  git.push-default-branch: hard_deny\n';

test('before anything is published, GET answers 404 with a message that says what to do', async () => {
  const r = await s.call('GET', '/v1/team/policy', { token: laptop });
  assert.equal(r.status, 404);
  assert.equal(r.body.error, 'no_team_policy');
  assert.match(r.body.message, /asimov serve policy publish FILE/);
});

test('an invalid policy is refused with its line and key, and nothing is published', async () => {
  const syntax = await s.call('PUT', '/v1/team/policy', { token: admin, body: { policy: 'version: 1\nrules:\n  git.push-default-branch: [hard_deny\n' } });
  assert.equal(syntax.status, 400);
  assert.equal(syntax.body.error, 'invalid_policy');
  assert.match(syntax.body.message, /^The team policy was not published: team-policy\.yaml:\d+/);

  const unknownId = await s.call('PUT', '/v1/team/policy', { token: admin, body: { policy: 'version: 1\nrules:\n  git.push-defualt-branch: hard_deny\n' } });
  assert.equal(unknownId.status, 400);
  assert.match(unknownId.body.message, /team-policy\.yaml:3:3: rules\.git\.push-defualt-branch: unknown rule id .*did you mean "git\.push-default-branch"/);
  assert.deepEqual(unknownId.body.location, { file: 'team-policy.yaml', line: 3, column: 3, key: 'rules.git.push-defualt-branch' });

  const badTier = await s.call('PUT', '/v1/team/policy', { token: admin, body: { policy: 'version: 1\nrules:\n  git.push-default-branch: forbid\n' } });
  assert.equal(badTier.status, 400);
  assert.match(badTier.body.message, /team-policy\.yaml:3/);

  const audit = await s.call('PUT', '/v1/team/policy', { token: admin, body: { policy: 'version: 1\naudit:\n  remote: https://elsewhere.example\n' } });
  assert.equal(audit.status, 400);
  assert.match(audit.body.message, /team-policy\.yaml:2:1: audit: a team policy cannot set audit:/);

  assert.equal((await s.call('GET', '/v1/team/policy', { token: laptop })).status, 404);
});

test('only an admin publishes; any team token reads, with an ETag, and a matching If-None-Match gets 304', async () => {
  const denied = await s.call('PUT', '/v1/team/policy', { token: laptop, body: { policy: POLICY } });
  assert.equal(denied.status, 403);

  const put = await s.call('PUT', '/v1/team/policy', { token: admin, body: { policy: POLICY, groundRules: 'Never touch prod.\n' } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.changed, true);
  assert.equal(put.body.publishedBy, 'ops');
  const { version, etag } = put.body;

  const got = await s.call('GET', '/v1/team/policy', { token: laptop });
  assert.equal(got.status, 200);
  assert.equal(got.headers.get('etag'), etag);
  assert.deepEqual({ ...got.body, publishedAt: undefined }, { version, etag, policy: POLICY, groundRules: 'Never touch prod.\n', publishedBy: 'ops', publishedAt: undefined });

  const again = await s.call('GET', '/v1/team/policy', { token: laptop, headers: { 'if-none-match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.body, '');
  const stale = await s.call('GET', '/v1/team/policy', { token: laptop, headers: { 'if-none-match': '"old"' } });
  assert.equal(stale.status, 200);

  for (const scopes of [['read'], ['decide'], ['admin']] as const) {
    assert.equal((await s.call('GET', '/v1/team/policy', { token: await s.token([...scopes]) })).status, 200, scopes.join());
  }
  const executor = await s.call('GET', '/v1/team/policy', { token: await s.token(['execute']) });
  assert.equal(executor.status, 403);
  assert.match(executor.body.message, /one of the scopes 'report', 'read', 'decide', 'admin'/);
  assert.equal((await s.call('GET', '/v1/team/policy')).status, 401);

  const same = await s.call('PUT', '/v1/team/policy', { token: admin, body: { policy: POLICY, groundRules: 'Never touch prod.\n' } });
  assert.deepEqual([same.body.changed, same.body.version, same.body.etag], [false, version, etag]);
  const next = await s.call('PUT', '/v1/team/policy', { token: admin, body: { policy: POLICY } });
  assert.equal(next.body.changed, true);
  assert.equal(next.body.version, version + 1);
  assert.notEqual(next.body.etag, etag);
});

test('If-None-Match matches a list, a weak form, and *', () => {
  assert.ok(etagMatches('"a", "b"', '"b"'));
  assert.ok(etagMatches('W/"b"', '"b"'));
  assert.ok(etagMatches('*', '"b"'));
  assert.ok(!etagMatches('"a"', '"b"'));
  assert.ok(!etagMatches(undefined, '"b"'));
});
