// Differential test against the real bash: thousands of generated benign commands (and mutations of
// them) are checked with bash itself, one bash process per batch, for syntax and for the argv it builds.
// DIFF_SEED=n runs another generation (to hunt for new differences); KEEP_DIFF_DIR=1 keeps the batch
// scripts and bash's output for a look.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseShell } from '../../src/shell/parse.ts';
import type { Analysis, Redirect } from '../../src/shell/types.ts';

const BASH = ['/bin/bash', '/usr/bin/bash'].find((p) => existsSync(p));

// Every program name the generator uses; in bash each is a function that records its argv.
const PROGRAMS = ['echo', 'printf', 'true', 'cat', 'x', 'y', 'grep', 'ls'];
const END = '@@END@@';
const CASE = '@@CASE@@';
const NL = '@@NL@@';
const US = '@@US@@';
const RS = '@@RS@@';

/** A small seeded PRNG (mulberry32), so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = prng(seed);
  }
  private int(n: number): number {
    return Math.floor(this.r() * n);
  }
  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  private chance(p: number): boolean {
    return this.r() < p;
  }

  piece(): string {
    switch (this.int(11)) {
      case 0: case 1: case 2:
        return this.pick(['a', 'b', 'foo', 'bar', '-n', '-e', '--opt=1', 'x.y', '1', 'a/b', '%s', 'a#b', 'a=b', 'k=v:w', '@', '+', '%', ',', '.', '..', ':', '-', '=', '}', '{', ']', '!x']);
      case 3:
        return "'" + this.pick(['a b', '$x', '"q"', '\\n', 'x\\', '*', '', ' ', '#', '{a,b}', '`x`', '$(x)']) + "'";
      case 4:
        return '"' + this.pick(['a b', 'c', '\\$x', '\\"', '\\\\', 'a\\b', '', '{a,b}', '*', "it's", '#x', '\\`', 'a\\\nb', '$', '$v', '${v}', '$(echo in)', '`echo bt`']) + '"';
      case 5:
        return "$'" + this.pick(['\\x41', '\\101', 'a\\tb', '\\n', '\\u00e9', '\\\\', "\\'", 'q\\x20r', '\\cA', '\\e', '\\"', '\\?', '\\z', '\\x4a4', '\\1234', 'plain', '\\x', '\\U0001F600']) + "'";
      case 6:
        return this.pick(['\\ ', '\\$', '\\"', "\\'", '\\\\', '\\*', '\\#', '\\{a,b\\}', '\\;', '\\a', '\\|', '\\&', '\\(', '\\~', '\\\n']);
      case 7:
        return this.pick(['{a,b}', '{1..3}', 'x{y,z}w', '{a,b}{c,d}', '{01..03}', '{a..c}', '{x,y{1,2}}', '{}', '{a}', '{,x}', '{a..e..2}', '{5..1..2}', '{-1..1}', '{"a",b}', "{'x y',z}", '{a,"b,c"}', '{a..}', 'a{b', 'a}b', '{a,b']);
      case 8:
        return this.pick(['$v', '${v}', '"$v"', '$w', '"${w}x"']);
      case 9:
        return this.pick(['$(echo s)', '`echo t`', '$(echo "$(echo n)")', '*.none', '?', '$((1+2))', '~', '~/x', '[ab]',
          '"$(echo "q \\"r\\"")"', '`echo \\`echo bq\\``', '"${v:-"x y"}"', '${u:-$(echo z)}', '${#v}', '${v/a/b}',
          '$(case k in k) echo c;; esac)', '$( (echo sub) )', '"$(echo a)"b', 'a\\\nb', "$'\\''", '$"t"', '${v:-a b}']);
      default:
        return this.pick(['é', 'ü', '日本', 'a-b', 'A_B', '0x1', '1.5']);
    }
  }

  word(): string {
    let w = this.piece();
    while (this.chance(0.3)) w += this.piece();
    return w;
  }

  simple(): string {
    const parts: string[] = [];
    if (this.chance(0.1)) parts.push(this.pick(['v=1', 'w=a', 'v="x y"', "w='q'", 'z=$(echo a)']));
    parts.push(this.pick(PROGRAMS));
    const n = this.int(4);
    for (let i = 0; i < n; i++) parts.push(this.word());
    if (this.chance(0.08)) parts.push(this.pick(['>/dev/null', '2>/dev/null', '<<< here', '2>&1', '>out.txt', '<&0', '<<< "$v"']));
    let s = parts.join(this.chance(0.05) ? ' \\\n ' : ' ');
    if (this.chance(0.05)) s += ' # ' + this.pick(['comment', '; x', '$(y)', "it's"]);
    return s;
  }

  command(depth: number): string {
    if (depth < 2 && this.chance(0.15)) {
      const inner = this.list(depth + 1);
      // No loops that a mutation could make endless (`while fals` succeeds here), no `!`.
      switch (this.int(11)) {
        case 0: return `{ ${inner}; }`;
        case 1: return `( ${inner} )`;
        case 2: return `if true; then ${inner}; fi`;
        case 3: return `for i in a b; do ${inner}; done`;
        case 4: return `case k in *) ${inner};; esac`;
        case 5: return `[[ -n x && a != b ]] && ${inner}`;
        case 6: return `(( 1 + 2 )) && ${inner}`;
        case 7: return `{ ${inner}; } ${this.pick(['>/dev/null', '2>&1', '</dev/null'])}`;
        case 8: return `case k in (a|k) ${inner};; (*) ;; esac`;
        case 9: return `if true; then ${inner}; elif true; then y; else x; fi`;
        default: return `echo "$(${inner})"`;
      }
    }
    if (this.chance(0.03)) return `cat <<${this.pick(['EOF', "'EOF'", '"EOF"', '-EOF'])}\nbody $(echo hd) \`echo b2\` $v\n\tEOF2\nEOF\n`;
    if (this.chance(0.01)) return `cat <<A; cat <<-B\n$(echo ha)\nA\n\t$(echo hb)\n\tB\n`;
    if (this.chance(0.02)) return `a=(x ${this.word()} "y z"); echo "\${a[@]}"`;
    if (this.chance(0.02)) return `time ${this.simple()}`;
    return this.simple();
  }

  pipeline(depth: number): string {
    let s = this.command(depth);
    while (this.chance(0.2)) s += this.pick([' | ', ' |& ', '|']) + this.command(depth);
    return s;
  }

  list(depth: number): string {
    let s = this.pipeline(depth);
    while (this.chance(0.3)) s += this.pick(['; ', ' && ', '\n', ' & ', ';']) + this.pipeline(depth);
    return s;
  }

  line(): string {
    let s = '';
    if (this.chance(0.25)) s += this.pick(['v=abc; ', 'v=a.b; ', "v='p q'; ", 'w=x; v=y; ', 'v=; ']);
    s += this.list(0);
    return s;
  }

  /** A one-character change: most make bash reject the line. */
  mutate(s: string): string {
    const i = this.int(s.length + 1);
    if (this.chance(0.5) && s.length > 0) return s.slice(0, i) + s.slice(i + 1);
    return s.slice(0, i) + this.pick([';', '|', '&', '(', ')', '{', '}', '"', "'", '`', '$', '\\', '#', '\n', ' ', '<', '>',
      '[[', ']]', '((', '))', 'done', 'fi', 'then', 'do', 'esac', ';;', '!', '$(', '${', '<<', 'in', '=', '[', ']', ',', '..']) + s.slice(i);
  }
}

/** `$'…'` quoting of any string, safe to embed in a bash script. */
function ansiQuote(s: string): string {
  let out = "$'";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\' || ch === "'") out += '\\' + ch;
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + "'";
}

interface BashResult {
  accepted: boolean;
  /** What bash printed while checking the syntax. */
  complaint: string;
  runs: string[][];
}

/** Runs one batch in one bash process: defines each case as a function (syntax check), then runs it. */
async function runBatch(cases: string[], dir: string, home: string, tag: number): Promise<BashResult[]> {
  const out = join(dir, `argv${tag}.bin`);
  const err = join(dir, `err${tag}.txt`);
  const lines: string[] = [];
  lines.push(`exec 3>>${ansiQuote(out)} 4>>${ansiQuote(err)}`);
  // Unknown commands (from mutations) succeed silently, so `&&` chains go on as we assume.
  lines.push('command_not_found_handle() { return 0; }');
  for (const p of PROGRAMS) {
    // One write per record (a pipeline's stages run at the same time): build it, then print it.
    // bash line-buffers its output, so newlines are encoded to keep the record in one write.
    lines.push(`${p}() { local __r; local -a __a=("\${@//$'\\037'/${US}}"); __a=("\${__a[@]//$'\\036'/${RS}}"); builtin printf -v __r '%s\\037' "$FUNCNAME" "\${__a[@]}"; __r=\${__r//$'\\n'/${NL}}; builtin printf '%s${END}\\036' "$__r" >&3; }`);
  }
  cases.forEach((c, i) => {
    lines.push(`builtin printf '${CASE}%d\\036' ${i} >&3`);
    lines.push(`builtin printf '${CASE}%d\\n' ${i} >&4`);
    lines.push('unset -f __f');
    lines.push(`c=${ansiQuote(c)}`);
    // Background jobs can outlive their case and write into the next one's record: not run.
    // Run in a subshell: an expansion error (bad substitution) ends a non-interactive shell.
    const run = BACKGROUND.test(c) ? '' : ` ( eval "__f() {"$'\\n'"$c"$'\\n''}'; __f; wait ) </dev/null 2>/dev/null;`;
    // The check runs in a subshell: some syntax errors inside `$(…)` make bash exit the whole script.
    // A stray `}` (or `fi`) in a case could close a wrapper early: both wrappers must accept it. Code
    // run while checking (after such an early close) must leave no trace, so all its output is
    // dropped and the verdict is eval's status (2 for a syntax error).
    lines.push(`if ( exec 3>/dev/null 2>/dev/null; eval "__f() {"$'\\n'"$c"$'\\n''}' && eval "__g() { if :; then"$'\\n'"$c"$'\\n''fi; }' ); then builtin printf 'DEF_OK\\n' >&4;${run} else builtin printf 'status %d\\n' $? >&4; fi`);
  });
  const script = join(dir, `batch${tag}.sh`);
  writeFileSync(script, lines.join('\n') + '\n');
  writeFileSync(out, '');
  writeFileSync(err, '');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(BASH!, ['--norc', '--noprofile', script], {
      cwd: dir, env: { PATH: '/nonexistent', HOME: home, LC_ALL: 'C.UTF-8' }, stdio: 'ignore', timeout: 60_000,
    });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });

  const results: BashResult[] = cases.map(() => ({ accepted: false, complaint: '', runs: [] }));
  // Syntax: a case is accepted when both wrapped definitions succeeded.
  const errText = readFileSync(err, 'utf8');
  const chunks = errText.split(CASE).slice(1);
  for (const ch of chunks) {
    const nl = ch.indexOf('\n');
    const idx = Number(ch.slice(0, nl));
    const body = ch.slice(nl + 1);
    const defOk = body.includes('DEF_OK\n');
    const complaint = body.replace('DEF_OK\n', '').split('\n').filter((l) => l);
    results[idx]!.accepted = defOk;
    results[idx]!.complaint = complaint.join(' / ');
  }
  let cur = -1;
  for (const rec of readFileSync(out, 'utf8').split('\x1e')) {
    if (rec.startsWith(CASE)) cur = Number(rec.slice(CASE.length));
    else if (rec.endsWith(END) && cur >= 0) {
      const fields = rec.slice(0, -END.length).split(NL).join('\n').split('\x1f').map((f) => f.split(US).join('\x1f').split(RS).join('\x1e'));
      fields.pop(); // the separator after the last field
      results[cur]!.runs.push(fields);
    }
  }
  return results;
}

/**
 * Our commands whose argv is fully literal. A leading `~` stays `~` in our values by design (path
 * classification expands it), so it is expanded here the way bash does with HOME set to `home`.
 * Commands reading a file that does not exist never run in bash, so they are left out.
 */
function literalCommands(a: Analysis, home: string): string[][] {
  return a.commands
    .filter((c) => !c.inFunction && c.argv.length > 0 && c.argv.every((w) => w.literal) && PROGRAMS.includes(c.argv[0]!.value))
    .map((c) => c.argv.map((w) => (tildeExpands(w.raw) && (w.value === '~' || w.value.startsWith('~/')) ? home + w.value.slice(1) : w.value)));
}

const BUILTINS = new Set(['.', ':', '[', 'test', 'source', 'eval', 'exit', 'return', 'break', 'continue', 'shift', 'set',
  'unset', 'export', 'read', 'wait', 'cd', 'exec', 'false', 'kill', 'trap', 'type', 'hash', 'jobs', 'fg', 'bg', 'times',
  'umask', 'alias', 'unalias', 'let', 'local', 'declare', 'typeset', 'readonly', 'shopt', 'enable', 'builtin', 'command',
  'caller', 'compgen', 'complete', 'compopt', 'dirs', 'pushd', 'popd', 'disown', 'help', 'history', 'logout', 'mapfile',
  'readarray', 'suspend', 'ulimit', 'getopts', 'fc', 'bind', 'time']);

function failingName(name: string | undefined): boolean {
  if (name === undefined) return false;
  return name.includes('/') || name.startsWith('~') || name.startsWith('%') || BUILTINS.has(name);
}

/** Whether bash would tilde-expand the word (a leading unquoted `~`, possibly after a brace expansion). */
function tildeExpands(rawWithContinuations: string): boolean {
  const raw = rawWithContinuations.split('\\\n').join('');
  if (/^~(\/|$)/.test(raw)) return true;
  return raw.startsWith('{') && !/[\\'"]~/.test(raw);
}

/** Redirections that cannot fail in the test directory (a failing one stops its command). */
function redirectSucceeds(r: Redirect): boolean {
  if (r.access === 'fd' || r.access === 'data') return true;
  if (r.access === 'read' || r.op === '>&' || r.op === '<&' || !r.target.literal || r.target.raw.includes('{')) return false;
  const v = r.target.value;
  return v === '/dev/null' || (v !== '' && v !== '.' && v !== '..' && !v.includes('/') && !v.startsWith('~'));
}

// A command put in the background inside a pipeline or subshell may outlive the case that started it.
const BACKGROUND = /(?<![&|<>])&(?![&>])/;

describe('differential test against bash', { skip: BASH ? false : 'bash not found' }, () => {
  test('generated commands: bash syntax verdicts match and literal argv equal what bash runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'asimov-bashdiff-'));
    try {
      const gen = new Gen(Number(process.env.DIFF_SEED ?? 20240611));
      const cases: string[] = [];
      while (cases.length < 2000) {
        let s = gen.line();
        if (cases.length % 3 === 2) s = gen.mutate(s);
        if (/\\\s*$/.test(s)) continue; // a trailing backslash would join the wrapper's closing line
        cases.push(s);
      }
      const results: BashResult[] = [];
      // Batches run side by side, each in its own directory.
      const batches: Promise<BashResult[]>[] = [];
      for (let i = 0; i < cases.length; i += 500) {
        const sub = join(dir, `b${i}`);
        mkdirSync(sub);
        batches.push(runBatch(cases.slice(i, i + 500), sub, dir, i));
      }
      for (const r of await Promise.all(batches)) results.push(...r);

      const failures: string[] = [];
      let compared = 0;
      let acceptedCount = 0;
      cases.forEach((src, i) => {
        const b = results[i]!;
        const a = parseShell(src);
        if (b.accepted) acceptedCount++;
        if (b.accepted && a.status === 'unparseable') {
          failures.push(`bash accepts but we say unparseable (${a.message}): ${JSON.stringify(src)}`);
          return;
        }
        // The wrapper `__f() { … }` cannot hold an empty body: bash rejects those for that reason only.
        if (!b.accepted && a.status === 'ok' && a.commands.length === 0) return;
        if (!b.accepted && a.status === 'ok') {
          failures.push(`bash rejects (${b.complaint}) but we say ok: ${JSON.stringify(src)}`);
          return;
        }
        if (!b.accepted || a.status !== 'ok') return;
        // Commands that may legitimately not run: other branches, background jobs, `time` (its report
        // can kill a pipeline with SIGPIPE), a case pattern that does not match, a failing arithmetic
        // expansion, anything after a failing redirection.
        if (/\|\||\belse|\belif|\bwhile|\buntil|(^|[\s;&|(])!(\s|\()|\btime\b/.test(src) || BACKGROUND.test(src)) return;
        if ((src.match(/\bcase\b/g) ?? []).length !== (src.match(/case k in \*\)/g) ?? []).length) return;
        if (src.replaceAll('$((1+2))', '').includes('$((')) return; // an arithmetic error abandons the line
        // Parameter expansions other than the generated ones may fail at run time (bad substitution).
        const known = ['${v}', '${w}', '${v/a/b}', '${#v}', '${u:-$(echo z)}', '${v:-"x y"}', '${v:-a b}', '${a[@]}'];
        if (known.reduce((t, k) => t.replaceAll(k, ''), src).includes('${')) return;
        // Tests that may be false or fail (mutations of the generated ones), indirection that may fail.
        if (src.replaceAll('(( 1 + 2 ))', '').includes('((') || src.replaceAll('[[ -n x && a != b ]]', '').includes('[[')) return;
        if (src.includes('${!') || src.replaceAll('"${a[@]}"', '').includes('${a')) return;
        if (a.commands.some((c) => !c.redirects.every(redirectSucceeds))) return;
        // A path as command name fails with 127 (no command_not_found_handle for paths), a builtin
        // or job spec may fail: either stops `&&`. Process substitutions run asynchronously.
        if (a.commands.some((c) => failingName(c.argv[0]?.value))) return;
        if (/[<>]\(/.test(src)) return;
        compared++;
        const ran = new Set(b.runs.map((r) => JSON.stringify(r)));
        for (const c of literalCommands(a, dir)) {
          if (!ran.has(JSON.stringify(c))) {
            failures.push(`we say ${JSON.stringify(c)} runs, bash ran ${JSON.stringify(b.runs)}: ${JSON.stringify(src)}`);
            return;
          }
        }
        // Nothing bash ran may be missing from our commands (a hidden command).
        const dynamicName = a.commands.some((c) => c.argv.length > 0 && !c.argv[0]!.literal);
        const names = new Set(a.commands.map((c) => c.argv[0]?.value));
        for (const r of b.runs) {
          if (!names.has(r[0]) && !dynamicName) {
            failures.push(`bash ran ${JSON.stringify(r)} which we did not report: ${JSON.stringify(src)}`);
            return;
          }
        }
      });
      assert.ok(acceptedCount > cases.length / 2, `too few valid cases generated (${acceptedCount})`);
      assert.ok(compared > 800, `too few cases compared (${compared})`);
      assert.deepEqual(failures.slice(0, 15), []);
    } finally {
      if (!process.env.KEEP_DIFF_DIR) rmSync(dir, { recursive: true, force: true });
      else console.log(dir);
    }
  });
});
