// For the MCP proxy's tests: scratch homes and projects with a policy that allows the test servers' tools,
// the official SDK client connected through `asimov mcp proxy` (the built CLI) or straight to a server,
// server-everything over HTTP on a loopback port, and a wait that polls a condition (never a sleep).

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makeScratch } from './claude-cli.ts';

export const REPO = resolve(import.meta.dirname, '../..');
export const BIN = join(REPO, 'bin/asimov.cjs');
export const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const COMMANDS = join(REPO, 'node_modules/mcp-server-commands/build/index.js');
export const FLAKY = join(REPO, 'test/fixtures/flaky-mcp-server.mjs');
export const LOOPBACK = join(REPO, 'test/fixtures/loopback-listen.cjs');
export const INSPECTOR = join(REPO, 'node_modules/.bin/mcp-inspector');

/** A user policy that lets the test servers' own tools through (everything, flaky, poisoned); the rest is the built-in policy. */
export const TEST_POLICY = `version: 1
custom:
${['everything', 'flaky', 'poisoned'].map((server) => `  - id: local.${server}
    tier: allow
    reason: The ${server} test server's tools are harmless.
    match: { tool: "mcp__${server}__*" }
    examples:
      match: [{ tool: mcp__${server}__echo, input: { message: hi } }]
      notMatch: [{ tool: mcp__other__echo, input: { message: hi } }]
`).join('')}`;

export interface ProxyScratch {
  root: string;
  home: string;
  /** A git project (its root is the project root). */
  project: string;
  audit: string;
  record: string;
  cleanup(): void;
}

export function makeProxyScratch(prefix: string, policy = TEST_POLICY): ProxyScratch {
  const s = makeScratch(prefix);
  mkdirSync(join(s.project, '.git'));
  mkdirSync(join(s.home, '.config/asimov'), { recursive: true });
  writeFileSync(join(s.home, '.config/asimov/policy.yaml'), policy);
  return { ...s, audit: join(s.root, 'audit.jsonl'), record: join(s.root, 'record.jsonl') };
}

/** The environment a proxy (and its upstream) runs with: nothing of the developer's own. */
export function proxyEnv(s: ProxyScratch, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: s.home,
    LANG: 'C.UTF-8',
    ASIMOV_AUDIT_LOG: s.audit,
    RECORDER_FILE: s.record,
    ...extra,
  };
}

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the proxy (and its upstream) wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** The SDK client talking to `command args…` over stdio (a proxy, or a server directly). */
export async function connectStdio(command: string, args: string[], o: { cwd: string; env: Record<string, string>; capabilities?: Record<string, unknown>; client?: Client }): Promise<Connected> {
  const transport = new StdioClientTransport({ command, args, cwd: o.cwd, env: o.env, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => { err += c.toString('utf8'); });
  const client = o.client ?? new Client({ name: 'asimov-test', version: '1.0.0' }, { capabilities: o.capabilities ?? {} });
  await client.connect(transport);
  return { client, transport, stderr: () => err, close: () => client.close() };
}

/** The SDK client through `asimov mcp proxy [proxyArgs] -- upstream…`. */
export function connectProxy(s: ProxyScratch, upstream: string[], o: { proxyArgs?: string[]; env?: Record<string, string>; capabilities?: Record<string, unknown>; client?: Client } = {}): Promise<Connected> {
  const args = [BIN, 'mcp', 'proxy', ...(o.proxyArgs ?? []), ...(upstream.length > 0 ? ['--', ...upstream] : [])];
  return connectStdio(process.execPath, args, { cwd: s.project, env: proxyEnv(s, o.env), ...(o.capabilities ? { capabilities: o.capabilities } : {}), ...(o.client ? { client: o.client } : {}) });
}

/** Polls until `cond` holds; fails naming `what` if it never does. */
export async function waitFor<T>(cond: () => T | undefined | null | false, what: string, limitMs = 30_000): Promise<T> {
  const until = Date.now() + limitMs;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** What the flaky server recorded: every message it received, with its pid. */
export function recorded(file: string): Array<{ pid: number; msg: any }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

export function auditLines(file: string): any[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

/**
 * The audit log once every wanted line is in it. The proxy journals a call's record before the call may go
 * upstream and seals it into the shared log in a batch once it is idle or within 100 ms (src/audit/journal.ts),
 * so a test that reads the log the moment it has the answer may be early. Fails with the lines it did find.
 */
export async function auditLinesWith(file: string, ...wanted: Array<(line: any) => boolean>): Promise<any[]> {
  let lines: any[] = [];
  try {
    return await waitFor(() => {
      lines = auditLines(file);
      return wanted.every((w) => lines.some(w)) && lines;
    }, 'the audit records', 10_000);
  } catch {
    throw new Error(`the audit log lacks a wanted record; it holds:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

export interface HttpServer {
  url: string;
  port: number;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** server-everything over `sse` or `streamableHttp`, bound to 127.0.0.1 (the preload sees to it), on `port`. */
export async function startHttpEverything(kind: 'sse' | 'streamableHttp', port?: number): Promise<HttpServer> {
  const p = port ?? (await freePort());
  const child = spawn(process.execPath, ['--require', LOOPBACK, EVERYTHING, kind], {
    env: { PATH: process.env.PATH ?? '', PORT: String(p) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => { err += c.toString('utf8'); });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitFor(() => err.includes('loopback-listen: listening on') || child.exitCode !== null, `server-everything ${kind} to listen`);
  if (!err.includes(`loopback-listen: listening on 127.0.0.1:${p}`)) throw new Error(`server-everything did not listen on 127.0.0.1:${p}: ${err}`);
  return {
    url: `http://127.0.0.1:${p}/${kind === 'sse' ? 'sse' : 'mcp'}`,
    port: p,
    child,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
