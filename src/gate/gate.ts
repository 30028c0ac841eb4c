// The gate pipeline (DESIGN §2): classify with the static policy, let the judge settle soft_deny/unknown
// calls when it is on, resolve the result into a verdict, record it. Every failure on the way becomes a
// deny that names its cause; nothing fails open.

import { homedir } from 'node:os';
import { resolvePath } from '../core/abs-path.ts';
import { nowMs, randomId } from '../core/lazy.ts';
import { AsimovError, describeError, errorCodeOf } from '../core/errors.ts';
import { ownToolOfClientName, shellWorkdir } from '../core/tools.ts';
import type { Classification, Decision, Tier, ToolCall, Verdict } from '../core/types.ts';
import { classifyCall } from '../policy/classify.ts';
import { createRuleContext } from '../policy/context.ts';
import { asimovDirsFromEnv } from '../policy/paths.ts';
import { runningInstallDirs } from '../core/install-dirs.ts';
import type { EffectivePolicy } from '../policy/layers.ts';
import { loadPolicy, findProjectRoot } from '../policy/load.ts';
import type { RuleContext } from '../policy/rule.ts';
import { runExample } from '../policy/examples.ts';
import { buildEvent, type AuditJudge, type BuildEventExtra } from '../audit/event.ts';
import { judgeSwitchOn } from '../judge/switch.ts';
import type { JudgeStep } from '../judge/review.ts';
import { createAuditWriter } from '../audit/writer.ts';
import { journalDirOf, resolveAuditPath } from '../audit/paths.ts';
import { chainPayload, chainsForCall, runChains, type ChainStop } from './chains.ts';
import { pathsCreatedBy } from '../policy/created-paths.ts';
import { asimovStateDir } from '../core/asimov-dirs.ts';
import { createSessionFiles, type SessionFiles } from './session-files.ts';
import type { ApprovalOutcome, Approver } from './approver.ts';
import { createHttpApprover } from './http-approver.ts';
import type { ApprovalsSettings } from '../policy/layers.ts';
import { refreshTeamPolicy, TEAM_FETCH_TIMEOUT_MS } from '../audit/team-policy-fetch.ts';

/**
 * How often a gate asks the team server whether its policy changed: a change published there applies to a
 * machine's calls within this time plus one call. A fresh copy costs nothing more than reading its meta.json,
 * which loading the policy does anyway.
 */
export const TEAM_REFRESH_MS = 30_000;
/** Time kept for the decision itself when a refresh must fit a call's deadline. */
const TEAM_REFRESH_RESERVE_MS = 1_000;

export interface AuditSink {
  append: (event: ReturnType<typeof buildEvent>) => unknown;
}

export interface GateOptions {
  /** Home directory for `~` and the user policy; defaults to the OS's. */
  home?: string;
  /** A policy to use for every call instead of loading files (tests, embedding). */
  policy?: EffectivePolicy;
  /** Paths for the policy layers and the trust store (default: the standard locations). */
  userPolicyPath?: string;
  managedPolicyPath?: string;
  trustStorePath?: string;
  /** Where decisions are recorded: false for none, a path, or a sink; default: the standard audit log. */
  audit?: false | string | AuditSink;
  /** When the audit log cannot be written: deny the call (default) or only warn. */
  auditRequired?: boolean;
  /** Whether a person can answer `ask` (an interactive client); when not, ask becomes deny. Default true. */
  personAvailable?: boolean;
  /**
   * Where each session's record of the paths it created is kept (gate/session-files.ts): a state directory,
   * or false for none. Default: asimov's state directory.
   */
  sessionState?: false | string;
  env?: NodeJS.ProcessEnv;
  /**
   * Bringing the team policy's cached copy up to date before a decision (`audit.remote`, see
   * audit/team-policy-fetch.ts): when its last check is older than `intervalMs` (default TEAM_REFRESH_MS),
   * one conditional request of at most `timeoutMs`. false: never (tools that must not reach the network).
   */
  teamRefresh?: false | { intervalMs?: number; timeoutMs?: number };
  /** Injectable for tests. */
  now?: () => Date;
  newId?: () => string;
}

export interface DecideOptions {
  personAvailable?: boolean;
  /**
   * The moment (Date.now() milliseconds) by which the decision must be made. An adapter that must reply
   * before its client gives up (a hook) passes it; slow layers (the judge) shorten their budget to fit
   * and treat running out as uncertainty, never as allow.
   */
  deadline?: number;
  /** Aborts slow layers early (the adapter's own deadline or shutdown); treated like a passed deadline. */
  signal?: AbortSignal;
  /** Who asked, for the audit record: the API token's name of a call that came through asimov serve. */
  principal?: string;
  /**
   * Who answers where the policy routes questions to a person on call (`approvals:`) and personAvailable is
   * false. Default: the policy's approvals server over HTTP (gate/http-approver.ts). asimov serve passes its
   * own service. Without `approvals:` in the policy no approver is ever asked.
   */
  approver?: Approver;
}

export interface Gate {
  /**
   * Decide one call: the static policy, then the judge for soft_deny/unknown calls when it is on
   * (DESIGN §2), then the policy's external chains for a call not denied. Never rejects: every failure
   * is a deny. Adapters that enforce (hooks, the MCP proxy and tools) use this.
   */
  decide(call: ToolCall, opts?: DecideOptions): Promise<Decision>;
  /** The static part only, synchronously: no judge and no chains, so not for enforcing. Never throws. */
  decideStatic(call: ToolCall, opts?: DecideOptions): Decision;
  /** Layer 1's classification with its policy and context, for `explain`. Throws on policy errors. */
  inspect(call: ToolCall): { classification: Classification; policy: EffectivePolicy; ctx: RuleContext };
  /** The policy that applies to a directory (loaded once per project root). Throws on policy errors. */
  policyFor(cwd: string): EffectivePolicy;
}

export function createGate(options: GateOptions = {}): Gate {
  const env = options.env ?? process.env;
  const home = options.home ?? (env.HOME || homedir());
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? randomId;
  const policies = new Map<string, EffectivePolicy>();
  // Where the environment moves asimov's own files (XDG_*, ASIMOV_AUDIT_LOG), and the running install's bin/
  // and dist/ (what every hook line runs): asimov-config to the path rules.
  const asimovDirs = [...asimovDirsFromEnv(env), ...auditLogFiles(env, home), ...runningInstallDirs()];
  let sink: AuditSink | null | undefined;
  let sessionFiles: SessionFiles | null | undefined;
  const sessionRecord = (): SessionFiles | null =>
    (sessionFiles ??= options.sessionState === false ? null : createSessionFiles({ stateDir: options.sessionState ?? asimovStateDir(env, home) }));

  const auditSink = (): AuditSink | null => {
    if (sink !== undefined) return sink;
    if (options.audit === false) sink = null;
    else if (typeof options.audit === 'object') sink = options.audit;
    else {
      const writer = createAuditWriter(typeof options.audit === 'string' ? { path: options.audit, env } : { env });
      sink = writer ?? null;
    }
    return sink;
  };

  const policyFor = (cwd: string, projectRoot?: string): EffectivePolicy => {
    if (options.policy) return options.policy;
    const root = projectRoot ?? findProjectRoot(cwd);
    let p = policies.get(root);
    if (!p) {
      const opts: Parameters<typeof loadPolicy>[0] = { cwd, projectRoot: root, home, env, exampleRunner: runExample };
      if (options.userPolicyPath !== undefined) opts.userPath = options.userPolicyPath;
      if (options.managedPolicyPath !== undefined) opts.managedPath = options.managedPolicyPath;
      if (options.trustStorePath !== undefined) opts.trustStorePath = options.trustStorePath;
      p = loadPolicy(opts);
      policies.set(root, p);
    }
    return p;
  };

  /**
   * A shell call that names its own directory under its client's key (Codex and OpenCode `workdir`, Gemini
   * `dir_path`: shellWorkdir) is judged there, inside the project of the directory the client runs in (so
   * that project's policy applies and a workdir elsewhere is outside it).
   */
  const atOwnWorkdir = (call: ToolCall): ToolCall => {
    // asimov's own gated tools run in their server's directory whatever the arguments say (hook-approvals.ts).
    if (call.tool !== 'shell' || ownToolOfClientName(call.clientTool) !== null) return call;
    let dir: string | null;
    try {
      dir = shellWorkdir(call.input, call.agent);
    } catch (e) {
      throw new AsimovError('bad_input', (e as Error).message);
    }
    if (dir === null) return call;
    const cwd = resolvePath(call.cwd);
    return { ...call, cwd: resolvePath(cwd, dir), projectRoot: call.projectRoot ?? policyFor(cwd).projectRoot };
  };

  /** The policy and a fresh rule context for a call (fresh: a context's realpath caches must not outlive a call). */
  const inspectContext = (call: ToolCall) => {
    const cwd = resolvePath(call.cwd);
    const session = call.sessionId;
    const files = session ? sessionRecord() : null;
    const policy = policyFor(cwd, call.projectRoot);
    // The policy was loaded for this project (or given for one), so it knows the root; no second walk up the tree.
    const projectRoot = call.projectRoot ? resolvePath(call.projectRoot) : policy.projectRoot;
    const ctx = createRuleContext({
      cwd,
      projectRoot,
      home,
      allowedDomains: policy.allowedDomains,
      dlpAllow: policy.dlpAllow,
      defaultBranches: policy.defaultBranches,
      protectedPaths: policy.protectedPaths,
      protectedNames: policy.protectedNames,
      asimovDirs,
      ...(files && session ? { createdInSession: (abs: string) => files.created(session, abs) } : {}),
    });
    return { cwd, policy, ctx };
  };

  const inspect = (call: ToolCall) => {
    const { cwd, policy, ctx } = inspectContext(call);
    // A copy of the call only when resolving changed its directory (a clean absolute cwd comes back as is).
    const at = call.cwd === cwd ? call : { ...call, cwd };
    // A shell line's analysis is kept for what the call creates (noteCreations), so it is not parsed twice.
    const { classification, analysis } = classifyCall(at, policy, ctx);
    return { classification, policy, ctx, at, analysis };
  };

  /**
   * After an allow: what the call will create inside the project joins its session's record, so the agent may
   * remove it later (fs.rm-created). Never changes the decision; a failure only means a later removal asks.
   */
  const noteCreations = (seen: ReturnType<typeof inspect>): void => {
    const session = seen.at.sessionId;
    if (!session || (seen.at.tool !== 'shell' && seen.at.tool !== 'write' && seen.at.tool !== 'edit')) return;
    try {
      const files = sessionRecord();
      if (!files) return;
      const created = pathsCreatedBy(seen.at, seen.ctx, seen.analysis);
      if (created.length > 0) files.record(session, created.map((c) => c.path));
    } catch {
      /* best effort */
    }
  };

  const decideStatic = (call: ToolCall, opts: DecideOptions = {}): Decision => {
    const start = nowMs();
    const decisionId = newId();
    const personAvailable = opts.personAvailable ?? options.personAvailable ?? true;
    let decision: Decision;
    let policyHash: string | undefined;
    try {
      call = atOwnWorkdir(call);
      const seen = inspect(call);
      policyHash = seen.policy.hash;
      decision = resolveTier(seen.classification, personAvailable, decisionId, nowMs() - start);
      if (decision.verdict === 'allow') noteCreations(seen);
    } catch (e) {
      decision = errorDecision(e, decisionId, nowMs() - start);
    }
    return record(call, decision, policyHash, undefined, opts.principal);
  };

  // The judge (Layer 2), loaded on the first call that needs it: with the judge off, or for calls the
  // static layer settles, nothing of it is imported.
  let judgeStep: JudgeStep | undefined;

  /** When each team server was last asked by this gate (its meta.json says the same across processes). */
  const teamAsked = new Map<string, number>();
  /**
   * Before a decision: asks the team server for a newer policy when the cached copy was checked longer ago
   * than the interval, within the call's deadline, and reloads the policies if it was asked. Never throws and
   * never decides anything itself: a failure leaves the cached copy (or none) in force.
   */
  const refreshTeam = async (call: ToolCall, opts: DecideOptions): Promise<void> => {
    if (options.policy || options.teamRefresh === false) return;
    let policy: EffectivePolicy;
    try {
      policy = policyFor(resolvePath(call.cwd), call.projectRoot);
    } catch {
      return; // the decision itself reports the broken policy
    }
    const a = policy.audit;
    if (!policy.team || !a?.remote || !a.policy) return;
    const t = Date.now();
    const checked = Math.max(Date.parse(policy.team.checkedAt ?? '') || 0, teamAsked.get(a.remote) ?? 0);
    if (t - checked < (options.teamRefresh?.intervalMs ?? TEAM_REFRESH_MS)) return;
    let timeoutMs = options.teamRefresh?.timeoutMs ?? TEAM_FETCH_TIMEOUT_MS;
    if (opts.deadline !== undefined) timeoutMs = Math.min(timeoutMs, opts.deadline - t - TEAM_REFRESH_RESERVE_MS);
    if (timeoutMs < 100) return;
    teamAsked.set(a.remote, t);
    try {
      await refreshTeamPolicy(a, { env, stateDir: asimovStateDir(env, home), timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) });
    } catch {
      /* refreshTeamPolicy reports rather than throws; anything else leaves the copy as it was */
    }
    // Whatever the answer, meta.json changed: the next load shows it (and a new copy applies).
    policies.clear();
  };

  const decide = async (call: ToolCall, opts: DecideOptions = {}): Promise<Decision> => {
    const start = nowMs();
    await refreshTeam(call, opts);
    const decisionId = newId();
    const personAvailable = opts.personAvailable ?? options.personAvailable ?? true;
    let classification: Classification;
    let policy: EffectivePolicy;
    let seen: ReturnType<typeof inspect>;
    try {
      call = atOwnWorkdir(call);
      seen = inspect(call);
      ({ classification, policy } = seen);
    } catch (e) {
      return record(call, errorDecision(e, decisionId, nowMs() - start), undefined, undefined, opts.principal);
    }
    // With nobody at the agent but a person on call (`approvals:`), the layers decide as if a person were
    // present; an `ask` then goes to the approver instead of becoming a deny.
    const onCall = !personAvailable && policy.approvals !== undefined;
    const asked = personAvailable || onCall;
    let decision: Decision;
    let judge: AuditJudge | undefined;
    const judgeable = classification.tier === 'soft_deny' || classification.tier === 'unknown';
    if (!judgeable || !judgeSwitchOn(policy.judge !== undefined, env)) {
      decision = resolveTier(classification, asked, decisionId, nowMs() - start);
    } else {
      try {
        judgeStep ??= (await import('../judge/review.ts')).createJudgeStep({ env, home, ...(options.trustStorePath !== undefined ? { trustStorePath: options.trustStorePath } : {}) });
        const cwd = resolvePath(call.cwd);
        const out = await judgeStep.review({
          call: { ...call, cwd, projectRoot: call.projectRoot ? resolvePath(call.projectRoot) : policy.projectRoot },
          classification,
          judgeConfig: policy.judge,
          ...(policy.team?.applied && policy.team.groundRules ? { teamGroundRules: { text: policy.team.groundRules, server: policy.team.server, version: policy.team.version } } : {}),
          personAvailable: asked,
          decisionId,
          elapsedMs: () => nowMs() - start,
          ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
          ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
        });
        if (!out) decision = resolveTier(classification, asked, decisionId, nowMs() - start);
        else ({ decision, judge } = out);
      } catch (e) {
        // The judge step catches the judge's own failures; anything escaping it is a bug, and a deny.
        const d = errorDecision(e, decisionId, nowMs() - start);
        return record(call, { ...d, tier: classification.tier, rule: classification.rule, findings: classification.findings }, policy.hash, undefined, opts.principal);
      }
    }
    if (decision.verdict !== 'deny' && policy.chains && policy.chains.length > 0) {
      decision = await applyChains(call, decision, policy, asked, opts, () => nowMs() - start);
    }
    // Reached only by a call a person would have been asked about: hard_deny and every refusal stay as they are.
    if (onCall && decision.verdict === 'ask') decision = await askOnCall(call, decision, policy.approvals!, opts, () => nowMs() - start);
    if (decision.verdict === 'allow') noteCreations(seen);
    return record(call, decision, policy.hash, judge, opts.principal);
  };

  /** The policy's external chains, after the static layer and the judge, for a call not already denied. */
  const applyChains = async (
    call: ToolCall,
    decision: Decision,
    policy: EffectivePolicy,
    personAvailable: boolean,
    opts: DecideOptions,
    elapsedMs: () => number,
  ): Promise<Decision> => {
    try {
      const chains = chainsForCall(call, policy.chains ?? []);
      if (chains.length === 0) return decision;
      const cwd = resolvePath(call.cwd);
      const projectRoot = call.projectRoot ? resolvePath(call.projectRoot) : policy.projectRoot;
      const stop = await runChains(chains, chainPayload(call, cwd, decision.decisionId), {
        cwd,
        projectRoot,
        env,
        ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
        ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
      });
      return stop ? chainDecision(decision, stop, personAvailable, elapsedMs()) : { ...decision, ms: elapsedMs() };
    } catch (e) {
      const d = errorDecision(e, decision.decisionId, elapsedMs());
      return { ...d, tier: decision.tier, rule: decision.rule, findings: decision.findings };
    }
  };

  /**
   * Puts an `ask` to the person on call and turns the answer into the verdict: allow only on an explicit
   * allow; a refusal, no answer in time, an unreachable server or any error is a deny that says why.
   */
  const askOnCall = async (call: ToolCall, decision: Decision, settings: ApprovalsSettings, opts: DecideOptions, elapsedMs: () => number): Promise<Decision> => {
    const deadline = Math.min(opts.deadline ?? Infinity, Date.now() + settings.timeoutSec * 1000);
    let outcome: ApprovalOutcome;
    try {
      const approver = opts.approver ?? httpApproverFor(settings);
      if (!approver) {
        const why = `the policy's approvals (${settings.source}) name no server to ask`;
        return { ...decision, verdict: 'deny', reason: `${decision.reason} (No person can answer here and ${why}, so it is refused.)`, ms: elapsedMs(), errorCode: 'approval_unavailable' };
      }
      outcome = await approver.request({ call, decision, deadline, ...(opts.signal ? { signal: opts.signal } : {}) });
    } catch (e) {
      outcome = { verdict: 'deny', by: null, scope: null, reason: `asking a person on call failed: ${describeError(e)}`, approvalId: null, failure: 'error' };
    }
    const approval = { id: outcome.approvalId, by: outcome.by, scope: outcome.scope, verdict: outcome.verdict, reason: outcome.reason };
    const said = outcome.reason ? `: ${outcome.reason}` : '';
    if (outcome.verdict === 'allow' && outcome.failure === undefined) {
      const scope = outcome.scope === 'session' ? ' for this session' : outcome.scope === 'always' ? ' (a rule to allow it always was proposed)' : '';
      return { ...decision, verdict: 'allow', reason: `Approved by ${outcome.by ?? 'a person on call'}${scope}${said}. Asked because: ${decision.reason}`, ms: elapsedMs(), approval };
    }
    return outcome.failure === undefined
      ? { ...decision, verdict: 'deny', reason: `Refused by ${outcome.by ?? 'a person on call'}${said}. Asked because: ${decision.reason}`, ms: elapsedMs(), approval }
      : { ...decision, verdict: 'deny', reason: `${decision.reason} (A person on call was asked, but ${outcome.reason ?? outcome.failure}; so it is refused.)`, ms: elapsedMs(), approval, errorCode: `approval_${outcome.failure}` };
  };

  /** The HTTP approver of a policy's approvals server, with its token from the environment (never from the file). */
  const httpApproverFor = (settings: ApprovalsSettings): Approver | null => {
    if (settings.server === undefined) return null;
    const token = env[settings.tokenEnv];
    return createHttpApprover({ server: settings.server, tokenEnv: settings.tokenEnv, ...(token ? { token } : {}) });
  };

  const record = (call: ToolCall, decision: Decision, policyHash: string | undefined, judge?: AuditJudge, principal?: string): Decision => {
    let s: AuditSink | null;
    try {
      s = auditSink();
      if (s) {
        const extra: BuildEventExtra = { ts: now(), policyHash };
        if (judge) extra.judge = judge;
        if (principal !== undefined) extra.principal = principal;
        s.append(buildEvent(call, decision, extra));
      }
    } catch (e) {
      if (options.auditRequired === false) return decision;
      return auditFailedDecision(decision, e);
    }
    return decision;
  };

  return {
    decide,
    decideStatic,
    inspect: (call) => inspect(atOwnWorkdir(call)),
    policyFor: (cwd) => policyFor(resolvePath(cwd)),
  };
}

/** DESIGN §2's resolution of a tier into a verdict, for the static layer alone. */
export function resolveTier(c: Classification, personAvailable: boolean, decisionId: string, ms: number): Decision {
  let verdict: Verdict;
  let reason = c.reason;
  if (c.tier === 'hard_deny') verdict = 'deny';
  else if (c.tier === 'allow') verdict = 'allow';
  else if (personAvailable) verdict = 'ask';
  else {
    verdict = 'deny';
    reason = `${c.reason} (No person can answer here, so it is refused.)`;
  }
  return { verdict, tier: c.tier, rule: c.rule, reason, layer: 'static', ms, findings: c.findings, decisionId };
}

/** A chain's word over the decision so far: a block or a failure denies; `ask` turns an allow into ask. */
export function chainDecision(before: Decision, stop: ChainStop, personAvailable: boolean, ms: number): Decision {
  const { chain, result } = stop;
  const base = { ...before, layer: 'chain' as const, rule: `chain:${chain.command}`, ms };
  delete base.errorCode;
  const from = `the policy chain \`${chain.command}\` from ${chain.source}`;
  if (result.kind === 'block') {
    const reason = result.reason ? `${result.reason} (blocked by ${from})` : `Blocked by ${from}, which gave no reason.`;
    return { ...base, verdict: 'deny', reason };
  }
  if (result.kind === 'ask') {
    if (before.verdict === 'ask') return { ...before, ms };
    const said = result.reason ? `${result.reason} (${from} asks for a person)` : `${capitalize(from)} asks for a person.`;
    return personAvailable ? { ...base, verdict: 'ask', reason: said } : { ...base, verdict: 'deny', reason: `${said} No person can answer here, so it is refused.` };
  }
  const why = result.code === 'chain_aborted' ? '' : ' It is not marked optional, so the call is refused.';
  return { ...base, verdict: 'deny', reason: `${capitalize(from)} could not decide: ${result.detail}.${why}`, errorCode: result.code };
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A decision whose audit record could not be written: refused, with the cause (fail closed). */
export function auditFailedDecision(decision: Decision, e: unknown): Decision {
  return {
    ...decision,
    verdict: 'deny',
    layer: 'error',
    reason: `The audit log could not be written, so the call is refused: ${describeError(e)}`,
    errorCode: 'audit_io_error',
  };
}

export function errorDecision(e: unknown, decisionId: string, ms: number): Decision {
  const tier: Tier = 'unknown';
  const isPolicy = e instanceof AsimovError && e.code.startsWith('policy_');
  const reason = isPolicy
    ? `The asimov policy is broken, so every call is refused until it is fixed: ${describeError(e)}`
    : `asimov failed while checking this call, so it is refused: ${describeError(e)}`;
  return { verdict: 'deny', tier, rule: null, reason, layer: 'error', ms, findings: [], decisionId, errorCode: errorCodeOf(e) };
}

/**
 * The audit log this environment writes to, its lock and its journals: asimov's own files wherever ASIMOV_AUDIT_LOG puts
 * them. None when auditing is off, or when the setting is unusable (the writer then refuses every call).
 */
function auditLogFiles(env: NodeJS.ProcessEnv, home: string): string[] {
  try {
    const log = resolveAuditPath(env, home);
    return log === null ? [] : [log, `${log}.lock`, journalDirOf(log)];
  } catch {
    return [];
  }
}
