// Tests for `audit stats`: counts, top rules, latency percentiles and the time window, over a real log.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Decision, Tier, ToolCall, Verdict } from '../../src/core/types.ts';
import { buildEvent } from '../../src/audit/event.ts';
import { createAuditWriter } from '../../src/audit/writer.ts';
import { computeStats, percentile, statsCommand } from '../../src/audit/stats.ts';
import { readEvents } from '../../src/audit/reader.ts';
import { tempDirs } from '../helpers/temp-dirs.ts';

const scratch = tempDirs();

interface Spec {
  verdict: Verdict;
  tier: Tier;
  rule: string | null;
  tool: string;
  agent?: string;
  ms: number;
  ts: string;
}

function writeLog(specs: Spec[]): string {
  const path = join(scratch('asimov-audit-stats-'), 'audit.jsonl');
  const w = createAuditWriter({ path });
  assert.ok(w);
  specs.forEach((s, i) => {
    const call: ToolCall = { tool: s.tool, input: { command: 'x' }, cwd: '/p' };
    if (s.agent !== undefined) call.agent = s.agent;
    const d: Decision = {
      verdict: s.verdict, tier: s.tier, rule: s.rule, reason: 'r', layer: 'static', ms: s.ms, findings: [], decisionId: `d-${i}`,
    };
    w.append(buildEvent(call, d, { ts: new Date(s.ts) }));
  });
  return path;
}

// Ten events: 6 allow, 3 deny, 1 ask; ms 1..10.
const SPECS: Spec[] = [
  ...Array.from({ length: 6 }, (_, i): Spec => ({
    verdict: 'allow', tier: 'allow', rule: null, tool: 'shell', agent: 'claude-code', ms: i + 1, ts: `2026-11-22T10:0${i}:00.000Z`,
  })),
  { verdict: 'deny', tier: 'hard_deny', rule: 'fs.rm-root', tool: 'shell', agent: 'claude-code', ms: 7, ts: '2026-11-22T11:00:00.000Z' },
  { verdict: 'deny', tier: 'hard_deny', rule: 'fs.rm-root', tool: 'shell', agent: 'gemini-cli', ms: 8, ts: '2026-11-22T11:01:00.000Z' },
  { verdict: 'deny', tier: 'soft_deny', rule: 'net.pipe-to-shell', tool: 'shell', ms: 9, ts: '2026-11-22T12:00:00.000Z' },
  { verdict: 'ask', tier: 'unknown', rule: 'files.write-outside', tool: 'write', agent: 'gemini-cli', ms: 10, ts: '2026-11-22T13:00:00.000Z' },
];

describe('computeStats', () => {
  const path = writeLog(SPECS);

  test('counts by verdict, tier, rule, tool and agent, most frequent first', () => {
    const s = computeStats(readEvents(path));
    assert.equal(s.total, 10);
    assert.equal(s.from, '2026-11-22T10:00:00.000Z');
    assert.equal(s.to, '2026-11-22T13:00:00.000Z');
    assert.deepEqual(s.byVerdict, [{ key: 'allow', count: 6 }, { key: 'deny', count: 3 }, { key: 'ask', count: 1 }]);
    assert.deepEqual(s.byTier, [
      { key: 'allow', count: 6 }, { key: 'hard_deny', count: 2 }, { key: 'soft_deny', count: 1 }, { key: 'unknown', count: 1 },
    ]);
    assert.deepEqual(s.byRule, [
      { key: '(none)', count: 6 }, { key: 'fs.rm-root', count: 2 }, { key: 'files.write-outside', count: 1 }, { key: 'net.pipe-to-shell', count: 1 },
    ]);
    assert.deepEqual(s.byTool, [{ key: 'shell', count: 9 }, { key: 'write', count: 1 }]);
    assert.deepEqual(s.byAgent, [{ key: 'claude-code', count: 7 }, { key: 'gemini-cli', count: 2 }, { key: '(none)', count: 1 }]);
  });

  test('gives nearest-rank p50 and p95 of the gate time', () => {
    assert.deepEqual(computeStats(readEvents(path)).ms, { p50: 5, p95: 10, max: 10 });
    assert.equal(percentile([], 50), null);
    assert.equal(percentile([3], 95), 3);
    assert.equal(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 95), 95);
  });

  test('keeps only the top rules asked for', () => {
    assert.deepEqual(computeStats(readEvents(path), 2).byRule.map((c) => c.key), ['(none)', 'fs.rm-root']);
  });

  test('counts only the window given', () => {
    const s = computeStats(readEvents(path, { filter: { since: new Date('2026-11-22T11:00:00Z'), until: new Date('2026-11-22T13:00:00Z') } }));
    assert.equal(s.total, 3);
    assert.deepEqual(s.byVerdict, [{ key: 'deny', count: 3 }]);
    assert.deepEqual(s.ms, { p50: 8, p95: 9, max: 9 });
  });

  test('an empty window has no percentiles', () => {
    const s = computeStats(readEvents(path, { filter: { since: new Date('2030-01-01T00:00:00Z') } }));
    assert.equal(s.total, 0);
    assert.deepEqual(s.ms, { p50: null, p95: null, max: null });
    assert.equal(s.from, null);
  });
});

describe('statsCommand', () => {
  const path = writeLog(SPECS);

  test('prints a readable summary and exits 0', () => {
    let out = '';
    assert.equal(statsCommand(path, (s) => { out += s; }), 0);
    assert.equal(
      out,
      [
        'events: 10 (2026-11-22T10:00:00.000Z .. 2026-11-22T13:00:00.000Z)',
        'verdict: allow 6, deny 3, ask 1',
        'tier: allow 6, hard_deny 2, soft_deny 1, unknown 1',
        'tool: shell 9, write 1',
        'agent: claude-code 7, gemini-cli 2, (none) 1',
        'ms: p50 5  p95 10  max 10',
        'rules (top 20):',
        '  6  (none)',
        '  2  fs.rm-root',
        '  1  files.write-outside',
        '  1  net.pipe-to-shell',
        '',
      ].join('\n'),
    );
  });

  test('prints JSON on request, with the filter applied', () => {
    let out = '';
    assert.equal(statsCommand(path, (s) => { out += s; }, { json: true, filter: { verdict: ['deny'] } }), 0);
    const s = JSON.parse(out) as { total: number; byRule: unknown };
    assert.equal(s.total, 3);
    assert.deepEqual(s.byRule, [{ key: 'fs.rm-root', count: 2 }, { key: 'net.pipe-to-shell', count: 1 }]);
  });

  test('fails with exit 1 and a message on a missing log', () => {
    let err = '';
    assert.equal(statsCommand(join(tmpdir(), 'asimov-none', 'audit.jsonl'), () => {}, { err: (s) => { err += s; } }), 1);
    assert.match(err, /^asimov audit stats: .*no audit log/);
  });
});
