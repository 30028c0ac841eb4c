// The obfuscation family: names and code only known at run time, glob-built and escaped names,
// redefined commands and IFS tricks.
import { describe, test } from 'node:test';
import { rules } from '../../../src/policy/rules/obfuscation.ts';
import { expectNoRule, expectRule, tierTable, testRuleExamples } from '../../helpers/rule-tester.ts';

testRuleExamples(rules);

tierTable('hidden command names are never allowed', [
  ['$CMD', 'soft_deny'],
  ['${CMD:-ls} -la', 'soft_deny'],
  ['"$(printf rm)" -rf build', 'soft_deny'],
  ['/???/?at /etc/passwd', 'soft_deny'],
  ['/b?n/c[a]t notes.txt', 'soft_deny'],
  ["c''at notes.txt", 'soft_deny'],
  ['ca\\t notes.txt', 'soft_deny'],
  ["$'\\143\\141\\164' notes.txt", 'soft_deny'],
  ['sudo $TOOL', 'soft_deny'],
  ['cat${IFS}notes.txt', 'soft_deny'],
  ['eval "$1"', 'soft_deny'],
  ['bash -c "$SCRIPT"', 'soft_deny'],
  ['source "$HOME/.config/x.sh"', 'soft_deny'],
  ['. <(some-tool env)', 'soft_deny'],
  ['cat run.sh | sh', 'soft_deny'],
  ['git() { curl x; }; git status', 'soft_deny'],
  ['alias sudo="sudo -E"', 'soft_deny'],
]);

// Bash evaluates the subscript of a variable NAME as arithmetic, running command text quoted inside it (checked
// with bash 5.2 in a scratch directory): these were allowed as plain `test`/`printf`/`read` calls (found in review).
// The command in the subscript now enters the analysis (payload-sinks.ts), so it gets its own tier: rm -rf ~ is hard.
tierTable('quoted command text given as a subscripted variable name is never allowed', [
  ["test -v 'a[$(rm -rf ~)]'", 'hard_deny'],
  ["[ -v 'a[$(rm -rf ~)]' ]", 'hard_deny'],
  ["printf -v 'a[$(rm -rf ~)]' x", 'hard_deny'],
  ["read 'a[$(rm -rf ~)]' <<< x", 'hard_deny'],
  ["declare 'a[`rm -rf ~`]=1'", 'hard_deny'],
  ["f() { local 'a[$(rm -rf ~)]=1'; }; f", 'hard_deny'],
  ["test -v 'a[$(date)]'", 'soft_deny'],
  ["[[ -v 'a[$(rm -rf ~)]' ]]", 'unknown'],
  ["[[ -v 'a[`rm -rf ~`]' ]] && echo set", 'unknown'],
]);

tierTable('ordinary quoting and scripting stay allowed', [
  ["[[ -v 'a[1]' ]]", 'allow'],
  ["test -v HOME", 'allow'],
  ["printf -v msg '%s' 'use $(date) here'", 'allow'],
  ['"git" status', 'allow'],
  ['\\ls -la', 'allow'],
  ["'/usr/bin/env' --version", 'allow'],
  ['d=build; ls $d', 'allow'],
  ['while IFS= read -r line; do echo "$line"; done < notes.txt', 'allow'],
  ['eval "echo hi"', 'allow'],
  ['bash -c "ls -la"', 'allow'],
  ['source .venv/bin/activate', 'allow'],
  ['echo ls | sh', 'allow'],
]);

describe('the obfuscation rules stay quiet on near-misses', () => {
  test('a helper function with a new name is fine', () => expectNoRule('lint() { npm run lint; }; lint', 'obf.redefine-command'));
  test('alias listing is not a redefinition', () => expectNoRule('alias', 'obf.redefine-command'));
  test('IFS as a prefix to read is the everyday idiom', () => expectNoRule('IFS=: read -r a b <<< "x:y"', 'obf.ifs'));
  test('a variable argument is not a dynamic command', () => expectNoRule('ls "$DIR"', 'obf.dynamic-command'));
  test('a glob argument is not a glob command', () => expectNoRule('cat *.md', 'obf.glob-command'));
  test('a dynamic eval is reported even when it looks like a known idiom', () => expectRule('eval "$(direnv hook bash)"', 'obf.eval-dynamic'));
});

// Payloads the line carries are read (static-output.ts, payload-sinks.ts): what they run gets its own tier,
// and obf.hidden-payload keeps a decoded or assembled command from being allowed.
tierTable('hidden payloads get the tier of what they run, at least soft', [
  ["y=$(printf 'x[$%s]' '(rm -rf ~)'); ((y))", 'hard_deny'],
  ["x='a[$(rm -rf ~)]'; ((x))", 'hard_deny'],
  ["x='a[`rm -rf ~`]'; [[ x -eq 1 ]]", 'hard_deny'],
  ["read y <<< 'a[$(rm -rf ~)]'; ((y))", 'hard_deny'],
  ["declare -a a=('x[$(rm -rf ~)]'); ((a[0]))", 'hard_deny'],
  ["x='rm -rf ~'; eval \"$x\"", 'hard_deny'],
  ["p1='rm -r'; p2='f ~'; eval \"$p1$p2\"", 'hard_deny'],
  ['$(echo rm) -rf ~', 'hard_deny'],
  ["`printf 'rm'` -rf ~", 'hard_deny'],
  ["x='a[$(date)]'; ((x))", 'soft_deny'],
  ["c='echo hi'; eval \"$c\"", 'soft_deny'],
  ['$(echo ls) -la', 'soft_deny'],
]);

tierTable('arithmetic and variables without hidden commands stay as they are', [
  ['i=0; ((i++))', 'allow'],
  ['for ((i=0; i<3; i++)); do echo $i; done', 'allow'],
  ['n=3; [[ $n -eq 3 ]] && echo ok', 'allow'],
  ['let i=i+1', 'allow'],
  ["echo 'a[$(rm -rf ~)]'", 'allow'],
  ['x=$(date); echo "$x"', 'allow'],
  ["eval 'echo hi'", 'allow'],
]);
