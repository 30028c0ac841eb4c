// A scripted Gemini API server on 127.0.0.1 (generativelanguage's `models/<m>:streamGenerateContent?alt=sse`
// and `:generateContent`), for driving the real Gemini CLI without a network or a model.
//
// The step of a conversation is the number of `role: "model"` turns already in `contents`, so a script
// replays deterministically however many side requests (requests without `tools`: routing, next-speaker
// checks, summaries) the client interleaves; those get plain text. A request with tools that a branch's
// `when` accepts (a sub-agent's own model loop, told apart by its task text) follows that branch's script,
// counted the same way, instead of the main one.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLoopback, readBody } from './loopback-http.ts';

export interface GeminiScriptedCall { name: string; args: Record<string, unknown> }
export interface GeminiScriptStep { text?: string; calls?: GeminiScriptedCall[] }
export interface GeminiCapturedRequest { path: string; body: any; main: boolean; branch?: number }
export interface GeminiScriptBranch { when: (body: any) => boolean; script: GeminiScriptStep[] }
export interface GeminiFunctionResponse { name: string; response: any }

export interface GeminiServer {
  url: string;
  requests: GeminiCapturedRequest[];
  /** Every functionResponse part the client sent back in any main request, in order of first sighting. */
  functionResponses(): GeminiFunctionResponse[];
  close(): Promise<void>;
}

function stepOf(body: any): number {
  const contents: unknown = body?.contents;
  return Array.isArray(contents) ? contents.filter((c) => (c as { role?: unknown })?.role === 'model').length : 0;
}

function isMain(body: any): boolean {
  return Array.isArray(body?.tools) && body.tools.some((t: any) => Array.isArray(t?.functionDeclarations) && t.functionDeclarations.length > 0);
}

function responseOf(parts: unknown[]): unknown {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'scripted',
  };
}

function partsFor(step: GeminiScriptStep | undefined, sideText: string): unknown[] {
  if (!step || (step.text === undefined && !step.calls?.length)) return [{ text: sideText }];
  const parts: unknown[] = [];
  if (step.text !== undefined) parts.push({ text: step.text });
  for (const c of step.calls ?? []) parts.push({ functionCall: { name: c.name, args: c.args } });
  return parts;
}

export async function startGeminiServer(o: { script: GeminiScriptStep[]; sideText?: string; branches?: GeminiScriptBranch[] }): Promise<GeminiServer> {
  const sideText = o.sideText ?? 'done';
  const requests: GeminiCapturedRequest[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const m = /:(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (req.method !== 'POST' || !m) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: `no route ${req.method} ${path}`, status: 'NOT_FOUND' } }));
      return;
    }
    const raw = await readBody(req);
    let body: any = raw;
    try { body = JSON.parse(raw); } catch { /* kept raw */ }
    if (m[1] === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    const main = isMain(body);
    const branchIndex = main ? (o.branches ?? []).findIndex((b) => b.when(body)) : -1;
    requests.push(branchIndex >= 0 ? { path, body, main, branch: branchIndex } : { path, body, main });
    const script = branchIndex >= 0 ? o.branches![branchIndex]!.script : o.script;
    const reply = responseOf(partsFor(main ? script[stepOf(body)] : undefined, sideText));
    if (m[1] === 'streamGenerateContent') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`data: ${JSON.stringify(reply)}\n\n`);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 500, message: `scripted server: ${String(err)}`, status: 'INTERNAL' } }));
    });
  });
  const loopback = await listenLoopback(server);
  const port = loopback.port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    functionResponses() {
      const out: GeminiFunctionResponse[] = [];
      const seen = new Set<string>();
      for (const r of requests.filter((x) => x.main)) {
        for (const c of Array.isArray(r.body?.contents) ? r.body.contents : []) {
          for (const p of Array.isArray(c?.parts) ? c.parts : []) {
            const fr = p?.functionResponse;
            if (!fr) continue;
            const key = JSON.stringify(fr);
            if (seen.has(key)) continue;
            seen.add(key);
            out.push({ name: String(fr.name), response: fr.response });
          }
        }
      }
      return out;
    },
    async close() {
      await loopback.close();
    },
  };
}
