// A gate for a process that lives for hours (the daemon, the MCP proxy, the gated tools server): before each
// call it re-signs, by stat alone, the files the call's policy was made from (policy-freshness.ts), and starts
// over with a new gate when they changed. So `asimov mcp allow`, `asimov trust` or an edited policy apply from
// the next call, and the decision is the one a fresh `asimov` process would reach.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { ToolCall } from '../core/types.ts';
import { findProjectRoot } from '../policy/load.ts';
import { createGate, type DecideOptions, type Gate, type GateOptions } from './gate.ts';
import { policyInputPaths, signatureOf, type Signature } from './policy-freshness.ts';
import type { ProjectRoots } from './project-roots.ts';

/**
 * A gate that checks, before each call, that the policy it would use is still what the files say, and
 * starts over with a new gate when it is not. The call reaches the gate with the project root it was
 * checked for, so the gate cannot load a root that was not checked (a marker made between the two probes).
 * `roots`: the process's remembered project roots (project-roots.ts), shared by its gates; default a fresh walk.
 */
export function freshGate(options: GateOptions, make: (options: GateOptions) => Gate = createGate, roots?: ProjectRoots): Gate {
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
    const root = projectRoot !== undefined ? resolve(projectRoot) : roots !== undefined ? roots.rootOf(cwd) : findProjectRoot(cwd);
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
