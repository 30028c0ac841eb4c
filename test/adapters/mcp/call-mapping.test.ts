// tools/call → ToolCall: which MCP tools are shell tools (by name, by the policy's list, by their schema),
// the shell line their arguments amount to (argv, stdin, working directory), file tools by name, and the
// upstream's short name. The last block runs the mapped calls through a real gate on the built-in policy.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveServerName, fileToolKind, sanitizeServerName, shellCommandKey, shellLine, toToolCall } from '../../../src/adapters/mcp/call-mapping.ts';
import { createGate } from '../../../src/gate/gate.ts';

const ctx = { server: 'srv', cwd: '/work/proj', projectRoot: '/work/proj', sessionId: 'sess' };
const schema = (props: Record<string, unknown>, required: string[] = []) => ({ name: 't', inputSchema: { type: 'object', properties: props, required } });

describe('shell tools', () => {
  test('by name (any spelling), by the policy list, and by a required command string in the schema', () => {
    assert.equal(shellCommandKey('run_command', undefined), 'command');
    assert.equal(shellCommandKey('runCommand', undefined), 'command');
    assert.equal(shellCommandKey('execute-command', undefined), 'command');
    assert.equal(shellCommandKey('bash', schema({ cmd: { type: 'string' } })), 'cmd', 'the argument the schema has');
    assert.equal(shellCommandKey('deploy_thing', undefined, ['deploy_thing']), 'command');
    assert.equal(shellCommandKey('do_it', schema({ script: { type: 'string' } }, ['script'])), 'script');
    assert.equal(shellCommandKey('do_it', schema({ command: { type: ['string', 'null'] } }, ['command'])), 'command');
    assert.equal(shellCommandKey('do_it', schema({ command: { type: 'string' } })), null, 'optional: not detected');
    assert.equal(shellCommandKey('do_it', schema({ command: { type: 'number' } }, ['command'])), null);
    assert.equal(shellCommandKey('get_issue', schema({ owner: { type: 'string' } }, ['owner'])), null);
  });

  test('the shell line: argv words quoted, stdin as a quoted here-document on the whole line', () => {
    assert.equal(shellLine({ command: 'ls -la' }, 'command'), 'ls -la');
    assert.equal(shellLine({ command: ['git', 'commit', '-m', 'two words'] }, 'command'), "git commit -m 'two words'");
    assert.equal(shellLine({ command: 'grep', args: ['-r', 'a b', '.'] }, 'command'), "grep -r 'a b' .");
    assert.equal(shellLine({ command: 'python3', stdin: 'print(1)' }, 'command'), "{ python3\n} <<'ASIMOV_STDIN'\nprint(1)\nASIMOV_STDIN");
    assert.equal(
      shellLine({ command: 'bash', stdin: 'echo hi\nASIMOV_STDIN\n' }, 'command'),
      "{ bash\n} <<'ASIMOV_STDIN_1'\necho hi\nASIMOV_STDIN\nASIMOV_STDIN_1",
      'a delimiter the text does not contain',
    );
    assert.equal(shellLine({ command: "bash -c '", stdin: "'; rm -rf ~; '" }, 'command'), "bash -c '", 'an unbalanced command is not wrapped');
    assert.equal(shellLine({ command: 42 }, 'command'), null);
    assert.equal(shellLine({}, 'command'), null);
  });

  test('toToolCall: tool shell with input.command, the working directory argument as cwd, the MCP name kept', () => {
    const call = toToolCall('run_command', { command: 'ls', workdir: 'sub' }, undefined, ctx, '7');
    assert.deepEqual(call, {
      tool: 'shell', clientTool: 'mcp__srv__run_command', input: { command: 'ls', workdir: 'sub' },
      cwd: '/work/proj/sub', projectRoot: '/work/proj', sessionId: 'sess', agent: 'mcp-proxy', callId: '7',
    });
    assert.equal(toToolCall('run_command', { command: 'ls', cwd: '/' }, undefined, ctx, '1').cwd, '/');
    assert.equal(toToolCall('run_command', { nothing: 1 }, undefined, ctx, '1').input['command'], undefined);
    const viaSchema = toToolCall('do_it', { script: 'make' }, schema({ script: { type: 'string' } }, ['script']) as never, ctx, '2');
    assert.equal(viaSchema.tool, 'shell');
    assert.equal(viaSchema.input['command'], 'make');
  });
});

describe('file tools and the rest', () => {
  test('file tools with path arguments become read, search, write and edit; without a path they stay mcp', () => {
    assert.equal(fileToolKind('read_text_file', { path: 'a' }), 'read');
    assert.equal(fileToolKind('read_multiple_files', { paths: ['a', 'b'] }), 'read');
    assert.equal(fileToolKind('list_directory', { path: '.' }), 'search');
    assert.equal(fileToolKind('write_file', { path: 'a', content: '' }), 'write');
    assert.equal(fileToolKind('move_file', { source: 'a', destination: 'b' }), 'write');
    assert.equal(fileToolKind('edit_file', { path: 'a', edits: [] }), 'edit');
    assert.equal(fileToolKind('write_file', { file: 'a' }), null);
    assert.equal(fileToolKind('delete_file', { path: 'a' }), null, 'deleting stays an MCP tool with a destructive name');
    assert.equal(toToolCall('write_file', { path: '.env', content: 'x' }, undefined, ctx, '1').tool, 'write');
    const other = toToolCall('create_issue', { title: 't' }, undefined, ctx, '1');
    assert.equal(other.tool, 'mcp');
    assert.equal(other.clientTool, 'mcp__srv__create_issue');
    assert.deepEqual(toToolCall('x', 'not an object', undefined, ctx, '1').input, {});
  });
});

describe("the upstream's short name", () => {
  test('from the command line', () => {
    const cases: Array<[string, string[], string]> = [
      ['npx', ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], 'filesystem'],
      ['node', ['/x/node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'], 'everything'],
      ['node', ['/x/node_modules/mcp-server-commands/build/index.js'], 'commands'],
      ['uvx', ['mcp-server-git', '--repository', '.'], 'git'],
      ['python3', ['-m', 'mcp_server_fetch'], 'fetch'],
      ['docker', ['run', '-i', '--rm', '-e', 'GITHUB_TOKEN', 'ghcr.io/github/github-mcp-server:latest'], 'github'],
      ['npx', ['-y', '@upstash/context7-mcp@latest'], 'context7'],
      ['/opt/servers/weather-server', [], 'weather'],
      ['env', ['A=1', 'node', 'slack-mcp/index.js'], 'slack'],
    ];
    for (const [command, args, want] of cases) assert.equal(deriveServerName({ command, args }), want, `${command} ${args.join(' ')}`);
  });

  test('from a URL, and always fit for mcp__<name>__', () => {
    assert.equal(deriveServerName({ url: 'https://mcp.notion.com/mcp' }), 'notion');
    assert.equal(deriveServerName({ url: 'https://api.githubcopilot.com/mcp/' }), 'githubcopilot');
    assert.equal(deriveServerName({ url: 'http://127.0.0.1:3001/mcp' }), 'localhost-3001');
    assert.equal(sanitizeServerName('a__b c'), 'a_b-c');
    assert.equal(sanitizeServerName('___'), 'upstream');
  });
});

describe('mapped calls through the gate (built-in policy)', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-call-mapping-')));
  const home = join(root, 'home');
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  after(() => rmSync(root, { recursive: true, force: true }));
  const gate = createGate({
    home, env: { HOME: home }, audit: false,
    managedPolicyPath: join(root, 'managed.yaml'), userPolicyPath: join(root, 'user.yaml'), trustStorePath: join(root, 'trust.json'),
  });
  const c = { server: 'x', cwd: project, projectRoot: project };
  const decide = (name: string, args: Record<string, unknown>, def?: unknown) => gate.decide(toToolCall(name, args, def as never, c, '1'), { personAvailable: false });

  test('shell tools are judged by their command, stdin and working directory', async () => {
    assert.equal((await decide('run_command', { command: 'ls -la' })).verdict, 'allow');
    const rm = await decide('run_command', { command: 'rm -rf ~' });
    assert.deepEqual([rm.verdict, rm.tier, rm.rule], ['deny', 'hard_deny', 'fs.rm-catastrophic']);
    const stdin = await decide('run_command', { command: 'bash', stdin: 'rm -rf ~\n' });
    assert.deepEqual([stdin.verdict, stdin.rule], ['deny', 'fs.rm-catastrophic']);
    const wd = await decide('run_command', { command: 'rm -rf *', workdir: '/' });
    assert.equal(wd.tier, 'hard_deny', 'rm -rf * in / removes the root');
    const noCommand = await decide('run_command', { text: 'ls' });
    assert.equal(noCommand.verdict, 'deny');
  });

  test('file tools are judged by their paths', async () => {
    assert.equal((await decide('read_text_file', { path: join(project, 'README.md') })).verdict, 'allow');
    assert.equal((await decide('write_file', { path: join(project, 'src/a.ts'), content: '' })).verdict, 'allow');
    const env = await decide('write_file', { path: join(project, '.env'), content: 'A=1' });
    assert.deepEqual([env.verdict, env.rule], ['deny', 'file.write-credentials']);
    const rc = await decide('edit_file', { path: join(home, '.bashrc'), edits: [{ oldText: 'a', newText: 'b' }] });
    assert.equal(rc.tier, 'hard_deny');
    const key = await decide('read_file', { path: join(home, '.ssh/id_rsa') });
    assert.equal(key.verdict, 'deny');
  });

  test('other tools by the MCP rules: unknown names are refused with no person to ask', async () => {
    assert.equal((await decide('get_issue', { number: 1 })).verdict, 'allow');
    const d = await decide('create_issue', { title: 't' });
    assert.deepEqual([d.verdict, d.tier], ['deny', 'unknown']);
    assert.equal((await decide('delete_repository', { repo: 'r' })).tier, 'soft_deny');
  });
});
