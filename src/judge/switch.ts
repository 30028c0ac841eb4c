// The judge's on/off switch, readable without loading anything else of the judge: the gate consults it on
// every soft_deny/unknown call, and with the judge off nothing more of src/judge/ may be loaded.
// No imports on purpose.

/**
 * `GATE_CHECK` as the seeds define it: `false` turns the judge off whatever the policy says, `true` turns
 * it on (with defaults when the policy has no `judge:` section). Other spellings people use for a boolean
 * are read the same way; anything else, or unset, leaves the decision to the policy (undefined).
 */
export function gateCheckSwitch(value: string | undefined): boolean | undefined {
  const v = value?.trim().toLowerCase();
  if (v === 'false' || v === '0' || v === 'off' || v === 'no') return false;
  if (v === 'true' || v === '1' || v === 'on' || v === 'yes') return true;
  return undefined;
}

/** Set in the environment of a `claude -p` judge child: its own hooks must never call the judge again. */
export const JUDGE_CHILD_ENV = 'ASIMOV_JUDGE_CHILD';

/** Whether the judge is on: GATE_CHECK first, then whether the policy has a `judge:` section. */
export function judgeSwitchOn(policyHasJudge: boolean, env: NodeJS.ProcessEnv): boolean {
  // A judge's own `claude -p` child never judges: its hooks would recurse (belt and braces; the child
  // also runs with hooks disabled).
  if (env[JUDGE_CHILD_ENV] === '1') return false;
  const sw = gateCheckSwitch(env.GATE_CHECK);
  return sw ?? policyHasJudge;
}

/** Whether the judge is on and what decided it, in words for a person (`asimov policy`, `asimov explain`). */
export function judgeSwitchState(policyHasJudge: boolean, env: NodeJS.ProcessEnv): { on: boolean; why: string } {
  if (env[JUDGE_CHILD_ENV] === '1') return { on: false, why: `${JUDGE_CHILD_ENV}=1: this is a judge's own child process` };
  const sw = gateCheckSwitch(env.GATE_CHECK);
  if (sw === false) return { on: false, why: `GATE_CHECK=${env.GATE_CHECK}${policyHasJudge ? ' (over the policy\'s judge: section)' : ''}` };
  if (sw === true) return { on: true, why: `GATE_CHECK=${env.GATE_CHECK}${policyHasJudge ? ', with the policy\'s judge: section' : ', with the defaults (the policy has no judge: section)'}` };
  return policyHasJudge
    ? { on: true, why: 'the policy\'s judge: section' }
    : { on: false, why: 'the policy has no judge: section (GATE_CHECK=true or a judge: section turns it on)' };
}
