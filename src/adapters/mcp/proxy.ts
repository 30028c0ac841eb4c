// `asimov mcp proxy`: a stdio MCP server in front of one upstream server, invisible to the client. It relays
// JSON-RPC messages rather than re-implementing both protocol ends: the client's own handshake goes
// upstream (so the upstream sees the client's capabilities and the client gets the upstream's name,
// version, instructions and capabilities), and every answer goes back as the upstream wrote it. Only what
// the firewall must see is touched: tools/list (hidden tools removed), tools/call, prompts/get,
// resources/read and completion/complete (checked before they may go upstream; a server runs code for each),
// roots/list answers (filtered) and tools/list_changed (the tools reviewed again first).
// Request ids are mapped per direction, so a restarted upstream can never receive an answer meant for the
// one before it. Progress is written in the order it arrives, and a result that follows progress waits
// until the client has taken the progress in (see `barrier`).

import { describeError } from '../../core/errors.ts';
import { mcpRequestKind, type McpRequestMethod } from '../../core/tools.ts';
import type { Firewall } from './firewall.ts';
import {
  RPC, createLineSplitter, excerpt, outcomeOf, parseLine, progressTokenOf, responseLine, toolErrorResult,
  type JsonRpcId, type LineSplitter, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, type Outcome,
} from './jsonrpc.ts';
import type { ToolDef } from './tool-guard.ts';
import { CancelToken, UpstreamFailure, createUpstream, type Upstream, type UpstreamSpec } from './upstream.ts';

export interface ProxyOptions {
  upstream: UpstreamSpec;
  timeoutMs?: number;
  /** The client's messages (the proxy's stdin). */
  input: AsyncIterable<string | Buffer>;
  /** Writes to the client (the proxy's stdout): protocol only, one message per line. */
  output: (text: string) => void;
  /** Diagnostics (stderr). */
  log: (line: string) => void;
  /** The checks of gate mode; absent, the proxy is a plain pass-through (GATE_CHECK=false). */
  firewall?: (listTools: () => Promise<ToolDef[]>) => Firewall;
  /** Ends the proxy as if the client had closed its end (SIGTERM). */
  stop?: AbortSignal;
  /**
   * Told when the proxy has no client request in flight any more (true) and when it has one again (false):
   * the audit journal seals its records into the shared log while the proxy is idle, never on a call's path
   * (src/audit/journal.ts). Called around every request, so it must be cheap; never throws.
   */
  idle?: (idle: boolean) => void;
}

function isReadable(input: AsyncIterable<string | Buffer>): input is NodeJS.ReadableStream & AsyncIterable<string | Buffer> & { destroy(): void } {
  const s = input as Partial<NodeJS.ReadableStream & { destroy: unknown }>;
  return typeof s.on === 'function' && typeof s.off === 'function' && typeof s.destroy === 'function';
}

/** Pages of tools/list read before giving up on a server that never stops paginating. */
const MAX_TOOL_PAGES = 100;
/** How long a proxy whose upstream cannot start waits for the client's initialize, to answer it with the reason. */
const START_FAILURE_GRACE_MS = 5_000;
/** How long a result waits for the client's answer to the barrier ping before it is sent anyway. */
const BARRIER_LIMIT_MS = 2_000;

/**
 * Runs the proxy until the client closes its end (exit status 0) or the upstream cannot be started for
 * the first handshake (1, after the client got an error for its initialize). Never rejects.
 */
export async function runProxy(o: ProxyOptions): Promise<number> {
  return new Relay(o).run();
}

interface ToClient {
  generation: number;
  /** The upstream's id for the request. */
  id: JsonRpcId;
  method: string;
}

class Relay {
  private readonly upstream: Upstream;
  private readonly firewall: Firewall | undefined;
  private state: 'new' | 'initializing' | 'ready' = 'new';
  /** Client requests being handled, by the client's id, for cancellation. */
  private readonly inflight = new Map<JsonRpcId, CancelToken>();
  /** Upstream requests forwarded to the client, by the id the client saw. */
  private readonly toClient = new Map<number, ToClient>();
  private nextClientId = 0;
  /** Progress tokens of client requests in flight, and the requests whose progress was forwarded since. */
  private readonly progressTokens = new Map<JsonRpcId, JsonRpcId>();
  private readonly progressed = new Set<JsonRpcId>();
  /** Barrier pings sent to the client, by id. */
  private readonly pings = new Map<number, () => void>();
  private finished = false;
  /** The status when the client closes its end: 1 once the upstream could not be started. */
  private exitCode = 0;
  private finish: (code: number) => void = () => {};
  private stopReading: () => void = () => {};

  constructor(private readonly o: ProxyOptions) {
    this.upstream = createUpstream(o.upstream, {
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
      handlers: {
        onRequest: (req, generation) => this.fromUpstreamRequest(req, generation),
        onNotification: (n, generation) => this.fromUpstreamNotification(n, generation),
        onReconnect: () => this.firewall?.invalidate(),
        log: o.log,
      },
    });
    this.firewall = o.firewall?.(() => this.listTools());
  }

  async run(): Promise<number> {
    const done = new Promise<number>((resolve) => {
      this.finish = (code) => {
        if (this.finished) return;
        this.finished = true;
        resolve(code);
      };
    });
    // A stdio upstream starts now, while the client is still getting ready; a command that cannot run
    // ends the proxy at once (with an error for the client's initialize if it already came).
    this.upstream.start().catch((e) => this.die(`the upstream could not be started: ${describeError(e)}`));
    void this.read();
    if (this.o.stop?.aborted) this.finish(0);
    this.o.stop?.addEventListener('abort', () => this.finish(0), { once: true });
    const code = await done;
    this.stopReading();
    for (const t of this.inflight.values()) t.cancel('the proxy is shutting down');
    await this.upstream.close();
    return code;
  }

  private async read(): Promise<void> {
    const splitter = createLineSplitter(
      (line) => this.fromClient(line),
      () => this.o.log('a message from the client was over 64 MiB and was dropped'),
    );
    const input = this.o.input;
    if (isReadable(input)) return this.readStream(input, splitter);
    const it = input[Symbol.asyncIterator]();
    this.stopReading = () => void it.return?.();
    try {
      for (;;) {
        const r = await it.next();
        if (r.done || this.finished) break;
        splitter.push(r.value);
      }
    } catch (e) {
      if (!this.finished) this.o.log(`reading from the client failed: ${describeError(e)}`);
    }
    this.finish(this.exitCode);
  }

  /**
   * A stream (the proxy's stdin) is read through its events rather than its async iterator: that is one
   * promise and one microtask less on the way of every message. It is destroyed at the end: only ending
   * the reading would leave a pipe open that keeps the process alive.
   */
  private readStream(input: NodeJS.ReadableStream & { destroy(): void }, splitter: LineSplitter): Promise<void> {
    this.stopReading = () => input.destroy();
    return new Promise<void>((done) => {
      const end = (): void => {
        input.off('data', onData);
        this.finish(this.exitCode);
        done();
      };
      const failed = (e: unknown): void => {
        if (!this.finished) this.o.log(`reading from the client failed: ${describeError(e)}`);
        end();
      };
      const onData = (chunk: string | Buffer): void => {
        if (this.finished) return;
        try {
          splitter.push(chunk);
        } catch (e) {
          failed(e); // as the iterator's loop would: the proxy ends, it does not crash
        }
      };
      input.on('data', onData);
      input.once('end', end);
      input.once('close', end);
      input.once('error', failed);
    });
  }

  /**
   * The upstream could not be started. A client that is already there gets the reason as the answer to its
   * initialize (the initialize handler sends it and ends the proxy); one that sends nothing is not waited
   * for long.
   */
  private die(reason: string): void {
    if (this.finished) return;
    this.o.log(reason);
    this.exitCode = 1;
    if (this.state === 'ready') return this.finish(1);
    setTimeout(() => this.finish(1), START_FAILURE_GRACE_MS).unref();
  }

  private write(line: string): void {
    if (!this.finished) this.o.output(`${line}\n`);
  }

  // ---------------------------------------------------------------------------------------------------
  // From the client

  private fromClient(line: string): void {
    const parsed = parseLine(line);
    if ('junk' in parsed) {
      this.o.log(`the client sent something that is not JSON-RPC: ${excerpt(parsed.junk)}`);
      return;
    }
    if (parsed.kind === 'request') this.clientRequest(parsed.msg as JsonRpcRequest);
    else if (parsed.kind === 'notification') this.clientNotification(parsed.msg as JsonRpcNotification);
    else this.clientResponse(parsed.msg as JsonRpcResponse);
  }

  private clientRequest(req: JsonRpcRequest): void {
    if (req.method === 'initialize') return void this.initialize(req);
    if (this.state !== 'ready') {
      if (req.method === 'ping') return this.write(responseLine(req.id, { result: {} }));
      return this.write(responseLine(req.id, { error: { code: RPC.invalidRequest, message: 'asimov mcp proxy: the session is not initialized yet' } }));
    }
    void this.serve(req);
  }

  /** One client request from its arrival to its answer. Never rejects. */
  private async serve(req: JsonRpcRequest): Promise<void> {
    const cancel = new CancelToken();
    if (this.inflight.size === 0) this.o.idle?.(false);
    this.inflight.set(req.id, cancel);
    const token = progressTokenOf(req.params);
    if (token !== undefined) this.progressTokens.set(token, req.id);
    const outcome = await this.handle(req, cancel);
    if (token !== undefined && this.progressTokens.get(token) === req.id) this.progressTokens.delete(token);
    if (this.progressed.delete(req.id)) await this.barrier();
    if (this.inflight.get(req.id) === cancel) this.inflight.delete(req.id);
    // A cancelled request gets no answer (the client stopped waiting for it).
    if (outcome && !cancel.cancelled) this.write(responseLine(req.id, outcome));
    if (this.inflight.size === 0) this.o.idle?.(true);
  }

  /**
   * Resolves once the client has processed everything written to it so far. The SDK's client handles a
   * notification a microtask later than a response, so progress that reaches it in the same read as its
   * result is dropped (typescript-sdk #2580; against server-everything directly, most runs lose the last
   * progress). A ping written after the progress is answered only after the client ran the progress
   * handler, so the result, written after the answer, can no longer overtake it. A client that does not
   * answer pings costs BARRIER_LIMIT_MS once per such result.
   */
  private barrier(): Promise<void> {
    if (this.finished) return Promise.resolve();
    const id = ++this.nextClientId;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, BARRIER_LIMIT_MS);
      const pings = this.pings;
      function done(): void {
        clearTimeout(timer);
        pings.delete(id);
        resolve();
      }
      this.pings.set(id, done);
      this.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
    });
  }

  private async initialize(req: JsonRpcRequest): Promise<void> {
    if (this.state !== 'new') {
      return this.write(responseLine(req.id, { error: { code: RPC.invalidRequest, message: 'asimov mcp proxy: the session is already initialized' } }));
    }
    this.state = 'initializing';
    let outcome: Outcome;
    try {
      outcome = await this.upstream.initialize(req.params ?? {});
    } catch (e) {
      const reason = `the upstream server could not be started: ${describeError(e)}`;
      this.write(responseLine(req.id, { error: { code: RPC.connectionClosed, message: `asimov mcp proxy: ${reason}` } }));
      if (this.exitCode === 0) this.o.log(reason); // else die() said it already
      this.finish(1);
      return;
    }
    this.write(responseLine(req.id, outcome));
    // An upstream that refused the handshake (say, an unsupported version) may be asked again.
    this.state = outcome.result ? 'ready' : 'new';
  }

  /** One client request to its answer; null when the client cancelled it. Never rejects. */
  private async handle(req: JsonRpcRequest, cancel: CancelToken): Promise<Outcome | null> {
    const fw = this.firewall;
    try {
      if (fw && req.method === 'tools/call') {
        const blocked = await fw.check(req.params, String(req.id), cancel);
        if (blocked) return { result: blocked };
        if (cancel.cancelled) return null;
      } else if (fw && mcpRequestKind(req.method) !== null) {
        // A server runs code for these as for a tool call (a prompt that runs its argument): decided the same way.
        const refused = await fw.checkRequest(req.method as McpRequestMethod, req.params, String(req.id), cancel);
        if (refused) return { error: refused };
        if (cancel.cancelled) return null;
      }
      const outcome = await this.upstream.request(req.method, req.params, { cancel });
      if (fw && req.method === 'tools/list' && outcome.result) return { result: await fw.reviewList(req.params, outcome.result) };
      if (fw && outcome.result && (req.method === 'prompts/list' || req.method === 'resources/list' || req.method === 'resources/templates/list')) {
        return { result: fw.reviewListing(req.method, outcome.result) };
      }
      return outcome;
    } catch (e) {
      if (e instanceof UpstreamFailure && e.kind === 'cancelled') return null;
      const reason = e instanceof UpstreamFailure ? e.message : `asimov failed: ${describeError(e)}`;
      if (req.method === 'tools/call') return { result: toolErrorResult(`asimov could not get an answer from the MCP server: ${reason}`) };
      const code = e instanceof UpstreamFailure && e.kind === 'timeout' ? RPC.requestTimeout : RPC.internalError;
      return { error: { code, message: `asimov mcp proxy: ${reason}` } };
    }
  }

  private clientNotification(n: JsonRpcNotification): void {
    if (n.method === 'notifications/cancelled') {
      // Cancels the request where it is: in the gate, or upstream (the upstream gets its own id).
      const id = n.params?.['requestId'];
      const t = typeof id === 'string' || typeof id === 'number' ? this.inflight.get(id) : undefined;
      t?.cancel(n.params?.['reason']);
      return;
    }
    if (n.method === 'notifications/initialized') return this.upstream.initialized(n.params);
    this.upstream.notify(n.method, n.params);
  }

  private clientResponse(r: JsonRpcResponse): void {
    const ping = typeof r.id === 'number' ? this.pings.get(r.id) : undefined;
    if (ping) return ping();
    const entry = typeof r.id === 'number' ? this.toClient.get(r.id) : undefined;
    if (!entry) return;
    this.toClient.delete(r.id as number);
    let outcome = outcomeOf(r);
    if (this.firewall && entry.method === 'roots/list' && outcome.result) {
      try {
        outcome = { result: this.firewall.filterRoots(outcome.result) };
      } catch (e) {
        this.o.log(`the roots could not be checked, so none is passed on: ${describeError(e)}`);
        outcome = { result: { ...outcome.result, roots: [] } };
      }
    }
    this.upstream.reply(entry.generation, entry.id, outcome);
  }

  // ---------------------------------------------------------------------------------------------------
  // From the upstream

  private fromUpstreamRequest(req: JsonRpcRequest, generation: number): void {
    const id = ++this.nextClientId;
    this.toClient.set(id, { generation, id: req.id, method: req.method });
    this.write(JSON.stringify({ ...req, id }));
  }

  private fromUpstreamNotification(n: JsonRpcNotification, generation: number): void {
    if (n.method === 'notifications/cancelled') {
      // The upstream gave up on one of its requests to the client: tell the client under the id it knows.
      const upstreamId = n.params?.['requestId'];
      for (const [clientId, e] of this.toClient) {
        if (e.generation === generation && e.id === upstreamId) {
          this.toClient.delete(clientId);
          this.write(JSON.stringify({ ...n, params: { ...n.params, requestId: clientId } }));
        }
      }
      return;
    }
    if (n.method === 'notifications/progress') {
      const token = n.params?.['progressToken'];
      const reqId = typeof token === 'string' || typeof token === 'number' ? this.progressTokens.get(token) : undefined;
      if (reqId !== undefined) this.progressed.add(reqId);
    }
    if (n.method === 'notifications/tools/list_changed' && this.firewall) {
      // Review the new definitions before the client can list or call them.
      void this.firewall.refresh()
        .catch((e) => this.o.log(`the changed tool list could not be read: ${describeError(e)}`))
        .then(() => this.write(JSON.stringify(n)));
      return;
    }
    this.write(JSON.stringify(n));
  }

  /** Every tool of the upstream, all pages (for the firewall's own review). */
  private async listTools(): Promise<ToolDef[]> {
    const all: ToolDef[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const o = await this.upstream.request('tools/list', cursor !== undefined ? { cursor } : undefined);
      if (o.error) throw new Error(`tools/list failed: ${o.error.message}`);
      const tools = o.result['tools'];
      if (!Array.isArray(tools)) throw new Error('tools/list returned no tool array');
      all.push(...(tools as ToolDef[]));
      cursor = o.result['nextCursor'];
      if (cursor === undefined || cursor === null) return all;
    }
    throw new Error(`tools/list returned more than ${MAX_TOOL_PAGES} pages`);
  }
}
