// `asimov daemon`: a real daemon process on a scratch socket directory, and real client processes started
// through bin/asimov.cjs. The daemon must answer exactly as the client's own process would, see every policy
// change on the very next call, and be bypassed (never trusted) whenever anything about it is wrong.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { encodeFrame, FrameReader } from '../../../src/cli/daemon/protocol.ts';
import { sendRequest } from '../../../src/cli/daemon/request.ts';

const BIN = resolve(import.meta.dirname, '../../../bin/asimov.cjs');
let root = '';
let home = '';
let project = '';
let runtime = '';
let auditLog = '';
/** The daemon's log, as `daemon start` names it. */
let daemonLog = '';

interface Run { code: number | null; out: string; err: string }

/** The CLI in its own process (async, so that a fake server in this process can answer it). */
function asimov(args: string[], o: { input?: string; env?: Record<string, string>; runtimeDir?: string } = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? '', HOME: home, XDG_RUNTIME_DIR: o.runtimeDir ?? runtime, ASIMOV_AUDIT_LOG: auditLog, ...o.env,
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, out, err }));
    child.stdin.on('error', () => {});
    child.stdin.end(o.input ?? '');
  });
}

const OFF = { ASIMOV_DAEMON: 'off' };

function payload(command: string, over: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: 'sess-d', transcript_path: '', cwd: project, permission_mode: 'default', hook_event_name: 'PreToolUse',
    tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_d', ...over,
  });
}

async function served(): Promise<number> {
  const r = await asimov(['daemon', 'status', '--json']);
  const s = JSON.parse(r.out) as { running: boolean; served?: number };
  assert.equal(s.running, true, r.out + r.err);
  return s.served ?? -1;
}

const auditLines = (): number => (existsSync(auditLog) ? readFileSync(auditLog, 'utf8').trim().split('\n').length : 0);

/**
 * Runs the command through the daemon and in-process, and returns both. The daemon must have served it, and
 * the client must have used its answer: a hook (always audited) that also fell back would log twice.
 */
async function both(args: string[], input?: string): Promise<{ daemon: Run; here: Run }> {
  const before = await served();
  const lines = auditLines();
  const daemon = await asimov(args, input !== undefined ? { input } : {});
  assert.equal(await served(), before + 1, `the daemon did not answer ${args.join(' ')}: ${daemon.err}`);
  if ((args[0] === 'hook' && daemon.code === 0) || args.includes('--audit')) assert.equal(auditLines(), lines + 1, 'the client decided again after the daemon');
  const here = await asimov(args, { ...(input !== undefined ? { input } : {}), env: OFF });
  return { daemon, here };
}

before(async () => {
  assert.ok(existsSync(resolve(import.meta.dirname, '../../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = mkdtempSync(join(tmpdir(), 'asimov-daemon-'));
  home = join(root, 'home');
  project = join(root, 'project');
  runtime = join(root, 'run');
  auditLog = join(root, 'audit.jsonl');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(runtime, { mode: 0o700 });
  const r = await asimov(['daemon', 'start', '--idle-minutes', '10']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /running at .*d\.sock/);
  daemonLog = /; log (\S+)\n/.exec(r.out)?.[1] ?? '';
});

after(async () => {
  await asimov(['daemon', 'stop']);
  rmSync(root, { recursive: true, force: true });
});

test('the daemon says in its log which policy, judge, approvals and audit log are active', async () => {
  assert.ok(daemonLog, 'daemon start named no log');
  let text = '';
  for (let i = 0; i < 200 && !/asimov daemon: audit: /.test(text); i++) {
    text = existsSync(daemonLog) ? readFileSync(daemonLog, 'utf8') : '';
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.match(text, /asimov daemon: policy: each call's project policy on top of built-in/);
  assert.match(text, /asimov daemon: judge: off/);
  assert.match(text, /asimov daemon: approvals: as each hook's client asks/);
  assert.ok(text.includes(`asimov daemon: audit: ${auditLog}`), text);
});

describe('asimov daemon: the same answers as the client process', () => {
  test('hook payloads that allow, deny and ask', async () => {
    for (const [command, verdict] of [['ls', 'allow'], ['rm -rf ~', 'deny'], ['frobnicate --all', 'ask']] as const) {
      const { daemon, here } = await both(['hook', 'claude'], payload(command));
      assert.deepEqual(daemon, here);
      assert.equal(daemon.code, 0);
      assert.equal((JSON.parse(daemon.out) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision, verdict);
    }
  });

  test('hook failures block the same way (bad JSON, empty stdin, unknown client)', async () => {
    for (const [args, input] of [[['hook', 'claude'], '{not json'], [['hook', 'claude'], ''], [['hook', 'nosuch'], payload('ls')]] as const) {
      const { daemon, here } = await both([...args], input);
      assert.deepEqual(daemon, here);
    }
  });

  test('check commands, with their exit codes', async () => {
    for (const [args, code] of [
      [['check', '--', 'ls'], 0],
      [['check', '--', 'git push --force origin main'], 2],
      [['check', '--', 'terraform apply'], 3],
      [['check', '--no-person', '--', 'terraform apply'], 2],
      [['check', '--tool', 'Write', '--input', '{"file_path":".env","content":"A=1"}'], 3],
      [['check', '--bogus'], 1],
      [['check', '--audit', '--', 'rm -rf /'], 2],
    ] as const) {
      const { daemon, here } = await both([...args]);
      assert.deepEqual(daemon, here);
      assert.equal(daemon.code, code, daemon.out + daemon.err);
    }
    // JSON output differs only in the decision's id and time.
    const { daemon, here } = await both(['check', '--json', '--', 'ls']);
    const strip = (s: string) => ({ ...(JSON.parse(s) as Record<string, unknown>), decision_id: 0, ms: 0 });
    assert.deepEqual(strip(daemon.out), strip(here.out));
  });

  test('audit records written by the daemon carry the same fields as in-process ones', async () => {
    const lines = () => readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const n = existsSync(auditLog) ? lines().length : 0;
    await both(['hook', 'claude'], payload('rm -rf ~'));
    const [fromDaemon, fromHere] = lines().slice(n);
    assert.ok(fromDaemon && fromHere);
    assert.deepEqual(Object.keys(fromDaemon).sort(), Object.keys(fromHere).sort());
    const varying = new Set(['ts', 'hash', 'prev', 'decision_id', 'decisionId', 'ms']);
    for (const [k, v] of Object.entries(fromDaemon)) if (!varying.has(k)) assert.deepEqual(v, fromHere[k], `field ${k}`);
    const verify = await asimov(['audit', 'verify'], { env: OFF });
    assert.equal(verify.code, 0, verify.out + verify.err);
  });

  test('ASIMOV_DAEMON=off and check --batch bypass it', async () => {
    const before = await served();
    await asimov(['check', '--', 'ls'], { env: OFF });
    await asimov(['check', '--', 'ls'], { env: { ASIMOV_DAEMON: '0' } });
    const batch = await asimov(['check', '--batch'], { input: `${JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'ls' } })}\n` });
    assert.match(batch.out, /"verdict":"allow"/);
    assert.equal(await served(), before);
  });

  test('a second start finds the live daemon and says so', async () => {
    const r = await asimov(['daemon', 'start']);
    assert.equal(r.code, 0);
    assert.match(r.out, /already running/);
  });
});

describe('asimov daemon: a policy change is seen by the very next call', () => {
  const userPolicy = () => join(home, '.config', 'asimov', 'policy.yaml');
  const projectPolicy = () => join(project, '.asimov', 'policy.yaml');
  const check = async (command: string) => {
    const before = await served();
    const r = await asimov(['check', '--', command]);
    assert.equal(await served(), before + 1, r.err);
    return r.code;
  };

  test('edit: a user policy file that changes', async () => {
    mkdirSync(join(home, '.config', 'asimov'), { recursive: true });
    writeFileSync(userPolicy(), 'version: 1\nrules:\n  dev.read-only: allow\n');
    assert.equal(await check('ls'), 0);
    writeFileSync(userPolicy(), 'version: 1\nrules:\n  dev.read-only: hard_deny\n');
    assert.equal(await check('ls'), 2);
    rmSync(userPolicy());
    assert.equal(await check('ls'), 0);
  });

  test('create and delete: a project policy that did not exist', async () => {
    assert.equal(await check('ls'), 0);
    mkdirSync(join(project, '.asimov'), { recursive: true });
    writeFileSync(projectPolicy(), 'version: 1\nrules:\n  dev.read-only: soft_deny\n');
    assert.equal(await check('ls'), 3);
    unlinkSync(projectPolicy());
    assert.equal(await check('ls'), 0);
  });

  test('project root markers: a new .asimov/ below the old root makes its own project', async () => {
    const sub = join(project, 'pkg');
    mkdirSync(join(sub, '.asimov'), { recursive: true });
    writeFileSync(join(sub, '.asimov', 'policy.yaml'), 'version: 1\nrules:\n  dev.read-only: hard_deny\n');
    const inSub = async () => {
      const before = await served();
      const r = await asimov(['check', '--cwd', sub, '--', 'ls']);
      assert.equal(await served(), before + 1);
      return r.code;
    };
    assert.equal(await inSub(), 2);
    rmSync(join(sub, '.asimov'), { recursive: true });
    assert.equal(await inSub(), 0);
  });

  test('trust: a loosening project policy counts from the moment it is trusted', async () => {
    mkdirSync(join(project, '.asimov'), { recursive: true });
    writeFileSync(
      projectPolicy(),
      'version: 1\ncustom:\n  - id: local.frob\n    tier: allow\n    reason: ours\n    match: { command: [frobnicate] }\n    examples: { match: ["frobnicate"], notMatch: ["ls"] }\n',
    );
    assert.equal(await check('frobnicate'), 3);
    const t = await asimov(['trust'], { env: OFF });
    assert.equal(t.code, 0, t.out + t.err);
    assert.equal(await check('frobnicate'), 0);
    const u = await asimov(['trust', '--revoke'], { env: OFF });
    assert.equal(u.code, 0, u.out + u.err);
    assert.equal(await check('frobnicate'), 3);
    unlinkSync(projectPolicy());
  });
});

/** A stand-in daemon written here: `behave` decides what it does with each connection. */
async function fakeDaemon(dir: string, behave: (sock: Socket, request: unknown) => void): Promise<Server> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const open = new Set<Socket>();
  // allowHalfOpen: a fake that never answers must keep the connection open, as a hung daemon would.
  const server = createServer({ allowHalfOpen: true }, (sock) => {
    const reader = new FrameReader();
    open.add(sock);
    sock.on('close', () => open.delete(sock));
    sock.on('error', () => {});
    sock.on('data', (chunk: Buffer) => {
      const req = reader.push(chunk);
      if (req !== undefined) behave(sock, req);
    });
  });
  await new Promise<void>((r) => server.listen(join(dir, 'd.sock'), r));
  (server as Server & { dropAll?: () => void }).dropAll = () => {
    for (const s of open) s.destroy();
  };
  return server;
}

const closeServer = (s: Server) =>
  new Promise<void>((r) => {
    s.close(() => r());
    (s as Server & { dropAll?: () => void }).dropAll?.();
  });

describe('asimov daemon: the client decides itself whenever the daemon is wrong', () => {
  // Each fake lives in its own XDG_RUNTIME_DIR, so the real daemon is not involved.
  let n = 0;
  const fresh = () => {
    const dir = join(root, `fake-${n++}`);
    mkdirSync(dir, { mode: 0o700 });
    return dir;
  };
  const lie = { stdout: 'LIES\n', stderr: '', exitCode: 0 };

  const expectInProcess = async (runtimeDir: string) => {
    const hook = await asimov(['hook', 'claude'], { input: payload('rm -rf ~'), runtimeDir });
    const hookHere = await asimov(['hook', 'claude'], { input: payload('rm -rf ~'), env: OFF });
    assert.deepEqual(hook, hookHere);
    const check = await asimov(['check', '--', 'git push --force origin main'], { runtimeDir });
    assert.equal(check.code, 2);
    assert.match(check.out, /^DENY/);
  };

  test('no daemon at all', async () => {
    await expectInProcess(fresh());
  });

  test('a reply that is not a reply (garbage, a wrong shape, an empty frame)', async () => {
    for (const reply of [Buffer.from('HTTP/1.1 200 OK\r\n\r\n'), encodeFrame({ stdout: 1, stderr: '', exitCode: 0 }), encodeFrame({ ...lie, exitCode: 1.5 }), encodeFrame(null)]) {
      const dir = fresh();
      const s = await fakeDaemon(join(dir, 'asimov'), (sock) => sock.end(reply));
      await expectInProcess(dir);
      await closeServer(s);
    }
  });

  test('a daemon that dies mid-request (the connection closes with no reply)', async () => {
    const dir = fresh();
    const s = await fakeDaemon(join(dir, 'asimov'), (sock) => sock.destroy());
    await expectInProcess(dir);
    await closeServer(s);
  });

  test('a daemon of another build, and one that refuses', async () => {
    for (const reply of [{ stale: true }, { refused: 'no' }]) {
      const dir = fresh();
      const s = await fakeDaemon(join(dir, 'asimov'), (sock) => sock.end(encodeFrame(reply)));
      await expectInProcess(dir);
      await closeServer(s);
    }
  });

  test('a socket whose directory others may enter (0755) is never used', async () => {
    const dir = fresh();
    let asked = 0;
    const s = await fakeDaemon(join(dir, 'asimov'), (sock) => {
      asked++;
      sock.end(encodeFrame(lie));
    });
    chmodSync(join(dir, 'asimov'), 0o755);
    await expectInProcess(dir);
    assert.equal(asked, 0);
    // The same fake in a private directory is used (so the test above is not vacuous).
    chmodSync(join(dir, 'asimov'), 0o700);
    const r = await asimov(['check', '--', 'ls'], { runtimeDir: dir });
    assert.equal(r.out, 'LIES\n');
    await closeServer(s);
  });

  test('a daemon that never answers: at the hook deadline the call is blocked, never allowed', async () => {
    const dir = fresh();
    const s = await fakeDaemon(join(dir, 'asimov'), () => {});
    const r = await asimov(['hook', 'claude', '--deadline-ms', '1500'], { input: payload('ls'), runtimeDir: dir });
    // The client gives up just before the deadline, and its own process finds the deadline passed: Claude
    // Code's blocking exit 2, the reason on stderr.
    assert.equal(r.code, 2, r.out);
    assert.match(r.err, /deadline/);
    await closeServer(s);
  });

  test('a deadline already passed when falling back is still a block', async () => {
    const dir = fresh();
    const s = await fakeDaemon(join(dir, 'asimov'), (sock) => sock.destroy());
    const r = await asimov(['hook', 'claude', '--deadline-ms', '1'], { input: payload('ls'), runtimeDir: dir });
    // Blocked before the payload was even parsed: Claude Code's blocking exit 2 with the reason on stderr.
    assert.equal(r.code, 2, r.out);
    assert.match(r.err, /deadline/);
    await closeServer(s);
  });
});

/** One frame out, one frame back, without parsing it: the body as bytes. */
function rawExchange(path: string, frame: Buffer): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const sock = connect(path);
    let got = Buffer.alloc(0);
    sock.on('connect', () => sock.write(frame));
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 4 && got.length >= 4 + got.readUInt32BE(0)) {
        sock.destroy();
        resolvePromise(got.subarray(4, 4 + got.readUInt32BE(0)));
      }
    });
    sock.on('error', reject);
  });
}

describe('asimov daemon: the server', () => {
  const socket = () => join(runtime, 'asimov', 'd.sock');

  test('refuses other commands and bad requests, and keeps serving', async () => {
    const base = { v: 1, op: 'run', cwd: project, env: { HOME: home, PATH: process.env.PATH ?? '' }, started: Date.now(), stdin: '' };
    const status = (await sendRequest(socket(), { v: 1, op: 'status' }, 5000)) as { status: { build: string } };
    const build = status.status.build;
    assert.match(JSON.stringify(await sendRequest(socket(), { ...base, build, argv: ['trust'] }, 5000)), /refused/);
    assert.match(JSON.stringify(await sendRequest(socket(), { ...base, build, argv: ['check', '--batch'] }, 5000)), /refused/);
    assert.match(JSON.stringify(await sendRequest(socket(), { ...base, build, argv: ['check', '--', 'ls'], cwd: 'relative' }, 5000)), /refused/);
    assert.match(JSON.stringify(await sendRequest(socket(), { v: 99 }, 5000)), /refused/);
    assert.match(JSON.stringify(await sendRequest(socket(), 'just a string', 5000)), /refused/);
    const ok = (await sendRequest(socket(), { ...base, build, argv: ['check', '--', 'ls'] }, 5000)) as { exitCode: number };
    assert.equal(ok.exitCode, 0);
  });

  test('the first stage\'s form: `age` for the start, and the reply in bytes (stdout\'s length, then stderr)', async () => {
    const status = (await sendRequest(socket(), { v: 1, op: 'status' }, 5000)) as { status: { build: string } };
    const request = {
      v: 1, op: 'run', reply: 'bytes', build: status.status.build, argv: ['check', '--', 'rm -rf /'], cwd: project,
      env: { HOME: home, PATH: process.env.PATH ?? '' }, age: 5, stdin: '',
    };
    const body = await rawExchange(socket(), encodeFrame(request));
    assert.equal(body.toString('latin1', 0, 1), 'r');
    const exitCode = body.readUInt8(1);
    const outLen = body.readUInt32BE(2);
    const stdout = body.toString('utf8', 6, 6 + outLen);
    assert.equal(exitCode, 2, 'check exits 2 on a deny');
    assert.match(stdout, /deny/);
    assert.equal(6 + outLen <= body.length, true);
    // A request the daemon refuses gets 'x' and the reason in the same form.
    const refused = await rawExchange(socket(), encodeFrame({ ...request, argv: ['trust'] }));
    assert.match(refused.toString('utf8'), /^xthe daemon answers hook and check/);
    // A start that is neither given nor worked out from an age is refused.
    const { age: _age, ...noStart } = request;
    assert.match((await rawExchange(socket(), encodeFrame(noStart))).toString('utf8'), /"started" \(or "age"\) must be a number/);
  });

  test('a client of another build gets "stale", and the daemon makes way (last: it stops the daemon)', async () => {
    const base = { v: 1, op: 'run', cwd: project, env: { HOME: home }, started: Date.now(), stdin: '', argv: ['check', '--', 'ls'] };
    assert.deepEqual(await sendRequest(socket(), { ...base, build: 'another-build' }, 5000), { stale: true });
    for (let i = 0; i < 400; i++) {
      if ((await asimov(['daemon', 'status'])).code !== 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const st = await asimov(['daemon', 'status']);
    assert.equal(st.code, 1, st.out);
    // And a client goes on deciding in its own process.
    const r = await asimov(['check', '--', 'ls']);
    assert.equal(r.code, 0);
  });
});
