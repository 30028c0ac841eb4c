// The real Claude Code CLI headless (`claude -p`, scripted model) with asimov wired in and a user policy
// whose `approvals:` names a real `asimov serve`: the soft call waits for a person on call, runs once
// approved through the API, and is refused (the model told why) when denied.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startAnthropicServer, stepToolResult } from '../helpers/anthropic-server.ts';
import { makeScratch, runClaude } from '../helpers/claude-cli.ts';
import { startTestServer, type TestServer } from '../helpers/serve.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');

let s: ReturnType<typeof makeScratch>;
let srv: TestServer;
let auditLog = '';
let decideToken = '';
let approveToken = '';

before(async () => {
  s = makeScratch('asimov-e2e-approvals-');
  mkdirSync(join(s.project, '.git'));
  for (const f of ['approved.sh', 'denied.sh']) writeFileSync(join(s.project, f), 'echo hi\n', { mode: 0o644 });
  auditLog = join(s.root, 'audit.jsonl');
  srv = await startTestServer();
  decideToken = await srv.token(['decide'], 'claude-ci');
  approveToken = await srv.token(['approve', 'read'], 'carol');
  mkdirSync(join(s.home, '.config', 'asimov'), { recursive: true });
  writeFileSync(join(s.home, '.config', 'asimov', 'policy.yaml'), `version: 1\napprovals:\n  server: ${srv.url}\n  timeoutSec: 30\n`);
  const wired = spawnSync(process.execPath, [BIN, 'wire', 'claude'], { cwd: s.project, env: { PATH: process.env.PATH ?? '', HOME: s.home, ASIMOV_AUDIT_LOG: auditLog }, encoding: 'utf8' });
  assert.equal(wired.status, 0, wired.stderr);
});

after(async () => {
  await srv?.close();
  s?.cleanup();
});

/** Answers the first pending approval for `command` as it appears; the approval it answered. */
async function answerWhenAsked(command: string, verdict: 'allow' | 'deny', reason: string): Promise<any> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const r = await srv.call('GET', '/v1/approvals', { token: approveToken });
    const a = r.body.approvals?.find((x: any) => x.call.input.command === command);
    if (a) {
      const answered = await srv.call('POST', `/v1/approvals/${a.id}/answer`, { token: approveToken, body: { verdict, reason } });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      return answered.body;
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`nobody asked about ${command}`);
}

async function session(command: string, verdict: 'allow' | 'deny', reason: string) {
  const model = await startAnthropicServer({ script: [{ tools: [{ name: 'Bash', input: { command } }] }, { text: 'done' }] });
  try {
    const run = runClaude({
      home: s.home, cwd: s.project, baseUrl: model.url, prompt: 'do the task', allowedTools: ['Bash'],
      env: { ASIMOV_AUDIT_LOG: auditLog, ASIMOV_APPROVALS_TOKEN: decideToken },
      timeoutMs: 90_000,
    });
    const approval = await answerWhenAsked(command, verdict, reason);
    const r = await run;
    const result = stepToolResult(model.allToolResults(), 0, `exit ${r.code}, stderr ${r.stderr.slice(0, 400)}`);
    return { run: r, approval, result };
  } finally {
    await model.close();
  }
}

describe('claude -p with a person on call', () => {
  test('a soft call waits for approval and runs once approved', async () => {
    // A soft call (fs.chmod-world-writable) whose effect is easy to see and stays in the scratch project.
    const command = 'chmod 777 approved.sh';
    const { approval, result } = await session(command, 'allow', 'fine for the demo');
    assert.equal(approval.status, 'approved');
    assert.equal(approval.requestedBy, 'claude-ci');
    assert.equal(approval.call.agent, 'claude-code');
    assert.equal(approval.decision.rule, 'fs.chmod-world-writable');
    assert.equal(result.is_error, false, result.text);
    assert.equal(statSync(join(s.project, 'approved.sh')).mode & 0o777, 0o777, 'the approved command ran');
    const line = readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((e) => e.approval?.id === approval.id);
    assert.ok(line, 'the hook\'s audit line names the approval');
    assert.equal(line.verdict, 'allow');
    assert.deepEqual(line.approval, { id: approval.id, by: 'carol', scope: 'once', verdict: 'allow', reason: 'fine for the demo' });
  });

  test('a denial refuses it and the model is told why', async () => {
    const command = 'chmod 777 denied.sh';
    const { approval, result } = await session(command, 'deny', 'not outside the project');
    assert.equal(approval.status, 'denied');
    assert.equal(result.is_error, true);
    assert.match(result.text, /Refused by carol: not outside the project/);
    assert.equal(statSync(join(s.project, 'denied.sh')).mode & 0o777, 0o644, 'the denied command never ran');
  });
});
