// Factory Droid's PreToolUse hook: Claude-shaped payloads with Droid's tool names in; exit 2 with the reason
// on stderr for every refusal, Claude's hookSpecificOutput allow to approve.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { droidProtocol, droidReply, type DroidPayload } from '../../src/adapters/droid.ts';
import { runHook } from '../../src/adapters/hook-runtime.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { approvingWholeRunTests, decision, hookScratch } from '../helpers/hook-tests.ts';

const base = {
  session_id: 's-1', transcript_path: '/home/dev/.factory/sessions/s-1.jsonl', cwd: '/home/dev/project',
  permission_mode: 'auto-low', hook_event_name: 'PreToolUse', tool_name: 'Execute',
  tool_input: { command: 'npm test', riskLevel: 'low' },
};
const protocol = droidProtocol({ onAllow: 'approve', defaultCwd: '/fallback' });

function payload(over: Record<string, unknown> = {}): DroidPayload {
  const p = protocol.parse({ ...base, ...over });
  assert.equal(typeof p, 'object', String(p));
  return p as DroidPayload;
}


describe('parsing Factory Droid payloads', () => {
  test('maps the fields into a ToolCall with agent droid', () => {
    assert.deepEqual(protocol.toCall(payload()), {
      tool: 'shell', clientTool: 'Execute', input: base.tool_input, cwd: '/home/dev/project', agent: 'droid', sessionId: 's-1',
    });
  });

  test("Droid's tool names map to asimov's kinds", () => {
    const kinds: Record<string, string> = {
      Create: 'write', Edit: 'edit', ApplyPatch: 'edit', Read: 'read', LS: 'search', Grep: 'search', Glob: 'search', mcp__s__t: 'mcp',
    };
    for (const [name, kind] of Object.entries(kinds)) assert.equal(protocol.toCall(payload({ tool_name: name, tool_input: {} })).tool, kind, name);
  });

  test('payloads that cannot be trusted are refused with the reason', () => {
    const refuse = (v: unknown) => String(protocol.parse(v));
    assert.match(refuse('x'), /not a JSON object/);
    assert.match(refuse({ ...base, hook_event_name: 'PostToolUse' }), /Factory Droid's PreToolUse, not "PostToolUse"/);
    assert.match(refuse({ ...base, tool_name: undefined }), /no "tool_name"/);
    assert.match(refuse({ ...base, tool_input: [1] }), /"tool_input" is not a JSON object/);
    assert.match(refuse({ ...base, cwd: '.' }), /not an absolute path/);
  });
});

describe('Factory Droid replies', () => {
  test('allow approves with Claude-shaped JSON, or says nothing in passthrough mode', () => {
    const r = droidReply(payload(), decision('allow', 'allow'), 'approve');
    assert.deepEqual(JSON.parse(r.stdout), {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'asimov [x.rule]: because' },
    });
    assert.deepEqual(droidReply(payload(), decision('allow', 'allow'), 'passthrough'), { stdout: '', stderr: '', exitCode: 0 });
  });

  test('deny and ask are exit 2 with the reason on stderr; an unknown tool is refused', () => {
    assert.deepEqual(droidReply(payload(), decision('deny', 'hard_deny', 'fs.rm-root'), 'approve'), { stdout: '', stderr: 'asimov [fs.rm-root]: because\n', exitCode: 2 });
    const ask = droidReply(payload(), decision('ask', 'soft_deny'), 'approve');
    assert.equal(ask.exitCode, 2);
    assert.match(ask.stderr, /a person must approve this call/);
    const unknown = droidReply(payload({ tool_name: 'Teleport' }), decision('ask', 'unknown', null), 'approve');
    assert.equal(unknown.exitCode, 2);
    assert.match(unknown.stderr, /Factory Droid's tool `Teleport` is unknown to asimov/);
  });

  test('registered as `asimov hook droid`; bad input and a throwing decider block with exit 2', async () => {
    assert.equal(HOOK_PROTOCOLS['droid']?.({ onAllow: 'approve', cwd: '/' }).client, 'droid');
    for (const [text, decide] of [
      ['', async () => decision('allow', 'allow')],
      [JSON.stringify(base), async () => { throw new Error('boom'); }],
    ] as const) {
      const reply = await runHook({ protocol, stdin: async function* () { yield text; }, deadline: Date.now() + 10_000, decide });
      assert.equal(reply.exitCode, 2, text);
      assert.equal(reply.stdout, '');
    }
  });
});

describe('`asimov hook droid` as Droid runs it (the built binary, the real gate)', () => {
  const scratch = hookScratch('droid');

  approvingWholeRunTests('droid', scratch, (command) => ({ ...base, cwd: scratch.project, tool_input: { ...base.tool_input, command } }), 'npm test');

  test.after(() => scratch.cleanup());
});
