// Tests for client tool-name normalization and the extraction of commands, paths and URLs from tool inputs.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  extractPaths,
  extractShellCommand,
  extractUrl,
  extractUrls,
  normalizeTool,
  parseMcpName,
  patchPaths,
  shellQuote,
} from '../../src/core/tools.ts';

describe('normalizeTool', () => {
  const table: Array<[string, string]> = [
    ['Bash', 'shell'], ['Write', 'write'], ['Edit', 'edit'], ['MultiEdit', 'edit'], ['NotebookEdit', 'edit'],
    ['Read', 'read'], ['NotebookRead', 'read'], ['Glob', 'search'], ['Grep', 'search'], ['LS', 'search'],
    ['WebFetch', 'fetch'], ['WebSearch', 'search'],
    ['run_shell_command', 'shell'], ['write_file', 'write'], ['replace', 'edit'], ['read_file', 'read'],
    ['read_many_files', 'read'], ['list_directory', 'search'], ['glob', 'search'], ['search_file_content', 'search'],
    ['web_fetch', 'fetch'], ['google_web_search', 'search'],
    ['shell', 'shell'], ['exec_command', 'shell'], ['apply_patch', 'edit'],
    ['Execute', 'shell'], ['Create', 'write'], ['ApplyPatch', 'edit'],
    ['bash', 'shell'], ['write', 'write'], ['edit', 'edit'], ['read', 'read'], ['view', 'read'],
  ];
  for (const [client, kind] of table) {
    test(`maps ${client} to ${kind}`, () => {
      const n = normalizeTool(client, {});
      assert.equal(n.tool, kind);
      assert.equal(n.known, true);
    });
  }

  test("maps Claude's and Gemini's MCP names to mcp with server and tool", () => {
    assert.deepEqual(normalizeTool('mcp__github__create_issue', {}), { tool: 'mcp', known: true, mcp: { server: 'github', tool: 'create_issue' } });
    assert.deepEqual(normalizeTool('mcp_github_list_issues', {}).mcp, { server: 'github', tool: 'list_issues' });
  });

  test('asimov\'s own gated MCP tools are judged as the action they perform, not as an opaque MCP call', () => {
    assert.deepEqual(normalizeTool('mcp__asimov__bash', { command: 'ls' }), { tool: 'shell', known: true, mcp: { server: 'asimov', tool: 'bash' }, ownTool: 'bash' });
    assert.equal(normalizeTool('mcp_asimov_write', {}).tool, 'write');
    assert.equal(normalizeTool('mcp__asimov__edit', {}).tool, 'edit');
    assert.equal(normalizeTool('mcp__asimov__read', {}).tool, 'read');
    // Another server's bash, or a tool asimov does not offer, stays an MCP call.
    assert.equal(normalizeTool('mcp__other__bash', {}).tool, 'mcp');
    assert.equal(normalizeTool('mcp__asimov__fetch', {}).tool, 'mcp');
    assert.equal(normalizeTool('mcp__asimov__hasOwnProperty', {}).tool, 'mcp');
  });

  test("maps Codex's shell call of apply_patch to edit, so the patch's files are checked", () => {
    assert.equal(normalizeTool('shell', { command: ['apply_patch', '*** Begin Patch\n*** End Patch'] }).tool, 'edit');
    assert.equal(normalizeTool('shell', { command: ['bash', '-lc', 'ls'] }).tool, 'shell');
  });

  test('keeps the names of internal tools, marked known', () => {
    for (const t of ['TodoWrite', 'Task', 'ExitPlanMode']) assert.deepEqual(normalizeTool(t, {}), { tool: t, known: true });
  });

  test('keeps unknown names as they are, marked unknown', () => {
    assert.deepEqual(normalizeTool('FrobnicateEverything', {}), { tool: 'FrobnicateEverything', known: false });
    assert.deepEqual(normalizeTool('save_memory', {}), { tool: 'save_memory', known: false });
  });
});

describe('parseMcpName', () => {
  test('splits mcp__server__tool at the first double underscore after the prefix', () => {
    assert.deepEqual(parseMcpName('mcp__my_server__do__thing'), { server: 'my_server', tool: 'do__thing' });
  });

  test("splits Gemini's mcp_server_tool at the first underscore after the prefix", () => {
    assert.deepEqual(parseMcpName('mcp_fs_read_file'), { server: 'fs', tool: 'read_file' });
  });

  test('returns null for names that are not MCP names', () => {
    for (const n of ['Bash', 'mcp', 'mcp__', 'mcp__x', 'mcp_x', 'mcpx_y_z']) assert.equal(parseMcpName(n), null, n);
  });
});

describe('extractShellCommand', () => {
  test('returns input.command when it is a string, or Codex\'s cmd', () => {
    assert.equal(extractShellCommand({ command: 'ls -la', description: 'x' }), 'ls -la');
    assert.equal(extractShellCommand({ cmd: 'git status' }), 'git status');
  });

  test('joins an argv array with quoting that a real shell reads back as the same words', () => {
    const argv = ['printf', '%s|', 'plain', 'two words', "it's", '$HOME', '`id`', '', 'a"b', 'x;y', '*'];
    const line = extractShellCommand({ command: argv });
    assert.ok(line !== null);
    const r = spawnSync('sh', ['-c', line], { encoding: 'utf8' });
    assert.equal(r.status, 0);
    assert.equal(r.stdout, argv.slice(2).map((a) => `${a}|`).join(''));
  });

  test('keeps a Codex bash -lc wrapper readable for the shell analysis', () => {
    assert.equal(extractShellCommand({ command: ['bash', '-lc', 'rm -rf build'] }), "bash -lc 'rm -rf build'");
  });

  test('returns null for a missing, empty-array or non-string command', () => {
    for (const input of [{}, { command: [] }, { command: 5 }, { command: ['ls', 3] }]) assert.equal(extractShellCommand(input as Record<string, unknown>), null);
  });

  test('shellQuote leaves safe words alone and quotes the rest', () => {
    assert.equal(shellQuote('src/a.ts'), 'src/a.ts');
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote("a'b"), `'a'\\''b'`);
  });
});

describe('extractPaths', () => {
  test('reads the path arguments of each client', () => {
    assert.deepEqual(extractPaths('write', { file_path: 'a.ts', content: 'x' }), ['a.ts']);
    assert.deepEqual(extractPaths('edit', { notebook_path: 'n.ipynb', new_source: '' }), ['n.ipynb']);
    assert.deepEqual(extractPaths('read', { absolute_path: '/x' }), ['/x']);
    assert.deepEqual(extractPaths('read', { paths: ['a', 'b', 'a'] }), ['a', 'b']);
    assert.deepEqual(extractPaths('write', { filePath: 'o.ts' }), ['o.ts']);
    assert.deepEqual(extractPaths('search', { pattern: 'x', path: 'src' }), ['src']);
  });

  test('reads MultiEdit as one path', () => {
    assert.deepEqual(extractPaths('edit', { file_path: 'a.ts', edits: [{ old_string: 'a', new_string: 'b' }] }), ['a.ts']);
  });

  test("reads every file header of an apply_patch patch", () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/a.ts',
      '@@',
      '-a',
      '+b',
      '*** Add File: src/new.ts',
      '+x',
      '*** Delete File: old.ts',
      '*** Update File: src/c.ts',
      '*** Move to: src/d.ts',
      '*** End Patch',
    ].join('\n');
    assert.deepEqual(extractPaths('edit', { input: patch }), ['src/a.ts', 'src/new.ts', 'old.ts', 'src/c.ts', 'src/d.ts']);
    assert.deepEqual(extractPaths('edit', { command: ['apply_patch', patch] }), ['src/a.ts', 'src/new.ts', 'old.ts', 'src/c.ts', 'src/d.ts']);
  });

  test('reads the file names of a git diff, without /dev/null', () => {
    const diff = 'diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@\n-a\n+b\ndiff --git a/n.ts b/n.ts\n--- /dev/null\n+++ b/n.ts\n';
    assert.deepEqual(patchPaths(diff), ['x.ts', 'n.ts']);
  });

  test('finds nothing in ordinary text, and nothing for shell calls', () => {
    assert.deepEqual(patchPaths('just some content\n+++ not a diff'), []);
    assert.deepEqual(extractPaths('shell', { command: 'cat a', path: 'x' }), []);
    assert.deepEqual(extractPaths('write', { content: 'x' }), []);
  });
});

describe('extractUrls', () => {
  test('reads url, uri and href', () => {
    assert.equal(extractUrl({ url: 'https://a.example/', prompt: 'see https://b.example/' }), 'https://a.example/');
    assert.deepEqual(extractUrls({ uri: 'https://u.example/' }), ['https://u.example/']);
  });

  test("reads the URLs written in Gemini web_fetch's prompt when there is no url argument", () => {
    assert.deepEqual(extractUrls({ prompt: 'Compare https://a.example/x, and (https://b.example/y).' }), ['https://a.example/x', 'https://b.example/y']);
  });

  test('returns nothing when there is no URL', () => {
    assert.equal(extractUrl({ prompt: 'no links' }), null);
    assert.deepEqual(extractUrls({}), []);
  });
});
