// `asimov rules`: the rules in effect, with ids, tiers and reasons; `--markdown` writes the rule reference.

import { createGate } from '../gate/gate.ts';
import { recommended } from '../policy/rules/index.ts';
import { rulesMarkdown } from '../policy/rules-doc.ts';
import { cwdOption } from './cwd-option.ts';
import { parseOptions } from './args.ts';
import { EXIT, type CliIO } from './io.ts';
import { styleOf, table } from './style.ts';

export const RULES_HELP = `Usage: asimov rules [--cwd DIR] [--json | --markdown] [--builtin]

Lists the rules in effect for DIR (built-in and custom, with tiers after every policy layer), or with
--builtin the built-in pack as shipped. --markdown prints the rule reference (docs/rules.md).
`;

export async function rulesCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseOptions({
    args: argv,
    options: { cwd: { type: 'string' }, json: { type: 'boolean' }, markdown: { type: 'boolean' }, builtin: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.out(RULES_HELP);
    return EXIT.ok;
  }
  if (values.markdown) {
    io.out(rulesMarkdown(recommended));
    return EXIT.ok;
  }
  const rules = values.builtin ? recommended : createGate({ audit: false, env: io.env }).policyFor(cwdOption(values.cwd, io.cwd)).rules;
  const seen = new Set<string>();
  const list = rules.filter((r) => !seen.has(r.id) && seen.add(r.id));
  if (values.json) {
    io.out(`${JSON.stringify(list.map((r) => ({ id: r.id, tier: r.tier, locked: r.locked === true, kind: r.kind, reason: r.reason, examples: r.examples })))}\n`);
    return EXIT.ok;
  }
  const st = styleOf(io);
  const rows = list.map((r) => [r.id, st.verdict(r.tier), r.locked ? st.dim('locked') : '', r.reason]);
  io.out(`${table(rows, { head: ['RULE', 'TIER', '', 'REASON'], style: st })}\n`);
  return EXIT.ok;
}
