// Where the audit log lives: $ASIMOV_AUDIT_LOG, else the XDG state directory, else ~/.local/state; `off` disables it.

import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { asimovStateDir } from '../core/asimov-dirs.ts';
import { AsimovError } from '../core/errors.ts';

/** The value of ASIMOV_AUDIT_LOG that turns auditing off (compared case-insensitively). */
export const AUDIT_OFF = 'off';

/**
 * The audit log's path, or null when ASIMOV_AUDIT_LOG=off.
 *
 * ASIMOV_AUDIT_LOG must be absolute (or start with `~/`): hooks run in whatever directory the agent is
 * in, so a relative path would scatter the log over every project and let a repository choose where
 * it goes. XDG_STATE_HOME is ignored when relative, as the XDG spec says.
 */
export function resolveAuditPath(env: NodeJS.ProcessEnv = process.env, home: string = env.HOME || homedir()): string | null {
  const explicit = env.ASIMOV_AUDIT_LOG?.trim();
  if (explicit) {
    if (explicit.toLowerCase() === AUDIT_OFF) return null;
    if (explicit === '~' || explicit.startsWith('~/')) return join(home, explicit.slice(1));
    if (!isAbsolute(explicit)) {
      throw new AsimovError(
        'audit_io_error',
        `ASIMOV_AUDIT_LOG must be an absolute path or "off", not the relative path "${explicit}"`,
        { key: 'ASIMOV_AUDIT_LOG' },
      );
    }
    return explicit;
  }
  return join(asimovStateDir(env, home), 'audit.jsonl');
}

/** The directory of the journals of the log at `logPath` (src/audit/journal.ts): beside it, and as private as it. */
export function journalDirOf(logPath: string): string {
  return `${logPath}.journal`;
}
