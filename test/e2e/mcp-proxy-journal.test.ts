// The proxy's audit journal (src/audit/journal.ts) with real processes. Calls at once through two proxies that
// share one log: every record lands once, in one intact chain. And a call decided and journaled before it goes
// upstream, whose proxy is killed (SIGKILL) while the upstream still works on it, so its record never reached
// the shared log: the next proxy to start takes the journal over, the record lands in the log once, the chain
// stays intact, and no journal is left behind. The records are sealed into the log in batches, off the calls'
// path (counted through ASIMOV_DEBUG_AUDIT_SEALS, which says each batch on stderr), and a proxy killed in the
// middle of a burst loses none of them once the next proxy starts.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyLog } from '../../src/audit/verify.ts';
import { gone } from '../helpers/processes.ts';
import { BIN, EVERYTHING, auditLines, auditLinesWith, connectProxy, makeProxyScratch, proxyEnv, waitFor, type ProxyScratch } from '../helpers/mcp-proxy.ts';

let s: ProxyScratch | undefined;
after(() => s?.cleanup());

const LONG = 'mcp__everything__trigger-long-running-operation';

function journalRecords(dir: string): Array<{ decision_id: string; client_tool: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
}

/** The sizes of the batches a proxy run with ASIMOV_DEBUG_AUDIT_SEALS=1 sealed into the log, from its stderr. */
function batches(stderr: string): number[] {
  return [...stderr.matchAll(/sealed (\d+) audit record\(s\) into the log/g)].map((m) => Number(m[1]));
}

/**
 * Holds the log's lock as another asimov process appending would (a fresh lock file, kept fresh), so that no
 * seal can move the proxy's records into the log: they must wait in its journal. Returns the release.
 */
function holdLogLock(audit: string): () => void {
  const lock = `${audit}.lock`;
  writeFileSync(lock, '', { flag: 'wx' });
  const keepFresh = setInterval(() => { const now = new Date(); utimesSync(lock, now, now); }, 1_000);
  return () => {
    clearInterval(keepFresh);
    rmSync(lock, { force: true });
  };
}

/** `asimov audit verify` (the built CLI) on the scratch's log: its exit status and what it said. */
function auditVerify(t: ProxyScratch): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--log', t.audit], { env: proxyEnv(t), encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('many calls are sealed into the log in fewer locked appends than calls, none on its own after its answer', async () => {
  const t = makeProxyScratch('asimov-proxy-journal-batches-');
  try {
    const p = await connectProxy(t, [process.execPath, EVERYTHING, 'stdio'], { env: { ASIMOV_DEBUG_AUDIT_SEALS: '1' } });
    try {
      // 40 at once, then 20 one after the other: each answered call's record is journaled, not sealed alone.
      const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => p.client.callTool({ name: 'echo', arguments: { message: `b-${i}` } })));
      for (const r of burst) assert.notEqual(r.isError, true);
      for (let i = 0; i < 20; i++) assert.notEqual((await p.client.callTool({ name: 'echo', arguments: { message: `s-${i}` } })).isError, true);
      // Idle now: the rest is sealed without any further call or the proxy's end.
      await waitFor(() => batches(p.stderr()).reduce((a, b) => a + b, 0) === 60, 'the 60 records sealed while the proxy is idle');
      const sealed = batches(p.stderr());
      assert.ok(sealed.length < 60 / 2, `60 records in ${sealed.length} batches: ${sealed.join(', ')}`);
      const lines = auditLines(t.audit);
      assert.equal(lines.length, 60);
      assert.equal(new Set(lines.map((l) => l.decision_id)).size, 60);
    } finally {
      await p.close();
    }
    assert.equal(auditVerify(t).status, 0, auditVerify(t).out);
  } finally {
    t.cleanup();
  }
});

test('a proxy killed (SIGKILL) in the middle of a burst: once the next proxy starts, every record is in the log once and the chain verifies', async () => {
  const t = makeProxyScratch('asimov-proxy-journal-killed-burst-');
  const journal = `${t.audit}.journal`;
  const upstream = [process.execPath, EVERYTHING, 'stdio'];
  try {
    const first = await connectProxy(t, upstream);
    // A warm-up call: the journal exists, so the burst's records go straight into it.
    assert.notEqual((await first.client.callTool({ name: 'echo', arguments: { message: 'warm' } })).isError, true);
    await auditLinesWith(t.audit, (l) => l.input?.message === 'warm');
    const pid = first.transport.pid;
    assert.ok(pid, 'the proxy\'s pid');
    // Another process holds the log's lock, so no seal gets through: the burst's records wait in the journal.
    // The proxy is killed the moment the tenth answer arrives, the rest of the burst in flight.
    const release = holdLogLock(t.audit);
    const answered: string[] = [];
    try {
      const burst = Array.from({ length: 60 }, (_, i) => first.client.callTool({ name: 'echo', arguments: { message: `k-${i}` } })
        .then((r) => {
          if (r.isError === true) return;
          answered.push(`k-${i}`);
          if (answered.length === 10) process.kill(pid, 'SIGKILL');
        }, () => {}));
      await Promise.all(burst);
      await first.close().catch(() => {});
      await waitFor(() => gone(pid), 'the killed proxy to be gone');
    } finally {
      release();
    }
    assert.ok(answered.length >= 10);
    const journaled = new Set(journalRecords(journal).map((r: any) => r.input?.message));
    for (const m of answered) assert.ok(journaled.has(m), `the answered call ${m} waits in the dead proxy's journal`);
    assert.ok(!auditLines(t.audit).some((l) => String(l.input?.message).startsWith('k-')), 'none of the burst reached the log');
    // What the dead proxy recorded: sealed into the log already, or left in its journal.
    const recorded = new Set([...auditLines(t.audit), ...journalRecords(journal)].map((l) => l.decision_id));

    const second = await connectProxy(t, upstream);
    try {
      assert.notEqual((await second.client.callTool({ name: 'echo', arguments: { message: 'after' } })).isError, true);
    } finally {
      await second.close();
    }
    await waitFor(() => journalRecords(journal).length === 0, 'no journal record left once the second proxy closed');
    const lines = auditLines(t.audit);
    const ids = lines.map((l) => l.decision_id);
    assert.equal(new Set(ids).size, ids.length, 'no record written twice');
    for (const id of recorded) assert.ok(ids.includes(id), `the record ${id} of the killed proxy is in the log`);
    // Every call the client got an answer for was journaled before it went upstream, so it is in the log.
    const messages = new Set(lines.map((l) => l.input?.message));
    for (const m of answered) assert.ok(messages.has(m), `the answered call ${m} is in the log`);
    assert.ok(messages.has('after'));
    assert.match(second.stderr(), new RegExp(`moved ${journaled.size} record\\(s\\) left by a process that had stopped into the audit log`));
    const verified = auditVerify(t);
    assert.equal(verified.status, 0, verified.out);
  } finally {
    t.cleanup();
  }
});

test('50 calls at once through one proxy, beside a second proxy: every record in the log once, one intact chain', async () => {
  const t = makeProxyScratch('asimov-proxy-journal-burst-');
  try {
    const upstream = [process.execPath, EVERYTHING, 'stdio'];
    const [a, b] = await Promise.all([connectProxy(t, upstream), connectProxy(t, upstream)]);
    try {
      const calls = Array.from({ length: 50 }, (_, i) => (i % 5 === 4 ? b : a).client.callTool({ name: 'echo', arguments: { message: `burst-${i}` } }));
      for (const r of await Promise.all(calls)) assert.notEqual(r.isError, true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const lines = await auditLinesWith(t.audit, ...Array.from({ length: 50 }, (_, i) => (l: any) => l.input?.message === `burst-${i}`));
    const ids = lines.map((l) => l.decision_id);
    assert.equal(new Set(ids).size, ids.length, 'no record written twice');
    assert.equal(lines.filter((l) => String(l.input?.message).startsWith('burst-')).length, 50);
    assert.deepEqual(verifyLog(t.audit), { ok: true, lines: lines.length });
    assert.deepEqual(journalRecords(`${t.audit}.journal`), [], 'both proxies emptied their journals on close');
  } finally {
    t.cleanup();
  }
});

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  test(`${signal} stops the proxy in order: its records are in the log and its journal is gone`, async () => {
    const t = makeProxyScratch(`asimov-proxy-journal-${signal.toLowerCase()}-`);
    try {
      const p = await connectProxy(t, [process.execPath, EVERYTHING, 'stdio']);
      const r = await p.client.callTool({ name: 'echo', arguments: { message: signal } });
      assert.notEqual(r.isError, true);
      const pid = p.transport.pid;
      assert.ok(pid, 'the proxy\'s pid');
      process.kill(pid, signal);
      await waitFor(() => gone(pid), `the proxy to exit on ${signal}`);
      await p.close().catch(() => {});
      await auditLinesWith(t.audit, (l) => l.input?.message === signal);
      assert.deepEqual(journalRecords(`${t.audit}.journal`), []);
      assert.ok(!existsSync(`${t.audit}.journal`) || readdirSync(`${t.audit}.journal`).length === 0, 'no journal file left');
    } finally {
      t.cleanup();
    }
  });
}

test('a proxy killed while a call is upstream: its journaled record reaches the log through the next proxy, once', async () => {
  s = makeProxyScratch('asimov-proxy-journal-');
  const upstream = [process.execPath, EVERYTHING, 'stdio'];
  const journal = `${s.audit}.journal`;

  let waitingId = '';
  const first = await connectProxy(s, upstream);
  const echoed = await first.client.callTool({ name: 'echo', arguments: { message: 'before' } });
  assert.notEqual(echoed.isError, true);
  await auditLinesWith(s.audit, (l) => l.client_tool === 'mcp__everything__echo');

  // Decided and journaled, then upstream for 5 s: the proxy dies before it answers (and before it moves the
  // record). The orphaned upstream keeps the client's stderr pipe open until it ends, so the client sees the
  // connection close only then: the duration is kept short for that.
  // The log's lock is held meanwhile (as another process appending would), so no seal can move the record.
  const release = holdLogLock(s.audit);
  try {
    const pending = first.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 1 } }).catch((e: unknown) => e);
    const waiting = await waitFor(() => journalRecords(journal).find((r) => r.client_tool === LONG), 'the long call\'s record in the journal');
    assert.ok(!auditLines(s.audit).some((l) => l.decision_id === waiting.decision_id), 'the record is not in the shared log yet');
    const pid = first.transport.pid;
    assert.ok(pid, 'the proxy\'s pid');
    process.kill(pid, 'SIGKILL');
    assert.ok((await pending) instanceof Error, 'the client saw the proxy go');
    await first.close().catch(() => {});
    waitingId = waiting.decision_id;
  } finally {
    release();
  }
  assert.equal(journalRecords(journal).length, 1, 'the dead proxy left its journal');

  // The next proxy takes the journal over with its first record.
  const second = await connectProxy(s, upstream);
  try {
    const again = await second.client.callTool({ name: 'echo', arguments: { message: 'after' } });
    assert.notEqual(again.isError, true);
    const lines = await auditLinesWith(
      s.audit,
      (l) => l.decision_id === waitingId && l.client_tool === LONG && l.verdict === 'allow',
      (l) => l.client_tool === 'mcp__everything__echo' && l.input?.message === 'after',
    );
    const ids = lines.map((l) => l.decision_id);
    assert.equal(new Set(ids).size, ids.length, 'no record written twice');
    assert.deepEqual(verifyLog(s.audit), { ok: true, lines: lines.length });
    assert.match(second.stderr(), /moved 1 record\(s\) left by a process that had stopped into the audit log/);
  } finally {
    await second.close();
  }
  await waitFor(() => journalRecords(journal).length === 0, 'no journal record left once the second proxy closed');
});
