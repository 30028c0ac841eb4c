// The parts of the scanner that need no server: finding the upstream behind an `asimov mcp proxy` entry,
// the exit status, and a text report that a hostile server cannot use to write to the terminal.
// (Scans of real servers: test/cli/mcp-scan-cmd.test.ts.)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerEntry } from '../../../src/adapters/mcp/client-configs.ts';
import { formatScanText, scanExitCode, upstreamOf, type ScanReport } from '../../../src/adapters/mcp/scan.ts';

const base: ServerEntry = { client: 'claude-code', file: '/h/.claude.json', name: 's', scope: 'user', transport: 'stdio' };

describe('the upstream of a proxied entry', () => {
  test('a command after --', () => {
    const r = upstreamOf({ ...base, command: 'npx', args: ['asimov', 'mcp', 'proxy', '--timeout-ms', '5000', '--', 'node', 'srv.js', '--', 'x'], env: { K: 'v' } });
    assert.equal(r.viaProxy, true);
    assert.deepEqual([r.entry.command, r.entry.args, r.entry.env], ['node', ['srv.js', '--', 'x'], { K: 'v' }]);
  });

  test('a URL, with the proxy\'s --sse and --header options', () => {
    const http = upstreamOf({ ...base, command: '/usr/local/bin/asimov', args: ['mcp', 'proxy', '--url', 'https://x.example/mcp', '--header', 'Authorization: Bearer t'] });
    assert.deepEqual(http.entry, { ...base, transport: 'http', url: 'https://x.example/mcp', headers: { Authorization: 'Bearer t' }, transportGuessed: true });
    const sse = upstreamOf({ ...base, command: 'node', args: ['/opt/asimov/bin/asimov.cjs', 'mcp', 'proxy', '--sse', '--url', 'http://127.0.0.1:1/sse'] });
    assert.deepEqual([sse.entry.transport, sse.entry.url, sse.entry.transportGuessed], ['sse', 'http://127.0.0.1:1/sse', undefined]);
  });

  test('behind --passthrough: scanned as its upstream, but not guarded by the proxy', () => {
    const r = upstreamOf({ ...base, command: 'npx', args: ['-y', 'asimov-firewall', 'mcp', 'proxy', '--passthrough', '--', 'node', 'srv.js'] });
    assert.deepEqual([r.entry.command, r.entry.args, r.viaProxy], ['node', ['srv.js'], false]);
    const guarded = upstreamOf({ ...base, command: 'npx', args: ['-y', 'asimov-firewall@0.1.0', 'mcp', 'proxy', '--', 'node', 'srv.js'] });
    assert.equal(guarded.viaProxy, true);
  });

  test('anything else is its own upstream', () => {
    for (const e of [
      { ...base, command: 'node', args: ['srv.js', 'mcp', 'proxy'] },
      { ...base, command: 'asimov', args: ['mcp', 'tools'] },
      { ...base, transport: 'http' as const, url: 'http://x/mcp' },
    ]) assert.deepEqual(upstreamOf(e), { entry: e, viaProxy: false });
  });
});

function report(over: Partial<ScanReport['summary']> = {}, pinError?: string): ScanReport {
  return {
    servers: [],
    notes: [],
    pinStore: { path: '/p', ...(pinError ? { error: pinError } : {}) },
    summary: { servers: 0, failed: 0, skipped: 0, tools: 0, blocked: 0, changed: 0, warned: 0, ...over },
  };
}

describe('exit status', () => {
  test('2 for a blocked or changed tool (even when something also failed), 1 for failures, else 0', () => {
    assert.equal(scanExitCode(report({ blocked: 1, failed: 1 })), 2);
    assert.equal(scanExitCode(report({ changed: 1 })), 2);
    assert.equal(scanExitCode(report({ failed: 1 })), 1);
    assert.equal(scanExitCode(report({}, 'corrupt')), 1);
    assert.equal(scanExitCode(report({ warned: 3, skipped: 2 })), 0);
  });
});

describe('the text report', () => {
  test('what a server chose to call things cannot reach the terminal as control characters', () => {
    const r = report({ servers: 1, tools: 1, blocked: 1 });
    r.servers.push({
      client: 'cursor', file: '/h/.cursor/mcp.json', name: 'evil\x1b]0;pwned\x07', scope: 'user', transport: 'stdio', target: 'node evil.js', serverId: 'node evil.js',
      status: 'ok', server: { name: 'x\x1b[2J', version: '1\u202E' },
      tools: [{ name: 'add\x1b[1A\r', hash: 'a'.repeat(64), pin: 'new', hidden: true, findings: [{ kind: 'invisible-characters', severity: 'block', detail: 'bad \x1b[31mred', where: '$.inputSchema.properties["\u202Ex"]' }] }],
    });
    const text = formatScanText(r);
    assert.doesNotMatch(text, /[\x00-\x08\x0B-\x1F\x7F\u202E]/);
    assert.match(text, /server "evil\\u\{1b\}\]0;pwned\\u\{7\}"/);
    assert.match(text, /BLOCK {3}add\\u\{1b\}\[1A  /, 'a carriage return becomes a space');
  });
});
