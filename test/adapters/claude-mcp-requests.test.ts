// Claude Code's tools that reach MCP servers outside tools/call: `SlashCommand` naming an MCP prompt
// (`/mcp__<server>__<prompt> args`) and `ReadMcpResourceTool` ({server, uri}). The hook judges them as the
// prompts/get and resources/read they send, with the built-in policy, and replies in Claude Code's form.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claudeReply, claudeToolCall, parseClaudePayload, type ClaudePayload } from '../../src/adapters/claude.ts';
import { createGate } from '../../src/gate/gate.ts';
import { makeScratch } from '../helpers/claude-cli.ts';

const scratch = makeScratch('asimov-claude-mcp-');
after(() => scratch.cleanup());
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch.home };
const gate = createGate({ env, home: scratch.home, audit: false });

function payload(tool_name: string, tool_input: Record<string, unknown>): ClaudePayload {
  const p = parseClaudePayload({ session_id: 's', cwd: scratch.project, hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: 't' }, '/');
  assert.equal(typeof p, 'object', String(p));
  return p as ClaudePayload;
}

function decide(tool: string, input: Record<string, unknown>) {
  const p = payload(tool, input);
  const d = gate.decideStatic(claudeToolCall(p));
  const reply = JSON.parse(claudeReply(p, d, 'approve').stdout || '{}');
  return { d, decision: reply.hookSpecificOutput?.permissionDecision as string | undefined, call: claudeToolCall(p) };
}

describe('SlashCommand naming an MCP prompt', () => {
  test('becomes the prompts/get it sends, keeping the client\'s tool name for the audit', () => {
    const { call } = decide('SlashCommand', { command: '/mcp__commands__run_command git status' });
    assert.equal(call.tool, 'mcp');
    assert.equal(call.clientTool, 'SlashCommand');
    assert.deepEqual(call.input, { server: 'commands', name: 'run_command', arguments: { 1: 'git', 2: 'status' }, text: 'git status' });
  });
  test('a prompt that runs commands is judged by the command: denied for rm -rf ~', () => {
    const r = decide('SlashCommand', { command: '/mcp__commands__run_command rm -rf ~' });
    assert.equal(r.decision, 'deny');
    assert.equal(r.d.rule, 'mcp.carried-command');
  });
  test('the same prompt with a harmless command is allowed', () => {
    assert.equal(decide('SlashCommand', { command: '/mcp__commands__run_command git status' }).decision, 'allow');
  });
  test('a prompt argument naming a private key is not allowed', () => {
    assert.notEqual(decide('SlashCommand', { command: '/mcp__docs__summarize ~/.ssh/id_rsa' }).decision, 'allow');
  });
  test('slash commands that are not MCP prompts stay Claude Code\'s own', () => {
    for (const command of ['/compact', '/review-pr 123', '/mcp']) {
      const { call, decision } = decide('SlashCommand', { command });
      assert.equal(call.tool, 'SlashCommand');
      assert.equal(decision, 'allow', command);
    }
  });
});

describe('ReadMcpResourceTool', () => {
  test('a private key as a file resource is not allowed; a server\'s own resource is', () => {
    const key = decide('ReadMcpResourceTool', { server: 'fs', uri: `file://${scratch.home}/.ssh/id_rsa` });
    assert.notEqual(key.decision, 'allow');
    assert.equal(key.d.rule, 'file.read-credentials');
    assert.equal(decide('ReadMcpResourceTool', { server: 'everything', uri: 'test://static/resource/1' }).decision, 'allow');
  });
  test('a command URI is judged as the command', () => {
    assert.equal(decide('ReadMcpResourceTool', { server: 'sh', uri: 'shell://rm%20-rf%20~' }).decision, 'deny');
  });
  test('without a URI nothing can be judged, so it is not allowed', () => {
    assert.notEqual(decide('ReadMcpResourceTool', { server: 'fs' }).decision, 'allow');
  });
});
