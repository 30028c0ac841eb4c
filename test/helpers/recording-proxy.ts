// An HTTP(S) forward proxy on 127.0.0.1 that forwards nothing: it records the host of every CONNECT tunnel
// and every absolute-URL request and refuses each with 502. A client pointed at it (HTTPS_PROXY/HTTP_PROXY)
// thereby proves whether it tried to reach a host, without any traffic leaving the machine.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ProxyHit {
  method: string;               // CONNECT, or the method of a plain-HTTP proxied request
  host: string;                 // lower-cased, without the port
  port: number;
  target: string;               // "host:port" for CONNECT, the absolute URL otherwise
}
export interface RecordingProxy {
  url: string;                  // http://127.0.0.1:<port>, the value for HTTPS_PROXY / HTTP_PROXY
  hits: ProxyHit[];             // every proxied attempt, in order
  hosts(): string[];            // the distinct hosts tried, in first-seen order
  close(): Promise<void>;
}

/**
 * Environment that routes a client's outgoing HTTP(S) through the proxy. claudeEnv already exempts
 * 127.0.0.1 (NO_PROXY), so the scripted model server is still reached directly.
 */
export function proxyEnv(proxy: Pick<RecordingProxy, 'url'>): Record<string, string> {
  return { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, https_proxy: proxy.url, http_proxy: proxy.url };
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(authority) ?? /^([^:]+)(?::(\d+))?$/.exec(authority);
  if (!m) return { host: authority.toLowerCase(), port: defaultPort };
  return { host: m[1]!.toLowerCase(), port: m[2] ? Number(m[2]) : defaultPort };
}

export async function startRecordingProxy(): Promise<RecordingProxy> {
  const hits: ProxyHit[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const target = req.url ?? '';
    let parsed: URL | undefined;
    try { parsed = /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? new URL(target) : undefined; } catch { parsed = undefined; }
    if (!parsed) {
      // Not a proxy request (origin-form): nothing was attempted through us.
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('recording proxy: expected an absolute URL or CONNECT\n');
      return;
    }
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    hits.push({ method: req.method ?? 'GET', host: parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port, target });
    req.resume();
    res.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
    res.end('recording proxy: refused\n');
  });

  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const target = req.url ?? '';
    const { host, port } = splitHostPort(target, 443);
    hits.push({ method: 'CONNECT', host, port, target });
    socket.on('error', () => { /* the client may hang up first */ });
    socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });

  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    hosts: () => [...new Set(hits.map((h) => h.host))],
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
