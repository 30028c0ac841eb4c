// `asimov approvals` (the built CLI) against a real `asimov serve`: list, approve and deny over the data
// directory's local socket while a call waits, the proposed rule of `--scope always`, a remote server with a
// token from the environment, and clear errors when no server runs or the input is wrong.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/serve.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');
const SOFT = 'npm publish';

let s: TestServer;
let dataDir = '';
let decideToken = '';

interface Run { code: number | null; out: string; err: string }

/** The CLI in a child process, asynchronously: the server answering it lives in this process. */
function asimov(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: s.home, XDG_STATE_HOME: join(s.home, '.local/state'), NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('close', (code) => resolveRun({ code, out, err }));
  });
}

before(async () => {
  s = await startTestServer();
  dataDir = join(s.root, 'serve');
  mkdirSync(join(s.home, '.config', 'asimov'), { recursive: true });
  writeFileSync(join(s.home, '.config', 'asimov', 'policy.yaml'), 'version: 1\napprovals:\n  timeoutSec: 30\n');
  decideToken = await s.token(['decide'], 'dispatcher');
});

after(async () => {
  await s?.close();
});

function decide(command: string) {
  return s.call('POST', '/v1/decide', { token: decideToken, body: { tool: 'Bash', input: { command }, cwd: s.project, agent: 'dispatcher' } });
}

async function pendingId(command: string): Promise<string> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const r = await asimov(['approvals', 'list', '--json', '--data-dir', dataDir]);
    assert.equal(r.code, 0, r.err);
    const a = (JSON.parse(r.out) as any[]).find((x) => x.call.input.command === command);
    if (a) return a.id;
  }
  throw new Error(`no pending approval for ${command}`);
}

describe('asimov approvals over the local socket', () => {
  test('list shows the waiting call; approve releases it, and the answer is recorded as `local`', async () => {
    const waiting = decide(`${SOFT} --tag cli-1`);
    const id = await pendingId(`${SOFT} --tag cli-1`);
    const list = await asimov(['approvals', 'list', '--data-dir', dataDir]);
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, /ID\s+STATUS\s+CALL/);
    assert.ok(list.out.includes(id));
    assert.match(list.out, /npm publish --tag cli-1/);
    assert.match(list.out, /publish\.npm/);
    const ok = await asimov(['approvals', 'approve', id, '--reason', 'planned release', '--data-dir', dataDir]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, new RegExp(`approved ${id}`));
    const d = await waiting;
    assert.equal(d.body.verdict, 'allow');
    assert.deepEqual(d.body.approval, { id, by: 'local', scope: 'once', verdict: 'allow', reason: 'planned release' });
    const again = await asimov(['approvals', 'deny', id, '--data-dir', dataDir]);
    assert.equal(again.code, 1);
    assert.match(again.err, /no longer pending: it is approved/);
  });

  test('deny refuses the waiting call with the reason', async () => {
    const waiting = decide(`${SOFT} --tag cli-2`);
    const id = await pendingId(`${SOFT} --tag cli-2`);
    const r = await asimov(['approvals', 'deny', id, '--reason', 'freeze week', '--data-dir', dataDir]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`denied ${id}`));
    const d = await waiting;
    assert.equal(d.body.verdict, 'deny');
    assert.match(d.body.reason, /Refused by local: freeze week/);
  });

  test('approve --scope always prints the proposed rule and writes nothing', async () => {
    const waiting = decide(`${SOFT} --tag cli-3`);
    const id = await pendingId(`${SOFT} --tag cli-3`);
    const r = await asimov(['approvals', 'approve', id, '--scope', 'always', '--data-dir', dataDir]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /not written/);
    assert.match(r.out, /tier: allow/);
    assert.match(r.out, /overrides:\s*\n\s*- publish\.npm/);
    assert.equal((await waiting).body.verdict, 'allow');
  });

  test('list --all shows answered approvals; --json is plain JSON', async () => {
    const r = await asimov(['approvals', 'list', '--all', '--json', '--data-dir', dataDir]);
    assert.equal(r.code, 0, r.err);
    const list = JSON.parse(r.out) as any[];
    assert.ok(list.some((a) => a.status === 'approved') && list.some((a) => a.status === 'denied'));
    const empty = await asimov(['approvals', 'list', '--data-dir', dataDir]);
    assert.match(empty.out, /No approvals are waiting/);
  });
});

describe('asimov approvals against a remote server', () => {
  test('--server with a token from --token-env', async () => {
    const token = await s.token(['read', 'approve'], 'bob');
    const waiting = decide(`${SOFT} --tag cli-4`);
    const id = await pendingId(`${SOFT} --tag cli-4`);
    const r = await asimov(['approvals', 'approve', id, '--server', s.url, '--token-env', 'MY_TOKEN'], { MY_TOKEN: token });
    assert.equal(r.code, 0, r.err);
    assert.equal((await waiting).body.approval.by, 'bob');
    const noToken = await asimov(['approvals', 'list', '--server', s.url]);
    assert.equal(noToken.code, 1);
    assert.match(noToken.err, /no token in ASIMOV_TOKEN/);
    const readOnly = await s.token(['read'], 'ro');
    const refused = await asimov(['approvals', 'approve', 'x', '--server', s.url], { ASIMOV_TOKEN: readOnly });
    assert.equal(refused.code, 1);
    assert.match(refused.err, /lacks the 'approve' scope/);
  });
});

describe('asimov approvals errors', () => {
  test('no server running: a clear message, exit 1', async () => {
    const r = await asimov(['approvals', 'list'], { XDG_STATE_HOME: join(s.root, 'nowhere') });
    assert.equal(r.code, 1);
    assert.match(r.err, /no asimov serve is running with its data in .*nowhere\/asimov\/serve/);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  });

  test('usage mistakes', async () => {
    for (const [args, re] of [
      [['approvals'], /give a subcommand/],
      [['approvals', 'approve'], /exactly one approval id/],
      [['approvals', 'deny', 'x', '--scope', 'session'], /--scope is for `approve`/],
      [['approvals', 'approve', 'x', '--scope', 'forever'], /--scope must be once, session or always/],
      [['approvals', 'frobnicate'], /unknown subcommand/],
    ] as const) {
      const r = await asimov([...args]);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, re);
    }
  });
});
