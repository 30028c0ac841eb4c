// The team's managed policy as `asimov serve` publishes it (migration 5): each publication is a new version
// with its text exactly as given, its ground rules, an ETag (a hash of both) and who published it. Clients
// fetch the newest with If-None-Match; nothing is ever updated in place, so the history stays readable.

import { sha256Hex } from '../core/lazy.ts';
import { checkTeamGroundRules, checkTeamPolicy, TEAM_POLICY_NAME } from '../policy/team-policy-check.ts';
import type { Queryable } from './database.ts';

export interface TeamPolicyVersion {
  version: number;
  etag: string;
  policy: string;
  groundRules: string | null;
  publishedAt: string;
  publishedBy: string;
}

interface Row {
  version: number;
  policy: string;
  ground_rules: string | null;
  etag: string;
  published_at: Date;
  published_by: string;
}

function fromRow(r: Row): TeamPolicyVersion {
  return {
    version: Number(r.version),
    etag: r.etag,
    policy: r.policy,
    groundRules: r.ground_rules,
    publishedAt: new Date(r.published_at).toISOString(),
    publishedBy: r.published_by,
  };
}

/**
 * A strong ETag over the policy and the ground rules (quoted, as HTTP writes it). Same content, same tag:
 * publishing the same text again changes the version but not what clients hold, so they answer 304.
 */
export function teamPolicyEtag(policy: string, groundRules: string | null): string {
  return `"${sha256Hex(`${policy}\u0000${groundRules ?? ''}`).slice(0, 32)}"`;
}

export interface TeamPolicyStore {
  /** The newest version, or null when none was ever published. */
  latest(): Promise<TeamPolicyVersion | null>;
  /**
   * Publishes a new version after the check every client would apply (policy/team-policy-check.ts): throws
   * AsimovError with file, line and key for an invalid policy, so a broken one never reaches a client. The
   * same policy and ground rules as the newest version change nothing (`changed: false`, that version).
   */
  publish(p: { policy: string; groundRules: string | null; by: string; file?: string }): Promise<TeamPolicyVersion & { changed: boolean }>;
}

export function createTeamPolicyStore(db: Queryable): TeamPolicyStore {
  const latest = async (): Promise<TeamPolicyVersion | null> => {
    const rows = await db.query<Row>('SELECT * FROM team_policy ORDER BY version DESC LIMIT 1');
    return rows[0] ? fromRow(rows[0]) : null;
  };
  return {
    latest,
    async publish(p) {
      checkTeamPolicy(p.policy, p.file ?? TEAM_POLICY_NAME);
      const groundRules = p.groundRules === null || p.groundRules.trim() === '' ? null : p.groundRules;
      if (groundRules !== null) checkTeamGroundRules(groundRules);
      const newest = await latest();
      if (newest && newest.policy === p.policy && newest.groundRules === groundRules) return { ...newest, changed: false };
      const rows = await db.query<Row>(
        'INSERT INTO team_policy (policy, ground_rules, etag, published_by) VALUES ($1, $2, $3, $4) RETURNING *',
        [p.policy, groundRules, teamPolicyEtag(p.policy, groundRules), p.by],
      );
      return { ...fromRow(rows[0]!), changed: true };
    },
  };
}
