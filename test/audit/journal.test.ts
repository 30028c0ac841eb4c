// Tests for the audit journal (src/audit/journal.ts): real files, a real chain, real processes killed before
// their records reached the log.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Decision, ToolCall } from '../../src/core/types.ts';
import { buildEvent } from '../../src/audit/event.ts';
import { createJournaledWriter, journaledAudit, recoverJournals } from '../../src/audit/journal.ts';
import { journalDirOf } from '../../src/audit/paths.ts';
import { createAuditWriter } from '../../src/audit/writer.ts';
import { verifyLog } from '../../src/audit/verify.ts';
import { AsimovError } from '../../src/core/errors.ts';
import { tempDirs } from '../helpers/temp-dirs.ts';

const scratch = tempDirs();

const REPO = fileURLToPath(new URL('../../', import.meta.url));

function draft(i: number) {
  const call: ToolCall = { tool: 'mcp', clientTool: 'mcp__srv__echo', input: { message: `m${i}` }, cwd: '/p', agent: 'mcp-proxy' };
  const decision: Decision = {
    verdict: 'allow', tier: 'allow', rule: 'bench.echo', reason: 'harmless', layer: 'static', ms: 0.1, findings: [], decisionId: `d-${i}`,
  };
  return buildEvent(call, decision, { ts: new Date(Date.UTC(2026, 10, 22, 23, 0, i)) });
}

function logIn(): string {
  return join(scratch('asimov-journal-'), 'state', 'audit.jsonl');
}

function ids(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').trimEnd().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { decision_id: string }).decision_id);
}

function journaled(path: string, log?: (line: string) => void) {
  const writer = createAuditWriter({ path });
  assert.ok(writer);
  return createJournaledWriter({ writer, ...(log ? { log } : {}) });
}

/** Polls until `cond` holds (never a fixed sleep standing in for a condition). */
async function waitFor(cond: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A pid no process has: one that just exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('a journaled writer', () => {
  test('a record is on disk in the journal at once, and in the chained log after flush; the journal is then empty', () => {
    const path = logIn();
    const j = journaled(path);
    j.append(draft(1));
    j.append(draft(2));
    assert.deepEqual(ids(path), [], 'nothing in the shared log yet');
    const journal = readFileSync(j.journalPath, 'utf8').trimEnd().split('\n').map((l) => (JSON.parse(l) as { decision_id: string }).decision_id);
    assert.deepEqual(journal, ['d-1', 'd-2']);
    assert.equal(j.pending(), 2);
    j.flush();
    assert.deepEqual(ids(path), ['d-1', 'd-2']);
    assert.equal(j.pending(), 0);
    assert.equal(statSync(j.journalPath).size, 0);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 2 });
    j.close();
    assert.ok(!existsSync(j.journalPath), 'a closed, flushed journal is removed');
  });

  test('interleaves with lines other writers append, in one valid chain', () => {
    const path = logIn();
    const j = journaled(path);
    const other = createAuditWriter({ path })!;
    j.append(draft(1));
    other.append(draft(2));
    j.append(draft(3));
    j.flush();
    other.append(draft(4));
    j.close();
    assert.deepEqual(ids(path), ['d-2', 'd-1', 'd-3', 'd-4']);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 4 });
  });

  test('the journal directory and file are private (0700, 0600)', () => {
    const path = logIn();
    const j = journaled(path);
    j.append(draft(1));
    assert.equal(statSync(journalDirOf(path)).mode & 0o777, 0o700);
    assert.equal(statSync(j.journalPath).mode & 0o777, 0o600);
    j.close();
  });

  test('a journal that cannot be written throws audit_io_error and keeps nothing pending', () => {
    const path = logIn();
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(journalDirOf(path), 'a file where the journal directory goes\n');
    const j = journaled(path);
    assert.throws(() => j.append(draft(1)), (e) => e instanceof AsimovError && e.code === 'audit_io_error');
    assert.equal(j.pending(), 0);
    j.close();
  });

  test('a symbolic link at the journal directory is refused: the records never go where it points', () => {
    const path = logIn();
    const elsewhere = scratch('asimov-journal-elsewhere-');
    mkdirSync(join(path, '..'), { recursive: true });
    symlinkSync(elsewhere, journalDirOf(path));
    const j = journaled(path);
    assert.throws(() => j.append(draft(1)), (e) => e instanceof AsimovError && e.code === 'audit_io_error' && /not a directory/.test(e.message));
    assert.deepEqual(readdirSync(elsewhere), []);
    j.close();
  });

  test('when the log cannot be written, the records stay journaled and go with a later flush', () => {
    const path = logIn();
    const said: string[] = [];
    const j = journaled(path, (l) => said.push(l));
    j.append(draft(1));
    mkdirSync(`${path}.lock`); // another process's lock, as the writer sees it: live (fresh)
    const writer = createAuditWriter({ path, timeoutMs: 50 })!;
    const blocked = createJournaledWriter({ writer, log: (l) => said.push(l) });
    blocked.append(draft(2));
    assert.throws(() => blocked.flush(), (e) => e instanceof AsimovError && e.code === 'audit_io_error');
    blocked.flushQuietly();
    assert.match(said.join('\n'), /1 audit record\(s\) wait in .*\.jsonl, to be moved into the log later/);
    assert.equal(blocked.pending(), 1);
    rmdirSync(`${path}.lock`);
    blocked.flush();
    j.flush();
    assert.deepEqual(ids(path), ['d-2', 'd-1']);
    blocked.close();
    j.close();
  });

  test('with autoSeal, records wait while the process is busy and are sealed in one batch once it is idle', async () => {
    const path = logIn();
    const batches: number[] = [];
    // The busy timer is far off, so only idleness can seal here.
    const j = createJournaledWriter({ writer: createAuditWriter({ path })!, autoSeal: { idleMs: 5, busyMs: 600_000 }, onBatch: (n) => batches.push(n) });
    j.setIdle(false);
    for (let i = 1; i <= 20; i++) j.append(draft(i));
    j.setIdle(true);
    j.setIdle(false); // a request arrives before the quiet time is over: no seal yet
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(ids(path), [], 'nothing sealed while a request is in flight');
    j.setIdle(true);
    await waitFor(() => ids(path).length === 20, 'the records in the log');
    assert.deepEqual(batches, [20], 'one locked append for the twenty records');
    assert.equal(j.pending(), 0);
    assert.equal(statSync(j.journalPath).size, 0);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 20 });
    j.close();
  });

  test('with autoSeal, a process that stays busy still has its records sealed, in batches, by the busy timer', async () => {
    const path = logIn();
    const batches: number[] = [];
    const j = createJournaledWriter({ writer: createAuditWriter({ path })!, autoSeal: { idleMs: 600_000, busyMs: 5 }, onBatch: (n) => batches.push(n) });
    j.setIdle(false);
    for (let i = 1; i <= 10; i++) j.append(draft(i));
    await waitFor(() => ids(path).length === 10, 'the first batch in the log');
    for (let i = 11; i <= 15; i++) j.append(draft(i));
    await waitFor(() => ids(path).length === 15, 'the second batch in the log');
    assert.deepEqual(batches, [10, 5]);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 15 });
    j.close();
  });

  test('with autoSeal, a batch the log refuses stays journaled and is tried again by the timer', async () => {
    const path = logIn();
    const said: string[] = [];
    const j = createJournaledWriter({ writer: createAuditWriter({ path, timeoutMs: 20 })!, autoSeal: { idleMs: 600_000, busyMs: 5 }, log: (l) => said.push(l) });
    j.append(draft(1)); // the journal (and the log's directory) exist from here
    mkdirSync(`${path}.lock`); // a live lock of another process
    j.append(draft(2));
    await waitFor(() => said.length > 0, 'the failure said');
    assert.match(said[0]!, /audit record\(s\) wait in .*, to be moved into the log later/);
    assert.deepEqual(ids(path), []);
    rmdirSync(`${path}.lock`);
    await waitFor(() => ids(path).length === 2, 'the retried batch in the log');
    assert.equal(said.length, 1, 'the same failure is said once');
    j.close();
  });

  test('close seals what waits and stops the timers (the process is not kept alive by them)', () => {
    const path = logIn();
    const j = createJournaledWriter({ writer: createAuditWriter({ path })!, autoSeal: {} });
    j.append(draft(1));
    j.setIdle(true);
    j.close();
    assert.deepEqual(ids(path), ['d-1']);
    assert.ok(!existsSync(j.journalPath));
  });

  test('journaledAudit: none when auditing is off; an unusable ASIMOV_AUDIT_LOG fails each record', () => {
    assert.equal(journaledAudit({ ASIMOV_AUDIT_LOG: 'off', HOME: '/nonexistent' }), null);
    const bad = journaledAudit({ ASIMOV_AUDIT_LOG: 'relative/audit.jsonl', HOME: '/nonexistent' });
    assert.ok(bad);
    assert.throws(() => bad.append(draft(1)), (e) => e instanceof AsimovError && e.code === 'audit_io_error');
    const path = logIn();
    const good = journaledAudit({ ASIMOV_AUDIT_LOG: path, HOME: '/nonexistent' })!;
    good.append(draft(1));
    good.flushQuietly();
    good.close();
    assert.deepEqual(ids(path), ['d-1']);
  });

  test('journaledAudit seals on its own once the process is idle, and remembers the state told before its first record', async () => {
    const path = logIn();
    const batches: number[] = [];
    const audit = journaledAudit({ ASIMOV_AUDIT_LOG: path, HOME: '/nonexistent' }, { onBatch: (n) => batches.push(n) })!;
    audit.setIdle(false);
    audit.append(draft(1));
    audit.append(draft(2));
    audit.setIdle(true);
    await waitFor(() => ids(path).length === 2, 'the records in the log');
    assert.deepEqual(batches, [2]);
    audit.close();
  });
});

describe('taking over the journal of a process that died', () => {
  test('a process killed before it moved its records: the next journaled writer moves them', () => {
    const path = logIn();
    // The child journals two records and is killed by SIGKILL before any flush: no exit handler runs.
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', `
      const { createJournaledWriter } = await import(${JSON.stringify(join(REPO, 'src/audit/journal.ts'))});
      const { createAuditWriter } = await import(${JSON.stringify(join(REPO, 'src/audit/writer.ts'))});
      const j = createJournaledWriter({ writer: createAuditWriter({ path: ${JSON.stringify(path)} }) });
      for (const i of [1, 2]) j.append({ v: 1, decision_id: 'killed-' + i, ts: new Date().toISOString(), agent: 'mcp-proxy', session: null,
        call_id: null, tool: 'mcp', client_tool: 'x', cwd: '/p', verdict: 'allow', tier: 'allow', rule: null, reason: 'r', layer: 'static',
        findings: [], ms: 0, policy_hash: null, input: {}, erased: [] });
      process.kill(process.pid, 'SIGKILL');
    `], { cwd: REPO, encoding: 'utf8' });
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    assert.deepEqual(ids(path), []);
    assert.equal(readdirSync(journalDirOf(path)).length, 1, 'the dead process left its journal');

    const said: string[] = [];
    const j = journaled(path, (l) => said.push(l));
    j.append(draft(3)); // the first record of a new writer takes the old journal over first
    j.close();
    assert.deepEqual(ids(path), ['killed-1', 'killed-2', 'd-3']);
    assert.match(said.join('\n'), /moved 2 record\(s\) left by a process that had stopped/);
    assert.deepEqual(readdirSync(journalDirOf(path)), []);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 3 });
  });

  test('a process that exits without closing moves its records on the way out', () => {
    const path = logIn();
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', `
      const { createJournaledWriter } = await import(${JSON.stringify(join(REPO, 'src/audit/journal.ts'))});
      const { createAuditWriter } = await import(${JSON.stringify(join(REPO, 'src/audit/writer.ts'))});
      const j = createJournaledWriter({ writer: createAuditWriter({ path: ${JSON.stringify(path)} }) });
      j.append({ v: 1, decision_id: 'exited', ts: new Date().toISOString(), agent: 'mcp-proxy', session: null,
        call_id: null, tool: 'mcp', client_tool: 'x', cwd: '/p', verdict: 'allow', tier: 'allow', rule: null, reason: 'r', layer: 'static',
        findings: [], ms: 0, policy_hash: null, input: {}, erased: [] });
      process.exit(0);
    `], { cwd: REPO, encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(ids(path), ['exited']);
    assert.deepEqual(readdirSync(journalDirOf(path)), []);
  });

  test('records the log already has (the process died between the two writes) are not written twice', () => {
    const path = logIn();
    const writer = createAuditWriter({ path })!;
    writer.appendAll([draft(1), draft(2)]);
    mkdirSync(journalDirOf(path), { recursive: true, mode: 0o700 });
    const orphan = join(journalDirOf(path), `${deadPid()}-abcdef.jsonl`);
    writeFileSync(orphan, [draft(1), draft(2), draft(3)].map((d) => JSON.stringify(d)).join('\n') + '\n', { mode: 0o600 });
    assert.equal(recoverJournals(writer), 1);
    assert.deepEqual(ids(path), ['d-1', 'd-2', 'd-3']);
    assert.ok(!existsSync(orphan));
  });

  test('a running process\'s journal is left alone; a cut line is kept aside for a person, the rest moved', () => {
    const path = logIn();
    const writer = createAuditWriter({ path })!;
    mkdirSync(journalDirOf(path), { recursive: true, mode: 0o700 });
    const live = join(journalDirOf(path), `${process.ppid}-0123ab.jsonl`);
    writeFileSync(live, `${JSON.stringify(draft(1))}\n`);
    const cut = join(journalDirOf(path), `${deadPid()}-4567cd.jsonl`);
    writeFileSync(cut, `${JSON.stringify(draft(2))}\n${JSON.stringify(draft(3)).slice(0, 40)}`);
    const said: string[] = [];
    assert.equal(recoverJournals(writer, { log: (l) => said.push(l) }), 1);
    assert.deepEqual(ids(path), ['d-2']);
    assert.ok(existsSync(live), 'the live journal stays');
    assert.match(said.join('\n'), /1 unreadable line\(s\) in .* were not moved/);
    assert.deepEqual(readdirSync(journalDirOf(path)).filter((n) => n.endsWith('.unreadable')).length, 1);
    assert.equal(recoverJournals(writer), 0, 'nothing is taken over twice');
  });

  test('something that is not a regular file where a journal goes (a FIFO) is set aside, never read', () => {
    const path = logIn();
    const writer = createAuditWriter({ path })!;
    mkdirSync(journalDirOf(path), { recursive: true, mode: 0o700 });
    const fifo = join(journalDirOf(path), `${deadPid()}-0f0f0f.jsonl`);
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const said: string[] = [];
    assert.equal(recoverJournals(writer, { log: (l) => said.push(l) }), 0);
    assert.match(said.join('\n'), /not a regular file; set aside/);
    assert.deepEqual(readdirSync(journalDirOf(path)).filter((n) => n.endsWith('.unreadable')).length, 1);
  });

  test('a journal this process claimed but could not move (the log was locked) is moved by its next try', () => {
    const path = logIn();
    const writer = createAuditWriter({ path })!;
    mkdirSync(journalDirOf(path), { recursive: true, mode: 0o700 });
    writeFileSync(join(journalDirOf(path), `${deadPid()}-2468ac.jsonl`), `${JSON.stringify(draft(7))}\n`);
    mkdirSync(`${path}.lock`); // another process's live lock
    assert.throws(() => recoverJournals(writer, { lockWaitMs: 10 }), (e) => e instanceof AsimovError && e.code === 'audit_io_error');
    assert.match(readdirSync(journalDirOf(path)).join(), new RegExp(`\\.claim-${process.pid}$`));
    rmdirSync(`${path}.lock`);
    assert.equal(recoverJournals(writer), 1);
    assert.deepEqual(ids(path), ['d-7']);
    assert.deepEqual(readdirSync(journalDirOf(path)), []);
  });

  test('a journal claimed by a process that then died is claimed again', () => {
    const path = logIn();
    const writer = createAuditWriter({ path })!;
    mkdirSync(journalDirOf(path), { recursive: true, mode: 0o700 });
    const claimed = join(journalDirOf(path), `${deadPid()}-89ef01.jsonl.claim-${deadPid()}`);
    writeFileSync(claimed, `${JSON.stringify(draft(5))}\n`);
    assert.equal(recoverJournals(writer), 1);
    assert.deepEqual(ids(path), ['d-5']);
    assert.deepEqual(readdirSync(journalDirOf(path)), []);
  });
});
