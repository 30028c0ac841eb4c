// A person on call, over HTTP against a real `asimov serve`: a soft call through /v1/decide waits for an
// answer given through the approvals API (approved, denied, unanswered), session grants, "always" and its
// proposed rule, hard_deny never offered, remote requesters (POST /v1/approvals and the long poll), and
// the webhook receiving JSON and Slack bodies.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from '../helpers/serve.ts';
import { createWebhookNotifier, webhookBody } from '../../src/server/notify.ts';
import { validatePolicyData } from '../../src/policy/schema.ts';

const SOFT = 'npm publish';
const TIMEOUT_SEC = 3;

interface Received {
  body: any;
  headers: IncomingMessage['headers'];
}

let s: TestServer;
let hook: Server;
let hookUrl = '';
const received: Received[] = [];
let decideToken = '';
let readToken = '';
let approveToken = '';

async function startReceiver(): Promise<void> {
  hook = createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => {
      received.push({ body: JSON.parse(data), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  const addr = hook.address();
  hookUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/hook`;
}

before(async () => {
  await startReceiver();
  s = await startTestServer({ webhook: { url: hookUrl, format: 'json' } });
  const configDir = join(s.home, '.config', 'asimov');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'policy.yaml'), `version: 1\napprovals:\n  timeoutSec: ${TIMEOUT_SEC}\n`);
  decideToken = await s.token(['decide'], 'bot');
  readToken = await s.token(['read'], 'viewer');
  approveToken = await s.token(['approve', 'read'], 'alice');
});

after(async () => {
  await s?.close();
  await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
});

function decide(command: string, extra: Record<string, unknown> = {}) {
  return s.call('POST', '/v1/decide', { token: decideToken, body: { tool: 'Bash', input: { command }, cwd: s.project, ...extra } });
}

/** The pending approval of the command, once it appears (polled; never a sleep of a guessed length). */
async function pendingFor(command: string): Promise<any> {
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    const r = await s.call('GET', '/v1/approvals', { token: readToken });
    assert.equal(r.status, 200);
    const a = r.body.approvals.find((x: any) => x.call.input.command === command && x.status === 'pending');
    if (a) return a;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`no pending approval for ${command}`);
}

function auditLine(decisionId: string): any {
  const line = readFileSync(s.auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((e) => e.decision_id === decisionId);
  assert.ok(line, `no audit line for ${decisionId}`);
  return line;
}

describe('a soft call through /v1/decide waits for a person on call', () => {
  test('an approval given through the API lets it run, and the audit says who approved', async () => {
    const pending = decide(`${SOFT} --tag a`);
    const a = await pendingFor(`${SOFT} --tag a`);
    assert.equal(a.requestedBy, 'bot');
    assert.equal(a.call.tool, 'shell');
    assert.equal(a.decision.rule, 'publish.npm');
    assert.equal(a.decision.tier, 'soft_deny');
    const answered = await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'allow', reason: 'release day' } });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.equal(answered.body.status, 'approved');
    assert.equal(answered.body.answeredBy, 'alice');
    assert.equal(answered.body.scope, 'once');
    const d = await pending;
    assert.equal(d.status, 200);
    assert.equal(d.body.verdict, 'allow');
    assert.match(d.body.reason, /Approved by alice: release day/);
    assert.deepEqual(d.body.approval, { id: a.id, by: 'alice', scope: 'once', verdict: 'allow', reason: 'release day' });
    const line = auditLine(d.body.decisionId);
    assert.equal(line.verdict, 'allow');
    assert.equal(line.principal, 'bot');
    assert.deepEqual(line.approval, { id: a.id, by: 'alice', scope: 'once', verdict: 'allow', reason: 'release day' });
    // Answering twice is a conflict.
    const again = await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'deny' } });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'conflict');
  });

  test('a denial refuses the call with the person\'s reason', async () => {
    const pending = decide(`${SOFT} --tag b`);
    const a = await pendingFor(`${SOFT} --tag b`);
    const answered = await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'deny', reason: 'not today' } });
    assert.equal(answered.status, 200);
    assert.equal(answered.body.status, 'denied');
    const d = await pending;
    assert.equal(d.body.verdict, 'deny');
    assert.match(d.body.reason, /Refused by alice: not today/);
    assert.equal(auditLine(d.body.decisionId).approval.verdict, 'deny');
  });

  test('no answer before the policy\'s timeout: denied with the cause, and the approval expires', async () => {
    const started = Date.now();
    const d = await decide(`${SOFT} --tag c`);
    const took = Date.now() - started;
    assert.equal(d.body.verdict, 'deny');
    assert.ok(took >= (TIMEOUT_SEC - 1) * 1000 && took < (TIMEOUT_SEC + 3) * 1000, `took ${took} ms`);
    assert.match(d.body.reason, /nobody answered approval/);
    assert.equal(d.body.errorCode, 'approval_timeout');
    const a = await s.call('GET', `/v1/approvals/${d.body.approval.id}`, { token: readToken });
    assert.equal(a.body.status, 'expired');
    const late = await s.call('POST', `/v1/approvals/${d.body.approval.id}/answer`, { token: approveToken, body: { verdict: 'allow' } });
    assert.equal(late.status, 409);
  });

  test('scope session: the same call in the same session runs without asking again; another session is asked', async () => {
    const cmd = `${SOFT} --tag d`;
    const first = decide(cmd, { sessionId: 'sess-1' });
    const a = await pendingFor(cmd);
    await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'allow', scope: 'session' } });
    assert.equal((await first).body.verdict, 'allow');
    const t0 = Date.now();
    const second = await decide(cmd, { sessionId: 'sess-1' });
    assert.equal(second.body.verdict, 'allow');
    assert.ok(Date.now() - t0 < 2000);
    assert.equal(second.body.approval.scope, 'session');
    assert.equal(second.body.approval.by, 'alice');
    assert.notEqual(second.body.approval.id, a.id, 'the grant is recorded as an approval of its own');
    const recorded = await s.call('GET', `/v1/approvals/${second.body.approval.id}`, { token: readToken });
    assert.equal(recorded.body.status, 'approved');
    assert.match(recorded.body.reason, new RegExp(`approval ${a.id}`));
    // Another session, or another call in the same session, is asked again.
    const other = decide(cmd, { sessionId: 'sess-2' });
    const b = await pendingFor(cmd);
    assert.equal(b.call.sessionId, 'sess-2');
    await s.call('POST', `/v1/approvals/${b.id}/answer`, { token: approveToken, body: { verdict: 'deny' } });
    assert.equal((await other).body.verdict, 'deny');
  });

  test('scope always: the call runs and a policy rule is proposed (valid, shown, never written)', async () => {
    const cmd = `${SOFT} --tag e`;
    const pending = decide(cmd);
    const a = await pendingFor(cmd);
    const answered = await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'allow', scope: 'always', reason: 'our own package' } });
    assert.equal(answered.status, 200);
    assert.equal((await pending).body.verdict, 'allow');
    const rule: string = answered.body.proposedRule;
    assert.match(rule, /tier: allow/);
    assert.match(rule, /publish\.npm/);
    const items = parseYaml(rule) as unknown[];
    const v = validatePolicyData({ version: 1, custom: items });
    assert.ok(v.ok, JSON.stringify(!v.ok && v.problems));
    assert.equal((items[0] as any).examples.match[0], cmd);
    assert.equal(readFileSync(join(s.home, '.config', 'asimov', 'policy.yaml'), 'utf8'), `version: 1\napprovals:\n  timeoutSec: ${TIMEOUT_SEC}\n`);
  });

  test('hard_deny is never offered: denied at once, no approval created, and the API refuses to create one', async () => {
    const before = (await s.call('GET', '/v1/approvals?status=all', { token: readToken })).body.approvals.length;
    const d = await decide('rm -rf /');
    assert.equal(d.body.verdict, 'deny');
    assert.equal(d.body.tier, 'hard_deny');
    assert.equal(d.body.approval, undefined);
    assert.equal((await s.call('GET', '/v1/approvals?status=all', { token: readToken })).body.approvals.length, before);
    const call = { tool: 'Bash', input: { command: 'rm -rf /' }, cwd: s.project };
    const claimed = { decisionId: 'x', tier: 'hard_deny', rule: 'fs.rm-catastrophic', reason: 'r', findings: [] };
    const r1 = await s.call('POST', '/v1/approvals', { token: decideToken, body: { call, decision: claimed } });
    assert.equal(r1.status, 422);
    assert.equal(r1.body.error, 'not_approvable');
    // A requester claiming a softer tier does not get past this server's own policy either.
    const r2 = await s.call('POST', '/v1/approvals', { token: decideToken, body: { call, decision: { ...claimed, tier: 'soft_deny' } } });
    assert.equal(r2.status, 422);
  });
});

describe('the approvals API', () => {
  test('a remote requester asks with POST /v1/approvals and long-polls the answer', async () => {
    const call = { tool: 'Bash', input: { command: `${SOFT} --tag remote`, token: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, cwd: s.project, agent: 'mcp-proxy', sessionId: 'r1' };
    const decision = { decisionId: 'd-remote', tier: 'soft_deny', rule: 'publish.npm', reason: 'publishes', findings: [] };
    const created = await s.call('POST', '/v1/approvals', { token: decideToken, body: { call, decision, timeoutSec: 30 } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const a = created.body;
    assert.equal(a.status, 'pending');
    assert.equal(a.call.agent, 'mcp-proxy');
    assert.doesNotMatch(JSON.stringify(a), /ghp_abcdef/, 'the input is redacted as the audit redacts it');
    // A short poll comes back pending.
    const short = await s.call('GET', `/v1/approvals/${a.id}/wait?timeoutMs=50`, { token: decideToken });
    assert.equal(short.status, 200);
    assert.equal(short.body.status, 'pending');
    const long = s.call('GET', `/v1/approvals/${a.id}/wait?timeoutMs=20000`, { token: decideToken });
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 100));
    await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'allow' } });
    const got = await long;
    assert.equal(got.body.status, 'approved');
    assert.ok(Date.now() - t0 < 2000, 'the long poll is woken by the answer');
  });

  test('scopes, unknown ids and bad answers', async () => {
    const call = { tool: 'Bash', input: { command: `${SOFT} --tag scopes` }, cwd: s.project };
    const decision = { decisionId: 'd-s', tier: 'soft_deny', rule: 'publish.npm', reason: 'publishes', findings: [] };
    const created = await s.call('POST', '/v1/approvals', { token: readToken, body: { call, decision } });
    assert.equal(created.status, 403);
    const a = (await s.call('POST', '/v1/approvals', { token: decideToken, body: { call, decision } })).body;
    assert.equal((await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: readToken, body: { verdict: 'allow' } })).status, 403);
    assert.equal((await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: decideToken, body: { verdict: 'allow' } })).status, 403);
    assert.equal((await s.call('GET', '/v1/approvals', {})).status, 401);
    assert.equal((await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'maybe' } })).status, 400);
    const denySession = await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'deny', scope: 'session' } });
    assert.equal(denySession.status, 400);
    const noSession = await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'allow', scope: 'session' } });
    assert.equal(noSession.status, 400);
    assert.match(noSession.body.message, /names no session/);
    assert.equal((await s.call('GET', '/v1/approvals/nope', { token: readToken })).status, 404);
    assert.equal((await s.call('POST', '/v1/approvals/nope/answer', { token: approveToken, body: { verdict: 'allow' } })).status, 404);
    const one = await s.call('GET', `/v1/approvals/${a.id}`, { token: readToken });
    assert.equal(one.body.status, 'pending');
    const list = await s.call('GET', '/v1/approvals?status=all', { token: readToken });
    const times = list.body.approvals.map((x: any) => Date.parse(x.createdAt));
    assert.deepEqual(times, [...times].sort((x, y) => y - x), 'newest first');
  });

  test('every change is published on the event bus', async () => {
    const seen: any[] = [];
    const off = s.server.deps.events.subscribe((e) => {
      if (e.type === 'approval') seen.push(e.data);
    });
    try {
      const call = { tool: 'Bash', input: { command: `${SOFT} --tag bus` }, cwd: s.project };
      const decision = { decisionId: 'd-b', tier: 'soft_deny', rule: 'publish.npm', reason: 'publishes', findings: [] };
      const a = (await s.call('POST', '/v1/approvals', { token: decideToken, body: { call, decision } })).body;
      await s.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict: 'deny' } });
      assert.deepEqual(seen.filter((x) => x.id === a.id).map((x) => x.status), ['pending', 'denied']);
    } finally {
      off();
    }
  });
});

describe('notifications', () => {
  test('the webhook receives each new approval as JSON, with a link to it', async () => {
    const call = { tool: 'Bash', input: { command: `${SOFT} --tag hook` }, cwd: s.project };
    const decision = { decisionId: 'd-h', tier: 'soft_deny', rule: 'publish.npm', reason: 'publishes', findings: [] };
    const a = (await s.call('POST', '/v1/approvals', { token: decideToken, body: { call, decision } })).body;
    const until = Date.now() + 5000;
    let got: Received | undefined;
    while (!got && Date.now() < until) {
      got = received.find((r) => r.body.approval?.id === a.id);
      if (!got) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(got, 'the webhook was called');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.body.type, 'approval');
    assert.equal(got.body.link, `${s.url}/#/approvals/${a.id}`);
    assert.equal(got.body.approval.call.input.command, `${SOFT} --tag hook`);
  });

  test('a Slack incoming-webhook body carries text, blocks and the link; a failing receiver is only logged', async () => {
    const a = (await s.call('GET', '/v1/approvals?status=all', { token: readToken })).body.approvals[0];
    const before = received.length;
    const logs: string[] = [];
    const slack = createWebhookNotifier({ url: hookUrl, format: 'slack', baseUrl: () => s.url, log: (l) => logs.push(l) });
    slack(a);
    const until = Date.now() + 5000;
    while (received.length === before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const body = received.at(-1)!.body;
    assert.deepEqual(body, webhookBody(a, 'slack', s.url));
    assert.equal(typeof body.text, 'string');
    assert.ok(String(body.text).includes(`${s.url}/#/approvals/${a.id}`));
    assert.ok(Array.isArray(body.blocks) && body.blocks.length > 0);
    assert.ok(JSON.stringify(body.blocks).includes(`/#/approvals/${a.id}`));
    const broken = createWebhookNotifier({ url: 'http://127.0.0.1:1/nothing', format: 'json', baseUrl: () => s.url, log: (l) => logs.push(l) });
    broken(a);
    const until2 = Date.now() + 5000;
    while (!logs.some((l) => l.includes('failed')) && Date.now() < until2) await new Promise((r) => setTimeout(r, 20));
    assert.ok(logs.some((l) => l.includes(`failed for approval ${a.id}`)), logs.join('\n'));
  });
});
