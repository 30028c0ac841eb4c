// What a cached policy depends on, and a cheap signature of it. The gate loads a project's policy once and
// keeps it; in a process that lives for hours that is only right while none of the files it was made from
// changed. The inputs are exactly what loadPolicy reads: the user, project and managed policy files, the
// trust store and the team policy's cached copy, so a copy another process fetched applies here too (the
// project-root markers are probed again by every call, so a new `.asimov/` or `.git` is seen without help
// here; ground rules are read by the judge on every review). Each is signed by stat alone.

import { statSync } from 'node:fs';
import { policyPaths } from '../policy/load.ts';
import { defaultTrustStorePath } from '../policy/trust.ts';
import { teamCachePaths } from '../policy/team-cache.ts';
import { asimovStateDir } from '../core/asimov-dirs.ts';

export interface PolicyInputOptions {
  projectRoot: string;
  home: string;
  env: NodeJS.ProcessEnv;
  userPolicyPath?: string | undefined;
  managedPolicyPath?: string | undefined;
  trustStorePath?: string | undefined;
}

/** Every file whose content (or existence) loadPolicy turns into the policy for this project root. */
export function policyInputPaths(o: PolicyInputOptions): string[] {
  const p = policyPaths({
    projectRoot: o.projectRoot,
    home: o.home,
    env: o.env,
    ...(o.userPolicyPath !== undefined ? { userPath: o.userPolicyPath } : {}),
    ...(o.managedPolicyPath !== undefined ? { managedPath: o.managedPolicyPath } : {}),
  });
  const team = teamCachePaths(asimovStateDir(o.env, o.home));
  return [p.user, p.project, p.managed, o.trustStorePath ?? defaultTrustStorePath(o.home, o.env), team.meta, team.policy, team.groundRules];
}

export interface Signature {
  text: string;
  /**
   * A file changed so recently that a further write could leave its stat unchanged (file times advance in
   * clock ticks, and an edit of the same size within one tick keeps mtime, ctime and size): such a signature
   * proves nothing, and the policy made with it is reloaded on the next call (git's "racy clean" rule).
   */
  racy: boolean;
}

/** Files changed within this long before signing are racy. Far above any file system's timestamp tick. */
export const RACY_MS = 1000;

/** dev, inode, size, mode, mtime and ctime in nanoseconds of each path, or its absence or error. */
export function signatureOf(paths: readonly string[], now: number = Date.now()): Signature {
  const parts: string[] = [];
  let racy = false;
  const limit = BigInt(now - RACY_MS) * 1_000_000n;
  for (const p of paths) {
    try {
      const st = statSync(p, { bigint: true, throwIfNoEntry: false });
      if (st === undefined) {
        parts.push('absent');
        continue;
      }
      parts.push(`${st.dev}:${st.ino}:${st.size}:${st.mode}:${st.mtimeNs}:${st.ctimeNs}`);
      if (st.mtimeNs >= limit || st.ctimeNs >= limit) racy = true;
    } catch (e) {
      // ENOTDIR, EACCES…: loadPolicy reads these as absent or as an error; either way a change must show.
      parts.push(`error:${(e as NodeJS.ErrnoException).code ?? 'unknown'}`);
    }
  }
  return { text: parts.join('|'), racy };
}
