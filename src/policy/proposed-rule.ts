// The policy rule an "always" answer proposes: a custom `allow` rule for exactly the approved call, written
// as YAML a person can review and add to a policy file. It is only ever shown: asimov never adds a rule on
// its own, since an approval given in a hurry must not widen the policy silently.

import { stringify } from 'yaml';
import { extractPaths, extractShellCommand, extractUrl } from '../core/tools.ts';
import { sha256Hex } from '../core/lazy.ts';

export interface ProposalInput {
  tool: string;
  clientTool: string | null;
  /** The call's input as the approval shows it (redacted: a secret never reaches a proposed rule). */
  input: Record<string, unknown>;
  /** The rule that made the call ask; an allow rule has to switch it off to take effect. */
  rule: string | null;
  by: string;
  reason: string | null;
  at: Date;
}

/** The YAML of one `custom:` item (`- id: …`), ready to paste under `custom:` in a policy file. */
export function proposedRuleYaml(p: ProposalInput): string {
  const example = exampleOf(p);
  const match = matchOf(p);
  const rule: Record<string, unknown> = {
    id: `local.approved-${slug(p.tool)}-${sha256Hex(JSON.stringify([p.tool, p.clientTool, p.input])).slice(0, 8)}`,
    tier: 'allow',
    reason: `Approved always by ${p.by} on ${p.at.toISOString().slice(0, 10)}${p.reason ? `: ${p.reason}` : ''}`,
    match,
  };
  // Only a rule of the policy (not a chain's verdict) can be switched off by name.
  if (p.rule !== null && !p.rule.startsWith('chain:')) rule.overrides = [p.rule];
  rule.examples = { match: [example] };
  const header = '# Proposed by an "always" approval; review it, then add it under `custom:` in a policy file.\n';
  return header + stringify([rule], { lineWidth: 0 });
}

function matchOf(p: ProposalInput): Record<string, unknown> {
  if (p.tool === 'shell') {
    const command = extractShellCommand(p.input);
    if (command !== null) return { pattern: `^${escapeRegExp(command)}$` };
  }
  if (p.tool === 'write' || p.tool === 'edit' || p.tool === 'read') {
    const paths = extractPaths(p.tool, p.input);
    if (paths.length > 0) return { tools: [p.tool], path: paths };
  }
  if (p.tool === 'fetch') {
    const url = extractUrl(p.input);
    if (url !== null) return { tools: ['fetch'], url: [url] };
  }
  return { tool: [p.clientTool ?? p.tool] };
}

function exampleOf(p: ProposalInput): unknown {
  if (p.tool === 'shell') {
    const command = extractShellCommand(p.input);
    if (command !== null) return command;
  }
  return { tool: p.clientTool ?? p.tool, input: p.input };
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'call';
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
