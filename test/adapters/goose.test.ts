// Goose's hook protocol: the documented payload in (no real Goose runs here), and out only what Goose reads
// as a decision: a silent exit 0 (empty stdout), or exit 2 with the reason on stderr.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gooseProtocol, gooseReply, gooseToolCall, parseGoosePayload, type GoosePayload } from '../../src/adapters/goose.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { decision, exitTwoWholeRunTests, hookScratch } from '../helpers/hook-tests.ts';

const shell = {
  event: 'PreToolUse', session_id: 'abc-123', matcher_context: 'developer__shell', tool_name: 'developer__shell',
  tool_input: { command: 'rg TODO' }, working_dir: '/Users/you/project', tool_call_id: 'call-1',
};

function payload(v: Record<string, unknown>): GoosePayload {
  const p = parseGoosePayload(v, '/fallback');
  assert.equal(typeof p, 'object', String(p));
  return p as GoosePayload;
}


describe('parsing Goose payloads', () => {
  test('developer__shell is a shell call; session_id the session, tool_call_id the call, working_dir the cwd', () => {
    assert.deepEqual(gooseToolCall(payload(shell)), {
      tool: 'shell', clientTool: 'developer__shell', input: { command: 'rg TODO' }, cwd: '/Users/you/project', agent: 'goose', sessionId: 'abc-123', callId: 'call-1',
    });
  });

  test("the developer extension's tools map to asimov's kinds; other extensions' tools are judged as MCP calls", () => {
    const kinds: Array<[string, string]> = [
      ['developer__write', 'write'], ['developer__edit', 'edit'], ['developer__text_editor', 'edit'], ['developer__tree', 'search'],
      ['developer__read_image', 'read'],
    ];
    for (const [tool_name, kind] of kinds) assert.equal(payload({ ...shell, tool_name, tool_input: { path: '/p/a' } }).normalizedTool, kind, tool_name);
    const gh = payload({ ...shell, tool_name: 'github__create_issue' });
    assert.equal(gh.normalizedTool, 'mcp');
    assert.equal(gooseToolCall(gh).clientTool, 'mcp__github__create_issue');
    assert.equal(payload({ ...shell, tool_name: 'developer__screen_capture' }).judgedName, 'mcp__developer__screen_capture');
    assert.equal(payload({ ...shell, tool_name: 'teleport' }).knownTool, false);
  });

  test('every malformed payload is refused with a reason that names the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /not a JSON object/],
      [{ ...shell, event: undefined }, /no "event"/],
      [{ ...shell, event: 'PostToolUse' }, /not "PostToolUse".*hooks\.json/],
      [{ ...shell, tool_name: '' }, /tool_name/],
      [{ ...shell, tool_input: 'x' }, /tool_input/],
      [{ ...shell, working_dir: 'rel' }, /absolute/],
      [{ ...shell, tool_call_id: 3 }, /tool_call_id/],
      [{ ...shell, session_id: [] }, /session_id/],
    ];
    for (const [v, re] of cases) {
      const r = parseGoosePayload(v, '/fallback');
      assert.equal(typeof r, 'string', JSON.stringify(v));
      assert.match(r as string, re);
    }
  });
});

describe('replies: a silent exit 0, or exit 2 with the reason', () => {
  const sh = payload(shell);

  test('allow says nothing; deny, ask (Goose cannot ask) and an unknown tool are exit 2 with the reason', () => {
    assert.deepEqual(gooseReply(sh, decision('allow', 'allow')), { stdout: '', stderr: '', exitCode: 0 });
    assert.deepEqual(gooseReply(sh, decision('deny', 'hard_deny', 'fs.rm-root')), { stdout: '', stderr: 'asimov [fs.rm-root]: because\n', exitCode: 2 });
    const ask = gooseReply(sh, decision('ask', 'soft_deny', 'git.force-push'));
    assert.equal(ask.exitCode, 2);
    assert.equal(ask.stdout, '');
    assert.match(ask.stderr, /^asimov \[git\.force-push\]: because \(a person must approve .*cannot ask one, so it is blocked/);
    const unknown = gooseReply(payload({ ...shell, tool_name: 'teleport' }), decision('ask', 'unknown', null));
    assert.equal(unknown.exitCode, 2);
    assert.match(unknown.stderr, /Goose's tool `teleport` is unknown to asimov/);
  });

  test('blocks are exit 2; registered as `asimov hook goose`', () => {
    assert.deepEqual(gooseProtocol({ defaultCwd: '/' }).block('broken'), { stdout: '', stderr: 'broken\n', exitCode: 2 });
    assert.equal(HOOK_PROTOCOLS['goose']?.({ onAllow: 'approve', cwd: '/' }).client, 'goose');
  });
});

describe('whole runs of `asimov hook goose` (the built bin, the real gate)', () => {
  const scratch = hookScratch('goose');
  const { project } = scratch;

  exitTwoWholeRunTests('goose', scratch, (command) => ({ ...shell, working_dir: project, tool_input: { command } }), 'rg TODO');

  test.after(() => scratch.cleanup());
});
