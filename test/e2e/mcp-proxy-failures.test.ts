// The proxy when the upstream misbehaves (test/fixtures/flaky-mcp-server.mjs, which records every message
// it receives): dying mid-call, writing junk, hanging, being cancelled, changing a tool mid-session, not
// starting at all; and a Streamable HTTP upstream restarted under a live session. The call in flight gets
// an error result with the reason, never a hang; the next call gets a new upstream; a call is never sent
// twice unless it provably never arrived.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  BIN, FLAKY, REPO, auditLinesWith, connectProxy, makeProxyScratch, proxyEnv, recorded, startHttpEverything, waitFor, type ProxyScratch,
} from '../helpers/mcp-proxy.ts';

function text(r: any): string {
  return (r.content ?? []).map((c: any) => c.text ?? '').join('\n');
}

const FLAKY_CMD = [process.execPath, FLAKY];

describe('a misbehaving stdio upstream', () => {
  let s: ProxyScratch;
  before(() => { s = makeProxyScratch('asimov-mcp-flaky-'); });
  after(() => s.cleanup());

  const calls = (tool: string) => recorded(s.record).filter((r) => r.msg.method === 'tools/call' && r.msg.params?.name === tool);
  const initializes = () => recorded(s.record).filter((r) => r.msg.method === 'initialize');

  test('killed mid-call: an error result for that call, and the next call starts a new upstream with the same handshake', async () => {
    const before = initializes().length;
    const p = await connectProxy(s, FLAKY_CMD);
    try {
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { text: 'one' } })), 'echo: one');
      const died = await p.client.callTool({ name: 'die', arguments: {} });
      assert.equal(died.isError, true);
      assert.match(text(died), /could not get an answer from the MCP server: the upstream exited with code 3/);
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { text: 'two' } })), 'echo: two');

      const inits = initializes().slice(before);
      assert.equal(inits.length, 2, 'the handshake was replayed once');
      assert.notEqual(inits[0]!.pid, inits[1]!.pid, 'by a new process');
      assert.deepEqual(inits[1]!.msg.params, inits[0]!.msg.params, "with the client's own parameters");
      assert.ok(recorded(s.record).some((r) => r.pid === inits[1]!.pid && r.msg.method === 'notifications/initialized'));
      assert.equal(calls('die').length, 1, 'the call that may have run is not sent again');
    } finally {
      await p.close();
    }
  });

  test('junk on stdout: an error result (with a ten-minute timeout, so only the junk can end the wait), then a new upstream', async () => {
    const p = await connectProxy(s, FLAKY_CMD, { proxyArgs: ['--timeout-ms', '600000'] });
    try {
      const r = await p.client.callTool({ name: 'junk', arguments: {} }, undefined, { timeout: 600_000 });
      assert.equal(r.isError, true);
      assert.match(text(r), /wrote something that is not MCP \(this is not json at all\)/);
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { text: 'after junk' } })), 'echo: after junk');
    } finally {
      await p.close();
    }
  });

  test('a banner on stdout before the handshake is tolerated', async () => {
    const p = await connectProxy(s, FLAKY_CMD, { env: { FLAKY_BANNER: '1' } });
    try {
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { text: 'banner' } })), 'echo: banner');
      assert.match(p.stderr(), /not MCP: flaky server starting/);
    } finally {
      await p.close();
    }
  });

  test('hangs: a timeout error result, and the next call gets a restarted upstream', async () => {
    const p = await connectProxy(s, FLAKY_CMD, { proxyArgs: ['--timeout-ms', '400'] });
    try {
      const r = await p.client.callTool({ name: 'hang', arguments: {} });
      assert.equal(r.isError, true);
      assert.match(text(r), /did not answer tools\/call within 400 ms/);
      const pidBefore = calls('hang').at(-1)!.pid;
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { text: 'after hang' } })), 'echo: after hang');
      const echoPid = calls('echo').at(-1)!.pid;
      assert.notEqual(echoPid, pidBefore, 'a new process answered');
    } finally {
      await p.close();
    }
  });

  test('a cancelled call is cancelled upstream, and its late answer never reaches the client', async () => {
    const p = await connectProxy(s, FLAKY_CMD);
    const errors: string[] = [];
    p.client.onerror = (e) => errors.push(String(e));
    try {
      const ac = new AbortController();
      const pending = p.client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: ac.signal });
      const sent = await waitFor(() => calls('slow').at(-1), 'the slow call to reach the upstream');
      ac.abort('no longer needed');
      await assert.rejects(pending);
      const cancel = await waitFor(
        () => recorded(s.record).find((r) => r.msg.method === 'notifications/cancelled' && r.msg.params?.requestId === sent.msg.id),
        'the cancellation to reach the upstream',
      );
      assert.equal(cancel.pid, sent.pid);
      // The server answered the cancelled call anyway, before this one: the proxy dropped that answer.
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { text: 'next' } })), 'echo: next');
      assert.deepEqual(errors, []);
    } finally {
      await p.close();
    }
  });

  test('progress sent in the same write as the result still reaches the client first, every time', async () => {
    const p = await connectProxy(s, FLAKY_CMD);
    try {
      for (let run = 0; run < 10; run++) {
        const seen: number[] = [];
        const r = await p.client.callTool({ name: 'progress', arguments: { steps: 4 } }, undefined, { onprogress: (x) => seen.push(x.progress) });
        assert.equal(text(r), 'done 4');
        assert.deepEqual(seen, [1, 2, 3, 4], `run ${run}`);
      }
    } finally {
      await p.close();
    }
  });

  test('a tool changed mid-session (rug pull) is hidden and its calls refused', async () => {
    const p = await connectProxy(s, FLAKY_CMD);
    let changed = 0;
    p.client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
    try {
      assert.ok((await p.client.listTools()).tools.some((t) => t.name === 'echo'));
      assert.equal(text(await p.client.callTool({ name: 'rugpull', arguments: {} })), 'changed');
      await waitFor(() => changed > 0, 'tools/list_changed to reach the client');
      assert.ok(!(await p.client.listTools()).tools.some((t) => t.name === 'echo'), 'echo is hidden');
      const r = await p.client.callTool({ name: 'echo', arguments: { text: 'x' } });
      assert.equal(r.isError, true);
      assert.match(text(r), /^asimov blocked this call \[mcp\.tool-guard\]: tool "echo" changed since it was approved/);
      const echoes = calls('echo').filter((c) => c.msg.params?.arguments?.text === 'x');
      assert.equal(echoes.length, 0, 'the refused call never reached the upstream');
      await auditLinesWith(s.audit, (l) => l.rule === 'mcp.tool-guard' && l.verdict === 'deny' && l.client_tool === 'mcp__flaky__echo');
    } finally {
      await p.close();
    }
  });
});

describe("the tool guard through the proxy (GUARD's poisoned test server)", () => {
  let s: ProxyScratch;
  before(() => { s = makeProxyScratch('asimov-mcp-poisoned-'); });
  after(() => s.cleanup());
  const POISONED = join(REPO, 'test/fixtures/poisoned-mcp-server.mjs');
  const reached = (tool: string) => recorded(s.record).filter((r: any) => r.tool === tool);

  test('a poisoned tool is hidden and refused; a rug-pulled one too, until a person approves it with asimov mcp pins', async () => {
    const p = await connectProxy(s, [process.execPath, POISONED], { env: { RUG_PULL_AFTER: '1' } });
    let changed = 0;
    p.client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
    try {
      const names = (await p.client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['add', 'echo']);
      assert.match(p.stderr(), /hiding tool get_weather \(poisoned\)/);
      const weather = await p.client.callTool({ name: 'get_weather', arguments: { city: 'Paris', sidenote: 'x' } });
      assert.equal(weather.isError, true);
      assert.match(text(weather), /^asimov blocked this call \[mcp\.tool-guard\]: tool "get_weather" is hidden: its definition looks poisoned/);
      assert.equal(reached('get_weather').length, 0);

      // The first call triggers the server's rug pull: `add` changes and the server says so.
      const first = await p.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      assert.notEqual(first.isError, true, text(first));
      await waitFor(() => changed > 0, 'tools/list_changed');
      assert.deepEqual((await p.client.listTools()).tools.map((t) => t.name), ['echo']);
      const refused = await p.client.callTool({ name: 'add', arguments: { a: 2, b: 2 } });
      assert.match(text(refused), /\[mcp\.tool-guard\]: tool "add" changed since it was approved/);
      assert.equal(reached('add').length, 1, 'only the call before the change reached the server');

      // A person approves the new definition: the next call goes through, in the same session.
      const serverId = `${process.execPath} ${POISONED}`;
      const approve = spawnSync(process.execPath, [BIN, 'mcp', 'pins', 'approve', serverId, 'add'], { env: proxyEnv(s), encoding: 'utf8' });
      assert.equal(approve.status, 0, approve.stderr);
      const approved = await p.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      assert.notEqual(approved.isError, true, text(approved));
      assert.equal(reached('add').length, 2);
    } finally {
      await p.close();
    }
  });
});

describe('a broken policy', () => {
  let s: ProxyScratch;
  before(() => { s = makeProxyScratch('asimov-mcp-broken-', 'version: 1\nrules:\n  no.such-rule: allow\n'); });
  after(() => s.cleanup());

  test('every call is refused, naming the file, and none reaches the upstream', async () => {
    const p = await connectProxy(s, FLAKY_CMD);
    try {
      const r = await p.client.callTool({ name: 'echo', arguments: { text: 'x' } });
      assert.equal(r.isError, true);
      assert.match(text(r), /^asimov blocked this call: The asimov policy is broken, so every call is refused until it is fixed: .*policy\.yaml/);
      assert.equal(recorded(s.record).filter((m) => m.msg.method === 'tools/call').length, 0);
    } finally {
      await p.close();
    }
  });
});

/** Starts the proxy by hand, sends one initialize, and collects its answer, stderr and exit status. */
async function rawProxy(s: ProxyScratch, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'mcp', 'proxy', ...args], { cwd: s.project, env: proxyEnv(s), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  child.stdin.on('error', () => {});
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  return { code, stdout, stderr };
}

describe('an upstream that cannot start', () => {
  let s: ProxyScratch;
  before(() => { s = makeProxyScratch('asimov-mcp-nostart-'); });
  after(() => s.cleanup());

  test('a missing command: the client gets an error for initialize, the reason goes to stderr, exit 1', async () => {
    const r = await rawProxy(s, ['--', '/nonexistent/mcp-server']);
    assert.equal(r.code, 1);
    const reply = JSON.parse(r.stdout.trim());
    assert.equal(reply.id, 1);
    assert.match(reply.error.message, /could not be started: .*\/nonexistent\/mcp-server.*ENOENT/);
    assert.match(r.stderr, /ENOENT/);
  });

  test('a server that exits at once: the same', async () => {
    const r = await rawProxy(s, ['--', process.execPath, '-e', 'process.exit(7)']);
    assert.equal(r.code, 1);
    assert.match(JSON.parse(r.stdout.trim()).error.message, /exited with code 7/);
  });

  test('usage errors: no upstream, both kinds, bad values', async () => {
    for (const [args, want] of [
      [[], /no upstream given/],
      [['--url', 'http://127.0.0.1:1/mcp', '--', 'x'], /either --url or a command/],
      [['--timeout-ms', 'soon', '--', 'x'], /--timeout-ms must be/],
      [['--name', 'a__b', '--', 'x'], /--name must be/],
      [['--url', 'ftp://x'], /must be http/],
      [['--sse', '--', 'x'], /apply to --url only/],
    ] as const) {
      const child = spawn(process.execPath, [BIN, 'mcp', 'proxy', ...args], { cwd: s.project, env: proxyEnv(s) });
      let err = '';
      child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
      const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
      assert.equal(code, 1, args.join(' '));
      assert.match(err, want);
    }
  });
});

describe('a Streamable HTTP upstream that restarts', () => {
  let s: ProxyScratch;
  before(() => { s = makeProxyScratch('asimov-mcp-http-restart-'); });
  after(() => s.cleanup());

  test('down: an error result; back up (its sessions forgotten): the next calls work on a new session', async () => {
    let server = await startHttpEverything('streamableHttp');
    const p = await connectProxy(s, [], { proxyArgs: ['--name', 'everything', '--url', server.url] });
    try {
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { message: 'one' } })), 'Echo: one');
      await server.stop();
      const down = await p.client.callTool({ name: 'echo', arguments: { message: 'down' } });
      assert.equal(down.isError, true);
      assert.match(text(down), /could not get an answer from the MCP server/);

      server = await startHttpEverything('streamableHttp', server.port);
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { message: 'two' } })), 'Echo: two');

      // Restarted again between two calls: whether the proxy sees its stream drop first or the server refuses the
      // old session (test/adapters/mcp/upstream.test.ts covers that path exactly), the next call works.
      await server.stop();
      server = await startHttpEverything('streamableHttp', server.port);
      assert.equal(text(await p.client.callTool({ name: 'echo', arguments: { message: 'three' } })), 'Echo: three');
    } finally {
      await p.close();
      await server.stop();
    }
  });
});
