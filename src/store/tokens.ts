// Bearer tokens of `asimov serve`. A token is shown once, when created; the database keeps only its sha256
// (a token is 256 random bits, so a plain hash cannot be searched back, and lookup by hash stays one indexed
// query). Each token has a name, for the audit and the dashboard, and scopes that bound what it may do.

import { randomBytes } from 'node:crypto';
import { sha256Hex, randomId } from '../core/lazy.ts';
import { AsimovError } from '../core/errors.ts';
import type { Queryable } from './database.ts';

/**
 * What a token may do: decide calls (and ask a person about them), run them, answer approvals, read the
 * decisions (dashboard, feed), manage tokens, and `report`: a team's machine ships its audit records and
 * fetches the team policy (the one scope a laptop's token needs).
 */
export const SCOPES = ['decide', 'execute', 'approve', 'read', 'admin', 'report'] as const;
export type Scope = (typeof SCOPES)[number];

export const TOKEN_PREFIX = 'asv_';

export interface TokenInfo {
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface TokenRow {
  id: string;
  name: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export function parseScopes(text: string): Scope[] {
  const out: Scope[] = [];
  for (const raw of text.split(',')) {
    const s = raw.trim();
    if (s === '') continue;
    if (!(SCOPES as readonly string[]).includes(s)) throw new AsimovError('usage', `unknown scope '${s}' (known: ${SCOPES.join(', ')})`);
    if (!out.includes(s as Scope)) out.push(s as Scope);
  }
  if (out.length === 0) throw new AsimovError('usage', `give at least one scope (${SCOPES.join(', ')})`);
  return out;
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** Whether a string has a token's shape; anything else is refused before any lookup. */
export function looksLikeToken(s: string): boolean {
  return s.startsWith(TOKEN_PREFIX) && /^[A-Za-z0-9_-]{43}$/.test(s.slice(TOKEN_PREFIX.length));
}

function info(r: TokenRow): TokenInfo {
  return {
    id: r.id,
    name: r.name,
    scopes: r.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
    revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
  };
}

export interface TokenStore {
  /** A new token: its secret (shown once) and what is stored about it. */
  create(name: string, scopes: Scope[]): Promise<{ token: string; info: TokenInfo }>;
  list(opts?: { all?: boolean }): Promise<TokenInfo[]>;
  /** Revokes the live token of that name (or id); false when there is none. */
  revoke(nameOrId: string): Promise<boolean>;
  /** The live token a bearer secret belongs to, or null. */
  verify(secret: string): Promise<TokenInfo | null>;
  /** Records that a token was used (at most once a minute per token, to keep writes off the hot path). */
  touch(id: string): void;
}

/**
 * How long a verified token is trusted without asking the database again. A revocation through this store
 * applies at once (it clears the cache); one made by another process on a shared database (teams) applies
 * within this time.
 */
export const VERIFY_CACHE_MS = 5_000;

export function createTokenStore(db: Queryable, now: () => number = Date.now): TokenStore {
  const touched = new Map<string, number>();
  // By hash: a lookup per request was most of a decision's cost in the embedded database under load.
  const verified = new Map<string, { info: TokenInfo; at: number }>();
  return {
    async create(name, scopes) {
      if (!NAME_RE.test(name)) throw new AsimovError('usage', `token name '${name}' must be 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit`);
      const live = await db.query('SELECT 1 FROM tokens WHERE name = $1 AND revoked_at IS NULL', [name]);
      if (live.length > 0) throw new AsimovError('usage', `a live token named '${name}' exists; revoke it first or choose another name`);
      const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
      const rows = await db.query<TokenRow>(
        'INSERT INTO tokens (id, name, hash, scopes) VALUES ($1, $2, $3, $4) RETURNING *',
        [randomId(), name, hashToken(token), scopes],
      );
      return { token, info: info(rows[0]!) };
    },
    async list(opts = {}) {
      const rows = await db.query<TokenRow>(
        `SELECT * FROM tokens ${opts.all ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at, name`,
      );
      return rows.map(info);
    },
    async revoke(nameOrId) {
      const rows = await db.query('UPDATE tokens SET revoked_at = now() WHERE (name = $1 OR id = $1) AND revoked_at IS NULL RETURNING id', [nameOrId]);
      verified.clear();
      return rows.length > 0;
    },
    async verify(secret) {
      if (!looksLikeToken(secret)) return null;
      const hash = hashToken(secret);
      const hit = verified.get(hash);
      if (hit && now() - hit.at < VERIFY_CACHE_MS) return hit.info;
      const rows = await db.query<TokenRow>('SELECT * FROM tokens WHERE hash = $1 AND revoked_at IS NULL', [hash]);
      if (!rows[0]) {
        verified.delete(hash);
        return null;
      }
      const found = info(rows[0]);
      if (verified.size > 1000) verified.clear();
      verified.set(hash, { info: found, at: now() });
      return found;
    },
    touch(id) {
      const now = Date.now();
      if ((touched.get(id) ?? 0) > now - 60_000) return;
      touched.set(id, now);
      void db.query('UPDATE tokens SET last_used_at = now() WHERE id = $1', [id]).catch(() => {});
    },
  };
}
