// `asimov serve` as its own process, as an operator runs it (the built CLI): started on a given or free loopback
// port, its URL read from what it prints, killable like any process (SIGKILL for a replica that dies).

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { BIN } from './asimov-cli.ts';

export interface ServeProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything it printed on stderr so far. */
  log(): string;
  /** SIGTERM (or the given signal), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startServeProcess(o: { env: NodeJS.ProcessEnv; cwd: string; args?: string[]; port?: number; timeoutMs?: number }): Promise<ServeProcess> {
  const port = o.port ?? (await freePort());
  const child = spawn(process.execPath, [BIN, 'serve', '--listen', `127.0.0.1:${port}`, ...(o.args ?? [])], { env: o.env, cwd: o.cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`asimov serve did not start within ${o.timeoutMs ?? 60_000} ms: ${err}`)), o.timeoutMs ?? 60_000);
    const check = () => {
      const m = /listening on (https?:\/\/[\d.]+:\d+)/.exec(err);
      if (m) {
        clearTimeout(t);
        child.stderr!.off('data', check);
        resolve(m[1]!);
      }
    };
    child.stderr!.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(t);
      reject(new Error(`asimov serve exited (${signal ?? code}) before listening: ${err}`));
    });
  });
  return {
    url,
    port,
    child,
    log: () => err,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
