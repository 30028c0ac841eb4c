// POST /v1/proposals over HTTP against a real `asimov serve`: a model's reply in, its one EXECUTE: line
// decided (and run when asked and allowed), several lines refused without deciding anything.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/serve.ts';

let s: TestServer;
let both = '';
let decideOnly = '';

before(async () => {
  s = await startTestServer();
  both = await s.token(['decide', 'execute'], 'dispatcher');
  decideOnly = await s.token(['decide'], 'reviewer');
});
after(async () => {
  await s?.close();
});

const propose = (body: Record<string, unknown>, token: string | null = both) =>
  s.call('POST', '/v1/proposals', { ...(token ? { token } : {}), body: { cwd: s.project, ...body } });

function auditLines(): Record<string, any>[] {
  return readFileSync(s.auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

test('one command, decide only: the proposal and the decision, nothing run', async () => {
  const r = await propose({ text: 'I will create the marker.\n```\nEXECUTE: touch decided-only.txt\n```' }, decideOnly);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.proposal, { kind: 'command', command: 'touch decided-only.txt', line: 3 });
  assert.equal(r.body.decision.verdict, 'allow');
  assert.equal(r.body.execution, undefined);
  assert.equal(existsSync(join(s.project, 'decided-only.txt')), false);
  const rec = auditLines().find((l) => l.decision_id === r.body.decision.decisionId);
  assert.equal(rec?.principal, 'reviewer');
});

test('one command with execute: it runs, with stdin, and the output comes back', async () => {
  const r = await propose({ text: 'Checking.\r\nEXECUTE: cat; echo to-stderr >&2\r\n', execute: true, stdin: 'piped in\n', sessionId: 'conv-7' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.proposal.command, 'cat; echo to-stderr >&2');
  assert.equal(r.body.decision.verdict, 'allow');
  assert.equal(r.body.execution.executed, true);
  assert.equal(r.body.execution.exitCode, 0);
  assert.equal(r.body.execution.stdout, 'piped in\n');
  assert.equal(r.body.execution.stderr, 'to-stderr\n');
  assert.equal(auditLines().find((l) => l.decision_id === r.body.decision.decisionId)?.session, 'conv-7');
});

test('a refused command with execute: the denial and its rule, executed false, nothing on disk', async () => {
  const r = await propose({ text: 'EXECUTE: touch ~/planted-by-proposal', execute: true });
  assert.equal(r.body.decision.verdict, 'deny');
  assert.equal(r.body.decision.rule, 'fs.write-outside-project');
  assert.equal(r.body.execution.executed, false);
  assert.equal(r.body.execution.stdout, null);
  assert.equal(existsSync(join(s.home, 'planted-by-proposal')), false);
});

test('rm -rf / is denied with its reason', async () => {
  const r = await propose({ text: 'Cleaning up.\nEXECUTE: rm -rf /', execute: true });
  assert.equal(r.body.decision.verdict, 'deny');
  assert.equal(r.body.decision.tier, 'hard_deny');
  assert.match(r.body.decision.reason, /wipes the system/);
  assert.equal(r.body.execution.executed, false);
});

test('several EXECUTE lines: refused as a whole, nothing decided or run', async () => {
  const before = auditLines().length;
  const r = await propose({ text: 'EXECUTE: touch one.txt\nEXECUTE: touch two.txt', execute: true });
  assert.equal(r.status, 200);
  assert.equal(r.body.proposal.kind, 'several');
  assert.deepEqual(r.body.proposal.commands, ['touch one.txt', 'touch two.txt']);
  assert.match(r.body.proposal.reason, /one at a time/);
  assert.equal(r.body.decision, undefined);
  assert.equal(r.body.execution, undefined);
  assert.equal(existsSync(join(s.project, 'one.txt')), false);
  assert.equal(auditLines().length, before, 'something was decided');
});

test('no EXECUTE line: none; an empty one: invalid with a reason', async () => {
  const none = await propose({ text: 'All links are up; nothing to run. (execute: nothing)', execute: true });
  assert.deepEqual(none.body, { proposal: { kind: 'none' } });
  const empty = await propose({ text: 'EXECUTE:', execute: true });
  assert.equal(empty.body.proposal.kind, 'invalid');
  assert.match(empty.body.proposal.reason, /no command/);
});

test('execute: true with a cwd outside the roots is a 403 and runs nothing', async () => {
  const r = await propose({ text: 'EXECUTE: touch x', execute: true, cwd: s.root });
  assert.equal(r.status, 403);
  assert.equal(r.body.error, 'cwd_outside_roots');
  assert.equal(existsSync(join(s.root, 'x')), false);
});

test('auth: no token 401; execute: true without the execute scope 403; a token without decide 403', async () => {
  assert.equal((await propose({ text: 'EXECUTE: ls' }, null)).status, 401);
  const noExec = await propose({ text: 'EXECUTE: touch by-reviewer.txt', execute: true }, decideOnly);
  assert.equal(noExec.status, 403);
  assert.match(noExec.body.message, /'execute' scope/);
  assert.equal(existsSync(join(s.project, 'by-reviewer.txt')), false);
  const execOnly = await s.token(['execute']);
  assert.equal((await propose({ text: 'EXECUTE: ls' }, execOnly)).status, 403);
});

test('the OpenAPI document describes both routes, with their bodies and answers', async () => {
  const r = await s.call('GET', '/openapi.json');
  assert.equal(r.status, 200);
  for (const path of ['/v1/execute', '/v1/proposals']) {
    const op = r.body.paths[path]?.post;
    assert.ok(op, `${path} is missing`);
    assert.ok(op.requestBody, `${path} has no body schema`);
    assert.ok(op.responses['200'].content['application/json'].schema, `${path} has no answer schema`);
  }
  assert.deepEqual(r.body.paths['/v1/execute'].post.requestBody.content['application/json'].schema.required?.sort(), ['command', 'cwd']);
});
