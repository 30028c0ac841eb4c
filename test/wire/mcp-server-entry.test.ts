// asimov's gated tools as `mcpServers.asimov` in a client's JSON: added, left alone, updated for a moved
// install, never overwriting another server of that name, and removed giving back the file's own bytes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import { isToolsServerLaunch, planMcpServerEntry, toolsServerLaunch, type McpEntryPlanOptions } from '../../src/wire/mcp-server-entry.ts';

const launch = toolsServerLaunch('/opt/node/bin/node', '/opt/asimov/bin/asimov.cjs');
const base: McpEntryPlanOptions = {
  serversPath: ['mcpServers'],
  entry: { command: launch.command, args: launch.args },
  launchOf: (e) => e as { command: unknown; args: unknown },
  dialect: { comments: true },
  uninstall: false,
  file: '/h/settings.json',
};

test('recognises asimov\'s tools by what they run, from any install', () => {
  assert.ok(isToolsServerLaunch('/usr/bin/node', ['/x/y/bin/asimov.cjs', 'mcp', 'tools', '--root', '/r']));
  assert.ok(!isToolsServerLaunch('/usr/bin/node', ['/x/y/bin/asimov.cjs', 'mcp', 'proxy']));
  assert.ok(!isToolsServerLaunch('/usr/bin/node', ['/x/asimov-evil.cjs', 'mcp', 'tools']));
  assert.ok(!isToolsServerLaunch(undefined, ['/x/bin/asimov.cjs', 'mcp', 'tools']));
});

test('into a person\'s file with comments and other servers; twice is once; uninstall restores the bytes', () => {
  const own = '{\n    // mine\n    "theme": "dark",\n    "mcpServers": {\n        "github": { "command": "gh-mcp" }\n    }\n}\n';
  const once = planMcpServerEntry(own, base);
  assert.deepEqual(once.changes, ['added MCP server mcpServers.asimov (asimov mcp tools)']);
  assert.ok(once.text!.includes('    // mine\n'), once.text!);
  assert.ok(once.text!.includes('        "asimov": {\n'), 'the file\'s own indentation: ' + once.text!);
  assert.deepEqual(planMcpServerEntry(once.text, base), { text: once.text, changes: [] });
  assert.equal(planMcpServerEntry(once.text, { ...base, uninstall: true, entry: null }).text, own);
});

test('a new file, and uninstall of it removes what it created', () => {
  const made = planMcpServerEntry(null, base);
  assert.equal(made.text, `{\n  "mcpServers": {\n    "asimov": {\n      "command": "/opt/node/bin/node",\n      "args": [\n        "/opt/asimov/bin/asimov.cjs",\n        "mcp",\n        "tools"\n      ]\n    }\n  }\n}\n`);
  assert.equal(planMcpServerEntry(made.text, { ...base, uninstall: true, entry: null }).text, '{}\n');
  assert.deepEqual(planMcpServerEntry(null, { ...base, uninstall: true, entry: null }), { text: null, changes: [] });
});

test('an entry of a moved install is updated; someone else\'s "asimov" is refused and kept', () => {
  const old = JSON.stringify({ mcpServers: { asimov: { command: '/old/node', args: ['/old/bin/asimov.cjs', 'mcp', 'tools'] } } }, null, 2);
  const r = planMcpServerEntry(old, base);
  assert.deepEqual(r.changes, ['updated MCP server mcpServers.asimov (asimov mcp tools)']);
  assert.deepEqual(JSON.parse(r.text!).mcpServers.asimov, base.entry);
  const theirs = JSON.stringify({ mcpServers: { asimov: { command: 'npx', args: ['some-asimov-server'] } } });
  assert.throws(() => planMcpServerEntry(theirs, base), (e: unknown) => e instanceof AsimovError && /another server, not asimov's tools/.test(e.message));
  assert.deepEqual(planMcpServerEntry(theirs, { ...base, uninstall: true, entry: null }), { text: theirs, changes: [] });
});

test('a file the client could not read is refused with its line and column', () => {
  assert.throws(() => planMcpServerEntry('{\n  "mcpServers": {,\n}', base), (e: unknown) => e instanceof AsimovError && e.code === 'wire_settings_invalid' && /:2:/.test(e.toString()));
});
