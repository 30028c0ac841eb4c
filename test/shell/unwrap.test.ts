// Wrapper unwrapping: the command a wrapper really runs must reach the rules, however deeply wrapped.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeShell, MAX_REPARSE_DEPTH } from '../../src/shell/unwrap.ts';
import { staticValue } from '../../src/shell/program.ts';
import type { Analysis } from '../../src/shell/types.ts';

/** Every command as its argv values (dynamic words shown as `<raw>`), with the wrapper chain. */
function commands(a: Analysis): string[] {
  return a.commands.map((c) => {
    const argv = c.argv.map((w) => staticValue(w) ?? `<${w.raw}>`).join(' ');
    return c.via.length > 0 ? `${argv} [${c.via.join(' > ')}]` : argv;
  });
}

function innermost(src: string): string[] {
  const a = analyzeShell(src);
  assert.equal(a.status, 'ok', a.message);
  return commands(a);
}

describe('simple wrappers yield the command they run', () => {
  const cases: [string, string][] = [
    ['sudo rm -rf /', 'rm -rf / [sudo]'],
    ['sudo -u root -E rm -rf /', 'rm -rf / [sudo]'],
    ['sudo -- rm -rf /', 'rm -rf / [sudo]'],
    ['doas rm -rf /', 'rm -rf / [doas]'],
    ['env -i PATH=/bin rm -rf /', 'rm -rf / [env]'],
    ['env FOO=1 BAR=2 rm -rf /', 'rm -rf / [env]'],
    ['command rm -rf /', 'rm -rf / [command]'],
    ['builtin eval "rm -rf /"', 'eval rm -rf / [builtin]'],
    ['exec rm -rf /', 'rm -rf / [exec]'],
    ['nohup rm -rf / &', 'rm -rf / [nohup]'],
    ['nice -n 19 rm -rf /', 'rm -rf / [nice]'],
    ['nice -10 rm -rf /', 'rm -rf / [nice]'],
    ['timeout 5 rm -rf /', 'rm -rf / [timeout]'],
    ['timeout -s KILL 5s rm -rf /', 'rm -rf / [timeout]'],
    ['time rm -rf /', 'rm -rf /'],
    ['stdbuf -oL rm -rf /', 'rm -rf / [stdbuf]'],
    ['ionice -c 3 rm -rf /', 'rm -rf / [ionice]'],
    ['setsid rm -rf /', 'rm -rf / [setsid]'],
    ['busybox rm -rf /', 'rm -rf / [busybox]'],
    ['chroot /mnt rm -rf /', 'rm -rf / [chroot]'],
    ['strace -f -o /dev/null rm -rf /', 'rm -rf / [strace]'],
    ['flock /tmp/lock rm -rf /', 'rm -rf / [flock]'],
    ['uv run rm -rf /', 'rm -rf / [uv run]'],
    ['poetry run rm -rf /', 'rm -rf / [poetry run]'],
  ];
  for (const [src, expected] of cases) {
    test(`${src} runs ${expected}`, () => assert.ok(innermost(src).includes(expected), innermost(src).join(' | ')));
  }
});

describe('wrappers nest', () => {
  test('sudo env timeout nice rm is found four wrappers deep', () => {
    assert.ok(innermost('sudo env X=1 timeout 5 nice rm -rf /').includes('rm -rf / [sudo > env > timeout > nice]'));
  });
  test('command -v only looks a name up and runs nothing', () => {
    assert.deepEqual(innermost('command -v rm'), ['command -v rm']);
  });
  test('sudo -l lists privileges and runs nothing', () => {
    assert.deepEqual(innermost('sudo -l'), ['sudo -l']);
  });
});

describe('shell strings are parsed again', () => {
  test('bash -c', () => assert.ok(innermost("bash -c 'rm -rf /'").includes('rm -rf / [bash -c]')));
  test('sh -c with combined flags', () => assert.ok(innermost("sh -ec 'rm -rf /'").includes('rm -rf / [sh -c]')));
  test('bash -lc through sudo', () => assert.ok(innermost("sudo bash -lc 'rm -rf /'").includes('rm -rf / [sudo > bash -c]')));
  test('eval of literal words', () => assert.ok(innermost('eval rm -rf /').includes('rm -rf / [eval]')));
  test('eval of a quoted string with a list inside', () => {
    const cmds = innermost('eval "echo hi; rm -rf /"');
    assert.ok(cmds.includes('rm -rf / [eval]'), cmds.join(' | '));
  });
  test('nested bash -c inside eval inside sh -c', () => {
    const cmds = innermost(`sh -c "eval 'bash -c \\"rm -rf /\\"'"`);
    assert.ok(cmds.some((c) => c.startsWith('rm -rf / [sh -c > eval > bash -c]')), cmds.join(' | '));
  });
  test('su -c', () => assert.ok(innermost("su root -c 'rm -rf /'").includes('rm -rf / [su -c]')));
  test('watch runs its words through sh -c', () => assert.ok(innermost("watch -n 1 'rm -rf /tmp/x; ls'").includes('rm -rf /tmp/x [watch]')));
  test('a here-doc into bash is the script it runs', () => {
    assert.ok(innermost('bash <<EOF\nrm -rf /\nEOF').includes('rm -rf / [bash <<]'));
  });
  test('a here-string into sh is the script it runs', () => {
    assert.ok(innermost("sh <<< 'rm -rf /'").includes('rm -rf / [sh <<<]'));
  });
  test('echo of a literal piped into sh is the script it runs', () => {
    assert.ok(innermost("echo 'rm -rf /' | sh").includes('rm -rf / [| sh]'));
  });
  test('a bash -c of a dynamic string is reported, not guessed', () => {
    const a = analyzeShell('bash -c "$CMD"');
    assert.equal(a.status, 'ok');
    assert.equal(a.commands.length, 1);
    assert.ok(a.problems.some((p) => p.includes('only known at run time')));
  });
  test('a bash script file is not read', () => {
    assert.deepEqual(innermost('bash ./build.sh'), ['bash ./build.sh']);
  });
  test('an unparseable inner string makes the whole line unparseable', () => {
    assert.notEqual(analyzeShell("bash -c 'echo \"unterminated'").status, 'ok');
  });
  test(`nesting deeper than ${MAX_REPARSE_DEPTH} re-parses is too deep, not allowed through`, () => {
    let s = 'rm -rf /';
    for (let i = 0; i < MAX_REPARSE_DEPTH + 2; i++) s = `eval ${JSON.stringify(s).replace(/\$/g, '\\$')}`;
    assert.equal(analyzeShell(s).status, 'too_deep');
  });
});

describe('commands that run other commands', () => {
  test('find -exec runs its command with {} as run-time data', () => {
    const cmds = innermost('find . -name "*.tmp" -exec rm -f {} \\;');
    assert.ok(cmds.includes('rm -f <{}> [find -exec]'), cmds.join(' | '));
  });
  test('find -execdir with +', () => {
    assert.ok(innermost('find / -execdir shred -u {} +').includes('shred -u <{}> [find -execdir]'));
  });
  test('xargs appends its input', () => {
    assert.ok(innermost('ls | xargs rm -rf').includes('rm -rf <{xargs input}> [xargs]'));
  });
  test('xargs -I puts its input where the replace string is', () => {
    assert.ok(innermost('ls | xargs -I % mv % /tmp/').includes('mv <%> /tmp/ [xargs]'));
  });
  test('xargs sh -c is unwrapped twice', () => {
    const cmds = innermost("ls | xargs sh -c 'rm -rf /'");
    assert.ok(cmds.some((c) => c.startsWith('rm -rf / [xargs > sh -c]')), cmds.join(' | '));
  });
  test('ssh runs its remote words on the remote side', () => {
    const a = analyzeShell("ssh -p 22 user@host 'rm -rf /'");
    const rm = a.commands.find((c) => staticValue(c.argv[0]) === 'rm');
    assert.ok(rm?.remote, 'remote flag');
    assert.deepEqual(rm?.via, ['ssh']);
  });
  test('docker exec and kubectl exec', () => {
    assert.ok(innermost('docker exec -it web rm -rf /data').includes('rm -rf /data [docker exec]'));
    assert.ok(innermost('kubectl exec -n prod pod-1 -- rm -rf /data').includes('rm -rf /data [kubectl exec]'));
  });
  test('git -c alias with ! runs its shell string', () => {
    const cmds = innermost("git -c alias.x='!rm -rf /' x");
    assert.ok(cmds.includes('rm -rf / [git alias]'), cmds.join(' | '));
  });
  test('git -c core.pager runs its shell string', () => {
    assert.ok(innermost("git -c core.pager='sh -c \"rm -rf /\"' log").some((c) => c.startsWith('rm -rf /')));
  });
  test('trap runs its string', () => assert.ok(innermost("trap 'rm -rf /' EXIT").includes('rm -rf / [trap]')));
  test('the wrapped command keeps the wrapper\'s stdin pipe', () => {
    const a = analyzeShell('curl -s https://x.example | sudo bash');
    const bash = a.commands.find((c) => staticValue(c.argv[0]) === 'bash' && c.via.length > 0);
    assert.equal(bash?.stdin.kind, 'pipe');
  });
});

describe('xargs options that take their value only attached', () => {
  test('xargs -i runs its command with the input where {} stands', () => {
    const cmds = innermost('cat list.txt | xargs -i rm -rf {}');
    assert.ok(cmds.includes('rm -rf <{}> [xargs]'), cmds.join(' | '));
    // A literal input is known: the command xargs makes of it (payload-sinks.ts).
    assert.ok(innermost('echo / | xargs -i rm -rf {}').includes('rm -rf / [xargs]'));
  });
  test('xargs -i without {} still runs its command', () => {
    const cmds = innermost('echo / | xargs -i rm -rf');
    assert.ok(cmds.some((c) => c.startsWith('rm -rf') && c.endsWith('[xargs]')), cmds.join(' | '));
  });
  test('xargs -l1 and -e are flags, not the command', () => {
    const cmds = innermost('ls | xargs -l1 -eEOF rm');
    assert.ok(cmds.some((c) => c.startsWith('rm ') && c.endsWith('[xargs]')), cmds.join(' | '));
  });
});

describe('unwrapping does not trip over odd names and options', () => {
  test('programs named like Object.prototype members are not wrappers and do not throw', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const a = analyzeShell(`${name} -e x`);
      assert.equal(a.status, 'ok');
      assert.equal(a.commands.length, 1, name);
    }
  });
  test('xargs -0 is an option, not the command', () => {
    const cmds = innermost('find . -print0 | xargs -0 -n1 rm -f');
    assert.ok(cmds.some((c) => c.startsWith('rm -f') && c.endsWith('[xargs]')), cmds.join(' | '));
  });
  test('git -c with the value attached still runs its pager string', () => {
    assert.ok(innermost("git -ccore.pager='rm -rf /' log").some((c) => c.startsWith('rm -rf /')));
  });
});

describe('GNU parallel', () => {
  test('appends its input to the command when there is no replacement string', () => {
    const cmds = innermost('parallel rm -rf ::: /');
    assert.ok(cmds.includes('rm -rf <${parallel_input}> [parallel]'), cmds.join(' | '));
  });
  test('puts its input where {} stands, through a shell', () => {
    const cmds = innermost("parallel 'gzip {}; rm -rf {.}' ::: a b");
    assert.ok(cmds.includes('rm -rf <${parallel_input}> [parallel]'), cmds.join(' | '));
  });
});

describe('arithmetic evaluation is marked on the analysis', () => {
  test('((…)), for ((…)) and [[ … -eq … ]] set it, also inside bash -c; plain tests and $((…)) words do not', () => {
    for (const src of ['((x))', 'for ((i=0; i<3; i++)); do :; done', '[[ $x -eq 1 ]]', '[[ a < b || $n -ge 2 ]]', "bash -c '((y))'"]) {
      assert.equal(analyzeShell(src).arithmetic, true, src);
    }
    // $((…)) shows on the word itself (substitutionKinds), so the flag stays for compound commands.
    for (const src of ['[[ -f x ]]', '[[ $a == b ]]', 'echo $((1+2))', 'ls']) assert.notEqual(analyzeShell(src).arithmetic, true, src);
  });
});
