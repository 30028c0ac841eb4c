// The factory with the OpenAI-compatible provider: the real `openai` SDK client against a scripted Chat
// Completions server on 127.0.0.1 (as Ollama, vLLM or LM Studio would be reached, through baseUrl).

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIServer, type CapturedChatRequest, type ChatReply, type OpenAIServer } from '../helpers/openai-server.ts';
import { createJudge, type JudgeSettings } from '../../src/judge/create.ts';
import type { JudgeRequest } from '../../src/judge/types.ts';

let server: OpenAIServer;
let handler: (req: CapturedChatRequest, n: number) => ChatReply | undefined = () => undefined;

before(async () => {
  server = await startOpenAIServer({ onRequest: (req) => handler(req, server.requests.length) });
});
after(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  handler = () => undefined;
});

const answer = (content: string | null, extra: Partial<Extract<ChatReply, { kind: 'message' }>> = {}): ChatReply => ({ kind: 'message', content, ...extra });

function settings(over: Partial<JudgeSettings> = {}): JudgeSettings {
  return { provider: 'openai', model: 'llama3.1:8b', baseUrl: server.baseUrl, timeoutMs: 20_000, onUncertain: 'ask', sendUserRequest: false, ...over };
}

function request(command = 'frobnicate --all'): JudgeRequest {
  return {
    call: { tool: 'shell', input: { command }, cwd: '/p', projectRoot: '/p' },
    classification: { tier: 'unknown', rule: null, reason: 'No rule knows it.', findings: [] },
    groundRules: '- Never delete data.',
  };
}

describe('verdicts', () => {
  test('allow and deny, with usage; a local server needs no key', async () => {
    handler = () => answer('{"verdict":"allow","reason":"A local helper."}', { usage: { prompt_tokens: 100, completion_tokens: 9 } });
    const judge = createJudge(settings(), { env: {}, cache: false });
    const a = await judge.evaluate(request());
    assert.equal(a.verdict, 'allow');
    assert.equal(a.reason, 'A local helper.');
    assert.equal(a.provider, 'openai');
    assert.equal(a.model, 'llama3.1:8b');
    assert.deepEqual(a.usage, { inputTokens: 100, outputTokens: 9 });
    handler = () => answer('{"verdict":"deny","reason":"Deletes data."}');
    assert.equal((await judge.evaluate(request('frob --purge'))).verdict, 'deny');
  });

  test('the request: system and user messages, temperature 0, a strict json_schema, the key when given', async () => {
    handler = () => answer('{"verdict":"allow","reason":"ok"}');
    await createJudge(settings(), { env: { OPENAI_API_KEY: 'sk-openai-test' }, cache: false }).evaluate(request());
    const r = server.requests[0]!;
    assert.equal(r.path, '/v1/chat/completions');
    assert.equal(r.headers.authorization, 'Bearer sk-openai-test');
    assert.equal(r.headers['x-stainless-retry-count'], '0');
    assert.equal(r.body.model, 'llama3.1:8b');
    assert.equal(r.body.temperature, 0);
    assert.equal(r.stream, false);
    assert.deepEqual(r.body.messages.map((m: { role: string }) => m.role), ['system', 'user']);
    assert.match(r.body.messages[0].content, /You are the judge of asimov/);
    assert.match(r.body.messages[1].content, /"command": "frobnicate --all"/);
    assert.equal(r.body.response_format.type, 'json_schema');
    assert.equal(r.body.response_format.json_schema.strict, true);
    assert.deepEqual(r.body.response_format.json_schema.schema.properties.verdict.enum, ['allow', 'deny', 'unsure']);
  });

  test('OPENAI_BASE_URL is honoured when the policy gives no baseUrl', async () => {
    handler = () => answer('{"verdict":"deny","reason":"no"}');
    const { baseUrl: _omit, ...rest } = settings();
    const r = await createJudge(rest, { env: { OPENAI_BASE_URL: server.baseUrl }, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'deny');
    assert.equal(server.requests.length, 1);
  });
});

describe('malformed replies are unsure', () => {
  const cases: Array<[string, ChatReply]> = [
    ['prose', answer('Allow: it only builds the project.')],
    ['both words', answer('{"verdict":"allow, deny","reason":"x"}')],
    ['truncated (finish_reason length)', answer('{"verdict":"allow","reason":"o', { finishReason: 'length' })],
    ['truncated JSON', answer('{"verdict":"allow","reason":"o')],
    ['extra text', answer('{"verdict":"allow","reason":"ok"}\nLet me know if you need more.')],
    ['empty content', answer('')],
    ['null content', answer(null)],
    ['refusal', answer(null, { refusal: 'I cannot help with that.' })],
    ['two choices', answer('{"verdict":"allow","reason":"ok"}', { choices: 2 })],
    ['a body that is not JSON', { kind: 'raw', status: 200, headers: { 'content-type': 'application/json' }, body: '{"choices":[' }],
  ];
  for (const [name, reply] of cases) {
    test(name, async () => {
      handler = () => reply;
      const r = await createJudge(settings(), { env: {}, cache: false }).evaluate(request());
      assert.equal(r.verdict, 'unsure');
      assert.equal(r.errorCode, 'judge_malformed');
      assert.equal(server.requests.length, 1);
    });
  }
});

describe('failures', () => {
  test('timeout', async () => {
    handler = () => ({ kind: 'hang' });
    const r = await createJudge(settings({ timeoutMs: 300 }), { env: {}, cache: false }).evaluate(request());
    assert.equal(r.errorCode, 'judge_timeout');
  });

  test('500 retried once, then unsure', async () => {
    handler = () => ({ kind: 'raw', status: 500, headers: { 'content-type': 'application/json' }, body: '{"error":{"message":"boom","type":"server_error"}}' });
    const r = await createJudge(settings(), { env: {}, cache: false }).evaluate(request());
    assert.equal(r.errorCode, 'judge_http_500');
    assert.equal(server.requests.length, 2);
  });

  test('429 with retry-after-ms retried, then the verdict', async () => {
    handler = (_r, n) =>
      n === 1
        ? { kind: 'raw', status: 429, headers: { 'content-type': 'application/json', 'retry-after-ms': '50' }, body: '{"error":{"message":"slow down","type":"rate_limit"}}' }
        : answer('{"verdict":"deny","reason":"no"}');
    const r = await createJudge(settings(), { env: {}, cache: false }).evaluate(request());
    assert.equal(r.verdict, 'deny');
    assert.equal(server.requests.length, 2);
  });

  test('refused connection', async () => {
    const gone = await startOpenAIServer();
    await gone.close();
    const r = await createJudge(settings({ baseUrl: gone.baseUrl }), { env: {}, cache: false }).evaluate(request());
    assert.equal(r.errorCode, 'judge_refused');
  });

  test('OpenAI itself without a key: unsure without a request', async () => {
    const r = await createJudge(settings({ baseUrl: 'https://api.openai.com/v1' }), { env: {}, cache: false }).evaluate(request());
    assert.equal(r.errorCode, 'judge_missing_key');
    assert.match(r.reason, /OPENAI_API_KEY/);
  });
});
