// What a shell command writes into files, when the same line says it: the text echo/printf/cat/tee put
// through a redirect, a here-doc or a pipe, what cp/mv/install copy from a file written earlier in the line,
// the lines sed -i inserts, what `crontab -` and `npm pkg set` install. Unknown content is said to be unknown.

import { statSync } from 'node:fs';
import { posix } from 'node:path';
import type { DeferredKind } from '../content/deferred/index.ts';
import { parseArgs } from '../shell/args.ts';
import { programName, staticValue } from '../shell/program.ts';
import type { Analysis, Redirect, SimpleCommand, Word } from '../shell/types.ts';
import type { PathInfo } from './paths.ts';
import type { RuleContext } from './rule.ts';
import { GNU_WRITE_SPECS, writeTargets } from './rules/writes.ts';
import { readCurrentText } from './written-content.ts';

/** Text a command produces. `unknown`: part of it comes from something only known at run time ($(…), a download). */
export interface Text {
  text: string;
  unknown: boolean;
}

/** One file a command writes, and what goes into it. */
export interface ShellWrite {
  /** The file (null for a pseudo file such as the user's crontab). */
  info: PathInfo | null;
  /** The path as the command names it (joined with an earlier `cd`), or a pseudo name (`<crontab>`). */
  path: string;
  /** The kind the writing program implies (crontab, package.json scripts); otherwise found from the path. */
  kind?: DeferredKind;
  /** replace: the text is the whole file; append: it is added at the end; fragment: it goes somewhere inside. */
  mode: 'replace' | 'append' | 'fragment';
  /** The text written, or null when nothing of it is known (a download, a copy of an unknown file). */
  text: Text | null;
  /** How it is written, for reasons: `>`, `>>`, `tee`, `cp`, `sed -i`, `crontab -`, `npm pkg set`. */
  how: string;
}

const UNKNOWN: null = null;
const EMPTY_TEXT: Text = Object.freeze({ text: '', unknown: false });

/** Programs whose output this module can compute (given their input): the rest print something unknown. */
const PRODUCERS: ReadonlySet<string> = new Set(['echo', 'printf', 'cat', 'tee', 'true', ':', 'crontab']);

function join(parts: readonly (Text | null)[]): Text | null {
  if (parts.length === 0) return EMPTY_TEXT;
  let text = '';
  let unknown = false;
  let any = false;
  for (const p of parts) {
    if (p === null) {
      unknown = true;
      continue;
    }
    any = true;
    text += p.text;
    if (p.unknown) unknown = true;
  }
  return any ? { text, unknown } : null;
}

/** A word's text: its value with run-time parts left as written; unknown when a command substitution fills it. */
function wordText(w: Word): Text {
  const unknown = w.substitutionKinds.some((k) => k !== 'arithmetic');
  return { text: w.value, unknown };
}

// ---------------------------------------------------------------------------------------------------------
// echo and printf

/** Backslash escapes as `echo -e`, printf's %b (octal `\0NNN`) or printf's format (octal `\NNN`) decode them. */
export function decodeEscapes(s: string, style: 'echo' | 'format'): { text: string; stop: boolean } {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\' || i === s.length - 1) {
      out += c;
      continue;
    }
    const n = s[++i]!;
    switch (n) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\x07'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'e': case 'E': out += '\x1b'; break;
      case '\\': out += '\\'; break;
      case 'c': return { text: out, stop: true };
      case 'x': {
        const m = /^[0-9a-fA-F]{1,2}/.exec(s.slice(i + 1));
        if (m) {
          out += String.fromCharCode(parseInt(m[0], 16));
          i += m[0].length;
        } else out += '\\x';
        break;
      }
      case 'u': case 'U': {
        const m = (n === 'u' ? /^[0-9a-fA-F]{1,4}/ : /^[0-9a-fA-F]{1,8}/).exec(s.slice(i + 1));
        if (m) {
          const cp = parseInt(m[0], 16);
          out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
          i += m[0].length;
        } else out += '\\' + n;
        break;
      }
      default: {
        // Octal: `\0NNN` for echo and %b, `\NNN` in a printf format.
        const re = style === 'echo' ? /^0[0-7]{0,3}/ : /^[0-7]{1,3}/;
        const m = re.exec(s.slice(i));
        if (m) {
          const digits = style === 'echo' ? m[0].slice(1) : m[0];
          out += String.fromCharCode(digits === '' ? 0 : parseInt(digits, 8) & 0xff);
          i += m[0].length - 1;
        } else if (style === 'format' && (n === '"' || n === "'")) out += n;
        else out += '\\' + n;
      }
    }
  }
  return { text: out, stop: false };
}

/** What `echo ARGS` prints (bash's builtin: leading -n/-e/-E words are options). */
export function echoOutput(args: readonly Word[]): Text {
  let i = 0;
  let newline = true;
  let escapes = false;
  for (; i < args.length; i++) {
    const v = staticValue(args[i]);
    if (v === null || !/^-[neE]+$/.test(v)) break;
    for (const f of v.slice(1)) {
      if (f === 'n') newline = false;
      else if (f === 'e') escapes = true;
      else escapes = false;
    }
  }
  const words = args.slice(i).map(wordText);
  let text = words.map((w) => w.text).join(' ');
  if (escapes) {
    const d = decodeEscapes(text, 'echo');
    text = d.text;
    if (d.stop) newline = false;
  }
  return { text: text + (newline ? '\n' : ''), unknown: words.some((w) => w.unknown) };
}

function shellQuoteForQ(s: string): string {
  return s === '' ? "''" : /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * What `printf FORMAT ARGS` prints: escapes in the format decoded, %s/%b/%d/%c/%q… filled from the
 * arguments, the format reused while arguments remain (as bash does). `-v var` prints nothing.
 */
export function printfOutput(args: readonly Word[]): Text | null {
  let i = 0;
  if (staticValue(args[0]) === '--') i = 1;
  else if (staticValue(args[0]) === '-v') return EMPTY_TEXT;
  const fmtWord = args[i];
  if (!fmtWord) return EMPTY_TEXT;
  const fmt = wordText(fmtWord);
  const rest = args.slice(i + 1).map(wordText);
  let unknown = fmt.unknown || rest.some((r) => r.unknown);
  let out = '';
  let next = 0;
  // Guard: a format with no conversions is printed once whatever the arguments.
  for (let round = 0; round < 1000; round++) {
    let used = false;
    let stop = false;
    const f = fmt.text;
    for (let k = 0; k < f.length && !stop; k++) {
      const c = f[k]!;
      if (c === '\\') {
        let j = k + 1;
        // One escape: letter, octal digits, \xHH, \uHHHH.
        if (/[0-7]/.test(f[j] ?? '')) while (j < f.length && j < k + 4 && /[0-7]/.test(f[j]!)) j++;
        else if (f[j] === 'x') { j++; while (j < f.length && j < k + 4 && /[0-9a-fA-F]/.test(f[j]!)) j++; }
        else if (f[j] === 'u' || f[j] === 'U') { const max = f[j] === 'u' ? 4 : 8; j++; const s = j; while (j < f.length && j < s + max && /[0-9a-fA-F]/.test(f[j]!)) j++; }
        else j++;
        const d = decodeEscapes(f.slice(k, j), 'format');
        out += d.text;
        if (d.stop) stop = true;
        k = j - 1;
        continue;
      }
      if (c !== '%') {
        out += c;
        continue;
      }
      const m = /^%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([a-zA-Z%])/.exec(f.slice(k));
      if (!m) {
        out += c;
        continue;
      }
      k += m[0].length - 1;
      const conv = m[4]!;
      if (conv === '%') {
        out += '%';
        continue;
      }
      if (m[2] === '*' || m[3] === '*') next++;
      used = true;
      const arg = rest[next++];
      const v = arg?.text ?? '';
      let piece: string;
      switch (conv) {
        case 's': piece = v; break;
        case 'b': {
          const d = decodeEscapes(v, 'echo');
          piece = d.text;
          if (d.stop) stop = true;
          break;
        }
        case 'q': piece = shellQuoteForQ(v); break;
        case 'c': piece = v.slice(0, 1); break;
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
          const n = /^[-+]?\d+$/.test(v.trim()) ? Number(v.trim()) : /^'./.test(v) ? v.codePointAt(1)! : v === '' ? 0 : NaN;
          if (Number.isNaN(n)) {
            piece = v;
            unknown = true;
          } else piece = conv === 'x' ? n.toString(16) : conv === 'X' ? n.toString(16).toUpperCase() : conv === 'o' ? n.toString(8) : String(n);
          break;
        }
        default: piece = v;
      }
      const width = m[2] && m[2] !== '*' ? Number(m[2]) : 0;
      if (width > piece.length && width < 4096) piece = m[1]!.includes('-') ? piece.padEnd(width) : piece.padStart(width);
      out += piece;
    }
    if (stop || !used || next >= rest.length) break;
  }
  return { text: out, unknown };
}

// ---------------------------------------------------------------------------------------------------------
// Data flow within the line: a command's standard input and output.

/** Per line: the files its commands write with known text (absolute path -> each write), built on first use. */
const lineFiles = new WeakMap<Analysis, Map<string, { cmd: number; mode: ShellWrite['mode']; text: Text | null }[]>>();

interface Flow {
  ctx: RuleContext;
  analysis: Analysis;
  /** Commands whose output is being computed (a guard against cycles). */
  busy: Set<number>;
  /** Whether files on disk may be read (only when a file that runs later is the target). */
  disk: boolean;
  /** Which written files the caller wants the text of; the text of the others is never computed. */
  want?: (info: PathInfo | null, path: string, kind: DeferredKind | undefined) => boolean;
}

/** What a command reads on standard input, when known. */
function stdinOf(cmd: SimpleCommand, flow: Flow): Text | null {
  const s = cmd.stdin;
  switch (s.kind) {
    case 'heredoc':
      // Unquoted: `$x` and `$(…)` stay as text. They are expanded when written; a `$(…)` there runs now and
      // the shell analysis already sees it.
      return { text: s.body, unknown: false };
    case 'herestring': {
      const t = wordText(s.word);
      return { text: t.text + '\n', unknown: t.unknown };
    }
    case 'pipe':
      return join(s.from.map((id) => {
        const c = flow.analysis.commands[id];
        return c ? outputOf(c, flow) : UNKNOWN;
      }));
    case 'file':
      return fileText(s.path, cmd, flow);
    default:
      return UNKNOWN;
  }
}

/** The text of a file a command reads: written earlier in the line, or (for a target that runs later) read from disk. */
function fileText(w: Word, cmd: SimpleCommand, flow: Flow): Text | null {
  const v = staticValue(w);
  if (v === null) return UNKNOWN;
  if (v === '/dev/null') return EMPTY_TEXT;
  if (v === '/dev/stdin' || v === '/dev/fd/0' || v === '/proc/self/fd/0') return stdinOf(cmd, flow);
  const info = flow.ctx.path(v);
  if (info.abs === null) return UNKNOWN;
  const written = (filesOfLine(flow).get(info.abs) ?? []).filter((e) => e.cmd !== cmd.id && e.mode !== 'fragment');
  if (written.length > 0) {
    // The last whole write, and the appends after it.
    let from = 0;
    for (let k = 0; k < written.length; k++) if (written[k]!.mode === 'replace') from = k;
    return join(written.slice(from).map((e) => e.text));
  }
  if (!flow.disk) return UNKNOWN;
  const r = readCurrentText(info.abs);
  return r.status === 'ok' ? { text: r.text, unknown: false } : UNKNOWN;
}

/** What a command prints on standard output, when this module can know it. */
function outputOf(cmd: SimpleCommand, flow: Flow): Text | null {
  if (flow.busy.has(cmd.id)) return UNKNOWN;
  // A command whose output is sent to a file prints nothing down the pipe.
  // (A process substitution `> >(tee f)` is a pipe by another name: it still feeds the command inside.)
  if (cmd.redirects.some((r) => r.access === 'write' && (r.fd === undefined || r.fd === 1) && r.op !== '>&' && !r.target.substitutionKinds.includes('process-out'))) return EMPTY_TEXT;
  const name = programName(cmd);
  if (name === null || !PRODUCERS.has(name)) {
    // A wrapper (sudo, env…) prints what the command it wraps prints.
    const inner = flow.analysis.commands.find((c) => c.wrappedBy === cmd.id);
    return inner ? outputOf(inner, flow) : UNKNOWN;
  }
  flow.busy.add(cmd.id);
  try {
    const args = cmd.argv.slice(1);
    switch (name) {
      case 'echo': return echoOutput(args);
      case 'printf': return printfOutput(args);
      case 'true': case ':': return EMPTY_TEXT;
      // `crontab -l` prints the crontab already installed: nothing new.
      case 'crontab': return args.some((a) => staticValue(a) === '-l') ? EMPTY_TEXT : UNKNOWN;
      case 'tee': return stdinOf(cmd, flow);
      case 'cat': {
        const files = parseArgs(args, {}).operands;
        if (files.length === 0) return stdinOf(cmd, flow);
        return join(files.map((f) => (staticValue(f) === '-' ? stdinOf(cmd, flow) : fileText(f, cmd, flow))));
      }
      default: return UNKNOWN;
    }
  } finally {
    flow.busy.delete(cmd.id);
  }
}

/**
 * The files the line's commands write, with their text. Copies chain (`echo x > a; cp a b; mv b hook`).
 * Order within the line is not followed: a file written anywhere in the line counts (a copy that comes first
 * gets the text written later), which can only make more text known to the rules, never less.
 */
function filesOfLine(flow: Flow): Map<string, { cmd: number; mode: ShellWrite['mode']; text: Text | null }[]> {
  let files = lineFiles.get(flow.analysis);
  if (files) return files;
  files = new Map();
  lineFiles.set(flow.analysis, files);
  for (const c of flow.analysis.commands) {
    for (const w of writesOf(c, { ctx: flow.ctx, analysis: flow.analysis, busy: new Set(), disk: false })) {
      if (w.info?.abs == null) continue;
      const list = files.get(w.info.abs);
      const entry = { cmd: c.id, mode: w.mode, text: w.text };
      if (list) list.push(entry);
      else files.set(w.info.abs, [entry]);
    }
  }
  return files;
}

// ---------------------------------------------------------------------------------------------------------
// sed -i: the text a script puts into the file.

/**
 * The texts a sed script inserts: `a`/`i`/`c` text (one-liner or `a\` form) and `s` replacements (with
 * `\n`, `\t`, `\xHH` decoded). `unknown` when the script takes text from elsewhere (`r`/`R` files, `y`
 * transliteration, `-f` script files).
 */
export function sedInsertions(script: string): { texts: string[]; unknown: boolean } {
  const texts: string[] = [];
  let unknown = false;
  let i = 0;
  const n = script.length;
  const skipAddress = (): void => {
    for (let part = 0; part < 2; part++) {
      while (i < n && /[ \t]/.test(script[i]!)) i++;
      if (script[i] === '$') i++;
      else if (/[0-9]/.test(script[i] ?? '')) while (i < n && /[0-9~]/.test(script[i]!)) i++;
      else if (script[i] === '/' || script[i] === '\\') {
        let d = script[i]!;
        if (d === '\\') d = script[++i] ?? '/';
        i++;
        while (i < n && script[i] !== d) i += script[i] === '\\' ? 2 : 1;
        i++;
        while (i < n && /[IM]/.test(script[i]!)) i++;
      }
      while (i < n && /[ \t]/.test(script[i]!)) i++;
      if (part === 0 && (script[i] === ',')) {
        i++;
        if (script[i] === '+' || script[i] === '~') i++;
        continue;
      }
      break;
    }
    while (i < n && /[ \t!]/.test(script[i]!)) i++;
  };
  const restOfLine = (): string => {
    let out = '';
    while (i < n && script[i] !== '\n') {
      if (script[i] === '\\' && i + 1 < n) {
        out += script[i + 1] === '\n' ? '\n' : script[i + 1] === 'n' ? '\n' : script[i + 1] === 't' ? '\t' : script[i + 1];
        i += 2;
        continue;
      }
      out += script[i++];
    }
    return out;
  };
  let guard = 0;
  while (i < n && guard++ < 10_000) {
    while (i < n && /[\s;{}]/.test(script[i]!)) i++;
    if (i >= n) break;
    if (script[i] === '#') {
      while (i < n && script[i] !== '\n') i++;
      continue;
    }
    skipAddress();
    const c = script[i++];
    if (c === undefined) break;
    if (c === 'a' || c === 'i' || c === 'c') {
      // GNU one-liner `a text`, or POSIX `a\` newline text (lines continued with a trailing backslash).
      while (i < n && /[ \t]/.test(script[i]!)) i++;
      if (script[i] === '\\') {
        i++;
        if (script[i] === '\n') i++;
      }
      texts.push(restOfLine());
    } else if (c === 's') {
      const d = script[i++];
      if (d === undefined || d === '\n' || d === '\\') break;
      // The replacement's `&` is the matched text (the pattern, read literally), `\&` a plain `&`, `\1` a group.
      let pattern = '';
      const part = (replacement: boolean): string => {
        let out = '';
        while (i < n && script[i] !== d) {
          if (replacement && script[i] === '&') {
            out += pattern.replace(/\\(.)/g, '$1').replace(/^\^|\$$/g, '');
            i++;
            continue;
          }
          if (script[i] === '\\' && i + 1 < n) {
            const e = script[i + 1]!;
            if (e === d) out += d;
            else if (replacement && (e === '&' || e === '\\')) out += e;
            else if (replacement && /[0-9]/.test(e)) out += '';
            else if (e === 'n') out += '\n';
            else if (e === 't') out += '\t';
            else if (e === '\n') out += '\n';
            else if (e === 'x' && /^[0-9a-fA-F]{2}/.test(script.slice(i + 2))) {
              out += String.fromCharCode(parseInt(script.slice(i + 2, i + 4), 16));
              i += 2;
            } else out += '\\' + e;
            i += 2;
            continue;
          }
          out += script[i++];
        }
        i++;
        return out;
      };
      pattern = part(false);
      const repl = part(true);
      // Flags, and a `w file` / `e` flag (another rule's business) up to the end of the command.
      while (i < n && /[gpiImMe0-9]/.test(script[i]!)) i++;
      if (script[i] === 'w') while (i < n && script[i] !== '\n') i++;
      if (repl.trim() !== '' && repl !== pattern) texts.push(repl);
    } else if (c === 'y' || c === 'r' || c === 'R') {
      unknown = true;
      if (c === 'y') {
        const d = script[i++];
        let seen = 0;
        while (i < n && seen < 2) {
          if (script[i] === '\\') i++;
          else if (script[i] === d) seen++;
          i++;
        }
      } else while (i < n && script[i] !== '\n') i++;
    } else if (c === 'w' || c === 'W' || c === 'e' || c === 'b' || c === 't' || c === 'T' || c === ':' || c === 'l' || c === 'q' || c === 'Q' || c === 'L') {
      while (i < n && script[i] !== '\n' && script[i] !== ';') i++;
    }
  }
  return { texts, unknown };
}

/** The texts `sed -i` inserts into its files. */
function sedWrites(cmd: SimpleCommand): Text[] | null {
  const p = parseArgs(cmd, GNU_WRITE_SPECS['sed']!);
  const scripts: string[] = [];
  let unknown = false;
  for (const f of p.flagList) {
    if (f.name === 'e' && typeof f.value === 'string') scripts.push(f.value);
    if (f.name === 'f') unknown = true;
  }
  if (scripts.length === 0 && !p.flags.has('f')) {
    const first = p.operands[0];
    if (first) scripts.push(first.value);
  }
  if (p.flagList.some((f) => f.word.substitutionKinds.length > 0) || p.operands.some((w) => w.substitutionKinds.some((k) => k !== 'arithmetic'))) unknown = true;
  const out: Text[] = [];
  for (const s of scripts) {
    const r = sedInsertions(s);
    for (const t of r.texts) out.push({ text: t + '\n', unknown: false });
    if (r.unknown) unknown = true;
  }
  if (unknown && out.length === 0) return null;
  if (unknown) out.push({ text: '', unknown: true });
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The writes of one command.

/** Ways of writing that put no text in a file (a directory, an empty file, a mode change) or text from the repository. */
const NO_TEXT_HOWS: ReadonlySet<string> = new Set(['mkdir', 'mkfifo', 'touch', 'truncate', 'chmod', 'chown', 'chgrp', 'chattr', 'setfacl', 'dos2unix', 'unix2dos']);

/** The source operands of cp/mv/install/ln (everything but the destination). */
function copySourcesOf(cmd: SimpleCommand, name: string): Word[] {
  const spec = GNU_WRITE_SPECS[name === 'mv' ? 'cp' : name] ?? GNU_WRITE_SPECS['cp']!;
  const p = parseArgs(cmd, spec);
  return typeof p.flags.get('t') === 'string' ? p.operands : p.operands.slice(0, -1);
}

/** The writes of `cmd`, content included, for every file it writes. */
function writesOf(cmd: SimpleCommand, flow: Flow): ShellWrite[] {
  const out: ShellWrite[] = [];
  const name = programName(cmd);
  if (name === 'crontab') crontabWrite(cmd, flow, out);
  else if ((name === 'npm' || name === 'pnpm') && cmd.argv.length > 2) npmPkgSet(cmd, flow, out);
  const targets = writeTargets(cmd, flow.ctx, flow.analysis);
  if (targets.length === 0) return out;
  let copySources: Word[] | null = null;
  for (const t of targets) {
    if (t.kind === 'delete' || NO_TEXT_HOWS.has(t.how) || t.how.startsWith('git')) continue;
    const wanted = (info: PathInfo | null, path: string): boolean => !flow.want || flow.want(info, path, undefined);
    const base = { info: t.info, path: t.path };
    if (t.how === 'cp' || t.how === 'mv' || t.how === 'install' || t.how === 'ln') {
      if (name === null) continue;
      // writes.ts names DIR/basename(source) beside DIR when DEST is certainly a directory: the files are those.
      const dirPrefix = t.path.replace(/\/+$/, '') + '/';
      if (targets.some((x) => x !== t && x.how === t.how && x.path.startsWith(dirPrefix))) continue;
      copySources ??= copySourcesOf(cmd, name);
      let src: Word | undefined;
      let info = t.info;
      let path = t.path;
      if (copySources.length === 1) {
        src = copySources[0]!;
        // A single source onto an existing directory lands inside it (only the disk can tell).
        const srcName = staticValue(src);
        if (srcName !== null && isDirectory(t.info, flow)) {
          path = posix.join(t.path, posix.basename(srcName));
          info = flow.ctx.path(path);
        }
      } else {
        src = copySources.find((w) => { const v = staticValue(w); return v !== null && posix.basename(v.replace(/\/+$/, '')) === posix.basename(t.path); });
      }
      if (!wanted(info, path)) continue;
      out.push({ info, path, mode: 'replace', text: src ? fileText(src, cmd, flow) : UNKNOWN, how: t.how });
      continue;
    }
    if (!wanted(t.info, t.path)) continue;
    if (t.how === 'redirect') {
      const r = cmd.redirects.find((x) => x.target === t.word);
      if (!r) continue;
      out.push({ ...base, mode: r.op === '>>' || r.op === '&>>' ? 'append' : 'replace', text: redirectText(cmd, r, flow), how: r.op });
    } else if (t.how === 'tee' || t.how === 'sponge') {
      // Both write what they read; sponge only after reading all of it.
      const append = parseArgs(cmd, { aliases: { append: 'a' } }).flags.has('a');
      out.push({ ...base, mode: append ? 'append' : 'replace', text: stdinOf(cmd, flow), how: append ? `${t.how} -a` : t.how });
    } else if (t.how === 'dd') {
      const fromFile = cmd.argv.some((w) => w.value.startsWith('if='));
      const append = cmd.argv.some((w) => /^conv=.*notrunc/.test(w.value) || /^oflag=.*append/.test(w.value));
      out.push({ ...base, mode: append ? 'append' : 'replace', text: fromFile ? UNKNOWN : stdinOf(cmd, flow), how: 'dd' });
    } else if (t.how === 'sed -i') {
      const texts = sedWrites(cmd);
      if (texts === null) out.push({ ...base, mode: 'fragment', text: UNKNOWN, how: 'sed -i' });
      else for (const x of texts) out.push({ ...base, mode: 'fragment', text: x, how: 'sed -i' });
    } else {
      out.push({ ...base, mode: 'replace', text: UNKNOWN, how: t.how });
    }
  }
  return out;
}

function isDirectory(info: PathInfo, flow: Flow): boolean {
  if (!flow.disk || info.abs === null) return false;
  // A stat, not an open: this runs for every copy and move of every line (the path was resolved already).
  return statSync(info.abs, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The text a redirect of `cmd` writes: its standard output (or nothing, for stderr of a program that prints none there). */
function redirectText(cmd: SimpleCommand, r: Redirect, flow: Flow): Text | null {
  const name = programName(cmd);
  if (r.fd === 2) return name !== null && PRODUCERS.has(name) ? EMPTY_TEXT : UNKNOWN;
  if (r.fd !== undefined && r.fd !== 1) return UNKNOWN;
  // outputOf answers "nothing" for a command whose stdout goes to a file: ask for the text itself.
  const stripped: SimpleCommand = { ...cmd, redirects: [] };
  return outputOf(stripped, flow);
}

/** `crontab -`, `crontab` fed by a pipe, `crontab FILE`: the user's crontab becomes that text. */
function crontabWrite(cmd: SimpleCommand, flow: Flow, out: ShellWrite[]): void {
  const p = parseArgs(cmd, { shortWithValue: 'uc' });
  if (p.flags.has('l') || p.flags.has('r') || p.flags.has('e') || p.flags.has('V') || p.flags.has('h')) return;
  const file = p.operands[0];
  const fromStdin = !file || staticValue(file) === '-';
  if (fromStdin && cmd.stdin.kind === 'tty') return;
  const text = fromStdin ? stdinOf(cmd, flow) : fileText(file!, cmd, flow);
  out.push({ info: null, path: '<crontab>', kind: 'crontab', mode: 'replace', text, how: fromStdin ? 'crontab -' : 'crontab FILE' });
}

/** `npm pkg set a.b=c…`, `npm set-script name cmd`, `pnpm pkg set`: package.json gains these keys. */
function npmPkgSet(cmd: SimpleCommand, flow: Flow, out: ShellWrite[]): void {
  const words = cmd.argv.slice(1).filter((w) => !/^--?(json|force|f|global|g|workspaces?|ws|w|prefix|C)(=|$)/.test(w.value) || w.value === '--json');
  const values = words.map((w) => staticValue(w));
  const json = values.includes('--json');
  const plain = words.filter((w) => !w.value.startsWith('-'));
  const sub = staticValue(plain[0]);
  let pairs: [string, Word][] = [];
  if (sub === 'pkg' && staticValue(plain[1]) === 'set') {
    for (const w of plain.slice(2)) {
      const eq = w.value.indexOf('=');
      if (eq > 0) pairs.push([w.value.slice(0, eq), { ...w, value: w.value.slice(eq + 1) }]);
    }
  } else if (sub === 'set-script' && plain[1] && plain[2]) {
    pairs = [[`scripts.${plain[1].value}`, plain[2]]];
  } else return;
  if (pairs.length === 0) return;
  const obj: Record<string, unknown> = {};
  let unknown = false;
  for (const [key, w] of pairs) {
    const t = wordText(w);
    if (t.unknown) unknown = true;
    let value: unknown = t.text;
    if (json) {
      try {
        value = JSON.parse(t.text);
      } catch {
        // npm would refuse it; keep the text.
      }
    }
    // `scripts.postinstall` and `scripts[postinstall]` both name a nested key.
    const path = key.replace(/\[([^\]]*)\]/g, '.$1').split('.').filter((k) => k !== '');
    let o = obj;
    for (let k = 0; k < path.length - 1; k++) {
      const seg = path[k]!;
      const nextObj = typeof o[seg] === 'object' && o[seg] !== null ? (o[seg] as Record<string, unknown>) : {};
      o[seg] = nextObj;
      o = nextObj;
    }
    if (path.length > 0) o[path[path.length - 1]!] = value;
  }
  const info = flow.ctx.path('package.json');
  out.push({ info, path: 'package.json', kind: 'package-scripts', mode: 'fragment', text: { text: JSON.stringify(obj, null, 2), unknown }, how: `${programName(cmd)} ${sub}` });
}

/**
 * Every file `cmd` writes text into, with that text where the line says it. `want` picks the files whose
 * text is wanted (the others are skipped before any work); `disk`: whether files named as sources (cp SRC,
 * cat FILE, < FILE) may be read from disk when the line did not write them.
 */
export function shellWrites(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis, want?: Flow['want'], disk = true): ShellWrite[] {
  return writesOf(cmd, want ? { ctx, analysis, busy: new Set(), disk, want } : { ctx, analysis, busy: new Set(), disk });
}

/** Programs that write without a path target: the pre-check of rules built on shellWrites (with `path-targets`). */
export const SHELL_WRITE_PROGRAMS: readonly string[] = ['crontab', 'npm', 'pnpm'];
