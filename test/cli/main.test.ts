// The `asimov` command's own dispatch (src/cli/main.ts), run as the built binary: a mistyped command,
// subcommand or option gets "did you mean", exit 1 and no stack trace.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliScratch, noStackTrace } from '../helpers/asimov-cli.ts';

const s = cliScratch('asimov-main-');

describe('did you mean', () => {
  const cases: [string[], RegExp][] = [
    [['chek', '--', 'ls'], /^asimov: unknown command 'chek' \(did you mean 'check'\?\)/],
    [['polcy'], /did you mean 'policy'\?/],
    [['frobnicate'], /^asimov: unknown command 'frobnicate'\. Run 'asimov --help'/],
    [['check', '--jsn', '--', 'ls'], /^asimov check: unknown option --jsn \(did you mean --json\?\)\n/],
    [['rules', '--buitlin'], /unknown option --buitlin \(did you mean --builtin\?\)/],
    [['audit', 'tial'], /unknown audit command 'tial' \(did you mean 'tail'\?\)/],
    [['audit', 'tail', '--verdcit', 'deny'], /unknown option --verdcit \(did you mean --verdict\?\)/],
    [['daemon', 'statu'], /unknown daemon command 'statu' \(did you mean 'status'\?\)/],
    [['judge', 'evl'], /unknown judge command 'evl' \(did you mean 'eval'\?\)/],
    [['wire', '--lst'], /^asimov wire: unknown option --lst \(did you mean --list\?\)\n/],
    [['uninstall', '--purg'], /unknown option --purg \(did you mean --purge\?\)/],
    [['mcp', 'alow', 'x'], /^asimov mcp: unknown mcp command 'alow' \(did you mean 'allow'\?\)/],
    [['mcp', 'scan', '--jsn'], /unknown option --jsn \(did you mean --json\?\)/],
    [['wire', 'claude', '--cwd', '/nonexistent/asimov-dir'], /--cwd \/nonexistent\/asimov-dir: no such directory/],
    // A command that does not parse through parseOptions (hook, on every tool call) keeps main.ts's rewording.
    [['hook', 'claude', '--bogus'], /^asimov hook: unknown option --bogus\n/],
  ];
  for (const [args, message] of cases) {
    test(`asimov ${args.join(' ')}`, () => {
      const r = s.run(args);
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(r.err, message);
      assert.doesNotMatch(r.err, /To specify a positional argument/);
      noStackTrace(r);
    });
  }
});
