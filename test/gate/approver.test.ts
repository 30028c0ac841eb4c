// The gate's person on call away from the server: a gate with no person at the agent (as in the MCP proxy and
// the gated tools) whose user policy names an approvals server waits for the answer given through the API;
// no answer, no token, an untrusted project's `approvals:` and a server killed while the call waits all deny.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate } from '../../src/gate/gate.ts';
import { validatePolicyData } from '../../src/policy/schema.ts';
import { startTestServer, type TestServer } from '../helpers/serve.ts';

let srv: TestServer;
let root = '';
let home = '';
let project = '';
let decideToken = '';
let approveToken = '';

before(async () => {
  srv = await startTestServer();
  decideToken = await srv.token(['decide'], 'mcp-proxy');
  approveToken = await srv.token(['approve', 'read'], 'dave');
  root = mkdtempSync(join(tmpdir(), 'asimov-approver-'));
  home = join(root, 'home');
  project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(home, '.config', 'asimov'), { recursive: true });
  writeFileSync(join(home, '.config', 'asimov', 'policy.yaml'), `version: 1\napprovals:\n  server: ${srv.url}\n  timeoutSec: 2\n  token_env: MY_APPROVALS_TOKEN\n`);
});

after(async () => {
  await srv?.close();
  rmSync(root, { recursive: true, force: true });
});

function gate(env: NodeJS.ProcessEnv = { MY_APPROVALS_TOKEN: decideToken }) {
  return createGate({ env: { HOME: home, PATH: process.env.PATH, ...env }, home, audit: false, sessionState: false });
}

const soft = (tag: string) => ({ tool: 'shell', input: { command: `npm publish --tag ${tag}` }, cwd: project, agent: 'mcp' });

async function answer(tag: string, verdict: 'allow' | 'deny'): Promise<string> {
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    const r = await srv.call('GET', '/v1/approvals', { token: approveToken });
    const a = r.body.approvals.find((x: any) => x.call.input.command === `npm publish --tag ${tag}`);
    if (a) {
      assert.equal((await srv.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict } })).status, 200);
      return a.id;
    }
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error('nobody was asked');
}

describe('a gate with a policy approvals server', () => {
  test('waits for the answer given through the API; allow lets the call run', async () => {
    const pending = gate().decide(soft('g1'), { personAvailable: false });
    const id = await answer('g1', 'allow');
    const d = await pending;
    assert.equal(d.verdict, 'allow');
    assert.deepEqual(d.approval, { id, by: 'dave', scope: 'once', verdict: 'allow', reason: null });
    const a = await srv.call('GET', `/v1/approvals/${id}`, { token: approveToken });
    assert.equal(a.body.requestedBy, 'mcp-proxy');
  });

  test('a deny and no answer in time both refuse the call, with the cause', async () => {
    const pending = gate().decide(soft('g2'), { personAvailable: false });
    await answer('g2', 'deny');
    assert.equal((await pending).verdict, 'deny');
    const t0 = Date.now();
    const late = await gate().decide(soft('g3'), { personAvailable: false });
    assert.equal(late.verdict, 'deny');
    assert.equal(late.errorCode, 'approval_timeout');
    assert.ok(Date.now() - t0 < 5000);
  });

  test('the client\'s deadline bounds the wait', async () => {
    const t0 = Date.now();
    const d = await gate().decide(soft('g4'), { personAvailable: false, deadline: Date.now() + 1200 });
    assert.equal(d.verdict, 'deny');
    assert.ok(Date.now() - t0 < 1800, `took ${Date.now() - t0} ms`);
  });

  test('without the token the server refuses and the call is denied, naming the variable', async () => {
    const d = await gate({}).decide(soft('g5'), { personAvailable: false });
    assert.equal(d.verdict, 'deny');
    assert.equal(d.errorCode, 'approval_error');
    assert.match(d.reason, /answered 401.*MY_APPROVALS_TOKEN/);
  });

  test('a person at the agent is asked as before; hard_deny never reaches the approver', async () => {
    assert.equal((await gate().decide(soft('g6'))).verdict, 'ask');
    const d = await gate().decide({ ...soft('x'), input: { command: 'rm -rf /' } }, { personAvailable: false });
    assert.equal(d.verdict, 'deny');
    assert.equal(d.approval, undefined);
  });

  test('an untrusted project policy cannot name an approvals server', async () => {
    const p = join(home, 'untrusted');
    mkdirSync(join(p, '.git'), { recursive: true });
    mkdirSync(join(p, '.asimov'));
    writeFileSync(join(p, '.asimov', 'policy.yaml'), 'version: 1\napprovals:\n  server: http://127.0.0.1:9\n');
    const g = createGate({ env: { HOME: join(root, 'bare'), PATH: process.env.PATH }, home: join(root, 'bare'), audit: false, sessionState: false });
    const policy = g.policyFor(p);
    assert.equal(policy.approvals, undefined);
    assert.ok(policy.warnings.some((w) => /approvals/.test(w)), policy.warnings.join('\n'));
    const d = await g.decide({ ...soft('u'), cwd: p }, { personAvailable: false });
    assert.equal(d.verdict, 'deny');
    assert.equal(d.approval, undefined);
  });

  test('the policy key is checked with clear messages', () => {
    const bad = validatePolicyData({ version: 1, approvals: { server: 'ftp://x', timeoutSec: 0, token: 'secret' } });
    assert.equal(bad.ok, false);
    const msgs = !bad.ok ? bad.problems.map((p) => p.message).join('\n') : '';
    assert.match(msgs, /server must be an http/);
    assert.match(msgs, /unknown key "token"; known keys: server, timeoutSec, token_env/);
    assert.ok(validatePolicyData({ version: 1, approvals: { server: 'https://gate.example:7420', timeoutSec: 60, token_env: 'X' } }).ok);
  });

  // Last: it stops the shared server.
  test('the server killed while a call waits: the call is denied', async () => {
    const pending = gate().decide(soft('g7'), { personAvailable: false, deadline: Date.now() + 20_000 });
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      const r = await srv.call('GET', '/v1/approvals', { token: approveToken });
      if (r.body.approvals.some((x: any) => x.call.input.command === 'npm publish --tag g7')) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    const t0 = Date.now();
    await srv.server.close();
    const d = await pending;
    assert.equal(d.verdict, 'deny');
    assert.match(d.errorCode ?? '', /^approval_(unreachable|error|timeout)$/);
    assert.ok(Date.now() - t0 < 5000, 'denied promptly, not at the deadline');
  });
});
