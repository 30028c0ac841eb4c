// Reading the MCP server lists of every client, written in each client's own format, from a scratch home
// and project; and the small TOML reader Codex's config needs.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readClientConfigs, readConfigFiles, type ServerEntry } from '../../../src/adapters/mcp/client-configs.ts';
import { parseToml, TomlError } from '../../../src/adapters/mcp/toml.ts';

let root = '';
let n = 0;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'asimov-clients-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

function scratch(): { home: string; project: string } {
  const base = join(root, `c${++n}`);
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return { home, project };
}

function write(file: string, text: string | object): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof text === 'string' ? text : JSON.stringify(text, null, 2));
}

/** The fields that matter for a comparison, without the file. */
function brief(e: ServerEntry): Record<string, unknown> {
  const { file: _f, ...rest } = e;
  return rest;
}

describe('each client\'s files', () => {
  test('Claude Code: user and per-project servers in ~/.claude.json, and the project\'s .mcp.json', () => {
    const { home, project } = scratch();
    write(join(home, '.claude.json'), {
      numStartups: 3,
      mcpServers: { everything: { type: 'stdio', command: 'node', args: ['/srv/everything.js', 'stdio'], env: { TOKEN: 'x' } } },
      projects: { [project]: { allowedTools: [], mcpServers: { remote: { type: 'sse', url: 'http://127.0.0.1:9/sse', headers: { Authorization: 'Bearer t' } } } } },
    });
    write(join(project, '.mcp.json'), { mcpServers: { local: { command: 'node', args: ['server.js'] }, web: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } });
    const r = readClientConfigs({ home, cwd: project, env: {} });
    assert.deepEqual(r.notes, []);
    assert.deepEqual(r.entries.map(brief), [
      { client: 'claude-code', name: 'everything', scope: 'user', transport: 'stdio', command: 'node', args: ['/srv/everything.js', 'stdio'], env: { TOKEN: 'x' } },
      { client: 'claude-code', name: 'remote', scope: `local ${project}`, transport: 'sse', url: 'http://127.0.0.1:9/sse', headers: { Authorization: 'Bearer t' } },
      { client: 'claude-code', name: 'local', scope: 'project', fromProject: true, transport: 'stdio', command: 'node', args: ['server.js'], cwd: project },
      { client: 'claude-code', name: 'web', scope: 'project', fromProject: true, transport: 'http', url: 'http://127.0.0.1:9/mcp' },
    ]);
  });

  test('Cursor, Gemini CLI, Windsurf and Claude Desktop: mcpServers in their own places and spellings', () => {
    const { home, project } = scratch();
    write(join(home, '.cursor', 'mcp.json'), { mcpServers: { fs: { command: 'npx', args: ['-y', 'fs-server', '${userHome}/notes'] }, api: { url: 'https://api.example/mcp' } } });
    write(join(project, '.cursor', 'mcp.json'), { mcpServers: { proj: { command: './run.sh' } } });
    // Gemini CLI's settings may carry comments; `url` there is SSE and `httpUrl` Streamable HTTP.
    write(join(home, '.gemini', 'settings.json'), '{\n  // my servers\n  "theme": "dark",\n  "mcpServers": {\n    "sse": { "url": "http://127.0.0.1:1/sse" },\n    "http": { "httpUrl": "http://127.0.0.1:1/mcp", "headers": { "X-Key": "k" } },\n    "cmd": { "command": "python", "args": ["-m", "srv"], "cwd": "/opt/srv" },\n  },\n}');
    write(join(home, '.codeium', 'windsurf', 'mcp_config.json'), { mcpServers: { wind: { serverUrl: 'https://w.example/mcp' }, off: { command: 'x', disabled: true } } });
    write(join(home, '.config', 'Claude', 'claude_desktop_config.json'), { mcpServers: { desk: { command: 'uvx', args: ['mcp-server-time'] } } });
    const r = readClientConfigs({ home, cwd: project, env: {} });
    assert.deepEqual(r.notes, []);
    const by = Object.fromEntries(r.entries.map((e) => [e.name, brief(e)]));
    assert.deepEqual(by['fs'], { client: 'cursor', name: 'fs', scope: 'user', transport: 'stdio', command: 'npx', args: ['-y', 'fs-server', `${home}/notes`] });
    assert.deepEqual(by['api'], { client: 'cursor', name: 'api', scope: 'user', transport: 'http', url: 'https://api.example/mcp', transportGuessed: true });
    assert.deepEqual(by['proj'], { client: 'cursor', name: 'proj', scope: 'project', fromProject: true, transport: 'stdio', command: './run.sh', args: [], cwd: project });
    assert.deepEqual(by['sse'], { client: 'gemini-cli', name: 'sse', scope: 'user', transport: 'sse', url: 'http://127.0.0.1:1/sse' });
    assert.deepEqual(by['http'], { client: 'gemini-cli', name: 'http', scope: 'user', transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Key': 'k' } });
    assert.deepEqual(by['cmd'], { client: 'gemini-cli', name: 'cmd', scope: 'user', transport: 'stdio', command: 'python', args: ['-m', 'srv'], cwd: '/opt/srv' });
    assert.deepEqual(by['wind'], { client: 'windsurf', name: 'wind', scope: 'user', transport: 'http', url: 'https://w.example/mcp', transportGuessed: true });
    assert.equal(by['off']?.['disabled'], true);
    assert.equal(by['desk']?.['client'], 'claude-desktop');
  });

  test('Codex: [mcp_servers.NAME] tables in ~/.codex/config.toml (or $CODEX_HOME)', () => {
    const { home, project } = scratch();
    const toml = `
model = "o3"  # the model

[mcp_servers.commands]
command = "node"
args = [
  "/srv/commands.js",   # the server
  'literal \\path',
]
env = { "API_KEY" = "abc", MODE = "safe" }

[mcp_servers.remote]
url = "https://r.example/mcp"
bearer_token_env_var = "R_TOKEN"

[mcp_servers."off one"]
command = "x"
enabled = false

[mcp_servers.commands2]
command = "node"
[mcp_servers.commands2.env]
DEBUG = "1"
`;
    write(join(home, '.codex', 'config.toml'), toml);
    const r = readClientConfigs({ home, cwd: project, env: { R_TOKEN: 'tok' } });
    assert.deepEqual(r.notes, []);
    assert.deepEqual(r.entries.map(brief), [
      { client: 'codex', name: 'commands', scope: 'user', transport: 'stdio', command: 'node', args: ['/srv/commands.js', 'literal \\path'], env: { API_KEY: 'abc', MODE: 'safe' } },
      { client: 'codex', name: 'remote', scope: 'user', transport: 'http', url: 'https://r.example/mcp', headers: { Authorization: 'Bearer tok' }, transportGuessed: true },
      { client: 'codex', name: 'off one', scope: 'user', disabled: true, transport: 'stdio', command: 'x', args: [] },
      { client: 'codex', name: 'commands2', scope: 'user', transport: 'stdio', command: 'node', args: [], env: { DEBUG: '1' } },
    ]);
    const other = join(root, `codexhome${n}`);
    write(join(other, 'config.toml'), '[mcp_servers.elsewhere]\ncommand = "y"\n');
    assert.deepEqual(readClientConfigs({ home, cwd: project, env: { CODEX_HOME: other } }).entries.map((e) => e.name), ['elsewhere']);
  });

  test('VS Code: `servers` in .vscode/mcp.json, with its variables', () => {
    const { home, project } = scratch();
    write(join(project, '.vscode', 'mcp.json'), '{\n  "inputs": [{ "id": "key", "type": "promptString" }],\n  "servers": {\n    "gh": { "type": "http", "url": "https://gh.example/mcp", "headers": { "Authorization": "Bearer ${input:key}" } },\n    "local": { "type": "stdio", "command": "node", "args": ["${workspaceFolder}/srv.js", "${env:MODE}", "${UNSET_VAR:-fallback}"] }\n  }\n}');
    const r = readClientConfigs({ home, cwd: project, env: { MODE: 'dev' } });
    assert.deepEqual(r.entries.map(brief), [
      { client: 'vscode', name: 'gh', scope: 'project', fromProject: true, transport: 'http', url: 'https://gh.example/mcp', headers: { Authorization: 'Bearer ${input:key}' } },
      { client: 'vscode', name: 'local', scope: 'project', fromProject: true, transport: 'stdio', command: 'node', args: [`${project}/srv.js`, 'dev', 'fallback'], cwd: project },
    ]);
    assert.match(r.notes[0]!.message, /\$\{input:key\}, which only VS Code can fill in/);
  });

  test('a project that is the home directory is read once', () => {
    const { home } = scratch();
    write(join(home, '.cursor', 'mcp.json'), { mcpServers: { once: { command: 'x' } } });
    const r = readClientConfigs({ home, cwd: home, env: {} });
    assert.deepEqual(r.entries.map((e) => e.name), ['once']);
    assert.equal(r.entries[0]!.fromProject, undefined, 'the user\'s own file, not a project\'s');
  });
});

describe('broken files are notes, and the rest is still read', () => {
  test('bad JSON, bad TOML, wrong shapes, odd entries', () => {
    const { home, project } = scratch();
    write(join(home, '.claude.json'), '{"mcpServers": {');
    write(join(home, '.codex', 'config.toml'), '[mcp_servers.a]\ncommand = "x\n');
    write(join(home, '.cursor', 'mcp.json'), { mcpServers: { good: { command: 'ok' }, bad: 'string', none: { env: {} }, weird: { type: 'carrier-pigeon', command: 'x' } } });
    write(join(home, '.gemini', 'settings.json'), { mcpServers: [] });
    const r = readClientConfigs({ home, cwd: project, env: {} });
    assert.deepEqual(r.entries.map((e) => e.name), ['good']);
    const messages = r.notes.map((x) => x.message).join('\n');
    assert.match(messages, /not valid JSON \(.*line 1\)/);
    assert.match(messages, /not valid TOML \(line 2: unterminated string\)/);
    assert.match(messages, /server "bad" is not an object/);
    assert.match(messages, /server "none" has neither a command nor a URL/);
    assert.match(messages, /unknown transport "carrier-pigeon"/);
    assert.match(messages, /mcpServers is not an object/);
  });
});

describe('files named on the command line', () => {
  test('each shape is recognised, and a named project file is not held back as a project\'s', () => {
    const { home, project } = scratch();
    const a = join(root, `named${n}`, 'servers.json');
    write(a, { mcpServers: { a: { command: 'node', args: ['a.js'] } } });
    const b = join(project, '.vscode', 'mcp.json');
    write(b, { servers: { b: { command: 'node', args: ['b.js'] } } });
    const c = join(root, `named${n}`, 'codex.toml');
    write(c, '[mcp_servers.c]\ncommand = "node"\nargs = ["c.js"]\n');
    const d = join(root, `named${n}`, 'claude.json');
    write(d, { projects: { '/p': { mcpServers: { d: { command: 'node' } } } } });
    const r = readConfigFiles([a, b, c, d, join(root, 'missing.json')], { home, cwd: root, env: {} });
    assert.deepEqual(r.entries.map((e) => [e.client, e.name, e.fromProject ?? false]), [['file', 'a', false], ['vscode', 'b', false], ['codex', 'c', false], ['file', 'd', false]]);
    assert.equal(r.entries[1]!.cwd, project, 'a project file\'s relative paths are the project\'s');
    assert.match(r.notes.at(-1)!.message, /does not exist/);
  });
});

describe('TOML', () => {
  test('strings in all four forms, with escapes', () => {
    const t = parseToml([
      'a = "tab\\tquote\\" \\u00e9 \\U0001F600"',
      "b = 'C:\\no\\escapes'",
      'c = """',
      'line one',
      'line \\',
      '   two"""',
      "d = '''",
      "raw \\n ''' ",
    ].join('\n').replace("''' ", "'''"));
    assert.deepEqual({ ...t }, { a: 'tab\tquote" é 😀', b: 'C:\\no\\escapes', c: 'line one\nline two', d: 'raw \\n ' });
  });

  test('tables, dotted keys, arrays of tables, inline tables, numbers and booleans', () => {
    const t = parseToml([
      'x.y = 1',
      'n = [1_000, 0x10, -2.5e1, true, 1979-05-27T07:32:00Z]',
      '[srv."a.b"]',
      'env = { K = "v", nested.deep = "d" }',
      '[[list]]',
      'k = 1',
      '[[list]]',
      'k = 2',
    ].join('\n'));
    assert.deepEqual(JSON.parse(JSON.stringify(t)), {
      x: { y: 1 },
      n: [1000, 16, -25, true, '1979-05-27T07:32:00Z'],
      srv: { 'a.b': { env: { K: 'v', nested: { deep: 'd' } } } },
      list: [{ k: 1 }, { k: 2 }],
    });
  });

  test('errors name their line', () => {
    for (const [text, re] of [
      ['a = 1\nb = \n', /line 2: expected a value/],
      ['a = 1\na = 2', /line 2: a is defined twice/],
      ['[t\nx = 1', /line 1: expected \] after a table name/],
      ['a = [1, 2', /line 1: expected a value|expected , or \]/],
      ['a = "x" junk', /line 1: unexpected "j" after a value/],
      ['a = "\\q"', /bad escape/],
    ] as const) {
      assert.throws(() => parseToml(text), (e: unknown) => e instanceof TomlError && re.test(e.message), text);
    }
  });

  test('keys cannot reach Object.prototype, and nesting is bounded', () => {
    const t = parseToml('__proto__ = { polluted = true }\n[constructor]\nx = 1\n');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal(Object.getPrototypeOf(t), null);
    assert.throws(() => parseToml(`a = ${'['.repeat(100)}${']'.repeat(100)}`), /nest deeper/);
  });
});
