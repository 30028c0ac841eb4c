// Tests for the relay's reading of the client's side (src/adapters/mcp/proxy.ts): a stream (the proxy's stdin) and
// any other async iterable carry the same messages, and the proxy ends when the client's side ends. A real
// server-everything over stdio is the upstream; the relay runs as a pass-through (no firewall).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { runProxy } from '../../../src/adapters/mcp/proxy.ts';
import { EVERYTHING, waitFor } from '../../helpers/mcp-proxy.ts';
import { makeScratch } from '../../helpers/claude-cli.ts';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const ECHO = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'héllo' } } };

/** Feeds bytes to the relay; `end` closes the client's side. */
interface Feed {
  input: AsyncIterable<string | Buffer>;
  send(chunk: Buffer): void;
  end(): void;
}

function streamFeed(): Feed {
  const s = new PassThrough();
  return { input: s, send: (b) => s.write(b), end: () => s.end() };
}

/** An async generator: what the relay reads when stdin is a regular file. */
function generatorFeed(): Feed {
  const queue: Array<Buffer | null> = [];
  let wake: (() => void) | undefined;
  const push = (v: Buffer | null): void => {
    queue.push(v);
    wake?.();
  };
  async function* gen(): AsyncGenerator<Buffer> {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((r) => { wake = r; });
      const v = queue.shift()!;
      if (v === null) return;
      yield v;
    }
  }
  return { input: gen(), send: (b) => push(b), end: () => push(null) };
}

async function relayOnce(feed: Feed): Promise<void> {
  const scratch = makeScratch('asimov-proxy-read-');
  try {
    const out: any[] = [];
    const done = runProxy({
      upstream: { kind: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], cwd: scratch.project, env: { PATH: process.env.PATH ?? '', HOME: scratch.home } },
      input: feed.input,
      output: (text) => { for (const l of text.split('\n')) if (l !== '') out.push(JSON.parse(l)); },
      log: () => {},
    });
    // Messages split across chunks, one of them inside a character, still arrive whole.
    const init = Buffer.from(`${JSON.stringify(INITIALIZE)}\n`);
    feed.send(init.subarray(0, 10));
    feed.send(init.subarray(10));
    await waitFor(() => out.find((m) => m.id === 1), 'the answer to initialize');
    const echo = Buffer.from(`${JSON.stringify(INITIALIZED)}\n${JSON.stringify(ECHO)}\n`);
    const cut = echo.indexOf(Buffer.from('é')) + 1; // between the two bytes of é
    feed.send(echo.subarray(0, cut));
    feed.send(echo.subarray(cut));
    const reply = await waitFor(() => out.find((m) => m.id === 2), 'the answer to the echo call');
    assert.equal(reply.result.content[0].text, 'Echo: héllo');
    feed.end();
    assert.equal(await done, 0);
  } finally {
    scratch.cleanup();
  }
}

describe('the relay reads the client', () => {
  test('from a stream, and ends when the stream ends', async () => {
    await relayOnce(streamFeed());
  });

  test('from an async iterable that is not a stream, and ends when it does', async () => {
    await relayOnce(generatorFeed());
  });
});
