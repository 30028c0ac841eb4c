// The upstream link on its own: a stdio server that misbehaves on request (test/fixtures/flaky-mcp-server.mjs)
// and a minimal Streamable HTTP server written here, whose sessions can be forgotten at will, so that the
// retry rule is checked exactly: a request is sent again only when it provably never arrived.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelToken, createUpstream, UpstreamFailure, type Upstream, type UpstreamHandlers, type UpstreamSpec } from '../../../src/adapters/mcp/upstream.ts';
import { FLAKY, recorded } from '../../helpers/mcp-proxy.ts';

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'upstream-test', version: '1' } };

function handlers(logs: string[] = []): UpstreamHandlers {
  return { onRequest: () => {}, onNotification: () => {}, onReconnect: () => {}, log: (l) => logs.push(l) };
}

async function failure(p: Promise<unknown>): Promise<UpstreamFailure> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof UpstreamFailure, String(e));
    return e;
  }
  assert.fail('expected the request to fail');
}

describe('stdio upstream', () => {
  let dir: string;
  let record: string;
  let spec: Extract<UpstreamSpec, { kind: 'stdio' }>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'asimov-upstream-'));
    record = join(dir, 'record.jsonl');
    spec = { kind: 'stdio', command: process.execPath, args: [FLAKY], cwd: dir, env: { PATH: process.env.PATH ?? '', RECORDER_FILE: record } };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const pids = () => [...new Set(recorded(record).map((r) => r.pid))];

  test('a dead upstream fails the call in flight, and the next request restarts it with the handshake and session state replayed', async () => {
    const up = createUpstream(spec, { handlers: handlers() });
    try {
      await up.start();
      const init = await up.initialize(INIT);
      assert.equal((init.result?.['serverInfo'] as { name: string }).name, 'flaky');
      up.initialized(undefined);
      await up.request('logging/setLevel', { level: 'debug' });
      const died = await failure(up.request('tools/call', { name: 'die', arguments: {} }));
      assert.equal(died.kind, 'closed');
      assert.match(died.message, /exited with code 3/);
      const ok = await up.request('tools/call', { name: 'echo', arguments: { text: 'again' } });
      assert.deepEqual(ok.result, { content: [{ type: 'text', text: 'echo: again' }] });
      const [first, second] = pids();
      assert.ok(first !== undefined && second !== undefined && first !== second);
      const replayed = recorded(record).filter((r) => r.pid === second).map((r) => r.msg.method);
      assert.deepEqual(replayed, ['initialize', 'notifications/initialized', 'logging/setLevel', 'tools/call']);
    } finally {
      await up.close();
    }
  });

  test('no answer within the timeout: a timeout failure; cancellation: a cancelled failure and notifications/cancelled upstream', async () => {
    const up = createUpstream(spec, { timeoutMs: 300, handlers: handlers() });
    try {
      await up.initialize(INIT);
      const hung = await failure(up.request('tools/call', { name: 'hang', arguments: {} }));
      assert.equal(hung.kind, 'timeout');
      const cancel = new CancelToken();
      const slow = up.request('tools/call', { name: 'slow', arguments: {} }, { cancel });
      const sent = await waitForRecord(record, (r) => r.msg.params?.name === 'slow');
      cancel.cancel('enough');
      assert.equal((await failure(slow)).kind, 'cancelled');
      await waitForRecord(record, (r) => r.msg.method === 'notifications/cancelled' && r.msg.params?.requestId === sent.msg.id && r.msg.params?.reason === 'enough');
    } finally {
      await up.close();
    }
  });

  test('a command that does not exist: start() rejects with the reason', async () => {
    const up = createUpstream({ ...spec, command: join(dir, 'no-such-server') }, { handlers: handlers() });
    const e = await failure(up.start());
    assert.equal(e.kind, 'unreachable');
    assert.match(e.message, /ENOENT/);
    await up.close();
  });
});

async function waitForRecord(file: string, pred: (r: { pid: number; msg: any }) => boolean) {
  for (let i = 0; i < 1200; i++) {
    const hit = recorded(file).find(pred);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('never recorded');
}

/**
 * Streamable HTTP at its simplest: JSON answers, no GET stream (405), session ids it can forget (as a
 * restarted server does), and a log of every request it received with the session it came with.
 */
function fakeHttpServer() {
  const sessions = new Set<string>();
  const received: Array<{ method: string; session: string | undefined; status: number }> = [];
  let n = 0;
  let failNext: number | null = null;
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const msg = JSON.parse(body);
      const session = req.headers['mcp-session-id'] as string | undefined;
      const reply = (status: number, headers: Record<string, string> = {}, payload?: unknown) => {
        received.push({ method: msg.method ?? 'response', session, status });
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(payload === undefined ? undefined : JSON.stringify(payload));
      };
      if (msg.method === 'initialize') {
        const id = `s${++n}`;
        sessions.add(id);
        return reply(200, { 'mcp-session-id': id }, { jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } } });
      }
      if (!session || !sessions.has(session)) return reply(404, {}, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32001, message: 'Session not found' } });
      if (msg.id === undefined) return reply(202);
      if (failNext !== null) {
        const status = failNext;
        failNext = null;
        return reply(status, {}, { jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: 'boom' } });
      }
      return reply(200, {}, { jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: `${msg.params?.name} in ${session}` }] } });
    });
  });
  return {
    received,
    forgetSessions: () => sessions.clear(),
    failNextWith: (status: number) => { failNext = status; },
    listen: () => new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`))),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe('Streamable HTTP upstream', () => {
  test('a session the server forgot: the request provably never ran, so it is sent again once on a new session', async () => {
    const fake = fakeHttpServer();
    const url = await fake.listen();
    const logs: string[] = [];
    const up: Upstream = createUpstream({ kind: 'http', url, sse: false, headers: { 'x-test': 'yes' } }, { handlers: handlers(logs) });
    try {
      await up.initialize(INIT);
      up.initialized(undefined);
      const first = await up.request('tools/call', { name: 'a', arguments: {} });
      assert.deepEqual(first.result, { content: [{ type: 'text', text: 'a in s1' }] });
      fake.forgetSessions();
      const again = await up.request('tools/call', { name: 'b', arguments: {} });
      assert.deepEqual(again.result, { content: [{ type: 'text', text: 'b in s2' }] });
      const calls = fake.received.filter((r) => r.method === 'tools/call').map((r) => `${r.session} ${r.status}`);
      assert.deepEqual(calls, ['s1 200', 's1 404', 's2 200'], 'refused once on the old session, run once on the new one');
      assert.ok(logs.some((l) => /never reached the upstream .*sending it again/.test(l)), logs.join('\n'));
    } finally {
      await up.close();
      await fake.close();
    }
  });

  test('a server error after the request arrived is not retried', async () => {
    const fake = fakeHttpServer();
    const url = await fake.listen();
    const up = createUpstream({ kind: 'http', url, sse: false, headers: {} }, { handlers: handlers() });
    try {
      await up.initialize(INIT);
      fake.failNextWith(500);
      const e = await failure(up.request('tools/call', { name: 'x', arguments: {} }));
      assert.equal(e.kind, 'unreachable');
      assert.equal(e.neverArrived, false);
      assert.equal(fake.received.filter((r) => r.method === 'tools/call').length, 1, 'sent once');
    } finally {
      await up.close();
      await fake.close();
    }
  });

  test('a server that is gone: connection refused, one reconnect attempt, then a failure naming it', async () => {
    const fake = fakeHttpServer();
    const url = await fake.listen();
    const up = createUpstream({ kind: 'http', url, sse: false, headers: {} }, { handlers: handlers() });
    try {
      await up.initialize(INIT);
      await fake.close();
      const e = await failure(up.request('tools/call', { name: 'x', arguments: {} }));
      assert.equal(e.kind, 'unreachable');
      assert.match(e.message, /ECONNREFUSED/);
    } finally {
      await up.close();
    }
  });
});
