// Qwen Code's PreToolUse hook: Claude-shaped payloads in; out, exit 2 with the reason on stderr for every
// refusal (Qwen runs the tool on any other non-zero exit) and Qwen's hookSpecificOutput allow to approve.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { qwenProtocol, qwenReply, type QwenPayload } from '../../src/adapters/qwen.ts';
import { runHook } from '../../src/adapters/hook-runtime.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { approvingWholeRunTests, decision, hookScratch } from '../helpers/hook-tests.ts';

// As Qwen Code's documentation describes the PreToolUse input.
const base = {
  session_id: 'a1b2c3', transcript_path: '/home/dev/.qwen/tmp/chats/a1b2c3.jsonl', cwd: '/home/dev/project',
  hook_event_name: 'PreToolUse', timestamp: '2026-01-01T00:00:00Z', permission_mode: 'default',
  tool_name: 'run_shell_command', tool_input: { command: 'npm test', description: 'run tests' },
  tool_use_id: 'toolu_1', tool_call_id: 'call_1',
};
const protocol = qwenProtocol({ onAllow: 'approve', defaultCwd: '/fallback' });

function payload(over: Record<string, unknown> = {}): QwenPayload {
  const p = protocol.parse({ ...base, ...over });
  assert.equal(typeof p, 'object', String(p));
  return p as QwenPayload;
}


describe('parsing Qwen Code payloads', () => {
  test('maps the fields into a ToolCall with agent qwen', () => {
    assert.deepEqual(protocol.toCall(payload()), {
      tool: 'shell', clientTool: 'run_shell_command', input: base.tool_input, cwd: '/home/dev/project',
      agent: 'qwen', sessionId: 'a1b2c3', callId: 'toolu_1',
    });
  });

  test("Qwen's tool ids map to asimov's kinds", () => {
    const kinds: Record<string, string> = {
      write_file: 'write', edit: 'edit', read_file: 'read', read_many_files: 'read', grep_search: 'search',
      glob: 'search', list_directory: 'search', web_fetch: 'fetch', web_search: 'search', mcp__github__create_issue: 'mcp',
      todo_write: 'todo_write', exit_plan_mode: 'exit_plan_mode',
    };
    for (const [name, kind] of Object.entries(kinds)) {
      const p = payload({ tool_name: name, tool_input: {} });
      assert.equal(protocol.toCall(p).tool, kind, name);
      assert.equal(p.knownTool, true, name);
    }
  });

  test('a missing cwd falls back; payloads that cannot be trusted are refused with the reason', () => {
    assert.equal(payload({ cwd: undefined }).cwd, '/fallback');
    const refuse = (v: unknown) => String(protocol.parse(v));
    assert.match(refuse([]), /not a JSON object/);
    assert.match(refuse({ ...base, hook_event_name: 'PostToolUse' }), /PreToolUse, not "PostToolUse"/);
    assert.match(refuse({ ...base, hook_event_name: undefined }), /no "hook_event_name"/);
    assert.match(refuse({ ...base, tool_name: 7 }), /no "tool_name"/);
    assert.match(refuse({ ...base, tool_input: 'ls' }), /"tool_input" is not a JSON object/);
    assert.match(refuse({ ...base, cwd: 'rel' }), /not an absolute path/);
    assert.match(refuse({ ...base, session_id: 1 }), /"session_id" is not a string/);
  });
});

describe('Qwen Code replies', () => {
  test('allow approves with exactly the documented fields, or says nothing in passthrough mode', () => {
    const r = qwenReply(payload(), decision('allow', 'allow'), 'approve');
    assert.equal(r.exitCode, 0);
    assert.deepEqual(JSON.parse(r.stdout), {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'asimov [x.rule]: because' },
    });
    assert.deepEqual(qwenReply(payload(), decision('allow', 'allow'), 'passthrough'), { stdout: '', stderr: '', exitCode: 0 });
  });

  test('deny is exit 2 with the rule and reason on stderr, nothing on stdout', () => {
    assert.deepEqual(qwenReply(payload(), decision('deny', 'hard_deny', 'fs.rm-root'), 'approve'), {
      stdout: '', stderr: 'asimov [fs.rm-root]: because\n', exitCode: 2,
    });
  });

  test('ask is refused with exit 2, saying a person must approve', () => {
    const r = qwenReply(payload(), decision('ask', 'soft_deny', 'git.force-push'), 'approve');
    assert.equal(r.exitCode, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^asimov \[git\.force-push\]: because \(a person must approve this call/);
  });

  test('a tool unknown to asimov and to every rule is refused', () => {
    const r = qwenReply(payload({ tool_name: 'brand_new_tool' }), decision('allow', 'unknown', null), 'approve');
    assert.equal(r.exitCode, 2);
    assert.match(r.stderr, /Qwen Code's tool `brand_new_tool` is unknown to asimov/);
  });

  test('registered as `asimov hook qwen`; bad input and a throwing decider block with exit 2', async () => {
    assert.equal(HOOK_PROTOCOLS['qwen']?.({ onAllow: 'approve', cwd: '/' }).client, 'qwen');
    for (const [text, decide] of [
      ['{not json', async () => decision('allow', 'allow')],
      [JSON.stringify({ ...base, hook_event_name: 'Stop' }), async () => decision('allow', 'allow')],
      [JSON.stringify(base), async () => { throw new Error('boom'); }],
    ] as const) {
      const reply = await runHook({ protocol, stdin: async function* () { yield text; }, deadline: Date.now() + 10_000, decide });
      assert.equal(reply.exitCode, 2, text);
      assert.equal(reply.stdout, '');
      assert.match(reply.stderr, /asimov .*blocked/);
    }
  });
});

describe('`asimov hook qwen` as Qwen Code runs it (the built binary, the real gate)', () => {
  const scratch = hookScratch('qwen');
  const { home, project, hook } = scratch;

  approvingWholeRunTests('qwen', scratch, (command) => ({ ...base, cwd: project, tool_input: { command } }), 'npm test');

  test("writing the user's shell start-up file is blocked", () => {
    const r = hook(JSON.stringify({ ...base, cwd: project, tool_name: 'write_file', tool_input: { file_path: join(home, '.bashrc'), content: 'x' } }));
    assert.equal(r.status, 2, r.stdout);
  });

  test.after(() => scratch.cleanup());
});
