// The judge's verdicts kept on disk, so the same call is not judged twice. A hook is one process per tool
// call, so the cache lives in files: one per key, written whole to a temporary name and renamed, so a
// reader in another process sees an old entry, a new one or none, never half of one. allow and deny are
// kept for a TTL; unsure and failures never (they are worth asking again). A file that is not a valid
// entry for its own key is ignored, as if absent.

import { asimovCacheDir } from '../core/asimov-dirs.ts';
import { readRegularFile } from '../core/read-regular.ts';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../core/lazy.ts';
import type { Classification, ToolCall } from '../core/types.ts';
import { canonicalJson } from '../audit/event.ts';
import { normalizedCall, PROMPT_VERSION } from './prompt.ts';

export const DEFAULT_CACHE_TTL_MS = 60 * 60 * 1000;
const ENTRY_VERSION = 1;
const KEY_RE = /^[0-9a-f]{64}$/;

export interface CachedVerdict {
  verdict: 'allow' | 'deny';
  reason: string;
}

export interface JudgeCache {
  get(key: string): CachedVerdict | undefined;
  /** Best effort: a cache that cannot be written only costs a repeated judgement. */
  set(key: string, v: CachedVerdict): void;
}

/** `$XDG_CACHE_HOME/asimov/judge` when that is absolute (as the XDG spec requires), else `~/.cache/asimov/judge`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv, home?: string): string {
  return join(asimovCacheDir(env, home), 'judge');
}

export interface CacheKeyParts {
  groundRules: string;
  call: ToolCall;
  classification: Classification;
  /** Part of the key: a verdict given because the user asked must not be reused where nobody did. */
  intent?: string;
  provider: string;
  model: string;
}

/** sha256 over everything the verdict depends on: the rules, the call, what the judge was shown, and who judged. */
export function judgeCacheKey(p: CacheKeyParts): string {
  return sha256Hex(
    canonicalJson({
      v: PROMPT_VERSION,
      rules: p.groundRules,
      call: normalizedCall(p.call),
      finding: { tier: p.classification.tier, rule: p.classification.rule },
      intent: p.intent ?? null,
      provider: p.provider,
      model: p.model,
    }),
  );
}

export function createJudgeCache(o: { dir: string; ttlMs?: number; now?: () => number }): JudgeCache {
  const ttl = o.ttlMs ?? DEFAULT_CACHE_TTL_MS;
  const now = o.now ?? Date.now;
  const fileOf = (key: string) => join(o.dir, `${key}.json`);

  return {
    get(key) {
      if (!KEY_RE.test(key)) return undefined;
      let data: unknown;
      try {
        const bytes = readRegularFile(fileOf(key), 1024 * 1024); // never waits on a FIFO planted in the cache
        if (bytes === undefined) return undefined;
        data = JSON.parse(bytes.toString('utf8'));
      } catch {
        return undefined; // absent, unreadable or corrupted: a miss
      }
      const e = data as { v?: unknown; key?: unknown; verdict?: unknown; reason?: unknown; at?: unknown };
      if (data === null || typeof data !== 'object' || e.v !== ENTRY_VERSION || e.key !== key) return undefined;
      if (e.verdict !== 'allow' && e.verdict !== 'deny') return undefined;
      if (typeof e.reason !== 'string' || e.reason === '' || typeof e.at !== 'number' || !Number.isFinite(e.at)) return undefined;
      const age = now() - e.at;
      // An entry from the future (a clock set back, or a forged file) is not trusted either.
      if (age < -60_000 || age >= ttl) return undefined;
      return { verdict: e.verdict, reason: e.reason };
    },
    set(key, v) {
      if (!KEY_RE.test(key)) return;
      const file = fileOf(key);
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      try {
        mkdirSync(o.dir, { recursive: true, mode: 0o700 });
        writeFileSync(tmp, JSON.stringify({ v: ENTRY_VERSION, key, verdict: v.verdict, reason: v.reason, at: now() }), { mode: 0o600 });
        renameSync(tmp, file);
      } catch {
        try {
          rmSync(tmp, { force: true });
        } catch {
          /* nothing more to do */
        }
      }
    },
  };
}
