// The proxy in front of published servers that touch the machine: @modelcontextprotocol/server-filesystem
// and mcp-server-commands (a `run_command` tool). A blocked call must never reach the server (its effect is
// absent), an allowed one returns what the server returns directly, roots outside the project never reach
// the server. GATE_CHECK=false turns off the judge only, as everywhere; `--passthrough` is the one plain relay,
// and says so.
//
// Every command is chosen so that, were the proxy to let it through, its effect stays in the scratch dirs
// (HOME is a scratch directory; ~/.bashrc is the scratch one).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  COMMANDS, FILESYSTEM, auditLines, auditLinesWith, connectProxy, connectStdio, makeProxyScratch, proxyEnv, waitFor, type ProxyScratch,
} from '../helpers/mcp-proxy.ts';

function text(r: any): string {
  return (r.content ?? []).map((c: any) => c.text ?? '').join('\n');
}

describe('server-filesystem through the proxy', () => {
  let s: ProxyScratch;
  before(() => {
    s = makeProxyScratch('asimov-mcp-fs-');
    writeFileSync(join(s.project, 'README.md'), 'hello from the project\n');
    writeFileSync(join(s.project, '.env'), 'SECRET=original\n');
    mkdirSync(join(s.project, '.claude'));
    writeFileSync(join(s.project, '.claude/settings.json'), '{}\n');
  });
  after(() => s.cleanup());

  test('a read inside the project passes; writes to .env and .claude/settings.json are blocked and leave the files unchanged', async () => {
    const p = await connectProxy(s, [process.execPath, FILESYSTEM, s.project]);
    try {
      const read = await p.client.callTool({ name: 'read_text_file', arguments: { path: join(s.project, 'README.md') } });
      assert.notEqual(read.isError, true, text(read));
      assert.equal(text(read), 'hello from the project\n');

      const env = await p.client.callTool({ name: 'write_file', arguments: { path: join(s.project, '.env'), content: 'SECRET=stolen\n' } });
      assert.equal(env.isError, true);
      assert.match(text(env), /^asimov blocked this call \[file\.write-credentials\]: /);
      const settings = await p.client.callTool({ name: 'write_file', arguments: { path: join(s.project, '.claude/settings.json'), content: '{"hooks":{}}' } });
      assert.equal(settings.isError, true);
      assert.match(text(settings), /^asimov blocked this call \[file\.write-agent-config\]: /);
      assert.equal(readFileSync(join(s.project, '.env'), 'utf8'), 'SECRET=original\n');
      assert.equal(readFileSync(join(s.project, '.claude/settings.json'), 'utf8'), '{}\n');

      // Positive control: an ordinary write in the project does reach the server.
      const notes = await p.client.callTool({ name: 'write_file', arguments: { path: join(s.project, 'notes.txt'), content: 'ok\n' } });
      assert.notEqual(notes.isError, true, text(notes));
      assert.equal(readFileSync(join(s.project, 'notes.txt'), 'utf8'), 'ok\n');

      const audited = (l: any): string => `${l.tool} ${l.client_tool} ${l.verdict} ${l.rule}`;
      await auditLinesWith(
        s.audit,
        (l) => audited(l) === 'write mcp__filesystem__write_file deny file.write-credentials',
        (l) => audited(l) === 'read mcp__filesystem__read_text_file allow file.read',
      );
    } finally {
      await p.close();
    }
  });

  test('roots outside the project never reach the server, also when they change mid-session', async () => {
    const outside = join(s.root, 'outside');
    mkdirSync(outside, { recursive: true });
    let roots = [{ uri: pathToFileURL(s.project).href, name: 'project' }, { uri: pathToFileURL(outside).href, name: 'outside' }];
    const makeClient = () => {
      const c = new Client({ name: 'asimov-test', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
      c.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
      return c;
    };
    const allowed = async (c: Client) => text(await c.callTool({ name: 'list_allowed_directories', arguments: {} }));

    // Positive control: straight to the server, the client's roots become its allowed directories.
    const direct = await connectStdio(process.execPath, [FILESYSTEM, s.project], { cwd: s.project, env: proxyEnv(s), client: makeClient() });
    try {
      await waitFor(() => direct.stderr().includes('Updated allowed directories from MCP roots: 2'), 'the server to take both roots');
      assert.match(await allowed(direct.client), /outside/);
    } finally {
      await direct.close();
    }

    const p = await connectProxy(s, [process.execPath, FILESYSTEM, s.project], { client: makeClient() });
    try {
      await waitFor(() => p.stderr().includes('Updated allowed directories from MCP roots: 1 valid'), 'the server to take the filtered roots');
      assert.match(p.stderr(), /roots not passed to the upstream .*outside/);
      const dirs = await allowed(p.client);
      assert.match(dirs, new RegExp(s.project.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.doesNotMatch(dirs, /outside/);

      // Mid-session the client's roots move outside the project entirely: nothing of it reaches the server.
      roots = [{ uri: pathToFileURL(outside).href, name: 'outside' }, { uri: 'file:///etc', name: 'etc' }];
      await p.client.sendRootsListChanged();
      await waitFor(() => p.stderr().includes('No valid root directories provided by client'), 'the server to get no usable root');
      const after = await allowed(p.client);
      assert.doesNotMatch(after, /outside|\/etc/);
      const blocked = await p.client.callTool({ name: 'read_text_file', arguments: { path: join(outside, 'x') } });
      assert.equal(blocked.isError, true);
    } finally {
      await p.close();
    }
  });
});

describe('mcp-server-commands through the proxy', () => {
  let s: ProxyScratch;
  before(() => {
    s = makeProxyScratch('asimov-mcp-commands-');
    writeFileSync(join(s.project, 'a.txt'), 'a\n');
    writeFileSync(join(s.project, 'b.txt'), 'b\n');
  });
  after(() => s.cleanup());

  test('a command asimov hard-denies is blocked and does not run; ls is allowed and returns what the server returns', async () => {
    const direct = await connectStdio(process.execPath, [COMMANDS], { cwd: s.project, env: proxyEnv(s) });
    const p = await connectProxy(s, [process.execPath, COMMANDS]);
    const bashrc = join(s.home, '.bashrc');
    try {
      const bad = await p.client.callTool({ name: 'run_command', arguments: { command: 'echo pwned >> ~/.bashrc' } });
      assert.equal(bad.isError, true);
      assert.match(text(bad), /^asimov blocked this call \[sec\.shell-init\]: /);
      // The same through stdin: `bash` reading a script is judged by the script.
      const viaStdin = await p.client.callTool({ name: 'run_command', arguments: { command: 'bash', stdin: 'echo pwned >> ~/.bashrc\n' } });
      assert.equal(viaStdin.isError, true);
      assert.match(text(viaStdin), /\[sec\.shell-init\]/);
      assert.equal(existsSync(bashrc), false, 'the blocked command never ran');

      const want = await direct.client.callTool({ name: 'run_command', arguments: { command: 'ls' } });
      const got = await p.client.callTool({ name: 'run_command', arguments: { command: 'ls' } });
      assert.deepEqual(got, want);
      assert.match(text(got), /a\.txt[\s\S]*b\.txt/);

      const audited = (l: any): string => `${l.tool} ${l.client_tool} ${l.verdict} ${l.rule}`;
      await auditLinesWith(
        s.audit,
        (l) => audited(l) === 'shell mcp__commands__run_command deny sec.shell-init',
        (l) => audited(l) === 'shell mcp__commands__run_command allow dev.read-only',
      );
    } finally {
      await direct.close();
      await p.close();
    }
  });

  test('GATE_CHECK=false turns off the judge only: the static policy still refuses, and the banner says what is on', async () => {
    const bashrc = join(s.home, '.bashrc');
    const p = await connectProxy(s, [process.execPath, COMMANDS], { env: { GATE_CHECK: 'false' } });
    try {
      const r = await p.client.callTool({ name: 'run_command', arguments: { command: 'echo pwned >> ~/.bashrc' } });
      assert.equal(r.isError, true);
      assert.match(text(r), /\[sec\.shell-init\]/);
      assert.equal(existsSync(bashrc), false, 'the blocked command never ran');
      await auditLinesWith(s.audit, (l) => l.client_tool === 'mcp__commands__run_command' && l.verdict === 'deny' && l.rule === 'sec.shell-init');
      const banner = p.stderr();
      assert.match(banner, /asimov mcp proxy: firewall for 'commands' in /);
      assert.match(banner, /asimov mcp proxy: policy: built-in \+ user /);
      assert.match(banner, /asimov mcp proxy: judge: off \(GATE_CHECK=false/);
      assert.match(banner, /asimov mcp proxy: approvals: none/);
      assert.ok(banner.includes(`asimov mcp proxy: audit: ${s.audit}`), banner);
    } finally {
      await p.close();
    }
  });

  test('--passthrough: a plain relay that says so, the call goes through unchecked and unrecorded', async () => {
    const bashrc = join(s.home, '.bashrc');
    const before = auditLines(s.audit).length;
    const p = await connectProxy(s, [process.execPath, COMMANDS], { proxyArgs: ['--passthrough'] });
    try {
      const r = await p.client.callTool({ name: 'run_command', arguments: { command: 'echo pwned >> ~/.bashrc' } });
      assert.notEqual(r.isError, true, text(r));
      assert.equal(readFileSync(bashrc, 'utf8'), 'pwned\n');
      assert.equal(auditLines(s.audit).length, before, 'nothing recorded');
      assert.match(p.stderr(), /--passthrough: NO FIREWALL for 'commands'/);
    } finally {
      await p.close();
    }
  });
});
