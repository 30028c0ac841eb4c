// Tests for reading the log: streamed lines, filters, and `audit tail` output, on real log files.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import type { Decision, Tier, ToolCall, Verdict } from '../../src/core/types.ts';
import { buildEvent } from '../../src/audit/event.ts';
import { createAuditWriter } from '../../src/audit/writer.ts';
import {
  formatEventLine, parseFilter, parseTime, readEvents, readLogLines, summarizeInput, tailCommand, type AuditFilter,
} from '../../src/audit/reader.ts';
import { tempDirs } from '../helpers/temp-dirs.ts';

const scratch = tempDirs();

function tempPath(name = 'audit.jsonl'): string {
  return join(scratch('asimov-audit-reader-'), name);
}

interface Spec {
  tool?: string;
  clientTool?: string;
  input?: Record<string, unknown>;
  verdict?: Verdict;
  tier?: Tier;
  rule?: string | null;
  reason?: string;
  agent?: string;
  session?: string;
  ts: string;
  ms?: number;
}

/** Writes a real log through the writer. */
function writeLog(path: string, specs: Spec[]): void {
  const w = createAuditWriter({ path });
  assert.ok(w);
  specs.forEach((s, i) => {
    const call: ToolCall = {
      tool: s.tool ?? 'shell',
      input: s.input ?? { command: `echo ${i}` },
      cwd: '/p',
      agent: s.agent ?? 'claude-code',
      sessionId: s.session ?? 's1',
    };
    if (s.clientTool !== undefined) call.clientTool = s.clientTool;
    const d: Decision = {
      verdict: s.verdict ?? 'allow', tier: s.tier ?? 'allow', rule: s.rule ?? null, reason: s.reason ?? 'fine',
      layer: 'static', ms: s.ms ?? 0.1, findings: [], decisionId: `d-${i}`,
    };
    w.append(buildEvent(call, d, { ts: new Date(s.ts) }));
  });
}

const SAMPLE: Spec[] = [
  { ts: '2026-11-22T10:00:00.000Z', input: { command: 'ls' } },
  { ts: '2026-11-22T11:00:00.000Z', verdict: 'deny', tier: 'hard_deny', rule: 'fs.rm-root', input: { command: 'rm -rf /' }, reason: 'Deletes everything.' },
  { ts: '2026-11-22T12:00:00.000Z', verdict: 'ask', tier: 'soft_deny', rule: 'git.force-push', agent: 'gemini-cli', session: 's2' },
  { ts: '2026-11-22T13:00:00.000Z', tool: 'write', clientTool: 'Write', input: { file_path: '/p/a.ts', content: 'x' } },
  { ts: '2026-11-22T14:00:00.000Z', verdict: 'deny', tier: 'soft_deny', rule: 'fs.write-outside', tool: 'write', clientTool: 'Edit' },
];

function ids(path: string, filter: AuditFilter): string[] {
  return [...readEvents(path, { filter })].map((e) => e.decision_id);
}

describe('readLogLines', () => {
  test('streams lines longer than a read chunk, with multi-byte characters across chunk boundaries', () => {
    const path = tempPath();
    const long = 'é'.repeat(100_000); // 200 KB of two-byte characters
    writeFileSync(path, `first\n${long}\nlast-without-newline`);
    const got = [...readLogLines(path)];
    assert.deepEqual(got.map((l) => [l.line, l.text.length, l.terminated]), [[1, 5, true], [2, 100_000, true], [3, 20, false]]);
    assert.equal(got[1]?.text, long);
  });

  test('a missing file is an audit_io_error', () => {
    assert.throws(() => [...readLogLines(tempPath())], (e: unknown) => e instanceof AsimovError && e.code === 'audit_io_error');
  });
});

describe('filters', () => {
  const path = tempPath();
  writeLog(path, SAMPLE);

  test('since is inclusive and until exclusive', () => {
    assert.deepEqual(ids(path, { since: new Date('2026-11-22T11:00:00Z'), until: new Date('2026-11-22T13:00:00Z') }), ['d-1', 'd-2']);
  });

  test('verdict and tier take lists', () => {
    assert.deepEqual(ids(path, { verdict: ['deny'] }), ['d-1', 'd-4']);
    assert.deepEqual(ids(path, { tier: ['soft_deny', 'hard_deny'] }), ['d-1', 'd-2', 'd-4']);
  });

  test('rule is a glob and never matches events without a rule', () => {
    assert.deepEqual(ids(path, { rule: 'fs.*' }), ['d-1', 'd-4']);
    assert.deepEqual(ids(path, { rule: 'git.force-push' }), ['d-2']);
    assert.deepEqual(ids(path, { rule: '*' }), ['d-1', 'd-2', 'd-4']);
  });

  test('tool matches the normalized kind or the client name; agent and session match exactly', () => {
    assert.deepEqual(ids(path, { tool: 'write' }), ['d-3', 'd-4']);
    assert.deepEqual(ids(path, { tool: 'Edit' }), ['d-4']);
    assert.deepEqual(ids(path, { agent: 'gemini-cli' }), ['d-2']);
    assert.deepEqual(ids(path, { session: 's1' }), ['d-0', 'd-1', 'd-3', 'd-4']);
  });

  test('conditions combine', () => {
    assert.deepEqual(ids(path, { verdict: ['deny'], tool: 'shell' }), ['d-1']);
  });

  test('lines that are not events are skipped and reported', () => {
    const p = tempPath();
    writeLog(p, SAMPLE.slice(0, 2));
    writeFileSync(p, 'not json\n\n{"v":2}\n{"v":1,"cut', { flag: 'a' });
    const skipped: string[] = [];
    const got = [...readEvents(p, { onSkip: (line, why) => skipped.push(`${line}: ${why}`) })];
    assert.equal(got.length, 2);
    assert.deepEqual(skipped, ['3: not valid JSON', '4: empty line', '5: not an audit event', '6: incomplete last line']);
  });
});

describe('parseTime and parseFilter', () => {
  const now = new Date('2026-11-22T15:00:00Z');

  test('read durations before now and ISO dates', () => {
    assert.equal(parseTime('30m', now).toISOString(), '2026-11-22T14:30:00.000Z');
    assert.equal(parseTime('2h', now).toISOString(), '2026-11-22T13:00:00.000Z');
    assert.equal(parseTime('7d', now).toISOString(), '2026-11-15T15:00:00.000Z');
    assert.equal(parseTime('1w', now).toISOString(), '2026-11-15T15:00:00.000Z');
    assert.equal(parseTime('2026-11-20T08:00:00Z', now).toISOString(), '2026-11-20T08:00:00.000Z');
  });

  test('turn command-line strings into a filter', () => {
    assert.deepEqual(parseFilter({ since: '1h', verdict: 'deny, ask', tier: 'HARD_DENY', rule: 'fs.*', tool: 'Bash' }, now), {
      since: new Date('2026-11-22T14:00:00Z'),
      verdict: ['deny', 'ask'],
      tier: ['hard_deny'],
      rule: 'fs.*',
      tool: 'Bash',
    });
  });

  test('name the bad value in a usage error', () => {
    const usage = (re: RegExp) => (e: unknown) => e instanceof AsimovError && e.code === 'usage' && re.test(e.message);
    assert.throws(() => parseTime('yesterday', now), usage(/cannot read the time "yesterday"/));
    assert.throws(() => parseFilter({ verdict: 'deny,maybe' }, now), usage(/unknown verdict "maybe"/));
    assert.throws(() => parseFilter({ tier: 'severe' }, now), usage(/unknown tier "severe"/));
  });
});

describe('tail', () => {
  test('formats an event as time, verdict, tier, rule, what ran and why', () => {
    const path = tempPath();
    writeLog(path, [SAMPLE[1]!]);
    const [e] = [...readEvents(path)];
    assert.ok(e);
    assert.equal(formatEventLine(e), '11:00:00 DENY hard_deny fs.rm-root  rm -rf /  — Deletes everything.');
    assert.equal(formatEventLine(e, true), '2026-11-22 11:00:00 DENY hard_deny fs.rm-root  rm -rf /  — Deletes everything.');
  });

  test('summarizes each kind of call on one short line', () => {
    assert.equal(summarizeInput({ tool: 'write', client_tool: 'Write', input: { file_path: '/p/a.ts', content: 'x' } }), '/p/a.ts');
    assert.equal(summarizeInput({ tool: 'fetch', client_tool: 'WebFetch', input: { url: 'https://x.dev', prompt: 'p' } }), 'https://x.dev');
    assert.equal(
      summarizeInput({ tool: 'mcp', client_tool: 'mcp__github__create_issue', input: { title: 't' } }),
      'mcp__github__create_issue {"title":"t"}',
    );
    assert.equal(summarizeInput({ tool: 'shell', client_tool: null, input: { command: 'a\n  b' } }), 'a b');
    const long = summarizeInput({ tool: 'shell', client_tool: null, input: { command: 'x'.repeat(200) } });
    assert.equal(long.length, 80);
    assert.ok(long.endsWith('…'));
  });

  test('prints the last 20 events by default, oldest first', () => {
    const path = tempPath();
    writeLog(path, Array.from({ length: 25 }, (_, i) => ({ ts: `2026-11-22T10:00:${String(i).padStart(2, '0')}.000Z` })));
    let out = '';
    assert.equal(tailCommand(path, (s) => { out += s; }), 0);
    const lines = out.trimEnd().split('\n');
    assert.equal(lines.length, 20);
    assert.equal(lines[0], '10:00:05 ALLOW allow -  echo 5  — fine');
    assert.equal(lines[19], '10:00:24 ALLOW allow -  echo 24  — fine');
  });

  test('takes a count and a filter, and prints JSON on request', () => {
    const path = tempPath();
    writeLog(path, SAMPLE);
    let out = '';
    assert.equal(tailCommand(path, (s) => { out += s; }, { n: 1, json: true, filter: { verdict: ['deny'] } }), 0);
    const lines = out.trimEnd().split('\n');
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0] ?? '').decision_id, 'd-4');
  });

  test('adds the date when the events span several days', () => {
    const path = tempPath();
    writeLog(path, [{ ts: '2026-11-21T23:59:00.000Z' }, { ts: '2026-11-22T00:01:00.000Z' }]);
    let out = '';
    tailCommand(path, (s) => { out += s; });
    assert.deepEqual(out.trimEnd().split('\n').map((l) => l.slice(0, 19)), ['2026-11-21 23:59:00', '2026-11-22 00:01:00']);
  });

  test('warns about lines that are not events, and fails with exit 1 on a missing log', () => {
    const path = tempPath();
    writeLog(path, SAMPLE.slice(0, 1));
    writeFileSync(path, 'junk\n', { flag: 'a' });
    let out = '';
    let err = '';
    assert.equal(tailCommand(path, (s) => { out += s; }, { err: (s) => { err += s; } }), 0);
    assert.equal(out.split('\n').length, 2);
    assert.match(err, /skipped 1 line\(s\) that are not events/);

    err = '';
    assert.equal(tailCommand(tempPath(), () => {}, { err: (s) => { err += s; } }), 1);
    assert.match(err, /no audit log/);
  });
});
