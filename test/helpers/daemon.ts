// A hook that finds no resident daemon starts one (bin/daemon-client.cjs autostartDaemon), so a scratch HOME
// that ran hooks may have a daemon listening in it: stopped before the scratch is removed, or it would outlive
// the test file (until its idle exit) holding a socket in a directory that no longer exists.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { socketPathFor } from '../../src/cli/daemon/socket-path.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');

/** Stops the daemon whose socket this HOME (and XDG_RUNTIME_DIR, if given) names; nothing when none runs. */
export function stopDaemonFor(home: string, runtimeDir?: string): void {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
  if (runtimeDir !== undefined) env.XDG_RUNTIME_DIR = runtimeDir;
  // No socket, no daemon: most scratches never started one, and asking costs a node process.
  if (!existsSync(socketPathFor(env))) return;
  spawnSync(process.execPath, [BIN, 'daemon', 'stop'], { env, encoding: 'utf8', timeout: 20_000 });
}
