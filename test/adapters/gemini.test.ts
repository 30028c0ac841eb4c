import { test } from 'node:test';
import assert from 'node:assert/strict';
import { geminiBlock, geminiProtocol, geminiReply, parseGeminiPayload, type GeminiPayload } from '../../src/adapters/gemini.ts';
import { HOOK_PROTOCOLS } from '../../src/adapters/registry.ts';
import { runHook } from '../../src/adapters/hook-runtime.ts';
import type { Decision } from '../../src/core/types.ts';

const payload = (over: Record<string, unknown> = {}) => ({
  session_id: 'sess-1', transcript_path: '/tmp/t.json', cwd: '/work/p', hook_event_name: 'BeforeTool',
  timestamp: '2025-01-01T00:00:00Z', tool_name: 'run_shell_command', tool_input: { command: 'ls' }, ...over,
});
const decision = (over: Partial<Decision>): Decision => ({ verdict: 'allow', tier: 'allow', rule: 'x.y', reason: 'because', layer: 'static', ms: 1, ...over } as Decision);
const parsed = (over: Record<string, unknown> = {}) => parseGeminiPayload(payload(over), '/default') as GeminiPayload;

test('a BeforeTool payload becomes a ToolCall from agent gemini with the tool normalized', () => {
  const p = geminiProtocol({ defaultCwd: '/default' });
  const call = p.toCall(parsed());
  assert.deepEqual(call, { tool: 'shell', clientTool: 'run_shell_command', input: { command: 'ls' }, cwd: '/work/p', agent: 'gemini', sessionId: 'sess-1' });
  for (const [name, kind] of [['write_file', 'write'], ['replace', 'edit'], ['read_file', 'read'], ['grep_search', 'search'], ['glob', 'search'],
    ['list_directory', 'search'], ['web_fetch', 'fetch'], ['google_web_search', 'search'], ['mcp_github_create_issue', 'mcp']] as const) {
    assert.equal(p.toCall(parsed({ tool_name: name, tool_input: {} })).tool, kind, name);
  }
  assert.equal(p.toCall(parsed({ cwd: undefined })).cwd, '/default');
});

test('payloads Gemini would not send are refused with a reason', () => {
  assert.match(String(parseGeminiPayload([], '/d')), /not a JSON object/);
  assert.match(String(parseGeminiPayload(payload({ hook_event_name: 'AfterTool' }), '/d')), /handles BeforeTool, not "AfterTool"/);
  assert.match(String(parseGeminiPayload(payload({ tool_name: '' }), '/d')), /no "tool_name"/);
  assert.match(String(parseGeminiPayload(payload({ tool_input: 'ls' }), '/d')), /"tool_input" is not a JSON object/);
  assert.match(String(parseGeminiPayload(payload({ cwd: 'rel/dir' }), '/d')), /"cwd" is not an absolute path/);
  assert.match(String(parseGeminiPayload(payload({ session_id: 5 }), '/d')), /"session_id" is not a string/);
});

test('allow is Gemini\'s own JSON allow and nothing else; deny and ask are exit 2 with the reason on stderr only', () => {
  assert.deepEqual(geminiReply(parsed(), decision({})), { stdout: '{"decision":"allow"}\n', stderr: '', exitCode: 0 });
  assert.deepEqual(geminiReply(parsed(), decision({ verdict: 'deny', tier: 'hard_deny', rule: 'fs.rm-root', reason: 'no' })),
    { stdout: '', stderr: 'asimov [fs.rm-root]: no\n', exitCode: 2 });
  const ask = geminiReply(parsed(), decision({ verdict: 'ask', tier: 'soft_deny', rule: 'git.force-push', reason: 'rewrites history' }));
  assert.equal(ask.exitCode, 2);
  assert.equal(ask.stdout, '');
  assert.match(ask.stderr, /^asimov \[git\.force-push\]: rewrites history \(a person must approve this call/);
  assert.deepEqual(geminiBlock('x'), { stdout: '', stderr: 'x\n', exitCode: 2 });
});

test('a tool asimov does not know is blocked even when the policy would ask', () => {
  const r = geminiReply(parsed({ tool_name: 'brand_new_tool' }), decision({ verdict: 'ask', tier: 'unknown', rule: null }));
  assert.equal(r.exitCode, 2);
  assert.match(r.stderr, /`brand_new_tool` is unknown to asimov/);
});

test('the registry runs it: bad input blocks with exit 2, a decision is replied natively', async () => {
  const protocol = HOOK_PROTOCOLS['gemini']!({ onAllow: 'approve', cwd: '/d' });
  const run = (text: string, d: Decision = decision({})) => runHook({
    protocol, stdin: async function* () { if (text) yield text; }, deadline: Date.now() + 10_000, decide: async () => d,
  });
  const bad = await run('{not json');
  assert.equal(bad.exitCode, 2);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /could not read the gemini hook payload/);
  assert.equal((await run('')).exitCode, 2);
  assert.deepEqual(await run(JSON.stringify(payload())), { stdout: '{"decision":"allow"}\n', stderr: '', exitCode: 0 });
  const thrown = await runHook({ protocol, stdin: async function* () { yield JSON.stringify(payload()); }, deadline: Date.now() + 10_000, decide: async () => { throw new Error('boom'); } });
  assert.equal(thrown.exitCode, 2);
  assert.match(thrown.stderr, /boom/);
});
