// `asimov policy`: which policy files are in effect for a directory, whether they are trusted, what
// they change, and any warning about them (ignored untrusted loosening, locked rules).

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { createGate } from '../gate/gate.ts';
import { EXIT, type CliIO } from './io.ts';

export const POLICY_HELP = `Usage: asimov policy [--cwd DIR] [--json]

Shows the policy layers in effect for DIR (built-in, user, project, managed), their trust, the tiers
they set, protected paths, allowed domains, chains, MCP settings, and warnings. Exit status 1 when a
policy file is broken.
`;

export async function policyCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { cwd: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    io.out(POLICY_HELP);
    return EXIT.ok;
  }
  const p = createGate({ audit: false, env: io.env }).policyFor(resolve(io.cwd, values.cwd ?? '.'));
  const overridden = [...p.overridden].map(([id, s]) => ({ id, ...(s as object) }));
  if (values.json) {
    io.out(`${JSON.stringify({ projectRoot: p.projectRoot, sources: p.sources, overridden, protectedPaths: p.protectedPaths, allowedDomains: p.allowedDomains, defaultBranches: p.defaultBranches, judge: p.judge ?? null, chains: p.chains ?? [], mcp: p.mcp ?? null, tools: p.gatedTools ?? null, tests: p.tests.length, warnings: p.warnings, hash: p.hash })}\n`);
    return EXIT.ok;
  }
  const lines = [`Project root: ${p.projectRoot}`, 'Layers (lowest first):'];
  for (const s of p.sources) lines.push(`  ${JSON.stringify(s)}`);
  lines.push(`Rules: ${new Set(p.rules.map((r) => r.id)).size}; tiers set by policy files: ${overridden.length === 0 ? 'none' : ''}`);
  for (const o of overridden) lines.push(`  ${JSON.stringify(o)}`);
  lines.push(`Protected paths: ${p.protectedPaths.join(', ') || 'none'}`);
  lines.push(`Allowed domains: ${p.allowedDomains.join(', ') || 'none'}`);
  lines.push(`Default branches: ${p.defaultBranches.join(', ')}`);
  lines.push(p.chains?.length ? 'Chains, in the order they run:' : 'Chains: none');
  for (const c of p.chains ?? []) lines.push(`  [${c.tools.join(', ')}] ${c.command} (${c.timeoutMs} ms${c.optional ? ', optional' : ''}; ${c.source})`);
  if (p.mcp) lines.push(`MCP proxy: ${JSON.stringify(p.mcp)}`);
  if (p.gatedTools) lines.push(`Gated MCP tools: ${JSON.stringify(p.gatedTools)}`);
  lines.push(`Tests: ${p.tests.length}`);
  for (const w of p.warnings) lines.push(`Warning: ${w}`);
  lines.push(`Policy hash: ${p.hash}`);
  io.out(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
