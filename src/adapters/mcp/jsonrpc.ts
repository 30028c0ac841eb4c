// JSON-RPC 2.0 as MCP carries it, at the depth a relay needs: which kind of message a value is, and the
// newline-delimited framing of MCP's stdio transport. The proxy parses no deeper than this, so what it
// forwards is what it received (an upstream's result reaches the client as the upstream wrote it).

import { StringDecoder } from 'node:string_decoder';

export type JsonRpcId = string | number;
export type Params = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Params;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Params;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The answer to a request, without its envelope: exactly one of the two. */
export type Outcome = { result: Params; error?: undefined } | { error: JsonRpcErrorObject; result?: undefined };

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: Params;
  error?: JsonRpcErrorObject;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Standard JSON-RPC codes and the two MCP adds (as the SDK names them). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  internalError: -32603,
  connectionClosed: -32000,
  requestTimeout: -32001,
  /** asimov's own: the firewall refused the request (a prompts/get, resources/read, completion/complete). */
  refused: -32003,
} as const;

export type MessageKind = 'request' | 'notification' | 'response';

function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

function isParams(v: unknown): boolean {
  return v === undefined || (typeof v === 'object' && v !== null && !Array.isArray(v));
}

/** What a parsed value is as a JSON-RPC message, or null when it is none (a batch, a response without id, junk). */
export function kindOf(v: unknown): MessageKind | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const m = v as Record<string, unknown>;
  if (m['jsonrpc'] !== '2.0') return null;
  if (typeof m['method'] === 'string') {
    if (!isParams(m['params'])) return null;
    return 'id' in m ? (isId(m['id']) ? 'request' : null) : 'notification';
  }
  if (!isId(m['id'])) return null;
  const hasResult = typeof m['result'] === 'object' && m['result'] !== null && !Array.isArray(m['result']);
  const err = m['error'] as Record<string, unknown> | undefined;
  const hasError = typeof err === 'object' && err !== null && typeof err['code'] === 'number' && typeof err['message'] === 'string';
  return hasResult !== hasError ? 'response' : null;
}

/** The progress token a request asks progress under (`params._meta.progressToken`), if any. */
export function progressTokenOf(params: Params | undefined): JsonRpcId | undefined {
  const meta = params?.['_meta'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const t = (meta as Record<string, unknown>)['progressToken'];
  return typeof t === 'string' || typeof t === 'number' ? t : undefined;
}

/** The outcome a response carries. */
export function outcomeOf(r: JsonRpcResponse): Outcome {
  return r.error !== undefined ? { error: r.error } : { result: r.result ?? {} };
}

export function responseLine(id: JsonRpcId, outcome: Outcome): string {
  return outcome.error !== undefined
    ? JSON.stringify({ jsonrpc: '2.0', id, error: outcome.error })
    : JSON.stringify({ jsonrpc: '2.0', id, result: outcome.result });
}

/** An MCP tool result that reports a failure to the model (`isError`), the form every refusal takes. */
export function toolErrorResult(text: string): Params {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A line longer than this is not a message anyone means to send; the stream is treated as broken. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export interface LineSplitter {
  /** Feeds bytes or text; calls onLine for every complete line (without its newline or a trailing CR). */
  push(chunk: string | Buffer): void;
  /** What is left after the last newline (a message without its newline, or partial junk). */
  rest(): string;
}

/**
 * Newline-delimited framing. UTF-8 split across chunks is decoded correctly; an over-long line is reported
 * through onOverflow and dropped (its remainder up to the next newline too).
 */
export function createLineSplitter(onLine: (line: string) => void, onOverflow: () => void): LineSplitter {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let skipping = false;
  return {
    push(chunk) {
      let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let nl = text.indexOf('\n');
      while (nl !== -1) {
        let line = pending + text.slice(0, nl);
        pending = '';
        text = text.slice(nl + 1);
        if (skipping) skipping = false;
        else {
          if (line.endsWith('\r')) line = line.slice(0, -1);
          if (line.trim() !== '') onLine(line);
        }
        nl = text.indexOf('\n');
      }
      if (skipping) return;
      pending += text;
      if (pending.length > MAX_LINE_CHARS) {
        pending = '';
        skipping = true;
        onOverflow();
      }
    },
    rest: () => pending,
  };
}

/** Parses one framed line; `junk` when it is not JSON or not a JSON-RPC message. */
export function parseLine(line: string): { kind: MessageKind; msg: JsonRpcMessage } | { junk: string } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { junk: line };
  }
  const kind = kindOf(v);
  return kind === null ? { junk: line } : { kind, msg: v as JsonRpcMessage };
}

/** A short, single-line excerpt of text for a message (junk can be anything, of any length). */
export function excerpt(text: string, max = 120): string {
  const one = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}
