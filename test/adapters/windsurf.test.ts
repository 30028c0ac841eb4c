// Windsurf's hook protocol: the four documented pre-hook payloads in (no real Windsurf runs here, so the
// shapes are the documented ones), and out only what Windsurf reads: a silent exit 0, or exit 2 with the
// reason on stderr.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseWindsurfPayload, windsurfProtocol, windsurfReply, windsurfToolCall, type WindsurfPayload } from '../../src/adapters/windsurf.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { decision, exitTwoWholeRunTests, hookScratch } from '../helpers/hook-tests.ts';

const common = { trajectory_id: 'traj-1', execution_id: 'exec-2', timestamp: '2025-01-01T00:00:00Z' };
const run = { ...common, agent_action_name: 'pre_run_command', tool_info: { command_line: 'npm test', cwd: '/home/dev/project' } };

function payload(v: Record<string, unknown>): WindsurfPayload {
  const p = parseWindsurfPayload(v, '/fallback');
  assert.equal(typeof p, 'object', String(p));
  return p as WindsurfPayload;
}

describe('parsing Windsurf payloads', () => {
  test('pre_run_command: the command line as a shell call in its cwd; trajectory as session, execution as call', () => {
    assert.deepEqual(windsurfToolCall(payload(run)), {
      tool: 'shell', clientTool: 'run_command', input: { command: 'npm test' }, cwd: '/home/dev/project', agent: 'windsurf',
      sessionId: 'traj-1', callId: 'exec-2',
    });
    assert.equal(payload({ ...run, tool_info: { command_line: 'ls', cwd: '' } }).cwd, '/fallback');
  });

  test('pre_write_code is an edit of file_path with its edits; pre_read_code a read; both in the hook cwd', () => {
    const edits = [{ old_string: 'a', new_string: 'b' }];
    const w = windsurfToolCall(payload({ ...common, agent_action_name: 'pre_write_code', tool_info: { file_path: '/p/src/a.ts', edits } }));
    assert.deepEqual([w.tool, w.clientTool, w.input, w.cwd], ['edit', 'edit_file', { file_path: '/p/src/a.ts', edits }, '/fallback']);
    const r = windsurfToolCall(payload({ ...common, agent_action_name: 'pre_read_code', tool_info: { file_path: '/p/.env' } }));
    assert.deepEqual([r.tool, r.clientTool, r.input], ['read', 'read_file', { file_path: '/p/.env' }]);
  });

  test('pre_mcp_tool_use: an MCP call named by its server and tool, the arguments as input', () => {
    const p = payload({
      ...common, agent_action_name: 'pre_mcp_tool_use',
      tool_info: { mcp_server_name: 'github', mcp_tool_name: 'create_issue', mcp_tool_arguments: { title: 't' } },
    });
    assert.deepEqual([p.normalizedTool, p.toolName, p.toolInput], ['mcp', 'mcp__github__create_issue', { title: 't' }]);
  });

  test('every malformed payload is refused with a reason that names the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /not a JSON object/],
      [[run], /not a JSON object/],
      [{ ...run, agent_action_name: undefined }, /agent_action_name/],
      [{ ...run, agent_action_name: 'post_run_command' }, /not "post_run_command"/],
      [{ ...run, tool_info: undefined }, /tool_info/],
      [{ ...run, tool_info: { cwd: '/p' } }, /command_line/],
      [{ ...run, tool_info: { command_line: ['ls'] } }, /command_line/],
      [{ ...run, tool_info: { command_line: 'ls', cwd: 'rel' } }, /absolute/],
      [{ ...run, tool_info: { command_line: 'ls', cwd: 5 } }, /cwd/],
      [{ ...run, trajectory_id: 7 }, /trajectory_id/],
      [{ ...common, agent_action_name: 'pre_read_code', tool_info: {} }, /file_path/],
      [{ ...common, agent_action_name: 'pre_write_code', tool_info: { file_path: '/p/a', edits: 'x' } }, /edits/],
      [{ ...common, agent_action_name: 'pre_mcp_tool_use', tool_info: { mcp_tool_name: 't' } }, /mcp_server_name/],
      [{ ...common, agent_action_name: 'pre_mcp_tool_use', tool_info: { mcp_server_name: 's' } }, /mcp_tool_name/],
      [{ ...common, agent_action_name: 'pre_mcp_tool_use', tool_info: { mcp_server_name: 's', mcp_tool_name: 't', mcp_tool_arguments: '{}' } }, /mcp_tool_arguments/],
    ];
    for (const [v, re] of cases) {
      const r = parseWindsurfPayload(v, '/fallback');
      assert.equal(typeof r, 'string', JSON.stringify(v));
      assert.match(r as string, re);
    }
  });
});

describe('replies: a silent exit 0, or exit 2 with the reason', () => {
  const sh = payload(run);

  test('allow says nothing; deny and ask (Windsurf cannot ask) are exit 2 with the reason on stderr', () => {
    assert.deepEqual(windsurfReply(sh, decision('allow', 'allow')), { stdout: '', stderr: '', exitCode: 0 });
    assert.deepEqual(windsurfReply(sh, decision('deny', 'hard_deny', 'fs.rm-root')), { stdout: '', stderr: 'asimov [fs.rm-root]: because\n', exitCode: 2 });
    const ask = windsurfReply(sh, decision('ask', 'soft_deny', 'git.force-push'));
    assert.equal(ask.exitCode, 2);
    assert.equal(ask.stdout, '');
    assert.match(ask.stderr, /^asimov \[git\.force-push\]: because \(a person must approve .*cannot ask one, so it is blocked/);
  });

  test('blocks are exit 2 whether or not the payload was read; registered as `asimov hook windsurf`', () => {
    const proto = windsurfProtocol({ defaultCwd: '/' });
    assert.deepEqual(proto.block('broken', sh), { stdout: '', stderr: 'broken\n', exitCode: 2 });
    assert.deepEqual(proto.block('unreadable'), { stdout: '', stderr: 'unreadable\n', exitCode: 2 });
    assert.equal(HOOK_PROTOCOLS['windsurf']?.({ onAllow: 'approve', cwd: '/' }).client, 'windsurf');
  });
});

describe('whole runs of `asimov hook windsurf` (the built bin, the real gate)', () => {
  const scratch = hookScratch('windsurf');
  const { home, project, hook } = scratch;

  exitTwoWholeRunTests('windsurf', scratch, (command_line) => ({ ...common, agent_action_name: 'pre_run_command', tool_info: { command_line, cwd: project } }), 'npm test');

  test("reading the user's SSH key is refused with exit 2", () => {
    const r = hook(JSON.stringify({ ...common, agent_action_name: 'pre_read_code', tool_info: { file_path: join(home, '.ssh', 'id_rsa') } }));
    assert.equal(r.status, 2, r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /asimov/);
  });

  test.after(() => scratch.cleanup());
});
