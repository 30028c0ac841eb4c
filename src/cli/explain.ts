// `asimov explain`: what the static layer saw in a call and why it decided as it did, for a person.

import { createGate, resolveTier } from '../gate/gate.ts';
import { classifyShell } from '../policy/classify.ts';
import { extractShellCommand } from '../core/tools.ts';
import { judgeSwitchOn } from '../judge/switch.ts';
import type { EffectivePolicy } from '../policy/layers.ts';
import { callFromArgs } from './call-args.ts';
import { cwdOption } from './cwd-option.ts';
import { parseOptions } from './args.ts';
import { EXIT, type CliIO } from './io.ts';
import { styleOf } from './style.ts';
import { exitFor } from './check.ts';

export const EXPLAIN_HELP = `Usage:
  asimov explain [--cwd DIR] -- <shell command>
  asimov explain [--cwd DIR] --tool <Name> --input '<json>'

Shows every command found after unwrapping, each rule that matched with its tier, and the decision of
the static policy (Layer 1): the judge and the policy's chains, which \`asimov check\` applies, are not
consulted. Exit status as for check.
`;


export async function explainCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { cwd: { type: 'string' }, tool: { type: 'string' }, input: { type: 'string' }, 'no-person': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.out(EXPLAIN_HELP);
    return EXIT.ok;
  }
  const call = callFromArgs({ tool: values.tool, input: values.input, command: positionals }, cwdOption(values.cwd, io.cwd));
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
  const st = styleOf(io);
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
        lines.push(`  ${String(i + 1).padStart(2)}. ${st.verdict(tier)}${' '.repeat(9 - tier.length)}  ${c.text}${via}${where ? `  (${where})` : ''}`);
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
  lines.push(`Decision: ${st.bold(st.verdict(d.verdict.toUpperCase()))}: ${d.reason}`);
  lines.push(layerOneNote(policy, io.env, classification.tier === 'soft_deny' || classification.tier === 'unknown'));
  lines.push(`Policy: ${policy.sources.map((s) => `${s.layer}${s.path ? ` ${s.path}` : ''}${s.trusted === false ? ' (untrusted)' : ''}`).join(' → ')}`);
  for (const w of policy.warnings) lines.push(`Warning: ${w}`);
  io.out(`${lines.join('\n')}\n`);
  return exitFor(d);
}

/**
 * explain shows the static policy's decision (Layer 1) and nothing after it, while `asimov check` goes on
 * to the judge (for soft_deny/unknown calls, when it is on) and the policy's chains: said, so a person does
 * not read an explain "ask" as what check will answer.
 */
function layerOneNote(policy: EffectivePolicy, env: NodeJS.ProcessEnv, judgeable: boolean): string {
  const on = judgeSwitchOn(policy.judge !== undefined, env);
  const judge = on ? `the judge (on here${judgeable ? ', and it would review this call' : ''})` : 'the judge (off here)';
  const chains = policy.chains && policy.chains.length > 0 ? ' and the policy\'s chains' : '';
  return `Layer 1 only: ${judge}${chains} ${chains ? 'are' : 'is'} not consulted by explain; \`asimov check\` applies ${chains ? 'them' : 'it'}.`;
}
