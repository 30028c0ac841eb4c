// Built-in rules: obfuscation family — commands whose name or code is only known at run time or is
// written so as to slip past pattern matching: dynamic names, eval of non-literal strings, glob-built names,
// redefined common commands, IFS tricks, escaped or quoted-apart names.

import type { Analysis, SimpleCommand } from '../../shell/types.ts';
import { defineShellRule, type Rule } from '../rule.ts';
import { programName, staticValue } from '../../shell/program.ts';
import { cutText, effectiveStdin, invocation, wrapperIds } from './exec.ts';
import { isStdinPath, makefileWords } from '../../shell/payload-sinks.ts';

/** Commands people and tools rely on by name: redefining one changes what every later line does. */
const COMMON_COMMANDS = new Set([
  'ls', 'cd', 'cat', 'echo', 'printf', 'git', 'rm', 'sudo', 'cp', 'mv', 'grep', 'find', 'curl', 'wget', 'python',
  'python3', 'node', 'npm', 'npx', 'pnpm', 'yarn', 'make', 'test', '[', 'pwd', 'read', 'source', '.', 'exec', 'eval',
  'command', 'builtin', 'type', 'which', 'kill', 'ssh', 'scp', 'tar', 'chmod', 'chown', 'sh', 'bash', 'zsh', 'env',
  'export', 'set', 'unset', 'cargo', 'go', 'pip', 'pip3', 'docker', 'kubectl', 'head', 'tail', 'sed', 'awk', 'less',
  'more', 'vim', 'vi', 'code', 'open', 'man', 'true', 'false', 'exit', 'return', 'trap', 'alias', 'unalias', 'declare',
  'local', 'mkdir', 'touch', 'ln', 'tee', 'xargs', 'sort', 'uniq', 'wc', 'diff', 'ps', 'id', 'whoami', 'date', 'sleep',
  'ruby', 'perl', 'php', 'java', 'javac', 'gcc', 'clang', 'rustc', 'terraform', 'aws', 'gcloud', 'az', 'gh', 'brew',
  'apt', 'apt-get', 'dnf', 'yum', 'systemctl', 'service', 'mount', 'umount', 'dd', 'rsync', 'asimov', 'claude', 'jq',
  'command_not_found_handle', 'command_not_found_handler', 'cd_hook', 'chpwd', 'precmd', 'preexec',
]);

const dynamicCommand = defineShellRule({
  id: 'obf.dynamic-command',
  needs: { traits: ['odd-name'] },
  // soft: a command name only known at run time (`$cmd`, `$(echo rm)`) cannot be checked by any rule;
  // sometimes a harmless variable ($EDITOR), so a person decides.
  tier: 'soft_deny',
  reason: 'The command name is only known at run time, so nothing can check what will run; write the command name out.',
  examples: {
    match: ['$cmd -rf /tmp/x', '$(echo rm) -rf build', '${x} file', '`echo ls`', '"$EDITOR" notes.txt', 'sudo $TOOL --all'],
    notMatch: ['ls -la', 'x=ls; $x', 'echo $HOME'],
  },
  match(cmd) {
    const w0 = cmd.argv[0];
    if (!w0) return null;
    if (staticValue(w0) !== null || w0.glob) return null;
    return { subject: w0.raw, reason: `The command name \`${cutText(w0.raw, 40)}\` is only known at run time, so nothing can check what will run; write the command name out.` };
  },
});

const SHELLS_EVAL = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'fish', 'csh', 'tcsh', 'busybox']);

/** Is this command code only known at run time: eval/source/sh -c of a dynamic string, or a shell fed by a pipe? */
function dynamicCode(cmd: SimpleCommand, analysis: Analysis): string | null {
  const name = programName(cmd);
  if (name === null) return null;
  if (wrapperIds(analysis).has(cmd.id)) return null; // the unwrapper parsed the string: its commands carry the risk
  if (name === 'eval') {
    const dyn = cmd.argv.slice(1).find((w) => staticValue(w) === null);
    return dyn ? dyn.raw : null;
  }
  if (name === 'source' || name === '.') {
    const w = cmd.argv[1];
    if (!w) return null;
    if (staticValue(w) === null || w.substitutionKinds.includes('process-in')) return w.raw;
    if (/^\/dev\/(stdin|fd\/0)$|^\/proc\/self\/fd\/0$/.test(w.value) && effectiveStdin(cmd, analysis).kind === 'pipe') return w.raw;
    return null;
  }
  if (name === 'make' || name === 'gmake') {
    // A makefile from standard input (a pipe) or from `<(…)` whose text the analysis could not read.
    for (const w of makefileWords(cmd)) {
      if (w.substitutionKinds.includes('process-in')) return w.raw;
      if (isStdinPath(staticValue(w)) && effectiveStdin(cmd, analysis).kind !== 'file') {
        const s = effectiveStdin(cmd, analysis);
        if (s.kind !== 'tty') return `${name} -f ${w.value}`;
      }
    }
    return null;
  }
  const inv = invocation(cmd);
  if (!inv || inv.family !== 'shell') return null;
  // `bash -n file` only checks the file's syntax: whatever the file is, none of it runs.
  if (inv.syntaxOnly && inv.codes.length === 0) return null;
  if (!SHELLS_EVAL.has(name.replace(/[0-9.]+$/, '')) && inv.family !== 'shell') return null;
  const dyn = inv.codes.find((w) => staticValue(w) === null);
  if (dyn) return dyn.raw;
  if (inv.script && (staticValue(inv.script) === null || inv.script.substitutionKinds.includes('process-in'))) return inv.script.raw;
  if (inv.stdinCode && inv.codes.length === 0) {
    const s = effectiveStdin(cmd, analysis);
    if (s.kind === 'pipe') return `${analysis.commands[s.from[0]!]?.text ?? '…'} | ${name}`;
    if (s.kind === 'herestring' && staticValue(s.word) === null) return s.word.raw;
    if (s.kind === 'heredoc' && !s.quoted && /\$\(|`/.test(s.body)) return `${name} <<…`;
  }
  return null;
}

const evalDynamic = defineShellRule({
  id: 'obf.eval-dynamic',
  // dynamicCode looks only at eval, source/`.` and shells (invocation of the shell family).
  needs: { traits: ['interpreter'], programs: ['eval', 'source', '.', 'make', 'gmake'] },
  // soft: eval / sh -c / source of a string built at run time runs code nothing here can read; common
  // idioms (`eval "$(ssh-agent -s)"`, `source <(kubectl completion bash)`) stay soft so a person sees them.
  tier: 'soft_deny',
  reason: 'This runs code that is only known at run time (eval, sh -c or source of a computed string); write the commands out so they can be checked.',
  examples: {
    match: ['eval "$CMD"', 'eval "$(ssh-agent -s)"', 'bash -c "$payload"', 'source <(kubectl completion bash)', 'cat script.sh | bash', 'sh -c "$(cat cmds.txt)"', '. "$ENV_FILE"', 'echo "$M" | make -f -', 'make -f <(cat x.mk)'],
    notMatch: ['eval \'echo hi\'', 'bash -c \'echo hi\'', 'source .venv/bin/activate', 'echo ls | sh', 'bash build.sh', 'make -f build.mk', 'make -f - < build.mk', 'echo \'all: ; echo hi\' | make -f -'],
  },
  match(cmd, _ctx, analysis) {
    const d = dynamicCode(cmd, analysis);
    return d ? { subject: cutText(d) } : null;
  },
});

const globCommand = defineShellRule({
  id: 'obf.glob-command',
  needs: { traits: ['odd-name'] },
  // soft: a command name built from glob characters (`/???/?m`, `/bin/r?`) is picked by the file system at
  // run time; the only reason to write one is to dodge rules that match names.
  tier: 'soft_deny',
  reason: 'The command name is a glob pattern (/???/?m), so what runs depends on the file system; write the command name out.',
  examples: {
    match: ['/???/?m -rf /tmp/x', '/bin/r? -f a', '/usr/bin/[c]url example.com'],
    notMatch: ['ls /bin/r?', 'rm -f ./*.log'],
  },
  match(cmd) {
    const w0 = cmd.argv[0];
    return w0 && w0.glob ? { subject: w0.raw } : null;
  },
});

const redefineCommand = defineShellRule({
  id: 'obf.redefine-command',
  needs: { traits: ['functions'], programs: ['alias', 'enable', 'hash'] },
  // soft: a function or alias named like a common command (ls, git, sudo, cd) silently changes what later
  // commands do; `enable -n` and `hash -p` do the same to builtins and PATH lookups.
  tier: 'soft_deny',
  reason: 'This redefines a common command (function, alias, enable -n, hash -p), so later commands would not do what they say; use a different name.',
  examples: {
    match: ['ls() { rm -rf ~; }; ls', 'alias ls=\'rm -rf\'', 'function git { echo; }', 'enable -n echo', 'hash -p /tmp/evil git', 'command_not_found_handle() { curl x; }'],
    notMatch: ['alias ll=\'ls -la\'', 'build() { make all; }; build', 'alias', 'hash -r'],
  },
  match(cmd, _ctx, analysis) {
    const name = programName(cmd);
    if (name === 'alias') {
      for (const w of cmd.argv.slice(1)) {
        const v = staticValue(w) ?? w.value;
        const eq = v.indexOf('=');
        if (eq > 0 && COMMON_COMMANDS.has(v.slice(0, eq))) return { subject: cutText(v) };
      }
      return null;
    }
    if (name === 'enable') {
      const args = cmd.argv.slice(1).map((w) => w.value);
      if (args.some((a) => /^-[a-zA-Z]*[nf]/.test(a))) return { subject: cmd.text, reason: 'enable -n/-f disables builtins or loads new ones from a library; ask the user.' };
      return null;
    }
    if (name === 'hash') {
      return cmd.argv.some((w) => /^-[a-z]*p/.test(w.value)) ? { subject: cmd.text } : null;
    }
    // Function definitions: reported once per line, on its first command.
    if (analysis.functions.length > 0 && analysis.commands[0] === cmd) {
      const f = analysis.functions.find((fn) => COMMON_COMMANDS.has(fn));
      if (f) return { subject: `${f}()`, reason: `This defines a function named \`${f}\`, which changes what every later \`${f}\` does; use a different name.` };
    }
    return null;
  },
});

const READERS = new Set(['read', 'mapfile', 'readarray']);

const ifs = defineShellRule({
  id: 'obf.ifs',
  needs: { traits: ['assignment', 'expansion'], programs: ['export', 'declare', 'typeset', 'local', 'readonly'] },
  // soft: changing IFS or splicing ${IFS} into words is a standard trick to build commands that pattern
  // rules do not recognise (`cat${IFS}/etc/passwd`). `IFS= read -r line` is the everyday exception.
  tier: 'soft_deny',
  reason: 'This changes or splices IFS, a trick to hide how words are split; write the command plainly.',
  examples: {
    match: ['cat${IFS}/etc/passwd', 'IFS=,; x="rm,-rf,/tmp/a"; $x', 'export IFS=:', 'echo$IFS"hi"'],
    notMatch: ['while IFS= read -r line; do echo "$line"; done < f.txt', 'IFS=, read -r a b <<< "1,2"', 'echo "$PATH"'],
  },
  match(cmd) {
    const name = programName(cmd);
    for (const a of cmd.assignments) {
      if (a.name !== 'IFS') continue;
      if (cmd.argv.length > 0 && name !== null && READERS.has(name)) continue;
      return { subject: `IFS=${cutText(a.value.raw, 20)}` };
    }
    if (name === 'export' || name === 'declare' || name === 'typeset' || name === 'local' || name === 'readonly') {
      const w = cmd.argv.slice(1).find((x) => /^IFS(=|$)/.test(x.value));
      if (w) return { subject: w.raw };
    }
    for (const w of cmd.argv) if (w.vars.includes('IFS')) return { subject: cutText(w.raw) };
    return null;
  },
});

const encodedName = defineShellRule({
  id: 'obf.encoded-name',
  needs: { traits: ['odd-name'] },
  // soft: a command name with escapes, ANSI-C codes or quotes inside it (`r\m`, `'r'm`, `$'\x72m'`, `""rm`)
  // spells the same program in a way pattern rules miss; nobody types names like that by accident. A name
  // quoted whole ("git") or with one leading backslash (\git, bypassing an alias) is ordinary.
  tier: 'soft_deny',
  reason: 'The command name is written with escapes or quotes inside it, a trick to hide what runs; write the name plainly.',
  examples: {
    match: ['r\\m -rf build', '\'r\'m -rf build', '$\'\\x72\\x6d\' -rf build', '""rm -rf build', 'c"ur"l example.com'],
    notMatch: ['"git" status', '\\git status', 'git status', '\'/usr/bin/git\' status', '.\\gradlew build'],
  },
  match(cmd) {
    const w0 = cmd.argv[0];
    if (!w0) return null;
    const v = staticValue(w0);
    if (v === null || w0.raw === v) return null;
    const raw = w0.raw;
    if (raw === `"${v}"` || raw === `'${v}'` || raw === `\\${v}`) return null;
    // A Windows path (`.\\gradlew`, `".\\venv\\Scripts\\python.exe"`) is read as the path it spells, not as escapes.
    if (w0.windows === true) return null;
    return { subject: raw, reason: `The command name \`${cutText(raw, 30)}\` is written with escapes or quotes inside it (it runs \`${cutText(v, 30)}\`), a trick to hide what runs; write the name plainly.` };
  },
});

/** Commands that evaluate their arguments (or assignments) as arithmetic. */
const ARITH_BUILTINS = new Set(['let', 'declare', 'typeset', 'local', 'export', 'readonly']);

/** Whether a word's quoted literal text holds a command substitution that arithmetic would run. */
function quotedSubstitution(w: { value: string; literal: boolean }): boolean {
  return w.literal && (w.value.includes('$(') || w.value.includes('`'));
}

/**
 * Builtins that take variable NAMES (`test -v NAME`, `printf -v NAME`, `read NAME`, `declare NAME=v`…). A name
 * with a subscript, `a[…]`, has its subscript evaluated as arithmetic there, so quoted text such as
 * `'a[$(cmd)]'` given as the name runs cmd (checked with bash 5.2: test/[ -v, printf -v, read, declare, local).
 */
const NAME_BUILTINS = new Set([...ARITH_BUILTINS, 'test', '[', 'printf', 'read', 'mapfile', 'readarray', 'unset', 'getopts', 'wait']);
const SUBSCRIPTED_NAME = /^[A-Za-z_][A-Za-z0-9_]*\[/;

/** A word of a name-taking builtin that is a subscripted name holding command text. */
function subscriptHolder(cmd: SimpleCommand): string | null {
  const name = programName(cmd);
  if (name === null || !NAME_BUILTINS.has(name)) return null;
  for (let i = 1; i < cmd.argv.length; i++) {
    const w = cmd.argv[i]!;
    if (quotedSubstitution(w) && SUBSCRIPTED_NAME.test(w.value)) return w.raw;
  }
  return null;
}

/**
 * Whether a command makes bash treat a variable's VALUE as a name (whose subscript is then evaluated): an
 * indirect expansion `${!x}`, a prompt expansion `${x@P}` (which also runs command substitutions in the value),
 * or a nameref (`declare -n r=…`, used later as `$r`). Checked with bash 5.2: each runs `x='a[$(cmd)]'`'s cmd.
 */
function evaluatesNames(cmd: SimpleCommand): boolean {
  for (const w of cmd.argv) if (w.raw.includes('${!') || w.raw.includes('@P}')) return true;
  for (const a of cmd.assignments) if (a.value.raw.includes('${!') || a.value.raw.includes('@P}')) return true;
  const name = programName(cmd);
  if (name === 'declare' || name === 'typeset' || name === 'local') {
    for (let i = 1; i < cmd.argv.length; i++) if (/^-[a-zA-Z]*n/.test(cmd.argv[i]!.value)) return true;
  }
  return false;
}

function evaluatesArithmetic(cmd: SimpleCommand): boolean {
  const name = programName(cmd);
  if (name !== null && ARITH_BUILTINS.has(name)) {
    if (name === 'let') return true;
    return cmd.argv.slice(1).some((w) => /^-[a-zA-Z]*i/.test(w.value));
  }
  for (const w of cmd.argv) if (w.substitutionKinds.includes('arithmetic')) return true;
  for (const a of cmd.assignments) if (a.value.substitutionKinds.includes('arithmetic')) return true;
  return false;
}

const arithSubstitution = defineShellRule({
  id: 'obf.arith-substitution',
  // No holder (a literal word or assignment value with `$(` or a backtick), no hit.
  needs: { traits: ['quoted-substitution'] },
  // soft: bash evaluates a variable's value as an expression in arithmetic, and the array subscript in
  // `a[$(cmd)]` is expanded there, so a quoted (inert-looking) string runs `cmd` when it reaches `$((x))`,
  // `((x))`, `let`, `declare -i` or `[[ x -eq y ]]`, or is given as a variable name (`test -v`, `printf -v`,
  // `read`, `declare`). Static analysis cannot follow the value into the
  // expression, so the combination is held back for a person.
  tier: 'soft_deny',
  reason: 'A quoted string holding a command substitution meets arithmetic evaluation, which would run it (bash expands array subscripts inside arithmetic); write the command plainly.',
  examples: {
    match: [
      "x='a[$(touch /tmp/pwned)]'; echo $((x))",
      "x='a[$(id)]'; ((x))",
      "x='a[`id`]'; [[ $x -eq 1 ]]",
      "declare -i y='a[$(id)]'",
      "x='a[$(id)]'; let y=x",
      "for ((i=0; i<n; i++)); do :; done; v='b[$(id)]'",
      "test -v 'a[$(touch /tmp/pwned)]'",
      "[ -v 'a[$(id)]' ]",
      "printf -v 'a[$(id)]' x",
      "read 'a[$(id)]' <<< x",
      "declare 'a[$(id)]=1'",
      "x='a[$(id)]'; echo ${!x}",
      "x='$(id)'; echo ${x@P}",
      "declare -n r='a[$(id)]'; echo $r",
      "x='a[$(id)]'; [[ -v $x ]]",
    ],
    notMatch: ["echo 'a[$(date)]'", "printf -v msg '%s' '$(date)'", "test -v 'a[1]'", "echo '$(date)'", 'echo $((1 + 2))', "x=5; echo $((x * 2))", "[[ $n -eq 1 ]] && echo 'one'", "printf '%s' '$HOME'"],
  },
  match(cmd, _ctx, analysis) {
    const named = subscriptHolder(cmd);
    if (named !== null) return { subject: cutText(named) };
    let holder: string | null = null;
    for (const w of cmd.argv) if (quotedSubstitution(w)) holder = w.raw;
    for (const a of cmd.assignments) if (holder === null && quotedSubstitution(a.value)) holder = `${a.name}=${a.value.raw}`;
    if (holder === null) return null;
    if (analysis.arithmetic === true || analysis.commands.some((c) => evaluatesArithmetic(c) || evaluatesNames(c))) return { subject: cutText(holder) };
    return null;
  },
});

const hiddenPayload = defineShellRule({
  id: 'obf.hidden-payload',
  // Cheap for every command: one property test. Only commands the shell analysis computed from hidden data
  // (decoded, assembled in a variable, found in an arithmetic subscript) carry `decoded`.
  // soft: the payload was decoded and its commands are judged as written out (a dangerous one gets its full
  // tier from the rule that matches it), but a command hidden behind base64, printf escapes, a variable or
  // an arithmetic subscript is itself a signal: what the line shows is not what runs, and the decoding could
  // differ at run time from ours in ways we did not model. A person sees the decoded command and decides.
  tier: 'soft_deny',
  reason: 'This runs a command hidden in encoded or assembled data (base64, printf escapes, a variable, an arithmetic subscript); write the command out in plain text.',
  examples: {
    match: [
      'echo ZWNobyBoaQ== | base64 -d | sh',
      'eval "$(printf \'\\x65cho hi\')"',
      "x='a[$(echo hi)]'; ((x))",
      "y=$(printf 'x[$%s]' '(date)'); ((y))",
      "c='echo hi'; eval \"$c\"",
      '$(printf \'\\x6cs\') -la',
    ],
    notMatch: ['echo \'echo hi\' | sh', 'eval \'echo hi\'', 'echo ZWNobyBoaQ== | base64 -d', 'i=0; ((i++))', 'bash -c \'ls -la\''],
  },
  match(cmd) {
    const how = cmd.decoded;
    if (how === undefined) return null;
    return { subject: cutText(cmd.text), reason: `\`${cutText(cmd.text, 60)}\` is hidden in encoded or assembled data (${cutText(how, 60)}), so the line does not show what runs; write the command out in plain text.` };
  },
});

export const rules: Rule[] = [dynamicCommand, evalDynamic, globCommand, redefineCommand, ifs, encodedName, arithSubstitution, hiddenPayload];
