import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseShell } from '../../src/shell/parse.ts';
import { MAX_INPUT_CHARS, MAX_NESTING } from '../../src/shell/limits.ts';
import type { AnalysisStatus } from '../../src/shell/types.ts';

function status(src: string): AnalysisStatus {
  const a = parseShell(src);
  if (a.status !== 'ok') {
    assert.ok(a.message && a.message.length > 0, `a ${a.status} result must say why`);
    assert.deepEqual(a.commands, []);
  }
  return a.status;
}

function nest(open: string, close: string, n: number, inner = 'x'): string {
  return open.repeat(n) + inner + close.repeat(n);
}

describe('hostile input: size and nesting limits', () => {
  test('a 1 MB command is too_long', () => {
    assert.equal(status('echo ' + 'a'.repeat(1024 * 1024)), 'too_long');
  });

  test('a command just under the size limit made of one long word parses', () => {
    const a = parseShell('echo ' + 'a'.repeat(MAX_INPUT_CHARS - 10));
    assert.equal(a.status, 'ok');
    assert.equal(a.commands[0]!.argv[1]!.value.length, MAX_INPUT_CHARS - 10);
  });

  test('a long quoted string, a long comment and a long here-document parse', () => {
    const big = 'z'.repeat(200_000);
    assert.equal(status(`echo "${big}"`), 'ok');
    assert.equal(status(`echo a # ${big}`), 'ok');
    assert.equal(status(`cat <<E\n${big}\nE`), 'ok');
    assert.equal(status(`cat <<E\n${'$x\n'.repeat(50_000)}E`), 'ok');
  });

  test('tens of thousands of commands are too_complex', () => {
    assert.equal(status('a;'.repeat(100_000)), 'too_complex');
    assert.equal(status('a|'.repeat(60_000) + 'a'), 'too_complex');
    assert.equal(status('echo ' + 'w '.repeat(100_000)), 'too_complex');
  });

  test('500 nested $( are too_deep', () => {
    assert.equal(status(nest('$(', ')', 500)), 'too_deep');
  });

  test('500 nested subshells, groups and quotes-in-substitutions are too_deep', () => {
    assert.equal(status(nest('( ', ' )', 500)), 'too_deep');
    assert.equal(status(nest('{ ', '; }', 500)), 'too_deep');
    assert.equal(status(nest('echo "$(', ')"', 500)), 'too_deep');
    assert.equal(status(nest('${x:-', '}', 500)), 'too_deep');
    assert.equal(status(nest('$((', '))', 500, '1')), 'too_deep');
    assert.equal(status(nest('<(', ')', 500)), 'too_deep');
    assert.equal(status('if a; then '.repeat(500) + 'x' + '; fi'.repeat(500)), 'too_deep');
    assert.equal(status('[[ ' + '! '.repeat(500) + 'x ]]'), 'too_deep');
    assert.equal(status('[[ ' + nest('( ', ' )', 500) + ' ]]'), 'too_deep');
  });

  test('nesting up to the limit is accepted', () => {
    assert.equal(status(nest('$(', ')', MAX_NESTING - 2)), 'ok');
  });

  test('500 unclosed openers fail fast and closed', () => {
    for (const open of ['$(', '(', '{ ', '"$(', '${x:-', '$((', '((', '$[', '<(', "'", '"', 'a[']) {
      const s = status(open.repeat(501));
      assert.notEqual(s, 'ok', open);
    }
  });

  test('many backticks in a row and nested escaped backticks do not throw', () => {
    assert.equal(status('echo ' + '``'.repeat(5000)), 'ok');
    let s = 'x';
    for (let i = 0; i < 12; i++) s = 'echo `' + s.replace(/[\\`]/g, '\\$&') + '`';
    assert.equal(status(s), 'ok');
    assert.notEqual(status('`'.repeat(5001)), 'ok');
  });

  test('brace expansion past the cap is refused', () => {
    assert.equal(status('echo ' + '{a,b}'.repeat(30)), 'refused');
    assert.equal(status('echo {1..10000000}'), 'refused');
    assert.equal(status('echo {1..99999999999999999999}'), 'refused');
    assert.equal(status('echo {' + 'a,'.repeat(1100) + 'a}'), 'refused');
  });

  test('a word with thousands of braces is too_complex, whatever their shape', () => {
    for (const w of [nest('{a,', '}', 2000), nest('{', '}', 5000), '{a'.repeat(5000), '{1..1}'.repeat(5000), '{a}'.repeat(5000)]) {
      assert.equal(status('echo ' + w), 'too_complex', w.slice(0, 12));
    }
  });

  test('words made of thousands of glob brackets, quotes, escapes or expansions parse', () => {
    for (const w of ['['.repeat(100_000), '[a'.repeat(50_000), "''".repeat(50_000), '\\a'.repeat(50_000), '$a'.repeat(50_000), '*'.repeat(100_000)]) {
      assert.equal(status('echo ' + w), 'ok', w.slice(0, 6));
    }
  });

  test('a brace expansion of a long word that would make megabytes of text is refused', () => {
    assert.equal(status('echo ' + '{a,b}'.repeat(10) + 'x'.repeat(200_000)), 'refused');
  });

  test('inputs that need long look-ahead over and over stay linear and fail closed', () => {
    assert.notEqual(status('echo $((a ; '.repeat(20_000)), 'ok');
    assert.notEqual(status('a[x '.repeat(50_000)), 'ok');
    assert.notEqual(status('x=(( '.repeat(50_000)), 'ok');
    assert.notEqual(status('cat <<E '.repeat(30_000)), 'ok');
  });
});

describe('hostile input: characters', () => {
  test('NUL and other control characters are refused', () => {
    for (const c of ['\0', '\x01', '\x07', '\x1b', '\x7f', '\r', '\x85', '\x9b', '\v', '\f']) {
      assert.equal(status(`echo a${c}b`), 'refused', JSON.stringify(c));
      assert.equal(status(`echo "a${c}b"`), 'refused', JSON.stringify(c));
    }
  });

  test('a CRLF line ending is refused', () => {
    assert.equal(status('echo a\r\nrm -rf /'), 'refused');
  });

  test('a lone surrogate is refused; a real astral character is fine', () => {
    assert.equal(status('echo \ud800'), 'refused');
    assert.equal(status('echo \udc00x'), 'refused');
    assert.equal(status('echo x\ud83d'), 'refused');
    assert.equal(status('echo \ud83d\ude00'), 'ok');
  });

  test('NBSP between words is refused outside quotes and is data inside them', () => {
    assert.equal(status('rm\u00a0-rf /'), 'refused');
    const a = parseShell('echo "a\u00a0b"');
    assert.equal(a.status, 'ok');
    assert.equal(a.commands[0]!.argv[1]!.value, 'a\u00a0b');
  });

  test('a zero-width joiner in a command name is refused', () => {
    assert.equal(status('r\u200dm -rf /'), 'refused');
    assert.equal(status('echo \u200b'), 'refused');
    assert.equal(status('echo \ufeffx'), 'refused');
    assert.equal(status("echo '\u200b'"), 'ok');
  });

  test('Unicode spaces outside quotes are refused', () => {
    for (const c of ['\u2000', '\u2003', '\u2009', '\u202f', '\u205f', '\u3000', '\u1680', '\u2028', '\u2029']) {
      assert.equal(status(`echo${c}x`), 'refused', c.charCodeAt(0).toString(16));
    }
  });

  test('bidirectional controls are refused even inside quotes and comments', () => {
    assert.equal(status('echo "\u202e"'), 'refused');
    assert.equal(status('echo a # \u2066x\u2069'), 'refused');
  });

  test('ordinary non-ASCII text is accepted', () => {
    const a = parseShell('echo héllo 日本 "ß"');
    assert.equal(a.status, 'ok');
    assert.deepEqual(a.commands[0]!.argv.map((w) => w.value), ['echo', 'héllo', '日本', 'ß']);
  });
});

describe('hostile input: unterminated and malformed constructs', () => {
  const unparseable = [
    'echo "abc', "echo 'abc", 'echo $(id', 'echo `id', 'echo ${x', 'echo $((1+2)', '(a', '{ a;', 'if a; then b',
    'while a; do b', 'case x in a) b;;', 'a &&', 'a |', 'a ||', ';', 'a;;', '&& a', '| a', ')', 'a )', '}', 'then',
    'fi', 'done', 'esac', 'a (b)', 'f() echo', '{ }', '( )', 'if a; then fi', '[[ a', '[[ a b ]]', '[[ -f ]]',
    'echo >', 'cat <', 'echo a &;', 'echo a; ;', 'for x in a b do echo; done', 'case a in ) ;; esac',
    'echo a | ! b', '! | a', "echo $'abc", 'a[x', '(a) b', '{ a; } b', 'echo ${x:-$(id}', 'time &', 'x=(a',
  ];
  for (const src of unparseable) {
    test(`${JSON.stringify(src)} is unparseable, with a location`, () => {
      const a = parseShell(src);
      assert.equal(a.status, 'unparseable', `${src}: ${a.status} ${a.message}`);
      assert.match(a.message!, /line \d+, column \d+|end of input/);
    });
  }

  test('an unterminated here-document is refused, not ok', () => {
    assert.equal(status('cat <<EOF\nbody'), 'refused');
    assert.equal(status('cat <<EOF'), 'refused');
    assert.equal(status('x=$(cat <<EOF\nin\nEOF)'), 'refused');
  });

  test('extglob and zsh syntax are refused', () => {
    for (const src of ['ls !(x)', 'ls *(x)', 'ls +(a|b)', 'ls @(a)', 'ls ?(a)', 'diff =(ls) x', 'ls *(.)']) {
      assert.equal(status(src), 'refused', src);
    }
  });

  test('parameter expansions we do not model are refused', () => {
    assert.equal(status('echo ${ id; }'), 'refused');
    assert.equal(status('echo ${|id;}'), 'refused');
    assert.equal(status('echo ${}'), 'refused');
  });

  test('a reserved word split by a line continuation is refused', () => {
    assert.equal(status('i\\\nf true; then x; fi'), 'refused');
  });

  test('a line continuation inside an operator is refused', () => {
    assert.equal(status('a &\\\n& b'), 'refused');
    assert.equal(status('a |\\\n& b'), 'refused');
    assert.equal(status('echo $\\\n(id)'), 'refused');
  });

  test('non-string input is unparseable, not a crash', () => {
    assert.equal(parseShell(undefined as unknown as string).status, 'unparseable');
    assert.equal(parseShell(42 as unknown as string).status, 'unparseable');
  });
});

describe('hostile input: random bytes never crash the parser', () => {
  test('thousands of random shell-ish strings each give a status and never throw', () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = ['a', 'b', ' ', '\n', '\t', ';', '&', '|', '(', ')', '{', '}', '[', ']', '<', '>', '$', '`', '"', "'",
      '\\', '#', '*', '?', '!', '~', '=', ',', '.', '-', '0', '1', '@', '%', '^', ':', '/', 'if ', 'then ', 'fi',
      'case ', ' in ', 'esac', 'do ', 'done', '((', '))', '$(', '${', '<<', 'EOF', '[[ ', ' ]]', 'for ', 'é', '\u00a0'];
    const statuses = new Set(['ok', 'unparseable', 'too_long', 'too_deep', 'too_complex', 'refused']);
    for (let i = 0; i < 4000; i++) {
      let s = '';
      const len = 1 + rnd(40);
      for (let k = 0; k < len; k++) s += alphabet[rnd(alphabet.length)];
      const a = parseShell(s);
      assert.ok(statuses.has(a.status), s);
      if (a.status === 'ok') {
        for (const c of a.commands) {
          assert.equal(typeof c.text, 'string');
          for (const w of c.argv) assert.equal(typeof w.value, 'string');
        }
      } else {
        assert.ok(a.message, s);
        assert.ok(!/^\s*at /m.test(a.message!), 'no stack trace in messages');
      }
    }
  });
});
