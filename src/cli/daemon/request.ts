// One request to a daemon socket and its reply, for `asimov daemon start|stop|status` (the per-call client
// is bin/daemon-client.cjs, which must not load this bundle).

import { connect } from 'node:net';
import { encodeFrame, FrameReader } from './protocol.ts';

/** The reply's JSON; rejects on a connection error (its errno in `code`), an early close, or the timeout. */
export function sendRequest(socketPath: string, request: unknown, timeoutMs: number): Promise<unknown> {
  return new Promise((resolvePromise, reject) => {
    const reader = new FrameReader();
    const sock = connect(socketPath);
    let settled = false;
    const finish = (err: Error | null, value?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolvePromise(value);
    };
    const timer = setTimeout(() => finish(new Error(`no reply from ${socketPath} within ${timeoutMs} ms`)), timeoutMs);
    sock.on('connect', () => sock.write(encodeFrame(request)));
    sock.on('data', (chunk: Buffer) => {
      try {
        const value = reader.push(chunk);
        if (value !== undefined) finish(null, value);
      } catch (e) {
        finish(e as Error);
      }
    });
    sock.on('error', (e) => finish(e));
    sock.on('close', () => finish(new Error('the daemon closed the connection without a reply')));
  });
}
