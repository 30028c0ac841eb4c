// The hook's own I/O: its reply written straight to file descriptors 1 and 2, and its payload read from fd 0
// without a stream where that cannot outlive the deadline. A hook process starts per tool call, and setting
// up process.stdin/stdout (net, stream and their helpers) is a measurable part of its start.
//
// A blocking read on a pipe that never closes would keep the process past its deadline (in the main thread
// or in libuv's threadpool, whose threads process.exit waits for), and a hook that overstays is killed and,
// for most clients, lets the tool run. So fd 0 is read synchronously only where no read can wait: a regular
// file, or (on Linux) a pipe reopened non-blocking through /proc/self/fd/0, polled until it ends. Anything
// else (a socket, a terminal, another system) is read through process.stdin as before.

import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import type { CliIO, OutState } from './io.ts';

const CHUNK = 64 * 1024;
/** How long to wait before reading a non-blocking pipe again when it had nothing yet. */
const POLL_MS = 2;
/** A non-blocking stdout that stays full this long is given up on (its reader has stopped reading). */
const WRITE_STALL_MS = 2_000;

type Source = 'file' | 'fifo' | 'stream';

function sourceOf(fd: number): Source {
  try {
    const st = fstatSync(fd);
    if (st.isFile()) return 'file';
    if (st.isFIFO() && process.platform === 'linux') return 'fifo';
  } catch {
    /* a closed stdin: the stream path reports it as it always did (an empty payload) */
  }
  return 'stream';
}

/** Standard input as chunks: synchronous reads where they cannot block, else process.stdin. */
export function readFd0(): AsyncIterable<string | Buffer> {
  const source = sourceOf(0);
  if (source === 'file') return readFile(0);
  if (source === 'fifo') {
    let fd: number | undefined;
    try {
      // Its own open file description: O_NONBLOCK here leaves the writer's end and fd 0's flags alone.
      fd = openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      fd = undefined;
    }
    if (fd !== undefined) return readPipe(fd);
  }
  return process.stdin;
}

async function* readFile(fd: number): AsyncIterable<Buffer> {
  const buf = Buffer.allocUnsafe(CHUNK);
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) return;
    yield Buffer.from(buf.subarray(0, n));
  }
}

/**
 * A non-blocking pipe, read until its writer closes it. An empty read (EAGAIN) waits on a timer, so the
 * hook's deadline timer still fires; the reader stops when its consumer does (the size limit, the deadline).
 */
async function* readPipe(fd: number): AsyncIterable<Buffer> {
  const buf = Buffer.allocUnsafe(CHUNK);
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
        await new Promise((r) => setTimeout(r, POLL_MS));
        continue;
      }
      if (n === 0) return;
      yield Buffer.from(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes all of `s` to `fd`. A reader that went away (EPIPE) or any other error ends with that state; a
 * non-blocking descriptor that is full (EAGAIN) is tried again until WRITE_STALL_MS pass.
 */
export function writeAllSync(fd: number, s: string): OutState {
  const data = Buffer.from(s, 'utf8');
  let off = 0;
  let stalledSince: number | undefined;
  while (off < data.length) {
    try {
      off += writeSync(fd, data, off, data.length - off);
      stalledSince = undefined;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return 'closed';
      if (code !== 'EAGAIN') return 'failed';
      stalledSince ??= Date.now();
      if (Date.now() - stalledSince > WRITE_STALL_MS) return 'failed';
    }
  }
  return 'open';
}

/**
 * The process's I/O for `asimov hook`: replies are a few hundred bytes written once, so synchronous writes
 * cost nothing and need no flush before the process exits. No colour: a client reads the output.
 */
export function hookProcessIO(): CliIO {
  let outState: OutState = 'open';
  let errOpen = true;
  return {
    outState: () => outState,
    out: (s) => {
      if (outState !== 'open') return;
      outState = writeAllSync(1, s);
      if (outState === 'failed') writeAllSync(2, 'asimov: cannot write to standard output\n');
    },
    // Nowhere is left to report a failing stderr: its output ends, the exit status stays the command's.
    err: (s) => {
      if (errOpen) errOpen = writeAllSync(2, s) === 'open';
    },
    stdin: readFd0,
    cwd: process.cwd(),
    env: process.env,
    color: false,
  };
}
