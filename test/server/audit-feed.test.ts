// Tests for the audit feed: a real log written by the real audit writer (and by concurrent processes), a real
// PGlite index, the real event bus. Partial lines, truncation, replacement, a lost index and two writers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Decision, ToolCall } from '../../src/core/types.ts';
import { buildEvent, serializeEventLine, sealEvent, GENESIS_HASH } from '../../src/audit/event.ts';
import { createAuditWriter } from '../../src/audit/writer.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { startAuditFeed, type AuditFeed } from '../../src/server/audit-feed.ts';
import { createEventBus, type ServerEvent } from '../../src/server/events.ts';
import { tempDirs } from '../helpers/temp-dirs.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const scratch = tempDirs();
let db: Database;
let seq = 0;

before(async () => {
  db = await openDatabase();
});
after(async () => {
  await db.close();
});

function draft(id: string, command = `echo ${id}`) {
  const call: ToolCall = { tool: 'shell', clientTool: 'Bash', input: { command }, cwd: '/p', agent: 'claude-code', sessionId: 's' };
  const decision: Decision = { verdict: 'allow', tier: 'allow', rule: null, reason: 'harmless', layer: 'static', ms: 0.1, findings: [], decisionId: id };
  return buildEvent(call, decision);
}

/** A fresh log path, a bus recording what it carries, and a feed over both (polling fast, for the test). */
function setup(name = 'audit.jsonl') {
  const dir = scratch('asimov-feed-');
  const path = join(dir, name);
  const events = createEventBus();
  const seen: string[] = [];
  events.subscribe((e: ServerEvent) => {
    if (e.type === 'decision') seen.push((e.data as { decisionId: string }).decisionId);
  });
  const feeds: AuditFeed[] = [];
  const feed = (): AuditFeed => {
    const f = startAuditFeed({ path, db, events, pollMs: 50 });
    feeds.push(f);
    return f;
  };
  const writer = createAuditWriter({ path })!;
  const prefix = `f${++seq}-`;
  return { dir, path, seen, feed, writer, prefix, close: () => Promise.all(feeds.map((f) => f.close())) };
}

async function indexed(ids: string[]): Promise<string[]> {
  const rows = await db.query<{ decision_id: string }>('SELECT decision_id FROM decisions WHERE decision_id = ANY($1) ORDER BY decision_id', [ids]);
  return rows.map((r) => r.decision_id);
}

async function until(cond: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('indexes the lines already in the log and then each new one, publishing each on the bus once', async (t) => {
  const s = setup();
  t.after(s.close);
  s.writer.append(draft(`${s.prefix}a`));
  s.writer.append(draft(`${s.prefix}b`));
  const f = s.feed();
  await f.sync();
  assert.deepEqual(await indexed([`${s.prefix}a`, `${s.prefix}b`]), [`${s.prefix}a`, `${s.prefix}b`]);
  s.writer.append(draft(`${s.prefix}c`));
  // fs.watch (or the poll) finds it without being asked.
  await until(() => s.seen.includes(`${s.prefix}c`));
  assert.deepEqual(s.seen, [`${s.prefix}a`, `${s.prefix}b`, `${s.prefix}c`]);
  const [row] = await db.query<{ event: { decision_id: string; input: { command: string } } }>('SELECT event FROM decisions WHERE decision_id = $1', [`${s.prefix}c`]);
  assert.equal(row?.event.input.command, `echo ${s.prefix}c`);
});

test('a partly written last line waits until its newline arrives', async (t) => {
  const s = setup();
  t.after(s.close);
  s.writer.append(draft(`${s.prefix}a`));
  const line = `${serializeEventLine(sealEvent(draft(`${s.prefix}b`), JSON.parse(readFileSync(s.path, 'utf8')).hash))}\n`;
  appendFileSync(s.path, line.slice(0, 40));
  const f = s.feed();
  await f.sync();
  assert.deepEqual(await indexed([`${s.prefix}a`, `${s.prefix}b`]), [`${s.prefix}a`]);
  appendFileSync(s.path, line.slice(40));
  await f.sync();
  assert.deepEqual(await indexed([`${s.prefix}a`, `${s.prefix}b`]), [`${s.prefix}a`, `${s.prefix}b`]);
});

test('a truncated log is read again from its start', async (t) => {
  const s = setup();
  t.after(s.close);
  s.writer.append(draft(`${s.prefix}a`));
  s.writer.append(draft(`${s.prefix}b`));
  const f = s.feed();
  await f.sync();
  truncateSync(s.path, 0);
  const w2 = createAuditWriter({ path: s.path })!;
  w2.append(draft(`${s.prefix}c`));
  await f.sync();
  assert.deepEqual(await indexed([`${s.prefix}c`]), [`${s.prefix}c`]);
  assert.deepEqual(s.seen, [`${s.prefix}a`, `${s.prefix}b`, `${s.prefix}c`]);
});

test('a replaced log (another file at the path) is read from its start; the old decisions stay indexed', async (t) => {
  const s = setup();
  t.after(s.close);
  s.writer.append(draft(`${s.prefix}a`));
  const f = s.feed();
  await f.sync();
  // Rotation: the old file moves away, a new chain starts at the path; its first line is longer than
  // the old file, so only the inode and the first line tell the two apart.
  renameSync(s.path, `${s.path}.1`);
  const other = join(s.dir, 'new.jsonl');
  const w = createAuditWriter({ path: other })!;
  w.append(draft(`${s.prefix}b`, 'x'.repeat(500)));
  w.append(draft(`${s.prefix}c`));
  renameSync(other, s.path);
  await f.sync();
  assert.deepEqual(await indexed([`${s.prefix}a`, `${s.prefix}b`, `${s.prefix}c`]), [`${s.prefix}a`, `${s.prefix}b`, `${s.prefix}c`]);
  assert.deepEqual(s.seen, [`${s.prefix}a`, `${s.prefix}b`, `${s.prefix}c`]);
});

test('a lost index is rebuilt from the log; a kept one resumes where it stopped without publishing again', async (t) => {
  const s = setup();
  t.after(s.close);
  for (const k of ['a', 'b', 'c']) s.writer.append(draft(`${s.prefix}${k}`));
  const f1 = s.feed();
  await f1.sync();
  await f1.close();
  // A restart with the index kept: nothing is new.
  const f2 = s.feed();
  await f2.sync();
  await f2.close();
  assert.equal(s.seen.length, 3);
  // The index lost (the table emptied; the read position row says "done"): built again from the log.
  await db.query('DELETE FROM decisions');
  const f3 = s.feed();
  await f3.sync();
  assert.deepEqual(await indexed([`${s.prefix}a`, `${s.prefix}b`, `${s.prefix}c`]), [`${s.prefix}a`, `${s.prefix}b`, `${s.prefix}c`]);
  const [pos] = await db.query<{ byte_offset: string }>('SELECT byte_offset FROM audit_feed WHERE path = $1', [s.path]);
  assert.equal(Number(pos?.byte_offset), readFileSync(s.path).length);
});

test('lines that are not events are left out and the ones after them still indexed', async (t) => {
  const s = setup();
  t.after(s.close);
  writeFileSync(s.path, `${serializeEventLine(sealEvent(draft(`${s.prefix}a`), GENESIS_HASH))}\nnot json\n{"v":1}\n`);
  s.writer.append(draft(`${s.prefix}b`));
  const f = s.feed();
  await f.sync();
  assert.deepEqual(await indexed([`${s.prefix}a`, `${s.prefix}b`]), [`${s.prefix}a`, `${s.prefix}b`]);
});

test('two processes appending at once: every decision of both is indexed and published once', async (t) => {
  const s = setup();
  t.after(s.close);
  const f = s.feed();
  await f.sync();
  const EACH = 40;
  const code = `
    import { createAuditWriter } from './src/audit/writer.ts';
    import { buildEvent } from './src/audit/event.ts';
    const w = createAuditWriter({ path: process.env.AUDIT_PATH });
    for (let i = 0; i < ${EACH}; i++) {
      w.append(buildEvent(
        { tool: 'shell', input: { command: 'echo ' + i }, cwd: '/p', agent: 'w' + process.env.WORKER },
        { verdict: 'allow', tier: 'allow', rule: null, reason: 'ok', layer: 'static', ms: 0.1, findings: [], decisionId: process.env.PREFIX + process.env.WORKER + '-' + i },
      ));
      if (i % 8 === 0) await new Promise((r) => setTimeout(r, 5));
    }
  `;
  const runs = [0, 1].map((k) =>
    new Promise<{ status: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        cwd: REPO,
        env: { ...process.env, AUDIT_PATH: s.path, WORKER: String(k), PREFIX: s.prefix },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      child.on('close', (status) => done({ status, stderr }));
    }));
  for (const r of await Promise.all(runs)) assert.equal(r.status, 0, r.stderr);
  await f.sync();
  const want = [0, 1].flatMap((k) => Array.from({ length: EACH }, (_, i) => `${s.prefix}${k}-${i}`));
  assert.equal((await indexed(want)).length, 2 * EACH);
  assert.equal(s.seen.length, 2 * EACH);
  assert.equal(new Set(s.seen).size, 2 * EACH);
});
