// `asimov doctor`: checks that a client really runs asimov before every tool call here, and says what to fix.

import { parseArgs } from 'node:util';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { createGate } from '../gate/gate.ts';
import { findProjectRoot } from '../policy/load.ts';
import { doctorClaude, type CheckStatus } from '../wire/doctor.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

const USAGE = `Usage: asimov doctor [claude] [--cwd DIR] [--json]

Checks, for Claude Code in DIR (default: the current directory): that asimov's hooks are installed in a
settings file Claude Code reads there and cover every tool; that nothing switches hooks off; that the
installed command line runs and blocks a dangerous call; that the client's timeout outlasts asimov's
deadline; and that the policy loads. Ends with a verdict. Exit status 0 when protected, 1 when not.
`;

const MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗', info: '·' };

export async function doctorCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { cwd: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  const client = positionals[0] ?? 'claude';
  if (client !== 'claude' || positionals.length > 1) throw new UsageError(`doctor checks Claude Code only for now ('claude'), not '${positionals.join(' ')}'`);
  const cwd = resolve(io.cwd, values.cwd ?? '.');
  const home = io.env.HOME || homedir();
  const report = await doctorClaude({
    home,
    cwd,
    projectRoot: findProjectRoot(cwd),
    env: io.env,
    loadPolicy: () => {
      const p = createGate({ audit: false, env: io.env, home }).policyFor(cwd);
      const files = p.sources.filter((s) => s.layer !== 'builtin').map((s) => `${s.layer} ${s.path}${s.trusted ? '' : ' (untrusted)'}`);
      return `${files.length === 0 ? 'built-in rules only' : `built-in + ${files.join(', ')}`}; project root ${p.projectRoot}${p.warnings.length ? `; ${p.warnings.length} warning(s), see \`asimov policy\`` : ''}`;
    },
  });
  if (values.json) {
    io.out(`${JSON.stringify(report)}\n`);
    return report.protected ? EXIT.ok : EXIT.error;
  }
  const lines = [`asimov doctor: Claude Code in ${cwd}`];
  for (const c of report.checks) {
    lines.push(`  ${MARK[c.status]} ${c.title}`);
    if (c.detail) lines.push(...c.detail.split('\n').map((l) => `      ${l}`));
    if (c.fix) lines.push(`      fix: ${c.fix}`);
  }
  lines.push('', report.verdict);
  io.out(`${lines.join('\n')}\n`);
  return report.protected ? EXIT.ok : EXIT.error;
}
