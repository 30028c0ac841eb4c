// A scripted OpenAI Responses API server on 127.0.0.1 (POST /v1/responses, streamed as SSE), for driving
// the real Codex CLI headless without a network or a model. Each main-loop request gets the next step of
// the script: function calls (one of Codex's own tools with its JSON arguments) or a text answer.
//
// The step of a conversation is the number of function calls already in the request's `input`, divided
// out per step, so a script replays deterministically; requests past the script's end get `finalText`.
// The tool outputs Codex sends back (`function_call_output` items) are collected by call id.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLoopback, readBody } from './loopback-http.ts';

export interface ScriptedCall { name: string; arguments: Record<string, unknown> }
export interface CodexStep { text?: string; calls?: ScriptedCall[] }
export interface CapturedResponsesRequest { path: string; body: any }
export interface CodexModelServer {
  url: string;                  // http://127.0.0.1:<port>
  baseUrl: string;              // `${url}/v1`: what a Codex model provider takes as base_url
  requests: CapturedResponsesRequest[];
  /** Every function_call_output Codex sent back, by call id (`call_<step>_<i>`), output flattened to text. */
  toolOutputs(): Map<string, string>;
  /** The names of the function tools Codex offered in its first request. */
  offeredTools(): string[];
  close(): Promise<void>;
}

function inputItems(body: any): any[] {
  return Array.isArray(body?.input) ? body.input : [];
}

/** Steps already taken: the distinct steps of the scripted calls echoed back in the input. */
function stepOf(body: any): number {
  const steps = new Set<string>();
  for (const item of inputItems(body)) {
    if (item?.type !== 'function_call') continue;
    const m = /^call_(\d+)_/.exec(String(item.call_id));
    if (m) steps.add(m[1]!);
  }
  return steps.size;
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((o) => (typeof o?.text === 'string' ? o.text : '')).join('\n');
  return JSON.stringify(output);
}

function sse(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

function streamFor(step: CodexStep, stepIndex: number, responseId: string): string {
  const items: Record<string, unknown>[] = [];
  if (step.text !== undefined) {
    items.push({
      type: 'message', id: `msg_${stepIndex}`, role: 'assistant', status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    });
  }
  (step.calls ?? []).forEach((c, i) => {
    items.push({
      type: 'function_call', id: `fc_${stepIndex}_${i}`, call_id: `call_${stepIndex}_${i}`, name: c.name,
      arguments: JSON.stringify(c.arguments), status: 'completed',
    });
  });
  let out = sse('response.created', { response: { id: responseId, object: 'response', status: 'in_progress', output: [] } });
  items.forEach((item, i) => {
    out += sse('response.output_item.added', { output_index: i, item });
    out += sse('response.output_item.done', { output_index: i, item });
  });
  out += sse('response.completed', {
    response: {
      id: responseId, object: 'response', status: 'completed', output: items,
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
    },
  });
  return out;
}

export async function startCodexModelServer(o: { script: CodexStep[]; finalText?: string }): Promise<CodexModelServer> {
  const requests: CapturedResponsesRequest[] = [];
  let count = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted-model', object: 'model', created: 0, owned_by: 'asimov-tests' }] }));
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/responses') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } }));
      return;
    }
    const raw = await readBody(req);
    let body: any = raw;
    try { body = JSON.parse(raw); } catch { /* kept raw */ }
    requests.push({ path, body });
    const step = stepOf(body);
    const scripted = o.script[step] ?? { text: o.finalText ?? 'done' };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(streamFor(scripted, step, `resp_${count++}`));
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
    toolOutputs() {
      const out = new Map<string, string>();
      for (const r of requests) {
        for (const item of inputItems(r.body)) {
          if (item?.type === 'function_call_output') out.set(String(item.call_id), outputText(item.output));
        }
      }
      return out;
    },
    offeredTools() {
      const tools: unknown = requests[0]?.body?.tools;
      if (!Array.isArray(tools)) return [];
      return tools.map((t) => String(t?.name ?? t?.type));
    },
    async close() {
      await loopback.close();
    },
  };
}
