// The shape of a Layer 1 rule. A rule carries its own id, tier, reason and examples, in the manner
// of Codex execpolicy: every `deny` example must trigger the rule and no `allow` example may.

import type { Classification, Tier, ToolCall } from '../core/types.ts';
import type { Analysis, SimpleCommand } from '../shell/types.ts';
import type { PathInfo } from './paths.ts';
import type { UrlInfo } from './urls.ts';
import type { CommandTrait } from './traits.ts';

/** Everything a rule may consult besides the call itself. Built once per call; cheap to build. */
export interface RuleContext {
  cwd: string;
  projectRoot: string;
  home: string;
  /**
   * Resolve and classify a path as the call would see it (relative to cwd, `~` expanded). `literal`: no glob
   * expansion, as file tools take their paths (PathClassifier).
   */
  path(p: string, literal?: boolean): PathInfo;
  /** Parse and classify a URL or bare host. */
  url(u: string): UrlInfo;
  /** Hosts the policy allows for uploads and fetches (exact or `*.suffix`). */
  allowedDomains: readonly string[];
  /**
   * Credential kinds (content/secrets.ts) a trusted policy lets go to hosts (`dlp.allow`), beyond the
   * built-in pairs of rules/dlp.ts. Absent when the policy has none.
   */
  dlpAllow?: readonly { readonly credential: string; readonly hosts: readonly string[] }[];
  /** Branch names treated as the default branch (push there is guarded). */
  defaultBranches: readonly string[];
  /**
   * Globs for resource names treated as production (policy `protectedNames`), added to the built-in ones
   * (rules/mass.ts: prod, production, prd, live); a destructive infrastructure command naming one is hard_deny.
   */
  protectedNames?: readonly string[];
  /** Packages the project declares (package.json, requirements, Cargo.toml…), lower-cased; undefined when unknown. */
  declaredPackages(): ReadonlySet<string> | undefined;
  /**
   * Classify a shell line that the call carries rather than runs now (a CI step, a hook's body, a decoded
   * payload, a command found in inline code) with the same policy and context, so that data is judged by
   * the rules that judge commands. Nested lines are depth-limited (past the limit: `unknown`); outside an
   * engine run (no policy bound to the context) the answer is `unknown`.
   */
  classifyLine(line: string): Classification;
  /**
   * Whether this absolute path (symlinks resolved) is one the agent's session created itself, as the gate
   * recorded from the calls it allowed (gate/session-files.ts); always false without a session.
   */
  createdInSession(abs: string): boolean;
  /**
   * The context the line starts in, for a command that runs elsewhere (after a `cd`: policy/workdir.ts); null
   * in the line's own context. Rules that look at the whole line resolve its other commands' paths there.
   */
  lineStart?: RuleContext | null;
}

/** What a rule reports when it matches: optionally a sharper reason and the piece that matched. */
export interface RuleHit {
  /** Replaces the rule's generic reason, e.g. naming the path at risk. */
  reason?: string;
  /** The piece of the call that matched (a command's text, a path, a URL). */
  subject?: string;
  /** A tier other than the rule's own for this hit (e.g. a rule that is hard for `/` but soft for `~/x`). Policy overrides still win. */
  tier?: Tier;
}

export type RuleResult = RuleHit | boolean | null | undefined;

/** A call used as an example; a bare string is a shell command. */
export type RuleExample = string | { tool: string; input: Record<string, unknown> };

interface RuleBase {
  /** Stable dotted id, `family.action` (e.g. `git.force-push`). Never renamed or reused. */
  id: string;
  tier: Tier;
  /** One line, written to the agent: what is at risk and what to do instead. */
  reason: string;
  /** Calls this rule must match, and near-misses it must not. Both lists are required. */
  examples: { match: RuleExample[]; notMatch: RuleExample[] };
  /**
   * The `match` examples need files on disk that the examples' imaginary machine does not have (a script
   * that is new in the working tree): the pack's example check runs only the `notMatch` ones, and the
   * rule's own tests build the machine for the rest.
   */
  examplesNeedDisk?: boolean;
  /** A rule that no policy layer may set below its own tier (the catastrophic ones). */
  locked?: boolean;
  /** Retired rule: kept so its id is never reused. */
  deprecated?: { since: string; replacedBy?: string };
}

/** A rule that looks at one simple command of a shell line at a time. */
export interface ShellRule extends RuleBase {
  kind: 'shell';
  /**
   * Program names (basename of argv[0], as written and lower-cased) this rule looks at, so the engine
   * calls it only for those. Omit to be called for every command (keep such rules cheap).
   */
  programs?: readonly string[];
  /**
   * For a rule without `programs`: a pre-check. The engine calls `match` only for a command that has one of
   * `traits` (policy/traits.ts) or whose program name is among `programs`. It must follow from the rule's
   * own logic that it cannot match any other command; when in doubt, leave it out (the rule then runs for
   * every command, as without it).
   */
  needs?: { readonly traits?: readonly CommandTrait[]; readonly programs?: readonly string[] };
  match(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis): RuleResult;
}

/** A rule over a whole non-shell tool call (write, edit, read, fetch, mcp, anything else). */
export interface ToolRule extends RuleBase {
  kind: 'tool';
  /** Normalized tool kinds it looks at (`write`, `fetch`, `mcp`, …); omit for all. */
  tools?: readonly string[];
  match(call: ToolCall, ctx: RuleContext): RuleResult;
}

export type Rule = ShellRule | ToolRule;

export function defineShellRule(rule: Omit<ShellRule, 'kind'>): ShellRule {
  return { kind: 'shell', ...rule };
}

export function defineToolRule(rule: Omit<ToolRule, 'kind'>): ToolRule {
  return { kind: 'tool', ...rule };
}
