// The connections the upstream link (upstream.ts) runs over, one per session: a child process speaking
// newline-delimited JSON on its stdin and stdout, or the SDK's Streamable HTTP and SSE client transports.
// A connection reports what it receives, output that is not MCP, and the moment it becomes unusable; the
// link decides what that means for the requests waiting on it.

import { spawn, type ChildProcess } from 'node:child_process';
import { AsimovError, describeError } from '../../core/errors.ts';
import { createLineSplitter, excerpt, kindOf, parseLine, type JsonRpcMessage, type MessageKind } from './jsonrpc.ts';

export type UpstreamSpec =
  | { kind: 'stdio'; command: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv }
  | { kind: 'http'; url: string; sse: boolean; headers: Record<string, string> };

/** How long a stdio upstream gets to exit after its stdin closes, and again after SIGTERM. */
const EXIT_GRACE_MS = 2_000;

/** Why a request got no answer from the upstream. */
export type FailureKind = 'unreachable' | 'closed' | 'timeout' | 'garbage' | 'cancelled';

export class UpstreamFailure extends AsimovError {
  readonly kind: FailureKind;
  /** The request was never delivered, so sending it again cannot run it twice. */
  readonly neverArrived: boolean;
  /** The HTTP status the upstream refused the request with, if any. */
  readonly httpStatus: number | undefined;

  constructor(kind: FailureKind, message: string, o: { neverArrived?: boolean; httpStatus?: number; cause?: unknown } = {}) {
    super('upstream_failed', message, undefined, o.cause !== undefined ? { cause: o.cause } : undefined);
    this.name = 'UpstreamFailure';
    this.kind = kind;
    this.neverArrived = o.neverArrived ?? false;
    this.httpStatus = o.httpStatus;
  }
}

/** One live connection to the upstream. */
export interface Wire {
  readonly generation: number;
  /** Why the connection is unusable, once it is. */
  dead: string | null;
  send(msg: JsonRpcMessage): Promise<void>;
  setProtocolVersion(version: string): void;
  hasSession(): boolean;
  /** Ends the connection: politely, or at once (a hung or babbling upstream). */
  close(how: 'graceful' | 'kill'): Promise<void>;
}

export interface WireEvents {
  message(msg: JsonRpcMessage, kind: MessageKind): void;
  junk(text: string): void;
  fatal(kind: FailureKind, reason: string): void;
  log(line: string): void;
}

/** One line saying why (an HTTP error can carry a whole HTML page). */
export function reasonOf(e: unknown): string {
  if (e instanceof UpstreamFailure) return e.message;
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const base = e instanceof Error ? e.message : String(e);
  const full = cause && typeof cause.message === 'string' && !base.includes(cause.message) ? `${base} (${cause.message})` : base;
  return excerpt(full.replace(/<[^>]*>/g, ' '), 300);
}

export function httpStatusOf(e: unknown): number | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && code >= 100 && code <= 599) return code;
  const m = e instanceof Error ? /\(HTTP (\d{3})\)/.exec(e.message) : null;
  return m ? Number(m[1]) : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// stdio: the upstream as a child process, newline-delimited JSON on its stdin and stdout.

export function openStdio(spec: Extract<UpstreamSpec, { kind: 'stdio' }>, generation: number, events: WireEvents): Promise<Wire> {
  return new Promise<Wire>((resolve, reject) => {
    let child: ChildProcess;
    try {
      // Its own process group, so a hung server is stopped with whatever it started (npx → node → …).
      // stderr goes straight to ours: it is the server's log, never protocol.
      child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'inherit'], detached: true, windowsHide: true });
    } catch (e) {
      reject(new UpstreamFailure('unreachable', `cannot start \`${spec.command}\`: ${describeError(e)}`));
      return;
    }
    let exited = false;
    const exitedPromise = new Promise<void>((done) => child.once('exit', () => { exited = true; done(); }));
    const splitter = createLineSplitter(
      (line) => {
        const parsed = parseLine(line);
        if ('junk' in parsed) events.junk(parsed.junk);
        else events.message(parsed.msg, parsed.kind);
      },
      () => events.fatal('garbage', 'the upstream wrote a line over 64 MiB without a newline'),
    );
    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stdin!.on('error', (e) => events.fatal('closed', `cannot write to the upstream: ${describeError(e)}`));
    child.once('error', (e) => {
      if (!started) reject(new UpstreamFailure('unreachable', `cannot start \`${spec.command}\`: ${(e as Error).message}`));
      else events.fatal('closed', `the upstream process failed: ${describeError(e)}`);
    });
    child.once('close', (code, signal) => {
      const rest = splitter.rest();
      if (rest.trim() !== '') events.junk(rest);
      events.fatal('closed', signal ? `the upstream was killed by ${signal}` : `the upstream exited with code ${code}`);
    });
    let started = false;
    const kill = (sig: NodeJS.Signals): void => {
      if (exited) return;
      try {
        process.kill(-child.pid!, sig);
      } catch {
        try { child.kill(sig); } catch { /* already gone */ }
      }
    };
    const waitExit = (ms: number): Promise<boolean> => {
      if (exited) return Promise.resolve(true);
      return new Promise<boolean>((done) => {
        const t = setTimeout(() => done(false), ms);
        void exitedPromise.then(() => { clearTimeout(t); done(true); });
      });
    };
    const wire: Wire = {
      generation,
      dead: null,
      send: (msg) => {
        if (!child.stdin!.writable) return Promise.reject(new Error('the upstream closed its stdin'));
        child.stdin!.write(`${JSON.stringify(msg)}\n`);
        return Promise.resolve();
      },
      setProtocolVersion: () => {},
      hasSession: () => false,
      close: async (how) => {
        // The MCP stdio shutdown: close its stdin, give it time, then SIGTERM, then SIGKILL.
        child.stdin!.end();
        if (how === 'kill') kill('SIGTERM');
        else if (await waitExit(EXIT_GRACE_MS)) return;
        else kill('SIGTERM');
        if (!(await waitExit(EXIT_GRACE_MS))) kill('SIGKILL');
      },
    };
    child.once('spawn', () => {
      started = true;
      resolve(wire);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// HTTP: the SDK's client transports (sessions, SSE streams and resumption are theirs), loaded only when used.

interface SdkTransport {
  onmessage?: (msg: unknown) => void;
  onerror?: (e: Error) => void;
  onclose?: () => void;
  start(): Promise<void>;
  send(msg: JsonRpcMessage): Promise<void>;
  close(): Promise<void>;
  setProtocolVersion?(v: string): void;
  readonly sessionId?: string | undefined;
  terminateSession?(): Promise<void>;
}

/** Errors after which the connection carries no more answers (the server went away). */
function isStreamLoss(e: Error, mode: 'streamable' | 'sse'): boolean {
  if (mode === 'sse') return /^SSE error/.test(e.message);
  return /^(SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts)/.test(e.message);
}

export async function openHttp(spec: Extract<UpstreamSpec, { kind: 'http' }>, mode: 'streamable' | 'sse', generation: number, events: WireEvents): Promise<Wire> {
  const url = new URL(spec.url);
  const requestInit = { headers: spec.headers };
  let transport: SdkTransport;
  if (mode === 'sse') {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    transport = new SSEClientTransport(url, { requestInit }) as unknown as SdkTransport;
  } else {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    transport = new StreamableHTTPClientTransport(url, { requestInit }) as unknown as SdkTransport;
  }
  let started = false;
  let closing = false;
  // The SDK reports a failed send both to onerror and by rejecting send(); the rejection is handled where
  // the request waits, so onerror logs only what no caller hears about.
  const thrown = new WeakSet<object>();
  transport.onmessage = (msg) => {
    const kind = kindOf(msg);
    if (kind) events.message(msg as JsonRpcMessage, kind);
    else events.junk(JSON.stringify(msg));
  };
  transport.onerror = (e) => {
    if (closing) return;
    if (started && isStreamLoss(e, mode)) return events.fatal('closed', `the connection to the upstream was lost: ${e.message}`);
    setImmediate(() => { if (!thrown.has(e)) events.log(`upstream: ${reasonOf(e)}`); });
  };
  transport.onclose = () => {
    if (started && !closing) events.fatal('closed', 'the connection to the upstream was closed');
  };
  try {
    await transport.start();
  } catch (e) {
    closing = true;
    await transport.close().catch(() => {});
    throw new UpstreamFailure('unreachable', `cannot connect to ${spec.url}: ${reasonOf(e)}`, { cause: e });
  }
  started = true;
  return {
    generation,
    dead: null,
    send: (msg) => transport.send(msg).catch((e: unknown) => {
      if (typeof e === 'object' && e !== null) thrown.add(e);
      throw e;
    }),
    setProtocolVersion: (v) => transport.setProtocolVersion?.(v),
    hasSession: () => transport.sessionId !== undefined,
    close: async (how) => {
      if (closing) return;
      closing = true;
      if (how === 'graceful' && transport.sessionId !== undefined) await transport.terminateSession?.().catch(() => {});
      await transport.close().catch(() => {});
    },
  };
}
