// Tests for the audit writer: real files in a temp dir, a real chain, real concurrent processes, real locks and symlinks.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AsimovError } from '../../src/core/errors.ts';
import type { Decision, ToolCall } from '../../src/core/types.ts';
import { GENESIS_HASH, buildEvent, eventHash, type AuditEvent } from '../../src/audit/event.ts';
import { createAuditWriter } from '../../src/audit/writer.ts';
import { verifyLog } from '../../src/audit/verify.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'asimov-audit-writer-'));
}

function draft(i: number, input: Record<string, unknown> = { command: `echo ${i}` }) {
  const call: ToolCall = { tool: 'shell', clientTool: 'Bash', input, cwd: '/p', agent: 'claude-code', sessionId: 's' };
  const decision: Decision = {
    verdict: 'allow', tier: 'allow', rule: null, reason: 'harmless', layer: 'static', ms: 0.1, findings: [], decisionId: `d-${i}`,
  };
  return buildEvent(call, decision, { ts: new Date(Date.UTC(2026, 10, 22, 14, 50, i)) });
}

function lines(path: string): AuditEvent[] {
  return readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as AuditEvent);
}

function writer(path: string) {
  const w = createAuditWriter({ path });
  assert.ok(w);
  return w;
}

describe('createAuditWriter', () => {
  test('appends one line per event, each chained to the one before', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    const written = [0, 1, 2, 3].map((i) => w.append(draft(i)));
    const onDisk = lines(path);
    assert.equal(onDisk.length, 4);
    assert.equal(onDisk[0]?.prev, GENESIS_HASH);
    for (let i = 1; i < 4; i++) assert.equal(onDisk[i]?.prev, onDisk[i - 1]?.hash);
    onDisk.forEach((e, i) => {
      assert.equal(e.hash, eventHash(e as unknown as Record<string, unknown>));
      assert.deepEqual(e, written[i]);
    });
    assert.deepEqual(verifyLog(path), { ok: true, lines: 4 });
  });

  test('continues the chain of a log written by an earlier process', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const first = writer(path).append(draft(1));
    const second = writer(path).append(draft(2));
    assert.equal(second.prev, first.hash);
  });

  test('creates the directory with mode 0700 and the file with mode 0600', () => {
    const dir = join(tempDir(), 'state', 'asimov');
    const path = join(dir, 'audit.jsonl');
    writer(path).append(draft(1));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  test('returns null when ASIMOV_AUDIT_LOG is off, and uses the variable otherwise', () => {
    assert.equal(createAuditWriter({ env: { ASIMOV_AUDIT_LOG: 'off' } }), null);
    const path = join(tempDir(), 'from-env.jsonl');
    const w = createAuditWriter({ env: { ASIMOV_AUDIT_LOG: path } });
    assert.equal(w?.path, path);
    w?.append(draft(1));
    assert.ok(existsSync(path));
  });

  test('writes no secret of the input to the file, and names the redacted fields in erased', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const gh = 'ghp_' + 'Zz9'.repeat(12);
    const e = writer(path).append(draft(1, { command: `GH_TOKEN=${gh} gh api /user`, env: { API_KEY: 'k-123456' } }));
    const text = readFileSync(path, 'utf8');
    assert.equal(text.includes(gh), false);
    assert.equal(text.includes('k-123456'), false);
    assert.deepEqual(e.erased, ['input.command', 'input.env.API_KEY']);
  });

  test('a log whose last line was cut mid-write gets the next line on a line of its own, chained past the cut line', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    const first = w.append(draft(1));
    writeFileSync(path, '{"v":1,"decision_id":"d-cut","ts":"2026-', { flag: 'a' });
    const next = w.append(draft(2));
    assert.equal(next.prev, first.hash);
    const raw = readFileSync(path, 'utf8').split('\n');
    assert.equal(raw[1], '{"v":1,"decision_id":"d-cut","ts":"2026-');
    assert.equal(JSON.parse(raw[2] ?? '').decision_id, 'd-2');
    // The cut line stays in the log as evidence; verify names it.
    assert.deepEqual(verifyLog(path).firstBroken?.line, 2);
  });

  test('a complete last line that only lacks its newline is chained to', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    const first = w.append(draft(1));
    writeFileSync(path, readFileSync(path, 'utf8').trimEnd());
    const next = w.append(draft(2));
    assert.equal(next.prev, first.hash);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 2 });
  });

  test('reads the previous hash from a long last line', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    const big = w.append(draft(1, { content: 'y'.repeat(7000), more: Array.from({ length: 40 }, () => 'z'.repeat(4000)) }));
    // Rewrite the last line with another key order, so only the slow path can find its hash.
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const { hash, ...rest } = parsed;
    writeFileSync(path, `${JSON.stringify({ hash, ...rest })}\n`);
    const next = w.append(draft(2));
    assert.equal(next.prev, big.hash);
  });
});

describe('the writer lock', () => {
  test('removes a lock left by a crashed process once it is stale', () => {
    const path = join(tempDir(), 'audit.jsonl');
    mkdirSync(`${path}.lock`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, old, old);
    writer(path).append(draft(1));
    assert.equal(existsSync(`${path}.lock`), false);
    assert.equal(lines(path).length, 1);
  });

  test('the lock is a file: a stale one is removed, a live one is waited for, none is left after a write', () => {
    const path = join(tempDir(), 'audit.jsonl');
    writeFileSync(`${path}.lock`, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, old, old);
    writer(path).append(draft(1));
    assert.equal(existsSync(`${path}.lock`), false);
    writeFileSync(`${path}.lock`, '');
    assert.throws(() => createAuditWriter({ path, timeoutMs: 30 })?.append(draft(2)), (e: unknown) => e instanceof AsimovError && /locked/.test(e.message));
    rmSync(`${path}.lock`);
    writer(path).append(draft(2));
    assert.equal(existsSync(`${path}.lock`), false);
    assert.equal(lines(path).length, 2);
  });

  test('gives up on a live lock with audit_io_error and writes nothing', () => {
    const path = join(tempDir(), 'audit.jsonl');
    mkdirSync(`${path}.lock`);
    const w = createAuditWriter({ path, timeoutMs: 30 });
    assert.throws(() => w?.append(draft(1)), (e: unknown) => e instanceof AsimovError && e.code === 'audit_io_error' && /locked/.test(e.message));
    assert.equal(existsSync(path), false);
  });

  test('several processes appending at once leave one valid chain holding every event', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const PROCS = 4;
    const EACH = 50;
    const code = `
      import { createAuditWriter } from ${JSON.stringify(join(REPO, 'src/audit/writer.ts'))};
      import { buildEvent } from ${JSON.stringify(join(REPO, 'src/audit/event.ts'))};
      const w = createAuditWriter({ path: process.env.AUDIT_PATH });
      const me = process.env.WORKER;
      // Start together, so the appends really overlap instead of following each process's startup.
      const wait = Number(process.env.START_AT) - Date.now();
      if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
      for (let i = 0; i < ${EACH}; i++) {
        w.append(buildEvent(
          { tool: 'shell', input: { command: 'echo ' + i }, cwd: '/p', agent: 'w' + me },
          { verdict: 'allow', tier: 'allow', rule: null, reason: 'ok', layer: 'static', ms: 0.1, findings: [], decisionId: me + '-' + i },
        ));
      }
    `;
    const startAt = String(Date.now() + 1500);
    const runs = Array.from({ length: PROCS }, (_, k) =>
      new Promise<{ status: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
          cwd: REPO,
          env: { ...process.env, AUDIT_PATH: path, WORKER: String(k), START_AT: startAt },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
        child.on('close', (status) => done({ status, stderr }));
      }));
    for (const r of await Promise.all(runs)) assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(verifyLog(path), { ok: true, lines: PROCS * EACH });
    const ids = new Set(lines(path).map((e) => e.decision_id));
    assert.equal(ids.size, PROCS * EACH);
    for (let k = 0; k < PROCS; k++) for (let i = 0; i < EACH; i++) assert.ok(ids.has(`${k}-${i}`));
  });
});

describe('writer failures', () => {
  test('refuses to write through a symbolic link at the log path, leaving its target untouched', () => {
    const dir = tempDir();
    const target = join(dir, 'bashrc');
    writeFileSync(target, 'export PS1=x\n');
    const path = join(dir, 'audit.jsonl');
    symlinkSync(target, path);
    assert.throws(() => writer(path).append(draft(1)), (e: unknown) => e instanceof AsimovError && e.code === 'audit_io_error' && /symbolic link/.test(e.message));
    assert.equal(readFileSync(target, 'utf8'), 'export PS1=x\n');
  });

  test('throws audit_io_error naming the path when the directory cannot be created', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    const path = join(dir, 'file', 'sub', 'audit.jsonl');
    assert.throws(
      () => writer(path).append(draft(1)),
      (e: unknown) => e instanceof AsimovError && e.code === 'audit_io_error' && String(e).includes(path),
    );
  });

  test('refuses a FIFO planted at the log path instead of hanging on it', (t) => {
    const path = join(tempDir(), 'audit.jsonl');
    if (spawnSync('mkfifo', [path]).status !== 0) {
      t.skip('mkfifo is not available');
      return;
    }
    assert.throws(() => writer(path).append(draft(1)), (e: unknown) => e instanceof AsimovError && /not a regular file/.test(e.message));
  });

  test('refuses a log path that is a directory', () => {
    const path = join(tempDir(), 'audit.jsonl');
    mkdirSync(path);
    assert.throws(() => writer(path).append(draft(1)), (e: unknown) => e instanceof AsimovError && e.code === 'audit_io_error');
  });
});
