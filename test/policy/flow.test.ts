// The per-line data-flow graph (policy/flow.ts) on real parses, with a toy source: any command that reads a file
// named SECRET (or runs `leak`) outputs tainted data. Each carrier has a malicious case and a near-miss.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeTaint, lineFlow, type FlowHooks, type LineFlow, type Taint } from '../../src/policy/flow.ts';
import { analyzeShell } from '../../src/shell/unwrap.ts';
import { createRuleContext } from '../../src/policy/context.ts';
import { EXAMPLE_CONTEXT } from '../../src/policy/examples.ts';
import { programName, staticValue } from '../../src/shell/program.ts';
import type { Analysis, SimpleCommand } from '../../src/shell/types.ts';

const ctx = createRuleContext(EXAMPLE_CONTEXT);
const isSecret = (p: string | null): boolean => p !== null && /(^|\/)SECRET$/.test(p);
const T = (what: string): Taint => ({ kind: 'secret', what, via: [] });

const hooks: FlowHooks = {
  source(c: SimpleCommand) {
    if (programName(c) === 'leak') return T('leak');
    if (programName(c) === 'echo' || programName(c) === 'printf') return null;
    for (const w of c.argv.slice(1)) if (isSecret(staticValue(w))) return T('SECRET');
    for (const r of c.redirects) if (r.access === 'read' && isSecret(staticValue(r.target))) return T('SECRET');
    return null;
  },
  secretPath: (p) => (isSecret(p) || p.endsWith('/keys/*') ? T(p) : null),
  reads(c) {
    if (!['cat', 'base64', 'curl'].includes(programName(c) ?? '')) return [];
    const out: string[] = [];
    for (const w of c.argv.slice(1)) {
      const v = staticValue(w);
      const p = v?.startsWith('@') ? v.slice(1) : v;
      if (p && !p.startsWith('-')) { const abs = ctx.path(p).abs; if (abs) out.push(abs); }
    }
    return out;
  },
};

function flowOf(line: string): { a: Analysis; f: LineFlow } {
  const a = analyzeShell(line);
  assert.equal(a.status, 'ok', `${line}: ${a.message ?? ''}`);
  return { a, f: lineFlow(a, ctx, hooks) };
}

/** The last command named `prog` in the line. */
function last(a: Analysis, prog: string): SimpleCommand {
  const c = [...a.commands].reverse().find((x) => programName(x) === prog);
  assert.ok(c, `no ${prog}`);
  return c;
}

/** Does any argument word of the last `sink` carry taint (or name a file that does), or its stdin? */
function reaches(line: string, sink = 'send'): Taint | null {
  const { a, f } = flowOf(line);
  const c = last(a, sink);
  for (const w of c.argv.slice(1)) {
    const t = f.word(w, c);
    if (t) return t;
    const v = staticValue(w)?.replace(/^@/, '');
    const abs = v ? ctx.path(v).abs : null;
    const ft = abs ? f.file(abs) : null;
    if (ft) return ft;
  }
  return f.stdin(c.id);
}

function table(name: string, rows: readonly (readonly [string, boolean])[]): void {
  describe(name, () => {
    for (const [line, tainted] of rows) {
      test(`${line} ${tainted ? 'carries' : 'does not carry'} the secret`, () => {
        assert.equal(reaches(line) !== null, tainted);
      });
    }
  });
}

table('pipes and transformers', [
  ['cat SECRET | send', true],
  ['cat SECRET | base64 | gzip | tr a-z n-za-m | send', true],
  ['cat SECRET | wc -c | send', false],
  ['cat README | send', false],
  ['{ cat SECRET; } | send', true],
  ['( cat SECRET ) | base64 | send', true],
]);

table('substitutions, here-strings and here-documents', [
  ['send "$(cat SECRET)"', true],
  ['send "$(cat SECRET | base64)"', true],
  ['send "$(cat README)"', false],
  ['send "$(cat SECRET | wc -c)"', false],
  ['send <<< "$(cat SECRET)"', true],
  ['send <<< "hello"', false],
  ['send "$(< SECRET)"', true],
  ['k=$(cat SECRET)\nsend <<EOF\n$k\nEOF', true],
  ['k=$(cat SECRET)\nsend <<\'EOF\'\n$k\nEOF', false],
]);

table('variables', [
  ['k=$(cat SECRET); send "$k"', true],
  ['k=$(cat README); send "$k"', false],
  ['export K=$(cat SECRET); send "$K"', true],
  ['declare -x K="$(leak)"; send $K', true],
  ['local K=$(leak); send x', false],
  ['read -r k < SECRET; send "$k"', true],
  ['read -r k < README; send "$k"', false],
  ['cat SECRET | while read -r line; do send "$line"; done', true],
  ['while read l; do send $l; done < SECRET', true],
  ['mapfile -t L < SECRET; send "${L[@]}"', true],
  ['printf -v p %s "$(leak)"; send "$p"', true],
  ['a=$(leak); b="x$a"; send "$b"', true],
  ['K=$(leak) bash -c \'send "$K"\'', true],
]);

table('wrappers: xargs, parallel, find -exec, sudo', [
  ['cat SECRET | xargs -I{} send {}', true],
  ['cat SECRET | xargs send', true],
  ['cat README | xargs -I{} send {}', false],
  ['leak | parallel send {}', true],
  ['cat SECRET | sudo send', true],
  ['cat SECRET | xargs -I{} sh -c \'send "$1"\' _ {}', true],
  ['cat SECRET | xargs -0 sh -c \'send "$0"\'', true],
  ['cat README | xargs -I{} sh -c \'send "$1"\' _ {}', false],
  ['echo hi | sudo send', false],
]);

table('files written, then read in the same line', [
  ['cat SECRET > /tmp/x; send @/tmp/x', true],
  ['cat SECRET | tee /tmp/x >/dev/null; send /tmp/x', true],
  ['cp SECRET /tmp/x && send /tmp/x', true],
  ['cp SECRET pkg/ && send pkg/SECRET', true],
  ['tar czf /tmp/a.tgz SECRET && send /tmp/a.tgz', true],
  ['leak > /tmp/x; cat /tmp/x | base64 | send', true],
  ['cat README > /tmp/x; send /tmp/x', false],
  ['cat SECRET > /tmp/x; send /tmp/y', false],
  ['cat SECRET 2> /tmp/x; send /tmp/x', false],
]);

table('functions and loops', [
  ['f() { send; }; cat SECRET | f', true],
  ['f() { send "$1"; }; f "$(leak)"', true],
  ['f() { send; }; cat README | f', false],
  ['for f in /home/dev/keys/*; do send "$f"; done', true],
  ['for f in $(leak); do send "$f"; done', true],
  ['for f in src/*.ts; do send "$f"; done', false],
  ['cat SECRET | split -b 50 - /tmp/p.; for f in /tmp/p.*; do send "$f"; done', true],
  ['cat README | split -b 50 - /tmp/p.; for f in /tmp/p.*; do send "$f"; done', false],
]);

describe('line facts', () => {
  test('files() lists the files that carry data, by absolute path', () => {
    const { f } = flowOf('cat SECRET > out.txt; cat README > notes.txt');
    assert.deepEqual([...f.files().keys()], ['/home/dev/project/out.txt']);
  });
  test('computedVars() names variables assigned from a command substitution, secret or not', () => {
    const { f } = flowOf('a=$(hostname); b=plain; export C=$(date); for d in $(ls); do :; done');
    assert.deepEqual([...f.computedVars()].sort(), ['C', 'a', 'd']);
  });
  test('stdout() of a wrapper is what its inner command prints', () => {
    const { a, f } = flowOf('sudo cat SECRET');
    assert.ok(f.stdout(a.commands[0]!.id));
  });
  test('describeTaint names the source and the carriers in order', () => {
    const t = reaches('k=$(cat SECRET | base64); send "$k"');
    assert.ok(t);
    assert.equal(describeTaint(t), 'SECRET, through base64 and $k');
  });
  test('backward steps in a loop are followed; past the cap the flow says it is incomplete', () => {
    assert.ok(reaches('while true; do b=$a; a=$(leak); send "$b"; done'));
    const back = Array.from({ length: 40 }, (_, i) => `k${40 - i}=$k${39 - i}`).join('; ');
    const { f } = flowOf(`while true; do ${back}; k0=$(leak); send "$k40"; done`);
    assert.equal(f.incomplete, true);
    assert.equal(flowOf('k=$(leak); send "$k"').f.incomplete, false);
  });
  test('a line with no source is clean everywhere, and a long line ends', () => {
    const line = Array.from({ length: 200 }, (_, i) => `a${i}=$(echo $a${i - 1}) && cat x${i} | send`).join('; ');
    const { a, f } = flowOf(line);
    for (const c of a.commands) assert.equal(f.stdout(c.id), null);
  });
});
