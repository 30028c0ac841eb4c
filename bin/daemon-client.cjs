// The fast path of `asimov hook …` and `asimov check …`: hand the call to the resident daemon (`asimov daemon
// start`) instead of loading asimov in this process. Plain CommonJS with no dependencies, loaded before any
// bundle, so it costs almost nothing when no daemon runs.
//
// It never decides anything itself. On any problem (no socket, a socket in a directory that is not this
// user's alone, a refused or dropped connection, another build, a reply that is not exactly what it should
// be, no reply in time) it returns what it has read of stdin, and bin/asimov.cjs decides in this process as
// if the daemon did not exist. socketPathFor and isPrivateDir copy src/cli/daemon/socket-path.ts
// (test/bin/daemon-client.test.ts keeps them equal).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PROTOCOL_VERSION = 1;
/** One byte more than the hook runtime accepts, so that its own size check still fires. */
const MAX_STDIN_BYTES = 16 * 1024 * 1024 + 1;
const MAX_REPLY_BYTES = 32 * 1024 * 1024;
/** src/wire/hook-command.ts DEFAULT_DEADLINE_MS. */
const DEFAULT_DEADLINE_MS = 40_000;
/** Kept back from a hook's deadline: the daemon answers a block at 250 ms before it; this is the last moment. */
const DEADLINE_MARGIN_MS = 100;
/** `check` has no deadline; a daemon silent this long is given up on. */
const CHECK_TIMEOUT_MS = 120_000;
const MAX_SOCKET_PATH_BYTES = 100;
const CLI = path.join(__dirname, '..', 'dist', 'cli.cjs');

/** At most one start of a daemon on demand per this long, per socket directory. */
const AUTOSTART_INTERVAL_MS = 30_000;

/** `ASIMOV_DAEMON`: `off` (or `0`) bypasses the daemon; `manual` uses one that runs but never starts one. */
function daemonMode(env) {
  const v = env.ASIMOV_DAEMON;
  if (v === 'off' || v === '0') return 'off';
  return v === 'manual' ? 'manual' : 'auto';
}

/**
 * What the hook's first stage (bin/hook-first-stage.pl) says when it hands a call to node: how long it has
 * run (so that the deadline still counts from the client's start) and why the daemon did not answer. Null when
 * this process was not started by it. The variable is removed from the environment: nothing after this reads it.
 */
function firstStageHandover(env) {
  const raw = env.ASIMOV_FIRST_STAGE;
  if (raw === undefined) return null;
  delete env.ASIMOV_FIRST_STAGE;
  const m = /^(\d{1,9}),([a-z-]{1,20})$/.exec(raw);
  const startedHere = Math.floor(Date.now() - process.uptime() * 1000);
  if (m === null) return { started: startedHere, why: 'unknown' };
  // An age beyond ten minutes is no age a hook can have (its deadline is at most that): ignored, not trusted.
  const age = Math.min(Number(m[1]), 600_000);
  return { started: startedHere - age, why: m[2] };
}

/**
 * Starts a resident daemon in the background (`asimov daemon start`, detached) for the calls after this one,
 * after a hook call found none to answer it. At most once per AUTOSTART_INTERVAL_MS (a stamp file in the
 * socket's directory), never into a directory others can enter, and never when ASIMOV_DAEMON is off or manual.
 * Costs this process a fork and nothing on the call's path (the reply is already written). Never throws.
 */
function autostartDaemon(env) {
  try {
    if (daemonMode(env) !== 'auto' || typeof process.getuid !== 'function') return false;
    const uid = process.getuid();
    const dir = path.dirname(socketPathFor(env, uid));
    if (fs.lstatSync(dir, { throwIfNoEntry: false }) === undefined) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(dir, uid)) return false;
    const stamp = path.join(dir, 'autostart');
    const st = fs.lstatSync(stamp, { throwIfNoEntry: false });
    if (st !== undefined && (!st.isFile() || Date.now() - st.mtimeMs < AUTOSTART_INTERVAL_MS)) return false;
    fs.writeFileSync(stamp, `${process.pid}\n`, { mode: 0o600 });
    const child = require('node:child_process').spawn(process.execPath, [path.join(__dirname, 'asimov.cjs'), 'daemon', 'start'], {
      detached: true, stdio: 'ignore', cwd: '/', env,
    });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** Whether this command line may go to the daemon at all. */
function eligible(argv, env) {
  if (daemonMode(env) === 'off') return false;
  if (typeof process.getuid !== 'function') return false;
  if (argv[0] === 'hook') return true;
  if (argv[0] !== 'check') return false;
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  return !options.some((a) => a === '--batch' || a.startsWith('--batch='));
}

function socketPathFor(env, uid) {
  let dir;
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && xdg.startsWith('/') && ownDirectory(xdg, uid)) dir = path.join(xdg, 'asimov');
  else dir = path.join(env.HOME || os.homedir(), '.cache', 'asimov', 'run');
  let p = path.join(dir, 'd.sock');
  if (Buffer.byteLength(p) > MAX_SOCKET_PATH_BYTES) p = path.join(`/tmp/asimov-${uid}`, 'd.sock');
  return p;
}

function ownDirectory(dir, uid) {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  return st !== undefined && st.isDirectory() && st.uid === uid;
}

/** A real directory (lstat: not a symlink) owned by uid, with no group or other permission bits. */
function isPrivateDir(dir, uid) {
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return false;
  }
  return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
}

/** The build id on dist/cli.cjs's first line, reading only its first bytes; null when there is none. */
function buildIdOf(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(100);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const m = /^\/\*asimov-build:([0-9a-f-]+)\*\//.exec(buf.toString('latin1', 0, n));
    return m ? m[1] : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** `--deadline-ms N` or `--deadline-ms=N` of a hook command line (a bad value is the command's to report). */
function deadlineMsOf(argv) {
  let raw;
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === '--deadline-ms') raw = argv[i + 1];
    else if (argv[i].startsWith('--deadline-ms=')) raw = argv[i].slice('--deadline-ms='.length);
  }
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) && n > 0 ? n : DEFAULT_DEADLINE_MS;
}

/**
 * Reads stdin until it ends, MAX_STDIN_BYTES arrive, or the deadline. `complete` is false when the
 * deadline came first; the stream is then left paused, for the in-process path to go on reading.
 */
function readStdin(deadline) {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    const stdin = process.stdin;
    const done = (complete) => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      stdin.pause();
      resolve({ chunks, complete });
    };
    const onData = (chunk) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_STDIN_BYTES) done(true);
    };
    const onEnd = () => done(true);
    // A stdin that cannot be read is the in-process path's to report, the same way it always does.
    const onError = () => done(false);
    const timer = setTimeout(() => done(false), Math.max(0, deadline - Date.now()));
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
  });
}

/** One request, one reply (a 4-byte big-endian length, then JSON); rejects on anything short of that. */
function ask(socketPath, request, deadline) {
  const net = require('node:net');
  return new Promise((resolve, reject) => {
    const body = Buffer.from(JSON.stringify(request), 'utf8');
    const head = Buffer.allocUnsafe(4);
    head.writeUInt32BE(body.length, 0);
    const sock = net.connect(socketPath);
    const got = [];
    let size = 0;
    let settled = false;
    const finish = (err, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(new Error('no reply in time')), Math.max(0, deadline - Date.now()));
    // write, not end: a half-closed connection would let a server without allowHalfOpen close before replying.
    sock.on('connect', () => sock.write(Buffer.concat([head, body])));
    sock.on('data', (chunk) => {
      got.push(chunk);
      size += chunk.length;
      if (size < 4) return;
      const all = got.length === 1 ? got[0] : Buffer.concat(got, size);
      const want = all.readUInt32BE(0);
      if (want > MAX_REPLY_BYTES) return finish(new Error('reply too large'));
      if (size < 4 + want) return;
      try {
        finish(null, JSON.parse(all.toString('utf8', 4, 4 + want)));
      } catch (e) {
        finish(e);
      }
    });
    sock.on('error', (e) => finish(e));
    sock.on('close', () => finish(new Error('closed without a reply')));
  });
}

/** The reply of a command run, or null for anything else (stale, refused, malformed). */
function runReply(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { stdout, stderr, exitCode } = value;
  if (typeof stdout !== 'string' || typeof stderr !== 'string') return null;
  if (!Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255) return null;
  return { stdout, stderr, exitCode };
}

/** Standard input for the in-process path: what was read here, then (if it had not ended) the rest. */
function handover(chunks, complete) {
  return async function* stdin() {
    // A turn of the timer queue first: runHook starts its deadline timer before reading, so a deadline that
    // has already passed fires before this in-memory input could let a decision win the race.
    await new Promise((r) => setTimeout(r, 0));
    for (const c of chunks) yield c;
    if (!complete) for await (const c of process.stdin) yield c;
  };
}

/**
 * Tries the daemon. Resolves `{ reply }` with what to write and the exit code, or `{ io }` with the fields the
 * in-process path must use instead of its own (the stdin already read here, and this process's start), or
 * `{}` when nothing was read. Never rejects.
 */
async function viaDaemon(argv, env) {
  const started = Math.floor(Date.now() - process.uptime() * 1000);
  let chunks = [];
  let complete = true;
  let read = false;
  try {
    const uid = process.getuid();
    const socketPath = socketPathFor(env, uid);
    if (!isPrivateDir(path.dirname(socketPath), uid)) return {};
    const sock = fs.lstatSync(socketPath, { throwIfNoEntry: false });
    if (sock === undefined || !sock.isSocket() || sock.uid !== uid) return {};
    const build = buildIdOf(CLI);
    if (build === null) return {};
    const isHook = argv[0] === 'hook';
    const deadline = isHook ? started + deadlineMsOf(argv) - DEADLINE_MARGIN_MS : Date.now() + CHECK_TIMEOUT_MS;
    if (isHook) {
      read = true;
      ({ chunks, complete } = await readStdin(deadline));
      if (!complete) throw new Error('stdin did not end in time');
    }
    const stdin = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const request = { v: PROTOCOL_VERSION, op: 'run', build, argv, cwd: process.cwd(), env, started, stdin: stdin.toString('base64') };
    const reply = runReply(await ask(socketPath, request, deadline));
    if (reply === null) throw new Error('no usable reply');
    return { reply };
  } catch {
    return read ? { io: { stdin: handover(chunks, complete), started } } : {};
  }
}

/** Whether the first stage's reason for handing a call over should start a daemon: none answered, or an old one. */
function wantsDaemon(why) {
  return why === 'absent' || why === 'stale';
}

/** Writes the daemon's reply and exits with its code once both streams are flushed. */
function finish(reply) {
  // A reader that went away (EPIPE) ends the output, not the process with a stack trace: each write's
  // callback still runs, so the reply's exit code stands.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  process.stdout.write(reply.stdout, () => process.stderr.write(reply.stderr, () => process.exit(reply.exitCode)));
}

module.exports = {
  eligible, viaDaemon, finish, socketPathFor, isPrivateDir, buildIdOf, deadlineMsOf, daemonMode, firstStageHandover,
  autostartDaemon, wantsDaemon, DEFAULT_DEADLINE_MS, PROTOCOL_VERSION, AUTOSTART_INTERVAL_MS,
};
