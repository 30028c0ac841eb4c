// What a long-running asimov process (the MCP proxy, the gated tools server, the daemon) says on stderr when
// it starts: which layers decide its calls. Someone who set GATE_CHECK=false to save model costs, or whose
// project policy is untrusted, reads here what is still on, instead of finding out from a call that went through.

import { resolveAuditPath } from '../audit/paths.ts';
import { describeError } from '../core/errors.ts';
import type { Gate } from '../gate/gate.ts';
import type { EffectivePolicy } from '../policy/layers.ts';
import { judgeFacts } from './policy-facts.ts';

/** The approvals of a server no person answers (the MCP proxy, the gated tools). */
export const NOBODY_ON_CALL = 'none: a call the policy would ask a person about is refused (no person is on call)';

export interface BannerFacts {
  /** The static policy's layers, lowest first, with whether an untrusted project's loosening is ignored. */
  policy: string;
  judge: string;
  approvals: string;
  audit: string;
}

/**
 * The facts for a gate deciding calls in `cwd`. `approvals` says what happens to a call that would ask a
 * person: each server knows its own answer (the proxy and the gated tools refuse it; a hook asks the client).
 */
export function bannerFacts(gate: Gate, cwd: string, env: NodeJS.ProcessEnv, o: { approvals: string }): BannerFacts {
  let policy: string;
  let judgeConfig: Pick<EffectivePolicy, 'judge'> = {};
  try {
    const p = gate.policyFor(cwd);
    judgeConfig = p;
    policy = p.sources
      .map((s) => (s.layer === 'builtin' ? 'built-in' : `${s.layer} ${s.path}${s.layer === 'project' && !s.trusted ? ' (untrusted: its loosening is ignored)' : ''}`))
      .join(' + ');
  } catch (e) {
    // A broken policy: every call is refused until it is fixed, and the banner says why.
    policy = `BROKEN, every call is refused: ${describeError(e)}`;
  }
  const j = judgeFacts(judgeConfig, env);
  const judge = j.on
    ? `on (${j.provider} ${j.model}; ${j.why})`
    : `off (${j.why}; soft_deny and unknown calls go to the approvals below)`;
  let audit: string;
  try {
    audit = resolveAuditPath(env) ?? 'off (ASIMOV_AUDIT_LOG=off)';
  } catch (e) {
    audit = `unusable, every call is refused: ${describeError(e)}`;
  }
  return { policy, judge, approvals: o.approvals, audit };
}

/** The banner's lines, for `log` functions that prefix each one with the process's name. */
export function bannerLines(f: BannerFacts): string[] {
  return [`policy: ${f.policy}`, `judge: ${f.judge}`, `approvals: ${f.approvals}`, `audit: ${f.audit}`];
}
