// Gates kept across the daemon's requests, one per distinct environment and options, the least recently used
// dropped. A gate caches each project's policy; here every call first re-signs the files that policy was
// made from (src/gate/fresh-gate.ts), and a gate whose inputs changed is replaced by a new one before it decides, so
// the decision is the one a fresh `asimov` process would reach.

import { sha256Hex } from '../../core/lazy.ts';
import type { Gate, GateOptions } from '../../gate/gate.ts';
import { createGate } from '../../gate/gate.ts';
import { freshGate } from '../../gate/fresh-gate.ts';
import { createProjectRoots } from '../../gate/project-roots.ts';

export const MAX_GATES = 8;

export interface GateCache {
  gateFor(options: GateOptions): Gate;
  readonly size: number;
}

export function createGateCache(o: { max?: number; make?: (options: GateOptions) => Gate } = {}): GateCache {
  const max = o.max ?? MAX_GATES;
  const make = o.make ?? createGate;
  const gates = new Map<string, Gate>();
  // One memory of project roots for every gate: a directory's root does not depend on the gate's options.
  const roots = createProjectRoots();
  return {
    gateFor(options) {
      const key = cacheKey(options);
      if (key === null) return make(options);
      let gate = gates.get(key);
      if (gate !== undefined) gates.delete(key);
      else gate = freshGate(options, make, roots);
      gates.set(key, gate); // re-inserted: Map order is recency order
      if (gates.size > max) gates.delete(gates.keys().next().value!);
      return gate;
    },
    get size() {
      return gates.size;
    },
  };
}

/**
 * A key for options made of plain values (the environment, paths, flags), or null for options holding
 * objects (a policy, an audit sink, clocks), which are not shared.
 */
export function cacheKey(options: GateOptions): string | null {
  const { env, ...rest } = options;
  for (const v of Object.values(rest)) if ((typeof v === 'object' && v !== null) || typeof v === 'function') return null;
  const envEntries = Object.entries(env ?? process.env).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const plain = Object.entries(rest).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
  return sha256Hex(JSON.stringify([envEntries, plain]));
}
