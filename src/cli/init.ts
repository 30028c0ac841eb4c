// `asimov init`: writes a commented starter `.asimov/policy.yaml` and `.asimov/ground-rules.md`.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STARTER_GROUND_RULES, STARTER_POLICY } from '../policy/starter.ts';
import { cwdOption } from './cwd-option.ts';
import { parseOptions } from './args.ts';
import { EXIT, type CliIO } from './io.ts';

export const INIT_HELP = `Usage: asimov init [--cwd DIR] [--force]

Writes DIR/.asimov/policy.yaml (every key shown, commented) and DIR/.asimov/ground-rules.md.
Existing files are kept unless --force is given.
`;

export async function initCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseOptions({ args: argv, options: { cwd: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    io.out(INIT_HELP);
    return EXIT.ok;
  }
  const dir = join(cwdOption(values.cwd, io.cwd), '.asimov');
  mkdirSync(dir, { recursive: true });
  let kept = 0;
  for (const [name, text] of [['policy.yaml', STARTER_POLICY], ['ground-rules.md', STARTER_GROUND_RULES]] as const) {
    const file = join(dir, name);
    if (existsSync(file) && !values.force) {
      io.out(`kept     ${file} (exists; --force overwrites)\n`);
      kept++;
      continue;
    }
    writeFileSync(file, text);
    io.out(`wrote    ${file}\n`);
  }
  if (kept < 2) io.out('Edit the policy, then run `asimov test` to check it. A project policy that loosens rules needs `asimov trust`.\n');
  return EXIT.ok;
}
