// The proxy's command line: the upstream after `--` or after the proxy's own options, --url with its
// headers, and what is refused.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../../src/core/errors.ts';
import { parseProxyArgs } from '../../../src/adapters/mcp/proxy-args.ts';

test('the upstream command, with or without --', () => {
  assert.deepEqual(parseProxyArgs(['--name', 'fs', '--timeout-ms', '5000', '--', 'npx', '-y', 'server', '--flag']), {
    name: 'fs', timeoutMs: 5000, sse: false, headers: {}, passthrough: false, command: ['npx', '-y', 'server', '--flag'],
  });
  const relay = parseProxyArgs(['--passthrough', '--', 'node', 'server.js']);
  assert.ok(relay !== 'help');
  assert.equal(relay.passthrough, true);
  // Launchers such as the MCP Inspector take the first `--` for themselves.
  const bare = parseProxyArgs(['--cwd', '/p', 'node', 'server.js', '--', 'x']);
  assert.ok(bare !== 'help');
  assert.deepEqual(bare.command, ['node', 'server.js', '--', 'x']);
  assert.equal(parseProxyArgs(['-h']), 'help');
});

test('--url with --sse and headers', () => {
  assert.deepEqual(parseProxyArgs(['--url', 'https://h/mcp', '--sse', '--header', 'Authorization: Bearer x', '--header', 'X-A:b']), {
    timeoutMs: 60000, sse: true, url: 'https://h/mcp', headers: { Authorization: 'Bearer x', 'X-A': 'b' }, passthrough: false,
  });
});

test('refused, with what is wrong', () => {
  const cases: Array<[string[], RegExp]> = [
    [[], /no upstream given/],
    [['--'], /no command after --/],
    [['--name'], /--name needs a value/],
    [['--name', 'a b', 'x'], /--name must be/],
    [['--timeout-ms', '0', 'x'], /--timeout-ms must be/],
    [['--url', 'x'], /not a URL/],
    [['--url', 'file:///x'], /must be http/],
    [['--url', 'http://h', 'node'], /either --url or a command/],
    [['--header', 'nocolon', '--url', 'http://h'], /--header must look like/],
    [['--bogus', 'x'], /unknown option --bogus/],
  ];
  for (const [argv, want] of cases) {
    assert.throws(() => parseProxyArgs(argv), (e: unknown) => e instanceof AsimovError && e.code === 'usage' && want.test(e.message), argv.join(' '));
  }
});
