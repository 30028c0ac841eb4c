// A scripted Anthropic Messages server on 127.0.0.1, for driving real clients (the Claude Code CLI, the
// official SDK, asimov's own judge) without a network or a model.
//
// Claude Code's main loop always offers `tools` and streams; the step of a conversation is the number of
// assistant messages it already carries, so a script replays deterministically however many side queries
// (titles, summaries: requests without tools) the client interleaves. Tests that need more (errors, hangs,
// malformed replies, per-request counters) take over with `onRequest`.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLoopback, readBody } from './loopback-http.ts';

export interface ScriptedToolUse { name: string; input: Record<string, unknown>; id?: string }
export interface ScriptStep { text?: string; tools?: ScriptedToolUse[] }
export interface CapturedRequest {
  path: string;                 // without the query string
  headers: Record<string, string>;
  body: any;                    // parsed JSON (or the raw string if it was not JSON)
  stream: boolean;
  main: boolean;                // the request offers tools (main loop), not a side query
}
export type ScriptReply =
  | { kind: 'message'; content: Array<{ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown }>;
      stopReason?: string; usage?: { input_tokens: number; output_tokens: number } }
  | { kind: 'raw'; status: number; headers?: Record<string, string>; body: string }   // exact bytes, for malformed replies / 4xx / 5xx / 429 + retry-after
  | { kind: 'hang' }                                                                  // never answers (until close)
  | { kind: 'destroy' };                                                              // drops the connection
export interface AnthropicServerOptions {
  script?: ScriptStep[];        // main-loop step = number of role:"assistant" messages already in body.messages
  /** Takes over any request; return undefined to fall back to the script/side-query default. */
  onRequest?: (req: CapturedRequest, ctx: { step: number }) => ScriptReply | undefined | Promise<ScriptReply | undefined>;
  /** Text for side queries (requests without tools) and for steps past the script's end. Default "done". */
  sideText?: string;
}
export interface AnthropicServer {
  url: string;                  // http://127.0.0.1:<port>
  requests: CapturedRequest[];  // every /v1/messages request, in order
  mainRequests(): CapturedRequest[];
  /** tool_result blocks in the LAST main request's last user message, with content flattened to text. */
  lastToolResults(): Array<{ tool_use_id: string; text: string; is_error: boolean }>;
  /** All tool_result blocks seen in any main request (dedup by tool_use_id, latest wins). */
  allToolResults(): Array<{ tool_use_id: string; text: string; is_error: boolean }>;
  close(): Promise<void>;
}

type ToolResult = { tool_use_id: string; text: string; is_error: boolean };
type MessageReply = Extract<ScriptReply, { kind: 'message' }>;

const DEFAULT_USAGE = { input_tokens: 10, output_tokens: 5 };

/** The conversation step: assistant turns already in the history (system-role entries are not turns). */
function stepOf(body: any): number {
  const messages: unknown = body?.messages;
  if (!Array.isArray(messages)) return 0;
  return messages.filter((m) => (m as { role?: unknown })?.role === 'assistant').length;
}

function isMain(body: any): boolean {
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

function flattenContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function toolResultsOf(message: unknown): ToolResult[] {
  const content = (message as { content?: unknown })?.content;
  if (!Array.isArray(content)) return [];
  return content
    .filter((b) => b && typeof b === 'object' && (b as { type?: unknown }).type === 'tool_result')
    .map((b) => ({
      tool_use_id: String((b as { tool_use_id?: unknown }).tool_use_id),
      text: flattenContent((b as { content?: unknown }).content),
      is_error: (b as { is_error?: unknown }).is_error === true,
    }));
}

function lastUserMessage(body: any): unknown {
  const messages: unknown = body?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) if ((messages[i] as { role?: unknown })?.role === 'user') return messages[i];
  return undefined;
}

function textReply(text: string): MessageReply {
  return { kind: 'message', content: [{ type: 'text', text }] };
}

function scriptedReply(step: ScriptStep, stepIndex: number): MessageReply {
  const content: MessageReply['content'] = [];
  if (step.text !== undefined) content.push({ type: 'text', text: step.text });
  (step.tools ?? []).forEach((t, i) => content.push({ type: 'tool_use', id: t.id ?? `toolu_${stepIndex}_${i}`, name: t.name, input: t.input }));
  return { kind: 'message', content };
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function stopReasonOf(reply: MessageReply): string {
  return reply.stopReason ?? (reply.content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
}

/** The whole SSE stream of one message: each block in one start/delta/stop triple, as the real API may. */
function sseBody(reply: MessageReply, id: string, model: string): string {
  const usage = reply.usage ?? DEFAULT_USAGE;
  let out = sse('message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } },
  });
  reply.content.forEach((block, index) => {
    if (block.type === 'text') {
      out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) } });
    }
    out += sse('content_block_stop', { type: 'content_block_stop', index });
  });
  out += sse('message_delta', { type: 'message_delta', delta: { stop_reason: stopReasonOf(reply), stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  out += sse('message_stop', { type: 'message_stop' });
  return out;
}

function jsonBody(reply: MessageReply, id: string, model: string): string {
  return JSON.stringify({
    id, type: 'message', role: 'assistant', model, content: reply.content,
    stop_reason: stopReasonOf(reply), stop_sequence: null, usage: reply.usage ?? DEFAULT_USAGE,
  });
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export async function startAnthropicServer(opts: AnthropicServerOptions = {}): Promise<AnthropicServer> {
  const script = opts.script ?? [];
  const sideText = opts.sideText ?? 'done';
  const requests: CapturedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let messageCount = 0;

  async function replyFor(captured: CapturedRequest, step: number): Promise<ScriptReply> {
    const custom = opts.onRequest ? await opts.onRequest(captured, { step }) : undefined;
    if (custom) return custom;
    if (!captured.main) return textReply(sideText);
    const scripted = script[step];
    if (!scripted || (scripted.text === undefined && !scripted.tools?.length)) return textReply(sideText);
    return scriptedReply(scripted, step);
  }

  function send(res: ServerResponse, captured: CapturedRequest, reply: ScriptReply): void {
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
        const id = `msg_scripted_${++messageCount}`;
        const model = typeof captured.body?.model === 'string' ? captured.body.model : 'scripted-model';
        if (captured.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${messageCount}` });
          res.end(sseBody(reply, id, model));
        } else {
          res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${messageCount}` });
          res.end(jsonBody(reply, id, model));
        }
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if ((req.method === 'HEAD' || req.method === 'GET') && path === '/') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(req.method === 'HEAD' ? undefined : 'ok');
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/messages') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${path}` } }));
      return;
    }
    const raw = await readBody(req);
    let body: any = raw;
    try { body = JSON.parse(raw); } catch { /* kept raw: tests may send malformed bodies on purpose */ }
    const captured: CapturedRequest = { path, headers: headersOf(req), body, stream: body?.stream === true, main: isMain(body) };
    requests.push(captured);
    send(res, captured, await replyFor(captured, stepOf(body)));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A broken onRequest must show up as a failing client call, never as a hang.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: `scripted server: ${String(err)}` } }));
    });
  });
  const loopback = await listenLoopback(server);
  const port = loopback.port;

  const mainRequests = (): CapturedRequest[] => requests.filter((r) => r.main);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    mainRequests,
    lastToolResults() {
      const last = mainRequests().at(-1);
      return last ? toolResultsOf(lastUserMessage(last.body)) : [];
    },
    allToolResults() {
      const byId = new Map<string, ToolResult>();
      for (const r of mainRequests()) {
        const messages: unknown = r.body?.messages;
        if (!Array.isArray(messages)) continue;
        for (const m of messages) {
          for (const t of toolResultsOf(m)) {
            byId.delete(t.tool_use_id); // re-insert so the order follows the latest sighting
            byId.set(t.tool_use_id, t);
          }
        }
      }
      return [...byId.values()];
    },
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      await loopback.close();
    },
  };
}

/**
 * The tool_result for the first tool call of script step `step` (the server names it `toolu_<step>_0`); fails
 * the test, with `context` (what the client run printed), when the client sent none back.
 */
export function stepToolResult(results: readonly ToolResult[], step: number, context: string): ToolResult {
  const r = results.find((x) => x.tool_use_id === `toolu_${step}_0`);
  assert.ok(r, `no tool_result for step ${step}; ${context}`);
  return r;
}
