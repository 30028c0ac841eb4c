// The contracts every layer shares: what a tool call is, how bad a finding is, what the gate answers.

/**
 * Layer 1's verdict on a call, ordered from least to most severe. A compound call (a shell line
 * with several commands, an MCP call with several paths) takes the most severe tier of its parts.
 */
export type Tier = 'allow' | 'unknown' | 'soft_deny' | 'hard_deny';

export const TIER_ORDER: readonly Tier[] = ['allow', 'unknown', 'soft_deny', 'hard_deny'];

const RANK: Readonly<Record<Tier, number>> = { allow: 0, unknown: 1, soft_deny: 2, hard_deny: 3 };

export function tierRank(t: Tier): number {
  return RANK[t];
}

/** The more severe of two tiers. */
export function maxTier(a: Tier, b: Tier): Tier {
  return tierRank(a) >= tierRank(b) ? a : b;
}

export function isTier(x: unknown): x is Tier {
  return typeof x === 'string' && (TIER_ORDER as readonly string[]).includes(x);
}

/** What the gate finally answers. `ask` means a person must decide. */
export type Verdict = 'allow' | 'deny' | 'ask';

/**
 * Tool kinds normalized across clients. Anything a client calls that we do not recognise keeps its
 * raw name and is classified as `unknown`, never `allow`.
 */
export type ToolKind = 'shell' | 'write' | 'edit' | 'read' | 'fetch' | 'search' | 'mcp';

/** One proposed action of an agent, in the client-independent form the gate understands. */
export interface ToolCall {
  /** Normalized kind, or the client's raw tool name when we do not know it. */
  tool: ToolKind | string;
  /** The client's own tool name (`Bash`, `run_shell_command`, `mcp__github__create_issue`), kept for the audit. */
  clientTool?: string;
  /** The tool's arguments as the client sent them. */
  input: Record<string, unknown>;
  /** Directory the call runs in; relative paths resolve against it. */
  cwd: string;
  /** Root of the project the agent works in; "inside the project" is relative to it. Defaults to cwd. */
  projectRoot?: string;
  /** Which client or adapter proposed the call (`claude-code`, `cli`, `mcp-proxy`, …). */
  agent?: string;
  sessionId?: string;
  /** The client's id for this one call (Claude Code's tool_use_id), for the audit. */
  callId?: string;
  /** The user's own latest request, only where the client provides it; only the judge reads it. */
  intent?: string;
  /**
   * Where the user's own requests can be read (a Claude Code transcript), for the judge alone: read only
   * when the judge is actually asked and the policy enables `judge.sendUserRequest`.
   */
  intentSource?: { kind: 'claude-transcript'; path: string };
}

/** One rule that matched, with what it matched on. A finding is kept even when a stricter one wins. */
export interface Finding {
  rule: string;
  tier: Tier;
  reason: string;
  /** The piece of the call that matched: a command segment, a path, a URL. */
  subject?: string;
  /** Which policy layer set this tier (`builtin`, a file path) when it differs from the rule's default. */
  source?: string;
}

/** Layer 1's full answer for one call: the combined tier and every finding behind it. */
export interface Classification {
  tier: Tier;
  /** Every rule that matched, most severe first. Empty when the tier comes from the default. */
  findings: Finding[];
  /** The reason for the combined tier: the top finding's, or why the call is `allow`/`unknown`. */
  reason: string;
  /** The rule id behind the combined tier, or null when no rule decided it. */
  rule: string | null;
  /** What the static analysis saw, for `explain` and the audit (commands after unwrapping, paths, URLs). */
  subjects?: string[];
}

/** Which layer settled the verdict: Layer 1, the judge, an external chain from the policy, or a failure. */
export type DecisionLayer = 'static' | 'judge' | 'chain' | 'error';

/** The gate's answer to one call (DESIGN §2). */
export interface Decision {
  verdict: Verdict;
  tier: Tier;
  rule: string | null;
  reason: string;
  layer: DecisionLayer;
  /** Wall time the gate spent on this call, in milliseconds. */
  ms: number;
  /** Every finding behind the tier; empty for errors. */
  findings: Finding[];
  /** Stable id of this decision, also written to the audit log so a caller can find its entry. */
  decisionId: string;
  /** Machine-readable failure code when layer is `error`, or why the judge could not settle the call (`judge_timeout`…). */
  errorCode?: string;
  /** When the question went to a person on call (policy `approvals:`): the approval and its answer. */
  approval?: DecisionApproval;
}

/** A person on call's part in a decision (gate/approver.ts); the audit record keeps it as `approval`. */
export interface DecisionApproval {
  /** The approval's id on the approvals server, or null when none could be created. */
  id: string | null;
  /** Who answered; null when nobody did (timeout, unreachable server, error). */
  by: string | null;
  scope: 'once' | 'session' | 'always' | null;
  verdict: 'allow' | 'deny';
  /** The answerer's reason, or the cause when nobody answered. */
  reason: string | null;
}
