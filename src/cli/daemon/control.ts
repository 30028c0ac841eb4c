// Asking the resident daemon how it is and telling it to stop: what `asimov daemon status|stop` do, and
// what `asimov uninstall` does before it removes asimov's directories (the socket may sit in its cache).

import { dirname } from 'node:path';
import { describeError } from '../../core/errors.ts';
import { PROTOCOL_VERSION, type DaemonStatus } from './protocol.ts';
import { sendRequest } from './request.ts';
import { isPrivateDir } from './socket-path.ts';

/** How long stop waits for the daemon to go away. */
export const WAIT_MS = 10_000;
export const POLL_MS = 25;

/** The running daemon's status, or null when none answers (or its directory is not private). */
export async function queryStatus(socketPath: string): Promise<DaemonStatus | null> {
  if (!isPrivateDir(dirname(socketPath))) return null;
  try {
    const reply = (await sendRequest(socketPath, { v: PROTOCOL_VERSION, op: 'status' }, 2000)) as { status?: DaemonStatus };
    return reply.status ?? null;
  } catch {
    return null;
  }
}

export type StopResult =
  | { kind: 'none' }
  | { kind: 'stopped'; pid: number }
  | { kind: 'failed'; message: string };

/** Asks the daemon at `socketPath` to exit and waits until it no longer answers. */
export async function stopDaemon(socketPath: string): Promise<StopResult> {
  const live = await queryStatus(socketPath);
  if (!live) return { kind: 'none' };
  try {
    await sendRequest(socketPath, { v: PROTOCOL_VERSION, op: 'stop' }, 2000);
  } catch (e) {
    return { kind: 'failed', message: `could not ask it to stop: ${describeError(e)}` };
  }
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    if ((await queryStatus(socketPath)) === null) return { kind: 'stopped', pid: live.pid };
    await sleep(POLL_MS);
  }
  return { kind: 'failed', message: `pid ${live.pid} still answers at ${socketPath}` };
}

/** What stopDaemon did, as `asimov daemon stop` says it. */
export function describeStop(r: StopResult, socketPath: string): string {
  if (r.kind === 'none') return `none running at ${socketPath}`;
  if (r.kind === 'stopped') return `stopped (pid ${r.pid})`;
  return r.message;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
