// GitHub Copilot CLI's hook protocol: native preToolUse payloads in, native replies out (exactly Copilot's
// fields), every refusal in a form that blocks. The payload shapes are the ones the real CLI 1.0.102 sent
// (test/e2e/copilot-hooks.test.ts runs it).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copilotProtocol, copilotReply, copilotToolCall, parseCopilotPayload, type CopilotPayload } from '../../src/adapters/copilot.ts';
import { runHook } from '../../src/adapters/hook-runtime.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { createGate } from '../../src/gate/gate.ts';
import { decision } from '../helpers/hook-tests.ts';

const base = {
  sessionId: 'c737d9d9-adf4-434f-9977-3222f1bcbff6',
  timestamp: 1795371785562,
  cwd: '/home/dev/project',
  toolName: 'bash',
  toolArgs: { command: 'ls', description: 'list' },
};

function payload(over: Record<string, unknown> = {}): CopilotPayload {
  const p = parseCopilotPayload({ ...base, ...over }, '/fallback');
  assert.equal(typeof p, 'object', String(p));
  return p as CopilotPayload;
}


describe('parsing Copilot CLI payloads', () => {
  test('maps the fields into a ToolCall with agent copilot, the tool name and the session', () => {
    assert.deepEqual(copilotToolCall(payload()), {
      tool: 'shell', clientTool: 'bash', input: { command: 'ls', description: 'list' }, cwd: '/home/dev/project',
      agent: 'copilot', sessionId: 'c737d9d9-adf4-434f-9977-3222f1bcbff6',
    });
  });

  test("Copilot's tool names map to asimov's kinds", () => {
    const kinds: Array<[string, Record<string, unknown>, string]> = [
      ['bash', { command: 'ls' }, 'shell'],
      ['create', { path: '/p/a.txt', file_text: 'x' }, 'write'],
      ['edit', { path: '/p/a.txt', old_str: 'a', new_str: 'b' }, 'edit'],
      ['view', { path: '/p/a.txt' }, 'read'],
      ['grep', { pattern: 'x' }, 'search'],
      ['rg', { pattern: 'x' }, 'search'],
      ['glob', { pattern: '*.ts' }, 'search'],
      ['web_fetch', { url: 'https://example.com' }, 'fetch'],
      ['github-mcp-server-get_issue', {}, 'github-mcp-server-get_issue'],
    ];
    for (const [toolName, toolArgs, kind] of kinds) assert.equal(copilotToolCall(payload({ toolName, toolArgs })).tool, kind, toolName);
    for (const internal of ['read_bash', 'stop_bash', 'list_bash', 'task', 'read_agent', 'skill']) {
      assert.equal(payload({ toolName: internal, toolArgs: {} }).knownTool, true, internal);
    }
    for (const unknown of ['sql', 'write_bash', 'powershell']) assert.equal(payload({ toolName: unknown, toolArgs: {} }).knownTool, false, unknown);
  });

  test("apply_patch's toolArgs is the patch text: kept whole, so its file headers are checked as an edit", () => {
    const patch = '*** Begin Patch\n*** Add File: .env\n+KEY=1\n*** End Patch\n';
    const p = payload({ toolName: 'apply_patch', toolArgs: patch });
    assert.deepEqual(p.toolInput, { input: patch });
    assert.equal(p.normalizedTool, 'edit');
  });

  test('toolArgs given as JSON text of an object is parsed; missing or null toolArgs is an empty input', () => {
    assert.deepEqual(payload({ toolArgs: '{"command":"ls"}' }).toolInput, { command: 'ls' });
    assert.deepEqual(payload({ toolName: 'list_bash', toolArgs: undefined }).toolInput, {});
    assert.deepEqual(payload({ toolName: 'list_bash', toolArgs: null }).toolInput, {});
  });

  test('a payload without cwd uses the process cwd; unknown fields such as traceparent are ignored', () => {
    assert.equal(payload({ cwd: undefined }).cwd, '/fallback');
    assert.equal(payload({ traceparent: '00-abc-def-01' }).toolName, 'bash');
  });

  test('every malformed payload is refused with a reason that names the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /not a JSON object/],
      [[base], /not a JSON object/],
      [{ ...base, toolName: undefined }, /toolName/],
      [{ ...base, toolName: '' }, /toolName/],
      [{ ...base, toolArgs: [1] }, /toolArgs/],
      [{ ...base, toolArgs: 7 }, /toolArgs/],
      [{ ...base, cwd: 'relative/dir' }, /absolute/],
      [{ ...base, sessionId: 5 }, /sessionId/],
      // The PascalCase PreToolUse form expects Claude's reply shape; answering it natively could be ignored.
      [{ hook_event_name: 'PreToolUse', session_id: 's', cwd: '/p', tool_name: 'bash', tool_input: { command: 'ls' } }, /PascalCase/],
    ];
    for (const [v, re] of cases) {
      const r = parseCopilotPayload(v, '/fallback');
      assert.equal(typeof r, 'string', JSON.stringify(v));
      assert.match(r as string, re);
    }
  });
});

describe('replies: exactly the native fields', () => {
  const p = payload();

  test('deny and ask carry the rule and reason in permissionDecisionReason; allow approves in approve mode', () => {
    assert.deepEqual(copilotReply(p, decision('deny', 'hard_deny', 'fs.rm-root'), 'approve'), {
      stdout: '{"permissionDecision":"deny","permissionDecisionReason":"asimov [fs.rm-root]: because"}\n', stderr: '', exitCode: 0,
    });
    assert.deepEqual(copilotReply(p, decision('ask', 'soft_deny', 'git.force-push'), 'approve'), {
      stdout: '{"permissionDecision":"ask","permissionDecisionReason":"asimov [git.force-push]: because"}\n', stderr: '', exitCode: 0,
    });
    assert.deepEqual(copilotReply(p, decision('allow', 'allow'), 'approve'), { stdout: '{"permissionDecision":"allow"}\n', stderr: '', exitCode: 0 });
  });

  test("passthrough: allow says nothing, so Copilot's own approval decides; deny and ask are unchanged", () => {
    assert.deepEqual(copilotReply(p, decision('allow', 'allow'), 'passthrough'), { stdout: '', stderr: '', exitCode: 0 });
    assert.match(copilotReply(p, decision('deny', 'hard_deny'), 'passthrough').stdout, /"permissionDecision":"deny"/);
    assert.match(copilotReply(p, decision('ask', 'unknown'), 'passthrough').stdout, /"permissionDecision":"ask"/);
  });

  test('a tool asimov does not know, with no rule for it, is denied rather than asked', () => {
    const r = copilotReply(payload({ toolName: 'sql', toolArgs: { query: 'select 1' } }), decision('ask', 'unknown', null), 'approve');
    const body = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['permissionDecision', 'permissionDecisionReason']);
    assert.equal(body['permissionDecision'], 'deny');
    assert.match(String(body['permissionDecisionReason']), /`sql` is unknown to asimov/);
    // A judge's or a rule's verdict on such a tool stands.
    assert.equal(JSON.parse(copilotReply(payload({ toolName: 'sql' }), decision('ask', 'unknown', 'custom.sql'), 'approve').stdout).permissionDecision, 'ask');
  });

  test('blocks: native JSON deny once the payload is understood, exit 2 with the reason on stderr before', () => {
    const proto = copilotProtocol({ onAllow: 'approve', defaultCwd: '/' });
    assert.deepEqual(proto.block('broken', p), { stdout: '{"permissionDecision":"deny","permissionDecisionReason":"broken"}\n', stderr: '', exitCode: 0 });
    assert.deepEqual(proto.block('unreadable'), { stdout: '', stderr: 'unreadable\n', exitCode: 2 });
  });

  test('registered as `asimov hook copilot`', () => {
    assert.equal(HOOK_PROTOCOLS['copilot']?.({ onAllow: 'approve', cwd: '/' }).client, 'copilot');
  });
});

describe('whole invocations through the real gate', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-copilot-adapter-')));
  const home = join(root, 'home');
  const project = join(root, 'project');

  async function hook(input: string): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    const gate = createGate({ env: { HOME: home, ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl'), GATE_CHECK: 'false' } });
    return runHook({
      protocol: copilotProtocol({ onAllow: 'approve', defaultCwd: project }),
      stdin: async function* () { yield input; },
      deadline: Date.now() + 20_000,
      decide: (call, o) => gate.decide(call, { personAvailable: true, deadline: o.deadline, signal: o.signal }),
    });
  }
  const copilotPayload = (toolName: string, toolArgs: unknown) => JSON.stringify({ ...base, cwd: project, toolName, toolArgs });

  test('a catastrophic shell command is denied with its rule; an everyday one is approved', async () => {
    const denied = await hook(copilotPayload('bash', { command: 'rm -rf ~', description: 'clean' }));
    assert.equal(denied.exitCode, 0);
    assert.equal(JSON.parse(denied.stdout).permissionDecision, 'deny');
    assert.match(JSON.parse(denied.stdout).permissionDecisionReason, /^asimov \[fs\./);
    assert.deepEqual(await hook(copilotPayload('bash', { command: 'npm test', description: 'test' })), { stdout: '{"permissionDecision":"allow"}\n', stderr: '', exitCode: 0 });
  });

  test("an apply_patch that writes the user's shell start-up file is denied", async () => {
    const r = await hook(copilotPayload('apply_patch', `*** Begin Patch\n*** Add File: ${join(home, '.bashrc')}\n+alias ls=x\n*** End Patch\n`));
    assert.equal(JSON.parse(r.stdout).permissionDecision, 'deny', r.stdout);
  });

  test('input that is not a payload blocks with exit 2', async () => {
    const r = await hook('not json');
    assert.equal(r.exitCode, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /could not read the copilot hook payload/);
  });

  test.after(() => rmSync(root, { recursive: true, force: true }));
});
