// Entry point of shell analysis: screens the input, parses it, and walks the tree into the list of
// every simple command that could run (with pipes, redirections, substitutions and constants resolved).

import type {
  Analysis, Assignment, LoopBinding, Redirect, SimpleCommand, StdinSource, Word,
} from './types.ts';
import { Parser, plainText } from './parser.ts';
import type {
  CmdNode, CompoundNode, ListNode, ListItem, Part, RedirNode, SimpleNode, WordNode, FuncNode,
} from './parser.ts';
import { ShellError, screenInput } from './lexer.ts';
import { expandBraces, mayExpandBraces } from './brace.ts';
import { buildWord, literalText, type BuildOptions } from './words.ts';
import { MAX_INPUT_CHARS } from './limits.ts';
import { withSlots } from './program.ts';

export interface ParseShellOptions {
  /** Re-parse depth written into each command (0 for the line the agent sent). */
  depth?: number;
}

/** Analyses one shell line. Never throws: every problem is a status other than `ok`. */
export function parseShell(src: string, opts: ParseShellOptions = {}): Analysis {
  try {
    if (typeof src !== 'string') return failed('unparseable', 'the command is not a string');
    if (src.length > MAX_INPUT_CHARS) {
      return failed('too_long', `the command is ${src.length} characters long; the limit is ${MAX_INPUT_CHARS}`);
    }
    const bad = screenInput(src);
    if (bad) return failed(bad.status, bad.message);
    const program = new Parser(src).parseProgram();
    return new Collector(opts.depth ?? 0).run(program);
  } catch (e) {
    if (e instanceof ShellError) return failed(e.status, e.message);
    if (e instanceof RangeError) return failed('too_deep', 'the command is nested too deeply to analyse');
    const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return failed('unparseable', `internal error while parsing the command: ${msg}`);
  }
}

function failed(status: Exclude<Analysis['status'], 'ok'>, message: string): Analysis {
  return { status, message, commands: [], functions: [], aliases: [], problems: [] };
}

// ---------------------------------------------------------------------------------------------
// Walking the tree into commands

interface Ctx {
  inSub: boolean;
  inFunc: boolean;
  /** Where commands here read standard input from, unless they redirect it. */
  stdin: StdinSource;
  /** Collects the ids of commands that read `stdin` when it is a pipe. */
  readers: number[] | null;
  /** Collects the ids of commands whose standard output feeds the current pipe. */
  sink: number[] | null;
  /** Redirections inherited from enclosing compound commands (`{ …; } > f`). */
  redirs: Redirect[];
  /** Constant propagation applies here (not in function bodies). */
  consts: boolean;
}

const TTY: StdinSource = { kind: 'tty' };
const NO_CONSTS: BuildOptions = {};
const NO_GLOB: BuildOptions = { noGlob: true };

/**
 * ctx with another standard input and pipe collectors: one per command of a pipeline, so written out
 * as a literal of Ctx's own shape rather than an object spread (cheaper on this hot path).
 */
function pipeCtx(ctx: Ctx, stdin: StdinSource, readers: number[] | null, sink: number[] | null): Ctx {
  return { inSub: ctx.inSub, inFunc: ctx.inFunc, stdin, readers, sink, redirs: ctx.redirs, consts: ctx.consts };
}

const NO_SCOPE: readonly number[] = Object.freeze([]);

/** A line without constants to propagate (most lines) shares this empty plan. */
const NO_PLAN: ReadonlyMap<ListItem, Array<[string, string]>> = new Map();

class Collector {
  private readonly commands: SimpleCommand[] = [];
  private readonly functions: string[] = [];
  private readonly aliases: string[] = [];
  private readonly problems: string[] = [];
  /** Set when a compound command evaluates arithmetic (`((…))`, `for ((…))`, `[[ … -eq … ]]`). */
  private arithmetic = false;
  /** `for`/`select` loop variables and their words; created on the first such loop. */
  private loops: LoopBinding[] | null = null;
  private readonly depth: number;
  /** Constants in force, filled as the top-level walk passes their assignment. */
  private readonly active = new Map<string, string>();
  private plan = NO_PLAN;
  /** Extra pipe readers of a command (from `>(…)` in its words); created on the first `>(…)`. */
  private extraPipeTo: Map<number, number[]> | null = null;
  /** buildWord's options where constants apply, and where they do not: made once, used for every word. */
  private readonly withConsts: BuildOptions;
  private readonly noGlobWithConsts: BuildOptions;
  /** The subshell environments the walk is in (SimpleCommand.scope); shared by the commands made meanwhile. */
  private scope: readonly number[] = NO_SCOPE;
  private nextScope = 1;

  constructor(depth: number) {
    this.depth = depth;
    this.withConsts = { consts: this.active };
    this.noGlobWithConsts = { noGlob: true, consts: this.active };
  }

  run(program: ListNode): Analysis {
    this.plan = planConstants(program);
    const ctx: Ctx = {
      inSub: false, inFunc: false, stdin: TTY, readers: null, sink: null, redirs: [], consts: true,
    };
    this.walkList(program, ctx, true);
    const out: Analysis = {
      status: 'ok',
      commands: this.commands,
      functions: this.functions,
      aliases: this.aliases,
      problems: this.problems,
    };
    if (this.arithmetic) out.arithmetic = true;
    if (this.loops) out.loops = this.loops;
    return out;
  }

  /** Runs walk in a new subshell environment (a `cd` there does not move what follows it). */
  private inSubshell(walk: () => void): void {
    const outer = this.scope;
    this.scope = Object.freeze([...outer, this.nextScope++]);
    try {
      walk();
    } finally {
      this.scope = outer;
    }
  }

  private walkList(list: ListNode, ctx: Ctx, top = false): void {
    for (const item of list.items) {
      if (item.bg) this.inSubshell(() => { for (const pl of item.ao.pipes) this.walkPipeline(pl.cmds, ctx); });
      else for (const pl of item.ao.pipes) this.walkPipeline(pl.cmds, ctx);
      if (top) {
        const set = this.plan.get(item);
        if (set) for (const [name, value] of set) this.active.set(name, value);
      }
    }
  }

  private walkPipeline(cmds: CmdNode[], ctx: Ctx): void {
    if (cmds.length === 1) {
      this.walkCmd(cmds[0]!, ctx);
      return;
    }
    let prev: number[] = [];
    for (let k = 0; k < cmds.length; k++) {
      const first = k === 0;
      const last = k === cmds.length - 1;
      const stdin: StdinSource = first ? ctx.stdin : { kind: 'pipe', from: prev.slice() };
      const readers = first ? ctx.readers : [];
      const sink = last ? ctx.sink : [];
      // Each part of a pipeline runs in a subshell of its own.
      this.inSubshell(() => this.walkCmd(cmds[k]!, pipeCtx(ctx, stdin, readers, sink)));
      if (!first && readers) for (const s of prev) this.commands[s]!.pipeTo.push(...readers);
      if (!last) prev = sink ?? [];
    }
  }

  private walkCmd(cmd: CmdNode, ctx: Ctx): void {
    switch (cmd.t) {
      case 'simple': this.walkSimple(cmd, ctx); break;
      case 'compound': this.walkCompound(cmd, ctx); break;
      case 'func': this.walkFunc(cmd, ctx); break;
      case 'coproc':
        this.walkCmd(cmd.body, pipeCtx(ctx, TTY, null, null));
        break;
    }
  }

  private walkFunc(fn: FuncNode, ctx: Ctx): void {
    this.functions.push(fn.name);
    this.walkCmd(fn.body, {
      inSub: ctx.inSub, inFunc: true, stdin: TTY, readers: null, sink: null, redirs: [], consts: false,
    });
  }

  private walkCompound(node: CompoundNode, ctx: Ctx): void {
    const before = this.commands.length;
    let inner = ctx;
    let own: Redirect[] = [];
    if (node.redirs.length > 0) {
      own = node.redirs.map((r) => this.buildRedirect(r, ctx, -1));
      const stdin = stdinFrom(own);
      inner = { ...ctx, redirs: [...ctx.redirs, ...own] };
      if (stdin) {
        inner.stdin = stdin;
        inner.readers = null;
      }
    }
    // `[[ a -eq b ]]` evaluates both sides as arithmetic (variables named there are expanded recursively).
    if (node.kind === 'arith' || node.kind === 'cfor' || node.arithTest === true) this.arithmetic = true;
    if (node.kind === 'cond') this.checkCondNames(node.items);
    const walkItems = (): void => {
      for (const item of node.items) {
        if ('list' in item) this.walkList(item.list, inner);
        else if ('word' in item) this.walkParts(item.word.parts, inner, -1);
        else this.walkParts(item.arith, inner, -1);
      }
    };
    if (node.kind === 'subshell') this.inSubshell(walkItems);
    else walkItems();
    // After the walk, so that the words carry the ids of their substitutions' commands.
    if (node.loopVar !== undefined && (node.kind === 'for' || node.kind === 'select')) {
      const words: Word[] = [];
      for (const item of node.items) if ('word' in item) words.push(buildWord(item.word.raw, item.word.parts, NO_CONSTS));
      (this.loops ??= []).push({ name: node.loopVar, words });
    }
    if (this.commands.length === before && own.length > 0) {
      // A compound command with no command inside still performs its redirections (`case … esac > f`).
      const id = this.commands.length;
      const stdin = stdinFrom(own) ?? ctx.stdin;
      this.commands.push(withSlots({
        id, argv: [], assignments: [], redirects: [...ctx.redirs, ...own], stdin, pipeTo: [],
        inSubstitution: ctx.inSub, inFunction: ctx.inFunc, depth: this.depth, via: [], text: node.text,
        ...(this.scope.length > 0 ? { scope: this.scope } : {}),
      }));
      if (ctx.sink) ctx.sink.push(id);
      if (stdin === ctx.stdin && ctx.readers) ctx.readers.push(id);
    }
  }

  /**
   * `[[ -v NAME ]]` evaluates a subscript in NAME as arithmetic, so quoted text there (`'a[$(cmd)]'`) runs cmd
   * (bash 5.2). Such an operand is not a command the rules can see: the line is marked as not fully known.
   */
  private checkCondNames(items: readonly CompoundNode['items'][number][]): void {
    for (let i = 0; i + 1 < items.length; i++) {
      const op = items[i]!, arg = items[i + 1]!;
      if (!('word' in op) || !('word' in arg) || op.word.raw !== '-v') continue;
      const raw = arg.word.raw;
      if (raw.includes('$(') || raw.includes('`')) this.problems.push(`[[ -v ${raw} ]] evaluates command text in its subscript`);
    }
  }

  private walkSimple(node: SimpleNode, ctx: Ctx): void {
    const id = this.commands.length;
    // Reserve the id first so that the commands of its substitutions follow it.
    this.commands.push(null as unknown as SimpleCommand);
    const wordOpts = ctx.consts ? this.withConsts : NO_CONSTS;

    const assignments: Assignment[] = [];
    for (const a of node.assigns) {
      if (a.index) this.walkParts(a.index, ctx, id);
      if (a.array) {
        const elems: Word[] = [];
        for (const e of a.array) {
          this.walkParts(e.parts, ctx, id);
          for (const x of expandBraces(e.parts)) elems.push(buildWord(e.raw, x, wordOpts));
        }
        assignments.push({
          name: a.name, append: a.append, array: elems,
          value: buildWord(a.value.raw, a.value.parts, { noGlob: true, dynamic: true }),
        });
      } else {
        this.walkParts(a.value.parts, ctx, id);
        assignments.push({
          name: a.name, append: a.append,
          value: buildWord(a.value.raw, a.value.parts, ctx.consts ? this.noGlobWithConsts : NO_GLOB),
        });
      }
    }

    const argv: Word[] = [];
    for (const w of node.words) {
      this.walkParts(w.parts, ctx, id);
      if (w.compound) {
        argv.push(buildWord(w.raw, w.parts, { dynamic: true }));
        continue;
      }
      if (!mayExpandBraces(w.parts)) argv.push(buildWord(w.raw, w.parts, wordOpts));
      else for (const x of expandBraces(w.parts)) argv.push(buildWord(w.raw, x, wordOpts));
    }

    const own = node.redirs.length > 0 ? node.redirs.map((r) => this.buildRedirect(r, ctx, id)) : [];
    const stdin = stdinFrom(own) ?? ctx.stdin;
    const cmd: SimpleCommand = withSlots({
      id,
      argv,
      assignments,
      redirects: ctx.redirs.length > 0 ? [...ctx.redirs, ...own] : own,
      stdin,
      pipeTo: [],
      inSubstitution: ctx.inSub,
      inFunction: ctx.inFunc,
      depth: this.depth,
      via: [],
      text: node.text,
    });
    if (this.scope.length > 0) cmd.scope = this.scope;
    const extra = this.extraPipeTo?.get(id);
    if (extra) cmd.pipeTo.push(...extra);
    this.commands[id] = cmd;
    if (ctx.sink) ctx.sink.push(id);
    if (stdin === ctx.stdin && ctx.readers) ctx.readers.push(id);
    this.noteAliases(cmd);
  }

  private noteAliases(cmd: SimpleCommand): void {
    const a0 = cmd.argv[0];
    if (!a0) return;
    if (a0.value === 'shopt' && cmd.argv.some((w) => w.value === 'expand_aliases')) {
      // With aliases expanded, a later line's command name may stand for anything an alias says.
      this.problems.push('alias expansion is switched on (shopt expand_aliases): later command names may be aliases');
    }
    if (!a0.literal || a0.value !== 'alias') return;
    for (const w of cmd.argv.slice(1)) {
      const eq = w.value.indexOf('=');
      if (eq <= 0) continue;
      if (!w.literal) this.problems.push(`alias defined from a dynamic word: ${w.raw}`);
      this.aliases.push(w.value.slice(0, eq));
    }
  }

  private buildRedirect(r: RedirNode, ctx: Ctx, owner: number): Redirect {
    this.walkParts(r.target.parts, ctx, owner);
    if (r.heredoc?.parts) this.walkParts(r.heredoc.parts, ctx, -1);
    const data = r.op === '<<' || r.op === '<<-' || r.op === '<<<';
    const target = buildWord(r.target.raw, r.target.parts, { noGlob: data, consts: ctx.consts ? this.active : null });
    let access: Redirect['access'];
    switch (r.op) {
      case '<': access = 'read'; break;
      case '<<': case '<<-': case '<<<': access = 'data'; break;
      case '>&': case '<&':
        access = /^(\d+-?|-)$/.test(target.value) && target.literal ? 'fd' : r.op === '>&' ? 'write' : 'read';
        break;
      default: access = 'write';
    }
    const out: Redirect = { op: r.op, target, access };
    if (r.fd !== undefined) out.fd = r.fd;
    if (r.heredoc) out.heredoc = { body: r.heredoc.body, quoted: r.heredoc.quoted };
    return out;
  }

  /**
   * Emits the commands of the substitutions inside parts, recording their ids on the parts. `owner`
   * is the simple command whose words these are (process substitutions feed it), or -1.
   */
  private walkParts(parts: readonly Part[], ctx: Ctx, owner: number): void {
    for (const p of parts) {
      if (p.t === 'param') {
        if (p.inner.length > 0) this.walkParts(p.inner, ctx, owner);
        continue;
      }
      if (p.t !== 'sub') continue;
      if (p.body) {
        const start = this.commands.length;
        const sctx: Ctx = {
          inSub: true, inFunc: ctx.inFunc, stdin: ctx.stdin, readers: ctx.readers, sink: null, redirs: [], consts: ctx.consts,
        };
        let outReaders: number[] | null = null;
        if (p.kind === 'process-in') sctx.sink = [];
        if (p.kind === 'process-out' && owner >= 0) {
          sctx.stdin = { kind: 'pipe', from: [owner] };
          outReaders = [];
          sctx.readers = outReaders;
        }
        this.inSubshell(() => this.walkList(p.body!, sctx));
        if (p.kind === 'process-in' && owner >= 0) {
          for (const s of sctx.sink!) this.commands[s]!.pipeTo.push(owner);
        }
        if (outReaders && outReaders.length > 0) {
          this.extraPipeTo ??= new Map();
          const list = this.extraPipeTo.get(owner) ?? [];
          list.push(...outReaders);
          this.extraPipeTo.set(owner, list);
        }
        const ids: number[] = [];
        for (let i = start; i < this.commands.length; i++) ids.push(i);
        p.ids = ids;
      }
      if (p.inner.length > 0) this.walkParts(p.inner, ctx, owner);
    }
  }
}

/** The standard input that a command's own redirections give it (the last one wins), if any. */
function stdinFrom(redirs: Redirect[]): StdinSource | null {
  let out: StdinSource | null = null;
  for (const r of redirs) {
    if (r.fd !== undefined && r.fd !== 0) continue;
    if (r.op === '<') out = { kind: 'file', path: r.target };
    else if (r.op === '<<' || r.op === '<<-') out = { kind: 'heredoc', body: r.heredoc?.body ?? '', quoted: r.heredoc?.quoted ?? false };
    else if (r.op === '<<<') out = { kind: 'herestring', word: r.target };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Constant propagation
//
// `d=build; rm -rf $d` should be judged as `rm -rf build`. This is only safe when nothing else in
// the line could give the variable another value, so the check is deliberately blunt: one plain
// top-level `NAME=literal` statement, the name appearing nowhere else as text, and no construct in
// the line that can assign variables by a name computed at run time.

/** Variables bash changes by itself, or whose assignment changes how other words are read. */
const SPECIAL_VARS = new Set([
  'RANDOM', 'SRANDOM', 'SECONDS', 'LINENO', 'EPOCHSECONDS', 'EPOCHREALTIME', 'PWD', 'OLDPWD', 'PPID', 'UID',
  'EUID', 'HISTCMD', 'FUNCNAME', 'GROUPS', 'OPTIND', 'OPTARG', 'OPTERR', 'REPLY', 'MAPFILE', 'IFS', 'PIPESTATUS',
  'COLUMNS', 'LINES', 'HOSTNAME', 'HOSTTYPE', 'MACHTYPE', 'OSTYPE', 'SHELLOPTS', 'SHLVL', 'COPROC', 'DIRSTACK',
  '_', 'GLOBIGNORE', 'BASHOPTS', 'POSIXLY_CORRECT',
]);

/** Builtins that assign variables named by their arguments. */
const ASSIGNING = new Set([
  'declare', 'typeset', 'export', 'local', 'readonly', 'read', 'mapfile', 'readarray', 'getopts', 'let', 'unset',
  'wait', 'printf',
]);

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/g;

interface ConstScan {
  count: Map<string, number>;
  idents: Set<string>;
  disableAll: boolean;
  simples: SimpleNode[];
}

function planConstants(program: ListNode): ReadonlyMap<ListItem, Array<[string, string]>> {
  // 1. Candidates: plain top-level `NAME=literal` statements.
  let cand: Map<string, { item: ListItem; value: string }> | null = null;
  for (const item of program.items) {
    if (item.bg || item.ao.pipes.length !== 1) continue;
    const pl = item.ao.pipes[0]!;
    if (pl.bang || pl.time || pl.cmds.length !== 1) continue;
    const cmd = pl.cmds[0]!;
    if (cmd.t !== 'simple' || cmd.words.length > 0 || cmd.redirs.length > 0) continue;
    for (const a of cmd.assigns) {
      if (a.array || a.index || a.append || a.value.compound) continue;
      const v = plainText(a.value);
      if (v === null) continue;
      (cand ??= new Map()).set(a.name, { item, value: v });
    }
  }
  if (cand === null) return NO_PLAN;
  const plan = new Map<ListItem, Array<[string, string]>>();

  // 2. Every assignment and every name written anywhere in the line.
  const scan: ConstScan = { count: new Map(), idents: new Set(), disableAll: false, simples: [] };
  scanList(program, scan);
  if (scan.disableAll || scan.idents.has('IFS') || scan.count.has('IFS') || scan.idents.has('eval') || scan.idents.has('source')) return plan;
  const alive = new Map<string, string>();
  for (const [name, c] of cand) {
    if (scan.count.get(name) !== 1 || scan.idents.has(name) || SPECIAL_VARS.has(name)) continue;
    if (name.startsWith('BASH') || name.startsWith('COMP_') || name.startsWith('READLINE_')) continue;
    alive.set(name, c.value);
  }
  if (alive.size === 0) return plan;

  // 3. Commands that could assign a variable whose name is computed at run time.
  for (const s of scan.simples) if (dynamicAssigner(s, alive)) return plan;

  for (const [name, value] of alive) {
    const item = cand.get(name)!.item;
    const list = plan.get(item) ?? [];
    list.push([name, value]);
    plan.set(item, list);
  }
  return plan;
}

function addIdents(text: string, into: Set<string>): void {
  for (const m of text.matchAll(IDENT)) into.add(m[0]);
}

function bump(scan: ConstScan, name: string): void {
  scan.count.set(name, (scan.count.get(name) ?? 0) + 1);
}

function scanList(list: ListNode, scan: ConstScan): void {
  for (const item of list.items) for (const pl of item.ao.pipes) for (const c of pl.cmds) scanCmd(c, scan);
}

function scanCmd(cmd: CmdNode, scan: ConstScan): void {
  switch (cmd.t) {
    case 'simple':
      scan.simples.push(cmd);
      for (const a of cmd.assigns) {
        bump(scan, a.name);
        if (a.index) scanArith(a.index, scan);
        scanWord(a.value, scan);
        if (a.array) for (const e of a.array) scanWord(e, scan);
      }
      for (const w of cmd.words) scanWord(w, scan);
      for (const r of cmd.redirs) scanRedir(r, scan);
      break;
    case 'compound':
      if (cmd.loopVar) bump(scan, cmd.loopVar);
      if (cmd.kind === 'arith' || cmd.kind === 'cfor' || cmd.arithTest === true) scan.disableAll = true;
      for (const item of cmd.items) {
        if ('list' in item) scanList(item.list, scan);
        else if ('word' in item) scanWord(item.word, scan);
        else scanArith(item.arith, scan);
      }
      for (const r of cmd.redirs) scanRedir(r, scan);
      break;
    case 'func':
      scanCmd(cmd.body, scan);
      break;
    case 'coproc':
      bump(scan, cmd.name ?? 'COPROC');
      scanCmd(cmd.body, scan);
      break;
  }
}

function scanRedir(r: RedirNode, scan: ConstScan): void {
  if (r.fdVar) bump(scan, r.fdVar);
  scanWord(r.target, scan);
  if (r.heredoc) {
    addIdents(r.heredoc.body, scan.idents);
    if (r.heredoc.parts) scanParts(r.heredoc.parts, scan);
  }
}

function scanWord(w: WordNode, scan: ConstScan): void {
  addIdents(literalText(w.parts), scan.idents);
  scanParts(w.parts, scan);
}

/** Arithmetic can assign any variable (`x=5`, `x++`, a name held in another variable): no constants. */
function scanArith(parts: readonly Part[], scan: ConstScan): void {
  const text = literalText(parts).trim();
  if (!/^(\d+|@|\*)$/.test(text)) scan.disableAll = true;
  scanParts(parts, scan);
}

function scanParts(parts: readonly Part[], scan: ConstScan): void {
  for (const p of parts) {
    if (p.t === 'param') {
      if (p.assigns) {
        if (p.indirect) scan.disableAll = true;
        bump(scan, p.name);
      }
      if (p.arith) scanArith(p.inner, scan);
      else {
        addIdents(literalText(p.inner), scan.idents);
        scanParts(p.inner, scan);
      }
    } else if (p.t === 'sub') {
      if (p.kind === 'arithmetic') scan.disableAll = true;
      if (p.body) scanList(p.body, scan);
      addIdents(literalText(p.inner), scan.idents);
      scanParts(p.inner, scan);
    }
  }
}

/** Whether a command could assign a variable named at run time (or is `eval`/`source`). */
function dynamicAssigner(s: SimpleNode, alive: ReadonlyMap<string, string>): boolean {
  const words: Part[][] = [];
  for (const w of s.words) {
    if (w.compound) return true;
    words.push(...expandBraces(w.parts));
  }
  let i = 0;
  for (;;) {
    const w = words[i];
    if (!w) return false;
    const name = resolveName(w, alive);
    if (name === null) return true; // a command name we cannot see could be `declare`, `eval`…
    if (name === 'eval' || name === 'source' || name === '.') return true;
    if (name === 'builtin' || name === 'command') {
      i++;
      while (words[i] && resolveName(words[i]!, alive)?.startsWith('-')) i++;
      continue;
    }
    if (!ASSIGNING.has(name)) return false;
    if (name === 'let') return true;
    const args = words.slice(i + 1);
    for (const a of args) {
      const t = resolveName(a, alive);
      if (t === null) {
        if (name === 'printf') {
          // printf assigns only with -v; a dynamic first argument could be -v.
          if (a === args[0]) return true;
          continue;
        }
        return true;
      }
      // `declare -i x` makes later assignments of x arithmetic, which can assign any variable.
      // (A literal `printf -v NAME` is covered by the names-as-text rule.)
      if (t.startsWith('-') && t.includes('i') && name !== 'printf' && name !== 'read') return true;
    }
    return false;
  }
}

/** The literal text of a word, resolving a lone constant `$NAME`; null when dynamic. */
function resolveName(parts: readonly Part[], alive: ReadonlyMap<string, string>): string | null {
  let out = '';
  for (const p of parts) {
    if (p.t === 'lit') out += p.s;
    else if (p.t === 'param' && p.simple && alive.has(p.name)) out += alive.get(p.name)!;
    else return null;
  }
  return out;
}

