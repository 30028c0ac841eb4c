// The resident decision process: a unix socket server that runs `asimov hook …` and `asimov check …` for
// clients (bin/daemon-client.cjs) with the bundle loaded, the JIT warm and the gates kept (gate-cache.ts).
// Each request runs the CLI's own code, main(argv, io), with the client's arguments, directory,
// environment, start time and standard input, so its answer is the one the client's own process would give.
// Anything the daemon cannot answer exactly as that process would, it refuses, and the client decides itself.

import { createServer, connect, type Server, type Socket } from 'node:net';
import { lstatSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { AsimovError, describeError, errnoOf } from '../../core/errors.ts';
import type { CliIO } from '../io.ts';
import { createDecisionTiming } from '../decision-timing.ts';
import { createGateCache } from './gate-cache.ts';
import { encodeBytesReply, encodeFrame, FrameReader, parseRequest, type DaemonStatus, type Reply, type RunRequest } from './protocol.ts';
import { ensurePrivateDir } from './socket-path.ts';

/** How often the daemon checks that its socket is still the one it listens on. */
export const SOCKET_CHECK_MS = 5_000;

export type RunCommand = (argv: string[], io: CliIO) => Promise<number>;

export interface ServeOptions {
  socketPath: string;
  /** The build this process runs; requests from clients of another build are answered `stale`. */
  build: string;
  /** Exit after this long without a request; 0 never. */
  idleMs: number;
  /** The CLI's main. */
  run: RunCommand;
  log?: (line: string) => void;
}

export interface DaemonServer {
  /** Settles when the server has closed (stop, idle, a stale client, close()). */
  readonly closed: Promise<void>;
  close(reason: string): void;
  status(): DaemonStatus;
}

/** Whether a daemon answers at the socket: 'live', 'stale' (a socket file nobody listens on) or 'absent'. */
export function probeSocket(socketPath: string): Promise<'live' | 'stale' | 'absent'> {
  return new Promise((resolvePromise, reject) => {
    const sock = connect(socketPath);
    sock.on('connect', () => {
      sock.destroy();
      resolvePromise('live');
    });
    sock.on('error', (e) => {
      const code = errnoOf(e);
      if (code === 'ECONNREFUSED') resolvePromise('stale');
      else if (code === 'ENOENT') resolvePromise('absent');
      else reject(e);
    });
  });
}

/** Listens on the socket (in a private directory), refusing to when a live daemon is already there. */
export async function startServer(o: ServeOptions): Promise<DaemonServer> {
  const log = o.log ?? (() => {});
  ensurePrivateDir(dirname(o.socketPath));
  const state = await probeSocket(o.socketPath);
  if (state === 'live') throw new AsimovError('io_error', `a daemon is already listening at ${o.socketPath}`);
  // Only a socket that refuses connections is removed: nobody serves it, so nobody loses it.
  if (state === 'stale' && lstatSync(o.socketPath).isSocket()) unlinkSync(o.socketPath);

  const gates = createGateCache();
  const startedAt = Date.now();
  let served = 0;
  // Each request's time in the daemon (mean as well as median: the slow few cost as much as the rest).
  const timing = createDecisionTiming();
  let inFlight = 0;
  let closing = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  const server: Server = createServer((sock) => onConnection(sock));
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', (e) => {
      reject(errnoOf(e) === 'EADDRINUSE' ? new AsimovError('io_error', `a daemon is already listening at ${o.socketPath}`, undefined, { cause: e }) : e);
    });
    server.listen(o.socketPath, () => resolvePromise());
  });
  server.on('error', (e) => log(`server error: ${describeError(e)}`));
  const ino = lstatSync(o.socketPath).ino;
  // A daemon nobody can reach any more (its socket removed or replaced: a cleared cache, a removed home)
  // serves no one: it exits rather than wait out its idle time, and the next call starts a fresh one.
  const reachable = setInterval(() => {
    let same = false;
    try {
      same = lstatSync(o.socketPath).ino === ino;
    } catch {
      same = false;
    }
    if (!same) close('its socket is gone');
  }, SOCKET_CHECK_MS);
  reachable.unref();

  const status = (): DaemonStatus => ({
    pid: process.pid,
    build: o.build,
    socket: o.socketPath,
    startedAt,
    uptimeMs: Date.now() - startedAt,
    served,
    inFlight,
    idleMinutes: o.idleMs / 60_000,
    timing: timing.summary(),
    rssBytes: process.memoryUsage.rss(),
  });

  const armIdle = (): void => {
    clearTimeout(idleTimer);
    if (o.idleMs > 0 && inFlight === 0 && !closing) idleTimer = setTimeout(() => close(`idle for ${o.idleMs / 60_000} minutes`), o.idleMs);
  };

  const close = (reason: string): void => {
    if (closing) return;
    closing = true;
    clearTimeout(idleTimer);
    clearInterval(reachable);
    log(`stopping: ${reason}`);
    // Remove the socket only while it is still ours (a new daemon may have replaced a stale one).
    try {
      if (lstatSync(o.socketPath).ino === ino) unlinkSync(o.socketPath);
    } catch {
      // Already gone.
    }
    server.close(() => resolveClosed());
  };

  const handle = async (value: unknown): Promise<Reply> => {
    const req = parseRequest(value);
    if (typeof req === 'string') return { refused: req };
    if (req.op === 'status') return { status: status() };
    if (req.op === 'stop') {
      setImmediate(() => close('asked to stop'));
      return { stopping: true };
    }
    if (req.build !== o.build) {
      // The client's files are another build: this process's code is out of date. Make way for a fresh one.
      setImmediate(() => close(`a client of build ${req.build} (this is ${o.build})`));
      return { stale: true };
    }
    const why = refusal(req);
    if (why !== null) return { refused: why };
    return runRequest(req);
  };

  const runRequest = async (req: RunRequest): Promise<Reply> => {
    inFlight++;
    served++;
    clearTimeout(idleTimer);
    const done = timing.begin();
    let stdout = '';
    let stderr = '';
    const bytes = Buffer.from(req.stdin, 'base64');
    const io: CliIO = {
      out: (s) => { stdout += s; },
      err: (s) => { stderr += s; },
      stdin: async function* () {
        yield bytes;
      },
      cwd: req.cwd,
      env: req.env,
      started: req.started,
      gateFor: (options) => gates.gateFor(options),
    };
    try {
      const exitCode = await o.run(req.argv, io);
      return { stdout, stderr, exitCode };
    } finally {
      done();
      inFlight--;
      armIdle();
    }
  };

  const onConnection = (sock: Socket): void => {
    const reader = new FrameReader();
    let answered = false;
    sock.on('error', () => {}); // a client that went away: nothing to answer
    let bytes = false;
    const answer = (reply: Reply): void => {
      if (!sock.destroyed) sock.end(bytes ? encodeBytesReply(reply) : encodeFrame(reply));
    };
    sock.on('data', (chunk: Buffer) => {
      if (answered) return;
      let value: unknown;
      try {
        value = reader.push(chunk);
      } catch (e) {
        answered = true;
        answer({ refused: `bad request: ${describeError(e)}` });
        return;
      }
      if (value === undefined) return;
      answered = true;
      bytes = typeof value === 'object' && value !== null && (value as { reply?: unknown }).reply === 'bytes';
      handle(value).then(answer, (e: unknown) => {
        log(`request failed: ${describeError(e)}`);
        answer({ refused: `the daemon failed: ${describeError(e)}` });
      });
    });
  };

  log(`listening at ${o.socketPath} (pid ${process.pid}, build ${o.build})`);
  armIdle();
  return { closed, close, status };
}

/**
 * Why the daemon will not run this request, or null. Only the per-call commands are served, and only when
 * nothing outside the request would make the answer differ from the client's own process: the temp
 * directory comes from this process's environment (os.tmpdir()), and a missing HOME from its user entry.
 */
export function refusal(req: RunRequest): string | null {
  const [name, ...rest] = req.argv;
  if (name !== 'hook' && name !== 'check') return `the daemon answers hook and check, not ${JSON.stringify(name ?? '')}`;
  const options = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  if (name === 'check' && options.some((a) => a === '--batch' || a.startsWith('--batch='))) return 'check --batch streams; it runs in its own process';
  if (!req.env.HOME) return 'HOME is not set';
  if (tmpdirOf(req.env) !== tmpdir()) return `the client's temp directory ${tmpdirOf(req.env)} is not the daemon's ${tmpdir()}`;
  return null;
}

/** os.tmpdir() as it would read this environment (POSIX). */
export function tmpdirOf(env: Record<string, string | undefined>): string {
  let path = env.TMPDIR || env.TMP || env.TEMP || '/tmp';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}
