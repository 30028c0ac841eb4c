// Where `asimov serve` listens, and whether that place is this machine only. Loopback is the default; any
// other address carries the API over a network, which needs TLS or the operator's explicit --insecure.

import { isIP } from 'node:net';
import { AsimovError } from '../core/errors.ts';

export const DEFAULT_LISTEN = '127.0.0.1:7420';

export interface ListenAddress {
  host: string;
  port: number;
}

/** `127.0.0.1:7420`, `[::1]:7420`, `localhost:0`, `0.0.0.0:8443`, or a bare port (loopback). */
export function parseListen(text: string): ListenAddress {
  const t = text.trim();
  let host: string;
  let port: string;
  if (/^\d+$/.test(t)) {
    host = '127.0.0.1';
    port = t;
  } else if (t.startsWith('[')) {
    const m = /^\[([^\]]+)\]:(\d+)$/.exec(t);
    if (!m) throw new AsimovError('usage', `--listen '${text}': write an IPv6 address as [addr]:port`);
    host = m[1]!;
    port = m[2]!;
  } else {
    const i = t.lastIndexOf(':');
    if (i <= 0 || t.indexOf(':') !== i) throw new AsimovError('usage', `--listen '${text}' must be host:port (127.0.0.1:7420, [::1]:7420) or a port`);
    host = t.slice(0, i);
    port = t.slice(i + 1);
  }
  const n = Number(port);
  if (!/^\d+$/.test(port) || n > 65535) throw new AsimovError('usage', `--listen '${text}': the port must be a number from 0 to 65535`);
  if (host !== 'localhost' && isIP(host) === 0) throw new AsimovError('usage', `--listen '${text}': give an IP address (or localhost), not a host name`);
  return { host, port: n };
}

/** Whether an address is this machine only: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host);
  return m !== null && m[1]!.startsWith('127.');
}

export function urlOf(a: ListenAddress, tls: boolean): string {
  const host = isIP(a.host) === 6 ? `[${a.host}]` : a.host;
  return `${tls ? 'https' : 'http'}://${host}:${a.port}`;
}
