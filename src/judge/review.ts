// The judge's step in the gate (DESIGN §2, step 2), loaded only when a soft_deny/unknown call meets a
// judge that is switched on. It gathers what the judge may see (ground rules, the call, Layer 1's finding,
// the user's request where enabled), applies the loop guard, asks, and resolves the answer into a
// decision: allow and deny take effect; unsure, errors and timeouts become `onUncertain` (ask, or deny
// where no person can answer). It never answers allow without the judge having said allow.

import type { Classification, Decision, ToolCall, Verdict } from '../core/types.ts';
import type { AuditJudge } from '../audit/event.ts';
import type { JudgeConfig } from '../policy/schema.ts';
import { defaultCacheDir } from './cache.ts';
import { createJudge, resolveJudgeSettings, type JudgeSettings } from './create.ts';
import { GroundRulesError, loadGroundRules, withTeamGroundRules } from './ground-rules.ts';
import { readIntent } from './intent.ts';
import { createLoopGuard, LOOP_LIMITS, type LoopGuard } from './loop-guard.ts';
import { asimovStateDir } from '../core/asimov-dirs.ts';
import type { Judge, JudgeResult } from './types.ts';

export interface JudgeStepOptions {
  env: NodeJS.ProcessEnv;
  home: string;
  /** The trust store that decides whether a project's ground rules count (default: the standard one). */
  trustStorePath?: string;
}

export interface ReviewInput {
  /** The call with its cwd and project root resolved. */
  call: ToolCall & { projectRoot: string };
  classification: Classification;
  judgeConfig: JudgeConfig | undefined;
  /** The team's ground rules (EffectivePolicy.team), appended to the project's or user's own. */
  teamGroundRules?: { text: string; server: string; version?: number | undefined };
  personAvailable: boolean;
  decisionId: string;
  /** Milliseconds the gate has spent so far, to add to the judge's own time. */
  elapsedMs: () => number;
  deadline?: number;
  signal?: AbortSignal;
}

export interface ReviewOutput {
  decision: Decision;
  /** What the judge said, for the audit; absent when it was not asked. */
  judge?: AuditJudge;
}

export interface JudgeStep {
  /** The judged decision, or null when the settings turn the judge off after all. */
  review(input: ReviewInput): Promise<ReviewOutput | null>;
}

export function createJudgeStep(o: JudgeStepOptions): JudgeStep {
  // One judge per distinct settings: a long-lived gate keeps its SDK clients and their connections.
  const judges = new Map<string, Judge>();
  let guard: LoopGuard | undefined;

  const judgeFor = (s: JudgeSettings): Judge => {
    const id = JSON.stringify(s);
    let j = judges.get(id);
    if (!j) {
      j = createJudge(s, { env: o.env, cache: { dir: defaultCacheDir(o.env, o.home) } });
      judges.set(id, j);
    }
    return j;
  };

  return {
    async review(input) {
      const settings = resolveJudgeSettings(input.judgeConfig, o.env);
      if (!settings) return null;
      const c = input.classification;
      const base = { tier: c.tier, rule: c.rule, findings: c.findings, decisionId: input.decisionId };

      guard ??= createLoopGuard({ stateDir: asimovStateDir(o.env, o.home) });
      const loop = guard.check(input.call.sessionId);
      if (loop.tripped) {
        const why =
          loop.consecutive >= LOOP_LIMITS.consecutive
            ? `the judge refused the last ${loop.consecutive} calls in a row in this session`
            : `the judge has refused ${loop.total} calls in this session`;
        const verdict: Verdict = input.personAvailable ? 'ask' : 'deny';
        const tail = input.personAvailable ? 'so it is no longer asked and a person decides.' : 'so it is no longer asked; no person can answer here, so the call is refused.';
        return { decision: { ...base, verdict, layer: 'static', reason: `${c.reason} (${capitalise(why)}, ${tail})`, ms: input.elapsedMs(), errorCode: 'judge_loop_guard' } };
      }

      let groundRules: string;
      try {
        groundRules = loadGroundRules(input.call.projectRoot, { env: o.env, home: o.home, ...(o.trustStorePath !== undefined ? { trustStorePath: o.trustStorePath } : {}) }).text;
        if (input.teamGroundRules) groundRules = withTeamGroundRules(groundRules, input.teamGroundRules);
      } catch (e) {
        if (!(e instanceof GroundRulesError)) throw e;
        const r: JudgeResult = { verdict: 'unsure', reason: e.message, provider: settings.provider, model: settings.model, latencyMs: 0, cacheHit: false, errorCode: 'judge_ground_rules' };
        return resolved(input, settings, r);
      }

      let intent: string | undefined;
      if (settings.sendUserRequest) {
        intent = input.call.intent;
        const src = input.call.intentSource;
        if (intent === undefined && src?.kind === 'claude-transcript') intent = readIntent(src.path);
      }

      const r = await judgeFor(settings).evaluate({
        call: input.call,
        classification: c,
        groundRules,
        ...(intent !== undefined ? { intent } : {}),
        ...(input.deadline !== undefined ? { deadline: input.deadline } : {}),
        ...(input.signal !== undefined ? { signal: input.signal } : {}),
      });
      guard.record(input.call.sessionId, r.verdict);
      return resolved(input, settings, r);
    },
  };
}

function resolved(input: ReviewInput, s: JudgeSettings, r: JudgeResult): ReviewOutput {
  const c = input.classification;
  let verdict: Verdict;
  let reason: string;
  if (r.verdict === 'allow') {
    verdict = 'allow';
    reason = `The judge allowed it: ${r.reason}`;
  } else if (r.verdict === 'deny') {
    verdict = 'deny';
    reason = `The judge refused it: ${r.reason}`;
  } else {
    reason = `${c.reason} The judge could not settle it: ${r.reason}`;
    if (s.onUncertain === 'deny') {
      verdict = 'deny';
      reason += ' (judge.onUncertain is deny, so it is refused.)';
    } else if (!input.personAvailable) {
      verdict = 'deny';
      reason += ' (No person can answer here, so it is refused.)';
    } else verdict = 'ask';
  }
  const decision: Decision = { verdict, tier: c.tier, rule: c.rule, reason, layer: 'judge', ms: input.elapsedMs(), findings: c.findings, decisionId: input.decisionId };
  if (r.errorCode !== undefined) decision.errorCode = r.errorCode;
  const judge: AuditJudge = {
    provider: r.provider,
    model: r.model,
    verdict: r.verdict,
    latency_ms: Math.round(r.latencyMs * 1000) / 1000,
    cache_hit: r.cacheHit,
    reason: r.reason,
  };
  return { decision, judge };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
