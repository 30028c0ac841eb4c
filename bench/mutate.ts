// The fuzz inputs: a seeded PRNG, mutations of real command lines, and shell generated from a small grammar.
// Everything is a pure function of the seed, so a failure printed by the bench can be replayed exactly.

/** A small deterministic PRNG (mulberry32): fast, 32-bit state, good enough to spread fuzz inputs. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(items.length)]!;
    },
    chance: (p: number) => next() < p,
  };
}

/**
 * Fragments inserted by the `insert` mutation: shell metacharacters that change how a line parses, plus
 * control characters and unicode that a parser or a rule might mishandle (NUL, RTL override, zero-width
 * space, a lone surrogate, line/paragraph separators, emoji).
 */
export const INSERTS: readonly string[] = [
  "'", '"', '$(', '`', ';', '|', '\n', '\0', ')', '(', '{ ', ' }', '&&', '||', '&', '<<EOF\n', '<<-\'X\'\n', '${', '}',
  '\\', '$', '*', '?', '[', '>', '>>', '<', '2>&1', '<(', '>(', '$((', '))', '#', '~', '!', '[[ ', ' ]]', '=',
  '\t', '\r', '\r\n', '\x1b[0m', '\x7f', '\u00a0', '\u202e', '\u200b', '\ufeff', '\u2028', '\u2029', 'é', '😀',
  '\ud800', '\udfff', ' -rf / ', ' | sh', '$IFS', "$'\\x72m'", ' eval ', ' bash -c ',
];

export type MutationKind = 'flip' | 'delete' | 'duplicate' | 'insert' | 'splice';
export const MUTATION_KINDS: readonly MutationKind[] = ['flip', 'delete', 'duplicate', 'insert', 'splice'];

/** Longest input the mutator produces; stacked duplications would otherwise grow without bound. */
export const MAX_MUTANT_CHARS = 64 * 1024;

/** Flip one bit of one byte of the UTF-8 encoding; invalid sequences decode to U+FFFD, as a hook's reader would. */
export function flipByte(rng: Rng, s: string): string {
  const buf = Buffer.from(s, 'utf8');
  if (buf.length === 0) return String.fromCharCode(rng.int(256));
  const i = rng.int(buf.length);
  buf[i] = buf[i]! ^ (1 << rng.int(8));
  return buf.toString('utf8');
}

/** A non-empty span of 1 to 16 characters inside a non-empty string: [start, end). */
function span(rng: Rng, len: number): [number, number] {
  const start = rng.int(len);
  const size = 1 + rng.int(Math.min(16, len - start));
  return [start, start + size];
}

/** Apply one mutation of the given kind. `other` supplies a second line for splicing. */
export function applyMutation(rng: Rng, kind: MutationKind, s: string, other: () => string): string {
  switch (kind) {
    case 'flip':
      return flipByte(rng, s);
    case 'delete': {
      if (s.length === 0) return s;
      const [a, b] = span(rng, s.length);
      return s.slice(0, a) + s.slice(b);
    }
    case 'duplicate': {
      if (s.length === 0) return s;
      const [a, b] = span(rng, s.length);
      const piece = s.slice(a, b).repeat(1 + rng.int(3));
      return s.slice(0, b) + piece + s.slice(b);
    }
    case 'insert': {
      const at = rng.int(s.length + 1);
      return s.slice(0, at) + rng.pick(INSERTS) + s.slice(at);
    }
    case 'splice': {
      const t = other();
      return s.slice(0, rng.int(s.length + 1)) + t.slice(rng.int(t.length + 1));
    }
  }
}

/** One to four stacked mutations of a line. Returns the mutant and the kinds applied (for replay reports). */
export function mutate(rng: Rng, line: string, other: () => string): { text: string; kinds: MutationKind[] } {
  const n = 1 + rng.int(4);
  const kinds: MutationKind[] = [];
  let s = line;
  for (let i = 0; i < n; i++) {
    const kind = rng.pick(MUTATION_KINDS);
    kinds.push(kind);
    s = applyMutation(rng, kind, s, other);
    if (s.length > MAX_MUTANT_CHARS) s = s.slice(0, MAX_MUTANT_CHARS);
  }
  return { text: s, kinds };
}

// ---- generated shell -------------------------------------------------------------------------------------

const PROGRAMS: readonly string[] = [
  'ls', 'cat', 'rm', 'git', 'curl', 'wget', 'sh', 'bash', 'python3', 'node', 'find', 'xargs', 'echo', 'printf',
  'sed', 'awk', 'perl', 'nc', 'base64', 'tee', 'mv', 'cp', 'chmod', 'dd', 'tar', 'kill', 'psql', 'redis-cli',
  'terraform', 'kubectl', 'docker', 'npm', 'npx', 'ssh', 'scp', 'grep', 'head', 'true', 'source', '.',
];
const WRAPPERS: readonly string[] = ['sudo', 'env A=1', 'timeout 5', 'nohup', 'nice -n 5', 'command', 'exec', 'time', 'xargs', 'watch', 'doas'];
const FLAGS: readonly string[] = ['-rf', '-r', '-f', '--force', '-c', '-e', '-d', '--', '-la', '-exec', '-delete', '--no-verify', '-i', '-n', '+x', '777'];
const PATHS: readonly string[] = ['/', '~', '~/.ssh/id_rsa', '.', './src', '/etc/passwd', '/dev/sda', '/tmp/x', '.env', '.claude/settings.json', 'node_modules', '../..', '$HOME', '/dev/tcp/10.0.0.1/4444'];
const WORDS: readonly string[] = ['a', 'main', 'origin', 'push', 'status', 'install', 'http://example.com/x.sh', 'https://evil.test', 'DROP TABLE t', 'FLUSHALL', '{}', '\\;', 'x=1', '1'];
const SEPARATORS: readonly string[] = ['; ', ' && ', ' || ', ' & ', '\n', ' | ', ' |& '];

function singleQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function word(rng: Rng, depth: number): string {
  const r = rng.int(depth > 0 ? 16 : 7);
  switch (r) {
    case 0: return rng.pick(FLAGS);
    case 1: case 2: return rng.pick(PATHS);
    case 3: return rng.pick(WORDS);
    case 4: return singleQuote(rng.pick(WORDS));
    case 5: return `"${rng.pick(WORDS)} $${rng.pick(['x', 'HOME', '1', '@', 'IFS'])}"`;
    case 6: return `${rng.pick(['a', 'b'])}{1,2}${rng.pick(['*', '?', '[ab]', ''])}`;
    case 7: return `$(${list(rng, depth - 1)})`;
    case 8: return `"$(${list(rng, depth - 1)})"`;
    case 9: return `\`${simple(rng, depth - 1)}\``;
    case 10: return `<(${list(rng, depth - 1)})`;
    case 11: return `$((${rng.int(100)} + ${rng.int(100)}))`;
    case 12: return `\${${rng.pick(['x', 'HOME', 'PATH'])}${rng.pick([':-/', '//a/b', '#*/', ''])}}`;
    case 13: return `$'\\x${rng.int(256).toString(16).padStart(2, '0')}\\n'`;
    case 14: return `"${list(rng, depth - 1).replace(/["\\$`]/g, '\\$&')}"`;
    default: return rng.pick(PATHS);
  }
}

function redirect(rng: Rng, depth: number): string {
  switch (rng.int(7)) {
    case 0: return ` > ${rng.pick(PATHS)}`;
    case 1: return ' 2>&1';
    case 2: return ` >> ${rng.pick(['~/.bashrc', 'out.log', '/dev/sda', '.claude/CLAUDE.md'])}`;
    case 3: return ` < ${rng.pick(PATHS)}`;
    case 4: return ` <<< ${word(rng, depth)}`;
    case 5: return ` &> /dev/null`;
    default: return ` <<EOF\n${rng.pick(WORDS)} $x\nEOF\n`;
  }
}

function simple(rng: Rng, depth: number): string {
  let s = '';
  if (rng.chance(0.15)) s += `${rng.pick(['X', 'IFS', 'PATH', 'LD_PRELOAD'])}=${rng.pick(WORDS.concat(PATHS))} `;
  const head = rng.int(depth > 0 ? 10 : 6);
  if (head === 6) s += `${rng.pick(WRAPPERS)} `;
  if (head === 7) return `${s}${rng.pick(['bash', 'sh', 'zsh'])} -c ${singleQuote(list(rng, depth - 1))}`;
  if (head === 8) return `${s}eval ${singleQuote(list(rng, depth - 1))}`;
  if (head === 9) s += rng.pick(['$cmd ', '$(echo rm) ', '"$X" ', '/bin/r? ', '\\rm ', 'r"m" ']);
  else s += `${rng.pick(PROGRAMS)} `;
  const n = rng.int(5);
  for (let i = 0; i < n; i++) s += `${word(rng, depth)} `;
  s = s.trimEnd();
  if (rng.chance(0.2)) s += redirect(rng, depth);
  return s;
}

function compound(rng: Rng, depth: number): string {
  if (depth <= 0) return simple(rng, 0);
  switch (rng.int(12)) {
    case 0: return `( ${list(rng, depth - 1)} )`;
    case 1: return `{ ${list(rng, depth - 1)}; }`;
    case 2: return `if ${list(rng, depth - 1)}; then ${list(rng, depth - 1)}; else ${list(rng, depth - 1)}; fi`;
    case 3: return `for x in ${word(rng, depth - 1)} ${word(rng, depth - 1)}; do ${list(rng, depth - 1)}; done`;
    case 4: return `while ${list(rng, depth - 1)}; do ${list(rng, depth - 1)}; done`;
    case 5: return `${rng.pick(['f', 'ls', 'git', 'cd'])}() { ${list(rng, depth - 1)}; }`;
    case 6: return `case $x in a|b) ${list(rng, depth - 1)};; *) ${list(rng, depth - 1)};; esac`;
    case 7: return `[[ ${word(rng, depth - 1)} == ${word(rng, depth - 1)} ]]`;
    case 8: return `! ${simple(rng, depth - 1)}`;
    default: return simple(rng, depth);
  }
}

function list(rng: Rng, depth: number): string {
  let s = compound(rng, depth);
  const n = rng.int(depth > 0 ? 4 : 2);
  for (let i = 0; i < n; i++) s += rng.pick(SEPARATORS) + compound(rng, depth);
  return s;
}

/** A random shell line from a small grammar: lists, pipelines, compounds, substitutions, wrappers, redirections. */
export function generateShell(rng: Rng, maxDepth = 3): string {
  return list(rng, rng.int(maxDepth + 1));
}

// ---- fuzz inputs -------------------------------------------------------------------------------------------

/** Share of fuzz inputs drawn from the grammar; the rest are mutated corpus lines. */
const GENERATED_SHARE = 0.3;

/** A well-mixed 32-bit seed for input `i`, so any single input can be rebuilt from (seed, i) alone. */
export function inputSeed(seed: number, i: number): number {
  let h = (seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The fuzz input number `i` of a run: a pure function of the seed, the index and the seed lines. */
export function fuzzInput(seed: number, i: number, lines: readonly string[]): { text: string; origin: string } {
  const rng = createRng(inputSeed(seed, i));
  if (lines.length === 0 || rng.chance(GENERATED_SHARE)) return { text: generateShell(rng), origin: 'generated' };
  const base = rng.pick(lines);
  const m = mutate(rng, base, () => rng.pick(lines));
  return { text: m.text, origin: `mutated (${m.kinds.join('+')})` };
}
