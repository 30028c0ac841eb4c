// The official SDK client through `asimov mcp proxy` (the built CLI) to @modelcontextprotocol/server-everything
// over stdio, SSE and Streamable HTTP, each compared with the same client talking to the server directly:
// the handshake, allowed tool calls, resources, prompts, completion and logging come back exactly as the
// server gave them, and progress always arrives before its result.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pathToFileURL } from 'node:url';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  EVERYTHING, auditLinesWith, connectProxy, connectStdio, makeProxyScratch, proxyEnv, startHttpEverything,
  type Connected, type HttpServer, type ProxyScratch,
} from '../helpers/mcp-proxy.ts';

/** The same requests to a direct client and a proxied one; each answer must be identical. */
async function sameAnswers(direct: Client, proxied: Client): Promise<void> {
  assert.deepEqual(proxied.getServerVersion(), direct.getServerVersion());
  assert.deepEqual(proxied.getServerCapabilities(), direct.getServerCapabilities());
  assert.equal(proxied.getInstructions(), direct.getInstructions());
  assert.ok(direct.getInstructions(), 'server-everything gives instructions');

  const calls: Array<[string, Record<string, unknown>]> = [
    ['echo', { message: 'through the proxy ✓' }],
    ['get-sum', { a: 2, b: 40 }],
    ['get-structured-content', { location: 'Chicago' }],
    ['get-tiny-image', {}],
    ['get-annotated-message', { messageType: 'error', includeImage: true }],
  ];
  for (const [name, args] of calls) {
    const want = await direct.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
    const got = await proxied.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
    assert.deepEqual(got, want, `tools/call ${name}`);
    assert.notEqual(got.isError, true, `${name} succeeded`);
  }
  assert.deepEqual(await proxied.listTools(), await direct.listTools());

  const resources = await direct.listResources();
  assert.deepEqual(await proxied.listResources(), resources);
  const first = resources.resources[0]!;
  assert.deepEqual(await proxied.readResource({ uri: first.uri }), await direct.readResource({ uri: first.uri }));
  assert.deepEqual(await proxied.listResourceTemplates(), await direct.listResourceTemplates());
  assert.deepEqual(await proxied.subscribeResource({ uri: first.uri }), await direct.subscribeResource({ uri: first.uri }));

  assert.deepEqual(await proxied.listPrompts(), await direct.listPrompts());
  assert.deepEqual(await proxied.getPrompt({ name: 'simple-prompt' }), await direct.getPrompt({ name: 'simple-prompt' }));
  const completion = { ref: { type: 'ref/prompt' as const, name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } };
  const completed = await direct.complete(completion);
  assert.deepEqual(completed.completion.values, ['Engineering']);
  assert.deepEqual(await proxied.complete(completion), completed);
  assert.deepEqual(await proxied.setLoggingLevel('debug'), await direct.setLoggingLevel('debug'));
}

/** Ten runs of a tool that reports progress: every notification arrives, and before the result. */
async function progressBeforeResult(client: Client): Promise<void> {
  for (let run = 0; run < 10; run++) {
    const events: string[] = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.05, steps: 5 } },
      CallToolResultSchema,
      { onprogress: (p) => events.push(`progress ${p.progress}/${p.total}`) },
    );
    events.push('result');
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.deepEqual(events, ['progress 1/5', 'progress 2/5', 'progress 3/5', 'progress 4/5', 'progress 5/5', 'result'], `run ${run}`);
  }
}

describe('mcp proxy in front of server-everything', () => {
  let s: ProxyScratch;
  before(() => { s = makeProxyScratch('asimov-mcp-everything-'); });
  after(() => s.cleanup());

  test('stdio: the same answers as the server gives directly; progress before the result', async () => {
    const direct = await connectStdio(process.execPath, [EVERYTHING, 'stdio'], { cwd: s.project, env: proxyEnv(s) });
    const proxied = await connectProxy(s, [process.execPath, EVERYTHING, 'stdio']);
    try {
      await sameAnswers(direct.client, proxied.client);
      await progressBeforeResult(proxied.client);
      // Every tools/call the proxy let through was decided by the gate and recorded, as the proxy's.
      await auditLinesWith(s.audit, (l) => `${l.agent} ${l.client_tool} ${l.verdict}` === 'mcp-proxy mcp__everything__echo allow');
    } finally {
      await direct.close();
      await proxied.close();
    }
  });

  test("stdio: the server's requests to the client (sampling, elicitation, roots) go through both ways", async () => {
    const client = new Client({ name: 'asimov-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
    const asked: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (r) => {
      asked.push(r.method);
      return { role: 'assistant', content: { type: 'text', text: 'sampled by the test client' }, model: 'test-model', stopReason: 'endTurn' };
    });
    client.setRequestHandler(ElicitRequestSchema, (r) => {
      asked.push(r.method);
      return { action: 'accept', content: { name: 'Ada', check: true } };
    });
    client.setRequestHandler(ListRootsRequestSchema, (r) => {
      asked.push(r.method);
      return { roots: [{ uri: pathToFileURL(s.project).href, name: 'project' }, { uri: 'file:///etc', name: 'etc' }] };
    });
    const p = await connectProxy(s, [process.execPath, EVERYTHING, 'stdio'], { client });
    try {
      // server-everything offers these tools only to a client that declared the capabilities: the client's own
      // handshake reached it.
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const t of ['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']) assert.ok(names.includes(t), t);
      const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } });
      assert.match(JSON.stringify(sampled), /sampled by the test client/);
      const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      assert.match(JSON.stringify(elicited), /Ada/);
      const roots = JSON.stringify(await client.callTool({ name: 'get-roots-list', arguments: {} }));
      assert.ok(roots.includes(pathToFileURL(s.project).href), roots);
      assert.ok(!roots.includes('file:///etc'), 'a root outside the project is not passed on');
      assert.deepEqual([...new Set(asked)].sort(), ['elicitation/create', 'roots/list', 'sampling/createMessage']);
    } finally {
      await p.close();
    }
  });

  for (const kind of ['streamableHttp', 'sse'] as const) {
    describe(kind, () => {
      let server: HttpServer;
      before(async () => { server = await startHttpEverything(kind); });
      after(async () => server?.stop());

      const direct = async (): Promise<Client> => {
        const client = new Client({ name: 'asimov-test', version: '1.0.0' }, { capabilities: {} });
        const url = new URL(server.url);
        await client.connect(kind === 'sse' ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url));
        return client;
      };

      // Streamable HTTP as given; SSE found by the fallback (the server refuses the Streamable HTTP POST).
      test(`${kind}: the same answers as the server gives directly; progress before the result`, async () => {
        const d = await direct();
        const p: Connected = await connectProxy(s, [], { proxyArgs: ['--name', 'everything', '--url', server.url] });
        try {
          await sameAnswers(d, p.client);
          await progressBeforeResult(p.client);
          if (kind === 'sse') assert.match(p.stderr(), /refused Streamable HTTP .*trying SSE/);
        } finally {
          await d.close();
          await p.close();
        }
      });

      if (kind === 'sse') {
        test('sse: --sse goes straight to SSE', async () => {
          const p = await connectProxy(s, [], { proxyArgs: ['--name', 'everything', '--url', server.url, '--sse'] });
          try {
            const r = await p.client.callTool({ name: 'echo', arguments: { message: 'sse' } });
            assert.deepEqual(r, { content: [{ type: 'text', text: 'Echo: sse' }] });
            assert.doesNotMatch(p.stderr(), /trying SSE/);
          } finally {
            await p.close();
          }
        });
      }
    });
  }
});
