// Where agent clients keep their MCP server lists, and what each entry says: the input of `asimov mcp
// scan`. Every client has its own file and its own spelling (Claude Code's `type`, Gemini's `httpUrl`,
// Windsurf's `serverUrl`, VS Code's `servers`, Codex's TOML); each entry comes out in one shape.
// Reading never fails as a whole: a file that cannot be read or parsed becomes a note and the others
// are still read.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parseToml, TomlError } from './toml.ts';
import { isPlainObject } from '../../core/json.ts';

export type ClientName = 'claude-code' | 'claude-desktop' | 'cursor' | 'gemini-cli' | 'codex' | 'windsurf' | 'vscode' | 'file';

export const CLIENT_LABELS: Record<ClientName, string> = {
  'claude-code': 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  'gemini-cli': 'Gemini CLI',
  codex: 'Codex',
  windsurf: 'Windsurf',
  vscode: 'VS Code',
  file: 'Config file',
};

export type Transport = 'stdio' | 'sse' | 'http';

/** One MCP server as a client's configuration describes it. */
export interface ServerEntry {
  client: ClientName;
  file: string;
  name: string;
  /** `user`, `project`, or `local <project path>` (Claude Code's per-project servers in ~/.claude.json). */
  scope: string;
  transport: Transport;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** The entry gives a URL but not its transport: tried as Streamable HTTP, then as SSE. */
  transportGuessed?: boolean;
  /** The client is told not to start it (`disabled: true`, Codex's `enabled = false`). */
  disabled?: boolean;
  /** From a project's own files (which a cloned repository controls), not from the user's. */
  fromProject?: boolean;
}

export interface ConfigNote {
  client: ClientName;
  file: string;
  message: string;
}

export interface ClientServers {
  entries: ServerEntry[];
  notes: ConfigNote[];
  /** Files that exist and were read (parsed or not). */
  files: string[];
}

interface Source {
  client: ClientName;
  file: string;
  scope: 'user' | 'project';
  shape: 'claude-json' | 'mcpServers' | 'vscode' | 'vscode-settings' | 'codex' | 'auto';
  /** Named on the command line: started even when it is a project's file. */
  explicit?: boolean;
}

/** The configuration files each client reads, for a user's home and the project in `cwd`. */
export function clientConfigSources(home: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Source[] {
  const codexHome = env.CODEX_HOME && isAbsolute(env.CODEX_HOME) ? env.CODEX_HOME : join(home, '.codex');
  const mac = join(home, 'Library', 'Application Support');
  const xdgConfig = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  return [
    { client: 'claude-code', file: join(home, '.claude.json'), scope: 'user', shape: 'claude-json' },
    { client: 'claude-code', file: join(cwd, '.mcp.json'), scope: 'project', shape: 'mcpServers' },
    { client: 'claude-desktop', file: join(xdgConfig, 'Claude', 'claude_desktop_config.json'), scope: 'user', shape: 'mcpServers' },
    { client: 'claude-desktop', file: join(mac, 'Claude', 'claude_desktop_config.json'), scope: 'user', shape: 'mcpServers' },
    { client: 'cursor', file: join(home, '.cursor', 'mcp.json'), scope: 'user', shape: 'mcpServers' },
    { client: 'cursor', file: join(cwd, '.cursor', 'mcp.json'), scope: 'project', shape: 'mcpServers' },
    { client: 'gemini-cli', file: join(home, '.gemini', 'settings.json'), scope: 'user', shape: 'mcpServers' },
    { client: 'gemini-cli', file: join(cwd, '.gemini', 'settings.json'), scope: 'project', shape: 'mcpServers' },
    { client: 'codex', file: join(codexHome, 'config.toml'), scope: 'user', shape: 'codex' },
    { client: 'windsurf', file: join(home, '.codeium', 'windsurf', 'mcp_config.json'), scope: 'user', shape: 'mcpServers' },
    { client: 'vscode', file: join(xdgConfig, 'Code', 'User', 'mcp.json'), scope: 'user', shape: 'vscode' },
    { client: 'vscode', file: join(mac, 'Code', 'User', 'mcp.json'), scope: 'user', shape: 'vscode' },
    { client: 'vscode', file: join(cwd, '.vscode', 'mcp.json'), scope: 'project', shape: 'vscode' },
    { client: 'vscode', file: join(cwd, '.vscode', 'settings.json'), scope: 'project', shape: 'vscode-settings' },
  ];
}

/** Every MCP server the installed clients know, for this user and the project in `cwd`. */
export function readClientConfigs(o: { home: string; cwd: string; env?: NodeJS.ProcessEnv }): ClientServers {
  const env = o.env ?? process.env;
  const out: ClientServers = { entries: [], notes: [], files: [] };
  const seen = new Set<string>();
  for (const src of clientConfigSources(o.home, o.cwd, env)) {
    const key = canonical(src.file);
    if (seen.has(key)) continue; // the project is the home directory: its files are the user's
    seen.add(key);
    readSource(src, { home: o.home, cwd: o.cwd, env }, out);
  }
  return out;
}

/** The servers in files named on the command line; their shape (and client) is recognised from content and name. */
export function readConfigFiles(files: readonly string[], o: { home: string; cwd: string; env?: NodeJS.ProcessEnv }): ClientServers {
  const env = o.env ?? process.env;
  const out: ClientServers = { entries: [], notes: [], files: [] };
  for (const f of files) {
    const file = resolve(o.cwd, f);
    if (!existsSync(file)) {
      out.notes.push({ client: 'file', file, message: 'the file does not exist' });
      continue;
    }
    const project = projectOfFile(file);
    readSource({ client: clientOfFile(file), file, scope: project ? 'project' : 'user', shape: 'auto', explicit: true }, { home: o.home, cwd: project ?? o.cwd, env }, out);
  }
  return out;
}

/** A named file's client, from where such files live. */
function clientOfFile(file: string): ClientName {
  const b = basename(file);
  const parent = basename(dirname(file));
  if (b === '.claude.json' || b === '.mcp.json') return 'claude-code';
  if (b === 'claude_desktop_config.json') return 'claude-desktop';
  if (parent === '.cursor' && b === 'mcp.json') return 'cursor';
  if (parent === '.gemini' && b === 'settings.json') return 'gemini-cli';
  if (b.endsWith('.toml')) return 'codex';
  if (b === 'mcp_config.json') return 'windsurf';
  if (parent === '.vscode' || (parent === 'User' && b === 'mcp.json')) return 'vscode';
  return 'file';
}

/** The project a named file belongs to, when it is one of the files clients read from a project. */
function projectOfFile(file: string): string | null {
  const parent = basename(dirname(file));
  if (basename(file) === '.mcp.json') return dirname(file);
  if (parent === '.vscode' || parent === '.cursor' || parent === '.gemini') return dirname(dirname(file));
  return null;
}

function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

interface Ctx {
  home: string;
  /** The project directory: what `${workspaceFolder}` and a project file's relative paths mean. */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

function readSource(src: Source, ctx: Ctx, out: ClientServers): void {
  let text: string;
  try {
    text = readFileSync(src.file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') out.notes.push({ client: src.client, file: src.file, message: `cannot read: ${(e as Error).message}` });
    return;
  }
  out.files.push(src.file);
  const note = (message: string) => out.notes.push({ client: src.client, file: src.file, message });
  let data: unknown;
  const toml = src.shape === 'codex' || (src.shape === 'auto' && src.file.endsWith('.toml'));
  if (toml) {
    try {
      data = parseToml(text);
    } catch (e) {
      note(e instanceof TomlError ? `not valid TOML (${e.message}); skipped` : `cannot parse: ${(e as Error).message}`);
      return;
    }
  } else {
    const errors: ParseError[] = [];
    data = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
    if (errors.length > 0) {
      const first = errors[0]!;
      note(`not valid JSON (${printParseErrorCode(first.error)} at line ${lineOf(text, first.offset)}); skipped`);
      return;
    }
  }
  if (!isPlainObject(data)) {
    if (text.trim() !== '') note('not a JSON object; skipped');
    return;
  }
  const add = (servers: unknown, scope: string, c: Ctx, vscode = false) => {
    if (servers === undefined) return;
    if (!isPlainObject(servers)) {
      note(`${vscode ? 'servers' : 'mcpServers'} is not an object; skipped`);
      return;
    }
    for (const [name, raw] of Object.entries(servers)) {
      const entry = toEntry(src, name, raw, scope, c, note);
      if (entry) out.entries.push(entry);
    }
  };
  const shape = src.shape === 'auto' ? detectShape(data) : src.shape;
  switch (shape) {
    case 'claude-json': {
      add(data['mcpServers'], 'user', ctx);
      const projects = data['projects'];
      if (isPlainObject(projects)) {
        for (const [path, p] of Object.entries(projects)) {
          if (isPlainObject(p)) add(p['mcpServers'], `local ${path}`, { ...ctx, cwd: path });
        }
      }
      break;
    }
    case 'mcpServers':
      add(data['mcpServers'], src.scope, ctx);
      break;
    case 'vscode':
      add(data['servers'], src.scope, ctx, true);
      break;
    case 'vscode-settings': {
      const mcp = data['mcp'];
      add(isPlainObject(mcp) ? mcp['servers'] : data['mcp.servers'], src.scope, ctx, true);
      break;
    }
    case 'codex':
      add(data['mcp_servers'], src.scope, ctx);
      break;
    default:
      note('no MCP server list found (mcpServers, servers, projects or mcp_servers)');
  }
}

function detectShape(data: Record<string, unknown>): Source['shape'] | null {
  if ('projects' in data && isPlainObject(data['projects'])) return 'claude-json';
  if ('mcp_servers' in data) return 'codex';
  if ('mcpServers' in data) return 'mcpServers';
  if ('servers' in data) return 'vscode';
  if (isPlainObject(data['mcp']) || 'mcp.servers' in data) return 'vscode-settings';
  return null;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function stringRecord(v: unknown): Record<string, string> | undefined {
  if (!isPlainObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') out[k] = String(x);
  return out;
}

const TRANSPORTS: Record<string, Transport> = {
  stdio: 'stdio', sse: 'sse', http: 'http', 'streamable-http': 'http', streamablehttp: 'http', streamable_http: 'http', streamable: 'http',
};

function toEntry(src: Source, name: string, raw: unknown, scope: string, ctx: Ctx, note: (m: string) => void): ServerEntry | null {
  if (!isPlainObject(raw)) {
    note(`server "${name}" is not an object; skipped`);
    return null;
  }
  const expand = expander(ctx, (m) => note(`server "${name}": ${m}`));
  const declared = typeof raw['type'] === 'string' ? raw['type'] : typeof raw['transport'] === 'string' ? raw['transport'] : undefined;
  let transport: Transport | undefined = declared !== undefined ? TRANSPORTS[declared.toLowerCase()] : undefined;
  if (declared !== undefined && transport === undefined) {
    note(`server "${name}" has an unknown transport "${declared}"; skipped`);
    return null;
  }
  // Gemini CLI: `httpUrl` is Streamable HTTP and `url` SSE; Windsurf: `serverUrl`.
  let url: string | undefined;
  let guessed = false;
  if (typeof raw['httpUrl'] === 'string') {
    url = raw['httpUrl'];
    transport ??= 'http';
  } else if (typeof raw['url'] === 'string') {
    url = raw['url'];
    if (transport === undefined) {
      if (src.client === 'gemini-cli') transport = 'sse';
      else {
        transport = 'http';
        guessed = true;
      }
    }
  } else if (typeof raw['serverUrl'] === 'string') {
    url = raw['serverUrl'];
    if (transport === undefined) {
      transport = 'http';
      guessed = true;
    }
  }
  const command = typeof raw['command'] === 'string' ? raw['command'] : undefined;
  const disabled = raw['disabled'] === true || raw['enabled'] === false;
  const base = { client: src.client, file: src.file, name, scope, ...(disabled ? { disabled } : {}), ...(src.scope === 'project' && !src.explicit ? { fromProject: true } : {}) };

  if (command !== undefined && (transport === undefined || transport === 'stdio')) {
    const args = Array.isArray(raw['args']) ? raw['args'].filter((a): a is string => typeof a === 'string') : [];
    if (Array.isArray(raw['args']) && args.length !== raw['args'].length) note(`server "${name}": arguments that are not strings were left out`);
    const env = stringRecord(raw['env']);
    const cwd = typeof raw['cwd'] === 'string' ? raw['cwd'] : undefined;
    return {
      ...base,
      transport: 'stdio',
      command: expand(command),
      args: args.map(expand),
      ...(env ? { env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, expand(v)])) } : {}),
      ...(cwd ? { cwd: resolve(ctx.cwd, expand(cwd)) } : src.scope === 'project' || scope.startsWith('local ') ? { cwd: ctx.cwd } : {}),
    };
  }
  if (url !== undefined && transport !== 'stdio') {
    const headers = { ...stringRecord(raw['headers']), ...stringRecord(raw['http_headers']) };
    // Codex: a bearer token named by environment variable.
    const tokenVar = raw['bearer_token_env_var'];
    if (typeof tokenVar === 'string' && ctx.env[tokenVar]) headers['Authorization'] = `Bearer ${ctx.env[tokenVar]}`;
    const envHeaders = stringRecord(raw['env_http_headers']);
    for (const [h, v] of Object.entries(envHeaders ?? {})) if (ctx.env[v]) headers[h] = ctx.env[v]!;
    return {
      ...base,
      transport: transport ?? 'http',
      url: expand(url),
      ...(Object.keys(headers).length > 0 ? { headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, expand(v)])) } : {}),
      ...(guessed ? { transportGuessed: true } : {}),
    };
  }
  note(`server "${name}" has neither a command nor a URL${transport ? ` for its transport "${transport}"` : ''}; skipped`);
  return null;
}

/**
 * Variable expansion as the clients do it: `${VAR}` and `${VAR:-default}` (Claude Code), `${env:VAR}`,
 * `${userHome}`, `${workspaceFolder}` (Cursor, VS Code). `${input:…}` needs VS Code's prompt: kept as is.
 */
function expander(ctx: Ctx, note: (m: string) => void): (s: string) => string {
  return (s) => s.replace(/\$\{([^}]{1,200})\}/g, (whole, inner: string) => {
    if (inner === 'userHome') return ctx.home;
    if (inner === 'workspaceFolder' || inner === 'workspaceRoot') return ctx.cwd;
    if (inner.startsWith('env:')) return ctx.env[inner.slice(4)] ?? '';
    if (inner.startsWith('input:')) {
      note(`uses ${whole}, which only VS Code can fill in; kept as written`);
      return whole;
    }
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(inner);
    if (!m) return whole;
    const v = ctx.env[m[1]!];
    if (v !== undefined && v !== '') return v;
    if (m[2] !== undefined) return m[2];
    note(`uses \${${m[1]}}, which is not set`);
    return '';
  });
}
