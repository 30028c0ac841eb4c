// Recursive-descent parser of bash's grammar into a small syntax tree. Fail closed: syntax bash
// rejects throws `unparseable`; syntax bash accepts but we do not fully understand throws `refused`.

import type { RedirectOp, SubstitutionKind } from './types.ts';
import { ShellError, isDeceptive, deceptiveMessage, decodeAnsiC, where } from './lexer.ts';
import { MAX_NESTING as NESTING_LIMIT, MAX_NODES as NODES_LIMIT } from './limits.ts';

// The scanner's character codes and classes live here, module-local, because the hot loops use
// them on every character: imported bindings can cost a getter call per use once compiled to CJS.
const MAX_NESTING = NESTING_LIMIT;
const MAX_NODES = NODES_LIMIT;
const C_TAB = 9;
const C_NL = 10;
const C_SPACE = 32;
const C_BANG = 33;
const C_DQUOTE = 34;
const C_HASH = 35;
const C_DOLLAR = 36;
const C_AMP = 38;
const C_SQUOTE = 39;
const C_LPAREN = 40;
const C_RPAREN = 41;
const C_STAR = 42;
const C_PLUS = 43;
const C_COMMA = 44;
const C_MINUS = 45;
const C_DOT = 46;
const C_SLASH = 47;
const C_0 = 48;
const C_9 = 57;
const C_COLON = 58;
const C_SEMI = 59;
const C_LT = 60;
const C_EQ = 61;
const C_GT = 62;
const C_QUESTION = 63;
const C_AT = 64;
const C_LBRACKET = 91;
const C_BACKSLASH = 92;
const C_RBRACKET = 93;
const C_BACKTICK = 96;
const C_LBRACE = 123;
const C_PIPE = 124;
const C_RBRACE = 125;
const C_TILDE = 126;

/** Characters that end an unquoted word: blanks, newline and `| & ; ( ) < >`. */
function isMeta(c: number): boolean {
  return c === C_SPACE || c === C_TAB || c === C_NL || c === C_PIPE || c === C_AMP || c === C_SEMI ||
    c === C_LPAREN || c === C_RPAREN || c === C_LT || c === C_GT;
}

function isDigit(c: number): boolean {
  return c >= C_0 && c <= C_9;
}

function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || isDigit(c);
}

/** ASCII characters with no meaning inside an unquoted word (the word reader skips runs of them). */
const PLAIN = new Uint8Array(128);
for (let c = 33; c < 127; c++) PLAIN[c] = 1;
for (const ch of '|&;()<>\'"\\$`*?[+@!~') PLAIN[ch.charCodeAt(0)] = 0;

/** Single-character special parameters: `$@ $* $# $? $- $$ $!`. */
function isSpecialParam(d: number): boolean {
  return d === C_AT || d === C_STAR || d === C_HASH || d === C_QUESTION || d === C_MINUS || d === C_DOLLAR || d === C_BANG;
}

// ---------------------------------------------------------------------------------------------
// The syntax tree

/** A piece of a word. Quoted pieces never take part in brace expansion, globbing or tilde expansion. */
export type Part = LitPart | GlobPart | TildePart | ParamPart | SubPart;

export interface LitPart { t: 'lit'; s: string; q: boolean }
/** An unquoted `*`, `?` or `[` (pathname expansion). */
export interface GlobPart { t: 'glob'; s: string }
/** An unquoted tilde prefix: `~`, `~user`, `~+`… */
export interface TildePart { t: 'tilde'; s: string }
export interface ParamPart {
  t: 'param';
  raw: string;
  name: string;
  /** Inside double quotes (no word splitting). */
  q: boolean;
  /** `$x` or `${x}`: nothing but the value. */
  simple: boolean;
  /** `${!x…}`. */
  indirect: boolean;
  /** `${x=…}` / `${x:=…}` assigns. */
  assigns: boolean;
  /** Parts inside (subscript, operator word), for the substitutions and names they hold. */
  inner: Part[];
  /** Arithmetic parts inside (a subscript). */
  arith: boolean;
}
export interface SubPart {
  t: 'sub';
  kind: SubstitutionKind;
  raw: string;
  q: boolean;
  /** The commands of `$(…)`, backticks, `<(…)`, `>(…)`; null for arithmetic. */
  body: ListNode | null;
  /** For arithmetic: the parts of the expression. */
  inner: Part[];
  /** Ids of the commands the body produced, filled in by the collector. */
  ids?: number[];
}

export interface WordNode {
  raw: string;
  parts: Part[];
  /** `declare a=(…)`-style argument: never literal. */
  compound?: boolean;
}

export interface AssignNode {
  name: string;
  append: boolean;
  /** Parts of `[subscript]`, if any (arithmetic). */
  index: Part[] | null;
  value: WordNode;
  array: WordNode[] | null;
}

export interface RedirNode {
  op: RedirectOp;
  fd?: number;
  /** `{name}>`: the variable that receives the fd. */
  fdVar?: string;
  target: WordNode;
  heredoc?: { body: string; quoted: boolean; parts: Part[] | null };
}

export interface SimpleNode {
  t: 'simple';
  text: string;
  assigns: AssignNode[];
  words: WordNode[];
  redirs: RedirNode[];
}

export type CompoundKind =
  | 'subshell' | 'group' | 'if' | 'while' | 'until' | 'for' | 'select' | 'cfor' | 'case' | 'cond' | 'arith';

/** One element of a compound command, in source order. */
export type Item = { list: ListNode } | { word: WordNode } | { arith: Part[] };

export interface CompoundNode {
  t: 'compound';
  kind: CompoundKind;
  text: string;
  items: Item[];
  /** Loop variable of for/select. */
  loopVar?: string;
  /** `[[ … ]]` with an arithmetic comparison (-eq, -ne, -lt, -le, -gt, -ge): its operands are evaluated as arithmetic. */
  arithTest?: boolean;
  redirs: RedirNode[];
}

export interface FuncNode { t: 'func'; name: string; text: string; body: CmdNode }
export interface CoprocNode { t: 'coproc'; name: string | null; text: string; body: CmdNode }

export type CmdNode = SimpleNode | CompoundNode | FuncNode | CoprocNode;

export interface PipelineNode { cmds: CmdNode[]; bang: boolean; time: boolean }
export interface AndOrNode { pipes: PipelineNode[] }
export interface ListItem { ao: AndOrNode; bg: boolean }
export interface ListNode { items: ListItem[] }

// ---------------------------------------------------------------------------------------------

/** State shared by a parser and the sub-parsers it starts (backticks, here-document bodies). */
interface Shared {
  nodes: number;
}

interface PendingHeredoc {
  redir: RedirNode;
  delim: string;
  strip: boolean;
  quoted: boolean;
}

interface Stop {
  rparen?: boolean;
  caseEnd?: boolean;
  words?: ReadonlySet<string>;
}

const RESERVED = new Set([
  'if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'select',
  'function', 'time', '{', '}', '!', '[[', ']]', 'in', 'coproc',
]);
const NOT_A_COMMAND = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', 'esac', '}', 'in', '!', ']]']);
const ASSIGN_BUILTINS = new Set(['alias', 'declare', 'eval', 'export', 'let', 'local', 'readonly', 'typeset']);
const UNARY_TESTS = new Set([
  '-a', '-b', '-c', '-d', '-e', '-f', '-g', '-h', '-k', '-p', '-r', '-s', '-t', '-u', '-w', '-x', '-O', '-G',
  '-L', '-S', '-N', '-o', '-v', '-R', '-z', '-n',
]);
const BINARY_TESTS = new Set(['==', '=', '!=', '=~', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot', '-ef']);

const STOP_EOF: Stop = {};
const STOP_RPAREN: Stop = { rparen: true };
const STOP_THEN: Stop = { words: new Set(['then']) };
const STOP_ELSE: Stop = { words: new Set(['elif', 'else', 'fi']) };
const STOP_FI: Stop = { words: new Set(['fi']) };
const STOP_DO: Stop = { words: new Set(['do']) };
const STOP_DONE: Stop = { words: new Set(['done']) };
const STOP_BRACE: Stop = { words: new Set(['}']) };
const STOP_CASE: Stop = { caseEnd: true, words: new Set(['esac']) };

export interface ParserOptions {
  /** Offset of this text in the outer line, for messages. */
  base?: number;
  /** Nesting depth already used by the enclosing parser. */
  depth?: number;
  shared?: Shared;
}

export class Parser {
  private readonly src: string;
  private readonly n: number;
  private pos = 0;
  /** Set while parsing `[[ … ]]` when an arithmetic comparison is seen. */
  private condArith = false;
  private depth: number;
  private readonly base: number;
  private readonly shared: Shared;
  private pending: PendingHeredoc[] = [];
  /**
   * One flag per enclosing `$(…)`: whether it already holds a here-document. bash 5.2 drops a `;`
   * that follows a here-document inside `$(…)` (`$(cat <<E⏎E⏎a;b)` runs `a b`), so we refuse those.
   */
  private comsubHeredoc: boolean[] = [];
  /** Characters the look-ahead scans may still read: keeps hostile input linear. */
  private scanBudget: number;
  /** reservedAt's last answer and the position it was for (-1: none yet). */
  private reservedPos = -1;
  private reservedWord: string | null = null;

  constructor(src: string, opts: ParserOptions = {}) {
    this.src = src;
    this.n = src.length;
    this.depth = opts.depth ?? 0;
    this.base = opts.base ?? 0;
    this.shared = opts.shared ?? { nodes: 0 };
    // Nested look-aheads rescan their inside once per level, so the budget scales with the nesting cap.
    this.scanBudget = (MAX_NESTING + 2) * src.length + 4096;
  }

  /** A `;`, `;;`, `;&` or `;;&` separator is being consumed. */
  private semicolon(): void {
    const n = this.comsubHeredoc.length;
    if (n > 0 && this.comsubHeredoc[n - 1]) {
      this.refuse('`;` after a here-document inside `$(…)` (bash 5.2 drops it and joins the commands)');
    }
  }

  private spend(chars: number): void {
    this.scanBudget -= chars;
    if (this.scanBudget < 0) {
      throw new ShellError('too_complex', 'the command needs too much look-ahead to parse (nested brackets or parentheses)');
    }
  }

  /** Parses a whole command line (or backtick body). */
  parseProgram(): ListNode {
    const list = this.parseList(STOP_EOF, true);
    this.skipNewlines();
    if (this.pos < this.n) this.unexpected();
    if (this.pending.length > 0) {
      throw new ShellError('refused', `here-document not terminated (wanted \`${this.pending[0]!.delim}\`)`);
    }
    return list;
  }

  // -------------------------------------------------------------------------------------------
  // Errors, limits

  private at(p = this.pos): string {
    return where(this.src, p, this.base);
  }

  private fail(msg: string, p = this.pos): never {
    throw new ShellError('unparseable', `syntax error: ${msg} at ${this.at(p)}`);
  }

  private refuse(msg: string, p = this.pos): never {
    throw new ShellError('refused', `${msg} at ${this.at(p)}`);
  }

  private unexpected(p = this.pos): never {
    if (p >= this.n) this.fail('unexpected end of input', p);
    let end = p + 1;
    const c = this.src.charCodeAt(p);
    if (c === C_NL) this.fail('unexpected newline', p);
    if (isMeta(c)) {
      const two = this.src.slice(p, p + 3);
      const op = [';;&', ';;', ';&', '&&', '||', '|&', '>>', '<<', '&>'].find((o) => two.startsWith(o));
      end = p + (op ? op.length : 1);
    } else {
      while (end < this.n && !isMeta(this.src.charCodeAt(end))) end++;
    }
    this.fail(`unexpected \`${this.src.slice(p, Math.min(end, p + 40))}\``, p);
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING) {
      throw new ShellError('too_deep', `the command nests constructs more than ${MAX_NESTING} levels deep (at ${this.at()})`);
    }
  }

  private leave(): void {
    this.depth--;
  }

  private count(): void {
    if (++this.shared.nodes > MAX_NODES) {
      throw new ShellError('too_complex', `the command has more than ${MAX_NODES} commands and words`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Character helpers

  private c(k = 0): number {
    return this.src.charCodeAt(this.pos + k);
  }

  private contAt(p: number): boolean {
    return this.src.charCodeAt(p) === C_BACKSLASH && this.src.charCodeAt(p + 1) === C_NL;
  }

  /** An operator followed by a line continuation and more operator characters means something else to bash. */
  private checkOpCont(): void {
    if (this.contAt(this.pos)) {
      let p = this.pos;
      while (this.contAt(p)) p += 2;
      const d = this.src.charCodeAt(p);
      if (d === C_PIPE || d === C_AMP || d === C_SEMI || d === C_LT || d === C_GT || d === C_LPAREN || d === C_RPAREN || d === C_MINUS) {
        this.refuse('line continuation inside an operator');
      }
    }
  }

  /** Blanks, line continuations and a comment (up to, not including, the newline). */
  private skipBlanks(): void {
    const s = this.src;
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (c === C_SPACE || c === C_TAB) this.pos++;
      else if (c === C_BACKSLASH && s.charCodeAt(this.pos + 1) === C_NL) this.pos += 2;
      else if (c === C_HASH) {
        const e = s.indexOf('\n', this.pos);
        this.pos = e < 0 ? this.n : e;
      } else break;
    }
  }

  private skipNewlines(): void {
    for (;;) {
      this.skipBlanks();
      if (this.c() === C_NL) this.newline();
      else break;
    }
  }

  /** Consumes a newline token; here-documents pending on this line are read now. */
  private newline(): void {
    this.pos++;
    if (this.pending.length > 0) this.readHeredocs();
  }

  /**
   * The reserved word starting at pos, if the text there is exactly one (a whole unquoted word).
   * A pipeline, then a compound command, then a simple command each ask at the same position, so the
   * last answer is kept (the source never changes, so it depends on pos alone).
   */
  private reservedAt(): string | null {
    if (this.pos !== this.reservedPos) {
      this.reservedWord = this.scanReserved();
      this.reservedPos = this.pos;
    }
    return this.reservedWord;
  }

  private scanReserved(): string | null {
    const s = this.src;
    // Every reserved word starts with one of `! [ ] { } c d e f i s t u w`.
    const c0 = s.charCodeAt(this.pos);
    if (!(c0 === C_BANG || c0 === C_LBRACKET || c0 === C_RBRACKET || c0 === C_LBRACE || c0 === C_RBRACE ||
      c0 === 99 || c0 === 100 || c0 === 101 || c0 === 102 || c0 === 105 || c0 === 115 || c0 === 116 ||
      c0 === 117 || c0 === 119)) {
      return null;
    }
    let e = this.pos;
    while (e < this.n && e - this.pos < 9) {
      const c = s.charCodeAt(e);
      if (isMeta(c)) break;
      e++;
    }
    if (e === this.pos) return null;
    if (e < this.n && !isMeta(s.charCodeAt(e))) return null;
    const w = s.slice(this.pos, e);
    return RESERVED.has(w) ? w : null;
  }

  private atStop(stop: Stop): boolean {
    const c = this.c();
    if (stop.rparen && c === C_RPAREN) return true;
    if (stop.caseEnd && c === C_SEMI) {
      const d = this.c(1);
      if (d === C_SEMI || d === C_AMP) return true;
    }
    if (stop.words) {
      const r = this.reservedAt();
      if (r !== null && stop.words.has(r)) return true;
    }
    return false;
  }

  private expectReserved(w: string): void {
    this.skipNewlines();
    if (this.reservedAt() !== w) {
      if (this.pos >= this.n) this.fail(`unexpected end of input (expected \`${w}\`)`);
      this.unexpected();
    }
    this.pos += w.length;
  }

  // -------------------------------------------------------------------------------------------
  // Lists, and-or lists, pipelines

  private parseList(stop: Stop, allowEmpty: boolean): ListNode {
    const items: ListItem[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.pos >= this.n || this.atStop(stop)) break;
      const ao = this.parseAndOr();
      this.skipBlanks();
      const c = this.c();
      if (c === C_SEMI) {
        const d = this.c(1);
        if (d === C_SEMI || d === C_AMP) {
          items.push({ ao, bg: false });
          break;
        }
        this.semicolon();
        this.pos++;
        this.checkOpCont();
        items.push({ ao, bg: false });
        continue;
      }
      if (c === C_AMP) {
        this.pos++;
        this.checkOpCont();
        items.push({ ao, bg: true });
        continue;
      }
      items.push({ ao, bg: false });
      if (c === C_NL) continue;
      break;
    }
    if (!allowEmpty && items.length === 0) this.unexpected();
    return { items };
  }

  private parseAndOr(): AndOrNode {
    const pipes = [this.parsePipeline()];
    for (;;) {
      this.skipBlanks();
      const c = this.c();
      const d = this.c(1);
      if ((c === C_AMP && d === C_AMP) || (c === C_PIPE && d === C_PIPE)) {
        this.pos += 2;
        this.checkOpCont();
        this.skipNewlines();
        pipes.push(this.parsePipeline());
      } else break;
    }
    return { pipes };
  }

  private parsePipeline(): PipelineNode {
    let bang = false;
    let time = false;
    for (;;) {
      this.skipBlanks();
      const r = this.reservedAt();
      if (r === '!') {
        bang = true;
        this.pos++;
      } else if (r === 'time') {
        time = true;
        this.pos += 4;
        this.skipBlanks();
        if (this.src.startsWith('-p', this.pos) && (this.pos + 2 >= this.n || isMeta(this.c(2)))) this.pos += 2;
      } else break;
    }
    if (bang || time) {
      // `!` or `time` alone before a list terminator is a valid (empty) pipeline.
      this.skipBlanks();
      const c = this.c();
      if (this.pos >= this.n || c === C_NL || (c === C_SEMI && this.c(1) !== C_SEMI && this.c(1) !== C_AMP)) {
        return { cmds: [], bang, time };
      }
    }
    const cmds = [this.parseCommand()];
    for (;;) {
      this.skipBlanks();
      if (this.c() === C_PIPE && this.c(1) !== C_PIPE) {
        this.pos++;
        const stderrToo = this.c() === C_AMP;
        if (stderrToo) this.pos++;
        this.checkOpCont();
        const before = this.pos;
        this.skipNewlines();
        // bash 5.2 takes `time` as a misplaced keyword after `|&` and a newline.
        if (stderrToo && this.src.slice(before, this.pos).includes('\n') && this.reservedAt() === 'time') this.unexpected();
        cmds.push(this.parseCommand());
      } else break;
    }
    return { cmds, bang, time };
  }

  // -------------------------------------------------------------------------------------------
  // Commands

  private parseCommand(): CmdNode {
    this.skipBlanks();
    if (this.pos >= this.n) this.fail('unexpected end of input');
    const start = this.pos;
    const compound = this.parseCompound();
    if (compound) return compound;
    const r = this.reservedAt();
    if (r === 'function') return this.parseFunctionKeyword(start);
    if (r === 'coproc') return this.parseCoproc(start);
    if (r !== null && NOT_A_COMMAND.has(r)) this.unexpected();
    return this.parseSimple();
  }

  /** A compound command with its trailing redirections, or null when none starts here. */
  private parseCompound(): CompoundNode | null {
    const start = this.pos;
    const c = this.c();
    let node: CompoundNode | null = null;
    if (c === C_LPAREN) {
      if (this.contAt(this.pos + 1)) this.refuse('line continuation right after `(`');
      if (this.c(1) === C_LPAREN) {
        const e = this.scanArith(this.pos + 2);
        // bash cannot re-read `(( x )⏎)` as nested subshells (it reports a syntax error).
        if (e < 0) {
          const close = this.scanParens(this.pos + 2);
          if (close >= 0 && this.src.charCodeAt(close + 1) === C_NL) this.fail('unexpected `)` after `((`', close);
        }
        if (e >= 0) {
          this.enter();
          this.count();
          this.pos += 2;
          const parts = this.parseArithContent(e);
          this.pos = e + 2;
          this.leave();
          node = { t: 'compound', kind: 'arith', text: '', items: [{ arith: parts }], redirs: [] };
        }
      }
      if (!node) {
        this.enter();
        this.count();
        this.pos++;
        const list = this.parseList(STOP_RPAREN, false);
        if (this.c() !== C_RPAREN) this.unexpected();
        this.pos++;
        this.leave();
        node = { t: 'compound', kind: 'subshell', text: '', items: [{ list }], redirs: [] };
      }
    } else {
      const r = this.reservedAt();
      if (r === null) return null;
      switch (r) {
        case '{': node = this.parseGroup(); break;
        case 'if': node = this.parseIf(); break;
        case 'while': case 'until': node = this.parseWhile(r); break;
        case 'for': node = this.parseFor(); break;
        case 'select': node = this.parseSelect(); break;
        case 'case': node = this.parseCase(); break;
        case '[[': node = this.parseCond(); break;
        default: return null;
      }
    }
    // Trailing redirections of the compound command.
    for (;;) {
      this.skipBlanks();
      const rd = this.tryRedirect();
      if (!rd) break;
      node.redirs.push(rd);
    }
    // After `}`, `fi`… a reserved word may follow directly; after a redirection it would be a
    // plain word, which a compound command cannot take.
    if (node.redirs.length > 0 && this.pos < this.n && !isMeta(this.c())) this.unexpected();
    node.text = this.src.slice(start, this.pos);
    return node;
  }

  private parseGroup(): CompoundNode {
    this.enter();
    this.count();
    this.pos++;
    const list = this.parseList(STOP_BRACE, false);
    this.expectReserved('}');
    this.leave();
    return { t: 'compound', kind: 'group', text: '', items: [{ list }], redirs: [] };
  }

  private parseIf(): CompoundNode {
    this.enter();
    this.count();
    this.pos += 2;
    const items: Item[] = [];
    items.push({ list: this.parseList(STOP_THEN, false) });
    this.expectReserved('then');
    items.push({ list: this.parseList(STOP_ELSE, false) });
    for (;;) {
      const r = this.reservedAt();
      if (r === 'elif') {
        this.pos += 4;
        items.push({ list: this.parseList(STOP_THEN, false) });
        this.expectReserved('then');
        items.push({ list: this.parseList(STOP_ELSE, false) });
      } else if (r === 'else') {
        this.pos += 4;
        items.push({ list: this.parseList(STOP_FI, false) });
        this.expectReserved('fi');
        break;
      } else {
        this.expectReserved('fi');
        break;
      }
    }
    this.leave();
    return { t: 'compound', kind: 'if', text: '', items, redirs: [] };
  }

  private parseWhile(kw: 'while' | 'until'): CompoundNode {
    this.enter();
    this.count();
    this.pos += kw.length;
    const cond = this.parseList(STOP_DO, false);
    this.expectReserved('do');
    const body = this.parseList(STOP_DONE, false);
    this.expectReserved('done');
    this.leave();
    return { t: 'compound', kind: kw, text: '', items: [{ list: cond }, { list: body }], redirs: [] };
  }

  /** `do … done` or `{ … }` after a for/select header. */
  private parseLoopBody(items: Item[]): void {
    this.skipNewlines();
    const r = this.reservedAt();
    if (r === '{') {
      this.pos++;
      items.push({ list: this.parseList(STOP_BRACE, false) });
      this.expectReserved('}');
    } else if (r === 'do') {
      this.pos += 2;
      items.push({ list: this.parseList(STOP_DONE, false) });
      this.expectReserved('done');
    } else {
      if (this.pos >= this.n) this.fail('unexpected end of input (expected `do`)');
      this.unexpected();
    }
  }

  private parseFor(): CompoundNode {
    this.enter();
    this.count();
    this.pos += 3;
    this.skipBlanks();
    if (this.c() === C_LPAREN && this.c(1) === C_LPAREN) {
      const e = this.scanArith(this.pos + 2);
      if (e < 0) this.fail('bad arithmetic `for ((…))`');
      this.pos += 2;
      const parts = this.parseArithContent(e);
      this.pos = e + 2;
      this.skipBlanks();
      if (this.c() === C_SEMI) {
        this.semicolon();
        this.pos++;
      }
      const items: Item[] = [{ arith: parts }];
      this.parseLoopBody(items);
      this.leave();
      return { t: 'compound', kind: 'cfor', text: '', items, redirs: [] };
    }
    const node = this.parseForHeader('for');
    this.leave();
    return node;
  }

  private parseSelect(): CompoundNode {
    this.enter();
    this.count();
    this.pos += 6;
    const node = this.parseForHeader('select');
    this.leave();
    return node;
  }

  private parseForHeader(kind: 'for' | 'select'): CompoundNode {
    this.skipBlanks();
    const nameStart = this.pos;
    const nameWord = this.readWord();
    if (!nameWord) this.unexpected();
    const name = plainText(nameWord);
    if (name === null || !isValidName(name)) {
      this.refuse(`\`${kind}\` with a loop variable that is not a plain name (\`${nameWord.raw}\`)`, nameStart);
    }
    const items: Item[] = [];
    this.skipBlanks();
    if (this.c() === C_SEMI && this.c(1) !== C_SEMI) {
      this.semicolon();
      this.pos++;
    } else {
      this.skipNewlines();
      if (this.reservedAt() === 'in') {
        this.pos += 2;
        for (;;) {
          this.skipBlanks();
          const c = this.c();
          if (this.pos >= this.n || c === C_NL) break;
          if (c === C_SEMI) {
            if (this.c(1) === C_SEMI || this.c(1) === C_AMP) this.unexpected();
            this.semicolon();
            this.pos++;
            break;
          }
          const w = this.readWord();
          if (!w) this.unexpected();
          items.push({ word: w });
        }
      }
    }
    this.parseLoopBody(items);
    return { t: 'compound', kind, text: '', items, redirs: [], loopVar: name };
  }

  private parseCase(): CompoundNode {
    this.enter();
    this.count();
    this.pos += 4;
    this.skipBlanks();
    const w = this.readWord();
    if (!w) this.unexpected();
    const items: Item[] = [{ word: w }];
    this.skipNewlines();
    this.expectReserved('in');
    for (;;) {
      this.skipNewlines();
      if (this.reservedAt() === 'esac') {
        this.pos += 4;
        break;
      }
      if (this.pos >= this.n) this.fail('unexpected end of input (expected `esac`)');
      if (this.c() === C_LPAREN) this.pos++;
      for (;;) {
        this.skipBlanks();
        const pw = this.readWord();
        if (!pw) this.unexpected();
        items.push({ word: pw });
        this.skipBlanks();
        if (this.c() === C_PIPE && this.c(1) !== C_PIPE) {
          this.pos++;
          continue;
        }
        break;
      }
      if (this.c() !== C_RPAREN) this.unexpected();
      this.pos++;
      items.push({ list: this.parseList(STOP_CASE, true) });
      this.skipBlanks();
      if (this.c() === C_SEMI) {
        // `;;`, `;&` or `;;&`
        this.semicolon();
        if (this.c(1) === C_SEMI) this.pos += this.c(2) === C_AMP ? 3 : 2;
        else this.pos += 2;
        this.checkOpCont();
      } else {
        this.skipNewlines();
        if (this.reservedAt() !== 'esac') this.unexpected();
      }
    }
    this.leave();
    return { t: 'compound', kind: 'case', text: '', items, redirs: [] };
  }

  // `[[ … ]]`: bash's conditional-expression grammar, so what bash rejects we reject. Newlines are
  // allowed where a term starts (after `[[`, `!`, `(`, `&&`, `||`) and after a complete unary or
  // binary test or `)`, but not after a lone word (bash then wants a binary operator), as in bash.
  private parseCond(): CompoundNode {
    this.enter();
    this.count();
    this.pos += 2;
    const items: Item[] = [];
    // Saved and restored: a `$( [[ … ]] )` inside an operand parses a conditional of its own.
    const outerArith = this.condArith;
    this.condArith = false;
    this.condSkip(true);
    // `[[ ]]` is accepted by bash's parser (and is simply false).
    if (!this.condWordIs(']]')) this.condOr(items);
    this.condSkip(false);
    if (!this.condWordIs(']]')) {
      if (this.pos >= this.n) this.fail('unexpected end of input (expected `]]`)');
      this.fail('conditional expression: expected `]]`');
    }
    this.pos += 2;
    this.leave();
    const node: CompoundNode = { t: 'compound', kind: 'cond', text: '', items, redirs: [] };
    if (this.condArith) node.arithTest = true;
    this.condArith = outerArith;
    return node;
  }

  private condSkip(newlines: boolean): void {
    if (newlines) this.skipNewlines();
    else this.skipBlanks();
  }

  private condWordIs(w: string): boolean {
    return this.src.startsWith(w, this.pos) && (this.pos + w.length >= this.n || isMeta(this.src.charCodeAt(this.pos + w.length)));
  }

  private condOr(items: Item[]): void {
    this.condAnd(items);
    for (;;) {
      this.condSkip(false);
      if (this.c() === C_PIPE && this.c(1) === C_PIPE) {
        this.pos += 2;
        this.condAnd(items);
      } else break;
    }
  }

  private condAnd(items: Item[]): void {
    this.condNot(items);
    for (;;) {
      this.condSkip(false);
      if (this.c() === C_AMP && this.c(1) === C_AMP) {
        this.pos += 2;
        this.condNot(items);
      } else break;
    }
  }

  private condNot(items: Item[]): void {
    this.condSkip(true);
    if (this.condWordIs('!')) {
      const save = this.pos;
      this.pos++;
      this.condSkip(true);
      if (this.condWordIs(']]')) {
        this.pos = save; // `[[ ! ]]` tests the string "!"
      } else {
        this.enter();
        this.condNot(items);
        this.leave();
        return;
      }
    }
    this.condPrimary(items);
  }

  /** A word inside `[[ ]]` (after blanks only), or null at an operator, a newline or `]]`. */
  private condWord(): WordNode | null {
    this.condSkip(false);
    const c = this.c();
    if (this.pos >= this.n || isMeta(c)) return null;
    if (this.condWordIs(']]')) return null;
    return this.readWord();
  }

  private condPrimary(items: Item[]): void {
    this.condSkip(true);
    if (this.c() === C_LPAREN) {
      this.enter();
      this.pos++;
      this.condOr(items);
      this.condSkip(false);
      if (this.c() !== C_RPAREN) this.fail('conditional expression: expected `)`');
      this.pos++;
      this.leave();
      this.condSkip(true);
      return;
    }
    const wStart = this.pos;
    const w = this.condWord();
    if (!w) {
      if (this.pos >= this.n) this.fail('unexpected end of input in conditional expression');
      this.fail('conditional expression: unexpected token', wStart);
    }
    items.push({ word: w });
    // Operators count only unquoted, as written.
    const op = w.raw;
    if (UNARY_TESTS.has(op)) {
      // `-v NAME` evaluates a subscript in NAME (or in the value it expands to) as arithmetic.
      if (op === '-v') this.condArith = true;
      this.condSkip(false);
      if (this.condWordIs(']]')) this.fail(`unexpected argument \`]]\` to conditional unary operator`);
      const arg = this.condWord();
      if (!arg) this.fail(`unexpected argument to conditional unary operator \`${op}\``);
      items.push({ word: arg });
      this.condSkip(true);
      return;
    }
    this.condSkip(false);
    const c = this.c();
    if ((c === C_LT || c === C_GT) && this.c(1) !== C_LPAREN) {
      this.pos++;
      const right = this.condWord();
      if (!right) this.fail('conditional expression: expected an operand');
      items.push({ word: right });
      this.condSkip(true);
      return;
    }
    if (this.pos < this.n && !isMeta(c) && !this.condWordIs(']]')) {
      const opStart = this.pos;
      const opWord = this.readWord();
      const ops = opWord ? opWord.raw : null;
      if (ops === null || !BINARY_TESTS.has(ops)) this.fail('conditional binary operator expected', opStart);
      if (/^-(eq|ne|lt|le|gt|ge)$/.test(ops)) this.condArith = true;
      this.condSkip(false);
      const right = ops === '=~' ? this.readRegexWord() : this.condWord();
      if (!right) this.fail('conditional expression: expected an operand');
      items.push({ word: right });
      this.condSkip(true);
    }
  }

  /**
   * The right side of `=~`: `|` and parentheses belong to the word, and inside parentheses so do
   * blanks, newlines and the other operator characters. At the top level `&&`, `||`, `;`, `&`, `<`,
   * `>` and blanks end it.
   */
  private readRegexWord(): WordNode | null {
    if (this.pos >= this.n || this.condWordIs(']]')) return null;
    const start = this.pos;
    const parts: Part[] = [];
    let depth = 0;
    for (;;) {
      const c = this.c();
      if (this.pos >= this.n) break;
      if (depth === 0 && (c === C_SPACE || c === C_TAB || c === C_NL)) break;
      if (c === C_LPAREN) {
        depth++;
        this.pos++;
        pushLit(parts, '(', false);
        continue;
      }
      if (c === C_RPAREN) {
        if (depth === 0) break;
        depth--;
        this.pos++;
        pushLit(parts, ')', false);
        continue;
      }
      if (isMeta(c)) {
        if (depth === 0 && c !== C_PIPE) break;
        if (depth === 0 && this.c(1) === C_PIPE) break;
        this.pos++;
        pushLit(parts, String.fromCharCode(c), false);
        continue;
      }
      const w = this.readWord();
      if (!w) break;
      for (const x of w.parts) parts.push(x);
    }
    if (depth !== 0) this.fail('unbalanced parentheses in a regular expression');
    if (this.pos === start) return null;
    this.count();
    return { raw: this.src.slice(start, this.pos), parts };
  }

  private parseFunctionKeyword(start: number): FuncNode {
    this.pos += 8;
    this.skipBlanks();
    const nameStart = this.pos;
    const w = this.readWord();
    if (!w) this.unexpected();
    const name = plainText(w);
    if (name === null || name.length === 0) this.refuse('function name that is not plain text', nameStart);
    this.skipBlanks();
    if (this.c() === C_LPAREN) {
      this.pos++;
      this.skipBlanks();
      if (this.c() !== C_RPAREN) this.unexpected();
      this.pos++;
    }
    return this.parseFunctionBody(start, name);
  }

  private parseFunctionBody(start: number, name: string): FuncNode {
    this.skipNewlines();
    this.enter();
    const body = this.parseCompound();
    if (!body) {
      if (this.pos >= this.n) this.fail('unexpected end of input (expected a function body)');
      this.unexpected();
    }
    this.leave();
    this.count();
    return { t: 'func', name, text: this.src.slice(start, this.pos), body };
  }

  private parseCoproc(start: number): CoprocNode {
    this.pos += 6;
    this.skipBlanks();
    let name: string | null = null;
    // `coproc NAME compound`: a name is taken only when a compound command follows it.
    const save = this.pos;
    let e = this.pos;
    while (e < this.n && isNameChar(this.src.charCodeAt(e))) e++;
    if (e > this.pos && isNameStart(this.c()) && (e >= this.n || isMeta(this.src.charCodeAt(e)))) {
      const cand = this.src.slice(this.pos, e);
      if (!RESERVED.has(cand)) {
        this.pos = e;
        this.skipBlanks();
        const r = this.reservedAt();
        const isCompound = this.c() === C_LPAREN ||
          (r !== null && ['{', 'if', 'while', 'until', 'for', 'select', 'case', '[['].includes(r));
        if (isCompound) name = cand;
        else this.pos = save;
      }
    }
    this.enter();
    const body = this.parseCommand();
    this.leave();
    this.count();
    return { t: 'coproc', name, text: this.src.slice(start, this.pos), body };
  }

  private parseSimple(): CmdNode {
    const start = this.pos;
    let end = this.pos;
    const assigns: AssignNode[] = [];
    const words: WordNode[] = [];
    const redirs: RedirNode[] = [];
    let declArgs = false;
    this.count();
    for (;;) {
      this.skipBlanks();
      if (this.pos >= this.n) break;
      const rd = this.tryRedirect();
      if (rd) {
        redirs.push(rd);
        end = this.pos;
        continue;
      }
      const c = this.c();
      if (isMeta(c) && !((c === C_LT || c === C_GT) && this.c(1) === C_LPAREN)) break;
      if (words.length === 0) {
        const a = this.tryAssignment();
        if (a) {
          assigns.push(a);
          end = this.pos;
          continue;
        }
      }
      const wStart = this.pos;
      const w = declArgs ? this.readDeclArg() : this.readWord();
      if (!w) this.unexpected();
      words.push(w);
      end = this.pos;
      if (words.length === 1) {
        const name = plainText(w);
        if (w.raw.includes('\\\n')) {
          // bash joins the lines first: a split reserved word or assignment is one to bash.
          const joined = w.raw.split('\\\n').join('');
          if ((name !== null && RESERVED.has(name)) || /^[A-Za-z_][A-Za-z0-9_]*(\[|\+?=)/.test(joined)) {
            this.refuse(`a reserved word or assignment split by a line continuation (\`${joined.slice(0, 20)}\`)`, wStart);
          }
        }
        if (name !== null && ASSIGN_BUILTINS.has(name) && name === w.raw) declArgs = true;
        // `name ( )` starts a function definition.
        if (assigns.length === 0 && redirs.length === 0) {
          const save = this.pos;
          this.skipBlanks();
          if (this.c() === C_LPAREN) {
            if (name === null || name.length === 0 || name !== w.raw) this.refuse('function name that is not plain text', wStart);
            this.pos++;
            this.skipBlanks();
            if (this.c() !== C_RPAREN) this.unexpected();
            this.pos++;
            return this.parseFunctionBody(start, name);
          }
          this.pos = save;
        }
      }
    }
    if (assigns.length === 0 && words.length === 0 && redirs.length === 0) this.unexpected();
    return { t: 'simple', text: this.src.slice(start, end), assigns, words, redirs };
  }

  // -------------------------------------------------------------------------------------------
  // Redirections and here-documents

  private tryRedirect(): RedirNode | null {
    const s = this.src;
    let p = this.pos;
    let fd: number | undefined;
    let fdVar: string | undefined;
    const c0 = s.charCodeAt(p);
    if (isDigit(c0)) {
      let e = p;
      while (e < this.n && isDigit(s.charCodeAt(e))) e++;
      const d = s.charCodeAt(e);
      if ((d !== C_LT && d !== C_GT) || s.charCodeAt(e + 1) === C_LPAREN) return null;
      fd = Number(s.slice(p, e));
      if (!Number.isSafeInteger(fd)) this.refuse('file descriptor number too large');
      p = e;
    } else if (c0 === C_LBRACE) {
      let e = p + 1;
      if (!isNameStart(s.charCodeAt(e))) return null;
      while (e < this.n && isNameChar(s.charCodeAt(e))) e++;
      if (s.charCodeAt(e) !== C_RBRACE) return null;
      const d = s.charCodeAt(e + 1);
      if ((d !== C_LT && d !== C_GT) || s.charCodeAt(e + 2) === C_LPAREN) return null;
      fdVar = s.slice(p + 1, e);
      p = e + 1;
    }
    const c = s.charCodeAt(p);
    let op: RedirectOp;
    if (c === C_LT) {
      if (s.charCodeAt(p + 1) === C_LPAREN) return null;
      if (s.startsWith('<<<', p)) op = '<<<';
      else if (s.startsWith('<<-', p)) op = '<<-';
      else if (s.startsWith('<<', p)) op = '<<';
      else if (s.startsWith('<>', p)) op = '<>';
      else if (s.startsWith('<&', p)) op = '<&';
      else op = '<';
    } else if (c === C_GT) {
      if (s.charCodeAt(p + 1) === C_LPAREN) return null;
      if (s.startsWith('>>', p)) op = '>>';
      else if (s.startsWith('>|', p)) op = '>|';
      else if (s.startsWith('>&', p)) op = '>&';
      else op = '>';
    } else if (c === C_AMP && s.charCodeAt(p + 1) === C_GT && fd === undefined && fdVar === undefined) {
      op = s.startsWith('&>>', p) ? '&>>' : '&>';
    } else {
      return null;
    }
    const opPos = p;
    this.pos = p + op.length;
    this.checkOpCont();
    this.count();
    this.skipBlanks();
    if (op === '<<' || op === '<<-') {
      const { word, delim, quoted } = this.readHeredocDelim();
      const redir: RedirNode = { op, target: word, heredoc: { body: '', quoted, parts: null } };
      if (fd !== undefined) redir.fd = fd;
      if (fdVar !== undefined) redir.fdVar = fdVar;
      this.pending.push({ redir, delim, strip: op === '<<-', quoted });
      if (this.comsubHeredoc.length > 0) this.comsubHeredoc[this.comsubHeredoc.length - 1] = true;
      return redir;
    }
    const tStart = this.pos;
    const target = this.readWord();
    if (!target) {
      if (this.pos >= this.n) this.fail(`unexpected end of input after \`${op}\``, opPos);
      this.unexpected();
    }
    // bash reads digits glued to `<`/`>` as the next redirection's fd, leaving this one without a target.
    const nc = this.c();
    if ((nc === C_LT || nc === C_GT) && /^\d+$/.test(target.raw)) this.unexpected(tStart);
    const redir: RedirNode = { op, target };
    if (fd !== undefined) redir.fd = fd;
    if (fdVar !== undefined) redir.fdVar = fdVar;
    return redir;
  }

  /** The delimiter word of `<<`: quote removal only, no expansion. */
  private readHeredocDelim(): { word: WordNode; delim: string; quoted: boolean } {
    const s = this.src;
    const start = this.pos;
    let delim = '';
    let quoted = false;
    while (this.pos < this.n) {
      const c = this.c();
      if (isMeta(c)) break;
      if (c === C_SQUOTE) {
        const e = s.indexOf("'", this.pos + 1);
        if (e < 0) this.fail('unterminated single quote');
        delim += s.slice(this.pos + 1, e);
        quoted = true;
        this.pos = e + 1;
      } else if (c === C_DQUOTE) {
        quoted = true;
        this.pos++;
        for (;;) {
          if (this.pos >= this.n) this.fail('unterminated double quote');
          const d = this.c();
          if (d === C_DQUOTE) {
            this.pos++;
            break;
          }
          if (d === C_DOLLAR || d === C_BACKTICK) this.refuse('here-document delimiter containing an expansion');
          if (d === C_BACKSLASH) {
            const e = this.c(1);
            if (e === C_DOLLAR || e === C_BACKTICK || e === C_DQUOTE || e === C_BACKSLASH) {
              delim += String.fromCharCode(e);
              this.pos += 2;
              continue;
            }
            if (e === C_NL) this.refuse('line continuation in a here-document delimiter');
          }
          delim += s[this.pos];
          this.pos++;
        }
      } else if (c === C_BACKSLASH) {
        if (this.c(1) === C_NL) this.refuse('line continuation in a here-document delimiter');
        quoted = true;
        if (this.pos + 1 < this.n) delim += s[this.pos + 1];
        this.pos += 2;
      } else if (c === C_DOLLAR || c === C_BACKTICK) {
        this.refuse('here-document delimiter containing an expansion');
      } else {
        if (c >= 0xa0 && isDeceptive(c)) throw new ShellError('refused', deceptiveMessage(s, this.pos, c));
        delim += s[this.pos];
        this.pos++;
      }
    }
    if (this.pos === start) this.unexpected();
    const raw = s.slice(start, this.pos);
    this.count();
    return { word: { raw, parts: [{ t: 'lit', s: delim, q: true }] }, delim, quoted };
  }

  /** Reads the bodies of the here-documents started on the line that just ended. */
  private readHeredocs(): void {
    const s = this.src;
    const list = this.pending;
    this.pending = [];
    for (const h of list) {
      const chunks: string[] = [];
      let p = this.pos;
      let done = false;
      while (p < this.n) {
        let eol = s.indexOf('\n', p);
        if (eol < 0) eol = this.n;
        let line = s.slice(p, eol);
        let next = eol + 1;
        if (!h.quoted) {
          // In an unquoted here-document a backslash-newline joins lines before the delimiter is compared.
          while (endsWithOddBackslashes(line) && eol < this.n) {
            if (h.strip) this.refuse('line continuation inside a `<<-` here-document');
            let e2 = s.indexOf('\n', next);
            if (e2 < 0) e2 = this.n;
            line = line.slice(0, -1) + s.slice(next, e2);
            eol = e2;
            next = e2 + 1;
          }
        }
        if (h.strip) {
          let k = 0;
          while (k < line.length && line.charCodeAt(k) === C_TAB) k++;
          if (k > 0) line = line.slice(k);
        }
        p = next;
        if (line === h.delim) {
          done = true;
          break;
        }
        chunks.push(line);
      }
      if (!done) throw new ShellError('refused', `here-document not terminated (wanted \`${h.delim}\`)`);
      this.pos = Math.min(p, this.n);
      const body = chunks.length > 0 ? chunks.join('\n') + '\n' : '';
      const hd = h.redir.heredoc!;
      hd.body = body;
      if (!h.quoted) hd.parts = this.parseHeredocBody(body);
    }
  }

  /** Expansions in an unquoted here-document body: they run, so they are parsed. */
  private parseHeredocBody(body: string): Part[] {
    if (body.indexOf('$') < 0 && body.indexOf('`') < 0) return [{ t: 'lit', s: body, q: true }];
    const sub = new Parser(body, { shared: this.shared, depth: this.depth + 1, base: 0 });
    sub.enter();
    try {
      return sub.readHeredocBodyParts();
    } catch (e) {
      // bash checks a here-document's expansions only when it runs: never a syntax error of the line.
      if (e instanceof ShellError && e.status === 'unparseable') {
        throw new ShellError('refused', `cannot parse the expansions in a here-document body: ${e.message}`);
      }
      throw e;
    }
  }

  private readHeredocBodyParts(): Part[] {
    const parts: Part[] = [];
    let run = this.pos;
    while (this.pos < this.n) {
      const c = this.c();
      if (c === C_BACKSLASH) {
        const d = this.c(1);
        if (d === C_DOLLAR || d === C_BACKTICK || d === C_BACKSLASH) {
          pushLit(parts, this.src.slice(run, this.pos), true);
          pushLit(parts, String.fromCharCode(d), true);
          this.pos += 2;
          run = this.pos;
          continue;
        }
        this.pos++;
        continue;
      }
      if (c === C_DOLLAR || c === C_BACKTICK) {
        pushLit(parts, this.src.slice(run, this.pos), true);
        if (c === C_DOLLAR) this.parseDollar(parts, true);
        else this.parseBacktick(parts, false);
        run = this.pos;
        continue;
      }
      this.pos++;
    }
    pushLit(parts, this.src.slice(run, this.pos), true);
    return parts;
  }

  // -------------------------------------------------------------------------------------------
  // Assignments

  /** `name=…`, `name+=…`, `name[sub]=…`, `name=(…)` at the start of a simple command. */
  private tryAssignment(): AssignNode | null {
    const s = this.src;
    const p = this.pos;
    if (!isNameStart(s.charCodeAt(p))) return null;
    let q = p + 1;
    while (q < this.n && isNameChar(s.charCodeAt(q))) q++;
    let subEnd = -1;
    let q2 = q;
    if (s.charCodeAt(q) === C_LBRACKET) {
      // Before the command name bash reads `name[…]` as one piece up to the matching `]`.
      subEnd = this.scanSubscript(q + 1);
      if (subEnd < 0) this.fail('unexpected end of input while looking for the matching `]`', q);
      q2 = subEnd + 1;
    }
    let append = false;
    if (s.charCodeAt(q2) === C_PLUS && s.charCodeAt(q2 + 1) === C_EQ) {
      append = true;
      q2++;
    }
    if (s.charCodeAt(q2) !== C_EQ) {
      if (subEnd >= 0) this.refuse('a command name with a subscript-like `[…]`', p);
      return null;
    }
    const name = s.slice(p, q);
    this.count();
    let index: Part[] | null = null;
    if (subEnd >= 0) {
      this.pos = q + 1;
      this.enter();
      index = this.parseArithContent(subEnd);
      this.leave();
    }
    this.pos = q2 + 1;
    if (this.c() === C_LPAREN) {
      const arrStart = this.pos;
      const array = this.readArrayElements();
      this.checkAfterArray();
      const raw = s.slice(arrStart, this.pos);
      return { name, append, index, value: { raw, parts: [{ t: 'lit', s: raw, q: true }], compound: true }, array };
    }
    const vStart = this.pos;
    const value = this.readWord({ assignValue: true }) ?? { raw: '', parts: [] };
    if (this.pos === vStart) value.parts = [];
    return { name, append, index, value, array: null };
  }

  /** `( elem … )` of an array assignment; pos is at `(`. */
  private readArrayElements(): WordNode[] {
    this.enter();
    this.pos++;
    const out: WordNode[] = [];
    for (;;) {
      this.skipNewlines();
      const c = this.c();
      if (this.pos >= this.n) this.fail('unexpected end of input in an array assignment');
      if (c === C_RPAREN) {
        this.pos++;
        break;
      }
      const start = this.pos;
      let w: WordNode | null;
      if (c === C_LBRACKET) {
        // `[key]=value`: bash reads the bracket as one piece up to the matching `]`.
        const e = this.scanSubscript(this.pos + 1);
        if (e < 0) this.fail('unexpected end of input while looking for the matching `]`');
        this.pos++;
        const inner = this.parseArithContent(e);
        this.pos = e + 1;
        const rest = this.pos < this.n && !isMeta(this.c()) ? this.readWord() : null;
        w = {
          raw: this.src.slice(start, this.pos),
          parts: [{ t: 'lit', s: '[', q: true }, ...inner, { t: 'lit', s: ']', q: true }, ...(rest?.parts ?? [])],
          compound: true,
        };
      } else {
        w = this.readWord();
      }
      if (!w) this.unexpected();
      if (this.comsubHeredoc.length > 0 && /\\[\s;&|()<>]/.test(w.raw)) {
        // bash 5.2 rejects an escaped operator character in an array inside `$(…)`.
        this.refuse('escaped operator character in an array assignment inside `$(…)`', start);
      }
      out.push(w);
    }
    this.leave();
    return out;
  }

  /** Text glued after `a=(…)` makes bash read the whole thing as one scalar word instead (`a=(x)#y`). */
  private checkAfterArray(): void {
    if (this.pos < this.n && !isMeta(this.c())) this.refuse('text glued to the end of an array assignment');
  }

  /** Finds the `]` closing a subscript that starts at p (after `[`), or -1. */
  private scanSubscript(p: number): number {
    const s = this.src;
    let depth = 0;
    for (let i = p; i < this.n; i++) {
      const c = s.charCodeAt(i);
      if (c === C_BACKSLASH) i++;
      else if (c === C_SQUOTE) {
        const e = s.indexOf("'", i + 1);
        if (e < 0) {
          this.spend(this.n - p);
          return -1;
        }
        i = e;
      } else if (c === C_DQUOTE) {
        const e = this.skipDQScan(i + 1);
        if (e < 0) {
          this.spend(this.n - p);
          return -1;
        }
        i = e;
      } else if (c === C_LBRACKET) depth++;
      else if (c === C_RBRACKET) {
        if (depth === 0) {
          this.spend(i - p);
          return i;
        }
        depth--;
      }
    }
    this.spend(this.n - p);
    return -1;
  }

  /** An argument of declare/export/local/…: `name=(…)` is a compound assignment there. */
  private readDeclArg(): WordNode | null {
    const s = this.src;
    const p = this.pos;
    if (isNameStart(s.charCodeAt(p))) {
      let q = p + 1;
      while (q < this.n && isNameChar(s.charCodeAt(q))) q++;
      let q2 = q;
      if (s.charCodeAt(q) === C_LBRACKET) {
        let e = q + 1;
        while (e < this.n && s.charCodeAt(e) !== C_RBRACKET && !isMeta(s.charCodeAt(e))) e++;
        if (s.charCodeAt(e) === C_RBRACKET) q2 = e + 1;
      }
      if (s.charCodeAt(q2) === C_PLUS) q2++;
      if (s.charCodeAt(q2) === C_EQ && s.charCodeAt(q2 + 1) === C_LPAREN) {
        this.count();
        // Value: `name=(e1 e2)` with each element after quote removal (what eval would re-read).
        const out: Part[] = [{ t: 'lit', s: s.slice(p, q), q: true }];
        const plus = s.charCodeAt(q2 - 1) === C_PLUS;
        if (q2 - (plus ? 1 : 0) > q) {
          this.pos = q + 1;
          this.enter();
          const sub = this.parseArithContent(q2 - (plus ? 2 : 1));
          this.leave();
          pushLit(out, '[', true);
          for (const x of sub) out.push(x);
          pushLit(out, ']', true);
        }
        pushLit(out, plus ? '+=(' : '=(', true);
        this.pos = q2 + 1;
        const elems = this.readArrayElements();
        this.checkAfterArray();
        elems.forEach((e, i) => {
          if (i > 0) pushLit(out, ' ', true);
          for (const x of e.parts) out.push(x);
        });
        pushLit(out, ')', true);
        return { raw: s.slice(p, this.pos), parts: out, compound: true };
      }
    }
    return this.readWord();
  }

  // -------------------------------------------------------------------------------------------
  // Words

  /**
   * Reads one word at pos, or returns null when pos is not at a word. `assignValue`: the value of an
   * assignment (tilde expansion also after `:`).
   */
  private readWord(opts?: { assignValue?: boolean }): WordNode | null {
    const s = this.src;
    const start = this.pos;
    const parts: Part[] = [];
    let run = this.pos;
    const assignValue = opts?.assignValue === true;
    // A word that looks like an assignment (`a=~/x`) gets tilde expansion after its first `=`.
    let eqTilde = -1;
    if (!assignValue && isNameStart(s.charCodeAt(start))) {
      let q = start + 1;
      while (q < this.n && isNameChar(s.charCodeAt(q))) q++;
      if (s.charCodeAt(q) === C_PLUS) q++;
      if (s.charCodeAt(q) === C_EQ) eqTilde = q + 1;
    }
    let hasBracket = false;
    for (;;) {
      if (this.pos >= this.n) break;
      const c = s.charCodeAt(this.pos);
      if (isMeta(c)) {
        if ((c === C_LT || c === C_GT) && s.charCodeAt(this.pos + 1) === C_LPAREN) {
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          this.parseProcessSub(parts);
          run = this.pos;
          continue;
        }
        if ((c === C_LT || c === C_GT) && this.pos >= start + 2 && this.contAt(this.pos - 2)) {
          // `2\⏎>f` is `2>f` to bash; `{fd}\⏎>f` likewise.
          const joined = s.slice(start, this.pos).split('\\\n').join('');
          if (/^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})$/.test(joined)) this.refuse('line continuation inside a redirection');
        }
        if (c === C_LPAREN && this.pos > start) {
          const prev = s.charCodeAt(this.pos - 1);
          if (prev === C_STAR || prev === C_QUESTION || prev === C_PLUS || prev === C_AT || prev === C_BANG || prev === C_EQ) {
            this.refuse('extended glob or zsh-style `(…)` syntax');
          }
        }
        break;
      }
      switch (c) {
        case C_SQUOTE: {
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          const e = s.indexOf("'", this.pos + 1);
          if (e < 0) this.fail('unterminated single quote');
          pushLit(parts, s.slice(this.pos + 1, e), true, true);
          this.pos = e + 1;
          run = this.pos;
          continue;
        }
        case C_DQUOTE:
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          this.parseDQ(parts);
          run = this.pos;
          continue;
        case C_BACKSLASH: {
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          if (this.pos + 1 >= this.n) {
            pushLit(parts, '\\', true);
            this.pos++;
          } else if (s.charCodeAt(this.pos + 1) === C_NL) {
            this.pos += 2;
          } else {
            const cp = s.codePointAt(this.pos + 1)!;
            const len = cp > 0xffff ? 2 : 1;
            pushLit(parts, s.slice(this.pos + 1, this.pos + 1 + len), true);
            this.pos += 1 + len;
          }
          run = this.pos;
          continue;
        }
        case C_DOLLAR:
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          this.parseDollar(parts, false);
          run = this.pos;
          continue;
        case C_BACKTICK:
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          this.parseBacktick(parts, false);
          run = this.pos;
          continue;
        case C_STAR:
        case C_QUESTION:
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          if (s.charCodeAt(this.pos + 1) === C_LPAREN) this.refuse('extended glob `' + s[this.pos] + '(…)`');
          parts.push({ t: 'glob', s: s[this.pos]! });
          this.pos++;
          run = this.pos;
          continue;
        case C_LBRACKET:
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          parts.push({ t: 'glob', s: '[' });
          hasBracket = true;
          this.pos++;
          run = this.pos;
          continue;
        case C_PLUS:
        case C_AT:
        case C_BANG:
          if (s.charCodeAt(this.pos + 1) === C_LPAREN) this.refuse('extended glob `' + s[this.pos] + '(…)`');
          this.pos++;
          continue;
        case C_TILDE: {
          const atStart = this.pos === start ||
            (assignValue && s.charCodeAt(this.pos - 1) === C_COLON && unquotedColonBefore(run, this.pos)) ||
            (eqTilde >= 0 && (this.pos === eqTilde || (this.pos > eqTilde && s.charCodeAt(this.pos - 1) === C_COLON && unquotedColonBefore(run, this.pos))));
          if (!atStart) {
            this.pos++;
            continue;
          }
          if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
          let e = this.pos + 1;
          while (e < this.n) {
            const d = s.charCodeAt(e);
            if (isNameChar(d) || d === C_DOT || d === C_MINUS || d === C_PLUS) e++;
            else break;
          }
          parts.push({ t: 'tilde', s: s.slice(this.pos, e) });
          this.pos = e;
          run = this.pos;
          continue;
        }
        default: {
          if (c >= 0xa0 && isDeceptive(c)) throw new ShellError('refused', deceptiveMessage(s, this.pos, c));
          let p = this.pos + 1;
          while (p < this.n) {
            const d = s.charCodeAt(p);
            if (d < 128 && PLAIN[d] === 1) p++;
            else break;
          }
          this.pos = p;
        }
      }
    }
    if (this.pos > run) pushLit(parts, s.slice(run, this.pos), false);
    if (this.pos === start) return null;
    if (hasBracket) fixBrackets(parts);
    this.count();
    return { raw: s.slice(start, this.pos), parts };
  }

  /** `"…"`; pos at the opening quote. */
  private parseDQ(parts: Part[]): void {
    const s = this.src;
    const open = this.pos;
    this.enter();
    this.pos++;
    let run = this.pos;
    let any = false;
    for (;;) {
      if (this.pos >= this.n) this.fail('unterminated double quote', open);
      const c = s.charCodeAt(this.pos);
      if (c === C_DQUOTE) break;
      if (c === C_BACKSLASH) {
        const d = s.charCodeAt(this.pos + 1);
        if (d === C_DOLLAR || d === C_BACKTICK || d === C_DQUOTE || d === C_BACKSLASH || d === C_NL) {
          if (this.pos > run) {
            pushLit(parts, s.slice(run, this.pos), true);
            any = true;
          }
          if (d !== C_NL) {
            pushLit(parts, String.fromCharCode(d), true);
            any = true;
          }
          this.pos += 2;
          run = this.pos;
          continue;
        }
        this.pos += this.pos + 1 < this.n ? 2 : 1;
        continue;
      }
      if (c === C_DOLLAR || c === C_BACKTICK) {
        if (this.pos > run) {
          pushLit(parts, s.slice(run, this.pos), true);
          any = true;
        }
        if (c === C_DOLLAR) this.parseDollar(parts, true);
        else this.parseBacktick(parts, true);
        any = true;
        run = this.pos;
        continue;
      }
      this.pos++;
    }
    if (this.pos > run || !any) pushLit(parts, s.slice(run, this.pos), true, true);
    this.pos++;
    this.leave();
  }

  /** Everything that starts with `$`; pos at the `$`. `q`: inside double quotes (or a here-document). */
  private parseDollar(parts: Part[], q: boolean): void {
    const s = this.src;
    const p = this.pos;
    const c = s.charCodeAt(p + 1);
    if (this.contAt(p + 1)) this.refuse('line continuation right after `$`');
    if (c === C_LPAREN) {
      if (s.charCodeAt(p + 2) === C_LPAREN) {
        const e = this.scanArith(p + 3);
        if (e >= 0) {
          this.enter();
          this.pos = p + 3;
          const inner = this.parseArithContent(e);
          this.pos = e + 2;
          this.leave();
          parts.push({ t: 'sub', kind: 'arithmetic', raw: s.slice(p, this.pos), q, body: null, inner });
          return;
        }
      }
      if (this.contAt(p + 2)) this.refuse('line continuation right after `$(`');
      this.pos = p + 2;
      // For `$((` that is not arithmetic, bash finds the end with its matched-pair scan and parses the
      // inside separately; when that end is not where the real parse ends, bash and we could disagree.
      const extent = s.charCodeAt(p + 2) === C_LPAREN ? this.scanParens(p + 2) : -2;
      let body: ListNode;
      try {
        body = this.parseNestedList(p, true);
      } catch (e) {
        // bash checks the inside of a `$((` that is not arithmetic only when it runs it.
        if (extent >= 0 && e instanceof ShellError && e.status === 'unparseable') {
          this.refuse('`$((` that is neither clearly arithmetic nor a valid command substitution', p);
        }
        throw e;
      }
      if (extent !== -2 && extent !== this.pos - 1) this.refuse('`$((` whose end is ambiguous (arithmetic or a command substitution)', p);
      parts.push({ t: 'sub', kind: 'command', raw: s.slice(p, this.pos), q, body, inner: [] });
      return;
    }
    if (c === C_LBRACE) {
      this.parseBraceParam(parts, q);
      return;
    }
    if (c === C_LBRACKET) {
      const e = this.scanBracket(p + 2);
      if (e < 0) this.fail('unterminated `$[`', p);
      this.enter();
      this.pos = p + 2;
      const inner = this.parseArithContent(e);
      this.pos = e + 1;
      this.leave();
      parts.push({ t: 'sub', kind: 'arithmetic', raw: s.slice(p, this.pos), q, body: null, inner });
      return;
    }
    if (!q && c === C_SQUOTE) {
      let i = p + 2;
      for (;;) {
        if (i >= this.n) this.fail("unterminated `$'`", p);
        const d = s.charCodeAt(i);
        if (d === C_BACKSLASH) i += 2;
        else if (d === C_SQUOTE) break;
        else i++;
      }
      const decoded = decodeAnsiC(s.slice(p + 2, i));
      if (decoded === null) this.refuse("`$'…'` string with an invalid escape", p);
      pushLit(parts, decoded, true, true);
      this.pos = i + 1;
      return;
    }
    if (!q && c === C_DQUOTE) {
      this.pos = p + 1;
      this.parseDQ(parts);
      return;
    }
    if (isNameStart(c)) {
      let e = p + 2;
      while (e < this.n && isNameChar(s.charCodeAt(e))) e++;
      // bash removes `\⏎` before reading the name, so `$a\⏎b` is `$ab`.
      if (this.contAt(e) && isNameChar(s.charCodeAt(e + 2))) this.refuse('line continuation inside a parameter name', e);
      this.pos = e;
      parts.push(param(s.slice(p, e), s.slice(p + 1, e), q, true));
      return;
    }
    if (c === C_DOLLAR && q && (s.charCodeAt(p + 2) === C_LPAREN || s.charCodeAt(p + 2) === C_LBRACE)) {
      // bash's quote matching reads `$$(`/`$${` inside double quotes as a substitution, its
      // expansion as `$$` and text: the two disagree on where the string ends.
      this.refuse('`$$` followed by `(` or `{` inside double quotes', p);
    }
    if (isDigit(c) || c === C_AT || c === C_STAR || c === C_HASH || c === C_QUESTION || c === C_MINUS ||
      c === C_DOLLAR || c === C_BANG) {
      this.pos = p + 2;
      parts.push(param(s.slice(p, p + 2), s[p + 1]!, q, true));
      return;
    }
    // A lone `$` is literal.
    pushLit(parts, '$', q);
    this.pos = p + 1;
  }

  /** `$(…)`, `<(…)`, `>(…)` body; pos just after the `(`. */
  private parseNestedList(open: number, comsub = false): ListNode {
    this.enter();
    if (comsub) this.comsubHeredoc.push(false);
    // Here-documents pending outside are read after the substitution's line, as bash does.
    const outerPending = this.pending;
    this.pending = [];
    const body = this.parseList(STOP_RPAREN, true);
    this.skipNewlines();
    if (this.c() !== C_RPAREN) {
      if (this.pos >= this.n) this.fail('unterminated substitution `' + this.src.slice(open, open + 2) + '`', open);
      this.unexpected();
    }
    if (this.pending.length > 0) this.refuse('here-document not terminated before the end of its substitution');
    this.pending = outerPending;
    if (comsub) this.comsubHeredoc.pop();
    this.pos++;
    this.leave();
    return body;
  }

  private parseProcessSub(parts: Part[]): void {
    const p = this.pos;
    const kind: SubstitutionKind = this.c() === C_LT ? 'process-in' : 'process-out';
    this.pos += 2;
    const body = this.parseNestedList(p);
    parts.push({ t: 'sub', kind, raw: this.src.slice(p, this.pos), q: false, body, inner: [] });
  }

  /** `` `…` ``: unescape one level, then parse the text as commands. */
  private parseBacktick(parts: Part[], inDQ: boolean): void {
    const s = this.src;
    const p = this.pos;
    const chunks: string[] = [];
    let i = p + 1;
    let run = i;
    for (;;) {
      if (i >= this.n) this.fail('unterminated backquote', p);
      const c = s.charCodeAt(i);
      if (c === C_BACKTICK) break;
      if (c === C_BACKSLASH) {
        const d = s.charCodeAt(i + 1);
        if (d === C_DOLLAR || d === C_BACKTICK || d === C_BACKSLASH || (inDQ && d === C_DQUOTE)) {
          chunks.push(s.slice(run, i));
          run = i + 1;
        }
        i += 2;
        continue;
      }
      i++;
    }
    chunks.push(s.slice(run, i));
    this.pos = i + 1;
    const text = chunks.join('');
    this.enter();
    const sub = new Parser(text, { shared: this.shared, depth: this.depth, base: this.base + p + 1 });
    let body: ListNode;
    try {
      body = sub.parseProgram();
    } catch (e) {
      // bash parses a backquoted command only when it runs, so its syntax errors are not the line's.
      if (e instanceof ShellError && e.status === 'unparseable') {
        throw new ShellError('refused', `cannot parse the backquoted command at ${this.at(p)}: ${e.message}`);
      }
      throw e;
    }
    this.leave();
    parts.push({ t: 'sub', kind: 'backtick', raw: s.slice(p, this.pos), q: inDQ, body, inner: [] });
  }

  /** `${…}`; pos at the `$`. */
  private parseBraceParam(parts: Part[], q: boolean): void {
    const s = this.src;
    const p = this.pos;
    this.enter();
    this.pos = p + 2;
    let c = this.c();
    let length = false;
    let indirect = false;
    const isSpecial = isSpecialParam;
    if (c === C_HASH && this.c(1) !== C_RBRACE && (isNameStart(this.c(1)) || isDigit(this.c(1)) || isSpecial(this.c(1)))) {
      length = true;
      this.pos++;
    } else if (c === C_BANG && this.c(1) !== C_RBRACE && (isNameStart(this.c(1)) || isDigit(this.c(1)) || isSpecial(this.c(1)))) {
      indirect = true;
      this.pos++;
    }
    c = this.c();
    let name: string;
    if (isNameStart(c)) {
      const b = this.pos;
      while (this.pos < this.n && isNameChar(this.c())) this.pos++;
      name = s.slice(b, this.pos);
    } else if (isDigit(c)) {
      const b = this.pos;
      while (this.pos < this.n && isDigit(this.c())) this.pos++;
      name = s.slice(b, this.pos);
    } else if (isSpecial(c)) {
      name = s[this.pos]!;
      this.pos++;
    } else {
      this.refuse('unsupported parameter expansion `' + s.slice(p, Math.min(this.n, p + 12)) + '`', p);
    }
    const inner: Part[] = [];
    let subscript = false;
    if (this.c() === C_LBRACKET) {
      const e = this.scanSubscript(this.pos + 1);
      // bash checks what is inside `${…}` only when it expands it.
      if (e < 0) this.refuse('unterminated subscript in `${…}`', p);
      this.pos++;
      inner.push(...this.parseArithContent(e));
      this.pos = e + 1;
      subscript = true;
    }
    let assigns = false;
    let simple = !length && !indirect && !subscript;
    if (this.c() !== C_RBRACE) {
      simple = false;
      const d = this.c();
      if (d === C_RBRACE || this.pos >= this.n) this.fail('unterminated `${`', p);
      if (!(d === C_COLON || d === C_MINUS || d === C_EQ || d === C_QUESTION || d === C_PLUS || d === C_HASH ||
        d === 37 /* % */ || d === C_SLASH || d === 94 /* ^ */ || d === C_COMMA || d === C_AT)) {
        this.refuse('unsupported parameter expansion `' + s.slice(p, Math.min(this.n, p + 20)) + '`', p);
      }
      if (length) this.refuse('`${#name…}` with an operator', p);
      if (d === C_EQ || (d === C_COLON && this.c(1) === C_EQ)) assigns = true;
      this.parseParamWord(inner, p, q);
    }
    if (this.c() !== C_RBRACE) this.fail('unterminated `${`', p);
    this.pos++;
    this.leave();
    parts.push({ t: 'param', raw: s.slice(p, this.pos), name, q, simple, indirect, assigns, inner, arith: subscript });
  }

  /** The word after a `${x` operator, up to the closing `}`. */
  private parseParamWord(inner: Part[], open: number, inDQ: boolean): void {
    const s = this.src;
    let run = this.pos;
    for (;;) {
      if (this.pos >= this.n) this.fail('unterminated `${`', open);
      const c = this.c();
      if (c === C_RBRACE) break;
      if (c === C_DOLLAR && this.c(1) === C_SQUOTE) {
        // `$'…'` inside `${…}`: bash's parse-time and run-time readings differ inside double quotes.
        if (inDQ) this.refuse("`$'…'` inside a double-quoted `${…}`", this.pos);
        let i = this.pos + 2;
        while (i < this.n && s.charCodeAt(i) !== C_SQUOTE) i += s.charCodeAt(i) === C_BACKSLASH ? 2 : 1;
        if (i >= this.n) this.fail("unterminated `$'`", this.pos);
        this.pos = i + 1;
        continue;
      }
      if (c === C_BACKSLASH) {
        this.pos += 2;
        continue;
      }
      if (c === C_SQUOTE) {
        const e = s.indexOf("'", this.pos + 1);
        if (e < 0) this.fail('unterminated single quote', this.pos);
        this.pos = e + 1;
        continue;
      }
      if (c === C_DQUOTE) {
        pushLit(inner, s.slice(run, this.pos), true);
        this.parseDQ(inner);
        run = this.pos;
        continue;
      }
      if (c === C_DOLLAR || c === C_BACKTICK) {
        pushLit(inner, s.slice(run, this.pos), true);
        if (c === C_DOLLAR) this.parseDollar(inner, true);
        else this.parseBacktick(inner, false);
        run = this.pos;
        continue;
      }
      if ((c === C_LT || c === C_GT) && this.c(1) === C_LPAREN) {
        pushLit(inner, s.slice(run, this.pos), true);
        this.parseProcessSub(inner);
        run = this.pos;
        continue;
      }
      this.pos++;
    }
    pushLit(inner, s.slice(run, this.pos), true);
  }

  // -------------------------------------------------------------------------------------------
  // Arithmetic

  /**
   * From p (just after `((` or `$((`), finds the `)` that starts the closing `))`, counting
   * parentheses the way bash decides between arithmetic and a nested subshell. -1 when the
   * parentheses close with a single `)` (then it is `$( (…) )` / `( (…) )`) or never close.
   */
  private scanArith(p: number): number {
    const i = this.scanParens(p);
    return i >= 0 && this.src.charCodeAt(i + 1) === C_RPAREN ? i : -1;
  }

  /**
   * From p, the first `)` outside nested parentheses and quotes, or -1: bash's matched-pair scan,
   * which knows quotes but not comments or `case` patterns.
   */
  private scanParens(p: number): number {
    const s = this.src;
    let depth = 0;
    for (let i = p; i < this.n; i++) {
      const c = s.charCodeAt(i);
      if (c === C_LPAREN) depth++;
      else if (c === C_RPAREN) {
        if (depth === 0) {
          this.spend(i - p);
          return i;
        }
        depth--;
      } else if (c === C_BACKSLASH) i++;
      else if (c === C_DOLLAR && s.charCodeAt(i + 1) === C_SQUOTE) {
        let j = i + 2;
        while (j < this.n && s.charCodeAt(j) !== C_SQUOTE) j += s.charCodeAt(j) === C_BACKSLASH ? 2 : 1;
        if (j >= this.n) break;
        i = j;
      } else if (c === C_SQUOTE) {
        const e = s.indexOf("'", i + 1);
        if (e < 0) {
          this.spend(this.n - p);
          return -1;
        }
        i = e;
      } else if (c === C_DQUOTE) {
        const e = this.skipDQScan(i + 1);
        if (e < 0) {
          this.spend(this.n - p);
          return -1;
        }
        i = e;
      } else if (c === C_BACKTICK) {
        let j = i + 1;
        while (j < this.n && s.charCodeAt(j) !== C_BACKTICK) j += s.charCodeAt(j) === C_BACKSLASH ? 2 : 1;
        if (j >= this.n) break;
        i = j;
      }
    }
    this.spend(this.n - p);
    return -1;
  }

  /** From p (after `$[`), the matching `]`, or -1. */
  private scanBracket(p: number): number {
    const s = this.src;
    let depth = 0;
    for (let i = p; i < this.n; i++) {
      const c = s.charCodeAt(i);
      if (c === C_LBRACKET) depth++;
      else if (c === C_RBRACKET) {
        if (depth === 0) {
          this.spend(i - p);
          return i;
        }
        depth--;
      } else if (c === C_BACKSLASH) i++;
      else if (c === C_SQUOTE) {
        const e = s.indexOf("'", i + 1);
        if (e < 0) {
          this.spend(this.n - p);
          return -1;
        }
        i = e;
      } else if (c === C_DQUOTE) {
        const e = this.skipDQScan(i + 1);
        if (e < 0) {
          this.spend(this.n - p);
          return -1;
        }
        i = e;
      }
    }
    this.spend(this.n - p);
    return -1;
  }

  /** From p (after an opening `"`), the closing `"`, or -1 (a quick scan, no parsing). */
  private skipDQScan(p: number): number {
    const s = this.src;
    for (let i = p; i < this.n; i++) {
      const c = s.charCodeAt(i);
      if (c === C_BACKSLASH) i++;
      else if (c === C_DQUOTE) return i;
    }
    return -1;
  }

  /** The text of an arithmetic expression from pos up to `end`, with its expansions parsed. */
  private parseArithContent(end: number): Part[] {
    try {
      return this.parseArithInner(end);
    } catch (e) {
      // bash reads an arithmetic expression only when it evaluates it.
      if (e instanceof ShellError && e.status === 'unparseable') {
        throw new ShellError('refused', `cannot parse the arithmetic expression: ${e.message}`);
      }
      throw e;
    }
  }

  private parseArithInner(end: number): Part[] {
    const s = this.src;
    const parts: Part[] = [];
    let run = this.pos;
    while (this.pos < end) {
      const c = this.c();
      if (c === C_DOLLAR || c === C_BACKTICK || c === C_DQUOTE) {
        pushLit(parts, s.slice(run, this.pos), true);
        if (c === C_DOLLAR) this.parseDollar(parts, true);
        else if (c === C_BACKTICK) this.parseBacktick(parts, false);
        else this.parseDQ(parts);
        run = this.pos;
        continue;
      }
      if (c === C_BACKSLASH) {
        pushLit(parts, s.slice(run, this.pos), true);
        if (this.c(1) !== C_NL) pushLit(parts, s.slice(this.pos, this.pos + 2), true);
        this.pos += 2;
        run = this.pos;
        continue;
      }
      if (c === C_SQUOTE) {
        const e = s.indexOf("'", this.pos + 1);
        this.pos = e < 0 || e >= end ? end : e + 1;
        continue;
      }
      this.pos++;
    }
    if (this.pos !== end) this.refuse('arithmetic expression whose end cannot be determined safely');
    pushLit(parts, s.slice(run, this.pos), true);
    return parts;
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function param(raw: string, name: string, q: boolean, simple: boolean): ParamPart {
  return { t: 'param', raw, name, q, simple, indirect: false, assigns: false, inner: [], arith: false };
}

/** Appends literal text, merging with a previous literal of the same quoting. */
export function pushLit(parts: Part[], s: string, q: boolean, keepEmpty = false): void {
  if (s.length === 0 && !keepEmpty) return;
  // Read parts[-1] of an empty list and V8 looks up a property named "-1" on the slow path.
  const last = parts.length > 0 ? parts[parts.length - 1] : undefined;
  if (last && last.t === 'lit' && last.q === q && s.length > 0) {
    last.s += s;
    return;
  }
  parts.push({ t: 'lit', s, q });
}

function endsWithOddBackslashes(line: string): boolean {
  let k = 0;
  for (let i = line.length - 1; i >= 0 && line.charCodeAt(i) === C_BACKSLASH; i--) k++;
  return (k & 1) === 1;
}

/** Whether the `:` just before pos is unquoted (it is in the current unquoted run). */
function unquotedColonBefore(run: number, pos: number): boolean {
  return pos - 1 >= run;
}

/**
 * `[` is a pattern only with a `]` after it; otherwise it is an ordinary character. One pass from
 * the end (whether a `]` follows), one pass to merge the unquoted literals again: linear.
 */
function fixBrackets(parts: Part[]): void {
  let closeAfter = false;
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!;
    if (p.t === 'lit' && p.s.includes(']')) closeAfter = true;
    else if (p.t === 'glob' && p.s === '[' && !closeAfter) parts[i] = { t: 'lit', s: '[', q: false };
  }
  let w = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const prev = w > 0 ? parts[w - 1]! : null;
    if (prev && prev.t === 'lit' && p.t === 'lit' && !prev.q && !p.q) {
      parts[w - 1] = { t: 'lit', s: prev.s + p.s, q: false };
    } else {
      parts[w++] = p;
    }
  }
  parts.length = w;
}

/** The text of a word made only of literal pieces (quoted or not), else null. */
export function plainText(w: WordNode): string | null {
  let out = '';
  for (const p of w.parts) {
    if (p.t !== 'lit') return null;
    out += p.s;
  }
  return out;
}

function isValidName(s: string): boolean {
  if (s.length === 0 || !isNameStart(s.charCodeAt(0))) return false;
  for (let i = 1; i < s.length; i++) if (!isNameChar(s.charCodeAt(i))) return false;
  return true;
}

