// Files that ARE a script: git and husky hooks, .envrc, shell init files, PATH programs, cron.daily entries,
// Buildkite agent hooks. The whole file is one command line for the shell engine (it parses multi-line
// scripts), without its shebang. A shebang naming another interpreter (python, node, perl, …) returns no
// shell command and says which interpreter: the policy side decides what an unread script is worth. fish
// files are returned line by line, marked lang 'fish' (fish is not POSIX; simple lines read the same).

import { readShebang, type Collector } from './util.ts';

/**
 * `sourced`: the file is read by a shell, not executed (.envrc by direnv, shell init files, husky v9 hooks run
 * as `sh -e <hook>`): its #! line is only a comment, whatever interpreter it names.
 */
export function extractScript(text: string, out: Collector, fish = false, sourced = false): void {
  const bang = readShebang(text);
  if (bang && bang.interpreter === 'fish' && !sourced) fish = true;
  if (bang && !sourced && bang.interpreter !== 'sh' && bang.interpreter !== 'fish') {
    out.interpreter = bang.interpreter;
    return;
  }
  const body = bang ? text.slice(bang.line.length).replace(/^\n/, '') : text;
  // A #! line that passes the shell a -c script runs that script (with the file as $0).
  if (bang && /\s-[a-z]*c\b/.test(bang.line)) out.command(bang.line.slice(2).trim(), 'the #! line');
  if (fish) {
    out.interpreter = 'fish';
    const lines = body.split('\n');
    const offset = bang ? 2 : 1;
    for (let i = 0; i < lines.length && !out.full; i++) {
      const l = lines[i]!.trim();
      if (l === '' || l.startsWith('#')) continue;
      // Block keywords carry no command; `if`/`while`/`and`/`or`/`not` prefix one.
      if (/^(?:end|else|begin|function\b.*|case\b.*|switch\b.*)$/.test(l)) continue;
      const cmd = l.replace(/^(?:(?:else\s+)?if|while|and|or|not)\s+/, '');
      out.command(cmd, `line ${i + offset} (fish)`, 'fish');
    }
    return;
  }
  out.command(body, bang ? `the whole file (after its #! line${sourced && bang.interpreter !== 'sh' ? ', a comment here: the file is sourced by a shell' : ''})` : 'the whole file');
}
