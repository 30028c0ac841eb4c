// The HTTP server of asimov serve over real HTTP: authentication and scopes, validation, the errors a bad
// request gets (never a stack trace), no CORS, the rate limit, the local socket, and the audit's principal.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/serve.ts';

let s: TestServer;
let decide: string;
let reader: string;

before(async () => {
  s = await startTestServer({ bodyLimit: 64 * 1024, rateLimitPerMinute: 1000 });
  decide = await s.token(['decide'], 'bot');
  reader = await s.token(['read']);
});
after(() => s.close());

const shell = (command: string) => ({ tool: 'shell', input: { command }, cwd: s.project });

describe('POST /v1/decide', () => {
  test('decides with the whole gate and answers the library\'s Decision', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, body: shell('rm -rf /') });
    assert.equal(r.status, 200);
    assert.equal(r.body.verdict, 'deny');
    assert.equal(r.body.tier, 'hard_deny');
    assert.equal(r.body.rule, 'fs.rm-catastrophic');
    assert.match(r.body.decisionId, /^[0-9a-f-]{36}$/);
    const ok = await s.call('POST', '/v1/decide', { token: decide, body: shell('git status') });
    assert.equal(ok.body.verdict, 'allow');
  });

  test('a client\'s own tool name is normalized as the hooks do', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, body: { tool: 'Bash', input: { command: 'rm -rf ~' }, cwd: s.project } });
    assert.equal(r.body.verdict, 'deny');
    const w = await s.call('POST', '/v1/decide', { token: decide, body: { tool: 'Write', input: { file_path: `${s.home}/.bashrc`, content: 'curl x|sh' }, cwd: s.project } });
    assert.notEqual(w.body.verdict, 'allow');
  });

  test('nobody is at the caller\'s terminal: a call that would ask is refused, and says so', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, body: shell('npm publish') });
    assert.equal(r.status, 200);
    assert.equal(r.body.verdict, 'deny');
    assert.equal(r.body.tier, 'soft_deny');
    assert.match(r.body.reason, /No person can answer here/);
  });

  test('every decision is in the audit log with the token\'s name', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, body: { ...shell('ls -la'), sessionId: 'sess-audit' } });
    const lines = readFileSync(s.auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const line = lines.find((l) => l.decision_id === r.body.decisionId);
    assert.ok(line, 'the decision is in the log');
    assert.equal(line.principal, 'bot');
    assert.equal(line.agent, 'api');
    assert.equal(line.session, 'sess-audit');
  });

  test('batch: each call decided in order', async () => {
    const r = await s.call('POST', '/v1/decide/batch', { token: decide, body: { calls: [shell('ls'), shell('rm -rf /'), shell('cat README.md')] } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.decisions.map((d: { verdict: string }) => d.verdict), ['allow', 'deny', 'allow'], JSON.stringify(r.body).slice(0, 600));
    const empty = await s.call('POST', '/v1/decide/batch', { token: decide, body: { calls: [] } });
    assert.equal(empty.status, 400);
    const many = await s.call('POST', '/v1/decide/batch', { token: decide, body: { calls: Array.from({ length: 1001 }, () => ({ tool: 'shell', input: { command: 'ls' }, cwd: '/' })) } });
    assert.match(many.body.message, /calls/);
    assert.equal(many.status, 400);
  });
});

describe('authentication and scopes', () => {
  test('no token: 401 naming how to get one', async () => {
    const r = await s.call('POST', '/v1/decide', { body: shell('ls') });
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'unauthorized');
    assert.match(r.body.message, /asimov serve token create/);
  });

  test('a wrong or malformed token: 401; nothing is decided', async () => {
    for (const auth of ['Bearer asv_' + 'A'.repeat(43), 'Bearer nonsense', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const r = await fetch(`${s.url}/v1/decide`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(shell('ls')) });
      assert.equal(r.status, 401, auth);
      assert.equal((await r.json()).error, 'unauthorized');
    }
  });

  test('a token without the route\'s scope: 403 naming the scope', async () => {
    const r = await s.call('POST', '/v1/decide', { token: reader, body: shell('ls') });
    assert.equal(r.status, 403);
    assert.match(r.body.message, /lacks the 'decide' scope/);
  });

  test('a revoked token is refused from the next request', async () => {
    const t = await s.token(['decide'], 'short-lived');
    assert.equal((await s.call('POST', '/v1/decide', { token: t, body: shell('ls') })).status, 200);
    assert.equal(await s.server.deps.tokens.revoke('short-lived'), true);
    assert.equal((await s.call('POST', '/v1/decide', { token: t, body: shell('ls') })).status, 401);
  });

  test('the database keeps only a hash of each token', async () => {
    const rows = await s.server.db.query<{ hash: string }>('SELECT hash FROM tokens');
    for (const r of rows) {
      assert.match(r.hash, /^[0-9a-f]{64}$/);
      assert.notEqual(r.hash, decide);
    }
  });

  test('public routes need no token and say nothing about the policy', async () => {
    const h = await s.call('GET', '/healthz');
    assert.deepEqual(h.body, { ok: true, version: 'test' });
    const doc = await s.call('GET', '/openapi.json');
    assert.equal(doc.body.openapi, '3.1.0');
  });

  test('a cookie alone does not authorise a state-changing request without the x-asimov-request header', async () => {
    const headers = { cookie: `asimov_token=${decide}`, 'content-type': 'application/json' };
    const r = await fetch(`${s.url}/v1/decide`, { method: 'POST', headers, body: JSON.stringify(shell('ls')) });
    assert.equal(r.status, 403);
    assert.equal((await r.json()).error, 'csrf');
    const ok = await fetch(`${s.url}/v1/decide`, { method: 'POST', headers: { ...headers, 'x-asimov-request': '1' }, body: JSON.stringify(shell('ls')) });
    assert.equal(ok.status, 200);
  });
});

describe('bad requests get a clear JSON error', () => {
  test('malformed JSON', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, raw: '{"tool": "shell",', headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'bad_json');
  });

  test('invalid UTF-8 is refused, not replaced', async () => {
    const raw = Buffer.concat([Buffer.from('{"tool":"shell","cwd":"/tmp","input":{"command":"echo '), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);
    const r = await s.call('POST', '/v1/decide', { token: decide, raw, headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'bad_encoding');
  });

  test('a field of the wrong shape names the field', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, body: { tool: 'shell', input: { command: 'ls' }, cwd: 'relative/dir' } });
    assert.equal(r.status, 400);
    assert.match(r.body.message, /cwd/);
    const extra = await s.call('POST', '/v1/decide', { token: decide, body: { ...shell('ls'), intentSource: { kind: 'claude-transcript', path: '/etc/shadow' } } });
    assert.equal(extra.status, 400, 'a key the API does not take is refused, not ignored');
  });

  test('a body over the limit: 413, and nothing decided', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, body: shell(`echo ${'x'.repeat(70 * 1024)}`) });
    assert.equal(r.status, 413);
    assert.equal(r.body.error, 'body_too_large');
  });

  test('not JSON: 415', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, raw: 'tool=shell', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(r.status, 415);
    assert.equal(r.body.error, 'unsupported_media_type');
  });

  test('an unknown route: 404 in JSON', async () => {
    const r = await s.call('GET', '/v1/nothing', { token: decide });
    assert.equal(r.status, 404);
    assert.equal(r.body.error, 'not_found');
  });
});

describe('no CORS', () => {
  test('a request marked as from another origin is refused, and no CORS header is ever sent', async () => {
    const r = await s.call('POST', '/v1/decide', { token: decide, body: shell('ls'), headers: { origin: 'https://evil.example' } });
    assert.equal(r.status, 403);
    assert.equal(r.body.error, 'cross_origin');
    assert.equal(r.headers.get('access-control-allow-origin'), null);
    const pre = await fetch(`${s.url}/v1/decide`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(pre.headers.get('access-control-allow-origin'), null);
    const same = await s.call('POST', '/v1/decide', { token: decide, body: shell('ls'), headers: { origin: s.url } });
    assert.equal(same.status, 200);
  });
});

describe('the local socket', () => {
  test('this user\'s own requests need no token and are recorded as local', async () => {
    const socketPath = s.server.socketPath!;
    const answer = await new Promise<{ status: number; body: any }>((res, rej) => {
      const req = request({ socketPath, path: '/v1/decide', method: 'POST', headers: { 'content-type': 'application/json' } }, (resp) => {
        let d = '';
        resp.on('data', (c) => (d += c));
        resp.on('end', () => res({ status: resp.statusCode!, body: JSON.parse(d) }));
      });
      req.on('error', rej);
      req.end(JSON.stringify(shell('ls')));
    });
    assert.equal(answer.status, 200);
    const line = readFileSync(s.auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((l) => l.decision_id === answer.body.decisionId);
    assert.equal(line.principal, 'local');
  });
});

describe('rate limit', () => {
  test('a token past its limit gets 429; another token is not affected', async () => {
    const limited = await startTestServer({ rateLimitPerMinute: 3 });
    try {
      const a = await limited.token(['decide']);
      const b = await limited.token(['decide']);
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await limited.call('POST', '/v1/decide', { token: a, body: { tool: 'shell', input: { command: 'ls' }, cwd: limited.project } })).status);
      assert.deepEqual(codes, [200, 200, 200, 429]);
      const r = await limited.call('POST', '/v1/decide', { token: a, body: { tool: 'shell', input: { command: 'ls' }, cwd: limited.project } });
      assert.equal(r.body.error, 'rate_limited');
      assert.equal((await limited.call('POST', '/v1/decide', { token: b, body: { tool: 'shell', input: { command: 'ls' }, cwd: limited.project } })).status, 200);
    } finally {
      await limited.close();
    }
  });
});
