// Codex CLI's hook protocol: payloads in, and replies that Codex cannot misread: silence to allow, exit 2
// with the reason on stderr for everything else (Codex runs the tool on "ask" and on JSON it does not know).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { codexBlock, codexProtocol, codexReply, codexToolCall, parseCodexPayload, type CodexPayload } from '../../src/adapters/codex.ts';
import { runHook } from '../../src/adapters/hook-runtime.ts';
import { decision } from '../helpers/hook-tests.ts';

// As codex 0.169.0 sent it (see test/e2e/codex-hooks.test.ts), with the paths changed.
const base = {
  session_id: '01a20480-101d-7300-ba1a-6a7d62afc82b',
  turn_id: '01a20480-102a-7bc3-8bfa-a1fefbb2749b',
  transcript_path: '/home/dev/.codex/sessions/rollout.jsonl',
  cwd: '/home/dev/project',
  hook_event_name: 'PreToolUse',
  model: 'gpt-5',
  permission_mode: 'bypassPermissions',
  tool_name: 'Bash',
  tool_input: { command: 'echo hi > out.txt' },
  tool_use_id: 'call_0_0',
};

function payload(over: Record<string, unknown> = {}): CodexPayload {
  const p = parseCodexPayload({ ...base, ...over }, '/fallback');
  assert.equal(typeof p, 'object', String(p));
  return p as CodexPayload;
}


describe('parsing Codex payloads', () => {
  test('maps the fields into a ToolCall with agent codex, session and tool_use_id', () => {
    assert.deepEqual(codexToolCall(payload()), {
      tool: 'shell', clientTool: 'Bash', input: { command: 'echo hi > out.txt' }, cwd: '/home/dev/project',
      agent: 'codex', sessionId: base.session_id, callId: 'call_0_0',
    });
  });

  test('apply_patch is an edit, MCP tools are mcp calls', () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n';
    assert.equal(codexToolCall(payload({ tool_name: 'apply_patch', tool_input: { command: patch } })).tool, 'edit');
    assert.equal(codexToolCall(payload({ tool_name: 'mcp__github__create_issue', tool_input: { title: 't' } })).tool, 'mcp');
  });

  test('a null transcript_path and a missing cwd are fine; the fallback cwd is used', () => {
    const p = parseCodexPayload({ ...base, transcript_path: null, cwd: undefined }, '/fallback');
    assert.equal((p as CodexPayload).cwd, '/fallback');
  });

  test('payloads that cannot be trusted are refused with the reason', () => {
    assert.match(String(parseCodexPayload([], '/f')), /not a JSON object/);
    assert.match(String(parseCodexPayload({ ...base, hook_event_name: 'PostToolUse' }, '/f')), /PreToolUse, not "PostToolUse"/);
    assert.match(String(parseCodexPayload({ ...base, hook_event_name: undefined }, '/f')), /no "hook_event_name"/);
    assert.match(String(parseCodexPayload({ ...base, tool_name: '' }, '/f')), /no "tool_name"/);
    assert.match(String(parseCodexPayload({ ...base, tool_input: 'ls' }, '/f')), /"tool_input" is not a JSON object/);
    assert.match(String(parseCodexPayload({ ...base, cwd: 'relative/dir' }, '/f')), /not an absolute path/);
    assert.match(String(parseCodexPayload({ ...base, session_id: 7 }, '/f')), /"session_id" is not a string/);
  });
});

describe('Codex replies', () => {
  test('allow is silence and exit 0: no JSON for Codex to misread', () => {
    assert.deepEqual(codexReply(payload(), decision('allow', 'allow')), { stdout: '', stderr: '', exitCode: 0 });
  });

  test('deny is exit 2 with the rule and reason on stderr, nothing on stdout', () => {
    assert.deepEqual(codexReply(payload(), decision('deny', 'hard_deny', 'fs.rm-root')), {
      stdout: '', stderr: 'asimov [fs.rm-root]: because\n', exitCode: 2,
    });
  });

  test('ask becomes a refusal (Codex runs the tool on a hook\'s "ask"), saying a person must decide', () => {
    const r = codexReply(payload(), decision('ask', 'soft_deny', 'git.force-push'));
    assert.equal(r.exitCode, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^asimov \[git\.force-push\]: because \(this needs a person's approval/);
  });

  test('a tool unknown to asimov and to every rule is refused, not asked', () => {
    const r = codexReply(payload({ tool_name: 'brand_new_tool', tool_input: {} }), decision('ask', 'unknown', null));
    assert.equal(r.exitCode, 2);
    assert.match(r.stderr, /`brand_new_tool` is unknown to asimov/);
  });

  test('block is exit 2 with the reason', () => {
    assert.deepEqual(codexBlock('no'), { stdout: '', stderr: 'no\n', exitCode: 2 });
  });
});

describe('the Codex protocol in the hook runtime', () => {
  const protocol = codexProtocol({ defaultCwd: '/fallback' });
  const stdin = (text: string) => async function* () { yield text; };
  const deadline = () => Date.now() + 10_000;

  test('a decision reaches the reply', async () => {
    const reply = await runHook({ protocol, stdin: stdin(JSON.stringify(base)), deadline: deadline(), decide: async () => decision('deny', 'hard_deny') });
    assert.equal(reply.exitCode, 2);
  });

  test('bad JSON, a wrong event and a decider that throws all block with exit 2', async () => {
    for (const [text, decide] of [
      ['{not json', async () => decision('allow', 'allow')],
      [JSON.stringify({ ...base, hook_event_name: 'Stop' }), async () => decision('allow', 'allow')],
      [JSON.stringify(base), async () => { throw new Error('boom'); }],
    ] as const) {
      const reply = await runHook({ protocol, stdin: stdin(text), deadline: deadline(), decide });
      assert.equal(reply.exitCode, 2, text);
      assert.equal(reply.stdout, '');
      assert.match(reply.stderr, /asimov .*blocked/);
    }
  });
});
