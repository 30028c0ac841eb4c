// `asimov serve --database postgres://…` as real processes on a real PostgreSQL (test/helpers/postgres.ts;
// skipped, and said so, without one): a token made with `serve token --database` before the server exists
// works on it, the banner names the database without its password, ASIMOV_DATABASE_URL stands for the option,
// and bad or unreachable URLs are clear errors without a stack trace or the password.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BIN, cliScratch, noStackTrace } from '../helpers/asimov-cli.ts';
import { scratchPostgres } from '../helpers/postgres.ts';

const s = cliScratch('asimov-serve-db-');
const postgres = scratchPostgres();
const running: ChildProcess[] = [];
after(() => {
  for (const c of running) c.kill('SIGKILL');
});

function withPassword(url: string, pw: string): string {
  const u = new URL(url);
  u.password = pw; // trust auth: ignored by the server, but it must never be shown
  return u.href;
}

test('a token made with --database works on a server started with ASIMOV_DATABASE_URL; the password is never shown', async (t) => {
  const plain = await postgres.database();
  if (!plain) return t.skip(postgres.reason());
  const url = withPassword(plain, 'hunter2-secret');
  const created = s.run(['serve', 'token', 'create', '--name', 'ci', '--scopes', 'decide', '--database', url]);
  assert.equal(created.code, 0, created.err);
  const token = created.out.trim();

  const child = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', '--data-dir', join(s.root, 'serve')], {
    cwd: s.project, env: { ...s.baseEnv(), ASIMOV_DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let err = '';
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err.replace(/\x1b\[[0-9;]*m/g, ''));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  const r = await fetch(`${base}/v1/decide`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'shell', input: { command: 'ls' }, cwd: s.project }),
  });
  assert.equal(r.status, 200);
  const shown = new URL(plain);
  assert.match(err, new RegExp(`database\\s+postgres://postgres@${shown.host}${shown.pathname} \\(PostgreSQL`));
  assert.match(err, /tokens\s+1 live/);
  assert.doesNotMatch(err, /hunter2-secret/);
  child.kill('SIGTERM');
  await new Promise((res) => child.once('exit', res));
  assert.equal(child.exitCode, 0, err);
});

test('a URL that is not PostgreSQL\'s is a usage error; an unreachable server is named without the password', () => {
  const bad = s.run(['serve', '--database', 'mysql://u@h/db']);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /must start with postgres:\/\/ or postgresql:\/\//);
  noStackTrace(bad);
  const down = s.run(['serve', 'token', 'list', '--database', 'postgres://u:hunter2-secret@127.0.0.1:1/nodb']);
  assert.equal(down.code, 1);
  assert.match(down.err, /Cannot connect to PostgreSQL at postgres:\/\/u@127\.0\.0\.1:1\/nodb/);
  assert.doesNotMatch(down.err, /hunter2-secret/);
  noStackTrace(down);
});
