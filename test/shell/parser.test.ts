import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseShell } from '../../src/shell/parse.ts';
import type { Analysis, SimpleCommand } from '../../src/shell/types.ts';

function ok(src: string): Analysis {
  const a = parseShell(src);
  assert.equal(a.status, 'ok', `expected ok for ${JSON.stringify(src)}, got ${a.status}: ${a.message}`);
  return a;
}

function argvs(src: string): string[][] {
  return ok(src).commands.map((c) => c.argv.map((w) => w.value));
}

function cmd(a: Analysis, program: string): SimpleCommand {
  const c = a.commands.find((x) => x.argv[0]?.value === program);
  assert.ok(c, `no command ${program} in ${JSON.stringify(a.commands.map((x) => x.text))}`);
  return c;
}

// Each case: the line, then the argv values of every command in order (an empty list is a command
// with no words: a bare assignment or redirection).
const TABLE: Array<[string, string[][]]> = [
  // quoting tricks
  ['r\\m -rf /', [['rm', '-rf', '/']]],
  ["'r'm -rf /", [['rm', '-rf', '/']]],
  ['""rm -rf /', [['rm', '-rf', '/']]],
  ["$'\\x72\\x6d' -rf /", [['rm', '-rf', '/']]],
  ["$'\\162\\155' x", [['rm', 'x']]],
  ["$'\\u0072m' x", [['rm', 'x']]],
  ['"r"\'m\' x', [['rm', 'x']]],
  ['echo "a b" c', [['echo', 'a b', 'c']]],
  ["echo 'a\"b'", [['echo', 'a"b']]],
  ['echo "a\'b"', [['echo', "a'b"]]],
  ['echo "a\\"b"', [['echo', 'a"b']]],
  ['echo "a\\b"', [['echo', 'a\\b']]],
  ['echo "\\$x"', [['echo', '$x']]],
  ['echo \\$x', [['echo', '$x']]],
  ['echo a\\ b', [['echo', 'a b']]],
  ['echo \\\\', [['echo', '\\']]],
  ["echo $'a\\'b'", [['echo', "a'b"]]],
  ["echo $'tab\\there'", [['echo', 'tab\there']]],
  ["echo $'\\e[1m'", [['echo', '\x1b[1m']]],
  ["echo $'\\cA'", [['echo', '\x01']]],
  ["echo $'a\\0b'c", [['echo', 'ac']]],
  ['echo $"hello"', [['echo', 'hello']]],
  ['echo ""', [['echo', '']]],
  ["echo ''", [['echo', '']]],
  ['echo "$"', [['echo', '$']]],
  ['echo $', [['echo', '$']]],
  ['echo a$', [['echo', 'a$']]],
  // line continuations
  ['r\\\nm -rf /', [['rm', '-rf', '/']]],
  ['echo a \\\n b', [['echo', 'a', 'b']]],
  ['echo "a\\\nb"', [['echo', 'ab']]],
  ["echo 'a\\\nb'", [['echo', 'a\\\nb']]],
  // comments
  ['echo "a"#; rm -rf /', [['echo', 'a#'], ['rm', '-rf', '/']]],
  ['echo a#b', [['echo', 'a#b']]],
  ['echo a #b; rm x', [['echo', 'a']]],
  ['echo a;#b\nrm x', [['echo', 'a'], ['rm', 'x']]],
  ['# only a comment', []],
  ['echo $#', [['echo', '$#']]],
  ['echo ${#x}', [['echo', '${#x}']]],
  // lists and pipelines
  ['a; b & c && d || e', [['a'], ['b'], ['c'], ['d'], ['e']]],
  ['a\nb\n\nc', [['a'], ['b'], ['c']]],
  ['a | b |& c', [['a'], ['b'], ['c']]],
  ['! a | b', [['a'], ['b']]],
  ['! ! a', [['a']]],
  ['time a', [['a']]],
  ['time -p a | b', [['a'], ['b']]],
  ['a | time b', [['a'], ['time', 'b']]],
  ['coproc a b', [['a', 'b']]],
  ['coproc NAME { a; }', [['a']]],
  ['a &&\n b', [['a'], ['b']]],
  ['a |\n\n b', [['a'], ['b']]],
  ['a &\nb', [['a'], ['b']]],
  // compound commands
  ['(a; b)', [['a'], ['b']]],
  ['{ a; b; }', [['a'], ['b']]],
  ['{ echo }; }', [['echo', '}']]],
  ['if a; then b; elif c; then d; else e; fi', [['a'], ['b'], ['c'], ['d'], ['e']]],
  ['if a; then b; fi | sh', [['a'], ['b'], ['sh']]],
  ['while a; do b; done', [['a'], ['b']]],
  ['until a\ndo b\ndone', [['a'], ['b']]],
  ['for x in a b; do echo $x; done', [['echo', '$x']]],
  ['for x; do echo; done', [['echo']]],
  ['for x do echo; done', [['echo']]],
  ['for x in a; { echo; }', [['echo']]],
  ['for ((i=0; i<3; i++)); do echo $i; done', [['echo', '$i']]],
  ['for ((;;)) { a; }', [['a']]],
  ['select x in a b; do echo; done', [['echo']]],
  ['case $x in a) b;; c|d) e;& f) g;;& *) h; esac', [['b'], ['e'], ['g'], ['h']]],
  ['case x in (a) b;; esac', [['b']]],
  ['case x in a) esac', []],
  ['case x\nin\na)\nb\n;;\nesac', [['b']]],
  ['case $x in $(id)) ;; esac', [['id']]],
  ['[[ $(id) == x ]]', [['id']]],
  ['[[ -f a && ( b < c || ! d ) ]]', []],
  ['[[ x =~ ^(a|b)+$ ]] && echo', [['echo']]],
  ['(( a[$(id)] ))', [['id']]],
  ['(( x = 1 + 2 ))', []],
  ['((a)); ( (b) )', [['b']]],
  ['f(){ rm -rf /; }; f', [['rm', '-rf', '/'], ['f']]],
  ['function f { a; }', [['a']]],
  ['function f() ( a )', [['a']]],
  ['f ( ) { a; } > x', [['a']]],
  ['f()\n{ a; }', [['a']]],
  // substitutions
  ['echo $(id)', [['echo', '$(id)'], ['id']]],
  ['echo `id`', [['echo', '`id`'], ['id']]],
  ['echo `echo \\`id\\``', [['echo', '`echo \\`id\\``'], ['echo', '`id`'], ['id']]],
  ['echo "$(echo "a b")"', [['echo', '$(echo "a b")'], ['echo', 'a b']]],
  ['echo "`echo \\"x\\"`"', [['echo', '`echo \\"x\\"`'], ['echo', 'x']]],
  ['$(case x in a) y;; esac)', [['$(case x in a) y;; esac)'], ['y']]],
  ['echo $(case x in (a) y;; esac)', [['echo', '$(case x in (a) y;; esac)'], ['y']]],
  ['echo $((1+2))', [['echo', '$((1+2))']]],
  ['echo $(( $(id) + 1 ))', [['echo', '$(( $(id) + 1 ))'], ['id']]],
  ['echo $((echo a); (echo b))', [['echo', '$((echo a); (echo b))'], ['echo', 'a'], ['echo', 'b']]],
  ['echo $[1+2]', [['echo', '$[1+2]']]],
  ['echo ${x:-$(id)}', [['echo', '${x:-$(id)}'], ['id']]],
  ['echo ${x:-"$(id)"}', [['echo', '${x:-"$(id)"}'], ['id']]],
  ['echo "${x:-`id`}"', [['echo', '${x:-`id`}'], ['id']]],
  ['echo ${x/a/b} ${!x} ${x[@]} ${#x[*]} $1 $@ $* $? $$ $! $- $0', [['echo', '${x/a/b}', '${!x}', '${x[@]}', '${#x[*]}', '$1', '$@', '$*', '$?', '$$', '$!', '$-', '$0']]],
  ['echo ${x:-}}', [['echo', '${x:-}}']]],
  ["echo ${x:-'}'}", [['echo', "${x:-'}'}"]]],
  ['diff <(ls a) >(tee x)', [['diff', '<(ls a)', '>(tee x)'], ['ls', 'a'], ['tee', 'x']]],
  ['echo a<(x)b', [['echo', 'a<(x)b'], ['x']]],
  ['for f in $(ls); do rm $f; done', [['ls'], ['rm', '$f']]],
  ['x=$(rm -rf /)', [[], ['rm', '-rf', '/']]],
  ['echo $(a; b | c)', [['echo', '$(a; b | c)'], ['a'], ['b'], ['c']]],
  ['echo $( )', [['echo', '$( )']]],
  // brace expansion
  ['{rm,-rf,/}', [['rm', '-rf', '/']]],
  ['echo a{b,c}d', [['echo', 'abd', 'acd']]],
  ['echo {1..3}', [['echo', '1', '2', '3']]],
  ['echo {a..c}', [['echo', 'a', 'b', 'c']]],
  ['echo {01..03}', [['echo', '01', '02', '03']]],
  ['echo {1..10..4}', [['echo', '1', '5', '9']]],
  ['echo {3..1}', [['echo', '3', '2', '1']]],
  ['echo {a,b{1,2}}', [['echo', 'a', 'b1', 'b2']]],
  ['echo "{a,b}"', [['echo', '{a,b}']]],
  ["echo '{a,b}'", [['echo', '{a,b}']]],
  ['echo {} {x} {a..}', [['echo', '{}', '{x}', '{a..}']]],
  ['echo ${a,b}', [['echo', '${a,b}']]],
  ['echo \\${a,b}', [['echo', '$a', '$b']]],
  ['echo {"a",b}', [['echo', 'a', 'b']]],
  ['echo {,}x', [['echo', 'x', 'x']]],
  ['echo x{,}', [['echo', 'x', 'x']]],
  ['echo {a}{b,c}', [['echo', '{a}b', '{a}c']]],
  ['echo x{y{a,b}', [['echo', 'x{ya', 'x{yb']]],
  ['a={x,y} echo', [['echo']]],
  // redirections
  ['echo > f', [['echo']]],
  ['> f', [[]]],
  ['ls 2>&1 >f {fd}>x 3<&- <in &>>log', [['ls']]],
  ['cat <<< "$(id)"', [['cat'], ['id']]],
  ['exec 3<> file', [['exec']]],
  // here-documents
  ['cat <<EOF\n$(id)\nEOF', [['cat'], ['id']]],
  ["cat <<'EOF'\n$(id)\nEOF", [['cat']]],
  ['cat <<"EOF"\n`id`\nEOF', [['cat']]],
  ['cat <<\\EOF\n$(id)\nEOF', [['cat']]],
  ['cat <<EOF | sh\nrm -rf /\nEOF', [['cat'], ['sh']]],
  ['cat <<A; cat <<B\na\nA\nb\nB\necho end', [['cat'], ['cat'], ['echo', 'end']]],
  ['cat <<-EOF\n\t$(id)\n\tEOF\necho end', [['cat'], ['id'], ['echo', 'end']]],
  ['cat <<EOF; echo $(a\nb)\nbody\nEOF', [['cat'], ['echo', '$(a\nb)'], ['a'], ['b']]],
  ['x=$(cat <<EOF\nin\nEOF\n); echo', [[], ['cat'], ['echo']]],
  ['cat <<EOF\n\\$(id)\nEOF', [['cat']]],
  ['cat <<EOF\na \\\nEOF\nb\nEOF', [['cat']]],
  // assignments
  ['a=(1 2); b=$((1+2))', [[], []]],
  ['A=1 B=2 cmd x', [['cmd', 'x']]],
  ['a+=x; a[1]=y; a[1 + 1]=z', [[], [], []]],
  ['a=(x $(id) y)', [[], ['id']]],
  ['declare -a a=(1 $(id))', [['declare', '-a', 'a=(1 $(id))'], ['id']]],
  ['export A=1', [['export', 'A=1']]],
  ['a=1 b=2', [[]]],
  ['a[$(id)]=x', [[], ['id']]],
  // globs and tildes
  ['echo *.txt a?b [ab]c [x', [['echo', '*.txt', 'a?b', '[ab]c', '[x']]],
  ['[ -f x ] && echo', [['[', '-f', 'x', ']'], ['echo']]],
  ['ls ~ ~/x', [['ls', '~', '~/x']]],
  // constant propagation
  ['d=build; rm -rf $d', [[], ['rm', '-rf', 'build']]],
  ['x=rm; $x -rf /', [[], ['rm', '-rf', '/']]],
  ['d=build; rm -rf "$d"/x', [[], ['rm', '-rf', 'build/x']]],
  ['d=build; rm -rf ${d}', [[], ['rm', '-rf', 'build']]],
];

describe('parseShell: tricky cases table', () => {
  for (const [src, want] of TABLE) {
    test(`parses ${JSON.stringify(src)} into its commands`, () => {
      assert.deepEqual(argvs(src), want);
    });
  }
});

describe('parseShell: words', () => {
  test('a quoted word is literal and its raw keeps the quotes', () => {
    const w = ok(`echo 'a b'`).commands[0]!.argv[1]!;
    assert.equal(w.raw, `'a b'`);
    assert.equal(w.value, 'a b');
    assert.equal(w.literal, true);
    assert.equal(w.glob, false);
  });

  test('an expansion makes a word dynamic and lists its variable', () => {
    const w = ok('cat $HOME/.ssh/id_rsa').commands[0]!.argv[1]!;
    assert.equal(w.value, '$HOME/.ssh/id_rsa');
    assert.equal(w.literal, false);
    assert.deepEqual(w.vars, ['HOME']);
  });

  test('unquoted glob characters set glob and clear literal; quoted ones do not', () => {
    const a = ok('ls *.ts "*.md" \\*.js').commands[0]!;
    assert.deepEqual(a.argv.slice(1).map((w) => [w.glob, w.literal]), [[true, false], [false, true], [false, true]]);
  });

  test('a command substitution lists the ids of the commands it runs and its kind', () => {
    const a = ok('echo $(id; whoami) `date` $((1+$(nproc)))');
    const echo = a.commands[0]!;
    const ids = (name: string) => a.commands.filter((c) => c.argv[0]?.value === name).map((c) => c.id);
    assert.deepEqual(echo.argv[1]!.substitutions, [...ids('id'), ...ids('whoami')]);
    assert.deepEqual(echo.argv[1]!.substitutionKinds, ['command']);
    assert.deepEqual(echo.argv[2]!.substitutionKinds, ['backtick']);
    assert.deepEqual(echo.argv[3]!.substitutionKinds, ['arithmetic', 'command']);
    assert.deepEqual(echo.argv[3]!.substitutions, ids('nproc'));
    for (const c of a.commands.slice(1)) assert.equal(c.inSubstitution, true);
  });

  test('process substitutions have their own kinds', () => {
    const a = ok('diff <(a) >(b)');
    assert.deepEqual(a.commands[0]!.argv.slice(1).map((w) => w.substitutionKinds), [['process-in'], ['process-out']]);
  });

  test('a tilde at the start stays in value; a tilde after = in an argument is dynamic', () => {
    const a = ok('ls ~/x a=~/y ~root');
    const [, t1, t2, t3] = a.commands[0]!.argv;
    assert.equal(t1!.value, '~/x');
    assert.equal(t1!.literal, true);
    assert.equal(t2!.value, 'a=~/y');
    assert.equal(t2!.literal, false);
    assert.equal(t3!.literal, false);
  });

  test('parameter expansions nested in quotes list their names', () => {
    const w = ok('echo "${a:-$b}x$c"').commands[0]!.argv[1]!;
    assert.deepEqual(w.vars, ['a', 'b', 'c']);
  });

  test('brace expansion keeps raw as written for every word it produces', () => {
    const argv = ok('echo {a,b}').commands[0]!.argv;
    assert.deepEqual(argv.map((w) => w.raw), ['echo', '{a,b}', '{a,b}']);
  });
});

describe('parseShell: commands', () => {
  test('text is the source slice of each command', () => {
    const a = ok('ls -l  x | grep y; echo "z"');
    assert.deepEqual(a.commands.map((c) => c.text), ['ls -l  x', 'grep y', 'echo "z"']);
  });

  test('depth is written into every command and via starts empty', () => {
    const a = parseShell('a $(b)', { depth: 2 });
    assert.deepEqual(a.commands.map((c) => [c.depth, c.via]), [[2, []], [2, []]]);
  });

  test('a pipe feeds every command of the receiving stage and pipeTo names them', () => {
    const a = ok('curl x | (cd /tmp; sh)');
    const [curl, cd, sh] = a.commands;
    assert.deepEqual(cd!.stdin, { kind: 'pipe', from: [curl!.id] });
    assert.deepEqual(sh!.stdin, { kind: 'pipe', from: [curl!.id] });
    assert.deepEqual(curl!.pipeTo, [cd!.id, sh!.id]);
  });

  test('a command with its own input redirection does not read the pipe', () => {
    const a = ok('curl x | { cat < f; sh; }');
    assert.deepEqual(cmd(a, 'cat').stdin.kind, 'file');
    assert.deepEqual(cmd(a, 'sh').stdin, { kind: 'pipe', from: [cmd(a, 'curl').id] });
    assert.deepEqual(cmd(a, 'curl').pipeTo, [cmd(a, 'sh').id]);
  });

  test('every command of a compound stage sends into the pipe', () => {
    const a = ok('if a; then b; fi | sh');
    assert.deepEqual(cmd(a, 'sh').stdin, { kind: 'pipe', from: [cmd(a, 'a').id, cmd(a, 'b').id] });
  });

  test('only the last stage of an inner pipeline sends into the outer pipe', () => {
    const a = ok('{ a | b; } | c');
    assert.deepEqual(cmd(a, 'c').stdin, { kind: 'pipe', from: [cmd(a, 'b').id] });
    assert.deepEqual(cmd(a, 'a').pipeTo, [cmd(a, 'b').id]);
  });

  test('a command substitution in the receiving stage reads the pipe too', () => {
    const a = ok('curl x | echo $(sh)');
    assert.deepEqual(cmd(a, 'sh').stdin, { kind: 'pipe', from: [cmd(a, 'curl').id] });
  });

  test('stdin comes from a here-document, a here-string or a file', () => {
    const a = ok("cat <<'E'\nhi $x\nE\ncat <<< word; cat < f");
    assert.deepEqual(a.commands[0]!.stdin, { kind: 'heredoc', body: 'hi $x\n', quoted: true });
    assert.equal(a.commands[1]!.stdin.kind, 'herestring');
    assert.equal(a.commands[2]!.stdin.kind, 'file');
  });

  test('a <<- here-document strips leading tabs from its body', () => {
    const a = ok('cat <<-E\n\t\tline\n\tE');
    assert.deepEqual(a.commands[0]!.stdin, { kind: 'heredoc', body: 'line\n', quoted: false });
  });

  test('redirections carry op, fd, target and access', () => {
    const r = ok('cmd 2>err >>log <in 3<&0 >&2 &>all <<<s 4<>rw >&file').commands[0]!.redirects;
    assert.deepEqual(r.map((x) => [x.op, x.fd, x.target.value, x.access]), [
      ['>', 2, 'err', 'write'], ['>>', undefined, 'log', 'write'], ['<', undefined, 'in', 'read'],
      ['<&', 3, '0', 'fd'], ['>&', undefined, '2', 'fd'], ['&>', undefined, 'all', 'write'],
      ['<<<', undefined, 's', 'data'], ['<>', 4, 'rw', 'write'], ['>&', undefined, 'file', 'write'],
    ]);
  });

  test('redirections of a compound command apply to every command inside it', () => {
    const a = ok('{ echo a; echo b; } > ~/.bashrc');
    for (const c of a.commands) assert.deepEqual(c.redirects.map((r) => r.target.value), ['~/.bashrc']);
  });

  test('a compound command with no command inside still reports its redirection', () => {
    const a = ok('case x in esac > /etc/passwd');
    assert.equal(a.commands.length, 1);
    assert.deepEqual(a.commands[0]!.argv, []);
    assert.equal(a.commands[0]!.redirects[0]!.target.value, '/etc/passwd');
  });

  test('function bodies are marked inFunction and their names listed', () => {
    const a = ok('ls() { rm -rf /; }; function g { x; }; ls');
    assert.deepEqual(a.functions, ['ls', 'g']);
    assert.deepEqual(a.commands.map((c) => c.inFunction), [true, true, false]);
  });

  test('alias names are listed', () => {
    const a = ok("alias ls='rm -rf' ll=x; alias");
    assert.deepEqual(a.aliases, ['ls', 'll']);
    assert.deepEqual(a.problems, []);
  });

  test('switching alias expansion on is reported as a problem', () => {
    const a = ok("shopt -s expand_aliases\nalias ls='rm -rf /'\nls");
    assert.deepEqual(a.aliases, ['ls']);
    assert.equal(a.problems.length, 1);
    assert.match(a.problems[0]!, /expand_aliases/);
  });

  test('assignments carry name, value, append and array elements', () => {
    const a = ok('a=1 b+=2 c=(x "y z") cmd');
    const asg = a.commands[0]!.assignments;
    assert.deepEqual(asg.map((x) => [x.name, x.append]), [['a', false], ['b', true], ['c', false]]);
    assert.equal(asg[0]!.value.value, '1');
    assert.deepEqual(asg[2]!.array!.map((w) => w.value), ['x', 'y z']);
  });

  test('an assignment value is not globbed', () => {
    const v = ok('a=*').commands[0]!.assignments[0]!.value;
    assert.equal(v.literal, true);
    assert.equal(v.glob, false);
  });

  test('the here-document body substitution runs inside a substitution', () => {
    const a = ok('cat <<EOF\n$(id)\nEOF');
    assert.equal(cmd(a, 'id').inSubstitution, true);
  });

  test('tee into a process substitution feeds it like a pipe', () => {
    const a = ok('curl x | tee >(sh)');
    assert.deepEqual(cmd(a, 'sh').stdin, { kind: 'pipe', from: [cmd(a, 'tee').id] });
    assert.ok(cmd(a, 'tee').pipeTo.includes(cmd(a, 'sh').id));
  });

  test('a command reading a process substitution gets its output like a pipe', () => {
    const a = ok('bash <(curl x)');
    assert.deepEqual(cmd(a, 'curl').pipeTo, [cmd(a, 'bash').id]);
  });
});

describe('parseShell: constant propagation', () => {
  const values = (src: string) => ok(src).commands.map((c) => c.argv.map((w) => [w.value, w.literal]));

  test('a constant used unquoted stays literal when it has no blanks or glob characters', () => {
    assert.deepEqual(values('d=build; rm -rf $d')[1], [['rm', true], ['-rf', true], ['build', true]]);
  });

  test('a constant with a blank is substituted but not literal when unquoted', () => {
    assert.deepEqual(values("d='a b'; rm $d \"$d\"")[1], [['rm', true], ['a b', false], ['a b', true]]);
  });

  test('a use before the assignment is not resolved', () => {
    assert.deepEqual(values('rm $d; d=x')[0], [['rm', true], ['$d', false]]);
  });

  test('two assignments of the name stop propagation', () => {
    assert.deepEqual(values('d=a; d=b; rm $d')[2]![1], ['$d', false]);
  });

  test('a prefix assignment is not a constant', () => {
    assert.deepEqual(values('d=a rm $d')[0]![1], ['$d', false]);
  });

  test('an assignment inside a subshell, loop, condition or function is not a constant', () => {
    for (const src of ['(d=a); rm $d', 'true && d=a; rm $d', 'd=a & rm $d', 'f() { d=a; }; rm $d', 'd=a | x; rm $d']) {
      const rm = ok(src).commands.find((c) => c.argv[0]?.value === 'rm')!;
      assert.equal(rm.argv[1]!.literal, false, src);
    }
  });

  test('any other way of assigning the name stops propagation', () => {
    for (const src of [
      'd=a; read d; rm $d', 'd=a; export d; rm $d', 'd=a; for d in x; do :; done; rm $d', 'd=a; printf -v d x; rm $d',
      'd=a; (( d=5 )); rm $d', 'd=a; declare -n r=d; rm $d', 'd=a; eval "$x"; rm $d', 'd=a; source f; rm $d',
      'd=a; . f; rm $d', 'd=a; : ${d:=x}; rm $d', 'd=a; mapfile d; rm $d', 'd=a; $cmd x; rm $d',
      'd=a; declare "$n=x"; rm $d', 'd=a; IFS=/; rm $d', 'd=a; let x=1; rm $d', 'd=a; getopts ab d; rm $d',
      'd=a; unset d; rm $d', 'd=a; local d; rm $d', 'd=a; d+=b; rm $d', 'd=a; exec {d}>f; rm $d',
    ]) {
      const rm = ok(src).commands.find((c) => c.argv[0]?.value === 'rm')!;
      assert.equal(rm.argv[1]!.value, '$d', src);
    }
  });

  test('constants are not substituted inside function bodies', () => {
    const a = ok('d=x; f() { rm $d; }; f');
    assert.equal(cmd(a, 'rm').argv[1]!.value, '$d');
  });

  test('constants reach later substitutions and redirect targets', () => {
    const a = ok('d=out; echo $(cat $d) > $d');
    assert.equal(cmd(a, 'cat').argv[1]!.value, 'out');
    assert.equal(cmd(a, 'echo').redirects[0]!.target.value, 'out');
  });
});

describe('parseShell: where bash itself is odd', () => {
  // Each verdict was checked against bash 5.2 (`bash -n`, or running it).
  const STATUS: Array<[string, string]> = [
    // newlines inside [[ ]]: after a complete test yes, after a lone word no
    ['[[ a == b\n&& c ]]', 'ok'],
    ['[[ -n x\n]]', 'ok'],
    ['[[ ( a )\n]]', 'ok'],
    ['[[ a\n]]', 'unparseable'],
    ['[[ a\n&& b ]]', 'unparseable'],
    ['[[ a ==\nb ]]', 'unparseable'],
    ['[[ ]]', 'ok'],
    ['[[ \\-n x ]]', 'unparseable'],
    ['[[ x =~ (a b)|c ]]', 'ok'],
    ['[[ x =~ a>b ]]', 'unparseable'],
    // a compound command with a redirection cannot be followed by a reserved word
    ['if true; then { a; } fi', 'ok'],
    ['if true; then { a; } >x fi', 'unparseable'],
    // `((` that is not arithmetic
    ['(( a )\n)', 'unparseable'],
    ['(( a ) )', 'ok'],
    ['echo $(( echo a ) # )', 'refused'],
    ['echo $((${1+2))', 'refused'],
    // bash 5.2 drops the first `;` after a here-document inside $(…)
    ['x=$(cat <<E\nE\na;b)', 'refused'],
    ['x=$(cat <<E\nE\na\nb)', 'ok'],
    ['x=$(cat <<E\nE\n)', 'ok'],
    ['x=$(a=(x \\; y))', 'refused'],
    // text glued to an array assignment makes it a scalar; bash reads a `[` element as a subscript
    ['a=(x)#; rm -rf /', 'refused'],
    ['a=(x [y)', 'unparseable'],
    ['a=([k]=v)', 'ok'],
    // a backquoted command is parsed only when it runs
    ['echo `"x`', 'refused'],
    // digits glued to a redirection are its fd, not the previous redirection's target
    ['cat <2>/dev/null', 'unparseable'],
    ['a |& \ntime b', 'unparseable'],
    [']]', 'unparseable'],
    ['echo "$$(id "x")"', 'refused'],
    ['echo $a\\\nb', 'refused'],
    ['x\\\n=1 rm', 'refused'],
    ['echo 2\\\n>f', 'refused'],
  ];
  for (const [src, want] of STATUS) {
    test(`${JSON.stringify(src)} is ${want}`, () => {
      const a = parseShell(src);
      assert.equal(a.status, want, a.message);
    });
  }
});
