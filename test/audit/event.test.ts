// Tests for the audit event: building it from a call and a decision, canonical JSON, and sealing into the chain.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Decision, ToolCall } from '../../src/core/types.ts';
import {
  GENESIS_HASH, buildEvent, canonicalJson, eventHash, isAuditEvent, sealEvent, serializeEventLine,
} from '../../src/audit/event.ts';

const call: ToolCall = {
  tool: 'shell',
  clientTool: 'Bash',
  input: { command: 'rm -rf /', description: 'clean up' },
  cwd: '/p',
  agent: 'claude-code',
  sessionId: 'sess-1',
  callId: 'toolu_01',
};

const decision: Decision = {
  verdict: 'deny',
  tier: 'hard_deny',
  rule: 'fs.rm-root',
  reason: 'Deletes the whole filesystem.',
  layer: 'static',
  ms: 0.123456,
  findings: [{ rule: 'fs.rm-root', tier: 'hard_deny', reason: 'Deletes the whole filesystem.', subject: 'rm -rf /' }],
  decisionId: 'dec-1',
};

describe('buildEvent', () => {
  test('fills every field from the call, the decision and the extra facts', () => {
    const ts = new Date('2026-11-22T14:50:00.123Z');
    const e = buildEvent(call, decision, { ts, policyHash: 'abc' });
    assert.deepEqual(e, {
      v: 1,
      decision_id: 'dec-1',
      ts: '2026-11-22T14:50:00.123Z',
      agent: 'claude-code',
      session: 'sess-1',
      call_id: 'toolu_01',
      tool: 'shell',
      client_tool: 'Bash',
      cwd: '/p',
      verdict: 'deny',
      tier: 'hard_deny',
      rule: 'fs.rm-root',
      reason: 'Deletes the whole filesystem.',
      layer: 'static',
      findings: [{ rule: 'fs.rm-root', tier: 'hard_deny', reason: 'Deletes the whole filesystem.', subject: 'rm -rf /' }],
      ms: 0.123,
      policy_hash: 'abc',
      input: { command: 'rm -rf /', description: 'clean up' },
      erased: [],
    });
  });

  test('writes null for facts the client did not give, and error_code and judge only when they apply', () => {
    const bare: ToolCall = { tool: 'mystery', input: {}, cwd: '/' };
    const e = buildEvent(bare, { ...decision, rule: null, layer: 'error', errorCode: 'internal', ms: Number.NaN });
    assert.equal(e.agent, null);
    assert.equal(e.session, null);
    assert.equal(e.call_id, null);
    assert.equal(e.client_tool, null);
    assert.equal(e.policy_hash, null);
    assert.equal(e.rule, null);
    assert.equal(e.ms, 0);
    assert.equal(e.error_code, 'internal');
    assert.equal('judge' in e, false);
    assert.equal('error_code' in buildEvent(call, decision), false);
  });

  test('redacts secrets in the input, the reason, the findings and the judge, and names each place in erased', () => {
    const token = 'ghp_' + 'a1B2c3D4e5'.repeat(4);
    const e = buildEvent(
      { ...call, input: { command: `GITHUB_TOKEN=${token} gh pr list` } },
      {
        ...decision,
        reason: `uses ${token}`,
        findings: [{ rule: 'x.y', tier: 'soft_deny', reason: 'r', subject: `gh --token ${token}` }],
      },
      { judge: { provider: 'anthropic', model: 'haiku', verdict: 'deny', latency_ms: 12, cache_hit: false, reason: `saw ${token}` } },
    );
    const text = JSON.stringify(e);
    assert.equal(text.includes(token), false);
    assert.deepEqual(e.erased, ['input.command', 'reason', 'findings[0].subject', 'judge.reason']);
    assert.equal(e.judge?.model, 'haiku');
  });
});

describe('canonicalJson', () => {
  test('sorts keys at every depth and writes no whitespace', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } }), '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  test('follows JSON.stringify for values JSON cannot hold', () => {
    assert.equal(canonicalJson({ a: undefined, b: Number.NaN, c: [undefined, Infinity], d: -0 }), '{"b":null,"c":[null,null],"d":0}');
    assert.equal(canonicalJson({ t: new Date('2026-01-01T00:00:00Z') }), '{"t":"2026-01-01T00:00:00.000Z"}');
  });

  test('orders keys by UTF-16 code units, as RFC 8785 does', () => {
    assert.equal(canonicalJson({ é: 1, z: 2, Z: 3, _: 4 }), '{"Z":3,"_":4,"z":2,"é":1}');
  });
});

describe('sealEvent and serializeEventLine', () => {
  test('the hash is the sha256 of the canonical event without the hash field', () => {
    const sealed = sealEvent(buildEvent(call, decision, { ts: new Date(0) }), GENESIS_HASH);
    const { hash, ...rest } = sealed;
    assert.equal(hash, createHash('sha256').update(canonicalJson(rest)).digest('hex'));
    assert.equal(sealed.prev, GENESIS_HASH);
  });

  test('a line puts the decision first and the hash last, and parses back to the same hash', () => {
    const sealed = sealEvent(buildEvent(call, decision), 'f'.repeat(64));
    const line = serializeEventLine(sealed);
    assert.ok(line.startsWith('{"v":1,"decision_id":"dec-1","ts":'));
    assert.ok(line.endsWith(`"prev":"${'f'.repeat(64)}","hash":"${sealed.hash}"}`));
    const parsed = JSON.parse(line) as Record<string, unknown>;
    assert.equal(eventHash(parsed), sealed.hash);
    assert.ok(isAuditEvent(parsed));
  });

  test('a line is the same text whatever order the event holds its keys in', () => {
    const judge = { provider: 'anthropic', model: 'haiku', verdict: 'deny', latency_ms: 12, cache_hit: false, reason: 'no' };
    const drafts = [
      buildEvent(call, decision),
      buildEvent(call, { ...decision, errorCode: 'audit_io_error' }),
      buildEvent(call, decision, { judge }),
    ];
    for (const d of drafts) {
      const sealed = sealEvent(d, 'e'.repeat(64));
      const line = serializeEventLine(sealed);
      // The same fields inserted backwards, and with a key the line order does not know.
      const reversed = Object.fromEntries(Object.entries(sealed).reverse()) as unknown as typeof sealed;
      assert.equal(serializeEventLine(reversed), line);
      assert.ok(line.endsWith(`"hash":"${sealed.hash}"}`));
      const extra = { ...sealed, zz_extra: 1 };
      assert.match(serializeEventLine(extra), /"zz_extra":1,"prev":"e{64}","hash":"[0-9a-f]{64}"\}$/);
    }
  });

  test('sealing with another sha256 implementation gives the same hash', () => {
    const d = buildEvent(call, decision);
    const viaNode = sealEvent(d, GENESIS_HASH, (text) => createHash('sha256').update(text, 'utf8').digest('hex'));
    assert.deepEqual(viaNode, sealEvent(d, GENESIS_HASH));
  });

  test('isAuditEvent refuses lines without a version or a well-formed chain', () => {
    const sealed = sealEvent(buildEvent(call, decision), GENESIS_HASH);
    assert.equal(isAuditEvent({ ...sealed, v: 2 }), false);
    assert.equal(isAuditEvent({ ...sealed, hash: 'abc' }), false);
    assert.equal(isAuditEvent([sealed]), false);
    assert.equal(isAuditEvent(null), false);
  });
});
