// The team audit trail end to end, on a real PostgreSQL: three machines (three scratch HOMEs, each a real gate
// writing its own log) make 10,000 decisions each while their background shippers (real `asimov audit ship`
// processes) send the records through a round-robin balancer to two `asimov serve` replicas on one database.
// Mid-way one replica is killed (SIGKILL), every database connection is terminated, and one machine's shipper
// is killed; all are restarted. Afterwards every record is in the database exactly once, in chain order, and
// each machine's chain verifies there. A fourth machine whose log was cut and re-sealed after it shipped is
// reported: by `ship`, by the team dashboard's API, and by the alert webhook.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/asimov-cli.ts';
import { runCli } from '../helpers/run-cli.ts';
import { querySql, scratchPostgres } from '../helpers/postgres.ts';
import { freePort, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { createGate } from '../../src/gate/gate.ts';
import { eventHash, GENESIS_HASH, sealEvent, sha256Hex, type AuditEventDraft } from '../../src/audit/event.ts';

const PER_MACHINE = Number(process.env.ASIMOV_TEAMS_E2E_DECISIONS ?? 10_000);
const pg = scratchPostgres();
let dbUrl: string | null = null;
let root = '';
const cleanups: Array<() => Promise<void> | void> = [];

before(async () => {
  dbUrl = await pg.database();
  root = mkdtempSync(join(tmpdir(), 'asimov-teams-e2e-'));
});
after(async () => {
  for (const c of cleanups.reverse()) await c();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A TCP balancer over the replicas: round-robin per connection, skipping a replica that refuses. */
async function balancer(ports: number[]): Promise<{ url: string; server: Server }> {
  let next = 0;
  const server = createServer((client) => {
    client.pause();
    client.on('error', () => {});
    const attempt = (left: number) => {
      const port = ports[next++ % ports.length]!;
      const up = connect(port, '127.0.0.1');
      let connected = false;
      up.once('connect', () => {
        connected = true;
        client.pipe(up);
        up.pipe(client);
        client.resume();
      });
      up.on('error', () => {
        if (!connected && left > 1) attempt(left - 1);
        else client.destroy();
      });
      // A connection that never connected was retried above; only a live one takes its client down with it.
      up.on('close', () => {
        if (connected) client.destroy();
      });
      client.on('close', () => up.destroy());
    };
    attempt(ports.length);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

interface Machine {
  name: string;
  home: string;
  log: string;
  env: NodeJS.ProcessEnv;
  gate: ReturnType<typeof createGate>;
  shipper?: ChildProcess;
  /** What its shippers said (stderr), for the message of a failure. */
  said: string[];
}

function machine(name: string, remote: string, token: string): Machine {
  const home = join(root, name);
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(home, '.config/asimov'), { recursive: true });
  writeFileSync(join(home, 'team-token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(join(home, '.config/asimov/policy.yaml'), `version: 1\naudit:\n  remote: ${remote}\n  token_file: ~/team-token\n  policy: false\n`);
  const log = join(home, 'audit.jsonl');
  const env = {
    PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state'),
    XDG_CACHE_HOME: join(home, '.cache'), ASIMOV_AUDIT_LOG: log, ASIMOV_JUDGE: 'off', ASIMOV_DAEMON: 'off', NO_COLOR: '1',
  };
  const gate = createGate({ home, env, audit: log, managedPolicyPath: join(home, 'no-managed.yaml'), trustStorePath: join(home, 'trusted.json') });
  return { name, home, log, env, gate, said: [] };
}

const COMMANDS = ['git status', 'ls -la src', 'npm test', 'rm -rf /', 'cat package.json', 'git push --force origin main', 'grep -rn TODO src'];

async function decide(m: Machine, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) {
    await m.gate.decide({ tool: 'shell', input: { command: `${COMMANDS[i % COMMANDS.length]} # ${i}` }, cwd: join(m.home, 'project'), agent: 'claude-code', sessionId: `${m.name}-s` } as never);
  }
}

function startShipper(m: Machine): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'audit', 'ship', '--follow'], { env: m.env, cwd: m.home, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (c: Buffer) => m.said.push(c.toString()));
  child.once('exit', (code, signal) => m.said.push(`[shipper exited: ${signal ?? code}]`));
  m.shipper = child;
  return child;
}

async function stopChild(c: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  await new Promise<void>((r) => {
    c.once('exit', () => r());
    c.kill(signal);
  });
}


async function until(what: string, f: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('three machines ship 10,000 decisions each through two replicas that die and return; every record is there once and every chain verifies; a cut and re-sealed log is reported', { timeout: 900_000 }, async (t) => {
  if (dbUrl === null) {
    t.skip(pg.reason());
    return;
  }
  const url = dbUrl;
  const adminUrl = (await pg.adminUrl())!;
  const dbName = new URL(url).pathname.slice(1);

  // The alert webhook's receiver.
  const alerts: any[] = [];
  const hookServer: HttpServer = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        alerts.push(JSON.parse(body));
      } catch {
        /* not JSON: not ours */
      }
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => hookServer.close(() => r())));
  const webhook = `http://127.0.0.1:${(hookServer.address() as { port: number }).port}/alerts`;

  const srvHome = join(root, 'server');
  mkdirSync(srvHome, { recursive: true });
  const srvEnv = { PATH: process.env.PATH ?? '', HOME: srvHome, XDG_STATE_HOME: join(srvHome, '.state'), XDG_CONFIG_HOME: join(srvHome, '.config'), ASIMOV_AUDIT_LOG: join(srvHome, 'audit.jsonl'), ASIMOV_JUDGE: 'off', ASIMOV_DAEMON: 'off', NO_COLOR: '1' };
  const token = async (name: string, scopes: string): Promise<string> => {
    const r = await runCli(process.execPath, [BIN, 'serve', 'token', 'create', '--database', url, '--name', name, '--scopes', scopes], { cwd: srvHome, env: srvEnv });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim();
  };
  const replica = (name: string, port?: number) =>
    startServeProcess({ env: srvEnv, cwd: srvHome, ...(port ? { port } : {}), args: ['--database', url, '--data-dir', join(root, `replica-${name}`), '--webhook', webhook, '--rate-limit', '0'] });
  let a: ServeProcess = await replica('a', await freePort());
  const b: ServeProcess = await replica('b');
  cleanups.push(() => a.stop(), () => b.stop());
  const lb = await balancer([a.port, b.port]);
  cleanups.push(() => new Promise<void>((r) => lb.server.close(() => r())));

  const machines = [1, 2, 3].map((i) => ({ i }));
  const ms: Machine[] = [];
  for (const { i } of machines) ms.push(machine(`laptop-${i}`, lb.url, await token(`laptop-${i}`, 'report')));
  const reader = await token('dashboard', 'read');
  for (const m of ms) startShipper(m);
  cleanups.push(async () => {
    for (const m of ms) await stopChild(m.shipper);
  });

  // The decisions, in three interleaved streams, with the failures in the middle.
  const half = Math.floor(PER_MACHINE / 2);
  await Promise.all(ms.map((m) => decide(m, half)));
  await until('some records on the server', async () => Number((await querySql<{ n: string }>(url, 'SELECT count(*) AS n FROM audit_records'))[0]!.n) > 0, 120_000);
  await a.stop('SIGKILL');
  await querySql(adminUrl, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
  await stopChild(ms[0]!.shipper, 'SIGKILL');
  await Promise.all(ms.map((m) => decide(m, 500, half)));
  startShipper(ms[0]!);
  a = await replica('a', a.port);
  await querySql(adminUrl, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
  await Promise.all(ms.map((m) => decide(m, PER_MACHINE - half - 500, half + 500)));

  await until(
    `every machine's ${PER_MACHINE} records on the server`,
    async () => {
      const rows = await querySql<{ n: string }>(url, 'SELECT head_seq AS n FROM audit_clients');
      return rows.length === 3 && rows.every((r) => Number(r.n) === PER_MACHINE);
    },
    300_000,
  ).catch(async (e: Error) => {
    const rows = await querySql(url, 'SELECT token_name, head_seq, status, problem, last_contact FROM audit_clients ORDER BY token_name');
    throw new Error(`${e.message}\n${JSON.stringify(rows)}\n${ms.map((m) => `${m.name}: ${m.said.join('').slice(-2000)}`).join('\n')}\nreplica a: ${a.log().slice(-2000)}\nreplica b: ${b.log().slice(-2000)}`);
  });

  // Exactly once, in order, every chain verifying from the database's copy alone.
  const counts = await querySql<{ client_id: string; n: string; ids: string; lo: string; hi: string }>(
    url,
    'SELECT client_id, count(*) AS n, count(DISTINCT decision_id) AS ids, min(seq) AS lo, max(seq) AS hi FROM audit_records GROUP BY client_id',
  );
  assert.equal(counts.length, 3);
  for (const c of counts) assert.deepEqual([Number(c.n), Number(c.ids), Number(c.lo), Number(c.hi)], [PER_MACHINE, PER_MACHINE, 1, PER_MACHINE]);
  for (const m of ms) {
    const clientId = readFileSync(`${m.log}.ship/client-id`, 'utf8').trim();
    const local = readFileSync(m.log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).decision_id as string);
    const rows = await querySql<{ decision_id: string; hash: string; prev: string; event: Record<string, unknown> }>(url, 'SELECT decision_id, hash, prev, event FROM audit_records WHERE client_id = $1 ORDER BY seq', [clientId]);
    assert.deepEqual(rows.map((r) => r.decision_id), local, `${m.name}: the server holds the log's records, in its order`);
    let prev = GENESIS_HASH;
    for (const r of rows) {
      assert.equal(r.prev, prev);
      assert.equal(eventHash(r.event), r.hash);
      prev = r.hash;
    }
  }
  const statuses = await querySql<{ status: string; problem: string | null }>(url, 'SELECT status, problem FROM audit_clients');
  assert.deepEqual(statuses.map((s) => s.status), ['ok', 'ok', 'ok'], JSON.stringify(statuses));

  // The fourth machine: ships, then its log is cut and re-sealed (a deny line deleted, the last lines cut).
  const m4 = machine('laptop-4', lb.url, await token('laptop-4', 'report'));
  await decide(m4, 40);
  const first = await runCli(process.execPath, [BIN, 'audit', 'ship', '--once'], { cwd: m4.home, env: m4.env });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const drafts = readFileSync(m4.log, 'utf8').split('\n').filter(Boolean).map((l) => {
    const { prev: _p, hash: _h, ...d } = JSON.parse(l);
    return d as AuditEventDraft;
  });
  drafts.splice(drafts.findIndex((d) => d.verdict === 'deny'), 1);
  drafts.splice(drafts.length - 5, 5);
  let prev = GENESIS_HASH;
  writeFileSync(m4.log, `${drafts.map((d) => {
    const e = sealEvent(d, prev, sha256Hex);
    prev = e.hash;
    return JSON.stringify(e);
  }).join('\n')}\n`);
  const local = await runCli(process.execPath, [BIN, 'audit', 'verify'], { cwd: m4.home, env: m4.env });
  assert.equal(local.code, 0, 'the re-sealed log verifies locally: that is the point');
  const second = await runCli(process.execPath, [BIN, 'audit', 'ship', '--once'], { cwd: m4.home, env: m4.env });
  assert.equal(second.code, 1, second.stdout + second.stderr);
  assert.match(second.stdout, /tampered with or cut/);
  const team = await fetch(`${lb.url}/v1/team/clients`, { headers: { authorization: `Bearer ${reader}` } });
  const clients = ((await team.json()) as { clients: Array<{ tokenName: string; status: string; problem: string | null }> }).clients;
  const four = clients.find((c) => c.tokenName === 'laptop-4');
  assert.equal(four?.status, 'broken');
  assert.ok(clients.filter((c) => c.tokenName !== 'laptop-4').every((c) => c.status === 'ok'));
  await until('the alert webhook', async () => alerts.some((x) => x.type === 'audit_chain' && x.alert?.tokenName === 'laptop-4'), 10_000);
  assert.ok(!alerts.some((x) => x.type === 'audit_chain' && x.alert?.tokenName !== 'laptop-4'), 'no false alarm for the machines whose shipping was interrupted');
});
