// Kimi CLI's hook protocol: the documented Claude-shaped payload in (no real Kimi CLI runs here), and out
// only what Kimi reads as a decision: a silent exit 0, or exit 2 with the reason on stderr.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kimiProtocol, kimiReply, parseKimiPayload, type KimiPayload } from '../../src/adapters/kimi.ts';
import { preToolCall } from '../../src/adapters/pretool-payload.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { decision, exitTwoWholeRunTests, hookScratch } from '../helpers/hook-tests.ts';

const shell = { hook_event_name: 'PreToolUse', session_id: 's-1', cwd: '/home/dev/project', tool_name: 'Shell', tool_input: { command: 'npm test' }, tool_call_id: 'call-7' };

function payload(v: Record<string, unknown>): KimiPayload {
  const p = parseKimiPayload(v, '/fallback');
  assert.equal(typeof p, 'object', String(p));
  return p as KimiPayload;
}


describe('parsing Kimi CLI payloads', () => {
  test('Shell is a shell call; session_id the session, tool_call_id the call', () => {
    assert.deepEqual(preToolCall(payload(shell), 'kimi'), {
      tool: 'shell', clientTool: 'Shell', input: { command: 'npm test' }, cwd: '/home/dev/project', agent: 'kimi', sessionId: 's-1', callId: 'call-7',
    });
  });

  test("Kimi's file and web tools map to asimov's kinds", () => {
    const kinds: Array<[string, string]> = [
      ['WriteFile', 'write'], ['StrReplaceFile', 'edit'], ['ReadFile', 'read'], ['Glob', 'search'], ['Grep', 'search'],
      ['SearchWeb', 'search'], ['FetchURL', 'fetch'], ['mcp__github__create_issue', 'mcp'],
    ];
    for (const [tool_name, kind] of kinds) assert.equal(payload({ ...shell, tool_name, tool_input: { path: '/p/a' } }).normalizedTool, kind, tool_name);
    assert.equal(payload({ ...shell, tool_name: 'Teleport' }).knownTool, false);
  });

  test('every malformed payload is refused with a reason that names the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /not a JSON object/],
      [{ ...shell, hook_event_name: undefined }, /hook_event_name/],
      [{ ...shell, hook_event_name: 'PostToolUse' }, /not "PostToolUse".*config\.toml/],
      [{ ...shell, tool_name: '' }, /tool_name/],
      [{ ...shell, tool_input: 'x' }, /tool_input/],
      [{ ...shell, cwd: 'rel' }, /absolute/],
      [{ ...shell, tool_call_id: 3 }, /tool_call_id/],
    ];
    for (const [v, re] of cases) {
      const r = parseKimiPayload(v, '/fallback');
      assert.equal(typeof r, 'string', JSON.stringify(v));
      assert.match(r as string, re);
    }
  });
});

describe('replies: a silent exit 0, or exit 2 with the reason', () => {
  const sh = payload(shell);

  test('allow says nothing; deny, ask (Kimi cannot ask) and an unknown tool are exit 2 with the reason', () => {
    assert.deepEqual(kimiReply(sh, decision('allow', 'allow')), { stdout: '', stderr: '', exitCode: 0 });
    assert.deepEqual(kimiReply(sh, decision('deny', 'hard_deny', 'fs.rm-root')), { stdout: '', stderr: 'asimov [fs.rm-root]: because\n', exitCode: 2 });
    const ask = kimiReply(sh, decision('ask', 'soft_deny', 'git.force-push'));
    assert.equal(ask.exitCode, 2);
    assert.match(ask.stderr, /^asimov \[git\.force-push\]: because \(a person must approve .*cannot ask one, so it is blocked/);
    const unknown = kimiReply(payload({ ...shell, tool_name: 'Teleport' }), decision('ask', 'unknown', null));
    assert.equal(unknown.exitCode, 2);
    assert.match(unknown.stderr, /`Teleport` is unknown to asimov/);
  });

  test('blocks are exit 2; registered as `asimov hook kimi`', () => {
    assert.deepEqual(kimiProtocol({ defaultCwd: '/' }).block('broken'), { stdout: '', stderr: 'broken\n', exitCode: 2 });
    assert.equal(HOOK_PROTOCOLS['kimi']?.({ onAllow: 'approve', cwd: '/' }).client, 'kimi');
  });
});

describe('whole runs of `asimov hook kimi` (the built bin, the real gate)', () => {
  const scratch = hookScratch('kimi');
  const { project } = scratch;

  exitTwoWholeRunTests('kimi', scratch, (command) => ({ ...shell, cwd: project, tool_input: { command } }), 'npm test');

  test.after(() => scratch.cleanup());
});
