// `asimov daemon start|stop|status|run`: the optional resident process that answers `asimov hook` and
// `asimov check` for their clients, so that each call costs a connection instead of loading asimov.

import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeError } from '../core/errors.ts';
import { runningBuildId } from './daemon/build-id.ts';
import { describeStop, POLL_MS, queryStatus, sleep, stopDaemon, WAIT_MS } from './daemon/control.ts';
import { startServer } from './daemon/server.ts';
import { ensurePrivateDir, socketPathFor } from './daemon/socket-path.ts';
import { parseOptions, unknownName } from './args.ts';
import { formatTiming } from './decision-timing.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { main } from './main.ts';

const USAGE = `Usage: asimov daemon start|stop|status|run [--idle-minutes N] [--json]

A resident process that answers \`asimov hook\` and \`asimov check\` for them, so that each call skips
loading asimov. Optional: without it, every call decides in its own process. ASIMOV_DAEMON=off bypasses it.

  start     start one in the background (its log sits beside its socket)
  stop      ask it to exit
  status    its pid, build, uptime and requests served (exit 1 when none runs)
  run       serve in the foreground
  --idle-minutes N   exit after N minutes without a request (default 30; 0 never)
`;

const DEFAULT_IDLE_MINUTES = 30;

export async function daemonCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      'idle-minutes': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  const [action, ...extra] = positionals;
  const actions = ['start', 'stop', 'status', 'run'];
  if (action !== undefined && !actions.includes(action)) throw unknownName('daemon command', action, actions);
  if (extra.length > 0 || action === undefined) throw new UsageError('give one of start, stop, status, run');
  const idle = values['idle-minutes'] === undefined ? DEFAULT_IDLE_MINUTES : Number(values['idle-minutes']);
  if (!Number.isFinite(idle) || idle < 0) throw new UsageError('--idle-minutes must be a number of minutes, 0 or more');
  const socketPath = socketPathFor(io.env);
  switch (action) {
    case 'run':
      return run(socketPath, idle, io);
    case 'start':
      return start(socketPath, idle, io);
    case 'stop':
      return stop(socketPath, io);
    default:
      return status(socketPath, io, values.json === true);
  }
}

async function run(socketPath: string, idleMinutes: number, io: CliIO): Promise<number> {
  const build = runningBuildId();
  if (build === null) {
    io.err('asimov daemon: this is not a built asimov (no build id); run it from dist/ (`npm run build`).\n');
    return EXIT.error;
  }
  const log = (line: string): void => io.err(`${new Date().toISOString()} asimov daemon: ${line}\n`);
  const server = await startServer({ socketPath, build, idleMs: idleMinutes * 60_000, run: main, log });
  // What decides the calls it answers: each call's own project policy; the judge and audit as the environment
  // the daemon started with says (a hook in another environment is answered in its own process instead).
  const { bannerFacts, bannerLines } = await import('./active-banner.ts');
  const { createGate } = await import('../gate/gate.ts');
  const facts = bannerFacts(createGate({ env: io.env, audit: false }), io.cwd, io.env, { approvals: 'as each hook\'s client asks its user (the hook replies "ask")' });
  for (const line of bannerLines({ ...facts, policy: `each call's project policy on top of ${facts.policy.replace(/ \+ project .*$/, '')}` })) log(line);
  const onSignal = (signal: string) => () => server.close(signal);
  const term = onSignal('SIGTERM');
  const int = onSignal('SIGINT');
  process.once('SIGTERM', term);
  process.once('SIGINT', int);
  await server.closed;
  process.off('SIGTERM', term);
  process.off('SIGINT', int);
  return EXIT.ok;
}

async function start(socketPath: string, idleMinutes: number, io: CliIO): Promise<number> {
  const live = await queryStatus(socketPath);
  if (live) {
    io.out(`asimov daemon: already running at ${socketPath} (pid ${live.pid})\n`);
    return EXIT.ok;
  }
  const dir = dirname(socketPath);
  ensurePrivateDir(dir);
  const logPath = join(dir, 'daemon.log');
  const logFd = openSync(logPath, 'a', 0o600);
  const size = readFileSync(logPath).length;
  const bin = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'asimov.cjs');
  let exited: string | null = null;
  try {
    const child = spawn(process.execPath, [bin, 'daemon', 'run', '--idle-minutes', String(idleMinutes)], {
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: io.env,
      cwd: '/',
    });
    child.on('exit', (code, signal) => (exited = signal ?? `exit ${code ?? '?'}`));
    child.on('error', (e) => (exited = describeError(e)));
    child.unref();
  } finally {
    closeSync(logFd);
  }
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline && exited === null) {
    const s = await queryStatus(socketPath);
    if (s) {
      io.out(`asimov daemon: running at ${socketPath} (pid ${s.pid}, build ${s.build}); log ${logPath}\n`);
      return EXIT.ok;
    }
    await sleep(POLL_MS);
  }
  const tail = readFileSync(logPath, 'utf8').slice(size).trim();
  io.err(`asimov daemon: it did not start${exited !== null ? ` (${exited})` : ''}${tail ? `:\n${tail}` : ''}\n`);
  return EXIT.error;
}

async function stop(socketPath: string, io: CliIO): Promise<number> {
  const r = await stopDaemon(socketPath);
  if (r.kind === 'failed') {
    io.err(`asimov daemon: ${describeStop(r, socketPath)}\n`);
    return EXIT.error;
  }
  io.out(`asimov daemon: ${describeStop(r, socketPath)}\n`);
  return EXIT.ok;
}

async function status(socketPath: string, io: CliIO, json: boolean): Promise<number> {
  const s = await queryStatus(socketPath);
  if (json) io.out(`${JSON.stringify(s ? { running: true, ...s } : { running: false, socket: socketPath })}\n`);
  else if (!s) io.out(`asimov daemon: not running (socket ${socketPath})\n`);
  else {
    io.out(
      `asimov daemon: running at ${s.socket}\n  pid ${s.pid}, build ${s.build}\n  up ${formatDuration(s.uptimeMs)}, ${s.served} requests served, ${s.inFlight} in flight\n` +
        `  exits after ${s.idleMinutes > 0 ? `${s.idleMinutes} idle minutes` : 'never (no idle limit)'}\n`,
    );
    // The mean as well as the median: the slowest few requests can cost as much as all the others.
    if (s.timing) io.out(`  per request: ${formatTiming(s.timing)}\n`);
    io.out(`  resident memory ${(s.rssBytes / (1024 * 1024)).toFixed(0)} MB\n`);
  }
  return s ? EXIT.ok : EXIT.error;
}

function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
