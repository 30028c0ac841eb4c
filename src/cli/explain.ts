// `asimov explain`: what the static layer saw in a call and why it decided as it did, for a person.

import { parseArgs } from 'node:util';
import type { Tier } from '../core/types.ts';
import { createGate, resolveTier } from '../gate/gate.ts';
import { classifyShell } from '../policy/classify.ts';
import { extractShellCommand } from '../core/tools.ts';
import { callFromArgs } from './call-args.ts';
import { EXIT, type CliIO } from './io.ts';
import { exitFor } from './check.ts';

export const EXPLAIN_HELP = `Usage:
  asimov explain [--cwd DIR] -- <shell command>
  asimov explain [--cwd DIR] --tool <Name> --input '<json>'

Shows every command found after unwrapping, each rule that matched with its tier, and the decision.
Exit status as for check.
`;

const MARK: Record<Tier, string> = { allow: 'allow    ', unknown: 'unknown  ', soft_deny: 'soft_deny', hard_deny: 'hard_deny' };

export async function explainCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { cwd: { type: 'string' }, tool: { type: 'string' }, input: { type: 'string' }, 'no-person': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.out(EXPLAIN_HELP);
    return EXIT.ok;
  }
  const call = callFromArgs({ tool: values.tool, input: values.input, cwd: values.cwd, command: positionals }, io.cwd);
  const gate = createGate({ audit: false, env: io.env, personAvailable: !values['no-person'] });
  const lines: string[] = [];
  let inspected;
  try {
    inspected = gate.inspect(call);
  } catch {
    const d = gate.decideStatic(call);
    io.out(`Decision: ${d.verdict.toUpperCase()}\n  ${d.reason}\n`);
    return exitFor(d);
  }
  const { classification, policy, ctx } = inspected;
  lines.push(`Tool: ${call.clientTool ?? call.tool}${call.tool !== call.clientTool ? ` (${call.tool})` : ''}`);
  const command = call.tool === 'shell' ? extractShellCommand(call.input) : null;
  if (command !== null) {
    lines.push(`Command: ${command.length > 200 ? `${command.slice(0, 200)}…` : command}`);
    const sc = classifyShell(command, policy, ctx);
    if (sc.analysis.status !== 'ok') {
      lines.push(`Analysis: ${sc.analysis.status}: ${sc.analysis.message ?? ''}`);
    } else {
      lines.push('Commands found (after unwrapping):');
      sc.perCommand.forEach(({ command: c, tier, findings }, i) => {
        const via = c.via.length > 0 ? `  [via ${c.via.join(' → ')}]` : '';
        const where = [c.inSubstitution ? 'in a substitution' : '', c.inFunction ? 'in a function body' : '', c.remote ? 'on a remote host' : ''].filter(Boolean).join(', ');
        lines.push(`  ${String(i + 1).padStart(2)}. ${MARK[tier]}  ${c.text}${via}${where ? `  (${where})` : ''}`);
        for (const f of findings) lines.push(`        ${f.rule} (${f.tier}): ${f.reason}`);
        if (findings.length === 0 && tier === 'unknown') lines.push('        no rule knows this command');
      });
      for (const p of sc.analysis.problems) lines.push(`  note: ${p}`);
    }
  } else {
    lines.push(`Input: ${JSON.stringify(call.input).slice(0, 300)}`);
    lines.push('Rules that matched:');
    if (classification.findings.length === 0) lines.push('  none');
    for (const f of classification.findings) lines.push(`  ${f.rule} (${f.tier}): ${f.reason}`);
  }
  const d = resolveTier(classification, !values['no-person'], 'explain', 0);
  lines.push(`Tier: ${classification.tier}${classification.rule ? ` (${classification.rule})` : ''}`);
  lines.push(`Decision: ${d.verdict.toUpperCase()}: ${d.reason}`);
  lines.push(`Policy: ${policy.sources.map((s) => `${s.layer}${s.path ? ` ${s.path}` : ''}${s.trusted === false ? ' (untrusted)' : ''}`).join(' → ')}`);
  for (const w of policy.warnings) lines.push(`Warning: ${w}`);
  io.out(`${lines.join('\n')}\n`);
  return exitFor(d);
}
