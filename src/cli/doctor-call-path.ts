// Which path an installed hook line's calls take, for `asimov doctor`: through the perl first stage to the
// resident daemon (no node at all), or node deciding in its own process, and why. Read from the line itself
// (its first stage and `ASIMOV_DAEMON=`) and from the daemon that answers, if one does, at the socket the
// doctor's environment names (the client's is normally the same user's).

import { dirname } from 'node:path';
import { lstatSync } from 'node:fs';
import { findExecutable } from '../core/executables.ts';
import { hookDaemonMode, hookHasFirstStage } from '../wire/hook-command.ts';
import type { DoctorCheck } from '../wire/doctor.ts';
import { runningBuildId } from './daemon/build-id.ts';
import { queryStatus } from './daemon/control.ts';
import { isPrivateDir, socketPathFor } from './daemon/socket-path.ts';

export async function callPathCheck(command: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const mode = hookDaemonMode(command);
  if (mode === 'off') return { status: 'info', title: 'calls: each starts node and decides in its own process (the line says ASIMOV_DAEMON=off)' };
  if (!hookHasFirstStage(command)) {
    const perl = findExecutable('perl', env) !== null;
    return {
      status: 'info',
      title: 'calls: each starts node first (the line has no first stage), then asks the daemon if one runs',
      ...(perl ? { fix: 'run `asimov wire --refresh` for the first stage, which asks the daemon without starting node' } : { detail: 'no perl on this machine, so no first stage' }),
    };
  }
  const socketPath = socketPathFor(env);
  const dir = dirname(socketPath);
  if (lstatSync(dir, { throwIfNoEntry: false }) !== undefined && !isPrivateDir(dir)) {
    return {
      status: 'warn',
      title: `calls: decided in their own process every time: the daemon's directory ${dir} is not a private directory of this user`,
      fix: `remove ${dir} (asimov makes it again, mode 0700)`,
    };
  }
  const live = await queryStatus(socketPath);
  const build = runningBuildId();
  if (live !== null && build !== null && live.build !== build) {
    return { status: 'info', title: `calls: the daemon at ${socketPath} (pid ${live.pid}) runs another build; the next call makes it exit and is decided in its own process${mode === 'auto' ? ', then a fresh daemon starts' : ''}` };
  }
  if (live !== null) {
    return { status: 'ok', title: `calls: the first stage hands them to the daemon, without starting node (pid ${live.pid}, ${live.served} served)` };
  }
  return mode === 'auto'
    ? { status: 'info', title: 'calls: no daemon runs now; the next call is decided in its own process and starts one for the calls after it' }
    : { status: 'info', title: 'calls: decided in their own process until a daemon runs (the line says ASIMOV_DAEMON=manual)', fix: '`asimov daemon start`' };
}
