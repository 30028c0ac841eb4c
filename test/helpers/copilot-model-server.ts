// A scripted OpenAI Chat Completions server on 127.0.0.1 that proposes tool calls, for driving the real
// Copilot CLI (BYOK mode: COPILOT_PROVIDER_BASE_URL) without a network or a model. openai-server.ts answers
// with text only; a coding agent's main loop needs `tool_calls`, and the tool results of the next request.
//
// As in anthropic-server.ts, the step of a conversation is the number of assistant messages it already
// carries, so the script replays deterministically however many side requests (requests without tools,
// such as session titles) the client interleaves. Every request is answered in the mode it asks for:
// an SSE stream of chunks when `stream` is true, one JSON completion otherwise.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLoopback, readBody } from './loopback-http.ts';

/** A function tool call (`args`), or a call of a freeform custom tool such as Copilot's apply_patch (`input`). */
export interface ScriptedToolCall { name: string; args?: Record<string, unknown>; input?: string }
export interface ChatScriptStep { text?: string; tools?: ScriptedToolCall[] }
export interface CapturedCompletion {
  body: any;
  stream: boolean;
  /** The request offers tools (the agent's main loop), not a side request. */
  main: boolean;
}
export interface ToolMessage { tool_call_id: string; text: string }
export interface CopilotModelServer {
  /** `http://127.0.0.1:<port>/v1`: what COPILOT_PROVIDER_BASE_URL takes. */
  baseUrl: string;
  requests: CapturedCompletion[];
  /** Every `role: "tool"` message seen in any main request, by tool_call_id (latest wins). */
  toolResults(): Map<string, string>;
  close(): Promise<void>;
}

/** The id the script gives the i-th tool call of a step: what the tool results are looked up by. */
export function toolCallId(step: number, i = 0): string {
  return `call_${step}_${i}`;
}

function stepOf(body: any): number {
  const messages: unknown = body?.messages;
  if (!Array.isArray(messages)) return 0;
  return messages.filter((m) => (m as { role?: unknown })?.role === 'assistant').length;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : '')).join('\n');
}

interface Call { id: string; name: string; arguments: string; custom: boolean }
interface Reply { text: string | null; calls: Call[] }

function replyFor(step: ChatScriptStep | undefined, index: number, fallback: string): Reply {
  if (!step) return { text: fallback, calls: [] };
  const calls = (step.tools ?? []).map((t, i) => ({
    id: toolCallId(index, i), name: t.name, custom: t.input !== undefined, arguments: t.input ?? JSON.stringify(t.args ?? {}),
  }));
  return { text: step.text ?? (calls.length > 0 ? null : fallback), calls };
}

function completion(r: Reply, id: string, model: string): string {
  const message: Record<string, unknown> = { role: 'assistant', content: r.text };
  if (r.calls.length > 0) message['tool_calls'] = r.calls.map((c) => (c.custom
    ? { id: c.id, type: 'custom', custom: { name: c.name, input: c.arguments } }
    : { id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  return JSON.stringify({
    id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message, finish_reason: r.calls.length > 0 ? 'tool_calls' : 'stop', logprobs: null }],
    usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  });
}

function stream(r: Reply, id: string, model: string): string {
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra })}\n\n`;
  let out = chunk({ role: 'assistant', content: r.text ?? '' }, null);
  r.calls.forEach((c, index) => {
    if (c.custom) {
      out += chunk({ tool_calls: [{ index, id: c.id, type: 'custom', custom: { name: c.name, input: c.arguments } }] }, null);
      return;
    }
    out += chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }, null);
    out += chunk({ tool_calls: [{ index, function: { arguments: c.arguments } }] }, null);
  });
  out += chunk({}, r.calls.length > 0 ? 'tool_calls' : 'stop', { usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } });
  return `${out}data: [DONE]\n\n`;
}

export async function startCopilotModelServer(o: { script: ChatScriptStep[]; sideText?: string }): Promise<CopilotModelServer> {
  const requests: CapturedCompletion[] = [];
  let count = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted-model', object: 'model', created: 0, owned_by: 'asimov-tests' }] }));
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } }));
      return;
    }
    const raw = await readBody(req);
    let body: any = raw;
    try { body = JSON.parse(raw); } catch { /* kept raw */ }
    const main = Array.isArray(body?.tools) && body.tools.length > 0;
    const captured: CapturedCompletion = { body, stream: body?.stream === true, main };
    requests.push(captured);
    const step = stepOf(body);
    const reply = main ? replyFor(o.script[step], step, o.sideText ?? 'done') : { text: o.sideText ?? 'done', calls: [] };
    const id = `chatcmpl-scripted-${count++}`;
    const model = typeof body?.model === 'string' ? body.model : 'scripted-model';
    if (captured.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(stream(reply, id, model));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion(reply, id, model));
    }
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
    baseUrl: `${url}/v1`,
    requests,
    toolResults() {
      const out = new Map<string, string>();
      for (const r of requests) {
        if (!r.main || !Array.isArray(r.body?.messages)) continue;
        for (const m of r.body.messages as Array<{ role?: unknown; tool_call_id?: unknown; content?: unknown }>) {
          if (m?.role === 'tool' && typeof m.tool_call_id === 'string') out.set(m.tool_call_id, textOf(m.content));
        }
      }
      return out;
    },
    async close() {
      await loopback.close();
    },
  };
}
