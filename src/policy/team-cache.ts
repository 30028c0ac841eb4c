// The team policy as this machine last fetched it from its team server (`audit.remote`), kept in the state
// directory: `team/policy.yaml`, `team/ground-rules.md` and `team/meta.json` (which server, which version,
// when fetched and when last checked). Only files here: fetching is audit/team-policy-fetch.ts's job, and
// loadPolicy reads the copy as a managed layer. Every file is written whole to a temporary name and renamed,
// owner-only, so a hook reading at any moment sees the old copy or the new one, never half of one.

import { writeFileAtomicSync } from '../core/atomic-write.ts';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFile } from '../core/read-regular.ts';

/** The cache's directory under asimov's state directory. */
export const TEAM_CACHE_DIR = 'team';
/** A team's ground rules are a page, like a project's (the judge is sent them whole). */
export const MAX_TEAM_GROUND_RULES_BYTES = 32 * 1024;
const MAX_META_BYTES = 16 * 1024;

export interface TeamCachePaths {
  dir: string;
  policy: string;
  groundRules: string;
  meta: string;
}

export function teamCachePaths(stateDir: string): TeamCachePaths {
  const dir = join(stateDir, TEAM_CACHE_DIR);
  return { dir, policy: join(dir, 'policy.yaml'), groundRules: join(dir, 'ground-rules.md'), meta: join(dir, 'meta.json') };
}

/**
 * What meta.json says. A copy exists when `version` and `etag` do; `checkedAt` alone is a server that was
 * asked and never answered with a policy (it is written even then, so a dead server is not asked on every call).
 */
export interface TeamCacheMeta {
  /** The server the copy came from (audit.remote, no trailing /): a copy of another server is never applied. */
  server: string;
  etag?: string;
  version?: number;
  publishedAt?: string;
  /** When the copy was last written from a 200 answer. */
  fetchedAt?: string;
  /** When the server was last asked (answered or not): the refresh interval counts from here. */
  checkedAt: string;
  /** Why the last check failed, and since when checks fail (cleared by the next answer, 200, 304 or 404). */
  error?: string;
  failingSince?: string;
  /** The server answered that the team has no policy (404): only the local layers apply. */
  none?: boolean;
}

/** meta.json, or null when absent or not one (a garbled file is as good as none: the next check rewrites it). */
export function readTeamMeta(stateDir: string): TeamCacheMeta | null {
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularFile(teamCachePaths(stateDir).meta, MAX_META_BYTES);
  } catch {
    return null;
  }
  if (bytes === undefined) return null;
  let m: unknown;
  try {
    m = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (m === null || typeof m !== 'object') return null;
  const o = m as Record<string, unknown>;
  if (typeof o.server !== 'string' || typeof o.checkedAt !== 'string') return null;
  const out: TeamCacheMeta = { server: o.server, checkedAt: o.checkedAt };
  for (const k of ['etag', 'publishedAt', 'fetchedAt', 'error', 'failingSince'] as const) if (typeof o[k] === 'string') out[k] = o[k] as string;
  if (typeof o.version === 'number' && Number.isInteger(o.version)) out.version = o.version;
  if (o.none === true) out.none = true;
  return out;
}

/** Whether the meta describes a copy on disk (a 200 was received and written). */
export function hasCopy(meta: TeamCacheMeta | null): meta is TeamCacheMeta & { etag: string; version: number } {
  return meta !== null && meta.etag !== undefined && meta.version !== undefined && meta.none !== true;
}

function ensureDir(stateDir: string): TeamCachePaths {
  const p = teamCachePaths(stateDir);
  mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  return p;
}

/** Writes meta.json alone (a check that changed nothing, or failed). */
export function writeTeamMeta(stateDir: string, meta: TeamCacheMeta): void {
  writeFileAtomicSync(ensureDir(stateDir).meta, `${JSON.stringify(meta, null, 2)}\n`);
}

/**
 * Writes a new copy: the policy and ground rules first, meta.json last (meta names the version shown; the
 * policy file is what applies, so it goes first). No ground rules removes the old file.
 */
export function writeTeamCache(stateDir: string, copy: { policy: string; groundRules: string | null; meta: TeamCacheMeta }): void {
  const p = ensureDir(stateDir);
  writeFileAtomicSync(p.policy, copy.policy);
  if (copy.groundRules !== null && copy.groundRules.trim() !== '') writeFileAtomicSync(p.groundRules, copy.groundRules);
  else rmSync(p.groundRules, { force: true });
  writeTeamMeta(stateDir, copy.meta);
}

/** Removes the copy itself (the team has no policy any more), keeping meta.json. */
export function removeTeamCopy(stateDir: string): void {
  const p = teamCachePaths(stateDir);
  rmSync(p.policy, { force: true });
  rmSync(p.groundRules, { force: true });
}

/**
 * What the team policy means for this machine, as loadPolicy found it: EffectivePolicy.team. Present
 * whenever the user or managed policy names a team server with `audit.policy` not false.
 */
export interface TeamPolicyState {
  server: string;
  /** Whether a copy of this server's policy is a layer of this policy. */
  applied: boolean;
  /** The cache file applied (a managed layer in `sources`). */
  file?: string;
  version?: number;
  fetchedAt?: string;
  checkedAt?: string;
  /** The last check failed: why, and since when. */
  error?: string;
  failingSince?: string;
  /** The server said the team has no policy. */
  none?: boolean;
  /** The cache holds another server's copy, which does not apply. */
  otherServer?: string;
  /** The team's ground rules, appended to the judge's (see judge/review.ts). */
  groundRules?: string;
}

/** "5 s", "3 min", "2 h", "4 days": how long ago an ISO time was, for people. */
export function ageOf(iso: string | undefined, now: number): string {
  const t = iso === undefined ? NaN : Date.parse(iso);
  if (!Number.isFinite(t)) return 'an unknown time';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

/** One line for `asimov policy` and `asimov doctor`. */
export function describeTeamPolicy(t: TeamPolicyState, now: number = Date.now()): string {
  if (t.applied) {
    const head = `team policy from ${t.server} version ${t.version ?? '?'}, fetched ${ageOf(t.fetchedAt, now)} ago`;
    if (t.error !== undefined) return `${head}; server unreachable since ${t.failingSince ?? t.checkedAt ?? '?'} (${t.error}), the cached copy (version ${t.version ?? '?'}) applies`;
    return `${head}, checked ${ageOf(t.checkedAt, now)} ago`;
  }
  if (t.none) return `the team server ${t.server} has no team policy published: only local layers apply`;
  const other = t.otherServer !== undefined ? ` (the cached copy is ${t.otherServer}'s, which does not apply)` : '';
  const failing = t.error !== undefined ? `; the server is unreachable since ${t.failingSince ?? t.checkedAt ?? '?'} (${t.error})` : '';
  return `no team policy cached yet from ${t.server}${other}: only local layers apply${failing}`;
}
