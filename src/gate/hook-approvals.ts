// The double-enforcement guard. A client can run asimov twice on one action: its pre-tool hook decides
// `mcp__asimov__bash {command}` (judged as the shell command it is, see OWN_MCP_TOOLS), and then asimov's
// gated MCP tools (`asimov mcp tools`) would decide the same command again before running it. When the hook
// allowed the call, it leaves a single-use note here; the tools server that receives exactly that call (same
// tool, same arguments, same directory) within a short time takes the note and skips its own decision.
//
// This is an OPTIMISATION, NOT A SECURITY BOUNDARY. A note only ever stands for an `allow` that asimov itself
// reached a moment earlier on the identical call; without a note the tools decide as always. Anything that
// can write these files as the user could equally edit asimov's own files, and the directory lies under
// ~/.cache/asimov, which the policy keeps agents from writing. Notes are owner-only files in an owner-only
// directory, expire after APPROVAL_TTL_MS, and are consumed by an atomic rename, so one note lets one call run.

import {
  closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, unlinkSync, writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomId, sha256Hex } from '../core/lazy.ts';
import { isPrivateDir } from '../core/private-dir.ts';
import { ownToolOfClientName, type OwnToolName } from '../core/tools.ts';

// Where a hook meets a call to asimov's own tools (core/tools.ts); re-exported for the hook and its tests.
export { ownToolOfClientName };
import type { Decision } from '../core/types.ts';

/** How long a note stays valid: a client runs an allowed tool within milliseconds of its hook's answer. */
export const APPROVAL_TTL_MS = 60_000;

/** The arguments of each own tool that reach the action; the key covers these only (the server drops others). */
const ACTION_KEYS: Record<OwnToolName, readonly string[]> = {
  bash: ['command', 'timeout_ms'],
  read: ['path', 'offset', 'limit'],
  write: ['path', 'content'],
  edit: ['path', 'old_string', 'new_string', 'replace_all'],
};

export interface ApprovalContext {
  home?: string;
  env?: NodeJS.ProcessEnv;
  /** Date.now() in tests. */
  now?: () => number;
}

export interface OwnToolCall {
  tool: OwnToolName;
  input: Record<string, unknown>;
  cwd: string;
}

/** The note directory: `$XDG_CACHE_HOME/asimov/approvals`, else `~/.cache/asimov/approvals`. */
export function approvalsDir(o: ApprovalContext = {}): string {
  const env = o.env ?? process.env;
  const home = o.home ?? (env.HOME || homedir());
  const cache = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(home, '.cache');
  return join(cache, 'asimov', 'approvals');
}

/** The note's name: a hash of the tool, the arguments that act (in a fixed order) and the directory. */
export function approvalKey(call: OwnToolCall): string {
  const args = ACTION_KEYS[call.tool].map((k) => [k, call.input[k] ?? null]);
  return sha256Hex(JSON.stringify([call.tool, args, resolve(call.cwd)]));
}

/**
 * Leaves a note for an allowed own-tool call. Never throws and never changes the decision: a note that
 * cannot be written only means the tools decide again.
 */
export function recordApproval(call: OwnToolCall, decision: Decision, o: ApprovalContext = {}): boolean {
  if (decision.verdict !== 'allow') return false;
  try {
    const dir = ownerOnlyDir(approvalsDir(o), true);
    if (dir === null) return false;
    const now = (o.now ?? Date.now)();
    sweep(dir, now);
    const file = join(dir, approvalKey(call));
    const tmp = `${file}.${randomId()}.tmp`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, JSON.stringify({ at: now, decisionId: decision.decisionId }));
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    return true;
  } catch {
    return false;
  }
}

/** What a taken note says: which decision allowed the call. */
export interface TakenApproval {
  decisionId: string;
  ageMs: number;
}

/**
 * Takes the note for this exact call, if a fresh one is there: afterwards it is gone, so a second identical
 * call decides again. Null on anything unexpected (no note, too old, not the user's, not a regular file).
 */
export function takeApproval(call: OwnToolCall, o: ApprovalContext = {}): TakenApproval | null {
  try {
    const dir = ownerOnlyDir(approvalsDir(o), false);
    if (dir === null) return null;
    const file = join(dir, approvalKey(call));
    // The rename is the claim: of two servers racing for one note, exactly one gets it.
    const claimed = `${file}.${randomId()}.taken`;
    try {
      renameSync(file, claimed);
    } catch {
      return null;
    }
    try {
      const fd = openSync(claimed, constants.O_RDONLY | constants.O_NOFOLLOW);
      let text: string;
      try {
        const st = fstatSync(fd);
        if (!st.isFile() || (process.getuid && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0 || st.size > 4096) return null;
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
      const note = JSON.parse(text) as { at?: unknown; decisionId?: unknown };
      const now = (o.now ?? Date.now)();
      if (typeof note.at !== 'number' || typeof note.decisionId !== 'string') return null;
      const ageMs = now - note.at;
      if (ageMs < 0 || ageMs > APPROVAL_TTL_MS) return null;
      return { decisionId: note.decisionId, ageMs };
    } finally {
      unlinkQuiet(claimed);
    }
  } catch {
    return null;
  }
}

/**
 * The directory, when it is a real directory owned by this user with no access for others; created so when
 * `create` is set and it is missing. Null otherwise: a note in a directory others can write proves nothing.
 */
function ownerOnlyDir(dir: string, create: boolean): string | null {
  // recursive: no error when it exists; whatever is there is then judged by the same check.
  if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
  return isPrivateDir(dir) ? dir : null;
}

/** Removes notes nobody took (the client never ran the call, or ran it elsewhere) once they have expired. */
function sweep(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  if (names.length < 32) return;
  for (const name of names) {
    const p = join(dir, name);
    try {
      if (now - lstatSync(p).mtimeMs > APPROVAL_TTL_MS) unlinkSync(p);
    } catch {
      // Taken or removed by another process meanwhile.
    }
  }
}

function unlinkQuiet(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // Already gone.
  }
}
