// Real MCP clients through `asimov mcp proxy`: the MCP Inspector CLI, and the Claude Code CLI with
// `--mcp-config` naming the proxy in front of mcp-server-commands (a scripted model on 127.0.0.1 proposes
// the calls; no asimov hook is installed, so the proxy alone decides). A blocked call's effect is absent and
// its reason is what the model is told; an allowed call's result is what the server gave.
//
// The blocked command writes the scratch HOME's ~/.bashrc: harmless even if the proxy failed.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { startAnthropicServer } from '../helpers/anthropic-server.ts';
import { runClaude } from '../helpers/claude-cli.ts';
import { BIN, COMMANDS, EVERYTHING, INSPECTOR, makeProxyScratch, proxyEnv, type ProxyScratch } from '../helpers/mcp-proxy.ts';

async function run(cmd: string, args: string[], o: { cwd: string; env: Record<string, string> }): Promise<{ code: number | null; out: string; err: string }> {
  const r = await runCli(cmd, args, o);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('MCP Inspector CLI through the proxy', () => {
  let s: ProxyScratch;
  before(() => { s = makeProxyScratch('asimov-mcp-inspector-'); });
  after(() => s.cleanup());

  // The Inspector takes the first `--` for itself, so the proxy is given its upstream without one.
  const inspect = (upstream: string[], method: string[]) =>
    run(INSPECTOR, ['--cli', process.execPath, BIN, 'mcp', 'proxy', ...upstream, '--method', ...method], { cwd: s.project, env: proxyEnv(s) });

  test('tools/list and an allowed tools/call', async () => {
    const list = await inspect([process.execPath, EVERYTHING, 'stdio'], ['tools/list']);
    assert.equal(list.code, 0, list.err);
    assert.ok(JSON.parse(list.out).tools.some((t: { name: string }) => t.name === 'echo'), list.out);
    const call = await inspect([process.execPath, EVERYTHING, 'stdio'], ['tools/call', '--tool-name', 'echo', '--tool-arg', 'message=from the inspector']);
    assert.equal(call.code, 0, call.err);
    assert.deepEqual(JSON.parse(call.out), { content: [{ type: 'text', text: 'Echo: from the inspector' }] });
  });

  test('a blocked tools/call: an error result with the reason, and no effect', async () => {
    const call = await inspect([process.execPath, COMMANDS], ['tools/call', '--tool-name', 'run_command', '--tool-arg', 'command=echo pwned >> ~/.bashrc']);
    assert.equal(call.code, 0, call.err);
    const r = JSON.parse(call.out);
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^asimov blocked this call \[sec\.shell-init\]/);
    assert.equal(existsSync(join(s.home, '.bashrc')), false);
  });
});

describe('Claude Code CLI with the proxy in its --mcp-config', () => {
  let s: ProxyScratch;
  let mcpConfig: string;
  before(() => {
    s = makeProxyScratch('asimov-mcp-claude-');
    writeFileSync(join(s.project, 'visible-file.txt'), 'x\n');
    mcpConfig = join(s.root, 'mcp.json');
    const server = { command: process.execPath, args: [BIN, 'mcp', 'proxy', '--name', 'commands', '--', process.execPath, COMMANDS], env: { ASIMOV_AUDIT_LOG: s.audit } };
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { commands: server } }));
  });
  after(() => s.cleanup());

  test('the blocked call does not run and the model is told why; the allowed call returns the output', async () => {
    const model = await startAnthropicServer({
      script: [
        { tools: [{ name: 'mcp__commands__run_command', input: { command: 'echo pwned >> ~/.bashrc' } }] },
        { tools: [{ name: 'mcp__commands__run_command', input: { command: 'ls' } }] },
        { text: 'done' },
      ],
    });
    try {
      const r = await runClaude({
        home: s.home, cwd: s.project, baseUrl: model.url, prompt: 'do the task',
        allowedTools: ['mcp__commands__run_command'],
        args: ['--mcp-config', mcpConfig, '--strict-mcp-config'],
        env: { ASIMOV_AUDIT_LOG: s.audit },
      });
      const results = model.allToolResults();
      const blocked = results.find((x) => x.tool_use_id === 'toolu_0_0');
      const allowed = results.find((x) => x.tool_use_id === 'toolu_1_0');
      assert.ok(blocked && allowed, `tool results: ${JSON.stringify(results)}; exit ${r.code}; ${r.stderr.slice(0, 500)}`);
      assert.equal(blocked.is_error, true);
      assert.match(blocked.text, /asimov blocked this call \[sec\.shell-init\]: Writing ~\/\.bashrc/);
      assert.equal(existsSync(join(s.home, '.bashrc')), false, 'the blocked command never ran');
      assert.equal(allowed.is_error, false, allowed.text);
      assert.match(allowed.text, /visible-file\.txt/);
    } finally {
      await model.close();
    }
  });
});
