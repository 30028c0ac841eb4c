// A real `asimov serve` for tests: started in process on a free loopback port over a scratch HOME (its own
// policy files, audit log, state and data directory), with tokens made through the server's own store.
// Starting one costs a few seconds (PGlite's initdb), so a test file starts one in `before` and shares it.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer, type StartOptions } from '../../src/server/start.ts';
import type { Scope } from '../../src/store/tokens.ts';

export interface TestServer {
  server: RunningServer;
  url: string;
  root: string;
  home: string;
  /** A project (with .git) inside home, for calls' cwd. */
  project: string;
  /** The audit log the server's gate writes. */
  auditLog: string;
  env: NodeJS.ProcessEnv;
  /** A new token with these scopes (a fresh name each time unless given). */
  token(scopes: Scope[], name?: string): Promise<string>;
  /** A JSON request with a bearer token (or none); the status and the parsed body. */
  call(method: string, path: string, opts?: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string | Buffer }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

let counter = 0;

export async function startTestServer(extra: Partial<StartOptions> & { envExtra?: NodeJS.ProcessEnv } = {}): Promise<TestServer> {
  const root = mkdtempSync(join(tmpdir(), 'asimov-serve-'));
  const home = join(root, 'home');
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const auditLog = join(root, 'audit.jsonl');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    ASIMOV_AUDIT_LOG: auditLog,
    ASIMOV_JUDGE: 'off',
    ...extra.envExtra,
  };
  const { envExtra: _ignored, ...opts } = extra;
  const server = await startServer({
    listen: { host: '127.0.0.1', port: 0 },
    dataDir: join(root, 'serve'),
    env,
    cwd: project,
    version: 'test',
    ...opts,
  });
  const call: TestServer['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | Buffer | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const r = await fetch(server.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await r.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: r.status, body: parsed, headers: r.headers };
  };
  return {
    server,
    url: server.url,
    root,
    home,
    project,
    auditLog,
    env,
    token: async (scopes, name) => (await server.deps.tokens.create(name ?? `t${++counter}`, scopes)).token,
    call,
    close: async () => {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
