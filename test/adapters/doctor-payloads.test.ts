// `asimov doctor` speaks each client's protocol through two members of it: the client's payload for its shell
// tool, and how the client reads a hook's reply. Both must agree with the adapter itself: the payload passes
// the adapter's own parse as a shell call, and every refusal the adapter writes reads as 'deny'.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import type { HookProtocol, HookReply } from '../../src/adapters/hook-runtime.ts';
import { decision } from '../helpers/hook-tests.ts';

const CWD = '/home/dev/project';
const COMMAND = 'git status --short';

function protocolOf(client: string, onAllow: 'approve' | 'passthrough' = 'approve'): HookProtocol<unknown> {
  return HOOK_PROTOCOLS[client]!({ onAllow, cwd: '/fallback' }) as HookProtocol<unknown>;
}

const asRun = (r: HookReply) => ({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr });

describe('doctorPayload and doctorVerdict of every hook protocol', () => {
  for (const client of Object.keys(HOOK_PROTOCOLS)) {
    test(`${client}: the payload is the client's shell tool, and parses with the adapter's own parse`, () => {
      const protocol = protocolOf(client);
      assert.ok(protocol.doctorPayload && protocol.doctorVerdict, `${client} has no doctor members`);
      const payload = protocol.doctorPayload(COMMAND, CWD);
      // What doctor writes on stdin is JSON text.
      const parsed = protocol.parse(JSON.parse(JSON.stringify(payload)));
      assert.notEqual(typeof parsed, 'string', String(parsed));
      const call = protocol.toCall(parsed);
      assert.equal(call.tool, 'shell');
      assert.equal(call.input['command'], COMMAND);
      assert.equal(call.cwd, CWD, 'the payload carries the project, not the fallback');
    });

    test(`${client}: the adapter's refusals read as deny, its allow as passing`, () => {
      for (const onAllow of ['approve', 'passthrough'] as const) {
        const protocol = protocolOf(client, onAllow);
        const p = protocol.parse(protocol.doctorPayload!(COMMAND, CWD));
        const verdict = protocol.doctorVerdict!;
        assert.equal(verdict(asRun(protocol.reply(p, decision('deny', 'hard_deny')))), 'deny', `${client} deny (${onAllow})`);
        assert.equal(verdict(asRun(protocol.block('a failure', p))), 'deny', `${client} block with payload`);
        assert.equal(verdict(asRun(protocol.block('a failure'))), 'deny', `${client} block without payload`);
        assert.ok(['allow', 'no opinion'].includes(verdict(asRun(protocol.reply(p, decision('allow', 'allow'))))), `${client} allow (${onAllow})`);
        // An ask either reaches the client as an ask or is refused; never as an allow.
        assert.notEqual(verdict(asRun(protocol.reply(p, decision('ask', 'soft_deny')))), 'allow', `${client} ask`);
      }
    });
  }

  test('a failure the client would not treat as a block is not read as deny', () => {
    const crashed = { code: 1, stdout: '', stderr: 'node: not found' };
    const refusing = new Set(['copilot', 'opencode']);
    for (const client of Object.keys(HOOK_PROTOCOLS)) {
      const v = protocolOf(client).doctorVerdict!(crashed);
      // Copilot blocks on exit 1; asimov's OpenCode plugin throws on any exit but 0.
      if (refusing.has(client)) assert.equal(v, 'deny', client);
      else assert.notEqual(v, 'deny', client);
      assert.notEqual(v, 'allow', `${client}: exit 1 is not a clean allow either`);
    }
  });

  test('output a client ignores is not read as a block', () => {
    const claudeShaped = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'x' } });
    // Copilot's native event ignores Claude's shape, Gemini reads only `decision`: the tool runs.
    assert.notEqual(protocolOf('copilot').doctorVerdict!({ code: 0, stdout: claudeShaped, stderr: '' }), 'deny');
    assert.notEqual(protocolOf('gemini').doctorVerdict!({ code: 0, stdout: claudeShaped, stderr: '' }), 'deny');
    assert.equal(protocolOf('codex').doctorVerdict!({ code: 0, stdout: claudeShaped, stderr: '' }), 'deny');
    assert.match(protocolOf('codex').doctorVerdict!({ code: 0, stdout: '{"permissionDecision":"ask"}', stderr: '' }), /the tool runs/);
    assert.equal(protocolOf('windsurf').doctorVerdict!({ code: 0, stdout: '{"decision":"block"}', stderr: '' }), 'allow');
  });
});
