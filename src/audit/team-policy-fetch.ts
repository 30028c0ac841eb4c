// Fetches the team policy from the team server (`audit.remote`) into the state directory's cache
// (policy/team-cache.ts): a conditional GET with the ETag held, so an unchanged policy costs a 304. Whatever
// goes wrong (no token, the server down or slow, an error answer, a policy this asimov cannot load), the copy
// already held stays as it is and the reason is returned and noted in meta.json. The gate calls this before a
// decision when the last check is older than its interval (gate/gate.ts); the audit shipper may call it too.

import { describeError, formatLocated, AsimovError } from '../core/errors.ts';
import type { AuditSettings } from '../policy/layers.ts';
import { hasCopy, readTeamMeta, writeTeamCache, writeTeamMeta, type TeamCacheMeta } from '../policy/team-cache.ts';
import { checkTeamGroundRules, checkTeamPolicy } from '../policy/team-policy-check.ts';
import { resolveTeamToken } from './team-token.ts';

/** How long a check may take by default: a hook must still answer in time when the server is slow or gone. */
export const TEAM_FETCH_TIMEOUT_MS = 1_500;
/** The largest answer read: a policy (1 MiB) and its ground rules, as JSON. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface RefreshOptions {
  env?: NodeJS.ProcessEnv;
  /** asimov's state directory (core/asimov-dirs.ts asimovStateDir). */
  stateDir: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  now?: () => number;
  fetch?: typeof fetch;
}

export type RefreshResult =
  /** A new copy was written. */
  | { status: 'updated'; version: number; etag: string }
  /** The server answered 304: the copy held is the newest. */
  | { status: 'unchanged'; version: number | undefined }
  /** The server has no team policy, and this machine held none. */
  | { status: 'none' }
  /** Nothing was written but meta.json's note of the failure; any copy held still applies. */
  | { status: 'failed'; reason: string }
  /** No team server named, or `audit.policy: false`. */
  | { status: 'skipped'; reason: string };

interface Answer {
  version: number;
  etag: string;
  policy: string;
  groundRules: string | null;
  publishedAt?: string;
}

function answerOf(body: unknown): Answer | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  if (typeof b.version !== 'number' || !Number.isInteger(b.version) || typeof b.etag !== 'string' || typeof b.policy !== 'string') return null;
  if (b.groundRules !== null && b.groundRules !== undefined && typeof b.groundRules !== 'string') return null;
  return { version: b.version, etag: b.etag, policy: b.policy, groundRules: (b.groundRules as string | null | undefined) ?? null, ...(typeof b.publishedAt === 'string' ? { publishedAt: b.publishedAt } : {}) };
}

/** The team policy's URL on a server given as `audit.remote` (which may carry a path prefix). */
export function teamPolicyUrl(remote: string): string {
  return `${remote.replace(/\/+$/, '')}/v1/team/policy`;
}

export async function refreshTeamPolicy(settings: AuditSettings, o: RefreshOptions): Promise<RefreshResult> {
  const server = settings.remote;
  if (server === undefined) return { status: 'skipped', reason: 'no team server is named (audit.remote)' };
  if (!settings.policy) return { status: 'skipped', reason: `audit.policy is false in ${settings.source}` };
  const now = o.now ?? Date.now;
  const env = o.env ?? process.env;
  const prior = readTeamMeta(o.stateDir);
  // Another server's meta says nothing about this one: start afresh (its copy is never applied here anyway).
  const base: TeamCacheMeta = prior !== null && prior.server === server ? { ...prior } : { server, checkedAt: new Date(now()).toISOString() };

  const fail = (reason: string): RefreshResult => {
    const at = new Date(now()).toISOString();
    try {
      writeTeamMeta(o.stateDir, { ...base, checkedAt: at, error: reason, failingSince: base.failingSince ?? at });
    } catch {
      /* the reason is returned all the same */
    }
    return { status: 'failed', reason };
  };
  const ok = (meta: TeamCacheMeta): TeamCacheMeta => {
    const { error: _e, failingSince: _f, none: _n, ...rest } = meta;
    return { ...rest, checkedAt: new Date(now()).toISOString() };
  };

  const token = resolveTeamToken(settings, env);
  if (!token.ok) return fail(token.reason);
  // Claimed before asking, so the other hooks starting this second do not all ask too.
  try {
    writeTeamMeta(o.stateDir, { ...base, checkedAt: new Date(now()).toISOString() });
  } catch (e) {
    return { status: 'failed', reason: `the team policy cache in ${o.stateDir} cannot be written: ${describeError(e)}` };
  }

  const held = hasCopy(base) ? base : null;
  const timeout = AbortSignal.timeout(o.timeoutMs ?? TEAM_FETCH_TIMEOUT_MS);
  const signal = o.signal ? AbortSignal.any([timeout, o.signal]) : timeout;
  let res: Response;
  let text: string;
  try {
    res = await (o.fetch ?? fetch)(teamPolicyUrl(server), {
      headers: { authorization: `Bearer ${token.token}`, accept: 'application/json', ...(held ? { 'if-none-match': held.etag } : {}) },
      signal,
      redirect: 'error',
    });
    text = res.status === 304 ? '' : await res.text();
  } catch (e) {
    const why = timeout.aborted ? `no answer within ${o.timeoutMs ?? TEAM_FETCH_TIMEOUT_MS} ms` : describeError((e as { cause?: unknown }).cause ?? e);
    return fail(`${server} unreachable: ${why}`);
  }
  if (text.length > MAX_ANSWER_BYTES) return fail(`${server} answered with ${text.length} bytes, more than a team policy can be`);
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const message = (body as { message?: unknown } | undefined)?.message;

  if (res.status === 304) {
    if (!held) return fail(`${server} answered 304 to a request that held no copy`);
    writeMeta(o.stateDir, ok(base));
    return { status: 'unchanged', version: held.version };
  }
  if (res.status === 404 && (body as { error?: unknown } | undefined)?.error === 'no_team_policy') {
    // A server that lost its policy (a new database?) does not take a held copy away: publishing an empty
    // policy (`version: 1`) is how a team retracts one.
    if (held) return fail(`${server} says it has no team policy; the copy held (version ${held.version}) stays`);
    writeMeta(o.stateDir, { ...ok(base), none: true });
    return { status: 'none' };
  }
  if (res.status !== 200) {
    return fail(`${server} answered ${res.status}${typeof message === 'string' ? `: ${message}` : ''}`);
  }
  const answer = answerOf(body);
  if (!answer) return fail(`${server} answered 200 with something that is not a team policy`);
  try {
    checkTeamPolicy(answer.policy, `team policy version ${answer.version} from ${server}`);
    if (answer.groundRules !== null) checkTeamGroundRules(answer.groundRules);
  } catch (e) {
    // Most likely a newer asimov's setting this one does not know: the copy held stays until this one is upgraded.
    const why = e instanceof AsimovError ? formatLocated(e.message, e.location) : describeError(e);
    return fail(`the team policy version ${answer.version} does not load on this asimov, so the copy held stays: ${why}`);
  }
  try {
    writeTeamCache(o.stateDir, {
      policy: answer.policy,
      groundRules: answer.groundRules,
      meta: { ...ok(base), etag: answer.etag, version: answer.version, fetchedAt: new Date(now()).toISOString(), ...(answer.publishedAt ? { publishedAt: answer.publishedAt } : {}) },
    });
  } catch (e) {
    return fail(`the team policy cache in ${o.stateDir} cannot be written: ${describeError(e)}`);
  }
  return { status: 'updated', version: answer.version, etag: answer.etag };
}

function writeMeta(stateDir: string, meta: TeamCacheMeta): void {
  try {
    writeTeamMeta(stateDir, meta);
  } catch {
    /* a check that could not be noted is asked again next time */
  }
}
