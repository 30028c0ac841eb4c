// The session's own files: what the agent created in this session, known from what asimov itself allowed
// (policy/created-paths.ts). A later removal of such a path inside the project is the agent cleaning up after
// itself (`rm -rf reproduce_app`), not a loss of the user's work, so the rm rules may allow it.
//
// Hooks are one process per call, so the record lives on disk: one file per session id under the state
// directory (`~/.local/state/asimov/sessions/`), each line `{"p":"/abs/path","at":ms}` appended with O_APPEND
// (atomic for lines this short, so parallel hooks need no lock). The directory must be this user's alone and
// the file a regular file of this user with no group or other bits; anything else (a symlink, another owner,
// a FIFO, a file past its size bound) reads as "nothing recorded", which only makes a removal ask. Agents
// cannot write there through asimov: the directory is asimov's own state, which the policy hard-denies.
//
// A recorded name is not enough: the agent could move the user's work into a directory it created and then
// remove that (`mv notes made/ && rm -rf made`), or hard-link it there. So every inode under the path must
// have been born after the path was recorded (birth time: a move or a link keeps it, a copy is a new file);
// one older entry, a file system that does not report birth times, or a tree too large to look through,
// and the removal asks.

import { appendFileSync, lstatSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { join, posix } from 'node:path';
import { sha256Hex } from '../core/lazy.ts';
import { removeStaleFiles } from '../core/stale-files.ts';
import { isPrivateDir } from '../core/private-dir.ts';
import { readRegularFile } from '../core/read-regular.ts';

/** A session's record is read only up to this size; past it, nothing counts as recorded (asking is the safe side). */
const MAX_RECORD_BYTES = 1024 * 1024;
/** Records untouched this long are removed when a new session starts. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;
/** Entries looked at under a created path before giving up (and asking). */
const MAX_WALK = 5000;
/**
 * The kernel stamps files with a coarse clock (a tick behind the real time), so a file made just after the
 * record may look a few milliseconds older. File systems with coarser stamps (FAT: 2 s) fail this and ask.
 */
const BIRTH_SLACK_MS = 100;

export interface SessionFiles {
  /** Adds paths the session is about to create. Best effort: never throws. */
  record(sessionId: string, paths: readonly string[]): void;
  /**
   * Whether `abs` (absolute, symlinks resolved) is, or lies under, a path this session created. False for
   * anything unexpected. A path whose real location differs from its recorded spelling does not count.
   */
  created(sessionId: string, abs: string): boolean;
}

export function createSessionFiles(o: { stateDir: string; now?: () => number }): SessionFiles {
  const dir = join(o.stateDir, 'sessions');
  // Hashed: a session id is the client's string, not a safe file name.
  const files = new Map<string, string>();
  const fileOf = (sessionId: string): string => {
    let f = files.get(sessionId);
    if (f === undefined) {
      if (files.size > 256) files.clear();
      files.set(sessionId, (f = join(dir, `${sha256Hex(sessionId).slice(0, 40)}.jsonl`)));
    }
    return f;
  };
  // A daemon decides many calls; the record is parsed again only when the file changed.
  const cache = new Map<string, { mtimeMs: number; size: number; paths: ReadonlyMap<string, number> }>();

  const load = (sessionId: string): ReadonlyMap<string, number> => {
    const file = fileOf(sessionId);
    if (!isPrivateDir(dir)) return EMPTY;
    let st;
    try {
      st = lstatSync(file);
    } catch {
      return EMPTY;
    }
    if (!st.isFile() || st.size > MAX_RECORD_BYTES || (st.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return EMPTY;
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.paths;
    let text: string;
    try {
      text = readRegularFile(file, MAX_RECORD_BYTES)?.toString('utf8') ?? '';
    } catch {
      return EMPTY;
    }
    const paths = parseRecord(text);
    if (cache.size > 64) cache.clear();
    cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, paths });
    return paths;
  };

  // The directory is made, checked and swept of stale records once per process (a daemon decides thousands of
  // calls; a hook process one): after that a record is one append. Reading checks the directory every time.
  let ready = false;
  let swept = false;
  return {
    record(sessionId, paths) {
      if (!sessionId || paths.length === 0) return;
      const file = fileOf(sessionId);
      try {
        if (!ready) {
          mkdirSync(dir, { recursive: true, mode: 0o700 });
          if (!isPrivateDir(dir)) return;
          ready = true;
          // Stale records are swept when a session starts (its record is new), at most once per process.
          if (!swept && !exists(file)) {
            swept = true;
            removeStaleFiles(dir, '.jsonl', STALE_MS, (o.now ?? Date.now)());
          }
        }
        const at = (o.now ?? Date.now)();
        appendFileSync(file, paths.map((p) => `${JSON.stringify({ p, at })}\n`).join(''), { mode: 0o600 });
      } catch {
        /* best effort: without the record a later removal asks, which never opens the gate */
      }
    },
    created(sessionId, abs) {
      if (!sessionId || !posix.isAbsolute(abs)) return false;
      const paths = load(sessionId);
      if (paths.size === 0) return false;
      let real: string;
      try {
        real = realpathSync.native(abs);
      } catch {
        return false;
      }
      // The path must be where it says it is: a link inside a created directory pointing elsewhere does not
      // make the elsewhere the agent's.
      if (real !== posix.normalize(abs)) return false;
      for (let p = real; p !== '/'; p = posix.dirname(p)) {
        const at = paths.get(p);
        if (at !== undefined) return allBornAfter(real, at - BIRTH_SLACK_MS);
      }
      return false;
    },
  };
}

const EMPTY: ReadonlyMap<string, number> = new Map();

/** The recorded paths of a session file, each with the earliest time it was recorded; other lines are skipped. */
export function parseRecord(text: string): ReadonlyMap<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const v = JSON.parse(line) as { p?: unknown; at?: unknown };
      if (typeof v.p !== 'string' || !posix.isAbsolute(v.p) || v.p === '/' || typeof v.at !== 'number' || !Number.isFinite(v.at)) continue;
      const p = posix.normalize(v.p);
      const prev = out.get(p);
      if (prev === undefined || v.at < prev) out.set(p, v.at);
    } catch {
      /* a torn or foreign line */
    }
  }
  return out;
}

/**
 * True when `path` and everything under it (links not followed) were born after `since`. False for anything
 * older, unreadable, without a birth time (0: the file system does not say), or a tree past MAX_WALK entries.
 */
export function allBornAfter(path: string, since: number): boolean {
  const stack = [path];
  let seen = 0;
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (++seen > MAX_WALK) return false;
    let st;
    try {
      st = lstatSync(p);
    } catch {
      return false;
    }
    if (!(st.birthtimeMs > 0) || st.birthtimeMs < since) return false;
    if (st.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(p);
      } catch {
        return false;
      }
      for (const n of names) stack.push(posix.join(p, n));
    }
  }
  return true;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

