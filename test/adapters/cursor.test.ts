// Cursor's hook protocol: the four documented payloads in (no real Cursor runs here, so the shapes are the
// documented ones), Cursor's own reply fields out, every refusal in a form that blocks.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cursorProtocol, cursorReply, cursorToolCall, parseCursorPayload, type CursorPayload } from '../../src/adapters/cursor.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { decision, hookScratch, notAPayloadTest, BIN } from '../helpers/hook-tests.ts';

const common = {
  conversation_id: 'conv-123',
  generation_id: 'gen-456',
  workspace_roots: ['/home/dev/project'],
  cursor_version: '2.0.77',
};
const shell = { ...common, hook_event_name: 'beforeShellExecution', command: 'npm test', cwd: '/home/dev/project/sub' };

function payload(v: Record<string, unknown>): CursorPayload {
  const p = parseCursorPayload(v, '/fallback');
  assert.equal(typeof p, 'object', String(p));
  return p as CursorPayload;
}


describe('parsing Cursor payloads', () => {
  test('beforeShellExecution: the command as a shell call, the workspace root as project, the conversation as session', () => {
    assert.deepEqual(cursorToolCall(payload(shell)), {
      tool: 'shell', clientTool: 'Shell', input: { command: 'npm test' }, cwd: '/home/dev/project/sub', agent: 'cursor',
      projectRoot: '/home/dev/project', sessionId: 'conv-123', callId: 'gen-456',
    });
    // An empty cwd (as Cursor has been seen to send) falls back to the workspace root, then the process cwd.
    assert.equal(payload({ ...shell, cwd: '' }).cwd, '/home/dev/project');
    assert.equal(payload({ ...shell, cwd: '', workspace_roots: [] }).cwd, '/fallback');
  });

  test('beforeReadFile: only the path is passed on, never the content', () => {
    const call = cursorToolCall(payload({ ...common, hook_event_name: 'beforeReadFile', file_path: '/home/dev/project/.env', content: 'KEY=secret', attachments: [] }));
    assert.equal(call.tool, 'read');
    assert.deepEqual(call.input, { file_path: '/home/dev/project/.env' });
  });

  test('beforeMCPExecution: an MCP call on the unnamed server; tool_input as an object or as JSON text', () => {
    const a = payload({ ...common, hook_event_name: 'beforeMCPExecution', tool_name: 'database_query', tool_input: '{"query":"SELECT 1"}', command: 'npx mcp-server' });
    assert.deepEqual([a.normalizedTool, a.clientTool, a.toolInput], ['mcp', 'mcp__unnamed__database_query', { query: 'SELECT 1' }]);
    const b = payload({ ...common, hook_event_name: 'beforeMCPExecution', tool_name: 'get_issue', tool_input: { id: 1 }, url: 'http://localhost:3000' });
    assert.deepEqual(b.toolInput, { id: 1 });
  });

  test("preToolUse: Cursor's tool names map to asimov's kinds; MCP:<tool> is an MCP call", () => {
    const kinds: Array<[string, Record<string, unknown>, string]> = [
      ['Shell', { command: 'ls' }, 'shell'],
      ['Read', { file_path: '/p/a' }, 'read'],
      ['Write', { file_path: '/p/a', contents: 'x' }, 'write'],
      ['StrReplace', { file_path: '/p/a', old_string: 'a', new_string: 'b' }, 'edit'],
      ['Delete', { file_path: '/p/a' }, 'edit'],
      ['Grep', { pattern: 'x' }, 'search'],
      ['Glob', { pattern: '*.ts' }, 'search'],
      ['MCP:create_issue', { title: 't' }, 'mcp'],
    ];
    for (const [tool_name, tool_input, kind] of kinds) {
      const p = payload({ ...common, hook_event_name: 'preToolUse', tool_name, tool_input, tool_use_id: 'tu-1' });
      assert.equal(p.normalizedTool, kind, tool_name);
      assert.equal(cursorToolCall(p).callId, 'tu-1');
    }
    assert.equal(payload({ ...common, hook_event_name: 'preToolUse', tool_name: 'MCP:create_issue' }).clientTool, 'mcp__unnamed__create_issue');
    assert.equal(payload({ ...common, hook_event_name: 'preToolUse', tool_name: 'Task' }).knownTool, true);
    assert.equal(payload({ ...common, hook_event_name: 'preToolUse', tool_name: 'Teleport' }).knownTool, false);
  });

  test('every malformed payload is refused with a reason that names the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /not a JSON object/],
      [[shell], /not a JSON object/],
      [{ ...shell, hook_event_name: undefined }, /hook_event_name/],
      [{ ...shell, hook_event_name: 'afterFileEdit' }, /not "afterFileEdit"/],
      [{ ...shell, command: undefined }, /"command"/],
      [{ ...shell, command: ['ls'] }, /"command"/],
      [{ ...shell, cwd: 'relative' }, /absolute/],
      [{ ...shell, cwd: 5 }, /"cwd"/],
      [{ ...shell, workspace_roots: 'x' }, /workspace_roots/],
      [{ ...shell, workspace_roots: ['rel'] }, /not absolute/],
      [{ ...common, hook_event_name: 'beforeReadFile' }, /file_path/],
      [{ ...common, hook_event_name: 'beforeMCPExecution', tool_input: {} }, /tool_name/],
      [{ ...common, hook_event_name: 'beforeMCPExecution', tool_name: 't', tool_input: 'not json' }, /tool_input/],
      [{ ...common, hook_event_name: 'preToolUse', tool_name: 'Shell', tool_input: [1] }, /tool_input/],
    ];
    for (const [v, re] of cases) {
      const r = parseCursorPayload(v, '/fallback');
      assert.equal(typeof r, 'string', JSON.stringify(v));
      assert.match(r as string, re);
    }
  });
});

describe("replies: exactly Cursor's fields", () => {
  const sh = payload(shell);
  const read = payload({ ...common, hook_event_name: 'beforeReadFile', file_path: '/home/dev/project/a' });
  const out = (permission: string, msg?: string) => ({
    stdout: `${JSON.stringify(msg === undefined ? { permission } : { permission, user_message: msg, agent_message: msg })}\n`, stderr: '', exitCode: 0,
  });

  test('allow, deny and ask on the permission events', () => {
    assert.deepEqual(cursorReply(sh, decision('allow', 'allow')), out('allow'));
    assert.deepEqual(cursorReply(sh, decision('deny', 'hard_deny', 'fs.rm-root')), out('deny', 'asimov [fs.rm-root]: because'));
    assert.deepEqual(cursorReply(sh, decision('ask', 'soft_deny', 'git.force-push')), out('ask', 'asimov [git.force-push]: because'));
    const pre = payload({ ...common, hook_event_name: 'preToolUse', tool_name: 'Write', tool_input: { file_path: '/p/a' } });
    assert.deepEqual(cursorReply(pre, decision('ask', 'soft_deny')), out('ask', 'asimov [x.rule]: because'));
  });

  test('beforeReadFile: allow as JSON; deny and ask (it has no ask) as exit 2 with the reason on stderr', () => {
    assert.deepEqual(cursorReply(read, decision('allow', 'allow')), out('allow'));
    assert.deepEqual(cursorReply(read, decision('deny', 'soft_deny', 'file.secret')), { stdout: '', stderr: 'asimov [file.secret]: because\n', exitCode: 2 });
    const ask = cursorReply(read, decision('ask', 'soft_deny'));
    assert.equal(ask.exitCode, 2);
    assert.match(ask.stderr, /cannot ask one, so it is blocked/);
  });

  test('a tool asimov does not know, with no rule for it, is denied rather than asked', () => {
    const p = payload({ ...common, hook_event_name: 'preToolUse', tool_name: 'Teleport', tool_input: {} });
    const r = cursorReply(p, decision('ask', 'unknown', null));
    assert.equal(JSON.parse(r.stdout).permission, 'deny');
    assert.match(JSON.parse(r.stdout).agent_message, /`Teleport` is unknown to asimov/);
  });

  test('blocks: JSON deny once the event is known (exit 2 for reads), exit 2 before', () => {
    const proto = cursorProtocol({ defaultCwd: '/' });
    assert.deepEqual(proto.block('broken', sh), out('deny', 'broken'));
    assert.deepEqual(proto.block('broken', read), { stdout: '', stderr: 'broken\n', exitCode: 2 });
    assert.deepEqual(proto.block('unreadable'), { stdout: '', stderr: 'unreadable\n', exitCode: 2 });
  });

  test('registered as `asimov hook cursor`', () => {
    assert.equal(HOOK_PROTOCOLS['cursor']?.({ onAllow: 'approve', cwd: '/' }).client, 'cursor');
  });
});

describe('whole runs of `asimov hook cursor` (the built bin, the real gate)', () => {
  const scratch = hookScratch('cursor');
  const { home, project, hook } = scratch;
  const at = { ...common, workspace_roots: [project] };

  test('a catastrophic command is denied with its rule; an everyday one is allowed', () => {
    assert.ok(existsSync(BIN));
    const denied = hook(JSON.stringify({ ...at, hook_event_name: 'beforeShellExecution', command: 'rm -rf ~', cwd: project }));
    assert.equal(denied.status, 0, denied.stderr);
    const body = JSON.parse(denied.stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(body), ['permission', 'user_message', 'agent_message']);
    assert.equal(body['permission'], 'deny');
    assert.match(body['agent_message']!, /^asimov \[fs\./);
    const allowed = hook(JSON.stringify({ ...at, hook_event_name: 'preToolUse', tool_name: 'Shell', tool_input: { command: 'npm test' } }));
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.equal(allowed.stdout, '{"permission":"allow"}\n');
  });

  test("reading the user's SSH key is refused with exit 2", () => {
    const r = hook(JSON.stringify({ ...at, hook_event_name: 'beforeReadFile', file_path: join(home, '.ssh', 'id_rsa'), content: 'x' }));
    assert.equal(r.status, 2, r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /asimov/);
  });

  notAPayloadTest('cursor', scratch);

  test.after(() => scratch.cleanup());
});
