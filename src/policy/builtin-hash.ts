// The built-in pack's hash, which names it in every policy's sources and audit records. It hashes a few
// kilobytes that cannot change after the build, and a hook process pays a cold sha256 for them on every
// call, so scripts/build.mjs computes it once (with this same function) and defines it in the bundle.

import type { Rule } from './rule.ts';
import { sha256 } from './trust.ts';

declare const __ASIMOV_BUILTIN_HASH__: string | undefined;

/** sha256 over each rule's kind, id, tier and lock: what a policy's `builtin:recommended` source stands for. */
export function builtinPackHash(rules: readonly Rule[]): string {
  return sha256(rules.map((r) => `${r.kind}\t${r.id}\t${r.tier}\t${r.locked === true}`).join('\n'));
}

/** The recommended pack's hash as the build computed it; undefined when running from source (tests under tsx). */
export function prebuiltRecommendedHash(): string | undefined {
  return typeof __ASIMOV_BUILTIN_HASH__ === 'string' ? __ASIMOV_BUILTIN_HASH__ : undefined;
}
