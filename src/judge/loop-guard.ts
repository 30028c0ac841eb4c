// The loop guard: an agent that keeps proposing calls the judge denies is stuck (or probing for a wording
// that gets through). After 3 consecutive or 20 total judge denials in one session, the judge is no
// longer asked in that session and each such call goes to the person instead.
//
// Hooks are one process per call, so the count lives on disk: one file per session under the state
// directory, to which each judge outcome appends one byte and a newline (`D` deny, `A` allow). Appends of
// a few bytes with O_APPEND are atomic between processes, so parallel hooks need no lock. Calls without a
// session id share nothing: there is nothing to count them under.

import { readRegularFile } from '../core/read-regular.ts';
import { appendFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../core/lazy.ts';
import { removeStaleFiles } from '../core/stale-files.ts';

export const LOOP_LIMITS = { consecutive: 3, total: 20 } as const;
/** Session files untouched for this long are removed when a new session starts. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;

export interface LoopState {
  tripped: boolean;
  consecutive: number;
  total: number;
}

export interface LoopGuard {
  check(sessionId: string | undefined): LoopState;
  /** Records the judge's verdict for the session (unsure counts neither way). */
  record(sessionId: string | undefined, verdict: 'allow' | 'deny' | 'unsure'): void;
}

/** Counts from a session file's content: total denials, and denials since the last allow. */
export function countDenials(log: string): { consecutive: number; total: number } {
  let total = 0;
  let consecutive = 0;
  for (const ch of log) {
    if (ch === 'D') {
      total++;
      consecutive++;
    } else if (ch === 'A') consecutive = 0;
  }
  return { consecutive, total };
}

export function createLoopGuard(o: { stateDir: string; now?: () => number }): LoopGuard {
  const dir = join(o.stateDir, 'judge-sessions');
  // Hashed: a session id is the client's string, not a safe file name.
  const fileOf = (sessionId: string) => join(dir, `${sha256Hex(sessionId).slice(0, 40)}.log`);
  const none: LoopState = { tripped: false, consecutive: 0, total: 0 };

  return {
    check(sessionId) {
      if (!sessionId) return none;
      let log: string;
      try {
        log = readRegularFile(fileOf(sessionId), 4 * 1024 * 1024)?.toString('latin1') ?? '';
      } catch {
        return none; // no denials yet (or unreadable: the judge is still asked, which is not failing open)
      }
      const c = countDenials(log);
      return { ...c, tripped: c.consecutive >= LOOP_LIMITS.consecutive || c.total >= LOOP_LIMITS.total };
    },
    record(sessionId, verdict) {
      if (!sessionId || verdict === 'unsure') return;
      const file = fileOf(sessionId);
      try {
        let fresh = false;
        try {
          statSync(file);
        } catch {
          fresh = true;
        }
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        if (fresh) removeStaleFiles(dir, '.log', STALE_MS, (o.now ?? Date.now)());
        appendFileSync(file, verdict === 'deny' ? 'D\n' : 'A\n', { mode: 0o600 });
      } catch {
        /* best effort: without the record the judge is asked again, which never opens the gate by itself */
      }
    },
  };
}

