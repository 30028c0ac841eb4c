// The factory with the Anthropic provider: the real @anthropic-ai/sdk client against a scripted Messages
// server on 127.0.0.1. Verdicts, every malformed reply, every failure, the one retry, the deadline, the cache.

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicServer, type AnthropicServer, type CapturedRequest, type ScriptReply } from '../helpers/anthropic-server.ts';
import { createJudge, type JudgeSettings } from '../../src/judge/create.ts';
import type { JudgeRequest } from '../../src/judge/types.ts';

type Handler = (req: CapturedRequest, n: number) => ScriptReply | undefined;

let server: AnthropicServer;
let handler: Handler = () => undefined;
let scratch: string;

before(async () => {
  server = await startAnthropicServer({ onRequest: (req) => handler(req, server.requests.length) });
  scratch = mkdtempSync(join(tmpdir(), 'asimov-judge-anthropic-'));
});
after(async () => {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  server.requests.length = 0;
  handler = () => undefined;
});

const verdict = (v: unknown, extra: Array<{ type: 'text'; text: string }> = []): ScriptReply => ({
  kind: 'message',
  content: [...extra, { type: 'tool_use', id: 'toolu_v', name: 'record_verdict', input: v }],
  usage: { input_tokens: 321, output_tokens: 45 },
});
const text = (t: string): ScriptReply => ({ kind: 'message', content: [{ type: 'text', text: t }] });
const errorBody = (type: string) => JSON.stringify({ type: 'error', error: { type, message: type } });

function settings(over: Partial<JudgeSettings> = {}): JudgeSettings {
  return { provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: server.url, timeoutMs: 20_000, onUncertain: 'ask', sendUserRequest: false, ...over };
}
const env = { ANTHROPIC_API_KEY: 'sk-test' };

function request(command = 'frobnicate --all', over: Partial<JudgeRequest> = {}): JudgeRequest {
  return {
    call: { tool: 'shell', clientTool: 'Bash', input: { command }, cwd: '/p', projectRoot: '/p' },
    classification: { tier: 'unknown', rule: null, reason: 'No rule knows `frobnicate`.', findings: [] },
    groundRules: '- Never delete data.',
    ...over,
  };
}

describe('verdicts', () => {
  test('allow and deny come back with their reason, usage and no error', async () => {
    const judge = createJudge(settings(), { env, cache: false });
    handler = () => verdict({ verdict: 'allow', reason: 'A local build helper.' });
    const a = await judge.evaluate(request());
    assert.deepEqual({ ...a, latencyMs: 0 }, {
      verdict: 'allow', reason: 'A local build helper.', provider: 'anthropic', model: 'claude-haiku-4-5', latencyMs: 0, cacheHit: false,
      usage: { inputTokens: 321, outputTokens: 45 },
    });
    handler = () => verdict({ verdict: 'deny', reason: 'Deletes data.' });
    const d = await judge.evaluate(request('frobnicate --purge'));
    assert.equal(d.verdict, 'deny');
    assert.equal(d.errorCode, undefined);
    handler = () => verdict({ verdict: 'unsure', reason: 'Cannot tell what frobnicate does.' });
    const u = await judge.evaluate(request('frobnicate --other'));
    assert.equal(u.verdict, 'unsure');
    assert.equal(u.errorCode, undefined);
  });

  test('the request: the key, the model, the system prompt, the call as data, a forced schema-bound tool, no SDK retries', async () => {
    handler = () => verdict({ verdict: 'allow', reason: 'ok' });
    await createJudge(settings(), { env, cache: false }).evaluate(request());
    assert.equal(server.requests.length, 1);
    const r = server.requests[0]!;
    assert.equal(r.path, '/v1/messages');
    assert.equal(r.headers['x-stainless-retry-count'], '0');
    assert.ok(JSON.stringify(r.headers).includes('sk-test'));
    assert.equal(r.body.model, 'claude-haiku-4-5');
    assert.equal(r.stream, false);
    assert.match(r.body.system, /You are the judge of asimov/);
    assert.match(r.body.system, /Never delete data\./);
    assert.equal(r.body.messages.length, 1);
    assert.match(r.body.messages[0].content, /"command": "frobnicate --all"/);
    assert.deepEqual(r.body.tool_choice, { type: 'tool', name: 'record_verdict', disable_parallel_tool_use: true });
    assert.equal(r.body.tools[0].strict, true);
    assert.deepEqual(r.body.tools[0].input_schema.required, ['verdict', 'reason']);
  });
});

describe('malformed replies are unsure', () => {
  const cases: Array<[string, ScriptReply]> = [
    ['prose', text('This looks fine to me, I would allow it.')],
    ['both words', verdict({ verdict: 'allow|deny', reason: 'either' })],
    ['two verdicts', { kind: 'message', content: [
      { type: 'tool_use', id: 'a', name: 'record_verdict', input: { verdict: 'allow', reason: 'x' } },
      { type: 'tool_use', id: 'b', name: 'record_verdict', input: { verdict: 'deny', reason: 'y' } },
    ] }],
    ['truncated (max_tokens)', { ...verdict({ verdict: 'allow', reason: 'ok' }), stopReason: 'max_tokens' } as ScriptReply],
    ['truncated body', { kind: 'raw', status: 200, headers: { 'content-type': 'application/json' }, body: '{"id":"msg_1","type":"message","content":[{"type":"tool_use","id":"t","name":"record_verdict","input":{"verdict":"al' }],
    ['extra text', verdict({ verdict: 'allow', reason: 'ok' }, [{ type: 'text', text: 'Actually, deny this.' }])],
    ['extra keys', verdict({ verdict: 'allow', reason: 'ok', override: true })],
    ['empty content', { kind: 'message', content: [] }],
    ['empty body', { kind: 'raw', status: 200, headers: { 'content-type': 'application/json' }, body: '' }],
    ['another tool', { kind: 'message', content: [{ type: 'tool_use', id: 'x', name: 'Bash', input: { command: 'ls' } }] }],
    ['refusal', { ...text(''), stopReason: 'refusal' } as ScriptReply],
  ];
  for (const [name, reply] of cases) {
    test(name, async () => {
      handler = () => reply;
      const r = await createJudge(settings(), { env, cache: false }).evaluate(request());
      assert.equal(r.verdict, 'unsure');
      assert.equal(r.errorCode, 'judge_malformed');
      assert.ok(r.reason.length > 0);
      assert.equal(server.requests.length, 1, 'a malformed reply is not retried');
    });
  }
});

describe('failures are unsure, with their code; the one retry', () => {
  test('timeout: a server that never answers', async () => {
    handler = () => ({ kind: 'hang' });
    const r = await createJudge(settings({ timeoutMs: 300 }), { env, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'unsure');
    assert.equal(r.errorCode, 'judge_timeout');
    assert.equal(server.requests.length, 1);
  });

  test('refused connection', async () => {
    const closed = await startAnthropicServer();
    const url = closed.url;
    await closed.close();
    const r = await createJudge(settings({ baseUrl: url }), { env, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'unsure');
    assert.equal(r.errorCode, 'judge_refused');
  });

  test('500 is retried once; a second 500 is unsure with the status', async () => {
    handler = () => ({ kind: 'raw', status: 500, headers: { 'content-type': 'application/json' }, body: errorBody('api_error') });
    const r = await createJudge(settings(), { env, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'unsure');
    assert.equal(r.errorCode, 'judge_http_500');
    assert.equal(server.requests.length, 2);
  });

  test('500 then a verdict: the retry answers', async () => {
    handler = (_r, n) => (n === 1 ? { kind: 'raw', status: 503, headers: { 'content-type': 'application/json', 'retry-after': '0' }, body: errorBody('overloaded_error') } : verdict({ verdict: 'deny', reason: 'no' }));
    const r = await createJudge(settings(), { env, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'deny');
    assert.equal(server.requests.length, 2);
  });

  test('429 with retry-after is retried when the wait it asks for fits the budget', async () => {
    const rateLimited = (after: string): ScriptReply => ({ kind: 'raw', status: 429, headers: { 'content-type': 'application/json', 'retry-after': after }, body: errorBody('rate_limit_error') });
    handler = (_r, n) => (n === 1 ? rateLimited('1') : verdict({ verdict: 'allow', reason: 'ok' }));
    const r = await createJudge(settings({ timeoutMs: 5_000 }), { env, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'allow');
    assert.equal(server.requests.length, 2);
    // The same budget, but a longer wait asked for: the header is what decides.
    server.requests.length = 0;
    handler = (_r, n) => (n === 1 ? rateLimited('4.5') : verdict({ verdict: 'allow', reason: 'ok' }));
    const r2 = await createJudge(settings({ timeoutMs: 5_000 }), { env, cache: false }).evaluate(request());
    assert.equal(r2.errorCode, 'judge_http_429');
    assert.equal(server.requests.length, 1);
  });

  test('429 asking for a wait longer than the budget is not retried', async () => {
    handler = () => ({ kind: 'raw', status: 429, headers: { 'content-type': 'application/json', 'retry-after': '600' }, body: errorBody('rate_limit_error') });
    const r = await createJudge(settings(), { env, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'unsure');
    assert.equal(r.errorCode, 'judge_http_429');
    assert.match(r.reason, /not retried/);
    assert.equal(server.requests.length, 1);
  });

  test('a dropped connection is retried once', async () => {
    handler = (_r, n) => (n === 1 ? { kind: 'destroy' } : verdict({ verdict: 'allow', reason: 'ok' }));
    const r = await createJudge(settings(), { env, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'allow');
    assert.equal(server.requests.length, 2);
  });

  test('4xx other than 429 is not retried', async () => {
    handler = () => ({ kind: 'raw', status: 401, headers: { 'content-type': 'application/json' }, body: errorBody('authentication_error') });
    const r = await createJudge(settings(), { env, cache: false }).evaluate(request());
    assert.equal(r.errorCode, 'judge_http_401');
    assert.equal(server.requests.length, 1);
  });

  test('no key: unsure without a request', async () => {
    const r = await createJudge(settings(), { env: { HOME: scratch }, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'unsure');
    assert.equal(r.errorCode, 'judge_missing_key');
    assert.match(r.reason, /ANTHROPIC_API_KEY/);
    assert.equal(server.requests.length, 0);
  });

  test('a deadline already passed, or an aborted signal: unsure without a request', async () => {
    handler = () => verdict({ verdict: 'allow', reason: 'ok' });
    const judge = createJudge(settings(), { env, cache: false });
    const late = await judge.evaluate(request('x', { deadline: Date.now() + 100 }));
    assert.equal(late.errorCode, 'judge_timeout');
    const aborted = await judge.evaluate(request('x', { signal: AbortSignal.abort() }));
    assert.equal(aborted.errorCode, 'judge_timeout');
    assert.equal(server.requests.length, 0);
  });

  test('the deadline cuts the budget: a hanging server is given up on at the deadline', async () => {
    handler = () => ({ kind: 'hang' });
    const r = await createJudge(settings({ timeoutMs: 600_000 }), { env, cache: false }).evaluate(request('x', { deadline: Date.now() + 700 }));
    assert.equal(r.errorCode, 'judge_timeout');
  });

  test('the caller aborting mid-request ends it as a timeout', async () => {
    handler = () => ({ kind: 'hang' });
    const ctl = new AbortController();
    const p = createJudge(settings(), { env, cache: false }).evaluate(request('x', { signal: ctl.signal }));
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    ctl.abort();
    const r = await p;
    assert.equal(r.errorCode, 'judge_timeout');
  });

  test('a call too large to show is unsure without a request', async () => {
    const r = await createJudge(settings(), { env, cache: false }).evaluate(request(`echo ${'a'.repeat(70_000)}`));
    assert.equal(r.errorCode, 'judge_input_too_large');
    assert.equal(server.requests.length, 0);
  });
});

describe('the cache', () => {
  test('allow and deny are answered from the cache by another judge; unsure is asked again', async () => {
    const dir = join(scratch, 'cache-1');
    handler = () => verdict({ verdict: 'deny', reason: 'Deletes data.' });
    const first = await createJudge(settings(), { env, cache: { dir } }).evaluate(request('frob --purge'));
    assert.equal(first.cacheHit, false);
    const second = await createJudge(settings(), { env, cache: { dir } }).evaluate(request('frob --purge'));
    assert.equal(second.verdict, 'deny');
    assert.equal(second.reason, 'Deletes data.');
    assert.equal(second.cacheHit, true);
    assert.equal(server.requests.length, 1);

    // Another model is another judgement.
    await createJudge(settings({ model: 'claude-haiku-5-5' }), { env, cache: { dir } }).evaluate(request('frob --purge'));
    assert.equal(server.requests.length, 2);

    handler = () => verdict({ verdict: 'unsure', reason: 'Cannot tell.' });
    await createJudge(settings(), { env, cache: { dir } }).evaluate(request('frob --maybe'));
    await createJudge(settings(), { env, cache: { dir } }).evaluate(request('frob --maybe'));
    assert.equal(server.requests.length, 4);

    handler = () => ({ kind: 'raw', status: 400, headers: { 'content-type': 'application/json' }, body: errorBody('invalid_request_error') });
    await createJudge(settings(), { env, cache: { dir } }).evaluate(request('frob --bad'));
    await createJudge(settings(), { env, cache: { dir } }).evaluate(request('frob --bad'));
    assert.equal(server.requests.length, 6);
  });

  test('by default the cache lives under XDG_CACHE_HOME', async () => {
    handler = () => verdict({ verdict: 'allow', reason: 'ok' });
    const xdg = join(scratch, 'xdg');
    const e = { ...env, XDG_CACHE_HOME: xdg };
    await createJudge(settings(), { env: e }).evaluate(request('frob --x'));
    const hit = await createJudge(settings(), { env: e }).evaluate(request('frob --x'));
    assert.equal(hit.cacheHit, true);
    assert.equal(server.requests.length, 1);
  });
});
