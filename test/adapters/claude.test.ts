// Claude Code's hook protocol: payloads in, native replies out, every refusal in a form that blocks.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claudeBlock, claudeReply, claudeToolCall, parseClaudePayload, type ClaudePayload } from '../../src/adapters/claude.ts';
import { decision } from '../helpers/hook-tests.ts';

const base = {
  session_id: 'sess-1',
  transcript_path: '/tmp/t.jsonl',
  cwd: '/home/dev/project',
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'ls', description: 'list' },
  tool_use_id: 'toolu_01',
};

function payload(over: Record<string, unknown> = {}): ClaudePayload {
  const p = parseClaudePayload({ ...base, ...over }, '/fallback');
  assert.equal(typeof p, 'object', String(p));
  return p as ClaudePayload;
}


describe('parsing Claude Code payloads', () => {
  test('maps the fields into a ToolCall with session, tool name and tool_use_id for the audit', () => {
    const call = claudeToolCall(payload());
    assert.deepEqual(call, {
      tool: 'shell', clientTool: 'Bash', input: { command: 'ls', description: 'list' }, cwd: '/home/dev/project',
      agent: 'claude-code', sessionId: 'sess-1', callId: 'toolu_01', intentSource: { kind: 'claude-transcript', path: '/tmp/t.jsonl' },
    });
  });

  test('MCP tools are mcp calls that keep their full name', () => {
    const call = claudeToolCall(payload({ tool_name: 'mcp__github__create_issue', tool_input: { title: 't' } }));
    assert.equal(call.tool, 'mcp');
    assert.equal(call.clientTool, 'mcp__github__create_issue');
  });

  test('PermissionRequest payloads (no tool_use_id) are accepted; unknown fields are ignored', () => {
    const p = payload({ hook_event_name: 'PermissionRequest', tool_use_id: undefined, permission_suggestions: [{}], extra: 1 });
    assert.equal(p.event, 'PermissionRequest');
    assert.equal(claudeToolCall(p).callId, undefined);
  });

  test('a payload without cwd uses the process cwd; a relative cwd is refused', () => {
    assert.equal(payload({ cwd: undefined }).cwd, '/fallback');
    assert.match(String(parseClaudePayload({ ...base, cwd: 'rel/dir' }, '/x')), /absolute/);
  });

  test('every malformed payload is refused with a reason that names the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /not a JSON object/],
      [[1, 2], /not a JSON object/],
      [{ ...base, hook_event_name: undefined }, /hook_event_name/],
      [{ ...base, hook_event_name: 'PostToolUse' }, /not "PostToolUse"/],
      [{ ...base, tool_name: '' }, /tool_name/],
      [{ ...base, tool_name: 42 }, /tool_name/],
      [{ ...base, tool_input: 'rm -rf /' }, /tool_input/],
      [{ ...base, tool_input: ['rm'] }, /tool_input/],
      [{ ...base, session_id: 7 }, /session_id/],
      [{ ...base, cwd: { a: 1 } }, /cwd/],
    ];
    for (const [v, re] of cases) assert.match(String(parseClaudePayload(v, '/x')), re, JSON.stringify(v));
  });
});

describe('replies', () => {
  const pre = payload();
  const perm = payload({ hook_event_name: 'PermissionRequest' });
  const out = (r: { stdout: string }) => JSON.parse(r.stdout) as { hookSpecificOutput: Record<string, unknown> };

  test('PreToolUse: deny and ask carry the rule and reason; allow approves in approve mode', () => {
    const d = out(claudeReply(pre, decision('deny', 'hard_deny', 'fs.rm-root'), 'approve')).hookSpecificOutput;
    assert.deepEqual(d, { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'asimov [fs.rm-root]: because' });
    assert.equal(out(claudeReply(pre, decision('ask', 'soft_deny'), 'approve')).hookSpecificOutput['permissionDecision'], 'ask');
    assert.equal(out(claudeReply(pre, decision('allow', 'allow'), 'approve')).hookSpecificOutput['permissionDecision'], 'allow');
  });

  test('PreToolUse in passthrough mode: allow says nothing, so the normal permission flow decides; ask is still ask', () => {
    assert.deepEqual(claudeReply(pre, decision('allow', 'allow'), 'passthrough'), { stdout: '', stderr: '', exitCode: 0 });
    assert.equal(out(claudeReply(pre, decision('ask', 'unknown', null), 'passthrough')).hookSpecificOutput['permissionDecision'], 'ask');
  });

  test('PermissionRequest: deny refuses with the message, ask leaves the prompt to the person, allow answers only in approve mode', () => {
    assert.deepEqual(out(claudeReply(perm, decision('deny', 'hard_deny'), 'approve')).hookSpecificOutput, {
      hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'asimov [x.rule]: because' },
    });
    assert.deepEqual(claudeReply(perm, decision('ask', 'soft_deny'), 'approve'), { stdout: '', stderr: '', exitCode: 0 });
    assert.deepEqual(out(claudeReply(perm, decision('allow', 'allow'), 'approve')).hookSpecificOutput['decision'], { behavior: 'allow' });
    assert.deepEqual(claudeReply(perm, decision('allow', 'allow'), 'passthrough'), { stdout: '', stderr: '', exitCode: 0 });
  });

  test('a tool Claude Code does not have, with no rule for it, is denied rather than asked', () => {
    const p = payload({ tool_name: 'FancyNewTool', tool_input: {} });
    const r = out(claudeReply(p, decision('ask', 'unknown', null), 'approve')).hookSpecificOutput;
    assert.equal(r['permissionDecision'], 'deny');
    assert.match(String(r['permissionDecisionReason']), /FancyNewTool.*unknown to asimov/);
    // ...but a custom rule that knows it decides.
    assert.equal(out(claudeReply(p, decision('allow', 'allow', 'custom.fancy'), 'approve')).hookSpecificOutput['permissionDecision'], 'allow');
  });

  test('blocks: the event\'s own JSON deny when the event is known, exit 2 with the reason on stderr when not', () => {
    assert.equal(out(claudeBlock('r', 'PreToolUse')).hookSpecificOutput['permissionDecision'], 'deny');
    assert.deepEqual(out(claudeBlock('r', 'PermissionRequest')).hookSpecificOutput['decision'], { behavior: 'deny', message: 'r' });
    assert.deepEqual(claudeBlock('r'), { stdout: '', stderr: 'r\n', exitCode: 2 });
  });
});
