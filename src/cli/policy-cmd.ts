// `asimov policy`: which policy files are in effect for a directory, whether they are trusted, what
// they change, whether the judge is on, the chains, the hook approvals, and any warning about them
// (ignored untrusted loosening, locked rules). Readable by default; --json for machines.

import { homedir } from 'node:os';
import { createGate } from '../gate/gate.ts';
import type { EffectivePolicy } from '../policy/layers.ts';
import { describeTeamPolicy, type TeamPolicyState } from '../policy/team-cache.ts';
import { cwdOption } from './cwd-option.ts';
import { parseOptions } from './args.ts';
import { EXIT, type CliIO } from './io.ts';
import { policyFacts, type PolicyFacts } from './policy-facts.ts';
import { styleOf, table, type Style } from './style.ts';

export const POLICY_HELP = `Usage: asimov policy [--cwd DIR] [--json]

Shows the policy layers in effect for DIR (built-in, user, project, managed, and the team server's policy
when \`audit.remote\` names one: its version and age, or why only local layers apply), their trust and what each
changes, the tiers they set, whether the judge is on (provider, model, and why), protected paths,
allowed domains, chains, hook approvals for asimov's own MCP tools, MCP settings, and warnings.
--json prints the same facts as one JSON object. Exit status 1 when a policy file is broken.
`;

export async function policyCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseOptions({ args: argv, options: { cwd: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    io.out(POLICY_HELP);
    return EXIT.ok;
  }
  const p = createGate({ audit: false, env: io.env }).policyFor(cwdOption(values.cwd, io.cwd));
  const facts = policyFacts(p, io.env);
  const overridden = [...p.overridden].map(([id, s]) => ({ id, ...s }));
  if (values.json) {
    io.out(`${JSON.stringify({
      projectRoot: p.projectRoot, sources: p.sources, layers: facts.layers, overridden,
      protectedPaths: p.protectedPaths, allowedDomains: p.allowedDomains, defaultBranches: p.defaultBranches,
      judge: p.judge ?? null, judgeOn: facts.judge.on, judgeState: facts.judge,
      chains: p.chains ?? [], hookApprovals: facts.hookApprovals,
      mcp: p.mcp ?? null, tools: p.gatedTools ?? null, team: teamJson(p.team), tests: p.tests.length, warnings: p.warnings, hash: p.hash,
    })}\n`);
    return EXIT.ok;
  }
  io.out(formatPolicy(p, facts, overridden, styleOf(io), io.env.HOME || homedir()));
  return EXIT.ok;
}

/** The team policy's state for --json: the ground rules' size rather than their text, and the line people see. */
function teamJson(t: TeamPolicyState | undefined): Record<string, unknown> | null {
  if (!t) return null;
  const { groundRules, ...rest } = t;
  return { ...rest, groundRulesBytes: groundRules === undefined ? 0 : Buffer.byteLength(groundRules), summary: describeTeamPolicy(t) };
}

/** A path under HOME as `~/…`, so the table stays narrow. */
function short(path: string, home: string): string {
  return home && home !== '/' && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function formatPolicy(p: EffectivePolicy, facts: PolicyFacts, overridden: { id: string; tier: string; source: string; layer: string }[], st: Style, home: string): string {
  const out: string[] = [];
  const heading = (s: string): void => {
    out.push('', st.bold(s));
  };
  out.push(`${st.bold('Policy for')} ${p.projectRoot}`);

  heading('Layers (lowest first)');
  out.push(table(facts.layers.map((l) => [
    l.layer, short(l.path, home), l.trusted ? st.green('yes') : st.yellow('no'), l.changes.join(', ') || st.dim('nothing rule-level'),
  ]), { head: ['KIND', 'PATH', 'TRUSTED', 'CHANGES'], style: st, indent: '  ' }));

  if (p.team) {
    heading('Team policy (the team server\'s managed layer: audit.remote)');
    const line = describeTeamPolicy(p.team);
    out.push(`  ${p.team.applied ? (p.team.error !== undefined ? st.yellow(line) : st.green(line)) : st.yellow(line)}`);
    if (p.team.applied && p.team.groundRules !== undefined) out.push(`  its ground rules are appended to the judge's (${Buffer.byteLength(p.team.groundRules)} bytes)`);
  }

  heading('Rules');
  out.push(`  ${new Set(p.rules.map((r) => r.id)).size} rules in effect; ${overridden.length === 0 ? 'no tier set by a policy file' : 'tiers set by policy files:'}`);
  if (overridden.length > 0) {
    out.push(table(overridden.map((o) => [o.id, st.verdict(o.tier), `${o.layer} ${short(o.source, home)}`]), { head: ['RULE', 'TIER', 'SET BY'], style: st, indent: '    ' }));
  }

  heading('Judge (Layer 2: reviews soft_deny and unknown calls)');
  const j = facts.judge;
  if (j.on) {
    out.push(`  ${st.green('on')}: ${j.provider} ${j.model}${j.baseUrl ? ` at ${j.baseUrl}` : ''}; when unsure: ${j.onUncertain}`);
  } else {
    out.push(`  ${st.dim('off')}`);
  }
  out.push(`  why: ${j.why}`);

  heading('Chains (external commands after the judge, in the order they run)');
  if (!p.chains?.length) out.push(`  ${st.dim('none')}`);
  else {
    out.push(table(p.chains.map((c) => [c.tools.join(','), `${c.timeoutMs} ms${c.optional ? ', optional' : ''}`, short(c.source, home), c.command]), {
      head: ['TOOLS', 'TIMEOUT', 'FROM', 'COMMAND'], style: st, indent: '  ',
    }));
  }

  heading('Hook approvals (asimov\'s own MCP tools skip a second decision on a call the hook allowed)');
  out.push(`  ${facts.hookApprovals.on ? st.green('on') : st.dim('off')}: ${facts.hookApprovals.why}`);

  heading('Protected paths (writes there are soft_deny at least)');
  // A file is protected with what lies below it (`x` and `x/**`): one line for both.
  const paths = p.protectedPaths.filter((x) => !(x.endsWith('/**') && p.protectedPaths.includes(x.slice(0, -3))));
  out.push(...(paths.length > 0 ? paths.map((x) => `  ${short(x, home)}`) : [`  ${st.dim('none')}`]));

  heading('Hosts and branches');
  out.push(table([
    ['allowed domains', p.allowedDomains.join(', ') || st.dim('none')],
    ['default branches', p.defaultBranches.join(', ')],
  ], { indent: '  ' }));

  if (p.mcp || p.gatedTools) {
    heading('MCP');
    const rows: string[][] = [];
    if (p.mcp) rows.push(['proxy shell tools', p.mcp.shellTools.join(', ') || 'none'], ['proxy roots', p.mcp.roots.join(', ') || 'the project root only']);
    if (p.gatedTools) {
      const g = p.gatedTools;
      rows.push(['gated tools', `timeout ${g.timeoutMs} ms, output up to ${g.maxOutputBytes} bytes`]);
      rows.push(['gated tools env', g.env.join(', ') || 'the built-in allowlist only'], ['gated tools roots', g.roots.join(', ') || 'the working directory only']);
    }
    out.push(table(rows, { indent: '  ' }));
  }

  heading('Tests');
  out.push(`  ${p.tests.length} in the policy files (\`asimov test\` runs them)`);

  if (p.warnings.length > 0) {
    heading(st.yellow(`Warnings (${p.warnings.length})`));
    for (const w of p.warnings) out.push(`  - ${w}`);
  }
  out.push('', st.dim(`Policy hash: ${p.hash}`));
  return `${out.join('\n')}\n`;
}
