// Tests for chain verification: every kind of tampering with a real log file is found at the right line.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Decision, ToolCall } from '../../src/core/types.ts';
import { buildEvent, eventHash } from '../../src/audit/event.ts';
import { createAuditWriter } from '../../src/audit/writer.ts';
import { verifyCommand, verifyLog } from '../../src/audit/verify.ts';
import { tempDirs } from '../helpers/temp-dirs.ts';

const scratch = tempDirs();

/** A real log of `n` events written by the writer; returns its path and its lines. */
function makeLog(n: number): { path: string; lines: string[] } {
  const path = join(scratch('asimov-audit-verify-'), 'audit.jsonl');
  writeFileSync(path, '');
  const w = createAuditWriter({ path });
  assert.ok(w);
  for (let i = 1; i <= n; i++) {
    const call: ToolCall = { tool: 'shell', input: { command: `echo ${i}` }, cwd: '/p' };
    const decision: Decision = {
      verdict: i % 2 ? 'allow' : 'deny', tier: i % 2 ? 'allow' : 'hard_deny', rule: i % 2 ? null : 'fs.rm-root',
      reason: `event ${i}`, layer: 'static', ms: i / 10, findings: [], decisionId: `d-${i}`,
    };
    w.append(buildEvent(call, decision, { ts: new Date(Date.UTC(2026, 10, 22, 14, 50, i)) }));
  }
  return { path, lines: readFileSync(path, 'utf8').trimEnd().split('\n') };
}

function rewrite(path: string, lines: string[], trailingNewline = true): void {
  writeFileSync(path, lines.join('\n') + (trailingNewline ? '\n' : ''));
}

describe('verifyLog', () => {
  test('a chain of several events verifies', () => {
    const { path } = makeLog(5);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 5 });
  });

  test('an empty log verifies with no lines', () => {
    const { path } = makeLog(0);
    assert.deepEqual(verifyLog(path), { ok: true, lines: 0 });
  });

  test('editing a field is a hash mismatch at that line', () => {
    const { path, lines } = makeLog(5);
    lines[2] = lines[2]!.replace('"verdict":"allow"', '"verdict":"deny"');
    rewrite(path, lines);
    const r = verifyLog(path);
    assert.equal(r.ok, false);
    assert.equal(r.lines, 5);
    assert.deepEqual(r.firstBroken && { line: r.firstBroken.line, problem: r.firstBroken.problem }, { line: 3, problem: 'hash_mismatch' });
    assert.match(r.firstBroken?.message ?? '', /line 3 was edited/);
  });

  test('an edit whose hash was recomputed is found at the next line, which no longer links to it', () => {
    const { path, lines } = makeLog(5);
    const e = JSON.parse(lines[1]!) as Record<string, unknown>;
    e.reason = 'nothing to see';
    e.hash = eventHash(e);
    lines[1] = JSON.stringify(e);
    rewrite(path, lines);
    assert.deepEqual(verifyLog(path).firstBroken?.line, 3);
    assert.equal(verifyLog(path).firstBroken?.problem, 'prev_mismatch');
  });

  test('deleting a line is a prev mismatch at the line that followed it', () => {
    const { path, lines } = makeLog(5);
    lines.splice(2, 1);
    rewrite(path, lines);
    const b = verifyLog(path).firstBroken;
    assert.equal(b?.line, 3);
    assert.equal(b?.problem, 'prev_mismatch');
    assert.match(b?.message ?? '', /inserted, deleted or reordered/);
  });

  test('deleting the first line is reported at line 1', () => {
    const { path, lines } = makeLog(3);
    rewrite(path, lines.slice(1));
    const b = verifyLog(path).firstBroken;
    assert.equal(b?.line, 1);
    assert.equal(b?.problem, 'prev_mismatch');
    assert.match(b?.message ?? '', /removed from the start/);
  });

  test('inserting a line, even a valid event copied from elsewhere, is a prev mismatch at the inserted line', () => {
    const { path, lines } = makeLog(5);
    lines.splice(3, 0, lines[0]!);
    rewrite(path, lines);
    const b = verifyLog(path).firstBroken;
    assert.equal(b?.line, 4);
    assert.equal(b?.problem, 'prev_mismatch');
  });

  test('reordering two lines is a prev mismatch at the first moved line', () => {
    const { path, lines } = makeLog(5);
    [lines[1], lines[2]] = [lines[2]!, lines[1]!];
    rewrite(path, lines);
    const b = verifyLog(path).firstBroken;
    assert.equal(b?.line, 2);
    assert.equal(b?.problem, 'prev_mismatch');
  });

  test('a truncated last line is reported as truncated', () => {
    const { path, lines } = makeLog(4);
    lines[3] = lines[3]!.slice(0, 50);
    rewrite(path, lines, false);
    const r = verifyLog(path);
    assert.equal(r.lines, 4);
    assert.equal(r.firstBroken?.line, 4);
    assert.equal(r.firstBroken?.problem, 'truncated');
    assert.match(r.firstBroken?.message ?? '', /last line, is incomplete/);
  });

  test('a line that is not JSON, or JSON that is not an event, is named', () => {
    const a = makeLog(3);
    a.lines[1] = 'garbage';
    rewrite(a.path, a.lines);
    assert.equal(verifyLog(a.path).firstBroken?.problem, 'bad_json');
    assert.equal(verifyLog(a.path).firstBroken?.line, 2);

    const b = makeLog(3);
    b.lines.splice(1, 0, '');
    rewrite(b.path, b.lines);
    assert.match(verifyLog(b.path).firstBroken?.message ?? '', /line 2 is not valid JSON \(it is empty\)/);

    const c = makeLog(3);
    c.lines[0] = '{"hello":"world"}';
    rewrite(c.path, c.lines);
    assert.equal(verifyLog(c.path).firstBroken?.problem, 'not_event');
  });
});

describe('verifyCommand', () => {
  test('prints that the chain is intact and exits 0', () => {
    const { path } = makeLog(3);
    let out = '';
    assert.equal(verifyCommand(path, (s) => { out += s; }), 0);
    assert.match(out, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 3 events, chain intact\n`));
    // "Intact" is said with what it cannot mean: no local check sees a cut end or a re-sealed rewrite.
    assert.match(out, /cannot see lines cut off the end, nor a log rewritten and re-sealed/);
    assert.match(out, /asimov audit verify --remote/);
  });

  test('prints the first broken line and exits 1', () => {
    const { path, lines } = makeLog(3);
    lines.splice(1, 1);
    rewrite(path, lines);
    let out = '';
    assert.equal(verifyCommand(path, (s) => { out += s; }), 1);
    assert.match(out, /chain broken at line 2: line 2 does not follow line 1/);
  });

  test('says what waits in MCP proxy journals and what was set aside, without calling it a break', () => {
    const { path } = makeLog(2);
    const dir = `${path}.journal`;
    mkdirSync(dir, { mode: 0o700 });
    const record = (id: string) => JSON.stringify({ v: 1, decision_id: id, ts: '2026-11-22T23:00:00.000Z', verdict: 'allow' });
    writeFileSync(join(dir, `${process.pid}-aa11.jsonl`), `${record('j-1')}\n${record('j-2')}\n`);
    writeFileSync(join(dir, '12-bb22.jsonl.claim-13.unreadable'), 'cut');
    let out = '';
    assert.equal(verifyCommand(path, (s) => { out += s; }), 0);
    assert.equal(
      out,
      `${path}: 2 events, chain intact\n` +
        'A local check cannot see lines cut off the end, nor a log rewritten and re-sealed by whoever can write it; ' +
        'with audit.remote set, `asimov audit verify --remote` asks the team server, which kept every record as it arrived.\n' +
        `2 records in 1 MCP proxy journal (${dir}) not in the log yet: a running proxy moves them right after each answer, and the next proxy to start moves those of one that stopped\n` +
        `set aside, with a line that could not be read: ${join(dir, '12-bb22.jsonl.claim-13.unreadable')}\n`,
    );
  });

  test('a missing log is an error with a clear message and exit 1', () => {
    let out = '';
    const path = join(tmpdir(), 'asimov-no-such-dir', 'audit.jsonl');
    assert.equal(verifyCommand(path, (s) => { out += s; }), 1);
    assert.equal(out, `asimov audit verify: ${path}: no audit log (the file does not exist)\n`);
  });
});
