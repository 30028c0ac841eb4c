// The proxy's side towards the real MCP server: one upstream over stdio, Streamable HTTP or SSE, kept
// usable for the whole session. A request never hangs: the upstream dying, going silent past the timeout or
// writing something that is not MCP fails the requests in flight with the reason, and the next request
// starts the upstream again and replays the client's handshake. A request is sent twice only when it
// provably never arrived (the connection was refused; the server no longer knew the session).

import { describeError } from '../../core/errors.ts';
import {
  excerpt, outcomeOf, progressTokenOf,
  type JsonRpcId, type JsonRpcMessage, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse,
  type MessageKind, type Outcome, type Params,
} from './jsonrpc.ts';
import {
  UpstreamFailure, httpStatusOf, openHttp, openStdio, reasonOf,
  type FailureKind, type UpstreamSpec, type Wire, type WireEvents,
} from './wires.ts';

export { UpstreamFailure, type FailureKind, type UpstreamSpec } from './wires.ts';

export const DEFAULT_TIMEOUT_MS = 60_000;

export interface UpstreamHandlers {
  /** A request from the server to the client (sampling, roots, elicitation, ping); answer with `reply`. */
  onRequest(req: JsonRpcRequest, generation: number): void;
  onNotification(n: JsonRpcNotification, generation: number): void;
  /** A new upstream session replaced a failed one (the handshake was replayed). */
  onReconnect(result: Params): void;
  log(line: string): void;
}

/**
 * A request's cancellation, cheaper than an AbortSignal (a relay makes one per request): one listener at a
 * time, set by whichever stage holds the request (the gate, then the upstream).
 */
export class CancelToken {
  cancelled = false;
  reason: unknown;
  private listener: (() => void) | undefined;

  cancel(reason?: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    const l = this.listener;
    this.listener = undefined;
    l?.();
  }

  /** Calls `f` on cancellation (at once if already cancelled); replaces the previous listener. */
  onCancel(f: (() => void) | undefined): void {
    this.listener = f;
    if (this.cancelled && f) {
      this.listener = undefined;
      f();
    }
  }
}

export interface RequestOptions {
  /** Cancelling sends `notifications/cancelled` upstream and rejects the request as `cancelled`. */
  cancel?: CancelToken;
}

export interface Upstream {
  /** Who the upstream is, for messages: the command line or the URL. */
  readonly label: string;
  /** Starts a stdio upstream's process before the client's handshake; rejects when it cannot be started. */
  start(): Promise<void>;
  /** The first handshake, with the client's own initialize parameters; the upstream's answer as it gave it. */
  initialize(params: Params): Promise<Outcome>;
  /** The client's `notifications/initialized`; remembered for the handshakes of later reconnects. */
  initialized(params: Params | undefined): void;
  request(method: string, params: Params | undefined, opts?: RequestOptions): Promise<Outcome>;
  notify(method: string, params: Params | undefined): void;
  /** Answers a request the upstream sent; dropped when that upstream session has since been replaced. */
  reply(generation: number, id: JsonRpcId, outcome: Outcome): void;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  wire: Wire;
  method: string;
  /** Date.now() after which the request has timed out; moved on by progress. */
  deadline: number;
  progressToken: JsonRpcId | undefined;
  /** Whose listener the request holds while it waits (removed when it settles). */
  cancel: CancelToken | undefined;
  resolve(o: Outcome): void;
  reject(e: UpstreamFailure): void;
}

export function createUpstream(spec: UpstreamSpec, o: { timeoutMs?: number; handlers: UpstreamHandlers }): Upstream {
  return new Link(spec, o.timeoutMs ?? DEFAULT_TIMEOUT_MS, o.handlers);
}

export function upstreamLabel(spec: UpstreamSpec): string {
  return spec.kind === 'stdio' ? [spec.command, ...spec.args].join(' ') : spec.url;
}

class Link implements Upstream {
  readonly label: string;
  private wire: Wire | null = null;
  private opening: Promise<Wire> | null = null;
  /** A stdio process started before the handshake (start()). */
  private early: Promise<Wire> | null = null;
  private generation = 0;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly byProgressToken = new Map<JsonRpcId, Pending>();
  /** One timer checks every deadline (a timer per request costs more than the check), for the link's life. */
  private sweeper: NodeJS.Timeout | undefined;
  private initParams: Params | undefined;
  private initializedParams: Params | undefined;
  private clientInitialized = false;
  /** Session state the client set up, replayed on a new upstream session. */
  private logLevel: Params | undefined;
  private readonly subscriptions = new Map<string, Params | undefined>();
  private httpMode: 'streamable' | 'sse';
  private closing = false;

  constructor(
    private readonly spec: UpstreamSpec,
    private readonly timeoutMs: number,
    private readonly handlers: UpstreamHandlers,
  ) {
    this.label = upstreamLabel(spec);
    this.httpMode = spec.kind === 'http' && spec.sse ? 'sse' : 'streamable';
  }

  start(): Promise<void> {
    if (this.spec.kind !== 'stdio') return Promise.resolve();
    this.early ??= this.open();
    return this.early.then(() => undefined);
  }

  async initialize(params: Params): Promise<Outcome> {
    this.initParams = params;
    const first = this.early ?? this.open();
    this.early = null;
    let wire = await first;
    let outcome: Outcome;
    try {
      outcome = await this.handshake(wire);
    } catch (e) {
      // A server that only speaks the older SSE transport refuses the Streamable HTTP POST with a 4xx.
      if (!(e instanceof UpstreamFailure) || this.spec.kind !== 'http' || this.spec.sse || this.httpMode !== 'streamable') throw e;
      if (e.httpStatus === undefined || e.httpStatus < 400 || e.httpStatus > 499) throw e;
      this.handlers.log(`${this.label} refused Streamable HTTP (${e.message}); trying SSE`);
      await wire.close('kill');
      this.httpMode = 'sse';
      wire = await this.open();
      outcome = await this.handshake(wire);
    }
    if (outcome.result) this.adopt(wire, outcome.result);
    else await wire.close('graceful');
    return outcome;
  }

  initialized(params: Params | undefined): void {
    this.initializedParams = params;
    this.clientInitialized = true;
    this.wire?.send({ jsonrpc: '2.0', method: 'notifications/initialized', ...(params ? { params } : {}) }).catch(() => {});
  }

  async request(method: string, params: Params | undefined, opts: RequestOptions = {}): Promise<Outcome> {
    this.remember(method, params);
    for (let attempt = 0; ; attempt++) {
      const wire = await this.ready();
      try {
        return await this.call(wire, method, params, opts.cancel);
      } catch (e) {
        if (attempt === 0 && e instanceof UpstreamFailure && e.neverArrived) {
          this.handlers.log(`${method} never reached the upstream (${e.message}); reconnecting and sending it again`);
          continue;
        }
        throw e;
      }
    }
  }

  notify(method: string, params: Params | undefined): void {
    const wire = this.wire;
    // With no live session there is no one to tell; a new session starts from the replayed handshake.
    if (!wire) return;
    wire.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }).catch((e) => this.handlers.log(`could not forward ${method}: ${describeError(e)}`));
  }

  reply(generation: number, id: JsonRpcId, outcome: Outcome): void {
    const wire = this.wire;
    if (!wire || wire.generation !== generation) return;
    const msg: JsonRpcResponse = outcome.error !== undefined ? { jsonrpc: '2.0', id, error: outcome.error } : { jsonrpc: '2.0', id, result: outcome.result };
    wire.send(msg).catch((e) => this.handlers.log(`could not answer the upstream's request: ${describeError(e)}`));
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const p of [...this.pending.values()]) this.settle(p, new UpstreamFailure('closed', 'the proxy is shutting down'));
    const wires = [this.wire, ...(await Promise.all([this.early, this.opening].map((w) => w?.catch(() => null))))];
    this.wire = null;
    await Promise.all([...new Set(wires)].map((w) => w?.close('graceful')));
  }

  // ---------------------------------------------------------------------------------------------------

  /** The live session, or a new one (the process restarted or the server reconnected, handshake replayed). */
  private ready(): Promise<Wire> {
    if (this.wire && !this.wire.dead) return Promise.resolve(this.wire);
    if (this.closing) return Promise.reject(new UpstreamFailure('closed', 'the proxy is shutting down'));
    if (!this.initParams) return Promise.reject(new UpstreamFailure('unreachable', 'the client has not initialized the session yet'));
    this.opening ??= this.reconnect().finally(() => { this.opening = null; });
    return this.opening;
  }

  private async reconnect(): Promise<Wire> {
    let wire: Wire;
    let outcome: Outcome;
    try {
      wire = await this.open();
      outcome = await this.handshake(wire);
    } catch (e) {
      throw new UpstreamFailure('unreachable', `the upstream could not be reached again: ${reasonOf(e)}`, { cause: e });
    }
    if (!outcome.result) {
      await wire.close('graceful');
      throw new UpstreamFailure('unreachable', `the restarted upstream refused the session: ${outcome.error.message}`);
    }
    this.adopt(wire, outcome.result);
    if (this.clientInitialized) {
      const n: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/initialized', ...(this.initializedParams ? { params: this.initializedParams } : {}) };
      await wire.send(n).catch((e) => this.fail(wire, 'closed', `the restarted upstream could not be told the session is initialized: ${reasonOf(e)}`));
    }
    // What the client had set up in the old session, so the new one behaves the same.
    const replays: Array<[string, Params | undefined]> = [];
    if (this.logLevel) replays.push(['logging/setLevel', this.logLevel]);
    for (const p of this.subscriptions.values()) replays.push(['resources/subscribe', p]);
    for (const [method, params] of replays) {
      await this.call(wire, method, params, undefined).catch((e) => this.handlers.log(`could not replay ${method}: ${reasonOf(e)}`));
    }
    this.handlers.log(`reconnected to ${this.label}`);
    this.handlers.onReconnect(outcome.result);
    return wire;
  }

  private adopt(wire: Wire, result: Params): void {
    const version = result['protocolVersion'];
    if (typeof version === 'string') wire.setProtocolVersion(version);
    this.wire = wire;
  }

  private handshake(wire: Wire): Promise<Outcome> {
    return this.call(wire, 'initialize', this.initParams, undefined);
  }

  private remember(method: string, params: Params | undefined): void {
    if (method === 'logging/setLevel') this.logLevel = params;
    const uri = params?.['uri'];
    if (typeof uri !== 'string') return;
    if (method === 'resources/subscribe') this.subscriptions.set(uri, params);
    else if (method === 'resources/unsubscribe') this.subscriptions.delete(uri);
  }

  /** Sends one request on one connection and waits for its answer, the timeout, a failure or a cancel. */
  private call(wire: Wire, method: string, params: Params | undefined, cancel: CancelToken | undefined): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      if (wire.dead) return reject(new UpstreamFailure('closed', wire.dead));
      if (cancel?.cancelled) return reject(new UpstreamFailure('cancelled', 'the client cancelled the request'));
      const id = ++this.nextId;
      const token = progressTokenOf(params);
      const p: Pending = { id, wire, method, deadline: Date.now() + this.timeoutMs, progressToken: token, cancel, resolve, reject };
      this.pending.set(id, p);
      // Unref'd: a request in flight keeps the process alive through its connection, not through this timer.
      this.sweeper ??= setInterval(() => this.sweep(), Math.max(10, Math.min(250, this.timeoutMs / 4))).unref();
      if (token !== undefined) this.byProgressToken.set(token, p);
      cancel?.onCancel(() => this.cancel(p, cancel.reason));
      const msg: JsonRpcRequest = params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
      wire.send(msg).catch((e) => this.sendFailed(p, e));
    });
  }

  private sweep(): void {
    const now = Date.now();
    for (const p of [...this.pending.values()]) if (now > p.deadline) this.timedOut(p);
  }

  private settle(p: Pending, outcome: Outcome | UpstreamFailure): void {
    if (this.pending.get(p.id) !== p) return;
    p.cancel?.onCancel(undefined);
    this.pending.delete(p.id);
    if (p.progressToken !== undefined && this.byProgressToken.get(p.progressToken) === p) this.byProgressToken.delete(p.progressToken);
    if (outcome instanceof UpstreamFailure) p.reject(outcome);
    else p.resolve(outcome);
  }

  private sendFailed(p: Pending, e: unknown): void {
    if (this.pending.get(p.id) !== p) return;
    const status = httpStatusOf(e);
    const never = neverArrived(e, p.wire);
    const reason = reasonOf(e);
    if (never) {
      // The server is down or forgot the session: this connection is done, and the caller may resend.
      this.settle(p, new UpstreamFailure('unreachable', reason, { neverArrived: true, ...(status !== undefined ? { httpStatus: status } : {}) }));
      this.fail(p.wire, 'closed', `the upstream connection was lost (${reason})`);
      return;
    }
    this.settle(p, new UpstreamFailure('unreachable', `could not send ${p.method} to the upstream: ${reason}`, status !== undefined ? { httpStatus: status } : {}));
  }

  private timedOut(p: Pending): void {
    if (this.pending.get(p.id) !== p) return;
    this.settle(p, new UpstreamFailure('timeout', `the upstream did not answer ${p.method} within ${this.timeoutMs} ms`));
    // A server that stops answering is restarted for the next request rather than trusted again.
    this.fail(p.wire, 'timeout', `the upstream stopped answering (${p.method} took over ${this.timeoutMs} ms); it is restarted for the next request`);
  }

  private cancel(p: Pending, reason: unknown): void {
    if (this.pending.get(p.id) !== p) return;
    this.settle(p, new UpstreamFailure('cancelled', 'the client cancelled the request'));
    if (!p.wire.dead) {
      const params: Params = { requestId: p.id };
      if (typeof reason === 'string') params['reason'] = reason;
      p.wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params }).catch(() => {});
    }
  }

  /** A connection is unusable: every request waiting on it fails with the reason, and it is shut. */
  private fail(wire: Wire, kind: FailureKind, reason: string): void {
    if (wire.dead) return;
    wire.dead = reason;
    if (this.wire === wire) this.wire = null;
    for (const p of [...this.pending.values()]) if (p.wire === wire) this.settle(p, new UpstreamFailure(kind, reason));
    if (!this.closing) this.handlers.log(reason);
    void wire.close(kind === 'closed' ? 'graceful' : 'kill');
  }

  private open(): Promise<Wire> {
    const generation = ++this.generation;
    let wire: Wire | undefined;
    const early: Array<() => void> = [];
    const events: WireEvents = {
      message: (msg, kind) => {
        if (!wire) return void early.push(() => events.message(msg, kind));
        if (!wire.dead) this.received(wire, msg, kind);
      },
      junk: (text) => {
        if (!wire) return void early.push(() => events.junk(text));
        this.junk(wire, text);
      },
      fatal: (kind, reason) => {
        if (!wire) return void early.push(() => events.fatal(kind, reason));
        this.fail(wire, kind, reason);
      },
      log: (line) => this.handlers.log(line),
    };
    const opened = this.spec.kind === 'stdio' ? openStdio(this.spec, generation, events) : openHttp(this.spec, this.httpMode, generation, events);
    return opened.then((w) => {
      wire = w;
      for (const f of early.splice(0)) f();
      return w;
    });
  }

  private received(wire: Wire, msg: JsonRpcMessage, kind: MessageKind): void {
    if (kind === 'response') {
      const r = msg as JsonRpcResponse;
      const p = typeof r.id === 'number' ? this.pending.get(r.id) : undefined;
      // A late answer to a request that timed out or was cancelled has no one waiting for it.
      if (p && p.wire === wire) this.settle(p, outcomeOf(r));
      return;
    }
    if (kind === 'request') return this.handlers.onRequest(msg as JsonRpcRequest, wire.generation);
    const n = msg as JsonRpcNotification;
    if (n.method === 'notifications/progress') {
      // A tool that reports progress is alive: its timeout starts again.
      const token = n.params?.['progressToken'] as JsonRpcId | undefined;
      const p = token !== undefined ? this.byProgressToken.get(token) : undefined;
      if (p) p.deadline = Date.now() + this.timeoutMs;
    }
    this.handlers.onNotification(n, wire.generation);
  }

  /**
   * Output that is not MCP. Text without a newline glues onto the next message and loses it, so with a
   * request waiting, its answer can no longer be trusted to come: those requests fail and the upstream is
   * restarted. While only the handshake waits (servers that print a banner) or nothing does, it is logged.
   */
  private junk(wire: Wire, text: string): void {
    this.handlers.log(`the upstream wrote something that is not MCP: ${excerpt(text)}`);
    if (wire.dead) return;
    const waiting = [...this.pending.values()].filter((p) => p.wire === wire && p.method !== 'initialize');
    if (waiting.length > 0) this.fail(wire, 'garbage', `the upstream wrote something that is not MCP (${excerpt(text, 80)}); it is restarted for the next request`);
  }
}

const REFUSED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Only two failures prove a request was not delivered: no connection at all, or a session the server no longer has. */
function neverArrived(e: unknown, wire: Wire): boolean {
  const cause = (e as { cause?: { code?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string' && REFUSED.has(cause.code)) return true;
  const status = httpStatusOf(e);
  if (!wire.hasSession()) return false;
  // The spec says 404 for an unknown session; some servers (server-everything among them) answer 400.
  return status === 404 || (status === 400 && e instanceof Error && /session/i.test(e.message));
}
