// The judge behind Claude Code's hook: the real CLI, asimov wired in, a user policy that turns the judge on,
// and a second scripted server playing the judge. The judge's verdicts must take effect on disk, its
// reasons must reach the model, a hanging judge must end in a block within the hook's deadline, and a
// hard deny must never reach the judge at all.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startAnthropicServer, type AnthropicServer, type ScriptReply, type ScriptStep } from '../helpers/anthropic-server.ts';
import { makeScratch, runClaude } from '../helpers/claude-cli.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');

let s: ReturnType<typeof makeScratch>;
let judge: AnthropicServer;
/** What the scripted judge answers next; 'hang' never answers. */
let judgeAnswer: { verdict: 'allow' | 'deny'; reason: string } | 'hang' = 'hang';

function verdictReply(v: { verdict: string; reason: string }): ScriptReply {
  return { kind: 'message', content: [{ type: 'tool_use', id: 'toolu_judge', name: 'record_verdict', input: v }], stopReason: 'tool_use' };
}

async function session(steps: ScriptStep[]) {
  const model = await startAnthropicServer({ script: [...steps, { text: 'done' }] });
  try {
    const run = await runClaude({
      home: s.home, cwd: s.project, baseUrl: model.url, prompt: 'do the task', allowedTools: ['Bash'],
      env: { ASIMOV_AUDIT_LOG: join(s.root, 'audit.jsonl'), PATH: `${join(s.root, 'bin')}:${process.env.PATH ?? ''}` },
    });
    assert.equal(run.code, 0, run.stderr.slice(0, 400));
    const r = model.allToolResults().find((x) => x.tool_use_id === 'toolu_0_0');
    assert.ok(r, 'no tool_result reached the model');
    return r;
  } finally {
    await model.close();
  }
}

before(async () => {
  s = makeScratch('asimov-e2e-judge-');
  mkdirSync(join(s.project, '.git'));
  mkdirSync(join(s.root, 'bin'));
  // A program on PATH that asimov has no rule for (unknown): only the judge can let it run.
  writeFileSync(join(s.root, 'bin', 'stampit'), '#!/bin/sh\necho stamped > stamped.txt\n');
  chmodSync(join(s.root, 'bin', 'stampit'), 0o755);
  mkdirSync(join(s.home, 'notes'));
  judge = await startAnthropicServer({ onRequest: () => (judgeAnswer === 'hang' ? { kind: 'hang' } : verdictReply(judgeAnswer)) });
  const policyDir = join(s.home, '.config', 'asimov');
  mkdirSync(policyDir, { recursive: true });
  writeFileSync(join(policyDir, 'policy.yaml'), `version: 1\njudge:\n  provider: anthropic\n  model: scripted-judge\n  baseUrl: ${judge.url}\n  timeoutMs: 30000\n  onUncertain: deny\n`);
  // A short deadline, so the hanging judge is cut off well inside the test's time.
  const wired = spawnSync(process.execPath, [BIN, 'wire', 'claude', '--deadline-ms', '4000'], {
    cwd: s.project, env: { PATH: process.env.PATH ?? '', HOME: s.home }, encoding: 'utf8',
  });
  assert.equal(wired.status, 0, wired.stderr);
});

after(async () => {
  await judge?.close();
  s?.cleanup();
});

describe('Claude Code with the judge on', () => {
  test('an unknown call the judge allows runs; the judge saw the call as data', async () => {
    judgeAnswer = { verdict: 'allow', reason: 'A project script that writes one file in the project.' };
    const before = judge.requests.length;
    const r = await session([{ tools: [{ name: 'Bash', input: { command: 'stampit --all', description: 'stamp' } }] }]);
    assert.ok(!r.is_error, r.text);
    assert.ok(existsSync(join(s.project, 'stamped.txt')), 'the judge allowed it, but it did not run');
    assert.equal(judge.requests.length, before + 1);
    assert.match(JSON.stringify(judge.requests.at(-1)?.body), /stampit --all/);
  });

  test('a soft_deny call the judge denies is blocked with the judge\'s reason', async () => {
    judgeAnswer = { verdict: 'deny', reason: 'Deleting notes in the home directory was not asked for.' };
    const r = await session([{ tools: [{ name: 'Bash', input: { command: 'rm -rf ~/notes', description: 'clean' } }] }]);
    assert.ok(r.is_error);
    assert.match(r.text, /Deleting notes in the home directory was not asked for/);
    assert.ok(existsSync(join(s.home, 'notes')));
  });

  test('a judge that never answers ends in a block within the hook\'s deadline', async () => {
    judgeAnswer = 'hang';
    const before = judge.requests.length;
    // Not the command above: that verdict is cached, and a cache hit would never reach the hanging judge.
    const r = await session([{ tools: [{ name: 'Bash', input: { command: 'rm -rf ~/notes/old', description: 'clean' } }] }]);
    assert.ok(r.is_error);
    assert.equal(judge.requests.length, before + 1);
    assert.match(r.text, /asimov/);
    assert.match(r.text, /refused|deadline|time/);
    assert.ok(existsSync(join(s.home, 'notes')));
  });

  test('a hard deny never reaches the judge', async () => {
    judgeAnswer = { verdict: 'allow', reason: 'would be wrong' };
    const before = judge.requests.length;
    const r = await session([{ tools: [{ name: 'Bash', input: { command: 'echo pwned >> ~/.bashrc' } }] }]);
    assert.ok(r.is_error);
    assert.equal(judge.requests.length, before);
    assert.ok(!existsSync(join(s.home, '.bashrc')));
  });
});
