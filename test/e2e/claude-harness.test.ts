// Proves the end-to-end harness on the real Claude Code CLI with NO asimov hooks installed: each scripted
// tool call has its real effect (disk, MCP recorder, proxy log) and its tool_result reaches the model
// server. These are the positive controls for the hook and judge tests: when those see a call blocked,
// this file shows the same call would otherwise have run.
// It also verifies where Claude Code picks up hooks in -p mode and the SDK-mode permission flow that the
// Claude Code adapter relies on (see the comment at the top of test/helpers/claude-cli.ts).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startAnthropicServer, type AnthropicServer, type CapturedRequest, type ScriptReply, type ScriptStep } from '../helpers/anthropic-server.ts';
import { makeScratch, runClaude, runClaudeStream, WEBFETCH_DIRECT_SETTINGS, type ClaudeRunResult } from '../helpers/claude-cli.ts';
import { proxyEnv, startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.ts';

const RECORDING_MCP_SERVER = resolve(import.meta.dirname, '../fixtures/recording-mcp-server.mjs');
const TEST_TIMEOUT = 90_000;
const RUN_TIMEOUT = 45_000;

function assertRanCleanly(r: ClaudeRunResult): void {
  assert.equal(r.signal, null, `claude was killed: ${r.stderr}`);
  assert.equal(r.code, 0, `claude exited ${r.code}: ${r.stderr}\n${r.stdout}`);
  assert.equal(r.json?.is_error, false, `claude reported an error: ${r.stdout}`);
}

describe('positive controls: scripted tool calls run for real (no hooks installed)', () => {
  // One model server for these tests; the prompt names the case ("case=<name>") and the case's script
  // is replayed by step. Tool-use ids carry the case name, so results are unambiguous across runs.
  const scripts = new Map<string, ScriptStep[]>();
  const scratch = makeScratch('asimov-harness-');
  let server: AnthropicServer;
  let proxy: RecordingProxy;

  function caseOf(req: CapturedRequest): string | undefined {
    const firstUser = (req.body?.messages as Array<{ role?: string }> | undefined)?.find((m) => m?.role === 'user');
    return /\bcase=([a-z0-9-]+)/.exec(JSON.stringify(firstUser ?? ''))?.[1];
  }

  function onRequest(req: CapturedRequest, { step }: { step: number }): ScriptReply | undefined {
    const name = req.main ? caseOf(req) : undefined;
    const s = name ? scripts.get(name)?.[step] : undefined;
    if (!name || !s) return undefined;
    return {
      kind: 'message',
      content: [
        ...(s.text !== undefined ? [{ type: 'text' as const, text: s.text }] : []),
        ...(s.tools ?? []).map((t, i) => ({ type: 'tool_use' as const, id: t.id ?? `toolu_${name}_${step}_${i}`, name: t.name, input: t.input })),
      ],
    };
  }

  async function runCase(name: string, steps: ScriptStep[], o: { allowedTools: string[]; args?: string[]; env?: Record<string, string> }): Promise<ClaudeRunResult> {
    scripts.set(name, steps);
    return runClaude({ home: scratch.home, cwd: scratch.project, baseUrl: server.url, prompt: `case=${name}`, timeoutMs: RUN_TIMEOUT, ...o });
  }

  /** The result of the case's first tool call, as the model server received it. */
  function resultOf(name: string): { text: string; is_error: boolean } {
    const r = server.allToolResults().find((t) => t.tool_use_id === `toolu_${name}_0_0`);
    assert.ok(r, `no tool_result for ${name} reached the model server`);
    return r;
  }

  before(async () => {
    server = await startAnthropicServer({ onRequest });
    proxy = await startRecordingProxy();
  });
  after(async () => {
    await server?.close();
    await proxy?.close();
    scratch.cleanup();
  });

  test('Bash: `touch made-by-bash.txt` creates the file', { timeout: TEST_TIMEOUT }, async () => {
    const r = await runCase('bash', [{ text: 'making it', tools: [{ name: 'Bash', input: { command: 'touch made-by-bash.txt', description: 'create a file' } }] }, { text: 'made' }], { allowedTools: ['Bash'] });
    assertRanCleanly(r);
    assert.ok(existsSync(join(scratch.project, 'made-by-bash.txt')));
    assert.equal(resultOf('bash').is_error, false);
    assert.equal(r.json.result, 'made');
  });

  test('Write creates a file with the content', { timeout: TEST_TIMEOUT }, async () => {
    const file = join(scratch.project, 'made-by-write.txt');
    const r = await runCase('write', [{ tools: [{ name: 'Write', input: { file_path: file, content: 'written by Write\n' } }] }], { allowedTools: ['Write'] });
    assertRanCleanly(r);
    assert.equal(readFileSync(file, 'utf8'), 'written by Write\n');
    const res = resultOf('write');
    assert.equal(res.is_error, false);
    assert.ok(res.text.includes(file), res.text);
  });

  test('Edit changes a file', { timeout: TEST_TIMEOUT }, async () => {
    const file = join(scratch.project, 'to-edit.txt');
    writeFileSync(file, 'colour: red\n');
    // 2.1.330 lets Edit change a file the session has not Read first.
    const r = await runCase('edit', [{ tools: [{ name: 'Edit', input: { file_path: file, old_string: 'red', new_string: 'blue' } }] }], { allowedTools: ['Edit'] });
    assertRanCleanly(r);
    assert.equal(readFileSync(file, 'utf8'), 'colour: blue\n');
    assert.equal(resultOf('edit').is_error, false);
  });

  test("Read returns the file's content in the next request's tool_result", { timeout: TEST_TIMEOUT }, async () => {
    const file = join(scratch.project, 'to-read.txt');
    writeFileSync(file, 'the-marker-7f3a\n');
    const r = await runCase('read', [{ tools: [{ name: 'Read', input: { file_path: file } }] }], { allowedTools: ['Read'] });
    assertRanCleanly(r);
    const res = resultOf('read');
    assert.equal(res.is_error, false);
    assert.match(res.text, /the-marker-7f3a/);
    assert.deepEqual(server.lastToolResults().map((t) => t.tool_use_id), ['toolu_read_0_0']);
  });

  test('an MCP call reaches the recording server', { timeout: TEST_TIMEOUT }, async () => {
    const recorder = join(scratch.root, 'mcp-recorder.jsonl');
    const config = join(scratch.root, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { recorder: { command: process.execPath, args: [RECORDING_MCP_SERVER], env: { RECORDER_FILE: recorder } } } }));
    const r = await runCase('mcp', [{ tools: [{ name: 'mcp__recorder__write_note', input: { text: 'hello from the model' } }] }], {
      allowedTools: ['mcp__recorder__write_note'],
      args: ['--mcp-config', config, '--strict-mcp-config'],
    });
    assertRanCleanly(r);
    const lines = readFileSync(recorder, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines, [{ tool: 'write_note', args: { text: 'hello from the model' } }]);
    assert.deepEqual(resultOf('mcp'), { tool_use_id: 'toolu_mcp_0_0', text: 'recorded', is_error: false });
  });

  test('WebFetch of https://pastebin.com/raw/x goes through HTTPS_PROXY (with the preflight skipped)', { timeout: TEST_TIMEOUT }, async () => {
    const before = proxy.hits.length;
    const r = await runCase('webfetch', [{ tools: [{ name: 'WebFetch', input: { url: 'https://pastebin.com/raw/x', prompt: 'Summarize the page.' } }] }], {
      allowedTools: ['WebFetch'],
      args: ['--settings', JSON.stringify(WEBFETCH_DIRECT_SETTINGS)],
      env: proxyEnv(proxy),
    });
    assertRanCleanly(r);
    assert.deepEqual(proxy.hits.slice(before).map((h) => `${h.method} ${h.host}:${h.port}`), ['CONNECT pastebin.com:443']);
    // The proxy refuses, so the fetch fails; what matters is that it was attempted.
    assert.equal(resultOf('webfetch').is_error, true);
  });

  test('WebFetch without skipWebFetchPreflight asks api.anthropic.com first and never reaches the host', { timeout: TEST_TIMEOUT }, async () => {
    const before = proxy.hits.length;
    const r = await runCase('webfetch-preflight', [{ tools: [{ name: 'WebFetch', input: { url: 'https://pastebin.com/raw/x', prompt: 'Summarize the page.' } }] }], {
      allowedTools: ['WebFetch'],
      env: proxyEnv(proxy),
    });
    assertRanCleanly(r);
    assert.deepEqual(proxy.hits.slice(before).map((h) => h.host), ['api.anthropic.com']);
    const res = resultOf('webfetch-preflight');
    assert.equal(res.is_error, true);
    assert.match(res.text, /pastebin\.com/);
  });
});

describe('where Claude Code picks up hooks, and the SDK-mode permission flow', () => {
  // A hook that records its payload and, when told to, answers PreToolUse with "ask". Written into each
  // scratch dir at run time; it only appends to a log inside that scratch dir.
  const HOOK_SOURCE = [
    "import { appendFileSync, readFileSync } from 'node:fs';",
    'const [label, log, reply] = process.argv.slice(2);',
    "let payload = null; try { payload = JSON.parse(readFileSync(0, 'utf8')); } catch {}",
    "appendFileSync(log, JSON.stringify({ label, payload }) + '\\n');",
    "if (reply === 'ask') process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'harness-ask-reason' } }));",
    '',
  ].join('\n');

  const BASH_CALL = { name: 'Bash', input: { command: 'touch made-by-bash.txt', description: 'create a file' } };
  let server: AnthropicServer;
  const cleanups: Array<() => void> = [];

  before(async () => { server = await startAnthropicServer({ script: [{ tools: [BASH_CALL] }, { text: 'finished' }] }); });
  after(async () => {
    await server?.close();
    for (const c of cleanups) c();
  });

  interface HookSetup { home: string; project: string; log: string; hook(label: string, reply?: 'ask'): { type: 'command'; command: string } }

  function setup(settings: (h: HookSetup['hook']) => { user?: unknown; project?: unknown }): HookSetup {
    const s = makeScratch('asimov-harness-hooks-');
    cleanups.push(s.cleanup);
    const script = join(s.root, 'record-hook.mjs');
    const log = join(s.root, 'hooks.jsonl');
    writeFileSync(script, HOOK_SOURCE);
    writeFileSync(log, '');
    const hook = (label: string, reply?: 'ask') => ({ type: 'command' as const, command: `'${process.execPath}' '${script}' ${label} '${log}' ${reply ?? ''}` });
    const { user, project } = settings(hook);
    if (user) {
      mkdirSync(join(s.home, '.claude'), { recursive: true });
      writeFileSync(join(s.home, '.claude', 'settings.json'), JSON.stringify(user));
    }
    if (project) {
      mkdirSync(join(s.project, '.claude'), { recursive: true });
      writeFileSync(join(s.project, '.claude', 'settings.json'), JSON.stringify(project));
    }
    return { home: s.home, project: s.project, log, hook };
  }

  function hookLog(log: string): Array<{ label: string; payload: any }> {
    return readFileSync(log, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  }

  test('-p without flags runs PreToolUse hooks from ~/.claude/settings.json and <project>/.claude/settings.json', { timeout: TEST_TIMEOUT }, async () => {
    const h = setup((hook) => ({
      user: { hooks: { PreToolUse: [{ matcher: '*', hooks: [hook('user')] }] } },
      project: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook('project')] }] } },
    }));
    const r = await runClaude({ home: h.home, cwd: h.project, baseUrl: server.url, prompt: 'make the file', allowedTools: ['Bash'], timeoutMs: RUN_TIMEOUT });
    assertRanCleanly(r);
    assert.ok(existsSync(join(h.project, 'made-by-bash.txt')), 'a hook with no output must not stop the call');
    const entries = hookLog(h.log);
    assert.deepEqual(entries.map((e) => e.label).sort(), ['project', 'user']);
    for (const { payload } of entries) {
      assert.equal(payload.hook_event_name, 'PreToolUse');
      assert.equal(payload.tool_name, 'Bash');
      assert.deepEqual(payload.tool_input, BASH_CALL.input);
      assert.equal(payload.cwd, h.project);
      assert.equal(typeof payload.session_id, 'string');
      assert.equal(typeof payload.tool_use_id, 'string');
    }
  });

  test('plain -p: a PreToolUse "ask" is a denial with the reason, and PermissionRequest does not fire', { timeout: TEST_TIMEOUT }, async () => {
    const h = setup((hook) => ({
      project: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook('pre', 'ask')] }], PermissionRequest: [{ matcher: '*', hooks: [hook('permission')] }] } },
    }));
    const r = await runClaude({ home: h.home, cwd: h.project, baseUrl: server.url, prompt: 'make the file', allowedTools: ['Bash'], timeoutMs: RUN_TIMEOUT });
    assertRanCleanly(r);
    assert.ok(!existsSync(join(h.project, 'made-by-bash.txt')));
    const [res] = server.lastToolResults();
    assert.equal(res?.is_error, true);
    assert.match(res?.text ?? '', /harness-ask-reason/);
    assert.deepEqual(r.json.permission_denials.map((d: { tool_name: string }) => d.tool_name), ['Bash']);
    assert.deepEqual(hookLog(h.log).map((e) => e.label), ['pre']);
  });

  for (const behavior of ['allow', 'deny'] as const) {
    test(`stream-json: an "ask" reaches can_use_tool and the PermissionRequest hook; answering ${behavior} ${behavior === 'allow' ? 'runs' : 'blocks'} the tool`, { timeout: TEST_TIMEOUT }, async () => {
      const h = setup((hook) => ({
        project: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook('pre', 'ask')] }], PermissionRequest: [{ matcher: '*', hooks: [hook('permission')] }] } },
      }));
      const asked: Array<{ tool_name: string; input: unknown }> = [];
      const r = await runClaudeStream({
        home: h.home, cwd: h.project, baseUrl: server.url, prompt: 'make the file', allowedTools: ['Bash'], timeoutMs: RUN_TIMEOUT,
        decide: (req) => {
          asked.push({ tool_name: req.tool_name, input: req.input });
          return behavior === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: 'denied by the harness host' };
        },
      });
      assertRanCleanly(r);
      assert.deepEqual(asked, [{ tool_name: 'Bash', input: BASH_CALL.input }]);
      assert.equal(r.permissionRequests.length, 1);
      const request = r.permissionRequests[0].request;
      assert.equal(request.subtype, 'can_use_tool');
      assert.equal(request.decision_reason, 'harness-ask-reason');
      assert.equal(request.decision_reason_type, 'hook');

      // The PermissionRequest hook races the host's answer (an immediate answer may cancel it before it
      // logs), so it is checked when it ran, not required to have run.
      const entries = hookLog(h.log);
      assert.equal(entries[0]?.label, 'pre');
      const permission = entries.find((e) => e.label === 'permission')?.payload;
      if (permission) {
        assert.equal(permission.hook_event_name, 'PermissionRequest');
        assert.equal(permission.tool_name, 'Bash');
        assert.deepEqual(permission.tool_input, BASH_CALL.input);
      }

      const [res] = server.lastToolResults();
      if (behavior === 'allow') {
        assert.ok(existsSync(join(h.project, 'made-by-bash.txt')));
        assert.equal(res?.is_error, false);
      } else {
        assert.ok(!existsSync(join(h.project, 'made-by-bash.txt')));
        assert.equal(res?.is_error, true);
        assert.match(res?.text ?? '', /denied by the harness host/);
      }
      assert.equal(r.json?.type, 'result');
    });
  }
});
