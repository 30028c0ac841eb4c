// This user's commands talking to a running `asimov serve` through the local socket beside its data
// (server/start.ts): no token, because only this user can reach it. Used by `asimov serve token …` and
// `asimov approvals …`.

import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { asimovStateDir } from '../core/asimov-dirs.ts';
import { AsimovError } from '../core/errors.ts';
import { isPrivateDir } from '../core/private-dir.ts';

import { SOCKET_NAME } from '../server/socket-name.ts';

/** The server's default data directory: `$XDG_STATE_HOME/asimov/serve`, else `~/.local/state/asimov/serve`. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  return join(asimovStateDir(env), 'serve');
}

export interface LocalAnswer {
  status: number;
  body: any;
}

/** Whether a server seems to run on this data directory (its socket exists in a private directory). */
export function localServerSocket(dataDir: string): string | null {
  const path = join(dataDir, SOCKET_NAME);
  return existsSync(path) && isPrivateDir(dataDir) ? path : null;
}

/** One JSON request over the local socket; rejects when no server answers there. */
export function localRequest(socketPath: string, method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<LocalAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { socketPath, path, method, headers: payload !== undefined ? { 'content-type': 'application/json' } : {}, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON: kept as text */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new AsimovError('io_error', `asimov serve did not answer within ${timeoutMs} ms`)));
    req.on('error', (e) => reject(e));
    req.end(payload);
  });
}

/** The message of an error answer, or a description of an unexpected one. */
export function answerMessage(a: LocalAnswer): string {
  if (a.body && typeof a.body === 'object' && typeof a.body.message === 'string') return a.body.message;
  return `HTTP ${a.status}: ${typeof a.body === 'string' ? a.body.slice(0, 200) : JSON.stringify(a.body).slice(0, 200)}`;
}
