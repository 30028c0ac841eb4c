// Data flow inside one shell line: which commands' output, which words, variables and files carry data that
// came from a given kind of source. Generic: the caller says what a source is (secrets.ts: credential files,
// the environment, token commands, key searches); this module only knows how bash moves data around.
//
// The graph is over analysis.commands. Data moves
//   - from a command's stdout to the commands it pipes to, and to the words whose `$(…)`/`<(…)` run it;
//   - from a word into the command that gets it as an argument (whose stdout then carries it, unless the
//     program is known to print nothing of its input: wc, read, test…);
//   - through variables: `k=$(…)`, `export/declare/local K=…`, `read k < f`, `… | read k`, `mapfile`, `printf -v`,
//     `for f in WORDS`; and through `${xargs_input}`/`${parallel_input}` (the wrapper's stdin) and `${find_path}`;
//   - through files written (`> f`, `tee f`, `cp a b`, `-o f`) and read later in the line (any order: a loop or
//     a later command may read what an earlier one wrote, and fail-closed means not caring which);
//   - into and out of functions defined in the line (a call's stdin and arguments reach the bodies).
// It is a fixpoint over a handful of passes; each slot only goes from "clean" to "tainted", so it ends.

import type { Analysis, SimpleCommand, Word } from '../shell/types.ts';
import { programName, staticValue } from '../shell/program.ts';
import type { RuleContext } from './rule.ts';

/** Where data of interest came from, and what carried it on the way. */
export interface Taint {
  /** The source's kind, as the caller named it (e.g. `credentials`, `env`, `token`). */
  kind: string;
  /** The source in words: `~/.ssh/id_rsa (read by cat)`, `the environment (env)`. */
  what: string;
  /** Carriers the data went through, in order: `a pipe`, `base64`, `$k`, `/tmp/e`, `xargs`. At most MAX_VIA. */
  via: readonly string[];
}

export interface FlowHooks {
  /** The data of interest a command outputs by itself (reads a credential file, dumps the environment…). */
  source(c: SimpleCommand): Taint | null;
  /** A path whose content is of interest (a credential file), for `for f in ~/.ssh/*`, `< f`, `cp f g`. */
  secretPath(value: string): Taint | null;
  /** Absolute paths of the files a command reads (its operands and `<` redirects). */
  reads(c: SimpleCommand): readonly string[];
}

export interface LineFlow {
  /** What the command's standard output carries. */
  stdout(id: number): Taint | null;
  /** What arrives on the command's standard input (pipe, here-string, file, wrapper, function call). */
  stdin(id: number): Taint | null;
  /** What a word of the command carries (its substitutions, variables, placeholders). */
  word(w: Word, c: SimpleCommand): Taint | null;
  /** What a file written in this line carries, by absolute path (or a directory it was copied into). */
  file(abs: string): Taint | null;
  /** Files written in this line that carry data, by absolute path. */
  files(): ReadonlyMap<string, Taint>;
  /** Variables assigned from a command substitution anywhere in the line (computed data, secret or not). */
  computedVars(): ReadonlySet<string>;
  /** True when the analysis stopped before following every step (a very long chain of backward steps). */
  incomplete: boolean;
}

const MAX_VIA = 4;
/**
 * Passes over the line. Data written in source order needs one; each later pass follows one more backward step
 * (a loop whose body reads what a later command writes). Past the cap the result says it is incomplete.
 */
const MAX_PASSES = 16;

/** Programs whose standard output does not carry their input or arguments (counts, tests, builtins). */
const NO_PASS = new Set(['wc', 'true', 'false', 'test', '[', '[[', 'sleep', 'exit', 'return', 'cd', 'pushd', 'popd', ':', 'read', 'mapfile', 'readarray', 'export', 'declare', 'typeset', 'local', 'readonly', 'unset', 'shift', 'set', 'break', 'continue', 'wait', 'kill']);
/** Builtins whose `NAME=value` arguments assign variables. */
const DECLARERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
/** Copies: a secret operand makes the destination carry it. */
const COPIERS = new Set(['cp', 'mv', 'install', 'ditto', 'rsync', 'ln']);
/** Options naming a file the command writes its output to. */
const OUTPUT_OPT = /^(-o|--output|--output-file|--outfile|--out|-out|--report-path|--report-file)$/;
const OUTPUT_OPT_EQ = /^--(output|output-file|outfile|out|report-path|report-file|file)=(.+)$/;
/** Placeholders the unwrapper puts where a wrapper substitutes its input (shell/unwrap.ts). */
const STDIN_PLACEHOLDERS = new Set(['xargs_input', 'parallel_input']);
const FIND_PLACEHOLDER = 'find_path';
const POSITIONAL = /^([0-9]|@|\*)$/;
const VAR_IN_BODY = /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g;

function via(t: Taint, step: string): Taint {
  if (t.via.length >= MAX_VIA || t.via[t.via.length - 1] === step) return t;
  return { kind: t.kind, what: t.what, via: [...t.via, step] };
}

/** Describes a taint for a reason: `~/.ssh/id_rsa (read by cat, through base64 and $k)`. */
export function describeTaint(t: Taint): string {
  if (t.via.length === 0) return t.what;
  const steps = t.via.length === 1 ? t.via[0]! : `${t.via.slice(0, -1).join(', ')} and ${t.via[t.via.length - 1]}`;
  return `${t.what}, through ${steps}`;
}

/** The data flow of one line, for one set of hooks. Never throws. */
export function lineFlow(analysis: Analysis, ctx: RuleContext, hooks: FlowHooks): LineFlow {
  const cmds = analysis.commands;
  const n = cmds.length;
  const out: (Taint | null)[] = new Array<Taint | null>(n).fill(null);
  const inp: (Taint | null)[] = new Array<Taint | null>(n).fill(null);
  const own: (Taint | null)[] = cmds.map((c) => hooks.source(c));
  const vars = new Map<string, Taint>();
  const files = new Map<string, Taint>();
  const computed = new Set<string>();
  const fnNames = new Set(analysis.functions);
  // Who runs whom, computed once: the commands each wrapper runs, and the bodies of the line's functions.
  const inner: number[][] = cmds.map(() => []);
  const bodies: number[] = [];
  for (const c of cmds) {
    if (c.wrappedBy !== undefined) inner[c.wrappedBy]?.push(c.id);
    if (c.inFunction) bodies.push(c.id);
  }
  let fnStdin: Taint | null = null;
  let fnArgs: Taint | null = null;
  let changed = false;

  const setVar = (name: string, t: Taint | null): void => {
    if (t && !vars.has(name)) {
      vars.set(name, via(t, `$${name}`));
      changed = true;
    }
  };
  const setFile = (p: string | null, t: Taint | null): void => {
    if (!t || p === null || p === '' || p === '-' || p.startsWith('/dev/')) return;
    const abs = ctx.path(p).abs;
    if (abs && !files.has(abs) && !abs.startsWith('/dev/')) {
      files.set(abs, via(t, p));
      changed = true;
    }
  };
  const fileTaint = (abs: string): Taint | null => {
    const hit = files.get(abs);
    if (hit) return hit;
    // A file copied into a directory: `cp ~/.aws/credentials pkg/` then `pkg/credentials` or `pkg` itself.
    for (const [p, t] of files) if (abs.startsWith(`${p}/`)) return t;
    return null;
  };
  /** A glob over files this line wrote (`for f in /tmp/p.*` after `split … /tmp/p.`). */
  const globTaint = (pattern: string): Taint | null => {
    const i = pattern.search(/[*?[]/);
    const prefix = i < 0 ? pattern : pattern.slice(0, i);
    const abs = prefix === '' ? null : ctx.path(prefix).abs;
    if (!abs) return null;
    for (const [p, t] of files) if (p.startsWith(abs) || abs.startsWith(`${p}/`)) return t;
    return null;
  };

  const wordTaint = (w: Word, c: SimpleCommand, depth = 0): Taint | null => {
    for (const id of w.substitutions) {
      // Only the last stage of a pipeline inside `$(…)` prints into the word (`$(cat key | wc -c)` is a count).
      const t = out[id];
      if (t && !cmds[id]!.pipeTo.some((p) => w.substitutions.includes(p))) return t;
    }
    for (const v of w.vars) {
      const t = vars.get(v);
      if (t) return t;
      if (STDIN_PLACEHOLDERS.has(v) && c.wrappedBy !== undefined) {
        const s = inp[c.wrappedBy];
        if (s) return via(s, v === 'xargs_input' ? 'xargs' : 'parallel');
      }
      if (v === FIND_PLACEHOLDER && c.wrappedBy !== undefined) {
        const s = own[c.wrappedBy];
        if (s) return via(s, 'find -exec');
      }
      if (POSITIONAL.test(v)) {
        if (c.inFunction && fnArgs) return fnArgs;
        // `sh -c 'curl …/$1' _ {}`: a command string's positional parameters are the shell's own arguments.
        const w2 = c.wrappedBy !== undefined ? cmds[c.wrappedBy] : undefined;
        if (w2 && depth < 8 && / -c$/.test(c.via[c.via.length - 1] ?? '')) {
          const t = argTaint(w2, depth + 1);
          if (t) return t;
        }
      }
    }
    return null;
  };

  const argTaint = (c: SimpleCommand, depth = 0): Taint | null => {
    for (let i = 1; i < c.argv.length; i++) {
      const t = wordTaint(c.argv[i]!, c, depth);
      if (t) return t;
    }
    return null;
  };

  const stdinTaint = (c: SimpleCommand): Taint | null => {
    const s = c.stdin;
    switch (s.kind) {
      case 'pipe':
        for (const id of s.from) {
          const t = out[id];
          if (t) return t;
        }
        break;
      case 'herestring': {
        const t = wordTaint(s.word, c);
        if (t) return via(t, 'a here-string');
        break;
      }
      case 'heredoc':
        if (!s.quoted) {
          for (const m of s.body.matchAll(VAR_IN_BODY)) {
            const t = vars.get(m[1]!);
            if (t) return via(t, 'a here-document');
          }
          // `$(…)` in an unquoted body runs; its commands are in the line (marked inSubstitution) but not linked
          // to the body, so match them by their text.
          if (s.body.includes('$(') || s.body.includes('`')) {
            for (const d of cmds) if (d.inSubstitution && out[d.id] && d.text !== '' && s.body.includes(d.text)) return via(out[d.id]!, 'a here-document');
          }
        }
        break;
      case 'file': {
        const v = staticValue(s.path);
        const direct = v !== null ? hooks.secretPath(v) : null;
        if (direct) return direct;
        const abs = v !== null ? ctx.path(v).abs : null;
        const t = abs ? fileTaint(abs) : wordTaint(s.path, c);
        if (t) return t;
        break;
      }
      case 'tty':
        if (c.wrappedBy !== undefined) {
          const t = inp[c.wrappedBy];
          if (t) return t;
        }
        break;
    }
    if (c.inFunction && fnStdin) return fnStdin;
    return null;
  };

  const pass = (c: SimpleCommand): void => {
    const id = c.id;
    const name = programName(c);
    if (inp[id] === null) {
      const t = stdinTaint(c);
      if (t) { inp[id] = t; changed = true; }
    }
    const args = argTaint(c);
    // Assignments: bare (`k=$(…)`) and prefix (`K=$(…) bash -c '…$K…'`: the child sees it).
    for (const a of c.assignments) {
      if (a.value.substitutions.length > 0) computed.add(a.name);
      setVar(a.name, wordTaint(a.value, c));
      if (a.array) for (const e of a.array) setVar(a.name, wordTaint(e, c));
    }
    if (name !== null && DECLARERS.has(name)) {
      for (const w of c.argv.slice(1)) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(w.value);
        if (!m) continue;
        if (w.substitutions.length > 0) computed.add(m[1]!);
        setVar(m[1]!, wordTaint(w, c));
      }
    }
    if (name === 'read' || name === 'mapfile' || name === 'readarray') {
      const names = readNames(c, name);
      for (const v of names) setVar(v, inp[id] ?? null);
    }
    if (name === 'printf') {
      const i = c.argv.findIndex((w) => w.value === '-v');
      const v = i > 0 ? staticValue(c.argv[i + 1]) : null;
      if (v !== null) setVar(v, args);
    }
    if (name !== null && fnNames.has(name)) {
      if (!fnStdin && inp[id]) { fnStdin = via(inp[id]!, `function ${name}`); changed = true; }
      if (!fnArgs && args) { fnArgs = via(args, `function ${name}`); changed = true; }
    }
    // What the command prints.
    if (out[id] === null) {
      let t = own[id];
      if (!t && (name === null || !NO_PASS.has(name))) {
        t = inp[id] ?? args;
        if (!t) for (const p of hooks.reads(c)) { t = fileTaint(p); if (t) break; }
        if (t && name !== null) t = via(t, name);
      }
      if (!t && name !== null && fnNames.has(name)) {
        for (const b of bodies) if (out[b]) { t = out[b]; break; }
      }
      if (!t) {
        // A wrapper prints what the commands it runs print (`sudo cat`, `find -exec cat {} +`).
        for (const b of inner[id]!) if (out[b]) { t = out[b]; break; }
      }
      if (t) { out[id] = t; changed = true; }
    }
    const o = out[id];
    // Files the output lands in.
    if (o) {
      for (const r of c.redirects) if (r.access === 'write' && (r.fd === undefined || r.fd === 1 || r.op === '&>' || r.op === '&>>')) setFile(staticValue(r.target), o);
      if (name === 'tee') for (const w of c.argv.slice(1)) { const v = staticValue(w); if (v !== null && !v.startsWith('-')) setFile(v, o); }
      for (let i = 1; i < c.argv.length; i++) {
        const v = staticValue(c.argv[i]);
        if (v === null) continue;
        if (OUTPUT_OPT.test(v) && name !== 'grep' && name !== 'rg') setFile(staticValue(c.argv[i + 1]), o);
        const m = OUTPUT_OPT_EQ.exec(v);
        if (m) setFile(m[2]!, o);
      }
      if (name !== null) for (const f of archiveOutputs(c, name)) setFile(f, o);
    }
    if (name !== null && COPIERS.has(name)) {
      const ops = c.argv.slice(1).filter((w) => !w.value.startsWith('-'));
      const dst = ops.length >= 2 ? staticValue(ops[ops.length - 1]) : null;
      if (dst !== null && !dst.includes(':')) {
        for (const w of ops.slice(0, -1)) {
          const v = staticValue(w);
          const abs = v !== null ? ctx.path(v).abs : null;
          const t = (v !== null ? hooks.secretPath(v) : null) ?? (abs ? fileTaint(abs) : null) ?? wordTaint(w, c);
          if (t) { setFile(dst, t); break; }
        }
      }
    }
  };

  // `for f in ~/.ssh/*; do …; done`: the loop variable takes each word in turn.
  const loops = analysis.loops ?? [];
  changed = n > 0;
  for (let k = 0; k < MAX_PASSES && changed; k++) {
    changed = false;
    for (const l of loops) {
      for (const w of l.words) {
        if (w.substitutions.length > 0) computed.add(l.name);
        const v = w.glob || w.literal ? w.value : null;
        setVar(l.name, (v !== null ? hooks.secretPath(v) ?? (w.glob ? globTaint(v) : null) : null) ?? wordTaint(w, cmds[0]!));
      }
    }
    for (const c of cmds) pass(c);
  }

  return {
    stdout: (id) => out[id] ?? null,
    stdin: (id) => inp[id] ?? null,
    word: (w, c) => wordTaint(w, c),
    file: (abs) => fileTaint(abs),
    files: () => files,
    computedVars: () => computed,
    incomplete: changed,
  };
}

/**
 * The file an archiver or copier writes its input into, beyond `-o`: `tar czf out.tgz …`, `zip out.zip …`,
 * `7z a out.7z …`, `dd of=…`, `gitleaks -r report.json`.
 */
function archiveOutputs(c: SimpleCommand, name: string): string[] {
  const w = c.argv.slice(1).map((x) => staticValue(x));
  const out: string[] = [];
  switch (name) {
    case 'tar': case 'bsdtar': case 'gtar': {
      const first = w[0] ?? '';
      const creates = w.some((x) => x === '--create' || x === '--append') || (first !== null && /^-?[A-Za-z]*[cru][A-Za-z]*$/.test(first) && !first.startsWith('--'));
      if (!creates) break;
      for (let i = 0; i < w.length; i++) {
        const x = w[i];
        if (x === null || x === undefined || x.startsWith('--')) continue;
        // The `f` of a flag cluster takes the next word (`czf out.tgz`, `-cf out.tgz`).
        if ((i === 0 || x.startsWith('-')) && /f/.test(x) && /^-?[A-Za-z]+$/.test(x)) { const f = w[i + 1]; if (f) out.push(f); break; }
      }
      break;
    }
    case 'zip': {
      const ops = w.filter((x): x is string => x !== null && !x.startsWith('-'));
      if (ops[0]) out.push(ops[0]);
      break;
    }
    case '7z': case '7za': case '7zz':
      if (w[0] === 'a' && w[1]) out.push(w[1]);
      break;
    case 'dd':
      for (const x of w) if (x !== null && x.startsWith('of=')) out.push(x.slice(3));
      break;
    case 'split': case 'csplit': {
      // split [opts] [input [prefix]]: the pieces are prefix + suffix (default prefix `x`).
      const ops: string[] = [];
      for (let i = 0; i < w.length; i++) {
        const x = w[i];
        if (x === null || x === undefined) continue;
        if (x !== '-' && x.startsWith('-')) { if (/^-[abClnt]$/.test(x)) i++; continue; }
        ops.push(x);
      }
      if (name === 'split' && ops[1]) out.push(ops[1]);
      break;
    }
    case 'gitleaks':
      for (let i = 0; i < w.length; i++) if (w[i] === '-r' && w[i + 1]) out.push(w[i + 1]!);
      break;
    default:
      break;
  }
  return out;
}

/** The variables `read`/`mapfile` assign. */
function readNames(c: SimpleCommand, name: string): string[] {
  const words = c.argv.slice(1).map((w) => staticValue(w));
  const names: string[] = [];
  const withValue = name === 'read' ? /^-[a-zA-Z]*[pdntu]$/ : /^-[a-zA-Z]*[dnOsuCc]$/;
  for (let i = 0; i < words.length; i++) {
    const v = words[i];
    if (v === null || v === undefined) continue;
    if (v === '-a' && name === 'read') { const a = words[i + 1]; if (a) names.push(a); i++; continue; }
    if (v.startsWith('-')) { if (withValue.test(v)) i++; continue; }
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) names.push(v);
  }
  if (names.length === 0) names.push(name === 'read' ? 'REPLY' : 'MAPFILE');
  return name === 'read' ? names : names.slice(-1);
}
