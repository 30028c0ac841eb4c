// Layer 1's engine: runs the policy's rules over a tool call and combines what they find into one tier.
// Rules are dispatched by program name, so a shell command costs only the rules that can match it.

import picomatch from 'picomatch';
import type { Classification, Finding, Tier, ToolCall } from '../core/types.ts';
import { tierRank } from '../core/types.ts';
import { extractShellCommand } from '../core/tools.ts';
import { analyzeShell } from '../shell/unwrap.ts';
import { programName } from '../shell/program.ts';
import type { Analysis, SimpleCommand } from '../shell/types.ts';
import type { Rule, RuleContext, RuleHit, RuleResult, ShellRule, ToolRule } from './rule.ts';
import { commandTraits, traitMask } from './traits.ts';
import { contextAt } from './workdir.ts';
import { mcpAllowCommandFor } from './mcp-allow.ts';
import { looksLikePowerShell, onlyPowerShellFindings, POWERSHELL_REASON, readsAsPowerShell } from './powershell.ts';

/** What the engine needs from a policy: its rules with their effective tiers, and allow-exceptions. */
export interface ClassifierPolicy {
  readonly rules: readonly Rule[];
  /** Allow rules that switch other rules off where they match (`overrides` in a policy file). */
  readonly allowOverrides?: readonly { readonly rule: Rule; readonly overrides: readonly string[] }[];
  /** Rule ids whose tier a policy file set: that tier stands, whatever grade the rule gives a hit. */
  readonly overridden?: ReadonlyMap<string, unknown>;
}

/** Rules grouped for dispatch; built once per policy object. */
interface RuleIndex {
  byProgram: Map<string, ShellRule[]>;
  anyProgram: ShellRule[];
  /** Per rule of anyProgram, its pre-check (`needs`): a trait mask and program names; null runs it always. */
  anyNeeds: ({ mask: number; programs: ReadonlySet<string> | null } | null)[];
  /** Whether any rule of anyProgram has a pre-check (else the traits are not computed). */
  anyPrechecked: boolean;
  byTool: Map<string, ToolRule[]>;
  anyTool: ToolRule[];
  overrides: Map<Rule, (id: string) => boolean>;
  locked: Set<string>;
  /** Rules whose tier comes from a policy file, not from the rule's own grading. */
  fixedTier: Set<string>;
}

/** The matched-override list of a policy without overrides: never pushed to (frozen, so a push would throw). */
const NO_OVERRIDES: Rule[] = Object.freeze([]) as unknown as Rule[];

const indexCache = new WeakMap<ClassifierPolicy, RuleIndex>();

function indexOf(policy: ClassifierPolicy): RuleIndex {
  let idx = indexCache.get(policy);
  if (idx) return idx;
  idx = { byProgram: new Map(), anyProgram: [], anyNeeds: [], anyPrechecked: false, byTool: new Map(), anyTool: [], overrides: new Map(), locked: new Set(), fixedTier: new Set(policy.overridden?.keys() ?? []) };
  for (const rule of policy.rules) {
    if (rule.deprecated) continue;
    if (rule.locked) idx.locked.add(rule.id);
    if (rule.kind === 'shell') {
      if (!rule.programs) {
        idx.anyProgram.push(rule);
        const needs = rule.needs ? { mask: traitMask(rule.needs.traits ?? []), programs: rule.needs.programs ? new Set(rule.needs.programs.map((p) => p.toLowerCase())) : null } : null;
        idx.anyNeeds.push(needs);
        if (needs) idx.anyPrechecked = true;
      } else for (const p of rule.programs) push(idx.byProgram, p.toLowerCase(), rule);
    } else if (!rule.tools) idx.anyTool.push(rule);
    else for (const t of rule.tools) push(idx.byTool, t, rule);
  }
  for (const o of policy.allowOverrides ?? []) {
    idx.overrides.set(o.rule, picomatch(o.overrides as string[]));
  }
  indexCache.set(policy, idx);
  return idx;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** How many lines deep data may nest in data (a hook written by a decoded payload in a CI step…). */
export const MAX_NESTED_LINES = 4;

/** A context's line classifier, marked with the policy it is bound to (a field, not a WeakMap entry per call). */
type BoundLine = ((line: string) => Classification) & { boundTo?: ClassifierPolicy };

/**
 * Give the context a line classifier bound to this policy (RuleContext.classifyLine), unless it has one
 * for the same policy already. Nested lines share the context (its path and URL caches) and a depth count.
 */
function bindNested(ctx: RuleContext, policy: ClassifierPolicy): void {
  if ((ctx.classifyLine as BoundLine).boundTo === policy) return;
  let depth = 0;
  const bound: BoundLine = (line: string): Classification => {
    if (depth >= MAX_NESTED_LINES) {
      return unknownResult('content.too-deep', `Commands nest more than ${MAX_NESTED_LINES} levels deep in the data of this call; a person has to read them.`);
    }
    depth++;
    try {
      return classifyShell(line, policy, ctx).classification;
    } finally {
      depth--;
    }
  };
  bound.boundTo = policy;
  ctx.classifyLine = bound;
}

/** Classify any tool call. Throws only on an internal bug (the gate turns that into a deny). */
export function classify(call: ToolCall, policy: ClassifierPolicy, ctx: RuleContext): Classification {
  return classifyCall(call, policy, ctx).classification;
}

/** classify's answer, with a shell line's analysis when there is one (the gate reuses it: gate.ts noteCreations). */
export function classifyCall(call: ToolCall, policy: ClassifierPolicy, ctx: RuleContext): { classification: Classification; analysis?: Analysis } {
  bindNested(ctx, policy);
  if (call.tool === 'shell') {
    const command = extractShellCommand(call.input);
    if (command === null) {
      return { classification: unknownResult('tool.bad-input', 'The shell call has no command string to check.') };
    }
    const r = classifyShell(command, policy, ctx);
    return { classification: r.classification, analysis: r.analysis };
  }
  return { classification: classifyTool(call, policy, ctx) };
}

/** The result of classifying a shell line, with the analysis for `explain`. */
export interface ShellClassification {
  classification: Classification;
  analysis: Analysis;
  /** Per command: its own tier and findings, in the order of analysis.commands. */
  perCommand: { command: SimpleCommand; tier: Tier; findings: Finding[] }[];
}

export function classifyShell(command: string, policy: ClassifierPolicy, ctx: RuleContext): ShellClassification {
  bindNested(ctx, policy);
  const analysis = analyzeShell(command);
  if (analysis.status !== 'ok') {
    // Only where bash could not read the line at all (never a downgrade: it is `unknown` either way), say
    // when it is PowerShell that reached a bash tool (Windows agents do this), so the person knows why.
    if ((analysis.status === 'unparseable' || analysis.status === 'refused') && looksLikePowerShell(command)) {
      return {
        classification: unknownResult('shell.powershell', POWERSHELL_REASON),
        analysis,
        perCommand: [],
      };
    }
    return {
      classification: unknownResult(`shell.${analysis.status.replace(/_/g, '-')}`, `The command could not be analysed safely (${analysis.message ?? analysis.status}); a person has to read it.`),
      analysis,
      perCommand: [],
    };
  }
  if (analysis.commands.length === 0 && analysis.problems.length === 0) {
    return { classification: { tier: 'allow', findings: [], reason: 'Empty command: nothing runs.', rule: null }, analysis, perCommand: [] };
  }
  const idx = indexOf(policy);
  // Most lines wrap nothing: build the set only when a command was unwrapped from another.
  let wrappers: Set<number> | undefined;
  for (const c of analysis.commands) if (c.wrappedBy !== undefined) (wrappers ??= new Set<number>()).add(c.wrappedBy);

  const perCommand: ShellClassification['perCommand'] = [];
  const all: Finding[] = [];
  let tier: Tier = 'allow';
  let unknownReason: string | null = null;
  for (const cmd of analysis.commands) {
    const prog = programName(cmd);
    // A command that runs after a `cd`, under `env -C`, or after links were made: its paths resolve there.
    const cctx = cmd.cwd === undefined ? ctx : contextAt(ctx, cmd.cwd);
    const findings: Finding[] = [];
    // Filled only by rules that carry overrides; most policies have none, so no array per command then.
    const matchedAllowOverrides: Rule[] = idx.overrides.size > 0 ? [] : NO_OVERRIDES;
    const forProgram = prog === null ? undefined : idx.byProgram.get(prog);
    if (forProgram) runShellRules(forProgram, cmd, cctx, analysis, idx, findings, matchedAllowOverrides);
    runAnyProgramRules(prog, cmd, cctx, analysis, idx, findings, matchedAllowOverrides);

    const kept = applyOverrides(findings, matchedAllowOverrides, idx);
    let cmdTier: Tier;
    if (kept.length > 0) {
      cmdTier = kept.reduce<Tier>((t, f) => (tierRank(f.tier) > tierRank(t) ? f.tier : t), 'allow');
    } else if (cmd.argv.length === 0 || (wrappers !== undefined && wrappers.has(cmd.id))) {
      // A bare assignment or redirection runs nothing; a wrapper is judged by what it wraps.
      cmdTier = 'allow';
    } else {
      cmdTier = 'unknown';
      unknownReason ??= prog === null
        ? `The command name in \`${cmd.text}\` is only known at run time.`
        : `asimov has no rule that knows \`${prog}\`; a person has to decide.`;
    }
    perCommand.push({ command: cmd, tier: cmdTier, findings: kept });
    all.push(...kept);
    if (tierRank(cmdTier) > tierRank(tier)) tier = cmdTier;
  }
  // Something the analysis could not resolve (a shell string known only at run time, alias expansion
  // switched on) keeps the line from being allowed, whatever the rules said of its commands.
  if (tier === 'allow' && analysis.problems.length > 0) {
    tier = 'unknown';
    unknownReason = `Part of this line is only known when it runs (${analysis.problems[0]}); a person has to decide.`;
  }
  // PowerShell that bash could read (`Get-Process node | Select-Object Id`): named as PowerShell when nothing but
  // PowerShell's own syntax made the line unknown or soft; a real soft or hard finding keeps its tier.
  if (tier !== 'allow' && tierRank(tier) <= tierRank('soft_deny') && readsAsPowerShell(analysis) && onlyPowerShellFindings(analysis, perCommand)) {
    return { classification: { ...unknownResult('shell.powershell', POWERSHELL_REASON), findings: worstFirst(all), subjects: analysis.commands.map((c) => c.text) }, analysis, perCommand };
  }
  return { classification: combine(tier, all, unknownReason, analysis), analysis, perCommand };
}

function runShellRules(
  rules: readonly ShellRule[],
  cmd: SimpleCommand,
  ctx: RuleContext,
  analysis: Analysis,
  idx: RuleIndex,
  findings: Finding[],
  matchedAllowOverrides: Rule[],
): void {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    const hit = rule.match(cmd, ctx, analysis);
    if (!hit) continue;
    findings.push(toFinding(rule, hit, cmd.text, idx));
    if (idx.overrides.size > 0 && idx.overrides.has(rule)) matchedAllowOverrides.push(rule);
  }
}

/** The rules for every command, each skipped when its pre-check says it cannot match this command. */
function runAnyProgramRules(
  prog: string | null,
  cmd: SimpleCommand,
  ctx: RuleContext,
  analysis: Analysis,
  idx: RuleIndex,
  findings: Finding[],
  matchedAllowOverrides: Rule[],
): void {
  const rules = idx.anyProgram;
  const needs = idx.anyNeeds;
  const traits = idx.anyPrechecked ? commandTraits(cmd, analysis) : 0;
  for (let i = 0; i < rules.length; i++) {
    const n = needs[i];
    if (n != null && (n.mask & traits) === 0 && (n.programs === null || prog === null || !n.programs.has(prog))) continue;
    const rule = rules[i]!;
    const hit = rule.match(cmd, ctx, analysis);
    if (!hit) continue;
    findings.push(toFinding(rule, hit, cmd.text, idx));
    if (idx.overrides.size > 0 && idx.overrides.has(rule)) matchedAllowOverrides.push(rule);
  }
}

function classifyTool(call: ToolCall, policy: ClassifierPolicy, ctx: RuleContext): Classification {
  const idx = indexOf(policy);
  const findings: Finding[] = [];
  const matchedAllowOverrides: Rule[] = [];
  const run = (rule: ToolRule): void => {
    const hit = rule.match(call, ctx);
    if (!hit) return;
    findings.push(toFinding(rule, hit, undefined, idx));
    if (idx.overrides.has(rule)) matchedAllowOverrides.push(rule);
  };
  for (const rule of idx.byTool.get(call.tool) ?? []) run(rule);
  if (call.clientTool && call.clientTool !== call.tool) for (const rule of idx.byTool.get(call.clientTool) ?? []) run(rule);
  for (const rule of idx.anyTool) run(rule);
  const kept = applyOverrides(findings, matchedAllowOverrides, idx);
  if (kept.length === 0) {
    const name = call.clientTool ?? call.tool;
    const allow = mcpAllowCommandFor(name);
    // An MCP tool: say how the user lets it through from now on (the agent itself may not: selfmod.asimov).
    const how = allow === null ? '' : ` If the user trusts it, they can allow it from now on with \`${allow}\`.`;
    return unknownResult(null, `asimov has no rule for the tool \`${name}\`; a person has to decide.${how}`);
  }
  const tier = kept.reduce<Tier>((t, f) => (tierRank(f.tier) > tierRank(t) ? f.tier : t), 'allow');
  return combine(tier, kept, null, undefined);
}

function applyOverrides(findings: Finding[], allowRules: Rule[], idx: RuleIndex): Finding[] {
  if (allowRules.length === 0) return findings;
  return findings.filter((f) => idx.locked.has(f.rule) || !allowRules.some((r) => r.id !== f.rule && idx.overrides.get(r)!(f.rule)));
}

function toFinding(rule: Rule, hit: RuleResult, fallbackSubject: string | undefined, idx: RuleIndex): Finding {
  const h: RuleHit = typeof hit === 'object' && hit !== null ? hit : {};
  // A rule may grade a hit below its own tier (hard for `/`, soft for `~/x`), but never above it, never when a
  // policy file set the tier, and never for a locked rule.
  let tier = rule.tier;
  if (h.tier !== undefined && tierRank(h.tier) < tierRank(rule.tier) && !rule.locked && !idx.fixedTier.has(rule.id)) tier = h.tier;
  const f: Finding = { rule: rule.id, tier, reason: h.reason ?? rule.reason };
  const subject = h.subject ?? fallbackSubject;
  if (subject !== undefined) f.subject = subject;
  return f;
}

function combine(tier: Tier, findings: Finding[], unknownReason: string | null, analysis: Analysis | undefined): Classification {
  const sorted = worstFirst(findings);
  const top = sorted[0];
  const result: Classification = { tier, findings: sorted, reason: '', rule: null };
  if (top && top.tier === tier) {
    result.reason = top.reason;
    result.rule = top.rule;
  } else if (tier === 'unknown') {
    result.reason = unknownReason ?? 'Nothing in the policy decides this call; a person has to.';
  } else {
    result.reason = top?.reason ?? 'Allowed.';
    result.rule = top?.rule ?? null;
  }
  if (tier === 'allow' && sorted.length > 0) result.reason = sorted.map((f) => f.reason).filter(unique).slice(0, 2).join(' ');
  if (analysis) result.subjects = analysis.commands.map((c) => c.text);
  return result;
}

/**
 * Findings ordered worst tier first, stably. The callers' arrays are their own and unused afterwards, so
 * they are sorted in place, and not at all when already in order (the usual case: sorting allocates).
 */
function worstFirst(findings: Finding[]): Finding[] {
  for (let i = 1; i < findings.length; i++) {
    if (tierRank(findings[i]!.tier) > tierRank(findings[i - 1]!.tier)) return findings.sort((a, b) => tierRank(b.tier) - tierRank(a.tier));
  }
  return findings;
}

function unique<T>(v: T, i: number, a: T[]): boolean {
  return a.indexOf(v) === i;
}

function unknownResult(rule: string | null, reason: string): Classification {
  return { tier: 'unknown', findings: [], reason, rule };
}
