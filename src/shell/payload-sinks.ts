// Execution sinks for payloads the line carries: programs that run text given to them as commands (make
// with a makefile on standard input, sed's `e`, awk's system(), git's `ext::` transport, `source` of stdin or
// of `<(…)`, a command name that is a `$(…)`), and arithmetic that runs the `$(…)` in a subscript of a string
// built in the line. Each finds the command text when it is statically known (static-output.ts) and hands it
// back to the unwrapper, which parses it and appends its commands, `via` the sink, so every rule judges them
// as if they were written out.

import { arithmeticSubscriptCommands, awkCommands, gitExtCommand, makefileCommands, sedCommands } from '../content/carriers.ts';
import { basename, staticValue } from './program.ts';
import { asScript, ifsChanged, staticFields, staticStdin, staticText } from './static-output.ts';
import type { SimpleCommand, Word } from './types.ts';

/** Text to parse as shell, or words to run as one command, found in what `owner` carries. */
export interface Payload {
  owner: SimpleCommand;
  /** Shell text run by a shell (parsed again). */
  text?: string;
  /** A command run directly (git ext::, a `$(…)` command name): its words. */
  argv?: Word[];
  label: string;
  /** How the text was decoded or assembled, when that hid it (see SimpleCommand.decoded). */
  decoded?: string;
}

const SED_E = /(?<![A-Za-z])e(?![A-Za-z])|[gpiImM0-9]e/;
const STDIN_PATHS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);

export function literalWord(v: string): Word {
  return { raw: v, value: v, literal: true, glob: false, vars: [], substitutions: [], substitutionKinds: [] };
}

function joinDecoded(d: readonly string[]): string | undefined {
  return d.length === 0 ? undefined : d.join(' | ');
}

/**
 * Programs whose payload this module reads, by name; the unwrapper asks only for these (and for commands
 * whose name is not static), so plain commands cost one Set lookup.
 */
export const PAYLOAD_PROGRAMS: ReadonlySet<string> = new Set(['make', 'gmake', 'sed', 'gsed', ...AWKS, 'git', 'source', '.']);

/** The payloads `cmd` runs, by its program name (`name`: basename, lower-cased; null when not static). */
export function sinkPayloads(cmd: SimpleCommand, name: string | null, commands: readonly SimpleCommand[]): Payload[] {
  if (name === null) return commandNamePayload(cmd, commands);
  const w0 = cmd.argv[0]!;
  if (!w0.literal && /[ \t\n]/.test(w0.value)) return splitNamePayload(cmd, w0, commands);
  switch (name) {
    case 'make':
    case 'gmake':
      return makePayload(cmd, commands);
    case 'sed':
    case 'gsed':
      return sedPayload(cmd, commands);
    case 'git':
      return gitExtPayload(cmd);
    case 'source':
    case '.':
      return sourcePayload(cmd, name, commands);
    default:
      return AWKS.has(name) ? awkPayload(cmd) : [];
  }
}

/** `$(echo rm) -rf ~`, `` `printf 'rm'` -rf ~ ``: the substitution's known output is the command's first words. */
function commandNamePayload(cmd: SimpleCommand, commands: readonly SimpleCommand[]): Payload[] {
  const w0 = cmd.argv[0];
  if (!w0 || w0.glob) return [];
  const f = staticFields(commands, cmd, w0);
  if (f === null || f.fields.length === 0) return [];
  const decoded = ['$(…) as the command', ...f.decoded];
  return [{ owner: cmd, argv: [...f.fields.map(literalWord), ...cmd.argv.slice(1)], label: `$(…) as the command`, decoded: decoded.join(' | ') }];
}

/**
 * `x='rm -rf ~/x'; $x`: a constant the parser substituted (parse.ts) into an unquoted command name is split
 * into words by bash, so the first field is the program and the rest are its arguments.
 */
function splitNamePayload(cmd: SimpleCommand, w0: Word, commands: readonly SimpleCommand[]): Payload[] {
  if (w0.glob || w0.raw.startsWith('"') || w0.raw.startsWith("'") || !/[ \t\n]/.test(w0.value) || /[*?[]/.test(w0.value)) return [];
  if (ifsChanged(commands)) return [];
  const fields = w0.value.split(/[ \t\n]+/).filter((x) => x !== '');
  if (fields.length === 0) return [];
  return [{ owner: cmd, argv: [...fields.map(literalWord), ...cmd.argv.slice(1)], label: 'split command name', decoded: w0.raw }];
}

/** The makefiles a make command names (`-f F`, `-fF`, `--file=F`, `--makefile F`). */
export function makefileWords(cmd: SimpleCommand): Word[] {
  const args = cmd.argv.slice(1);
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    let file: Word | undefined;
    if (v === '-f' || v === '--file' || v === '--makefile') file = args[++i];
    else if (v.startsWith('--file=') || v.startsWith('--makefile=')) file = { ...args[i]!, value: v.slice(v.indexOf('=') + 1), raw: args[i]!.raw.slice(args[i]!.raw.indexOf('=') + 1) };
    else if (v.startsWith('-f') && !v.startsWith('--')) file = { ...args[i]!, value: v.slice(2), raw: args[i]!.raw.slice(2) };
    if (file) out.push(file);
  }
  return out;
}

/** Whether a makefile word is standard input (`-`, `/dev/stdin`…). */
export function isStdinPath(v: string | null): boolean {
  return v !== null && STDIN_PATHS.has(v);
}

/** `make -f -`, `make -f /dev/stdin`, `--file=-`, `--makefile=-`, `-f <(…)`: the makefiles' recipes. */
function makePayload(cmd: SimpleCommand, commands: readonly SimpleCommand[]): Payload[] {
  const out: Payload[] = [];
  for (const file of makefileWords(cmd)) {
    const sv = staticValue(file);
    const k = sv !== null && STDIN_PATHS.has(sv) ? staticStdin(commands, cmd)
      : file.substitutionKinds.includes('process-in') ? staticText(commands, cmd, file) : null;
    // All or nothing (as for eval's words): a sink whose payload is partly unknown must not look read, or
    // net.decode-to-shell would stand aside for the part nobody can see.
    if (k === null) {
      if ((sv !== null && STDIN_PATHS.has(sv)) || file.substitutionKinds.includes('process-in')) return [];
      continue;
    }
    const mk = asScript(k);
    if (mk === null) return [];
    const lines = makefileCommands(mk);
    if (lines.length > 0) out.push({ owner: cmd, text: lines.join('\n'), label: sv !== null ? `make -f ${sv}` : 'make -f <(…)', decoded: joinDecoded(k.decoded) });
  }
  return out;
}

/** sed's scripts and input files (null when a script is not static or comes from a file, or --sandbox). */
function sedParts(cmd: SimpleCommand): { scripts: string[]; files: string[] } | null {
  const args = cmd.argv.slice(1);
  const scripts: string[] = [];
  const files: string[] = [];
  let explicit = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = staticValue(w);
    if (v === null) return null;
    if (v === '--sandbox') return null;
    if (v === '-e' || v === '--expression') {
      const s = staticValue(args[++i]);
      if (s === null) return null;
      scripts.push(s);
      explicit = true;
    } else if (v.startsWith('--expression=')) {
      scripts.push(v.slice('--expression='.length));
      explicit = true;
    } else if (v === '-f' || v === '--file' || v.startsWith('--file=')) return null;
    else if (v === '-l' || v === '--line-length') i++;
    else if (/^-[nrEsuzi]*e./.test(v)) {
      scripts.push(v.slice(v.indexOf('e') + 1));
      explicit = true;
    } else if (v.startsWith('-') && v !== '-') continue;
    else if (!explicit && scripts.length === 0) scripts.push(v);
    else files.push(v);
  }
  return { scripts, files };
}

/**
 * Whether sed runs its input as commands (a bare `e`, or `s///e` of a script we can read): then what it reads
 * is code. A script file or a dynamic script is left to exec.sed-exec.
 */
export function sedRunsInput(cmd: SimpleCommand): boolean {
  const p = sedParts(cmd);
  if (p === null) return false;
  return p.scripts.some((x) => SED_E.test(x)) && sedCommands(p.scripts.join('\n'), null).unknown;
}

/** sed's `e COMMAND`, bare `e` (runs the pattern space) and `s///e`, with the input when it is known. */
function sedPayload(cmd: SimpleCommand, commands: readonly SimpleCommand[]): Payload[] {
  const p = sedParts(cmd);
  if (p === null) return [];
  const { scripts, files } = p;
  // An `e` command (a lone letter) or an `e` among a substitution's flags; other scripts run nothing.
  if (scripts.length === 0 || !scripts.some((x) => SED_E.test(x))) return [];
  const input = files.length === 0 || files.every((f) => f === '-') ? staticStdin(commands, cmd) : null;
  const found = sedCommands(scripts.join('\n'), input === null ? null : input.text.toString('utf8'));
  if (found.commands.length === 0) return [];
  return [{ owner: cmd, text: found.commands.join('\n'), label: 'sed e', decoded: input ? joinDecoded(input.decoded) : undefined }];
}

/** awk's `system("…")`, `print … | "cmd"` and `"cmd" | getline` with literal command text. */
function awkPayload(cmd: SimpleCommand): Payload[] {
  const args = cmd.argv.slice(1);
  let program: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const v = staticValue(args[i]);
    if (v === null) return [];
    if (v === '-f' || v.startsWith('--file')) return [];
    if (v === '-e' || v === '--source') {
      program = staticValue(args[i + 1]);
      break;
    }
    if (v === '-v' || v === '-F' || v === '--assign' || v === '--field-separator') { i++; continue; }
    if (v.startsWith('-') && v !== '-') continue;
    program = v;
    break;
  }
  if (program === null || (!program.includes('system') && !program.includes('|'))) return [];
  const found = awkCommands(program);
  return found.commands.length === 0 ? [] : [{ owner: cmd, text: found.commands.join('\n'), label: 'awk system' }];
}

/** git's `ext::CMD` remote URLs (clone, fetch, pull, ls-remote, push, remote add, submodule add…). */
function gitExtPayload(cmd: SimpleCommand): Payload[] {
  const out: Payload[] = [];
  const push = cmd.argv.some((w) => w.value === 'push' || w.value === 'send-pack');
  for (const w of cmd.argv.slice(1)) {
    const v = staticValue(w);
    if (v === null) continue;
    const url = v.startsWith('ext::') ? v : /^--[a-z-]+=ext::/.test(v) ? v.slice(v.indexOf('=') + 1) : null;
    if (url === null) continue;
    const argv = gitExtCommand(url, push ? 'git-receive-pack' : 'git-upload-pack');
    if (argv) out.push({ owner: cmd, argv: argv.map(literalWord), label: 'git ext::' });
  }
  return out;
}

/** `source /dev/stdin` fed a known text, `source <(…)` of a known output. */
function sourcePayload(cmd: SimpleCommand, name: string, commands: readonly SimpleCommand[]): Payload[] {
  const w = cmd.argv[1];
  if (!w) return [];
  const v = staticValue(w);
  const k = v !== null ? (STDIN_PATHS.has(v) && v !== '-' ? staticStdin(commands, cmd) : null)
    : w.substitutionKinds.includes('process-in') ? staticText(commands, cmd, w) : null;
  const text = k === null ? null : asScript(k);
  if (k === null || text === null) return [];
  return [{ owner: cmd, text, label: `${name} ${v ?? '<(…)'}`, decoded: joinDecoded(k.decoded) }];
}

const NAME_TAKERS = new Set(['declare', 'typeset', 'local', 'export', 'readonly', 'let', 'test', '[', 'printf', 'read', 'mapfile', 'readarray', 'unset', 'getopts', 'wait']);

/**
 * Whether the line evaluates arithmetic or treats strings as variable names somewhere (`((…))`, `$((…))`,
 * `[[ … -eq … ]]`, `let`, `declare -i`, `test -v`, `printf -v`, `read`, `${!x}`, `${x@P}`…): where a
 * subscript holding `$(…)` runs. Over-approximate: a line that only might is treated as one that does.
 */
function evaluatesArithmetic(commands: readonly SimpleCommand[], flagged: boolean): boolean {
  if (flagged) return true;
  for (const c of commands) {
    const n = c.argv[0] ? basename(c.argv[0].value) : '';
    if (NAME_TAKERS.has(n)) {
      // printf and test take names only with -v.
      if ((n !== 'printf' && n !== 'test' && n !== '[') || c.argv.some((w) => w.value === '-v')) return true;
    }
    for (const w of c.argv) if (w.substitutionKinds.includes('arithmetic') || w.raw.includes('${!') || w.raw.includes('@P}') || /\$\{[A-Za-z_]\w*\[/.test(w.raw)) return true;
    for (const a of c.assignments) if (a.value.substitutionKinds.includes('arithmetic') || a.value.raw.includes('${!')) return true;
  }
  return false;
}

/** Strings of the line that may reach arithmetic: assignment values, arguments, here-strings (known values only). */
function* arithmeticCandidates(commands: readonly SimpleCommand[]): Generator<{ owner: SimpleCommand; text: string; decoded: string[] }> {
  for (const c of commands) {
    for (const a of c.assignments) {
      const k = staticText(commands, c, a.value);
      if (k) yield { owner: c, text: k.text.toString('utf8'), decoded: k.decoded };
    }
    for (const a of c.assignments) for (const e of a.array ?? []) yield { owner: c, text: e.value, decoded: [] };
    // Values as written, literal or not (`declare -a a=('x[$(cmd)]')` is never literal); a real `$(…)` in
    // them is a command of the line already and only shows again.
    for (const w of c.argv) yield { owner: c, text: w.value, decoded: [] };
    if (c.stdin.kind === 'herestring') {
      const k = staticText(commands, c, c.stdin.word);
      if (k) yield { owner: c, text: k.text.toString('utf8'), decoded: k.decoded };
    }
  }
}

function holdsSubscriptText(v: string): boolean {
  return v.includes('[') && (v.includes('$(') || v.includes('`'));
}

/**
 * Commands that arithmetic would run from subscripts of strings built in the line: `x='a[$(cmd)]'; ((x))`,
 * `y=$(printf 'x[$%s]' '(cmd)'); ((y))`, `read y <<< 'a[$(cmd)]'; ((y))`, `test -v 'a[$(cmd)]'`.
 */
export function arithmeticPayloads(commands: readonly SimpleCommand[], flagged: boolean): Payload[] {
  // Cheap screen first (this runs for every line): some value could hold a subscript with command text
  // (`[` and `$(`/backtick in a word, or an assignment or here-string whose value is computed).
  let maybe = false;
  for (let i = 0; i < commands.length && !maybe; i++) {
    const c = commands[i]!;
    if (c.stdin.kind === 'herestring') maybe = true;
    for (const a of c.assignments) if (a.array || a.value.substitutions.length > 0 || holdsSubscriptText(a.value.value)) maybe = true;
    for (const w of c.argv) if (holdsSubscriptText(w.value)) maybe = true;
  }
  if (!maybe || !evaluatesArithmetic(commands, flagged)) return [];
  const out: Payload[] = [];
  const seen = new Set<string>();
  for (const cand of arithmeticCandidates(commands)) {
    if (!cand.text.includes('[') || (!cand.text.includes('$(') && !cand.text.includes('`'))) continue;
    for (const body of arithmeticSubscriptCommands(cand.text)) {
      if (seen.has(body)) continue;
      seen.add(body);
      out.push({ owner: cand.owner, text: body, label: 'arithmetic subscript', decoded: ['arithmetic subscript', ...cand.decoded].join(' | ') });
    }
  }
  return out;
}

/** The items xargs reads from `text`: NUL- or delimiter-separated, else blank-separated (quotes: not modelled). */
function xargsItems(text: string, rest: readonly Word[]): string[] | null {
  const opts = rest.map((w) => w.value);
  if (opts.includes('-0') || opts.includes('--null')) return text.split('\0').filter((x, i, a) => x !== '' || i < a.length - 1);
  const d = opts.findIndex((o) => o === '-d' || o.startsWith('--delimiter=') || (o.startsWith('-d') && o.length > 2));
  if (d >= 0) {
    const o = opts[d]!;
    const delim = o === '-d' ? opts[d + 1] : o.startsWith('--delimiter=') ? o.slice(12) : o.slice(2);
    if (delim === undefined || delim.length !== 1) return null;
    return text.split(delim).filter((x, i, a) => x !== '' || i < a.length - 1);
  }
  if (/["'\\]/.test(text)) return null;
  return text.split(/[ \t\n]+/).filter((x) => x !== '');
}

/**
 * The commands xargs runs when its input is known: each item where the replace string stands (one command
 * per item), or the items appended (one command per `-n`/`-L` group; all together otherwise). Null when the
 * input or its splitting is not known.
 */
export function xargsCommands(commands: readonly SimpleCommand[], cmd: SimpleCommand, rest: readonly Word[], words: readonly Word[], replace: string | undefined): { commands: Word[][]; decoded?: string } | null {
  if (words.some((w) => staticValue(w) === null)) return null;
  // `-a FILE` reads the items from a file, not from standard input.
  if (rest.some((w) => w.value === '-a' || w.value.startsWith('--arg-file') || /^-a./.test(w.value))) return null;
  const k = staticStdin(commands, cmd);
  if (k === null) return null;
  const items = xargsItems(k.text.toString('utf8'), rest);
  if (items === null || items.length > 16) return null;
  const out: Word[][] = [];
  if (replace !== undefined) {
    for (const item of items) out.push(words.map((w) => (w.value.includes(replace) ? literalWord(w.value.split(replace).join(item)) : w)));
  } else {
    const n = rest.findIndex((w) => /^-[nL]$|^--max-(args|lines)$/.test(w.value) || /^-[nL]\d+$/.test(w.value));
    const size = n < 0 ? items.length : Number(/\d+$/.exec(rest[n]!.value)?.[0] ?? rest[n + 1]?.value ?? '1') || 1;
    for (let i = 0; i < items.length || (i === 0 && items.length === 0); i += size) out.push([...words, ...items.slice(i, i + size).map(literalWord)]);
  }
  return { commands: out, decoded: joinDecoded(k.decoded) };
}
