// `asimov trust`: records the exact content of a project policy as trusted, so that it may loosen rules.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findProjectRoot, parsePolicyText, readPolicyBytes, PROJECT_POLICY } from '../policy/load.ts';
import { listTrusted, trustFile, untrustFile } from '../policy/trust.ts';
import { cwdOption } from './cwd-option.ts';
import { parseOptions } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

export const TRUST_HELP = `Usage:
  asimov trust [FILE]            trust the project policy (default: .asimov/policy.yaml of this project),
                                 or the project's ground rules for the judge (.asimov/ground-rules.md)
  asimov trust --revoke [FILE]   withdraw trust
  asimov trust --list            list trusted files and whether they changed since

A project policy may always tighten rules. Loosening (lowering a tier, allow rules, allowedDomains, judge)
takes effect only once you have trusted its exact content: any later edit withdraws trust, because a cloned
repository or the agent itself could have written the file. The same holds for a project's ground rules:
until trusted, the judge uses your own (~/.config/asimov/ground-rules.md) or the built-in ones. Read the
file before you trust it.
`;

export async function trustCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { list: { type: 'boolean' }, revoke: { type: 'boolean' }, cwd: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.out(TRUST_HELP);
    return EXIT.ok;
  }
  const cwd = cwdOption(values.cwd, io.cwd);
  const opts = { env: io.env };
  if (values.list) {
    const entries = listTrusted(opts);
    if (entries.length === 0) io.out('nothing trusted yet\n');
    for (const e of entries) io.out(`${e.status.padEnd(8)} ${e.path}\n`);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError('give at most one policy file');
  const file = positionals[0] !== undefined ? resolve(io.cwd, positionals[0]) : join(findProjectRoot(cwd), PROJECT_POLICY);
  if (values.revoke) {
    io.out(untrustFile(file, opts) ? `no longer trusted: ${file}\n` : `was not trusted: ${file}\n`);
    return EXIT.ok;
  }
  if (!existsSync(file)) {
    io.err(`asimov trust: no policy file at ${file}\n`);
    return EXIT.error;
  }
  // Trusting a file that does not even load would only hide the error until the next call. Ground rules
  // (markdown for the judge) have no syntax to check.
  if (!file.endsWith('.md')) {
    const bytes = readPolicyBytes(file);
    if (bytes !== undefined) parsePolicyText(bytes, file);
  }
  const r = trustFile(file, opts);
  io.out(`trusted ${r.path} (sha256 ${r.sha256.slice(0, 12)}…). Any edit withdraws trust.\n`);
  return EXIT.ok;
}
