// The evaluator both code analyzers share: walks the tokens of a program, resolves the values it can
// (literal strings, concatenation, paths joined from literals, names assigned once, modules and functions
// through imports and aliases) and hands every call to the language's table of known functions, which
// records effects. Whatever it does not understand it skips token by token, so a call anywhere (in a
// lambda, a comprehension, an f-string hole, a function body) is still seen; a value is known only when its
// whole expression was understood. Names bound more than once are not trusted (their value depends on
// control flow): two passes, the first collects every binding of every name.

import type { CodeEffects, Effect } from './effects.ts';
import type { Tok, Tokens } from './tokens.ts';

/** A value as far as the analysis knows it. Paths keep `~` for the home directory. */
export type Val =
  | { t: 'str'; v: string; path?: boolean }
  | { t: 'num'; v: number }
  | { t: 'bool'; v: boolean }
  | { t: 'none' }
  | { t: 'list'; items: Val[] }
  | { t: 'obj'; props: Map<string, Val> }
  /** A module, function or class, by its qualified name (`os.system`, `child_process.execSync`). */
  | { t: 'ref'; q: string }
  /** The whole environment (os.environ, process.env) or a copy of it. */
  | { t: 'env' }
  /** Not known before run time; `prefix` is its known start (`/tmp/` for a fresh temp dir). */
  | { t: 'dyn'; prefix?: string; path?: boolean };

export const DYN: Val = Object.freeze({ t: 'dyn' }) as Val;
export const NONE: Val = Object.freeze({ t: 'none' }) as Val;

export interface CallArgs {
  pos: Val[];
  kw: Map<string, Val>;
}

/** What a language tells the shared evaluator. */
export interface Lang {
  name: 'python' | 'js';
  /** A name nobody bound (builtins, globals), or undefined for an unknown name. */
  global(name: string): Val | undefined;
  /** A known function called: record effects through `ev`, return its value; undefined when unknown. */
  call(q: string, args: CallArgs, ev: Evaluator, isNew: boolean): Val | undefined;
  /** A method called on a known string or path value; undefined when unknown. */
  method(recv: Val, name: string, args: CallArgs, ev: Evaluator): Val | undefined;
  /** `X.name` on a module or function reference (normalization of aliases such as fs.promises). */
  member(q: string, name: string, ev: Evaluator): Val;
  /** When a reference to `q` is passed around instead of called, what it could do (for the unknown note); null when harmless. */
  sink(q: string): string | null;
  /** Statements the language handles itself (imports, def/for/with bindings); returns the index after it, or null. */
  statement(toks: Tok[], a: number, b: number, ev: Evaluator): number | null;
  /** Names bound by the statement [a, b) (for the binding count of the first pass). */
  bindings(toks: Tok[], a: number, b: number, out: (name: string) => void): void;
  /** Member names that reach interpreter internals (`__globals__`, `constructor`): an unknown on any value. */
  reflect: ReadonlySet<string>;
  /** Keywords that start no value (skipped by the evaluator). */
  keywords: ReadonlySet<string>;
  /** Tokenize a string that the program evaluates as code in the same language (`exec("…")`). */
  tokenize(code: string): Tokens;
  /**
   * For a call of `q` that no handler knew: true when `q` belongs to a module that reaches the system
   * (processes, files, sockets, servers, native code) and is not on the language's list of harmless
   * calls. Its effect is then unknown, never assumed harmless (`socketserver.TCPServer`, `net.createServer`).
   */
  unmodeled(q: string): boolean;
}

/**
 * Method names that destroy data in the libraries agents call (ORMs, cloud SDKs, search and cache clients):
 * `User.objects.all().delete()`, `ec2.terminate_instances(…)`, `index.deleteObjects()`, `redis.flushall()`.
 * On an object asimov cannot follow, such a call is an unknown effect rather than "pure".
 * (`flush`, `clear`, `remove`, `pop` alone, and `clearTimeout` and the like, are everyday collection, stream and
 * timer methods: not listed.)
 */
export const DESTRUCTIVE_METHOD = /^(?:(?:delete|drop|truncate|terminate|destroy|purge|wipe|erase|flush_?(?:all|db)|flushAll|flushDb)(?:$|[_A-Z0-9])|clear(?!Timeout|Interval|Immediate|Rect|Screen|Line|Console|Selection|Cache\b)[A-Z_]|remove_?(?:all|many|objects|index|bucket|table|collection)|removeAll|removeMany|removeObjects)/;

const MAX_NESTED = 4;

export class Evaluator {
  readonly fx: CodeEffects = { imports: [], effects: [], unknowns: [] };
  /** Names bound exactly once in the whole program, with their value (second pass). */
  private scope = new Map<string, Val>();
  /** Every binding value of every name (first pass), to tell names bound once from the rest. */
  private allBindings: Map<string, Val[]>;
  private record: boolean;
  /** Set while evaluating an assignment target: `os.environ['X'] = …` reads nothing. */
  private lhs = false;
  /** How deep in exec("…") strings the evaluation is. */
  private nesting = 0;

  constructor(
    readonly lang: Lang,
    first?: Map<string, Val[]>,
  ) {
    this.record = first !== undefined;
    this.allBindings = first ?? new Map();
  }

  /** The bindings collected by a first pass (to give to the second). */
  bindingsSeen(): Map<string, Val[]> {
    return this.allBindings;
  }

  // ---------------------------------------------------------------------------------------------------
  // Recording

  effect(e: Effect): void {
    if (!this.record) return;
    if (this.fx.effects.length < 500) this.fx.effects.push(e);
  }

  unknown(what: string): void {
    if (!this.record) return;
    if (!this.fx.unknowns.includes(what) && this.fx.unknowns.length < 50) this.fx.unknowns.push(what);
  }

  imported(mod: string): void {
    if (this.record && !this.fx.imports.includes(mod) && this.fx.imports.length < 200) this.fx.imports.push(mod);
  }

  /** Evaluate a literal string as code in the same language (exec("…"), eval('…')) and merge what it does. */
  nested(code: string, via: string): void {
    if (this.nesting >= MAX_NESTED) {
      this.effect({ kind: 'eval', via });
      this.unknown(`runs code nested too deep to read (${via})`);
      return;
    }
    // The string runs in the same namespace: evaluate it with this scope (both passes see it).
    const sub = this.lang.tokenize(code);
    if (sub.error) {
      this.effect({ kind: 'eval', via });
      this.unknown(`runs code that could not be read (${via}: ${sub.error})`);
    }
    this.nesting++;
    try {
      this.seq(sub.toks, 0, sub.toks.length);
    } finally {
      this.nesting--;
    }
  }

  /** A value used where it may do anything (printed, passed on, returned): a function reference or the whole environment escapes. */
  use(v: Val): void {
    if (v.t === 'ref') {
      const s = this.lang.sink(v.q);
      if (s !== null) {
        this.effect(sinkEffect(s, v.q));
        this.unknown(`passes ${v.q} around instead of calling it, so what it ${s === 'run' ? 'runs' : 'does'} cannot be known`);
      }
    } else if (v.t === 'env') {
      this.effect({ kind: 'env', name: null, via: 'the whole environment' });
    } else if (v.t === 'list') {
      for (const x of v.items) this.use(x);
    } else if (v.t === 'obj') {
      for (const x of v.props.values()) this.use(x);
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Names

  bind(name: string, v: Val): void {
    if (!this.record) {
      let l = this.allBindings.get(name);
      if (!l) this.allBindings.set(name, (l = []));
      if (l.length < 8) l.push(v);
      this.scope.set(name, v);
      return;
    }
    const all = this.allBindings.get(name);
    if (all && all.length > 1) return; // looked up through allBindings
    this.scope.set(name, v);
  }

  lookup(name: string): Val {
    if (this.record) {
      const all = this.allBindings.get(name);
      if (all && all.length > 1) {
        const refs = all.filter((x) => x.t === 'ref' || x.t === 'env');
        if (refs.length === all.length && refs.every((x) => x.t === 'ref' && refs[0]!.t === 'ref' && x.q === refs[0]!.q)) return refs[0]!;
        if (refs.some((x) => active(this.lang, x))) {
          // A module, function or the environment under a name that is also bound to something else: which
          // one a use sees depends on control flow.
          const r = refs.find((x) => active(this.lang, x))!;
          const what = r.t === 'ref' ? r.q : 'the environment';
          this.effect(r.t === 'ref' && this.lang.sink(r.q) !== null ? sinkEffect(this.lang.sink(r.q)!, r.q) : { kind: 'eval', via: name });
          this.unknown(`the name \`${name}\` is bound more than once, once to ${what}, so what it does cannot be known`);
        }
        return DYN;
      }
      const v = this.scope.get(name);
      if (v) return v;
      // Used before its one assignment: straight-line code sees the builtin; a function body called later
      // sees the assigned value. Both may happen: a builtin that is rebound is not trusted.
      const g = this.lang.global(name);
      if (all && all.length === 1) {
        if (g && active(this.lang, g)) {
          this.effect({ kind: 'eval', via: name });
          this.unknown(`the builtin \`${name}\` is rebound, so what it does cannot be known`);
          return DYN;
        }
        return all[0]!;
      }
    } else {
      const v = this.scope.get(name);
      if (v) return v;
    }
    return this.lang.global(name) ?? DYN;
  }

  // ---------------------------------------------------------------------------------------------------
  // Statements

  /** Evaluate the program (or a block) [a, b). */
  seq(toks: Tok[], a: number, b: number): void {
    let s = a;
    for (let i = a; i <= b; i++) {
      if (i === b || toks[i]!.k === 'nl') {
        if (i > s) this.stmt(toks, s, i);
        s = i + 1;
      }
    }
  }

  stmt(toks: Tok[], a: number, b: number): void {
    const own = this.lang.statement(toks, a, b, this);
    if (own !== null) {
      if (own < b) this.run(toks, own, b);
      return;
    }
    // An assignment: `name = expr`, `const name = expr`, `obj.attr = expr`, `a, b = expr`.
    const eq = topLevel(toks, a, b, (t) => t.k === 'op' && (t.v === '=' || /^([-+*/%&|^@]|\*\*|\/\/|<<|>>|>>>|&&|\|\||\?\?)=$/.test(t.v)));
    if (eq > a) {
      let s = a;
      while (s < eq && toks[s]!.k === 'name' && (toks[s]!.v === 'const' || toks[s]!.v === 'let' || toks[s]!.v === 'var' || toks[s]!.v === 'export')) s++;
      const target = toks[s];
      const simple = target !== undefined && target.k === 'name' && (s + 1 === eq || (toks[s + 1]!.v === ':' && this.lang.name === 'python'));
      const r = this.expr(toks, eq + 1, b);
      let v = r.v;
      if (r.i < b) {
        this.run(toks, r.i, b);
        v = DYN;
      }
      if (toks[eq]!.v !== '=') {
        if (simple) this.bind(target.v, DYN);
        this.use(v);
        return;
      }
      if (simple) {
        this.bind(target.v, v);
        return;
      }
      if (target && target.k === 'op' && target.v === '{' && this.lang.name === 'js') {
        this.destructure(toks, s, eq, v);
        return;
      }
      // Any other target: evaluate it for its calls, bind the names it lists to unknown values.
      this.lhs = true;
      try {
        this.run(toks, s, eq);
      } finally {
        this.lhs = false;
      }
      for (let k = s; k < eq; k++) if (toks[k]!.k === 'name' && (k === s || toks[k - 1]!.v === ',')) this.bind(toks[k]!.v, DYN);
      this.use(v);
      return;
    }
    this.run(toks, a, b);
  }

  /** `const {execSync: run, spawn} = require('child_process')`. */
  private destructure(toks: Tok[], s: number, eq: number, v: Val): void {
    const close = matching(toks, s, eq);
    let k = s + 1;
    while (k < close) {
      const key = toks[k]!;
      if (key.k !== 'name' && key.k !== 'str') { k++; continue; }
      let local = key.v;
      let next = k + 1;
      if (toks[next]?.v === ':' && toks[next + 1]?.k === 'name') {
        local = toks[next + 1]!.v;
        next += 2;
      }
      const member = v.t === 'ref' ? this.lang.member(v.q, key.v, this) : v.t === 'obj' ? v.props.get(key.v) ?? DYN : v.t === 'env' ? envVar(this, key.v) : DYN;
      this.bind(local, member);
      // Skip a default value (`= …`) up to the next comma.
      k = next;
      while (k < close && toks[k]!.v !== ',') k++;
      k++;
    }
  }

  /** Evaluate [a, b) as a run of expressions, skipping what is not one. */
  run(toks: Tok[], a: number, b: number): void {
    let i = a;
    let noDump = false;
    while (i < b) {
      const t = toks[i]!;
      if (t.k === 'name' && t.v === 'in') {
        // `'X' in os.environ` asks about one variable; it dumps nothing.
        noDump = true;
        i++;
        continue;
      }
      const r = this.expr(toks, i, b);
      if (r.i > i) {
        if (!(noDump && r.v.t === 'env')) this.use(r.v);
        noDump = false;
        i = r.i;
        continue;
      }
      noDump = false;
      // A bracket that is not an expression start (a block): evaluate its inside.
      if (t.k === 'op' && (t.v === '{' || t.v === '(' || t.v === '[')) {
        const close = matching(toks, i, b);
        this.seqInside(toks, i + 1, close);
        i = close + 1;
        continue;
      }
      i++;
    }
  }

  /** Inside brackets: statements separated by `;`, `,` or line ends. */
  private seqInside(toks: Tok[], a: number, b: number): void {
    let s = a;
    for (let i = a; i <= b; i++) {
      if (i === b || (toks[i]!.k === 'op' && (toks[i]!.v === ';' || toks[i]!.v === ',') && depthAt(toks, s, i) === 0) || toks[i]!.k === 'nl') {
        if (i > s) this.stmt(toks, s, i);
        s = i + 1;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Expressions

  /** A value: a chain, then `+` (and Python's `/` on paths, `%` formatting) joins. Stops at anything else. */
  expr(toks: Tok[], i: number, b: number): { v: Val; i: number } {
    let r = this.chain(toks, i, b);
    if (r.i === i) return r;
    let v = r.v;
    let j = r.i;
    while (j < b) {
      const op = toks[j]!;
      if (op.k !== 'op' || !(op.v === '+' || (op.v === '/' && this.lang.name === 'python'))) break;
      const r2 = this.chain(toks, j + 1, b);
      if (r2.i === j + 1) break;
      v = op.v === '+' ? concat(v, r2.v) : pathJoin([v, r2.v]);
      j = r2.i;
    }
    return { v, i: j };
  }

  /** A primary and its postfixes: `a.b`, `a[k]`, `a(…)`, `new A(…)`. */
  chain(toks: Tok[], i: number, b: number): { v: Val; i: number } {
    if (i >= b) return { v: DYN, i };
    let t = toks[i]!;
    let isNew = false;
    let j = i;
    // Prefixes with no value of their own.
    while (t.k === 'name' && (t.v === 'await' || t.v === 'new' || t.v === 'not' || t.v === 'typeof' || t.v === 'void' || t.v === 'delete' || t.v === 'yield' || t.v === 'return' || t.v === 'throw')) {
      if (t.v === 'new') isNew = true;
      j++;
      if (j >= b) return { v: DYN, i: j };
      t = toks[j]!;
    }
    let v: Val;
    if (t.k === 'str') {
      let s = t.v;
      j++;
      while (j < b && toks[j]!.k === 'str' && this.lang.name === 'python') s += toks[j++]!.v;
      v = { t: 'str', v: s };
    } else if (t.k === 'tmpl') {
      v = this.template(t);
      j++;
    } else if (t.k === 'num') {
      v = { t: 'num', v: Number(t.v.replace(/_/g, '').replace(/n$/, '')) };
      j++;
    } else if (t.k === 'regex') {
      v = DYN;
      j++;
    } else if (t.k === 'name') {
      if (this.lang.keywords.has(t.v)) return { v: DYN, i: j > i ? j : i };
      v = this.lookup(t.v);
      j++;
      if (this.lang.name === 'js' && toks[j]?.v === '=>') return { v: DYN, i: j };
    } else if (t.k === 'op' && (t.v === '(' || t.v === '[')) {
      const close = matching(toks, j, b);
      const items = this.items(toks, j + 1, close);
      v = t.v === '(' && items.length === 1 && !items.tuple ? items[0]! : { t: 'list', items };
      j = close + 1;
      if (this.lang.name === 'js' && toks[j]?.v === '=>') return { v: DYN, i: j };
    } else if (t.k === 'op' && t.v === '{') {
      const close = matching(toks, j, b);
      const o = this.object(toks, j + 1, close);
      if (o === null) return { v: DYN, i: j > i ? j : i }; // a block: the caller evaluates its inside
      v = o;
      j = close + 1;
    } else if (t.k === 'op' && (t.v === '-' || t.v === '+' || t.v === '!' || t.v === '~' || t.v === '*' || t.v === '**' || t.v === '...')) {
      const r = this.chain(toks, j + 1, b);
      if (r.i === j + 1) return { v: DYN, i: j > i ? j : i };
      this.use(r.v);
      return { v: t.v === '-' && r.v.t === 'num' ? { t: 'num', v: -r.v.v } : DYN, i: r.i };
    } else {
      return { v: DYN, i: j > i ? j : i };
    }
    // Postfixes.
    let recv: Val | null = null;
    let member = '';
    while (j < b) {
      const p = toks[j]!;
      if (p.k === 'op' && (p.v === '.' || p.v === '?.') && toks[j + 1]?.k === 'name') {
        const name = toks[j + 1]!.v;
        j += 2;
        if (this.lang.reflect.has(name) && v.t !== 'ref') {
          this.effect({ kind: 'eval', via: `.${name}` });
          this.unknown(`reaches objects through reflection (${name})`);
        }
        if (toks[j]?.v === '(' || (p.v === '?.' && toks[j]?.v === '?.')) {
          recv = v;
          member = name;
          if (v.t === 'ref') v = this.lang.member(v.q, name, this);
          else if (v.t === 'env') v = { t: 'ref', q: `env.${name}` };
          else v = DYN;
          continue;
        }
        recv = null;
        v = this.attr(v, name);
        continue;
      }
      if (p.k === 'op' && p.v === '?.' && toks[j + 1]?.v === '(') {
        j++;
        continue;
      }
      if (p.k === 'op' && p.v === '[') {
        const close = matching(toks, j, b);
        const r = this.expr(toks, j + 1, close);
        const whole = r.i >= close;
        if (!whole) this.run(toks, r.i, close);
        const key = whole ? r.v : DYN;
        if (!whole && r.i === j + 1) this.use(r.v);
        v = this.subscript(v, key);
        recv = null;
        j = close + 1;
        continue;
      }
      if (p.k === 'op' && p.v === '(') {
        const close = matching(toks, j, b);
        const args = this.args(toks, j + 1, close);
        j = close + 1;
        v = this.callValue(v, recv, member, args, isNew);
        isNew = false;
        recv = null;
        continue;
      }
      if (p.k === 'tmpl' || (p.k === 'str' && this.lang.name === 'js')) {
        // A tagged template (zx's $`…`): a call with the template.
        const arg = p.k === 'tmpl' ? this.template(p) : ({ t: 'str', v: p.v } as Val);
        v = this.callValue(v, recv, member, { pos: [arg], kw: new Map() }, false);
        j++;
        continue;
      }
      break;
    }
    if (isNew && recv === null && v.t === 'ref') {
      // `new X` without arguments.
      v = this.callValue(v, null, '', { pos: [], kw: new Map() }, true);
    }
    return { v, i: j };
  }

  private callValue(callee: Val, recv: Val | null, member: string, args: CallArgs, isNew: boolean): Val {
    if (callee.t === 'ref') {
      const out = this.lang.call(callee.q, args, this, isNew);
      if (out !== undefined) return out;
      if (this.lang.unmodeled(callee.q)) {
        this.effect({ kind: 'eval', via: callee.q });
        this.unknown(`calls ${callee.q}, whose effect asimov does not model`);
      }
    }
    if (recv !== null && (recv.t === 'str' || recv.t === 'dyn' || recv.t === 'list' || recv.t === 'obj' || recv.t === 'env')) {
      const out = this.lang.method(recv, member, args, this);
      if (out !== undefined) return out;
    }
    const name = callee.t === 'ref' ? callee.q.slice(callee.q.lastIndexOf('.') + 1) : member;
    if (DESTRUCTIVE_METHOD.test(name) && (recv === null ? callee.t === 'ref' && callee.q.includes('.') : recv.t !== 'str' && recv.t !== 'list')) {
      this.effect({ kind: 'eval', via: name });
      this.unknown(`calls ${name}() on a library object, so what it destroys cannot be known`);
    }
    if (recv !== null && recv.t === 'env') this.use(recv);
    for (const a of args.pos) this.use(a);
    for (const [k, a] of args.kw) if (!(k === 'env' && a.t === 'env')) this.use(a);
    return DYN;
  }

  private attr(v: Val, name: string): Val {
    if (v.t === 'ref') return this.lang.member(v.q, name, this);
    if (v.t === 'env') return envVar(this, name, this.lhs);
    if (v.t === 'obj') return v.props.get(name) ?? DYN;
    if (v.t === 'dyn' || v.t === 'str') {
      const m = this.lang.method(v, name, { pos: [], kw: new Map([['$property', NONE]]) }, this);
      if (m !== undefined) return m;
    }
    return DYN;
  }

  private subscript(v: Val, key: Val): Val {
    if (v.t === 'ref') {
      if (key.t === 'str') return this.lang.member(v.q, key.v, this);
      if (this.lang.sink(v.q) !== null || moduleHasSinks(this.lang, v.q)) {
        this.effect({ kind: 'eval', via: `${v.q}[…]` });
        this.unknown(`picks a member of ${v.q} by a name computed at run time`);
      }
      return DYN;
    }
    if (v.t === 'env') {
      if (key.t === 'str') return envVar(this, key.v, this.lhs);
      if (!this.lhs) this.effect({ kind: 'env', name: null, via: 'a variable named at run time' });
      return DYN;
    }
    if (key.t === 'str' && this.lang.reflect.has(key.v)) {
      this.effect({ kind: 'eval', via: `[${JSON.stringify(key.v)}]` });
      this.unknown(`reaches objects through reflection (${key.v})`);
      return DYN;
    }
    if (v.t === 'list' && key.t === 'num') return v.items[key.v < 0 ? v.items.length + key.v : key.v] ?? DYN;
    if (v.t === 'obj' && key.t === 'str') return v.props.get(key.v) ?? DYN;
    return DYN;
  }

  /** Comma-separated values in brackets; an item not wholly understood is unknown (its calls still count). */
  private items(toks: Tok[], a: number, b: number): Val[] & { tuple?: boolean } {
    const out: Val[] & { tuple?: boolean } = [];
    let s = a;
    for (let i = a; i <= b; i++) {
      if (i === b || (toks[i]!.v === ',' && toks[i]!.k === 'op' && depthAt(toks, s, i) === 0)) {
        if (i < b) out.tuple = true;
        if (i > s) {
          let k = s;
          let spread = false;
          if (toks[k]!.k === 'op' && (toks[k]!.v === '*' || toks[k]!.v === '...')) { spread = true; k++; }
          const r = this.expr(toks, k, i);
          if (r.i < i) {
            if (r.i === k) this.use(r.v);
            this.run(toks, r.i, i);
            out.push(DYN);
          } else if (spread && r.v.t === 'list') out.push(...r.v.items);
          else out.push(spread ? DYN : r.v);
        }
        s = i + 1;
      }
    }
    return out;
  }

  /** Call arguments: positional, Python's `k=v`, spreads. */
  args(toks: Tok[], a: number, b: number): CallArgs {
    const out: CallArgs = { pos: [], kw: new Map() };
    let s = a;
    for (let i = a; i <= b; i++) {
      if (i === b || (toks[i]!.v === ',' && toks[i]!.k === 'op' && depthAt(toks, s, i) === 0)) {
        if (i > s) this.arg(toks, s, i, out);
        s = i + 1;
      }
    }
    return out;
  }

  private arg(toks: Tok[], s: number, e: number, out: CallArgs): void {
    let k = s;
    let kw: string | null = null;
    let spread: string | null = null;
    if (toks[k]!.k === 'name' && toks[k + 1]?.k === 'op' && toks[k + 1]!.v === '=' && this.lang.name === 'python') {
      kw = toks[k]!.v;
      k += 2;
    } else if (toks[k]!.k === 'op' && (toks[k]!.v === '*' || toks[k]!.v === '**' || toks[k]!.v === '...')) {
      spread = toks[k]!.v;
      k++;
    }
    const r = this.expr(toks, k, e);
    let v = r.v;
    if (r.i < e) {
      if (r.i === k) this.use(r.v);
      this.run(toks, r.i, e);
      v = DYN;
    }
    if (kw !== null) out.kw.set(kw, v);
    else if (spread === '**' && v.t === 'obj') for (const [pk, pv] of v.props) out.kw.set(pk, pv);
    else if (spread !== null && v.t === 'list') out.pos.push(...v.items);
    else if (spread !== null) {
      this.use(v);
      out.pos.push(DYN);
      out.kw.set('$spread', DYN);
    } else out.pos.push(v);
  }

  /** `{k: v, …}` (a dict or object literal); null when the braces hold a block. */
  private object(toks: Tok[], a: number, b: number): Val | null {
    const props = new Map<string, Val>();
    let env = false;
    let s = a;
    for (let i = a; i <= b; i++) {
      if (i === b || (toks[i]!.v === ',' && toks[i]!.k === 'op' && depthAt(toks, s, i) === 0)) {
        if (i > s) {
          const t0 = toks[s]!;
          if (t0.k === 'op' && (t0.v === '**' || t0.v === '...')) {
            const r = this.expr(toks, s + 1, i);
            if (r.i < i) return null;
            if (r.v.t === 'env') env = true;
            else if (r.v.t === 'obj') for (const [k, v] of r.v.props) props.set(k, v);
            else this.use(r.v);
          } else {
            const colon = topLevel(toks, s, i, (t) => t.k === 'op' && t.v === ':');
            let key: string | null = null;
            if (colon === s + 1 && (t0.k === 'name' || t0.k === 'str' || t0.k === 'num')) key = t0.v;
            else if (colon > s && t0.k === 'op' && t0.v === '[') {
              const r = this.expr(toks, s + 1, colon - 1);
              if (r.v.t === 'str') key = r.v.v;
              else key = '$computed';
            } else if (colon < 0 && i === s + 1 && t0.k === 'name' && this.lang.name === 'js') {
              props.set(t0.v, this.lookup(t0.v)); // shorthand `{ recursive }`
            } else if (colon < 0 && this.lang.name === 'js' && t0.k === 'name' && toks[s + 1]?.v === '(') {
              // A method `{ f() { … } }`: its body is code.
              this.run(toks, s, i);
            } else return null;
            if (key !== null) {
              const r = this.expr(toks, colon + 1, i);
              let v = r.v;
              if (r.i < i) {
                if (r.i === colon + 1) this.use(r.v);
                this.run(toks, r.i, i);
                v = DYN;
              }
              props.set(key, v);
            }
          }
        }
        s = i + 1;
      }
    }
    if (env) return { t: 'env' };
    return { t: 'obj', props };
  }

  /** An f-string or template literal: known when every hole is. */
  template(t: Tok): Val {
    const { quasis, holes } = t.parts!;
    let s = quasis[0]!;
    let known = true;
    for (let h = 0; h < holes.length; h++) {
      const ht = holes[h]!;
      const r = this.expr(ht, 0, ht.length);
      if (r.i < ht.length) this.run(ht, r.i, ht.length);
      const hv = r.i >= ht.length ? r.v : DYN;
      if (known && hv.t === 'str') s += hv.v;
      else if (known && hv.t === 'num') s += String(hv.v);
      else {
        if (known) this.use(hv);
        known = false;
      }
      if (known) s += quasis[h + 1]!;
    }
    return known ? { t: 'str', v: s } : { t: 'dyn', prefix: s };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Helpers the language tables use

/** What passing a sink around could do, as an effect with nothing known. */
function sinkEffect(kind: string, q: string): Effect {
  switch (kind) {
    case 'run': return { kind: 'run', argv: null, line: null, via: q };
    case 'remove': return { kind: 'remove', path: null, recursive: true, via: q };
    case 'write': return { kind: 'write', path: null, append: false, via: q };
    case 'network': return { kind: 'network', url: null, send: true, via: q };
    default: return { kind: 'eval', via: q };
  }
}

/** A reference whose rebinding matters: a function that acts, a module that has such functions, the environment. */
function active(lang: Lang, v: Val): boolean {
  if (v.t === 'env') return true;
  if (v.t !== 'ref') return false;
  return lang.sink(v.q) !== null || moduleHasSinks(lang, v.q) || /^(builtins|os|subprocess|shutil|pty|socket|importlib|requests|httpx|urllib|http|ftplib|smtplib|ctypes|pickle|marshal|child_process|fs|net|tls|dgram|vm|process|module|require|import|eval|Function|globalThis|Bun|Deno|fetch)(\.|$)/.test(v.q);
}

function moduleHasSinks(lang: Lang, q: string): boolean {
  return ['os', 'subprocess', 'shutil', 'builtins', 'pty', 'socket', 'child_process', 'fs', 'fs.promises', 'globalThis', 'process', 'Deno', 'Bun', 'importlib', 'sys.modules'].includes(q) || lang.sink(`${q}.system`) !== null;
}

/** One environment variable read by name. HOME is the home directory (`~`); others are unknown values. */
export function envVar(ev: Evaluator, name: string, lhs = false): Val {
  if (!lhs) ev.effect({ kind: 'env', name, via: name });
  if (name === 'HOME' || name === 'USERPROFILE') return { t: 'str', v: '~', path: true };
  if (name === 'TMPDIR' || name === 'TEMP' || name === 'TMP') return { t: 'dyn', prefix: '/tmp/', path: true };
  return DYN;
}

/** `a + b` on values. */
export function concat(a: Val, b: Val): Val {
  if (a.t === 'str' && b.t === 'str') return { t: 'str', v: a.v + b.v, path: a.path };
  if (a.t === 'str' && b.t === 'num') return { t: 'str', v: a.v + String(b.v) };
  if (a.t === 'list' && b.t === 'list') return { t: 'list', items: [...a.items, ...b.items] };
  if (a.t === 'str') return { t: 'dyn', prefix: a.v };
  if (a.t === 'dyn' && a.prefix !== undefined) return { t: 'dyn', prefix: a.prefix };
  if (a.t === 'num' && b.t === 'num') return { t: 'num', v: a.v + b.v };
  return DYN;
}

/** os.path.join / Path(a, b) / `p / 'x'` / path.join: the last absolute (or `~`) part restarts the path. */
export function pathJoin(parts: Val[], resolve = false): Val {
  let out = '';
  for (const p of parts) {
    if (p.t !== 'str') {
      if (p.t === 'dyn' && out === '' && p.prefix !== undefined) return { t: 'dyn', prefix: p.prefix, path: true };
      return out === '' ? { t: 'dyn', path: true } : { t: 'dyn', prefix: out.endsWith('/') ? out : `${out}/`, path: true };
    }
    const s = p.v;
    if (s.startsWith('/') || (s === '~' || s.startsWith('~/')) && !resolve) out = s;
    else if (s.startsWith('/')) out = s;
    else if (out === '' || out.endsWith('/')) out += s;
    else out += `/${s}`;
  }
  return { t: 'str', v: out === '' ? '.' : out, path: true };
}

/** `~` expansion as os.path.expanduser / Path.expanduser does it: the value already uses `~`. */
export function expandUser(v: Val): Val {
  if (v.t === 'str') return { t: 'str', v: v.v, path: true };
  if (v.t === 'dyn') return { ...v, path: true };
  return { t: 'dyn', path: true };
}

/** The string in a value, or null. */
export function strOf(v: Val | undefined): string | null {
  return v !== undefined && v.t === 'str' ? v.v : null;
}

/** The index of the bracket closing the one at `i` (or `b - 1` when unclosed). */
export function matching(toks: Tok[], i: number, b: number): number {
  let d = 0;
  for (let k = i; k < b; k++) {
    const t = toks[k]!;
    if (t.k !== 'op') continue;
    if (t.v === '(' || t.v === '[' || t.v === '{') d++;
    else if (t.v === ')' || t.v === ']' || t.v === '}') {
      d--;
      if (d === 0) return k;
    }
  }
  return b;
}

function depthAt(toks: Tok[], a: number, i: number): number {
  let d = 0;
  for (let k = a; k < i; k++) {
    const t = toks[k]!;
    if (t.k !== 'op') continue;
    if (t.v === '(' || t.v === '[' || t.v === '{') d++;
    else if (t.v === ')' || t.v === ']' || t.v === '}') d--;
  }
  return d;
}

/** The first index in [a, b) at bracket depth 0 whose token passes `test`, or -1. */
export function topLevel(toks: Tok[], a: number, b: number, test: (t: Tok) => boolean): number {
  let d = 0;
  for (let k = a; k < b; k++) {
    const t = toks[k]!;
    if (t.k === 'op') {
      if (t.v === '(' || t.v === '[' || t.v === '{') d++;
      else if (t.v === ')' || t.v === ']' || t.v === '}') d--;
    }
    if (d === 0 && test(t)) return k;
  }
  return -1;
}

/** Run both passes of the evaluator over a token list. */
export function evaluate(lang: Lang, toks: Tok[]): CodeEffects {
  const first = new Evaluator(lang);
  first.seq(toks, 0, toks.length);
  // Count binding sites the first pass cannot see by evaluation (parameters, loop variables, lambdas).
  const seen = first.bindingsSeen();
  lang.bindings(toks, 0, toks.length, (name) => {
    let l = seen.get(name);
    if (!l) seen.set(name, (l = []));
    l.push(DYN);
  });
  const second = new Evaluator(lang, seen);
  second.seq(toks, 0, toks.length);
  return second.fx;
}

/** `eval(code)`/`exec(code)`: a literal is read as nested code of the same language; anything else is unknown. */
export function evalEffect(ev: Evaluator, code: Val | undefined, via: string): Val {
  const s = strOf(code);
  if (s !== null) ev.nested(s, via);
  else {
    ev.effect({ kind: 'eval', via });
    ev.unknown(`runs code built at run time (${via})`);
  }
  return DYN;
}
