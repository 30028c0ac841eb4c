// A scripted OpenAI Chat Completions server on 127.0.0.1, for driving the official `openai` SDK (and so
// asimov's openai judge provider) without a network or a model. Same style as anthropic-server.ts: each
// request is captured, and `onRequest` chooses the reply: a completion, exact raw bytes (malformed bodies,
// 4xx/5xx, 429 with retry-after), a hang, or a dropped connection.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLoopback, readBody } from './loopback-http.ts';

export interface CapturedChatRequest {
  path: string;                 // without the query string
  headers: Record<string, string>;
  body: any;                    // parsed JSON (or the raw string if it was not JSON)
  stream: boolean;
}
export type ChatReply =
  | {
      kind: 'message';
      /** The assistant message's text; null for a message without content. */
      content: string | null;
      finishReason?: string;    // default "stop"
      refusal?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      /** How many identical choices to send (default 1). */
      choices?: number;
    }
  | { kind: 'raw'; status: number; headers?: Record<string, string>; body: string }
  | { kind: 'hang' }
  | { kind: 'destroy' };
export interface OpenAIServerOptions {
  /** Chooses the reply; `index` counts chat requests from 0. Return undefined for the default reply. */
  onRequest?: (req: CapturedChatRequest, ctx: { index: number }) => ChatReply | undefined | Promise<ChatReply | undefined>;
  /** The default reply's content. Default "done". */
  defaultContent?: string;
}
export interface OpenAIServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** `${url}/v1`: what the SDK takes as baseURL. */
  baseUrl: string;
  /** Every chat completions request, in order. */
  requests: CapturedChatRequest[];
  close(): Promise<void>;
}

const DEFAULT_USAGE = { prompt_tokens: 12, completion_tokens: 7 };

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function completionBody(reply: Extract<ChatReply, { kind: 'message' }>, id: string, model: string): string {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.content, refusal: reply.refusal ?? null };
  const n = reply.choices ?? 1;
  return JSON.stringify({
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: Array.from({ length: n }, (_, index) => ({ index, message, finish_reason: reply.finishReason ?? 'stop', logprobs: null })),
    usage: { ...(reply.usage ?? DEFAULT_USAGE), total_tokens: (reply.usage ?? DEFAULT_USAGE).prompt_tokens + (reply.usage ?? DEFAULT_USAGE).completion_tokens },
  });
}

function sseBody(reply: Extract<ChatReply, { kind: 'message' }>, id: string, model: string): string {
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const chunk = (delta: unknown, finish: string | null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return chunk({ role: 'assistant', content: reply.content ?? '' }, null) + chunk({}, reply.finishReason ?? 'stop') + 'data: [DONE]\n\n';
}

export async function startOpenAIServer(opts: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const requests: CapturedChatRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let count = 0;

  function send(res: ServerResponse, captured: CapturedChatRequest, reply: ChatReply): void {
    switch (reply.kind) {
      case 'hang':
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      case 'destroy':
        res.socket?.destroy();
        return;
      case 'raw':
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body);
        return;
      case 'message': {
        const id = `chatcmpl-scripted-${count}`;
        const model = typeof captured.body?.model === 'string' ? captured.body.model : 'scripted-model';
        if (captured.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.end(sseBody(reply, id, model));
        } else {
          res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${count}` });
          res.end(completionBody(reply, id, model));
        }
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted-model', object: 'model', created: 0, owned_by: 'asimov-tests' }] }));
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } }));
      return;
    }
    const raw = await readBody(req);
    let body: any = raw;
    try { body = JSON.parse(raw); } catch { /* kept raw */ }
    const captured: CapturedChatRequest = { path, headers: headersOf(req), body, stream: body?.stream === true };
    requests.push(captured);
    const index = count++;
    const custom = opts.onRequest ? await opts.onRequest(captured, { index }) : undefined;
    send(res, captured, custom ?? { kind: 'message', content: opts.defaultContent ?? 'done' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `scripted server: ${String(err)}`, type: 'server_error' } }));
    });
  });
  const loopback = await listenLoopback(server);
  const url = loopback.url;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      await loopback.close();
    },
  };
}
