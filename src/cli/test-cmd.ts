// `asimov test [FILE…]`: runs the `tests:` of the policy files in effect (or of the given files)
// against the real classifier, and says which failed and where.

import { basename, dirname, resolve } from 'node:path';
import { createGate } from '../gate/gate.ts';
import { runExample } from '../policy/examples.ts';
import { findProjectRoot, loadPolicy } from '../policy/load.ts';
import { collectTests, runPolicyTests } from '../policy/policy-tests.ts';
import { normalizeTool } from '../core/tools.ts';
import { cwdOption } from './cwd-option.ts';
import { parseOptions } from './args.ts';
import { EXIT, type CliIO } from './io.ts';

export const TEST_HELP = `Usage: asimov test [--cwd DIR] [--json] [FILE…]

Runs every \`tests:\` entry of the policy files in effect for DIR (default: the current directory), or of
the given policy files (each used as its project's policy). Exit status: 0 all passed, 2 a test failed,
1 a policy file could not be loaded.
`;

export async function testCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { cwd: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.out(TEST_HELP);
    return EXIT.ok;
  }
  const cwd = cwdOption(values.cwd, io.cwd);
  const targets = positionals.length > 0 ? positionals.map((f) => resolve(io.cwd, f)) : [undefined];
  let failed = 0;
  let total = 0;
  const report: unknown[] = [];
  for (const file of targets) {
    const projectRoot = file === undefined ? findProjectRoot(cwd) : projectOf(file);
    const policy = loadPolicy({ cwd: projectRoot, projectRoot, env: io.env, exampleRunner: runExample, ...(file ? { projectPath: file } : {}) });
    const tests = collectTests(policy).filter((t) => file === undefined || resolve(t.file) === file);
    const gate = createGate({ policy, audit: false, env: io.env });
    const results = runPolicyTests(tests, (call) => {
      // Tests name tools as clients do (`Write`) or by kind (`write`); the gate wants the kind.
      const full = call.tool === 'shell' ? call : { ...call, tool: normalizeTool(call.tool, call.input).tool, clientTool: call.tool };
      const d = gate.decideStatic(full);
      return { tier: d.tier, verdict: d.verdict, rule: d.rule };
    });
    for (const r of results) {
      total++;
      if (!r.pass) failed++;
      if (values.json) report.push({ where: r.where, pass: r.pass, expected: r.expected, got: r.got ?? null, message: r.message });
      else io.out(`${r.pass ? 'ok  ' : 'FAIL'} ${r.message}\n`);
    }
    for (const w of policy.warnings) if (!values.json) io.err(`warning: ${w}\n`);
  }
  if (values.json) io.out(`${JSON.stringify({ total, failed, results: report })}\n`);
  else io.out(total === 0 ? 'no tests: found in the policy files\n' : `${total - failed} passed, ${failed} failed\n`);
  return failed > 0 ? EXIT.failed : EXIT.ok;
}

/** The project a policy file belongs to: the parent of `.asimov/`, or the file's own directory. */
function projectOf(file: string): string {
  const dir = dirname(file);
  return basename(dir) === '.asimov' ? dirname(dir) : dir;
}
