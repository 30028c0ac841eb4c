// Built-in rules: inline interpreter code (`python -c`, `node -e`, here-docs into an interpreter…), moved out
// of exec.ts (DESIGN §8: split exec.ts by family). The interpreter knowledge (invocation, codeTexts) stays there.

import { defineShellRule, type Rule } from '../rule.ts';
import { cutText as cut, inlineCode, inlineIsHarmless, INTERPRETER_PROGRAMS, invocation, OTHER_CODE_FLAGS, staticStdinText } from './exec.ts';

const INLINE_REASON = 'Inline interpreter code can do anything the user can (delete, read secrets, reach the network); put it in a script file inside the project so it can be reviewed, or ask the user.';

const inlineCode_ = defineShellRule({
  id: 'exec.inline-code',
  // soft: inline code is a common and often legitimate agent habit, but it escapes every command rule; a
  // person (or the judge) reads it. Trivially harmless code (print, JSON munging) is exec.inline-harmless's.
  tier: 'soft_deny',
  reason: INLINE_REASON,
  programs: [...INTERPRETER_PROGRAMS, ...Object.keys(OTHER_CODE_FLAGS)],
  examples: {
    match: [
      'python3 -c "import os; os.remove(\'x\')"',
      'node -e "require(\'fs\').rmSync(\'dist\', {recursive: true})"',
      'perl -e \'unlink glob "*"\'',
      'ruby -e \'File.delete("x")\'',
      'php -r \'unlink("x");\'',
      'python3 - <<\'EOF\'\nimport shutil\nshutil.rmtree("build")\nEOF',
      'Rscript -e \'unlink("data", recursive=TRUE)\'',
      'osascript -e \'tell application "Finder" to delete every item\'',
      'lua -e \'os.remove("x")\'',
      'python3.12 -Ic "import subprocess; subprocess.run([\'ls\'])"',
    ],
    notMatch: ['python3 script.py', 'node index.js', 'python3 -c "print(1 + 2)"', 'perl -pe \'s/foo/bar/g\' file.txt', 'python3 --version'],
  },
  match(cmd, ctx) {
    const inv = invocation(cmd);
    if (!inv || inv.family === 'shell' || inv.infoOnly) return null;
    if (inv.family === 'pwsh' && inv.encoded) return null; // exec.encoded-command
    let code: string | null = null;
    if (inv.codes.length > 0) code = inlineCode(inv);
    else if (inv.stdinCode) {
      const s = cmd.stdin;
      if (s.kind === 'tty' || s.kind === 'file') return null; // a REPL (exec.interactive-shell) or `python < file.py`
      code = staticStdinText(cmd);
    } else if (inv.family === 'ruby' && inv.values.get('r') === 'un') {
      return null; // `ruby -run -e httpd`: net.listener
    } else return null;
    if (code !== null && inlineIsHarmless(inv, code, ctx)) return null;
    return { subject: cut(code ?? cmd.text) };
  },
});

const inlineHarmless = defineShellRule({
  id: 'exec.inline-harmless',
  // soft: code that can only compute and print (a closed list of names and modules, no file, process, network
  // or reflection access) is graded below exec.inline-code but not allowed: issue 2 lists inline interpreter
  // code among what the built-in rules hold back, and a checker of code is never as sure as a reader. The
  // separate id lets a policy allow exactly this class (`rules: { exec.inline-harmless: allow }`).
  tier: 'soft_deny',
  reason: 'Inline code that only seems to compute and print; a person (or the judge) glances at it. Put longer code in a script file in the project.',
  programs: [...INTERPRETER_PROGRAMS, ...Object.keys(OTHER_CODE_FLAGS)],
  examples: {
    match: [
      'python3 -c "print(\'hello\')"',
      'python3 -c "import json,sys; print(json.load(sys.stdin)[\'version\'])"',
      'node -e "console.log(1 + 2)"',
      'node -p "require(\'./package.json\').version"',
      'perl -pe \'s/foo/bar/g\' notes.txt',
      'ruby -e "puts \'ok\'"',
    ],
    notMatch: [
      'python3 -c "print(open(\'/etc/passwd\').read())"',
      'python3 -c "import os; print(os.environ)"',
      'node -e "console.log(process.env)"',
      'node -e "[][\'constructor\'][\'constructor\'](\'return process\')()"',
      'python3 -c "print(f\'{__import__(\\"os\\").getcwd()}\')"',
      'perl -pe \'s/x/`id`/e\' f',
    ],
  },
  match(cmd, ctx) {
    const inv = invocation(cmd);
    if (!inv || inv.family === 'shell' || inv.family === 'pwsh' || inv.infoOnly) return null;
    let code: string | null = null;
    if (inv.codes.length > 0) code = inlineCode(inv);
    else if (inv.stdinCode) code = staticStdinText(cmd);
    if (code === null) return null;
    return inlineIsHarmless(inv, code, ctx) ? { subject: cut(code) } : null;
  },
});

export const rules: Rule[] = [inlineCode_, inlineHarmless];
