// `asimov serve` and `asimov serve token …` as real processes: tokens made before the server exists and while
// it runs (through its local socket), a decision over HTTP, TLS, the refusal to listen in the clear on a
// network address, one server per data directory, and a clean stop on SIGTERM.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { BIN, cliScratch, noStackTrace } from '../helpers/asimov-cli.ts';

const s = cliScratch('asimov-serve-cmd-');
const running: ChildProcess[] = [];
after(() => {
  for (const c of running) c.kill('SIGKILL');
});

/** Starts `asimov serve …` and resolves with its URL once it listens (from its banner on stderr). */
function startServe(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', ...args], { cwd: s.project, env: s.baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(err.replace(/\x1b\[[0-9;]*m/g, ''));
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr: () => err });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${err}`));
    });
  });
}

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

test('tokens before and while the server runs; a decision over HTTP; SIGTERM stops it cleanly', async () => {
  const created = s.run(['serve', 'token', 'create', '--name', 'dispatcher', '--scopes', 'decide,execute']);
  assert.equal(created.code, 0, created.err);
  const token = created.out.trim();
  assert.match(token, /^asv_[A-Za-z0-9_-]{43}$/);
  assert.match(created.err, /shown only now/);

  const srv = await startServe([]);
  assert.match(srv.stderr(), /tokens\s+1 live/);
  const r = await fetch(`${srv.url}/v1/decide`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'shell', input: { command: 'rm -rf ~' }, cwd: s.project }),
  });
  assert.equal(r.status, 200);
  assert.equal((await r.json()).verdict, 'deny');

  // While it runs, the token commands go through its local socket (the database is the server's alone).
  const second = s.run(['serve', 'token', 'create', '--name', 'viewer', '--scopes', 'read', '--json']);
  assert.equal(second.code, 0, second.err);
  assert.equal(JSON.parse(second.out).name, 'viewer');
  const list = s.run(['serve', 'token', 'list']);
  assert.match(list.out, /dispatcher\s+decide,execute/);
  assert.match(list.out, /viewer\s+read/);
  assert.doesNotMatch(list.out, /asv_/, 'secrets are never listed');
  assert.equal(s.run(['serve', 'token', 'revoke', 'dispatcher']).code, 0);
  const after = await fetch(`${srv.url}/v1/decide`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(after.status, 401);
  const missing = s.run(['serve', 'token', 'revoke', 'nobody']);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no live token named 'nobody'/);

  // A second server on the same data directory is refused, naming the first.
  const dup = spawnSync(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0'], { cwd: s.project, env: s.baseEnv(), encoding: 'utf8', timeout: 60_000 });
  assert.equal(dup.status, 1);
  assert.match(dup.stderr, new RegExp(`in use by process ${srv.child.pid}`));

  srv.child.kill('SIGTERM');
  assert.equal(await exited(srv.child), 0);
  const dataDir = join(s.home, '.state', 'asimov', 'serve');
  assert.ok(!existsSync(join(dataDir, 'db', 'asimov.lock')), 'the lock is released');
  assert.ok(!existsSync(join(dataDir, 'api.sock')), 'the socket is removed');
  // The revocation was stored: after a restart the token is still refused.
  const listed = JSON.parse(s.run(['serve', 'token', 'list', '--all', '--json']).out).tokens;
  assert.ok(listed.find((t: { name: string; revokedAt: string | null }) => t.name === 'dispatcher').revokedAt);
});

test('a network address needs TLS or --insecure; with TLS the API answers over HTTPS', async () => {
  const open = s.run(['serve', '--listen', '0.0.0.0:0']);
  assert.equal(open.code, 1);
  assert.match(open.err, /--tls-cert and --tls-key, or --insecure/);
  noStackTrace(open);
  const half = s.run(['serve', '--tls-cert', 'x.pem']);
  assert.equal(half.code, 1);
  assert.match(half.err, /go together/);

  const cert = join(s.root, 'cert.pem');
  const key = join(s.root, 'key.pem');
  const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (gen.status !== 0) {
    test.skip?.('openssl is not available');
    return;
  }
  const srv = await startServe(['--tls-cert', cert, '--tls-key', key, '--data-dir', join(s.root, 'tls-data')]);
  assert.match(srv.url, /^https:/);
  const body = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest(`${srv.url}/healthz`, { ca: readFileSync(cert) }, (res) => {
      let d = '';
      res.on('data', (c) => (d += c));
      res.on('end', () => resolve(d));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(JSON.parse(body).ok, true);
  srv.child.kill('SIGTERM');
  assert.equal(await exited(srv.child), 0);
});

test('usage mistakes get one clear line', () => {
  for (const [args, msg] of [
    [['serve', '--listen', 'example.com:80'], /give an IP address/],
    [['serve', '--rate-limit', 'lots'], /--rate-limit must be a whole number/],
    [['serve', 'token', 'create', '--name', 'x'], /--scopes/],
    [['serve', 'token', 'create', '--name', 'x', '--scopes', 'root'], /unknown scope 'root'/],
    [['serve', 'token', 'frobnicate'], /unknown token command/],
  ] as const) {
    const r = s.run([...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, msg);
    noStackTrace(r);
  }
});
