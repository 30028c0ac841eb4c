// What the scripted model servers share: a request body read whole, headers flattened, and a listener on
// 127.0.0.1 (an ephemeral port) whose close() also ends open connections, so no test waits on a keep-alive.

import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export interface Loopback {
  port: number;
  url: string;
  /** Destroys open connections, then closes the server. */
  close(): Promise<void>;
}

export async function listenLoopback(server: Server): Promise<Loopback> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    },
  };
}
