// The facts `asimov policy` shows, gathered once for its table and its --json: each layer and what it
// changes, whether the judge is on (and what decided it), the chains, and whether asimov's own MCP tools
// take the hook's approvals.

import { resolveJudgeSettings } from '../judge/create.ts';
import { judgeSwitchState } from '../judge/switch.ts';
import type { EffectivePolicy, PolicySource } from '../policy/layers.ts';

export interface LayerFacts extends PolicySource {
  /** What the layer changes, in short phrases (`2 tiers set`, `1 custom rule`, `1 chain`); empty: nothing rule-level. */
  changes: string[];
}

export interface JudgeFacts {
  on: boolean;
  /** What decided on or off: GATE_CHECK or the policy's judge: section. */
  why: string;
  /** With the judge on: who is asked. */
  provider: string | null;
  model: string | null;
  baseUrl: string | null;
  onUncertain: string | null;
}

export interface ApprovalFacts {
  on: boolean;
  why: string;
}

export interface PolicyFacts {
  layers: LayerFacts[];
  judge: JudgeFacts;
  hookApprovals: ApprovalFacts;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function layerChanges(p: EffectivePolicy, s: PolicySource): string[] {
  if (s.layer === 'builtin') return [plural(new Set([...p.origins].filter(([, o]) => o === 'builtin').map(([id]) => id)).size, 'built-in rule')];
  const tiers = [...p.overridden.values()].filter((t) => t.source === s.path).length;
  const custom = new Set([...p.origins].filter(([, o]) => o === s.path).map(([id]) => id)).size;
  const overrides = new Set(p.allowOverrides.filter((o) => o.source === s.path).map((o) => o.id)).size;
  const chains = (p.chains ?? []).filter((c) => c.source === s.path).length;
  const out: string[] = [];
  if (tiers > 0) out.push(`${plural(tiers, 'tier')} set`);
  if (custom > 0) out.push(plural(custom, 'custom rule'));
  if (overrides > 0) out.push(`${plural(overrides, 'allow rule')} with overrides`);
  if (chains > 0) out.push(plural(chains, 'chain'));
  if (!s.trusted) out.push('its loosening is ignored until `asimov trust`');
  return out;
}

/** Whether the judge is on for this policy and environment, what decided it, and who it asks. */
export function judgeFacts(p: Pick<EffectivePolicy, 'judge'>, env: NodeJS.ProcessEnv): JudgeFacts {
  const state = judgeSwitchState(p.judge !== undefined, env);
  const settings = state.on ? resolveJudgeSettings(p.judge, env) : null;
  return {
    ...state,
    provider: settings?.provider ?? null,
    model: settings?.model ?? null,
    baseUrl: settings?.baseUrl ?? null,
    onUncertain: settings?.onUncertain ?? null,
  };
}

function approvalFacts(p: EffectivePolicy): ApprovalFacts {
  const set = p.gatedTools?.hookApprovals;
  if (set === false) return { on: false, why: 'tools.hookApprovals: false in the policy' };
  return { on: true, why: set === true ? 'tools.hookApprovals: true in the policy' : 'the default (tools.hookApprovals turns it off)' };
}

export function policyFacts(p: EffectivePolicy, env: NodeJS.ProcessEnv): PolicyFacts {
  return {
    layers: p.sources.map((s) => ({ ...s, changes: layerChanges(p, s) })),
    judge: judgeFacts(p, env),
    hookApprovals: approvalFacts(p),
  };
}
