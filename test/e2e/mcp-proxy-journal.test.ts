// The proxy's audit journal (src/audit/journal.ts) with real processes. Calls at once through two proxies that
// share one log: every record lands once, in one intact chain. And a call decided and journaled before it goes
// upstream, whose proxy is killed (SIGKILL) while the upstream still works on it, so its record never reached
// the shared log: the next proxy to start takes the journal over, the record lands in the log once, the chain
// stays intact, and no journal is left behind.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyLog } from '../../src/audit/verify.ts';
import { gone } from '../helpers/processes.ts';
import { EVERYTHING, auditLines, auditLinesWith, connectProxy, makeProxyScratch, waitFor, type ProxyScratch } from '../helpers/mcp-proxy.ts';

let s: ProxyScratch | undefined;
after(() => s?.cleanup());

const LONG = 'mcp__everything__trigger-long-running-operation';

function journalRecords(dir: string): Array<{ decision_id: string; client_tool: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
}

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

  const first = await connectProxy(s, upstream);
  const echoed = await first.client.callTool({ name: 'echo', arguments: { message: 'before' } });
  assert.notEqual(echoed.isError, true);
  await auditLinesWith(s.audit, (l) => l.client_tool === 'mcp__everything__echo');

  // Decided and journaled, then upstream for 5 s: the proxy dies before it answers (and before it moves the
  // record). The orphaned upstream keeps the client's stderr pipe open until it ends, so the client sees the
  // connection close only then: the duration is kept short for that.
  const pending = first.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 1 } }).catch((e: unknown) => e);
  const waiting = await waitFor(() => journalRecords(journal).find((r) => r.client_tool === LONG), 'the long call\'s record in the journal');
  assert.ok(!auditLines(s.audit).some((l) => l.decision_id === waiting.decision_id), 'the record is not in the shared log yet');
  const pid = first.transport.pid;
  assert.ok(pid, 'the proxy\'s pid');
  process.kill(pid, 'SIGKILL');
  assert.ok((await pending) instanceof Error, 'the client saw the proxy go');
  await first.close().catch(() => {});
  assert.equal(journalRecords(journal).length, 1, 'the dead proxy left its journal');

  // The next proxy takes the journal over with its first record.
  const second = await connectProxy(s, upstream);
  try {
    const again = await second.client.callTool({ name: 'echo', arguments: { message: 'after' } });
    assert.notEqual(again.isError, true);
    const lines = await auditLinesWith(
      s.audit,
      (l) => l.decision_id === waiting.decision_id && l.client_tool === LONG && l.verdict === 'allow',
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
