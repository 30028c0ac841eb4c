// The scripted Anthropic server against the official @anthropic-ai/sdk client: if the real SDK accepts its
// messages, streams, errors and retries, the judge (which uses that SDK) and Claude Code (which embeds a
// build of it) can be driven by it.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startAnthropicServer, type AnthropicServer, type CapturedRequest, type ScriptReply } from '../helpers/anthropic-server.ts';

// One server for the file. The first user message names the case, so each test picks its own behaviour.
const retryCounts = new Map<string, number>();
let server: AnthropicServer;

function caseOf(req: CapturedRequest): string {
  const first = req.body?.messages?.[0]?.content;
  return typeof first === 'string' ? first : '';
}

function onRequest(req: CapturedRequest): ScriptReply | undefined {
  const name = caseOf(req);
  if (name === 'raw-500') {
    return { kind: 'raw', status: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'scripted failure' } }) };
  }
  if (name === 'hang') return { kind: 'hang' };
  if (name === 'destroy') return { kind: 'destroy' };
  if (name === 'rate-limited') {
    const seen = (retryCounts.get(name) ?? 0) + 1;
    retryCounts.set(name, seen);
    if (seen === 1) {
      return { kind: 'raw', status: 429, headers: { 'content-type': 'application/json', 'retry-after': '0.05' }, body: JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }) };
    }
    return { kind: 'message', content: [{ type: 'text', text: 'after the retry' }] };
  }
  if (name === 'malformed') return { kind: 'raw', status: 200, headers: { 'content-type': 'application/json' }, body: '{"id": "msg_x", "content": [' };
  return undefined;
}

before(async () => {
  server = await startAnthropicServer({
    onRequest,
    sideText: 'side answer',
    script: [
      { text: 'first step', tools: [{ name: 'lookup', input: { q: 'one', n: 1 } }] },
      { text: 'second step' },
    ],
  });
});
after(async () => { await server.close(); });

function client(opts: { maxRetries?: number; timeout?: number } = {}): Anthropic {
  return new Anthropic({ baseURL: server.url, apiKey: 'dummy', maxRetries: opts.maxRetries ?? 0, timeout: opts.timeout ?? 10_000 });
}

const TOOL = { name: 'lookup', description: 'Look something up.', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } } };

describe('anthropic-server with the official SDK', () => {
  test('a non-streaming side query gets sideText in the Messages response shape', async () => {
    const before = server.requests.length;
    const msg = await client().messages.create({ model: 'claude-test-model', max_tokens: 16, messages: [{ role: 'user', content: 'say something' }] });
    assert.equal(msg.type, 'message');
    assert.equal(msg.role, 'assistant');
    assert.equal(msg.model, 'claude-test-model');
    assert.equal(msg.stop_reason, 'end_turn');
    assert.equal(msg.stop_sequence, null);
    assert.deepEqual(msg.content.map((b) => (b.type === 'text' ? b.text : b.type)), ['side answer']);
    assert.ok(msg.usage.input_tokens > 0);
    const req = server.requests[before]!;
    assert.equal(req.path, '/v1/messages');
    assert.equal(req.stream, false);
    assert.equal(req.main, false);
    // SDK 1.12.0 sends the key as a bearer token (and anthropic-version 2026-10-21); Claude Code sends x-api-key.
    assert.equal(req.headers['authorization'] ?? `Bearer ${req.headers['x-api-key']}`, 'Bearer dummy');
    assert.equal(req.body.max_tokens, 16);
  });

  test('a non-streaming main request gets the scripted step with tool_use and stop_reason tool_use', async () => {
    const msg = await client().messages.create({ model: 'm', max_tokens: 64, tools: [TOOL], messages: [{ role: 'user', content: 'use the tool' }] });
    assert.equal(msg.stop_reason, 'tool_use');
    assert.equal(msg.content[0]?.type, 'text');
    const use = msg.content[1];
    assert.ok(use?.type === 'tool_use');
    assert.equal(use.name, 'lookup');
    assert.deepEqual(use.input, { q: 'one', n: 1 });
    assert.equal(use.id, 'toolu_0_0');
  });

  test('a streamed main request is assembled by the SDK into the same message', async () => {
    const stream = client().messages.stream({ model: 'm', max_tokens: 64, tools: [TOOL], messages: [{ role: 'user', content: 'stream please' }] });
    const events: string[] = [];
    stream.on('streamEvent', (e) => events.push(e.type));
    const msg = await stream.finalMessage();
    assert.equal(msg.stop_reason, 'tool_use');
    const use = msg.content.find((b) => b.type === 'tool_use');
    assert.ok(use?.type === 'tool_use');
    assert.deepEqual(use.input, { q: 'one', n: 1 });
    assert.equal(events[0], 'message_start');
    assert.equal(events.at(-1), 'message_stop');
    assert.ok(events.includes('message_delta'));
    assert.equal(server.requests.at(-1)!.stream, true);
    assert.equal(server.requests.at(-1)!.main, true);
  });

  test('the step is the number of assistant turns; tool results are captured and flattened', async () => {
    const msg = await client().messages.create({
      model: 'm', max_tokens: 64, tools: [TOOL],
      messages: [
        { role: 'user', content: 'use the tool' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'lookup', input: { q: 'one' } }, { type: 'tool_use', id: 'toolu_b', name: 'lookup', input: { q: 'two' } }] },
        { role: 'user', content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'plain text result' },
          { type: 'tool_result', tool_use_id: 'toolu_b', is_error: true, content: [{ type: 'text', text: 'line 1' }, { type: 'text', text: 'line 2' }] },
        ] },
      ],
    });
    assert.deepEqual(msg.content.map((b) => (b.type === 'text' ? b.text : b.type)), ['second step']);
    assert.equal(msg.stop_reason, 'end_turn');
    assert.deepEqual(server.lastToolResults(), [
      { tool_use_id: 'toolu_a', text: 'plain text result', is_error: false },
      { tool_use_id: 'toolu_b', text: 'line 1\nline 2', is_error: true },
    ]);
    const all = server.allToolResults();
    assert.ok(all.some((r) => r.tool_use_id === 'toolu_a'));
    assert.ok(all.some((r) => r.tool_use_id === 'toolu_b' && r.is_error));
  });

  test('steps past the end of the script get sideText', async () => {
    const assistant = { role: 'assistant' as const, content: 'x' };
    const user = { role: 'user' as const, content: 'y' };
    const msg = await client().messages.create({ model: 'm', max_tokens: 8, tools: [TOOL], messages: [user, assistant, user, assistant, user] });
    assert.deepEqual(msg.content.map((b) => (b.type === 'text' ? b.text : b.type)), ['side answer']);
  });

  test('a raw 500 reaches the SDK as an InternalServerError with the body', async () => {
    await assert.rejects(
      client().messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'raw-500' }] }),
      (err: unknown) => err instanceof Anthropic.InternalServerError && err.status === 500 && /scripted failure/.test(err.message),
    );
  });

  test('a malformed 200 body is an SDK error, not a message', async () => {
    await assert.rejects(client().messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'malformed' }] }));
  });

  test('a hang ends in the SDK timeout', async () => {
    await assert.rejects(
      client({ timeout: 300 }).messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hang' }] }),
      (err: unknown) => err instanceof Anthropic.APIConnectionTimeoutError,
    );
  });

  test('a dropped connection is an APIConnectionError', async () => {
    await assert.rejects(
      client().messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'destroy' }] }),
      (err: unknown) => err instanceof Anthropic.APIConnectionError,
    );
  });

  test('a 429 with retry-after is retried by the SDK and the retry succeeds', async () => {
    const before = server.requests.length;
    const msg = await client({ maxRetries: 2 }).messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'rate-limited' }] });
    assert.deepEqual(msg.content.map((b) => (b.type === 'text' ? b.text : b.type)), ['after the retry']);
    assert.equal(server.requests.length - before, 2);
    assert.equal(server.requests.at(-1)!.headers['x-stainless-retry-count'], '1');
  });
});

describe('anthropic-server routes', () => {
  test('HEAD and GET / answer 200, unknown routes 404, the query string is stripped', async () => {
    assert.equal((await fetch(`${server.url}/`, { method: 'HEAD' })).status, 200);
    assert.equal((await fetch(`${server.url}/`)).status, 200);
    assert.equal((await fetch(`${server.url}/v1/models`)).status, 404);
    assert.equal((await fetch(`${server.url}/v1/messages`, { method: 'GET' })).status, 404);
    const r = await fetch(`${server.url}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });
    assert.equal(r.status, 200);
    assert.equal(server.requests.at(-1)!.path, '/v1/messages');
  });

  test('a body that is not JSON is captured raw and still answered', async () => {
    const r = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: 'not json' });
    assert.equal(r.status, 200);
    assert.equal(server.requests.at(-1)!.body, 'not json');
    assert.equal(server.requests.at(-1)!.main, false);
  });

  test('close() ends a hanging request', async () => {
    const own = await startAnthropicServer({ onRequest: () => ({ kind: 'hang' }) });
    const pending = fetch(`${own.url}/v1/messages`, { method: 'POST', body: '{}' });
    // Wait until the server holds the request, then close under it.
    for (let i = 0; i < 200 && own.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(own.requests.length, 1);
    await own.close();
    await assert.rejects(pending);
  });

  test('an onRequest that throws becomes a 500, not a hang', async () => {
    const own = await startAnthropicServer({ onRequest: () => { throw new Error('broken script'); } });
    try {
      const r = await fetch(`${own.url}/v1/messages`, { method: 'POST', body: '{}' });
      assert.equal(r.status, 500);
      assert.match(await r.text(), /broken script/);
    } finally {
      await own.close();
    }
  });
});
