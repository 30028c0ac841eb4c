// A hook that finds no resident daemon starts one (bin/daemon-client.cjs autostartDaemon), so a scratch HOME
// that ran hooks may have a daemon listening in it: stopped before the scratch is removed, or it would outlive
// the test file (until its idle exit) holding a socket in a directory that no longer exists.

import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { socketPathFor } from '../../src/cli/daemon/socket-path.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');

/** Stops the daemon whose socket this HOME (and XDG_RUNTIME_DIR, if given) names; nothing when none runs. */
export function stopDaemonFor(home: string, runtimeDir?: string): void {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
  if (runtimeDir !== undefined) env.XDG_RUNTIME_DIR = runtimeDir;
  const socket = socketPathFor(env);
  // A hook's last answer may have just started one (the stamp beside the socket): it is given time to listen,
  // or the removal of the scratch would race its first files and leave it running in what remains.
  const stamp = join(dirname(socket), 'autostart');
  for (let i = 0; i < 100 && !existsSync(socket) && existsSync(stamp) && Date.now() - statSync(stamp).mtimeMs < 30_000; i++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  // No socket, no daemon: most scratches never started one, and asking costs a node process.
  if (!existsSync(socket)) return;
  spawnSync(process.execPath, [BIN, 'daemon', 'stop'], { env, encoding: 'utf8', timeout: 20_000 });
}
