// Gates kept across the daemon's requests, one per distinct environment and options, the least recently used
// dropped. A gate caches each project's policy; here every call first re-signs the files that policy was
// made from (freshness.ts), and a gate whose inputs changed is replaced by a new one before it decides, so
// the decision is the one a fresh `asimov` process would reach.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { sha256Hex } from '../../core/lazy.ts';
import type { DecideOptions, Gate, GateOptions } from '../../gate/gate.ts';
import { createGate } from '../../gate/gate.ts';
import { findProjectRoot } from '../../policy/load.ts';
import type { ToolCall } from '../../core/types.ts';
import { policyInputPaths, signatureOf, type Signature } from './freshness.ts';

export const MAX_GATES = 8;

export interface GateCache {
  gateFor(options: GateOptions): Gate;
  readonly size: number;
}

export function createGateCache(o: { max?: number; make?: (options: GateOptions) => Gate } = {}): GateCache {
  const max = o.max ?? MAX_GATES;
  const make = o.make ?? createGate;
  const gates = new Map<string, Gate>();
  return {
    gateFor(options) {
      const key = cacheKey(options);
      if (key === null) return make(options);
      let gate = gates.get(key);
      if (gate !== undefined) gates.delete(key);
      else gate = freshGate(options, make);
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

/**
 * A gate that checks, before each call, that the policy it would use is still what the files say, and
 * starts over with a new gate when it is not. The call reaches the gate with the project root it was
 * checked for, so the gate cannot load a root that was not checked (a marker made between the two probes).
 */
export function freshGate(options: GateOptions, make: (options: GateOptions) => Gate = createGate): Gate {
  const env = options.env ?? process.env;
  const home = options.home ?? (env.HOME || homedir());
  let gate = make(options);
  let seen = new Map<string, Signature>();
  /** The gate may hold a policy for a root whose inputs were never signed: start over on the next call. */
  let unchecked = false;

  const renew = (): void => {
    gate = make(options);
    seen = new Map();
    unchecked = false;
  };

  /** The project root for this directory, with the gate renewed if that root's policy inputs changed. */
  const checkedRoot = (cwd: string, projectRoot: string | undefined): string => {
    const root = projectRoot !== undefined ? resolve(projectRoot) : findProjectRoot(cwd);
    const sig = signatureOf(
      policyInputPaths({
        projectRoot: root, home, env,
        userPolicyPath: options.userPolicyPath, managedPolicyPath: options.managedPolicyPath, trustStorePath: options.trustStorePath,
      }),
    );
    const before = seen.get(root);
    if (unchecked || (before !== undefined && (before.racy || before.text !== sig.text))) renew();
    seen.set(root, sig);
    return root;
  };

  /** The call as the current gate should see it; on any failure to check, a new gate (which loads afresh). */
  const prepare = (call: ToolCall): ToolCall => {
    try {
      return { ...call, projectRoot: checkedRoot(resolve(call.cwd), call.projectRoot) };
    } catch {
      renew();
      unchecked = true;
      return call;
    }
  };

  return {
    decide: (call: ToolCall, opts?: DecideOptions) => {
      const c = prepare(call);
      return gate.decide(c, opts);
    },
    decideStatic: (call: ToolCall, opts?: DecideOptions) => {
      const c = prepare(call);
      return gate.decideStatic(c, opts);
    },
    inspect: (call: ToolCall) => {
      const c = prepare(call);
      return gate.inspect(c);
    },
    policyFor: (cwd: string) => {
      let root: string | undefined;
      try {
        root = checkedRoot(resolve(cwd), undefined);
      } catch {
        renew();
      }
      // The gate finds the root again itself; if it found another, that root's inputs were not signed.
      const policy = gate.policyFor(cwd);
      if (policy.projectRoot !== root) unchecked = true;
      return policy;
    },
  };
}
