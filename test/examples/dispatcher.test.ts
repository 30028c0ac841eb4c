// examples/dispatcher/dispatcher.py, the seed's flow end to end: the real python3 process, a real `asimov
// serve`, and a scripted OpenAI-compatible model on 127.0.0.1 whose replies propose commands. What the
// dispatcher feeds back (output, denial and reason, "one at a time") is read from the model's next request.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startOpenAIServer, type CapturedChatRequest, type OpenAIServer } from '../helpers/openai-server.ts';
import { startTestServer, type TestServer } from '../helpers/serve.ts';

const DISPATCHER = resolve(import.meta.dirname, '../../examples/dispatcher/dispatcher.py');
const PYTHON = spawnSync('python3', ['--version']).status === 0;
const skip = PYTHON ? false : 'python3 is not installed: the dispatcher example cannot run';

/** Each conversation's scripted model replies, chosen by the task (the first user message). */
const SCRIPTS: Record<string, string[]> = {
  'run-allowed': ['Let me look first.\nEXECUTE: echo dispatcher-marker-42; printf "%s\\n" warn-line >&2', 'The marker came back. Done.'],
  'run-denied': ['Freeing disk space.\n```\nEXECUTE: rm -rf /\n```', 'Understood, I will not do that.'],
  'run-several': ['EXECUTE: touch first.txt\nEXECUTE: touch second.txt', 'EXECUTE: touch first.txt', 'Created first.txt.'],
  'run-forever': ['EXECUTE: true'],
  'run-soft': ['The script must be executable by everyone.\nEXECUTE: chmod 777 soft.sh', 'Done.'],
};

let s: TestServer;
let model: OpenAIServer;
let token = '';

before(async () => {
  if (!PYTHON) return;
  s = await startTestServer();
  token = await s.token(['decide', 'execute'], 'dispatcher');
  model = await startOpenAIServer({
    onRequest: (req) => {
      const messages = req.body.messages as { role: string; content: string }[];
      const script = SCRIPTS[messages[1]!.content]!;
      const step = messages.filter((m) => m.role === 'assistant').length;
      return { kind: 'message', content: script[Math.min(step, script.length - 1)]! };
    },
  });
});
after(async () => {
  await model?.close();
  await s?.close();
});

function runDispatcher(task: string, extra: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(
      'python3',
      [DISPATCHER, task, '--cwd', s.project, ...extra],
      {
        env: { PATH: process.env.PATH, ASIMOV_URL: s.url, ASIMOV_TOKEN: token, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-scripted', OPENAI_MODEL: 'scripted-model' },
        timeout: 60_000,
      },
      (err, stdout, stderr) => res({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

function conversation(task: string): CapturedChatRequest[] {
  return model.requests.filter((r) => r.body.messages[1].content === task);
}

function lastUserMessage(r: CapturedChatRequest): string {
  const m = r.body.messages as { role: string; content: string }[];
  return m[m.length - 1]!.content;
}

describe('the dispatcher example', { skip }, () => {
  test('an allowed command runs and its output reaches the model\'s next request', async () => {
    const r = await runDispatcher('run-allowed');
    assert.equal(r.code, 0, r.stderr);
    const reqs = conversation('run-allowed');
    assert.equal(reqs.length, 2);
    assert.equal(reqs[0]!.headers.authorization, 'Bearer sk-scripted');
    assert.equal(reqs[0]!.body.messages[0].role, 'system');
    const fed = lastUserMessage(reqs[1]!);
    assert.match(fed, /^\$ echo dispatcher-marker-42/);
    assert.match(fed, /exit code: 0/);
    assert.match(fed, /stdout:\ndispatcher-marker-42\n/);
    assert.match(fed, /stderr:\nwarn-line/);
    assert.match(r.stdout, /--- model\nThe marker came back\. Done\./);
  });

  test('rm -rf / is denied, and the model is told the rule and the reason', async () => {
    const r = await runDispatcher('run-denied');
    assert.equal(r.code, 0, r.stderr);
    const reqs = conversation('run-denied');
    assert.equal(reqs.length, 2);
    const fed = lastUserMessage(reqs[1]!);
    assert.match(fed, /asimov refused the command \[fs\.rm-catastrophic\] \(deny, hard_deny\)/);
    assert.match(fed, /wipes the system/);
    assert.match(fed, /did not run/);
  });

  test('several EXECUTE lines: nothing runs and the model is told one at a time; its single command then runs', async () => {
    const r = await runDispatcher('run-several');
    assert.equal(r.code, 0, r.stderr);
    const reqs = conversation('run-several');
    assert.equal(reqs.length, 3);
    assert.match(lastUserMessage(reqs[1]!), /nothing ran\. .*one at a time/s);
    assert.match(lastUserMessage(reqs[2]!), /^\$ touch first\.txt\nexit code: 0/);
    assert.equal(existsSync(join(s.project, 'first.txt')), true);
    assert.equal(existsSync(join(s.project, 'second.txt')), false);
  });

  test('a model that never stops is cut at the step limit (exit 3)', async () => {
    const r = await runDispatcher('run-forever', ['--max-steps', '2']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /stopped after 2 steps/);
    assert.equal(conversation('run-forever').length, 2);
  });

  test('a token without the execute scope: the dispatcher stops with asimov\'s message (exit 1)', async () => {
    const decideOnly = await s.token(['decide']);
    const r = await new Promise<{ code: number; stderr: string }>((res) => {
      execFile('python3', [DISPATCHER, 'run-allowed', '--cwd', s.project, '--token', decideOnly, '--asimov-url', s.url, '--model-url', model.baseUrl], { env: { PATH: process.env.PATH }, timeout: 60_000 }, (err, _o, stderr) =>
        res({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      );
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /answered 403: .*'execute' scope/);
  });

  test('a soft call waits for a person on call, approved through the API, then runs', async () => {
    // The server's user policy puts a person on call (it reloads on change).
    mkdirSync(join(s.home, '.config', 'asimov'), { recursive: true });
    writeFileSync(join(s.home, '.config', 'asimov', 'policy.yaml'), 'version: 1\napprovals:\n  timeoutSec: 60\n');
    writeFileSync(join(s.project, 'soft.sh'), '#!/bin/sh\n', { mode: 0o644 });
    const alice = await s.token(['approve', 'read'], 'alice');
    const running = runDispatcher('run-soft');
    let pending: { id: string; call: { input: { command: string } } } | undefined;
    for (let i = 0; i < 300 && !pending; i++) {
      const list = await s.call('GET', '/v1/approvals?status=pending', { token: alice });
      pending = list.body.approvals[0];
      if (!pending) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(pending, 'the call waits as a pending approval');
    assert.equal(pending.call.input.command, 'chmod 777 soft.sh');
    assert.equal((statSync(join(s.project, 'soft.sh')).mode & 0o777), 0o644, 'nothing ran before the answer');
    const answered = await s.call('POST', `/v1/approvals/${pending.id}/answer`, { token: alice, body: { verdict: 'allow', scope: 'once', reason: 'fine for the demo' } });
    assert.equal(answered.status, 200);
    const r = await running;
    assert.equal(r.code, 0, r.stderr);
    assert.equal((statSync(join(s.project, 'soft.sh')).mode & 0o777), 0o777, 'it ran once approved');
    const fed = lastUserMessage(conversation('run-soft')[1]!);
    assert.match(fed, /^\$ chmod 777 soft\.sh\nexit code: 0/);
    const line = readFileSync(s.auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).reverse().find((l) => l.input?.command === 'chmod 777 soft.sh');
    assert.equal(line.verdict, 'allow');
    assert.equal(line.approval.by, 'alice');
    assert.equal(line.principal, 'dispatcher');
  });
});

if (!PYTHON) test('the dispatcher example needs python3', { skip: 'python3 is not installed' }, () => {});
