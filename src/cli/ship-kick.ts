// The hook's one duty towards the team's audit trail: when `audit.remote` (or `audit.otlp`) is set and no shipper runs for this
// log, start one in the background (`asimov audit ship --follow --idle-exit …`), after the hook has answered.
// The call's path stays as it was: the record is already in the local log, and the shipper reads it from there.
// Cost when a shipper runs: one small file read and a signal-0 check.

import { closeSync, existsSync, openSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuditSettings } from '../policy/layers.ts';
import { resolveAuditPath } from '../audit/paths.ts';
import { ensureShipDir, shipDirOf, shipperPid } from '../audit/ship-state.ts';
import { resolveTeamToken } from '../audit/team-token.ts';
import { lazyChildProcess } from '../core/lazy.ts';

/** A started shipper exits after this long with nothing to ship; the next call starts another. */
export const SHIPPER_IDLE_EXIT_SEC = 600;
/** Never start shippers more often than this for one log (one that cannot start must not cost every call a spawn). */
const KICK_INTERVAL_MS = 30_000;

export function kickShipper(audit: AuditSettings | undefined, env: NodeJS.ProcessEnv): 'running' | 'started' | 'off' | 'waiting' {
  if (!audit?.remote && !audit?.otlp) return 'off';
  let log: string | null;
  try {
    log = resolveAuditPath(env);
  } catch {
    return 'off';
  }
  if (log === null) return 'off';
  if (shipperPid(log) !== null) return 'running';
  // Without a token the shipper could only fail: `asimov doctor` and `audit ship` say why.
  if (audit.remote && !audit.otlp && !resolveTeamToken(audit, env).ok) return 'off';
  const marker = join(shipDirOf(log), 'kicked');
  try {
    if (Date.now() - statSync(marker).mtimeMs < KICK_INTERVAL_MS) return 'waiting';
  } catch {
    /* never kicked */
  }
  const bin = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'asimov.cjs');
  if (!existsSync(bin)) return 'off'; // run from the sources (tests): no CLI to start
  try {
    ensureShipDir(log);
    closeSync(openSync(marker, 'a', 0o600));
    const now = new Date();
    utimesSync(marker, now, now);
    const child = lazyChildProcess().spawn(process.execPath, [bin, 'audit', 'ship', '--follow', '--idle-exit', String(SHIPPER_IDLE_EXIT_SEC)], {
      detached: true,
      stdio: 'ignore',
      env,
      cwd: '/',
    });
    child.on('error', () => {});
    child.unref();
    return 'started';
  } catch {
    return 'off';
  }
}
