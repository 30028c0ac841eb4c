// bin/hook-first-stage.pl, run as the installed hook line runs it (/bin/sh -c '<the line wire writes>'): with a
// real daemon it answers without node; with anything short of that (no daemon, another build, a directory or
// socket others could own, a daemon that hangs, replies garbage or dies mid-call, input it cannot forward as is)
// it becomes the in-process path, which decides for real. None of them may turn into an allow by itself.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { findExecutable } from '../../src/core/executables.ts';
import { socketPathFor } from '../../src/cli/daemon/socket-path.ts';
import { waitGone } from '../helpers/processes.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'asimov.cjs');
const PERL = findExecutable('perl');

let root = '';
let home = '';
let project = '';
before(() => {
  assert.ok(existsSync(join(ROOT, 'dist', 'cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = mkdtempSync(join(tmpdir(), 'asimov-fs-'));
  home = join(root, 'home');
  project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
});
after(async () => {
  spawnSync(process.execPath, [BIN, 'daemon', 'stop'], { env: baseEnv(), encoding: 'utf8' });
  rmSync(root, { recursive: true, force: true });
});

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.state'),
    ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl'),
    ASIMOV_JUDGE: 'off',
    // Unless a test says otherwise: use a daemon that runs, never start one.
    ASIMOV_DAEMON: 'manual',
    ...extra,
  };
}

const socketPath = (): string => socketPathFor({ HOME: home });

function payload(command: string): string {
  return JSON.stringify({
    session_id: 'fs-test', transcript_path: '', cwd: project, permission_mode: 'default',
    hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command },
  });
}

function line(deadlineMs = 20_000): string {
  return buildHookCommand({ client: 'claude', nodePath: process.execPath, asimovPath: BIN, deadlineMs, watchdog: { kind: 'first-stage', path: PERL! } }).command;
}

interface LineRun { code: number | null; out: string; err: string; decision: string | undefined }

/** Runs the installed line in a real shell, as Claude Code does. */
function runLine(command: string, o: { env?: Record<string, string>; input?: string; deadlineMs?: number } = {}): Promise<LineRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('/bin/sh', ['-c', line(o.deadlineMs)], { cwd: project, env: baseEnv(o.env) });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    // Only keeps a broken first stage from hanging the suite; nothing asserts on time.
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      let decision: string | undefined;
      try {
        decision = (JSON.parse(out) as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput?.permissionDecision;
      } catch {
        decision = undefined;
      }
      resolvePromise({ code, out, err, decision });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.input ?? payload(command));
  });
}

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: project, env: baseEnv(env), encoding: 'utf8' });
}

function served(): number {
  const r = cli(['daemon', 'status', '--json']);
  const s = JSON.parse(r.stdout) as { running: boolean; served?: number };
  return s.running ? s.served! : -1;
}

/** A stand-in daemon on the real socket path, doing whatever `onRequest` does with each connection. */
async function fakeDaemon(onRequest: (sock: Socket, request: Record<string, unknown>) => void, dirMode = 0o700): Promise<{ server: Server; requests: Array<Record<string, unknown>> }> {
  const path = socketPath();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  chmodSync(dirname(path), dirMode);
  rmSync(path, { force: true });
  const requests: Array<Record<string, unknown>> = [];
  const server = createServer((sock) => {
    let got = Buffer.alloc(0);
    sock.on('error', () => undefined);
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length < 4 || got.length < 4 + got.readUInt32BE(0)) return;
      const request = JSON.parse(got.toString('utf8', 4, 4 + got.readUInt32BE(0))) as Record<string, unknown>;
      requests.push(request);
      onRequest(sock, request);
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  return { server, requests };
}

async function closeFake(f: { server: Server }): Promise<void> {
  await new Promise<void>((r) => f.server.close(() => r()));
  chmodSync(dirname(socketPath()), 0o700);
}

/** A bytes reply the first stage takes as an answer: what a daemon saying "allow" would send. */
function allowFrame(): Buffer {
  const out = Buffer.from('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fake"}}\n');
  const body = Buffer.concat([Buffer.from([0x72, 0]), Buffer.alloc(4), out]);
  body.writeUInt32BE(out.length, 2);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

describe('the first stage', { skip: PERL === null ? 'no perl on this machine' : false }, () => {
  test('compiles under strict and warnings, and loads no module', () => {
    const r = spawnSync(PERL!, ['-Mstrict', '-Mwarnings', '-c', join(ROOT, 'bin', 'hook-first-stage.pl')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const source = readFileSync(join(ROOT, 'bin', 'hook-first-stage.pl'), 'utf8');
    assert.doesNotMatch(source, /^\s*(use|require)\s+[A-Z]/m, 'a module load costs every tool call');
  });

  test('no daemon: decided in process, rm -rf / denied and git status allowed', async () => {
    const deny = await runLine('rm -rf /');
    assert.equal(deny.code, 0, deny.err);
    assert.equal(deny.decision, 'deny', deny.out);
    const allow = await runLine('git status');
    assert.equal(allow.decision, 'allow', allow.out);
    assert.equal(existsSync(socketPath()), false, 'manual: no daemon was started');
  });

  describe('with a real daemon', () => {
    before(() => {
      const r = cli(['daemon', 'start']);
      assert.equal(r.status, 0, r.stderr);
    });
    after(() => {
      cli(['daemon', 'stop']);
    });

    test('answers through the daemon: the same decisions, and the daemon counts them', async () => {
      const before = served();
      const deny = await runLine('rm -rf /');
      assert.equal(deny.decision, 'deny', deny.out + deny.err);
      assert.match(deny.out, /fs\.rm-catastrophic/);
      const allow = await runLine('git status');
      assert.equal(allow.decision, 'allow', allow.out + allow.err);
      assert.equal(served(), before + 2, 'both calls were answered by the daemon');
      // The in-process path gives exactly the same bytes.
      const here = await runLine('rm -rf /', { env: { ASIMOV_DAEMON: 'off' } });
      assert.equal(here.out, deny.out);
      assert.equal(served(), before + 2, 'ASIMOV_DAEMON=off goes straight to node');
    });

    test('input the daemon cannot be sent exactly (an environment value that is not UTF-8) is decided in process', async () => {
      const before = served();
      // perl sets the raw byte: a spawn from node could only pass UTF-8.
      const wrapped = `${PERL} -e '$ENV{ODD_BYTES} = "caf\\xe9"; exec @ARGV' /bin/sh -c ${JSON.stringify(line())}`;
      const r = spawnSync('/bin/sh', ['-c', wrapped], { cwd: project, env: baseEnv(), input: payload('rm -rf /'), encoding: 'utf8' });
      assert.match(r.stdout, /"permissionDecision":"deny"/, r.stdout + r.stderr);
      assert.equal(served(), before, 'not sent to the daemon');
    });

    test('a large payload and a multi-byte command reach the daemon intact', async () => {
      const big = `echo ${'ü'.repeat(100_000)} > /dev/null`;
      const r = await runLine(big);
      assert.equal(r.decision, 'allow', r.out + r.err);
    });
  });

  test('a directory others can enter, a symlinked directory or a socket of another user: a fake daemon there is never asked', async (t) => {
    const fake = await fakeDaemon((sock) => sock.end(allowFrame()), 0o755);
    t.after(() => closeFake(fake));
    const r = await runLine('rm -rf /');
    assert.equal(r.decision, 'deny', r.out + r.err);
    assert.equal(fake.requests.length, 0);

    chmodSync(dirname(socketPath()), 0o700);
    // Sanity: the same fake in a private directory is asked (so the refusals above are the checks at work).
    const asked = await runLine('rm -rf /');
    assert.equal(asked.decision, 'allow', 'the fake answered, as a real daemon would');
    assert.equal(fake.requests.length, 1);
    const req = fake.requests[0]!;
    assert.equal(req.reply, 'bytes');
    assert.deepEqual(req.argv, ['hook', 'claude', '--deadline-ms', '20000']);
    assert.equal(req.cwd, project);
    assert.equal((req.env as Record<string, string>).HOME, home);
    assert.equal(Buffer.from(req.stdin as string, 'base64').toString('utf8'), payload('rm -rf /'));
    assert.ok(typeof req.age === 'number' && req.age >= 0);

    if (process.getuid!() === 0) {
      chownSync(socketPath(), 65534, 65534);
      const foreign = await runLine('rm -rf /');
      assert.equal(foreign.decision, 'deny', 'a socket of another user is not asked');
      assert.equal(fake.requests.length, 1);
    }
  });

  test('a symlink where the socket directory belongs is refused', async (t) => {
    const dir = dirname(socketPath());
    const fake = await fakeDaemon((sock) => sock.end(allowFrame()));
    t.after(() => closeFake(fake));
    const real = join(root, 'elsewhere');
    rmSync(real, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    // Move the live socket's directory aside and point a link at it.
    spawnSync('mv', [dir, real]);
    symlinkSync(real, dir);
    t.after(() => {
      rmSync(dir, { force: true });
      spawnSync('mv', [real, dir]);
    });
    const r = await runLine('rm -rf /');
    assert.equal(r.decision, 'deny', r.out + r.err);
    assert.equal(fake.requests.length, 0);
  });

  test('another build (stale), a refusal, garbage, a JSON reply, a cut reply: each decided in process', async (t) => {
    const replies: Array<(sock: Socket) => void> = [
      (sock) => sock.end(Buffer.from([0, 0, 0, 1, 0x73])), // 's': stale
      (sock) => sock.end(Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.from('xrefused')])),
      (sock) => sock.end(Buffer.from('garbage that is no frame at all')),
      (sock) => {
        const body = Buffer.from('{"stdout":"{}","stderr":"","exitCode":0}');
        const head = Buffer.alloc(4);
        head.writeUInt32BE(body.length, 0);
        sock.end(Buffer.concat([head, body]));
      },
      (sock) => sock.end(allowFrame().subarray(0, 20)),
      (sock) => sock.end(Buffer.from([0xff, 0xff, 0xff, 0xff])), // a length over the limit
      (sock) => {
        // 'r' with a stdout length past the end of the body
        const body = Buffer.from([0x72, 0, 0, 0, 1, 0]);
        sock.end(Buffer.concat([Buffer.from([0, 0, 0, body.length]), body]));
      },
    ];
    let next = 0;
    const fake = await fakeDaemon((sock) => replies[next++]!(sock));
    t.after(() => closeFake(fake));
    for (let i = 0; i < replies.length; i++) {
      const r = await runLine('rm -rf /');
      assert.equal(r.decision, 'deny', `reply ${i}: ${r.out} ${r.err}`);
      assert.equal(r.code, 0);
    }
    assert.equal(fake.requests.length, replies.length);
  });

  test('a payload larger than a pipe holds is handed to node whole after a refusal', async (t) => {
    const fake = await fakeDaemon((sock) => sock.end(Buffer.concat([Buffer.from([0, 0, 0, 2]), Buffer.from('xx')])));
    t.after(() => closeFake(fake));
    // The padding rides in a field of the payload the hook does not read; a cut or reordered payload would
    // not parse, and would be refused with an error instead of this decision.
    const input = JSON.stringify({ ...(JSON.parse(payload('rm -rf /')) as object), padding: 'x'.repeat(300_000) });
    const r = await runLine('', { input });
    assert.equal(fake.requests.length, 1);
    assert.equal(Buffer.from(fake.requests[0]!.stdin as string, 'base64').toString('utf8'), input);
    assert.equal(r.decision, 'deny', r.err);
    assert.match(r.out, /fs\.rm-catastrophic/);
  });

  test('a daemon that hangs: the hook still answers by its deadline, in process (or blocked by the deadline)', async (t) => {
    const fake = await fakeDaemon(() => undefined);
    t.after(() => closeFake(fake));
    // The first stage gives up shortly before the deadline; what is left of it is the in-process path's,
    // which decides (the real decision) or, out of time, blocks. Neither is the hung daemon's to give.
    const r = await runLine('rm -rf /', { deadlineMs: 1500 });
    assert.equal(fake.requests.length, 1);
    assert.ok(r.decision === 'deny' || (r.code === 2 && r.decision === undefined), `exit ${r.code}: ${r.out} ${r.err}`);
  });

  test('a daemon killed mid-call: decided in process', async (t) => {
    const path = socketPath();
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    rmSync(path, { force: true });
    // A separate process that dies (SIGKILL, as the OOM killer would) as soon as a request arrives.
    const script = `
      const net = require('node:net');
      net.createServer((s) => s.on('data', () => process.kill(process.pid, 'SIGKILL'))).listen(${JSON.stringify(path)}, () => process.stdout.write('ready\\n'));
    `;
    const child: ChildProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => child.kill('SIGKILL'));
    await new Promise<void>((r) => child.stdout!.once('data', () => r()));
    const r = await runLine('rm -rf /');
    assert.equal(r.decision, 'deny', r.out + r.err);
    await waitGone(child.pid!);
    rmSync(path, { force: true });
  });

  test('the first stage, the entry point and the bundle are asimov\'s own: an agent may read them, not change them', () => {
    const decide = (args: string[]): { verdict: string; tier: string; rule: string | null } =>
      JSON.parse(cli(['check', '--json', ...args], { ASIMOV_DAEMON: 'off' }).stdout) as { verdict: string; tier: string; rule: string | null };
    const stage = join(ROOT, 'bin', 'hook-first-stage.pl');
    for (const command of [
      `echo 'exit 0' > ${stage}`, `cp /tmp/x.pl ${stage}`, `ln -sf /tmp/x.pl ${stage}`, `sed -i s/exit/die/ ${join(ROOT, 'bin', 'asimov.cjs')}`,
      `rm -rf ${join(ROOT, 'dist')}`, `mv ${join(ROOT, 'dist', 'cli.cjs')} /tmp/`, `chmod 000 ${stage}`,
    ]) {
      const d = decide(['--', command]);
      assert.equal(d.tier, 'hard_deny', `${command}: ${JSON.stringify(d)}`);
      assert.equal(d.rule, 'selfmod.asimov', command);
    }
    const write = decide(['--tool', 'Write', '--input', JSON.stringify({ file_path: stage, content: 'exit 0;' })]);
    assert.equal(write.tier, 'hard_deny', JSON.stringify(write));
    assert.equal(decide(['--', `cat ${stage}`]).verdict, 'allow');
  });

  test('wrong arguments: exit non-zero, so the line blocks', () => {
    const r = spawnSync(PERL!, [join(ROOT, 'bin', 'hook-first-stage.pl'), 'x', 'node'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /wrong arguments/);
  });

  test('auto: the first call that finds no daemon is decided in process and starts one for the next', async (t) => {
    t.after(() => cli(['daemon', 'stop']));
    rmSync(join(dirname(socketPath()), 'autostart'), { force: true });
    const first = await runLine('rm -rf /', { env: { ASIMOV_DAEMON: 'auto' } });
    assert.equal(first.decision, 'deny', first.out + first.err);
    let running = false;
    for (let i = 0; i < 200 && !running; i++) {
      running = served() >= 0;
      if (!running) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(running, 'a daemon was started');
    const second = await runLine('rm -rf /', { env: { ASIMOV_DAEMON: 'auto' } });
    assert.equal(second.decision, 'deny');
    assert.equal(served(), 1, 'the second call went to it');
  });
});
