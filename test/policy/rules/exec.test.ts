// The exec family: inline interpreter code, programs that run other programs, shells spawned through
// other tools, git/tar/zip command hooks, and running the project's own scripts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  awkTraits, invocation, jsIsHarmless, perlFilterIsHarmless, pythonIsHarmless, rules, sedTraits, shellInWord,
} from '../../../src/policy/rules/exec.ts';
import { analyzeShell } from '../../../src/shell/unwrap.ts';
import { createRuleContext } from '../../../src/policy/context.ts';
import { EXAMPLE_CONTEXT } from '../../../src/policy/examples.ts';
import { expectNoRule, expectRule, tierTable, testRuleExamples } from '../../helpers/rule-tester.ts';

testRuleExamples(rules);

tierTable('interpreter escapes and command hooks are not allowed', [
  ['node -pe "process.env"', 'soft_deny'],
  ['perl -e "system(q(id))"', 'soft_deny'],
  ['perl -lane \'print $F[0]\' f', 'soft_deny'],
  ['python3 -c "print(open(\'a\').read()); open=1"', 'soft_deny'],
  ["node -e \"console.log(this.constructor)\"", 'soft_deny'],
  ["node -e \"console['constructor']\"", 'soft_deny'],
  ['vim +"!id"', 'soft_deny'],
  ['vim --cmd "set shell=/bin/sh" -c shell', 'soft_deny'],
  ['man -P "sh -c id" ls', 'soft_deny'],
  ['git -c core.pager="sh -c id" log', 'hard_deny'],
  ['git config --global core.editor "bash -c id"', 'hard_deny'],
  ['git config set core.fsmonitor "id"', 'soft_deny'],
  ['GIT_PAGER="sh -c id" git log', 'soft_deny'],
  ['tar -c --use-compress-program="sh -c id" -f x .', 'hard_deny'],
  ['tar -xf a.tar --checkpoint-action exec=id', 'hard_deny'],
  ['zip -TT "sh -c id" -T x.zip a', 'hard_deny'],
  ['find . -ok bash \\;', 'soft_deny'],
  ['sed -n "w /etc/cron.d/x" f', 'soft_deny'],
  ['awk \'{print > "/etc/x"}\' f', 'soft_deny'],
  ['ssh -o ProxyCommand="sh -c id" host.example.net', 'soft_deny'],
  ['LD_PRELOAD=./evil.so ls', 'soft_deny'],
  ['env LD_PRELOAD=/tmp/x.so ls', 'soft_deny'],
  ['echo payload > Makefile && make', 'soft_deny'],
  ['expect -c "spawn sh; interact"', 'soft_deny'],
  ['cpulimit -l 10 -- /bin/sh', 'soft_deny'],
  ['busybox sh', 'soft_deny'],
  ['pwsh -EncodedCommand ZQBjAGgAbwA=', 'hard_deny'],
  ['python3 <<EOF\nprint("$X")\nEOF', 'soft_deny'],
  ["node -e \"try { null.x } catch (e) { Error.prepareStackTrace = (a, b) => b; }\"", 'soft_deny'],
]);

// Python and JavaScript inline code is now read by the inline-code family (test/policy/rules/inline-code.test.ts).
tierTable('perl snippets that only print or filter stay soft (no analyzer for perl)', [
  ['perl -E "say 1"', 'soft_deny'],
  ['perl -ne "print if /x/" f', 'soft_deny'],
  ['perl -0777 -pe "s/a/b/g" f', 'soft_deny'],
]);

describe('harmless inline code is told apart from the rest', () => {
  test('a print-only perl snippet is exec.inline-harmless, not exec.inline-code', () => {
    expectRule("perl -e 'print 1'", 'exec.inline-harmless');
    expectNoRule("perl -e 'print 1'", 'exec.inline-code');
  });
  test('a perl snippet that runs a program is exec.inline-code', () => expectRule('perl -e \'system("ls")\'', 'exec.inline-code'));
});

tierTable('everyday interpreter use is allowed', [
  ['python3 scripts/gen.py', 'allow'],
  ['bash ./scripts/test.sh --fast', 'allow'],
  ['./node_modules/.bin/tsc -p .', 'allow'],
  ['bash -n deploy.sh', 'allow'],
  ['git -c core.pager=cat log --oneline', 'allow'],
  ['awk -F, \'{ s += $3 } END { print s }\' data.csv', 'allow'],
  ["sed -E 's/(foo)+/bar/g; /^#/d' config.ini", 'allow'],
  ['find . -name "*.ts" -exec grep -l TODO {} +', 'allow'],
  ['tar -I zstd -cf out.tar.zst src', 'allow'],
]);

describe('the exec rules stay quiet on near-misses', () => {
  test('a commit message that mentions a shell spawns nothing', () => expectNoRule('git commit -m "run /bin/sh in CI"', 'exec.spawns-shell'));
  test('completion scripts name a shell without running it', () => expectNoRule('kubectl completion zsh', 'exec.spawns-shell'));
  test('`bash -c` with no string is an error, not a session', () => expectNoRule('bash -c', 'exec.interactive-shell'));
  test('a redirect of a script\'s output is not a written-then-run script', () => expectNoRule('./build.sh > build.log', 'exec.write-then-run'));
  test('writing one script and running another is fine', () => expectNoRule('echo x > a.sh; bash b.sh', 'exec.write-then-run'));
  test('an ssh helper only matters when git talks to a remote', () => {
    expectNoRule('git -c core.sshCommand=./helper status', 'exec.git-config-exec');
    expectRule('git -c core.sshCommand=./helper fetch', 'exec.git-config-exec');
  });
  test('sed --sandbox cannot run commands', () => expectNoRule("sed --sandbox 's/x/id/e' f", 'exec.sed-exec'));
});

describe('interpreter invocations are read the way the interpreter reads them', () => {
  const inv = (line: string) => {
    const a = analyzeShell(line);
    assert.equal(a.status, 'ok', a.message);
    return invocation(a.commands[0]!)!;
  };
  test('python -c ends option parsing and keeps the rest as arguments', () => {
    const i = inv('python3 -u -c "print(1)" -x y');
    assert.equal(i.codes[0]!.value, 'print(1)');
    assert.deepEqual(i.rest.map((w) => w.value), ['-x', 'y']);
  });
  test('python -m names a module, a bare python reads stdin', () => {
    assert.equal(inv('python3 -m pytest -x').module, 'pytest');
    assert.equal(inv('python3').stdinCode, true);
  });
  test('node -pe takes the next word as code', () => assert.equal(inv('node -pe "1+1"').codes[0]!.value, '1+1'));
  test('perl clusters with -l and -0 still find -e', () => assert.equal(inv("perl -lne 'print' f").codes[0]!.value, 'print'));
  test('ruby -rsocket records the library', () => assert.equal(inv("ruby -rsocket -e 'x'").values.get('r'), 'socket'));
  test('a shell script operand is the script, -c the code', () => {
    assert.equal(inv('bash -x build.sh a').script!.value, 'build.sh');
    assert.equal(inv("sh -ec 'echo hi' name").codes[0]!.value, 'echo hi');
  });
  test('pwsh -enc is an encoded command', () => assert.equal(inv('pwsh -enc AAAA').encoded, true));
  test('busybox sh is read as sh', () => assert.equal(inv('busybox sh -c "ls"').family, 'shell'));
});

describe('code judgements', () => {
  const ctx = createRuleContext({ ...EXAMPLE_CONTEXT });
  test('harmless Python only computes and prints', () => {
    assert.equal(pythonIsHarmless('import math; print(math.floor(2.5))'), true);
    assert.equal(pythonIsHarmless('for k, v in {"a": 1}.items(): print(k, v)'), true);
    assert.equal(pythonIsHarmless('import os; print(os.getcwd())'), false);
    assert.equal(pythonIsHarmless('print(().__class__)'), false);
    assert.equal(pythonIsHarmless("print(f'{1}')"), false);
    assert.equal(pythonIsHarmless("print('a\\'); import os; #')"), true, 'an escaped quote stays inside the string');
    assert.equal(pythonIsHarmless("print('{0.x}'.format(1))"), false);
    assert.equal(pythonIsHarmless('import platform; print(platform.os)'), false);
  });
  test('harmless JavaScript has no reflection and no process access', () => {
    assert.equal(jsIsHarmless('console.log([1,2].map((a) => a + 1))', ctx), true);
    assert.equal(jsIsHarmless('console.log(globalThis)', ctx), false);
    assert.equal(jsIsHarmless('console.log(`${process.env.HOME}`)', ctx), false);
    assert.equal(jsIsHarmless("x['constr'+'uctor']", ctx), false);
    assert.equal(jsIsHarmless('console.log(\\u0065val)', ctx), false);
  });
  test('perl filters without code are harmless; /e and interpolated code are not', () => {
    assert.equal(perlFilterIsHarmless('s/foo/bar/g'), true);
    assert.equal(perlFilterIsHarmless('s/(\\w+)/$1!/'), true);
    assert.equal(perlFilterIsHarmless('s/x/system("id")/e'), false);
    assert.equal(perlFilterIsHarmless('s/x/@{[`id`]}/'), false);
    assert.equal(perlFilterIsHarmless('s/x/$ENV{HOME}/'), false);
  });
  test('awk traits tell regexes and comparisons from pipes and redirects', () => {
    assert.deepEqual(awkTraits('/a|b/ { print }'), { system: false, pipes: false, net: false, writes: [], envDump: false, reads: [] });
    assert.deepEqual(awkTraits('BEGIN { while ((getline l < "/etc/hosts") > 0) print l }').reads, ['/etc/hosts']);
    assert.equal(awkTraits('$1 > 3 { print $2 }').writes.length, 0);
    assert.deepEqual(awkTraits('{ print $1 > "out.txt" }').writes, ['out.txt']);
    assert.equal(awkTraits('{ "date" | getline d }').pipes, true);
    assert.equal(awkTraits('BEGIN { x = 4 / 2; system("id") }').system, true);
  });
  test('sed traits find e and w inside substitutions and on their own', () => {
    assert.equal(sedTraits('s/a/b/g').exec, false);
    assert.equal(sedTraits('s|a|b|e').exec, true);
    assert.deepEqual(sedTraits('/x/w out.txt').writes, ['out.txt']);
    assert.equal(sedTraits('1!G;h;$!d').ok, true);
    assert.equal(sedTraits('a\\\nhello').ok, true);
    assert.equal(sedTraits('s/[/]/x/e').exec, true, 'a delimiter inside brackets does not end the regex');
    assert.deepEqual(sedTraits('/x\\/[^/]*$/d').ok, true);
    assert.equal(sedTraits('s/[[:space:]/]*$//').exec, false);
  });
  test('a shell is spotted inside option values', () => {
    assert.equal(shellInWord('--checkpoint-action=exec=/bin/sh'), '/bin/sh');
    assert.equal(shellInWord(':!bash'), 'bash');
    assert.equal(shellInWord('sh -c "id"'), 'sh');
    assert.equal(shellInWord('scripts/deploy.sh'), null);
    assert.equal(shellInWord('fish.txt'), null);
  });
});

// Command text that sed, awk, make and git run is parsed and judged as if written out (payload-sinks.ts):
// the rule for the program keeps its own tier, the command adds its tier.
tierTable('commands run by sed e, awk system, make -f - and git ext:: get their own tier', [
  ["echo 'rm -rf ~' | sed e", 'hard_deny'],
  ["sed '1e rm -rf ~' notes.txt", 'hard_deny'],
  ["sed 's/.*/rm -rf ~/e' <<< x", 'hard_deny'],
  ['awk \'BEGIN{system("rm -rf ~")}\'', 'hard_deny'],
  ['awk \'BEGIN{cmd="rm -rf ~"; system(cmd)}\'', 'hard_deny'],
  ['awk \'BEGIN{print "rm -rf ~" | "sh"}\'', 'hard_deny'],
  ['echo "all:; rm -rf ~" | make -f -', 'hard_deny'],
  ["printf 'all:\\n\\trm -rf ~\\n' | make -f /dev/stdin", 'hard_deny'],
  ["make -f <(echo 'all: ; rm -rf ~')", 'hard_deny'],
  ["git clone 'ext::sh -c rm% -rf% ~' /tmp/x", 'hard_deny'],
  ['echo cm0gLXJmIH4= | base64 -d | xargs -0 sh -c', 'hard_deny'],
  ['awk \'BEGIN{system("date")}\'', 'soft_deny'],
  ["sed '1e date' notes.txt", 'soft_deny'],
]);

tierTable('sed, awk, make and git without command execution stay as they are', [
  ["sed -n '/e/p' f", 'allow'],
  ["sed -e 's/e/E/g' f", 'allow'],
  ["awk '/system/ {print}' log.txt", 'allow'],
  ['awk \'BEGIN { printf "%s|%s\\n", a, b }\'', 'allow'],
  ['make -f Makefile.dev test', 'allow'],
  ["echo 'all: ; echo hi' | make -f -", 'allow'],
  ['git clone https://github.com/x/y', 'allow'],
]);
