// The machine's side of the team audit trail through the built CLI: the hook starts a background shipper
// that ships what the hook wrote, `audit ship --once/--status`, and `audit verify --remote` reporting a log
// cut after it shipped, which the local check calls intact.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliScratch } from '../helpers/asimov-cli.ts';
import { runCli } from '../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../helpers/serve.ts';
import { shipperPid } from '../../src/audit/ship-state.ts';

const cli = cliScratch('asimov-ship-cli-');
let srv: TestServer;
let log: string;

before(async () => {
  srv = await startTestServer();
  const token = await srv.token(['report'], 'alice-laptop');
  mkdirSync(join(cli.home, '.config/asimov'), { recursive: true });
  writeFileSync(join(cli.home, 'team-token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(join(cli.home, '.config/asimov/policy.yaml'), `version: 1\naudit:\n  remote: ${srv.url}\n  token_file: ~/team-token\n`);
  log = cli.baseEnv().ASIMOV_AUDIT_LOG!;
});
after(async () => {
  // The scratch's own after() stops the shipper before removing the scratch.
  await srv?.close();
});

const run = (args: string[]) => runCli(process.execPath, [BIN, ...args], { cwd: cli.project, env: cli.baseEnv() });

function hook(command: string) {
  return cli.run(['hook', 'claude'], {
    input: JSON.stringify({ session_id: 's1', transcript_path: '/tmp/t', cwd: cli.project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }),
  });
}

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the hook starts one background shipper, and what it decided reaches the team server', async () => {
  assert.equal(hook('ls -la').code, 0);
  assert.equal(hook('git status').code, 0);
  const pid = await until('a shipper', () => shipperPid(log) ?? undefined);
  assert.match(hook('rm -rf /').out, /"permissionDecision":"deny"/);
  const clientId = readFileSync(`${log}.ship/client-id`, 'utf8').trim();
  const tokenAdmin = readFileSync(join(cli.home, 'team-token'), 'utf8').trim();
  const report = await until('three records on the server', async () => {
    const r = await srv.call('GET', `/v1/audit/clients/${clientId}`, { token: tokenAdmin });
    return r.status === 200 && r.body.headSeq === 3 ? r.body : undefined;
  }).catch(async (e) => {
    const r = await srv.call('GET', `/v1/audit/clients/${clientId}`, { token: tokenAdmin });
    throw new Error(`${e.message}: ${JSON.stringify(r.body)}; log has ${readFileSync(log, 'utf8').split('\n').length - 1} lines`);
  });
  assert.equal(report.status, 'ok');
  assert.equal(report.tokenName, 'alice-laptop');
  // Still the one shipper: later calls found it running.
  assert.equal(shipperPid(log), pid);
  const status = await run(['audit', 'ship']);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`ships to ${srv.url.replace(/[.]/g, '\\.')} as client ${clientId}`));
  assert.match(status.stdout, /3 lines shipped so far/);
  const doctor = await run(['doctor', 'claude']);
  assert.match(doctor.stdout, /audit shipping to http:\/\/127\.0\.0\.1:\d+: last reached .*nothing waiting; the server's copy of this machine's chain is intact/);
  const verify = await run(['audit', 'verify', '--remote']);
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /local: 3 lines, chain intact/);
  assert.match(verify.stdout, /server: this machine's shipped chain is intact/);
  process.kill(pid, 'SIGTERM');
  await until('the shipper to stop', () => (shipperPid(log) === null ? true : undefined));
});

test('lines cut off the end: the local check says intact (and what it cannot see), the remote check says cut', async () => {
  const before = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  writeFileSync(log, `${before.slice(0, before.length - 1).join('\n')}\n`);
  const local = await run(['audit', 'verify']);
  assert.equal(local.code, 0);
  assert.match(local.stdout, /chain intact/);
  assert.match(local.stdout, /cannot see lines cut off the end/);
  const once = await run(['audit', 'ship', '--once']);
  assert.equal(once.code, 1, once.stdout + once.stderr);
  assert.match(once.stdout, /tampered with or cut: the local log now ends at record #2: the 1 record after it, already shipped, were cut/);
  const verify = await run(['audit', 'verify', '--remote']);
  assert.equal(verify.code, 1);
  assert.match(verify.stdout, /local: 2 lines, chain intact/);
  assert.match(verify.stdout, /server: BROKEN — the local log now ends at record #2/);
});

test('without a token, ship says how to give one; a dead server leaves the lines waiting', async () => {
  writeFileSync(join(cli.home, '.config/asimov/policy.yaml'), `version: 1\naudit:\n  remote: ${srv.url}\n`);
  const r = await run(['audit', 'ship', '--once']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no token for the team server: set ASIMOV_TEAM_TOKEN, or audit.token_file/);
  writeFileSync(join(cli.home, '.config/asimov/policy.yaml'), `version: 1\naudit:\n  remote: http://127.0.0.1:9\n  token: asv_x\n`);
  const dead = await run(['audit', 'ship', '--once']);
  assert.equal(dead.code, 1);
  assert.match(dead.stderr, /cannot be reached.*the rest waits in the log/);
});
