// The pieces the gate points of MCP requests stand on: how a request becomes a call (call-mapping.ts), which
// arguments a tool's schema does not declare (firewall.ts), the local file a resource URI names and the
// commands a shell tool's arguments amount to (policy/rules/mcp.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { toRequestCall, toToolCall } from '../../../src/adapters/mcp/call-mapping.ts';
import { undeclaredArguments } from '../../../src/adapters/mcp/firewall.ts';
import { resourceFilePath, shellLine } from '../../../src/policy/rules/mcp.ts';
import { mcpRequestKind, normalizeTool } from '../../../src/core/tools.ts';

const ctx = { server: 'srv', cwd: '/p', projectRoot: '/p', sessionId: 's' };

describe('toRequestCall', () => {
  test('a prompts/get is the MCP call mcp__<server>__prompts/get with its params (without _meta) as the input', () => {
    const call = toRequestCall('prompts/get', { name: 'run_command', arguments: { command: 'ls' }, _meta: { progressToken: 1 } }, ctx, '7');
    assert.deepEqual(call, { tool: 'mcp', clientTool: 'mcp__srv__prompts/get', input: { name: 'run_command', arguments: { command: 'ls' } }, cwd: '/p', agent: 'mcp-proxy', callId: '7', projectRoot: '/p', sessionId: 's' });
  });
  test('params that are not an object give an empty input (nothing to allow on)', () => {
    assert.deepEqual(toRequestCall('resources/read', ['x'], ctx, '1').input, {});
  });
  test('the method names are recognised, real tool names are not', () => {
    assert.equal(mcpRequestKind('prompts/get'), 'prompt');
    assert.equal(mcpRequestKind('resources/read'), 'resource');
    assert.equal(mcpRequestKind('completion/complete'), 'completion');
    assert.equal(mcpRequestKind('get_prompt'), null);
    assert.equal(mcpRequestKind('toString'), null);
  });
});

describe('undeclaredArguments', () => {
  const def = (schema: unknown) => ({ name: 't', inputSchema: schema });
  const props = { command: { type: 'string' }, workdir: { type: 'string' } };
  test('a key the properties do not list is undeclared', () => {
    assert.deepEqual(undeclaredArguments(def({ type: 'object', properties: props }), { command: 'ls', cmd: 'rm -rf ~' }), ['cmd']);
    assert.deepEqual(undeclaredArguments(def({ type: 'object', properties: props, additionalProperties: false }), { command: 'ls', extra: 1 }), ['extra']);
  });
  test('declared keys, additionalProperties true or a schema, matching patternProperties, and schemas without properties admit all', () => {
    assert.deepEqual(undeclaredArguments(def({ type: 'object', properties: props }), { command: 'ls', workdir: '/p' }), []);
    assert.deepEqual(undeclaredArguments(def({ type: 'object', properties: props, additionalProperties: true }), { cmd: 'x' }), []);
    assert.deepEqual(undeclaredArguments(def({ type: 'object', properties: props, additionalProperties: { type: 'string' } }), { cmd: 'x' }), []);
    assert.deepEqual(undeclaredArguments(def({ type: 'object', properties: props, patternProperties: { '^x-': {} } }), { 'x-trace': '1' }), []);
    assert.deepEqual(undeclaredArguments(def({ type: 'object' }), { anything: 1 }), []);
    assert.deepEqual(undeclaredArguments(undefined, { anything: 1 }), []);
  });
  test('inherited names are not declarations', () => {
    assert.deepEqual(undeclaredArguments(def({ type: 'object', properties: props }), { constructor: 'x', toString: 'y' }), ['constructor', 'toString']);
  });
});

describe('shellLine: every command-like argument is judged', () => {
  test('the primary command, then the other command-like arguments as lines of their own', () => {
    assert.equal(shellLine({ command: 'ls', cmd: 'rm -rf ~' }, 'command'), 'ls\nrm -rf ~');
    assert.equal(shellLine({ command: 'ls', script: 'curl x | sh', commandLine: ['rm', '-rf', '/'] }, 'command'), 'ls\ncurl x | sh\nrm -rf /');
  });
  test('a lone command is unchanged, argv and stdin still apply', () => {
    assert.equal(shellLine({ command: 'ls' }, 'command'), 'ls');
    assert.equal(shellLine({ command: 'git', args: ['log', '-1'] }, 'command'), 'git log -1');
    assert.match(shellLine({ command: 'python3', stdin: 'print(1)' }, 'command')!, /<<'ASIMOV_STDIN'\nprint\(1\)\nASIMOV_STDIN$/);
  });
  test('the proxy judges both keys of the issue\'s case', () => {
    const call = toToolCall('run_command', { cmd: 'rm -rf ~', command: 'ls' }, undefined, ctx, '1');
    assert.equal(call.tool, 'shell');
    assert.equal(call.input['command'], 'ls\nrm -rf ~');
  });
});

describe('resourceFilePath', () => {
  test('file URIs and empty-authority absolute paths name local files, percent-decoded', () => {
    assert.equal(resourceFilePath('file:///home/u/.ssh/id_rsa'), '/home/u/.ssh/id_rsa');
    assert.equal(resourceFilePath('file://localhost/etc/shadow'), '/etc/shadow');
    assert.equal(resourceFilePath('file:/home/u/.ssh/id_rsa'), '/home/u/.ssh/id_rsa');
    assert.equal(resourceFilePath('FILE:///home/u/.ssh/id_rsa#x'), '/home/u/.ssh/id_rsa');
    assert.equal(resourceFilePath('file:///home/u/%2Essh/id_rsa'), '/home/u/.ssh/id_rsa');
    assert.equal(resourceFilePath('git:///home/u/repo'), '/home/u/repo');
    assert.equal(resourceFilePath('file://server/share/x'), '/share/x');
  });
  test('a server\'s own names and network URLs are not local files', () => {
    assert.equal(resourceFilePath('test://static/resource/1'), null);
    assert.equal(resourceFilePath('https://example.com/a'), null);
    assert.equal(resourceFilePath('not a uri'), null);
  });
});

describe('Claude Code names', () => {
  test('SlashCommand with an MCP prompt, with Claude Code\'s (MCP) marker', () => {
    const n = normalizeTool('SlashCommand', { command: '/mcp__commands__run_command (MCP) ls -la' });
    assert.deepEqual(n, { tool: 'mcp', known: true, mcp: { server: 'commands', tool: 'prompts/get' }, input: { server: 'commands', name: 'run_command', arguments: { 1: 'ls', 2: '-la' }, text: 'ls -la' } });
  });
  test('ReadMcpResourceTool is that server\'s resources/read; other slash commands stay internal', () => {
    assert.deepEqual(normalizeTool('ReadMcpResourceTool', { server: 'fs', uri: 'file:///x' }), { tool: 'mcp', known: true, mcp: { server: 'fs', tool: 'resources/read' } });
    assert.deepEqual(normalizeTool('SlashCommand', { command: '/compact' }), { tool: 'SlashCommand', known: true });
  });
});
