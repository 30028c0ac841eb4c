// OpenCode's guard protocol: the payload asimov's plugin sends (what OpenCode hands `tool.execute.before`)
// in, and out only what the plugin reads: a silent exit 0, or exit 2 with the reason on stderr.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { opencodeProtocol, opencodeReply, opencodeToolCall, parseOpenCodePayload, type OpenCodePayload } from '../../src/adapters/opencode.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { decision, exitTwoWholeRunTests, hookScratch } from '../helpers/hook-tests.ts';

// As OpenCode 1.18.33 sends it (bash's arguments are command, timeout and workdir).
const bash = { tool: 'bash', sessionID: 'ses_1', callID: 'call_7', args: { command: 'npm test', timeout: 120000 }, cwd: '/home/dev/project' };

function payload(v: Record<string, unknown>): OpenCodePayload {
  const p = parseOpenCodePayload(v, '/fallback');
  assert.equal(typeof p, 'object', String(p));
  return p as OpenCodePayload;
}


describe('parsing the OpenCode plugin payload', () => {
  test('bash is a shell call; sessionID the session, callID the call', () => {
    assert.deepEqual(opencodeToolCall(payload(bash)), {
      tool: 'shell', clientTool: 'bash', input: { command: 'npm test', timeout: 120000 }, cwd: '/home/dev/project',
      agent: 'opencode', sessionId: 'ses_1', callId: 'call_7',
    });
  });

  test("OpenCode's tools map to asimov's kinds; its own bookkeeping tools are known; others are not", () => {
    const kinds: Array<[string, string]> = [
      ['edit', 'edit'], ['write', 'write'], ['read', 'read'], ['glob', 'search'], ['grep', 'search'], ['list', 'search'],
      ['webfetch', 'fetch'], ['websearch', 'search'], ['patch', 'edit'], ['apply_patch', 'edit'], ['multiedit', 'edit'],
      ['todowrite', 'todowrite'], ['task', 'task'], ['skill', 'skill'],
    ];
    for (const [tool, kind] of kinds) {
      const p = payload({ ...bash, tool, args: { filePath: '/p/a' } });
      assert.equal(p.normalizedTool, kind, tool);
      assert.equal(p.knownTool, true, tool);
    }
    // OpenCode names an MCP tool `<server>_<tool>` (seen in 1.18.33): not recognisable, so left to the unknown-tool refusal.
    assert.equal(payload({ ...bash, tool: 'github_create_issue' }).knownTool, false);
  });

  test('no cwd: the process cwd; no args: empty', () => {
    const p = payload({ tool: 'bash' });
    assert.equal(p.cwd, '/fallback');
    assert.deepEqual(p.toolInput, {});
  });

  test('every malformed payload is refused with a reason that names the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /not a JSON object/],
      [[bash], /not a JSON object/],
      [{ ...bash, tool: '' }, /"tool"/],
      [{ ...bash, tool: 3 }, /"tool"/],
      [{ ...bash, args: 'x' }, /"args"/],
      [{ ...bash, args: [] }, /"args"/],
      [{ ...bash, cwd: 'rel' }, /absolute/],
      [{ ...bash, sessionID: 1 }, /sessionID/],
      [{ ...bash, callID: {} }, /callID/],
    ];
    for (const [v, re] of cases) {
      const r = parseOpenCodePayload(v, '/fallback');
      assert.equal(typeof r, 'string', JSON.stringify(v));
      assert.match(r as string, re);
    }
  });
});

describe('replies: a silent exit 0, or exit 2 with the reason', () => {
  const sh = payload(bash);

  test('allow says nothing; deny, ask (the plugin cannot ask) and an unknown tool are exit 2 with the reason', () => {
    assert.deepEqual(opencodeReply(sh, decision('allow', 'allow')), { stdout: '', stderr: '', exitCode: 0 });
    assert.deepEqual(opencodeReply(sh, decision('deny', 'hard_deny', 'fs.rm-root')), { stdout: '', stderr: 'asimov [fs.rm-root]: because\n', exitCode: 2 });
    const ask = opencodeReply(sh, decision('ask', 'soft_deny', 'git.force-push'));
    assert.equal(ask.exitCode, 2);
    assert.equal(ask.stdout, '');
    assert.match(ask.stderr, /^asimov \[git\.force-push\]: because \(a person must approve .*cannot ask one, so it is blocked/);
    const unknown = opencodeReply(payload({ ...bash, tool: 'teleport' }), decision('ask', 'unknown', null));
    assert.equal(unknown.exitCode, 2);
    assert.match(unknown.stderr, /OpenCode's tool `teleport` is unknown to asimov/);
    // An unknown tool that a custom rule allows runs.
    assert.equal(opencodeReply(payload({ ...bash, tool: 'teleport' }), decision('allow', 'allow', 'custom.teleport')).exitCode, 0);
  });

  test('blocks are exit 2; registered as `asimov hook opencode`', () => {
    assert.deepEqual(opencodeProtocol({ defaultCwd: '/' }).block('broken'), { stdout: '', stderr: 'broken\n', exitCode: 2 });
    assert.equal(HOOK_PROTOCOLS['opencode']?.({ onAllow: 'approve', cwd: '/' }).client, 'opencode');
  });
});

describe('whole runs of `asimov hook opencode` (the built bin, the real gate)', () => {
  const scratch = hookScratch('opencode');
  const { project } = scratch;

  exitTwoWholeRunTests('opencode', scratch, (command) => ({ ...bash, cwd: project, args: { ...bash.args, command } }), 'npm test');

  test.after(() => scratch.cleanup());
});
