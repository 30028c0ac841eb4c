// Tests for the audit writer: real files in a temp dir, a real chain, real concurrent processes, real locks and symlinks.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync,
  unlinkSync, utimesSync, writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AsimovError } from '../../src/core/errors.ts';
import type { Decision, ToolCall } from '../../src/core/types.ts';
import { GENESIS_HASH, buildEvent, eventHash, type AuditEvent } from '../../src/audit/event.ts';
import { createAuditWriter } from '../../src/audit/writer.ts';
import { verifyLog } from '../../src/audit/verify.ts';
import { tempDirs } from '../helpers/temp-dirs.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

const scratch = tempDirs();

function tempDir(): string {
  return scratch('asimov-audit-writer-');
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

/** Appends one event from another process (a hook, say), through the writer's own code. */
function appendFromAnotherProcess(path: string, id: string): void {
  const code = `
    import { createAuditWriter } from ${JSON.stringify(join(REPO, 'src/audit/writer.ts'))};
    import { buildEvent } from ${JSON.stringify(join(REPO, 'src/audit/event.ts'))};
    createAuditWriter({ path: process.env.AUDIT_PATH }).append(buildEvent(
      { tool: 'shell', input: { command: 'ls' }, cwd: '/p', agent: 'other' },
      { verdict: 'allow', tier: 'allow', rule: null, reason: 'ok', layer: 'static', ms: 0.1, findings: [], decisionId: process.env.ID },
    ));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: REPO, env: { ...process.env, AUDIT_PATH: path, ID: id }, encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
}

// A long-lived process (the MCP proxy) keeps the log open between appends; the chain must follow the file.
describe('a writer that keeps the log open', () => {
  test('chains past lines another process appended in between', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    w.append(draft(1));
    w.append(draft(2));
    appendFromAnotherProcess(path, 'other-1');
    const next = w.append(draft(3));
    const onDisk = lines(path);
    assert.deepEqual(onDisk.map((e) => e.decision_id), ['d-1', 'd-2', 'other-1', 'd-3']);
    assert.equal(next.prev, onDisk[2]?.hash);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 4 });
  });

  test('two writers of one process interleave into one chain', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const a = writer(path);
    const b = writer(path);
    for (let i = 0; i < 6; i++) (i % 2 === 0 ? a : b).append(draft(i));
    assert.deepEqual(verifyLog(path), { ok: true, lines: 6 });
  });

  test('after the log is rotated (renamed away), writes a new log at the path and leaves the rotated one alone', () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const w = writer(path);
    w.append(draft(1));
    w.append(draft(2));
    renameSync(path, join(dir, 'audit.jsonl.1'));
    const rotated = readFileSync(join(dir, 'audit.jsonl.1'), 'utf8');
    const first = w.append(draft(3));
    assert.equal(first.prev, GENESIS_HASH);
    w.append(draft(4));
    assert.equal(readFileSync(join(dir, 'audit.jsonl.1'), 'utf8'), rotated);
    assert.deepEqual(lines(path).map((e) => e.decision_id), ['d-3', 'd-4']);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 2 });
  });

  test('after the file is replaced under it, chains to the new file\'s last line and never writes to the old one', () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const w = writer(path);
    w.append(draft(1));
    // Another log (a restored backup) moved into place, as an editor or `mv` would.
    const other = join(dir, 'other.jsonl');
    const o = writer(other);
    o.append(draft(10));
    const last = o.append(draft(11));
    const before = readFileSync(path, 'utf8');
    const oldCopy = join(dir, 'old.jsonl');
    renameSync(path, oldCopy);
    renameSync(other, path);
    const next = w.append(draft(2));
    assert.equal(next.prev, last.hash);
    assert.equal(readFileSync(oldCopy, 'utf8'), before);
    assert.deepEqual(lines(path).map((e) => e.decision_id), ['d-10', 'd-11', 'd-2']);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 3 });
  });

  test('after the file is deleted, creates it again with mode 0600', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    w.append(draft(1));
    unlinkSync(path);
    const next = w.append(draft(2));
    assert.equal(next.prev, GENESIS_HASH);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 1 });
  });

  test('after the file is truncated, starts the chain again; after it is cut and refilled, chains to what it holds', () => {
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    w.append(draft(1));
    w.append(draft(2));
    truncateSync(path, 0);
    assert.equal(w.append(draft(3)).prev, GENESIS_HASH);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 1 });
    // Cut back to its first line, then another process appends: the file is not the length we left it at.
    const firstLine = readFileSync(path, 'utf8');
    w.append(draft(4));
    writeFileSync(path, firstLine);
    appendFromAnotherProcess(path, 'other-2');
    const next = w.append(draft(5));
    const onDisk = lines(path);
    assert.deepEqual(onDisk.map((e) => e.decision_id), ['d-3', 'other-2', 'd-5']);
    assert.equal(next.prev, onDisk[1]?.hash);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 3 });
  });

  test('refuses a symbolic link put at the path after it had the log open, leaving its target untouched', () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const w = writer(path);
    w.append(draft(1));
    const target = join(dir, 'bashrc');
    writeFileSync(target, 'export PS1=x\n');
    renameSync(path, join(dir, 'moved.jsonl'));
    symlinkSync(target, path);
    assert.throws(() => w.append(draft(2)), (e: unknown) => e instanceof AsimovError && e.code === 'audit_io_error' && /symbolic link/.test(e.message));
    assert.equal(readFileSync(target, 'utf8'), 'export PS1=x\n');
  });

  test('writes every log right when it has more logs than it keeps open', () => {
    const dir = tempDir();
    const paths = Array.from({ length: 7 }, (_, i) => join(dir, `audit-${i}.jsonl`));
    for (let round = 0; round < 3; round++) for (const [i, p] of paths.entries()) writer(p).append(draft(round * 10 + i));
    for (const p of paths) assert.deepEqual(verifyLog(p), { ok: true, lines: 3 });
  });

  test('the open log is not inherited by the processes asimov starts (an upstream MCP server)', (t) => {
    if (!existsSync('/proc/self/fd')) {
      t.skip('no /proc on this platform');
      return;
    }
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    w.append(draft(1));
    w.append(draft(2));
    const r = spawnSync(process.execPath, ['-e', `
      const fs = require('node:fs');
      for (const f of fs.readdirSync('/proc/self/fd')) { try { console.log(fs.readlinkSync('/proc/self/fd/' + f)); } catch {} }
    `], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.split('\n').includes(path), false, r.stdout);
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
