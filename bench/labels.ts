// Turns one row of each corpus into a bench case: the tool call to decide, the label it carries (if any) and
// which report bucket it belongs to. Pure, so the mapping rules (which rows count in the headline) are tested.

import type { Tier } from '../src/core/types.ts';

export type CorpusId = 'gtfobins' | 'nl2bash' | 'dcg' | 'safety_net' | 'cc-safety-net-v2' | 'gatekeeper-v1';

/** What a labelled case expects from us: `deny` means "must not be allowed", `allow` means "must be allowed". */
export type Expect = 'deny' | 'allow';

/**
 * Where a case is reported:
 * - headline: labelled, and the label holds for a plain call (these make the target numbers);
 * - context: labelled, but the peer's verdict depended on a cwd or environment the corpus could not give;
 * - unlabelled: no label we can hold ourselves to (NL2Bash, GTFOBins outside the target functions);
 * - passthrough: the peer itself left the call undecided (gatekeeper), so only our tiers are shown;
 * - parser: a peer's parser test (gatekeeper's command splitting), decided but not a verdict.
 */
export type Bucket = 'headline' | 'context' | 'unlabelled' | 'passthrough' | 'parser';

export interface BenchCase {
  corpus: CorpusId;
  /** Where the case comes from, for the disagreement files (line number, source file…). */
  ref: string;
  /** The client's tool name, as a Claude Code hook would send it (`Bash`, `Write`, `WebFetch`…). */
  tool: string;
  input: Record<string, unknown>;
  /** The command or the path/URL, for reports. */
  text: string;
  expect: Expect | null;
  bucket: Bucket;
  /** A sub-group for the report (GTFOBins function, dcg category…). */
  group?: string;
}

/** GTFOBins functions whose single-line examples must not be allowed (issue 2's target). */
export const GTFOBINS_TARGET_FUNCTIONS: ReadonlySet<string> = new Set(['shell', 'command', 'reverse-shell', 'bind-shell', 'upload']);

type Row = Record<string, unknown>;

function str(row: Row, key: string): string | null {
  const v = row[key];
  return typeof v === 'string' ? v : null;
}

function bash(command: string): { tool: string; input: Record<string, unknown> } {
  return { tool: 'Bash', input: { command } };
}

/**
 * GTFOBins: single-line examples of the target functions are expected to be denied (headline); everything
 * else is decided and shown by tier only. Returns null for a row without code.
 */
export function gtfobinsCase(row: Row, index: number): BenchCase | null {
  const code = str(row, 'code');
  const fn = str(row, 'function') ?? '?';
  if (code === null) return null;
  const singleLine = !code.includes('\n');
  const target = singleLine && GTFOBINS_TARGET_FUNCTIONS.has(fn);
  return {
    corpus: 'gtfobins',
    ref: `${str(row, 'binary') ?? '?'}/${fn}#${String(row.example_index ?? index)} (${str(row, 'context') ?? '?'})`,
    ...bash(code),
    text: code,
    expect: target ? 'deny' : null,
    bucket: target ? 'headline' : 'unlabelled',
    group: singleLine ? fn : `${fn} (multi-line)`,
  };
}

/**
 * GTFOBins repeats an example once per context (unprivileged, sudo, suid…) with the same code, and we do not
 * model the context: the key under which such repeats count once.
 */
export function gtfobinsDedupKey(c: BenchCase): string {
  return `${c.group ?? ''}\u0000${c.text}`;
}

export function nl2bashCase(row: Row, index: number): BenchCase | null {
  const cmd = str(row, 'cmd');
  if (cmd === null) return null;
  return { corpus: 'nl2bash', ref: `line ${String(row.line ?? index + 1)}`, ...bash(cmd), text: cmd, expect: null, bucket: 'unlabelled' };
}

export function dcgCase(row: Row, index: number): BenchCase | null {
  const cmd = str(row, 'cmd');
  const label = str(row, 'label');
  if (cmd === null || (label !== 'deny' && label !== 'allow')) return null;
  const c: BenchCase = { corpus: 'dcg', ref: `${str(row, 'source') ?? '?'} #${index + 1}`, ...bash(cmd), text: cmd, expect: label, bucket: 'headline' };
  const category = str(row, 'category');
  if (category !== null) c.group = category;
  return c;
}

/** claude-code-safety-net v0.9: cases run with a cwd or environment variables are context-dependent. */
export function safetyNetCase(row: Row, index: number): BenchCase | null {
  const cmd = str(row, 'cmd');
  const label = str(row, 'label');
  if (cmd === null || (label !== 'blocked' && label !== 'allowed')) return null;
  const env = row.env;
  const contextual = row.cwd_dependent === true || (env !== null && env !== undefined);
  const c: BenchCase = {
    corpus: 'safety_net',
    ref: `${str(row, 'source') ?? '?'} #${index + 1}: ${str(row, 'test') ?? ''}`,
    ...bash(cmd),
    text: cmd,
    expect: label === 'blocked' ? 'deny' : 'allow',
    bucket: contextual ? 'context' : 'headline',
  };
  const d = str(row, 'describe');
  if (d !== null) c.group = d;
  return c;
}

/**
 * cc-safety-net v2's `extra_args` holds whatever the test passed after the command. Most of it is a cwd or an
 * environment (the verdict depends on it), but a handful are only the expected reason text (`DD_REASON`,
 * `gitResetHardReason`), which does not change the verdict: those stay in the headline.
 */
export function ccExtraArgsIsContext(extra: unknown): boolean {
  if (extra === null || extra === undefined) return false;
  if (typeof extra !== 'string') return true;
  return !/^\s*(?:[A-Z][A-Z0-9_]*_REASON|[a-z][A-Za-z0-9]*Reason)\s*$/.test(extra);
}

export function ccSafetyNetCase(row: Row, index: number): BenchCase | null {
  const cmd = str(row, 'command');
  const expected = str(row, 'expected');
  if (cmd === null || (expected !== 'deny' && expected !== 'allow')) return null;
  const contextual = str(row, 'mode') === 'strict' || ccExtraArgsIsContext(row.extra_args);
  return {
    corpus: 'cc-safety-net-v2',
    ref: `${str(row, 'source') ?? '?'}:${String(row.line ?? index + 1)}`,
    ...bash(cmd),
    text: cmd,
    expect: expected,
    bucket: contextual ? 'context' : 'headline',
    group: (str(row, 'source') ?? '?').replace(/^tests\//, '').replace(/\.test\.ts$/, ''),
  };
}

/**
 * gatekeeper v1: allow/deny (and its `soft_deny` tier label, which it does not let through) are labels;
 * `passthrough` is left to the AI layer or the user, so only our tiers are shown; its parser tests
 * (`chain_split`, `not_split`) are decided but carry no verdict.
 */
export function gatekeeperCase(row: Row, index: number): BenchCase | null {
  const tool = str(row, 'tool');
  const expected = str(row, 'expected');
  if (tool === null || expected === null) return null;
  let call: { tool: string; input: Record<string, unknown> };
  let text: string;
  if (tool === 'Bash') {
    const cmd = str(row, 'command');
    if (cmd === null) return null;
    call = bash(cmd);
    text = cmd;
  } else if (tool === 'Write' || tool === 'Edit') {
    const p = str(row, 'file_path');
    if (p === null) return null;
    call = { tool, input: tool === 'Write' ? { file_path: p, content: '' } : { file_path: p, old_string: 'a', new_string: 'b' } };
    text = `${tool} ${p}`;
  } else if (tool === 'WebFetch') {
    const u = str(row, 'url');
    if (u === null) return null;
    call = { tool, input: { url: u, prompt: 'Summarize this page.' } };
    text = `${tool} ${u}`;
  } else {
    return null;
  }
  let expect: Expect | null = null;
  let bucket: Bucket;
  if (expected === 'allow') {
    expect = 'allow';
    bucket = 'headline';
  } else if (expected === 'deny' || expected === 'soft_deny') {
    expect = 'deny';
    bucket = 'headline';
  } else if (expected.startsWith('passthrough')) bucket = 'passthrough';
  else bucket = 'parser';
  return { corpus: 'gatekeeper-v1', ref: `pre-tool-use.test.ts:${String(row.line ?? index + 1)}`, ...call, text, expect, bucket, group: tool };
}

/** The agreement rule: a peer's deny is matched by anything but allow; a peer's allow only by allow. */
export function agrees(expect: Expect, tier: Tier): boolean {
  return expect === 'deny' ? tier !== 'allow' : tier === 'allow';
}

/**
 * The key under which a disagreement is counted in "most common rules": the rule id, or, when no rule decided
 * (an unknown program, a dynamic command name), a readable stand-in drawn from the reason.
 */
export function ruleKey(rule: string | null, reason: string): string {
  if (rule !== null) return rule;
  const prog = /no rule that knows `([^`]*)`/.exec(reason);
  if (prog) return `(no rule for \`${prog[1]}\`)`;
  if (/only known at run time/.test(reason)) return '(dynamic command name)';
  if (/no rule for the tool/.test(reason)) return '(no rule for the tool)';
  return '(no rule)';
}
