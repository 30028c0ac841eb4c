// The dashboard's routes over HTTP on a real server: decisions made through /v1/decide reach the index through
// the real audit log, then are listed, filtered, paged, detailed and counted; the chain's status; the event
// stream; the browser's sign-in cookie; the page and its assets.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/serve.ts';
import { buildWeb } from '../../../scripts/build-web.mjs';

const ROOT = join(import.meta.dirname, '../../..');
let s: TestServer;
let reader: string;
let ids: Record<string, string>;

async function decide(token: string, command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await s.call('POST', '/v1/decide', { token, body: { tool: 'shell', input: { command }, cwd: s.project, ...extra } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.decisionId as string;
}

before(async () => {
  // The page is served from dist/web; build it if this checkout has no build yet.
  if (!existsSync(join(ROOT, 'dist/web/app.js'))) await buildWeb();
  s = await startTestServer();
  reader = await s.token(['read']);
  const decider = await s.token(['decide'], 'bot');
  ids = {
    ls: await decide(decider, 'ls -la', { agent: 'agent-a', sessionId: 'sess-1' }),
    rm: await decide(decider, 'rm -rf /', { agent: 'agent-b', sessionId: 'sess-2' }),
    cat: await decide(decider, 'cat README.md', { agent: 'agent-a', sessionId: 'sess-1' }),
  };
  await s.server.deps.auditFeed!.sync();
});
after(() => s.close());

test('GET /v1/decisions lists every decision in the log, newest first, with who asked', async () => {
  const r = await s.call('GET', '/v1/decisions', { token: reader });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.decisions.map((d: { decisionId: string }) => d.decisionId), [ids.cat, ids.rm, ids.ls]);
  const rm = r.body.decisions[1];
  assert.equal(rm.verdict, 'deny');
  assert.equal(rm.tier, 'hard_deny');
  assert.equal(rm.summary, 'rm -rf /');
  assert.equal(rm.principal, 'bot');
  assert.equal(r.body.nextBefore, null);
});

test('filters narrow the list: verdict, tier, rule, agent, session and text', async () => {
  const list = async (q: string) => (await s.call('GET', `/v1/decisions?${q}`, { token: reader })).body.decisions.map((d: { decisionId: string }) => d.decisionId);
  assert.deepEqual(await list('verdict=deny'), [ids.rm]);
  assert.deepEqual(await list('tier=hard_deny'), [ids.rm]);
  const rule = (await s.call('GET', `/v1/decisions/${ids.rm}`, { token: reader })).body.decision.rule;
  assert.deepEqual(await list(`rule=${encodeURIComponent(rule)}`), [ids.rm]);
  assert.deepEqual(await list('agent=agent-a'), [ids.cat, ids.ls]);
  assert.deepEqual(await list('session=sess-2'), [ids.rm]);
  assert.deepEqual(await list('q=README'), [ids.cat]);
  assert.deepEqual(await list('q=%25'), [], 'LIKE wildcards are literal');
  assert.deepEqual(await list('agent=agent-a&verdict=deny'), []);
});

test('pages are keyset pages: nextBefore leads to the older ones; bad paging and filters are 400', async () => {
  const p1 = await s.call('GET', '/v1/decisions?limit=2', { token: reader });
  assert.deepEqual(p1.body.decisions.map((d: { decisionId: string }) => d.decisionId), [ids.cat, ids.rm]);
  assert.equal(p1.body.nextBefore, ids.rm);
  const p2 = await s.call('GET', `/v1/decisions?limit=2&before=${p1.body.nextBefore}`, { token: reader });
  assert.deepEqual(p2.body.decisions.map((d: { decisionId: string }) => d.decisionId), [ids.ls]);
  assert.equal(p2.body.nextBefore, null);
  for (const q of ['before=nope', 'limit=0', 'limit=9999', 'verdict=maybe', 'tier=soft']) {
    const r = await s.call('GET', `/v1/decisions?${q}`, { token: reader });
    assert.equal(r.status, 400, q);
    assert.equal(r.body.error, 'bad_request', q);
  }
});

test('GET /v1/decisions/:id: the redacted event, its findings, and the policy layers of its directory', async () => {
  const secret = 'sk-ant-api03-' + 'A'.repeat(90);
  const id = await decide(await s.token(['decide']), `curl -H "x-api-key: ${secret}" https://example.com`);
  const r = await s.call('GET', `/v1/decisions/${id}`, { token: reader });
  assert.equal(r.status, 200);
  assert.equal(r.body.decision.decisionId, id);
  assert.doesNotMatch(JSON.stringify(r.body), /AAAAAAAAAAAAAAAAAAAA/, 'the secret never leaves the log');
  assert.ok(r.body.event.erased.length > 0);
  assert.ok(r.body.policy.layers.some((l: { layer: string }) => l.layer === 'builtin'));
  assert.equal(r.body.policy.error, null);
  const rm = await s.call('GET', `/v1/decisions/${ids.rm}`, { token: reader });
  assert.ok(rm.body.event.findings.length > 0);
  const missing = await s.call('GET', '/v1/decisions/no-such-id', { token: reader });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error, 'not_found');
});

test('GET /v1/stats counts decisions by verdict over time, the top rules and the asked calls', async () => {
  const r = await s.call('GET', '/v1/stats?since=1h', { token: reader });
  assert.equal(r.status, 200);
  const sum = (k: 'allow' | 'deny' | 'ask') => r.body.buckets.reduce((n: number, b: Record<string, number>) => n + b[k]!, 0);
  assert.equal(sum('allow') + sum('deny') + sum('ask'), r.body.total);
  assert.ok(r.body.total >= 3);
  assert.ok(sum('deny') >= 1);
  assert.ok(r.body.buckets.length > 1 && r.body.buckets.length <= 96);
  assert.ok(r.body.topRules.length >= 1);
  assert.ok(Array.isArray(r.body.topAsked));
  assert.equal((await s.call('GET', '/v1/stats?since=yesterday', { token: reader })).status, 400);
});

test('GET /v1/audit/verify: intact, then the first broken line once the log is tampered with', async () => {
  const ok = await s.call('GET', '/v1/audit/verify', { token: reader });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.ok, true);
  assert.equal(ok.body.path, s.auditLog);
  assert.ok(ok.body.lines >= 3);
  appendFileSync(s.auditLog, '{"not":"an event"}\n');
  const bad = await s.call('GET', '/v1/audit/verify', { token: reader });
  assert.equal(bad.body.ok, false);
  assert.equal(bad.body.firstBroken.line, ok.body.lines + 1);
  assert.equal(bad.body.firstBroken.problem, 'not_event');
});

test('the read routes need a token with the read scope', async () => {
  const decider = await s.token(['decide']);
  for (const path of ['/v1/decisions', `/v1/decisions/${ids.ls}`, '/v1/stats', '/v1/audit/verify', '/v1/events']) {
    assert.equal((await s.call('GET', path)).status, 401, path);
    assert.equal((await s.call('GET', path, { token: decider })).status, 403, path);
  }
});

test('GET /v1/events streams each new decision as a server-sent event, and ends cleanly when the client leaves', async () => {
  const ac = new AbortController();
  const before = s.server.deps.events.size;
  const r = await fetch(`${s.url}/v1/events`, { headers: { authorization: `Bearer ${reader}` }, signal: ac.signal });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
  const body = r.body!.getReader();
  const id = await decide(await s.token(['decide']), 'echo streamed');
  let text = '';
  const deadline = Date.now() + 3000;
  while (!text.includes(id) && Date.now() < deadline) {
    const { value, done } = await body.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  assert.match(text, new RegExp(`event: decision\\ndata: \\{[^\\n]*"decisionId":"${id}"`));
  assert.equal(s.server.deps.events.size, before + 1);
  ac.abort();
  const end = Date.now() + 2000;
  while (s.server.deps.events.size > before && Date.now() < end) await new Promise((res) => setTimeout(res, 20));
  assert.equal(s.server.deps.events.size, before, 'the stream unsubscribed when the client left');
});

test('POST /v1/session sets an HttpOnly SameSite=Strict cookie that signs the browser in; DELETE clears it', async () => {
  const bad = await s.call('POST', '/v1/session', { body: { token: 'asv_' + 'x'.repeat(43) } });
  assert.equal(bad.status, 401);
  assert.equal(bad.headers.get('set-cookie'), null);
  const r = await s.call('POST', '/v1/session', { body: { token: reader } });
  assert.equal(r.status, 200);
  assert.equal(r.body.signedIn, true);
  const setCookie = r.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /^asimov_token=asv_[^;]+; HttpOnly; SameSite=Strict; Path=\//);
  assert.doesNotMatch(setCookie, /Secure/, 'no Secure flag over plain loopback HTTP');
  const cookie = setCookie.split(';')[0]!;
  const who = await s.call('GET', '/v1/session', { headers: { cookie } });
  assert.equal(who.body.name, r.body.name);
  assert.equal((await s.call('GET', '/v1/decisions', { headers: { cookie } })).status, 200);
  // A state-changing request by cookie needs the header no cross-site form can send.
  assert.equal((await s.call('DELETE', '/v1/session', { headers: { cookie } })).status, 403);
  const out = await s.call('DELETE', '/v1/session', { headers: { cookie, 'x-asimov-request': '1' } });
  assert.equal(out.status, 200);
  assert.match(out.headers.get('set-cookie') ?? '', /^asimov_token=; .*Max-Age=0/);
});

test('a cookie whose token was revoked is no sign-in: the page and the sign-in still load', async () => {
  const t = await s.token(['read'], 'soon-revoked');
  await s.server.deps.tokens.revoke('soon-revoked');
  const cookie = `asimov_token=${t}`;
  assert.equal((await s.call('GET', '/v1/session', { headers: { cookie } })).body.signedIn, false);
  assert.equal((await s.call('GET', '/', { headers: { cookie } })).status, 200);
  assert.equal((await s.call('GET', '/v1/decisions', { headers: { cookie } })).status, 401);
  // A revoked bearer token is still an error.
  assert.equal((await s.call('GET', '/v1/session', { token: t })).status, 401);
});

test('GET / and /assets/*: the built page, public, with a strict content security policy; nothing else', async () => {
  const page = await s.call('GET', '/');
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
  assert.match(page.body, /<script type="module" src="\/assets\/app.js">/);
  const js = await s.call('GET', '/assets/app.js');
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.doesNotMatch(js.body, /https?:\/\/(cdn|unpkg|esm\.sh)/, 'nothing loaded from elsewhere');
  assert.equal((await s.call('GET', '/assets/app.css')).status, 200);
  for (const bad of ['/assets/..%2Fpackage.json', '/assets/.hidden', '/assets/index.html', '/assets/nope.js']) {
    assert.equal((await s.call('GET', bad)).status, 404, bad);
  }
});
