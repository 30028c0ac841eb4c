// Text formats that carry shell commands for a program that runs them: makefile recipes (`make -f -`), sed's
// `e` command and `s///e` flag, awk's system()/command pipes, git's `ext::` transport, and command
// substitutions inside array subscripts that bash's arithmetic evaluates. Pure text in, command lines out;
// the shell layer parses the lines and the policy judges them as if written out.

/**
 * The matching close of `$(` at `open` (index of `$`), skipping quotes and nested parentheses; -1 if none.
 * `depth` is how many parentheses are open already at `open + 1` (1 when scanning from inside the body).
 */
export function closeParen(s: string, open: number, depth = 0): number {
  let q: string | null = null;
  for (let i = open + 1; i < s.length; i++) {
    const ch = s[i]!;
    if (q !== null) {
      if (ch === '\\' && q === '"') i++;
      else if (ch === q) q = null;
      continue;
    }
    if (ch === '\\') i++;
    else if (ch === "'" || ch === '"') q = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Every `$(…)` and `` `…` `` body in `s` (outermost only). */
export function substitutionBodies(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '$' && s[i + 1] === '(' && s[i + 2] !== '(') {
      const end = closeParen(s, i);
      if (end < 0) return out;
      out.push(s.slice(i + 2, end));
      i = end;
    } else if (s[i] === '`') {
      const end = s.indexOf('`', i + 1);
      if (end < 0) return out;
      out.push(s.slice(i + 1, end));
      i = end;
    }
  }
  return out;
}

/**
 * Commands that arithmetic evaluation of `value` would run: bash expands a variable's value as an
 * expression, and a command substitution inside an array subscript (`a[$(cmd)]`, `` a[`cmd`] ``) runs there.
 * Only substitutions inside `[…]` count (a bare `$(cmd)` in the value is an arithmetic syntax error).
 */
export function arithmeticSubscriptCommands(value: string): string[] {
  if (!value.includes('[')) return [];
  const out: string[] = [];
  for (let i = value.indexOf('['); i >= 0 && i < value.length; i = value.indexOf('[', i + 1)) {
    // The subscript runs to its matching `]` (nested brackets counted, substitutions skipped whole).
    let depth = 0;
    let end = -1;
    for (let j = i; j < value.length; j++) {
      const ch = value[j]!;
      if (ch === '$' && value[j + 1] === '(') {
        const e = closeParen(value, j);
        if (e < 0) break;
        j = e;
      } else if (ch === '`') {
        const e = value.indexOf('`', j + 1);
        if (e < 0) break;
        j = e;
      } else if (ch === '[') depth++;
      else if (ch === ']' && --depth === 0) {
        end = j;
        break;
      }
    }
    const sub = end < 0 ? value.slice(i + 1) : value.slice(i + 1, end);
    out.push(...substitutionBodies(sub));
    if (end < 0) break;
    i = end;
  }
  return out;
}

/**
 * The command lines of a makefile's recipes, as make hands them to the shell: every recipe (not only the
 * first target's: which target runs depends on the command line and on the file, and judging them all errs
 * on the strict side), with `@`/`-`/`+` prefixes dropped, `$$` turned into `$` and `$(shell …)` (which make
 * runs while reading the file, wherever it stands) turned into a command substitution. Other make variables
 * stay as `$(NAME)`, which the shell analysis sees as a command it cannot know.
 */
export function makefileCommands(text: string): string[] {
  const out: string[] = [];
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  let inRule = false;
  const toShell = (s: string): string => s.replace(/\$\(shell\s+/g, '$(').replace(/\$\$/g, '$');
  for (const raw of lines) {
    if (raw.startsWith('\t')) {
      if (!inRule) continue;
      const cmd = toShell(raw.slice(1).replace(/^[\s@+-]+/, ''));
      if (cmd.trim() !== '' && !cmd.trimStart().startsWith('#')) out.push(cmd);
      continue;
    }
    const line = raw.replace(/(^|[^\\])#.*$/, '$1');
    if (line.trim() === '') continue;
    // `$(shell …)` in a variable or rule line runs while make reads the file.
    for (const m of line.matchAll(/\$\(shell\s+/g)) {
      const at = m.index!;
      const end = closeParen(line, at);
      if (end > 0) out.push(line.slice(at + m[0].length, end).replace(/\$\$/g, '$'));
    }
    // A rule line: `targets: prerequisites` or `targets: prerequisites ; recipe` (not `x := y` or `x ::= y`).
    const rule = /^([^:=#\t][^:=]*?)::?(?![=])(.*)$/.exec(line);
    inRule = rule !== null && !/^\s*(export|override|define|endef|include|-include|ifeq|ifneq|ifdef|ifndef|else|endif)\b/.test(line);
    if (rule && inRule) {
      const semi = rule[2]!.indexOf(';');
      if (semi >= 0) {
        const cmd = toShell(rule[2]!.slice(semi + 1).replace(/^[\s@+-]+/, ''));
        if (cmd.trim() !== '') out.push(cmd);
      }
    }
  }
  return out;
}

/**
 * GNU sed's command execution in a script: `e COMMAND` runs COMMAND; a bare `e` runs the pattern space;
 * `s/re/repl/e` runs the pattern space after the substitution. `input` is the text sed reads when known. The
 * answer lists the command lines, and `unknown` when a command runs whose text is not known here (the
 * pattern space of an unknown input, a substitution that cannot be evaluated).
 */
export function sedCommands(script: string, input: string | null): { commands: string[]; unknown: boolean } {
  const commands: string[] = [];
  let unknown = false;
  const lines = input === null ? null : input.replace(/\n$/, '').split('\n');
  for (const part of splitSedScript(script)) {
    const s = part.replace(/^\s*(?:\d+|\$|\/(?:[^/\\]|\\.)*\/)?(?:,(?:\d+|\$|\/(?:[^/\\]|\\.)*\/))?\s*!?\s*/, '');
    if (/^e(\s|$)/.test(s)) {
      const arg = s.slice(1).trim();
      if (arg !== '') commands.push(arg);
      else if (lines !== null) commands.push(...lines);
      else unknown = true;
      continue;
    }
    if (s.startsWith('s') && s.length > 1) {
      const sub = parseSubstitution(s);
      if (sub === null || !sub.flags.includes('e')) continue;
      if (lines === null) {
        // Unknown input: the replacement is at least part of what runs; judge it on its own.
        if (!/\\[0-9]|&/.test(sub.replacement)) commands.push(sub.replacement);
        unknown = true;
        continue;
      }
      const re = bre(sub.pattern, sub.flags);
      if (re === null) {
        unknown = true;
        continue;
      }
      for (const l of lines) if (re.test(l)) commands.push(l.replace(re, sub.replacement.replace(/\\([0-9])/g, '$$$1').replace(/(^|[^\\])&/g, '$1$$&').replace(/\\&/g, '&')));
    }
  }
  return { commands, unknown };
}

/** A sed script's commands, split at newlines and `;` outside s/// and e/a/i/c texts (best effort). */
function splitSedScript(script: string): string[] {
  const out: string[] = [];
  for (const line of script.split('\n')) {
    let cur = '';
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      const head = cur.replace(/^\s*(?:\d+|\$|\/(?:[^/\\]|\\.)*\/)?(?:,(?:\d+|\$|\/(?:[^/\\]|\\.)*\/))?\s*!?\s*/, '');
      // e, a, i, c, w, r take the rest of the line.
      if (/^[eaicwrWR](\s|$)/.test(head) && head.length >= 1) {
        cur += line.slice(i);
        break;
      }
      if (head === 's' && i + 1 <= line.length) {
        // consume s/…/…/flags as a unit
        const sub = parseSubstitution(cur.slice(cur.length - 1) + line.slice(i));
        if (sub) {
          cur += line.slice(i, i + sub.length - 1);
          i += sub.length - 2;
          continue;
        }
      }
      if (ch === ';' || ch === '}' || ch === '{') {
        if (cur.trim() !== '') out.push(cur);
        cur = '';
        continue;
      }
      cur += ch;
    }
    if (cur.trim() !== '') out.push(cur);
  }
  return out;
}

/** `s<d>pattern<d>replacement<d>flags` at the start of s; length is how much of s it spans. */
function parseSubstitution(s: string): { pattern: string; replacement: string; flags: string; length: number } | null {
  const d = s[1];
  if (d === undefined || d === '\\' || d === '\n') return null;
  const parts: string[] = [];
  let cur = '';
  let i = 2;
  for (; i < s.length && parts.length < 2; i++) {
    const ch = s[i]!;
    if (ch === '\\' && i + 1 < s.length) {
      cur += s[i + 1] === d ? d : ch + s[i + 1]!;
      i++;
    } else if (ch === d) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (parts.length < 2) return null;
  const m = /^[0-9gpiImMe]*(?:w\s.*)?/.exec(s.slice(i))!;
  return { pattern: parts[0]!, replacement: parts[1]!, flags: m[0], length: i + m[0].length };
}

/** A basic regular expression as a JavaScript one, for the simple ones (null when it uses what we do not map). */
function bre(pattern: string, flags: string): RegExp | null {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) {
      const n = pattern[++i]!;
      if (n === '(' || n === ')' || n === '{' || n === '}' || n === '|' || n === '+' || n === '?') out += n;
      else if (/[0-9]/.test(n)) out += '\\' + n;
      else if (n === 'n') out += '\\n';
      else if (/[.*[\]^$\\/]/.test(n)) out += '\\' + n;
      else return null;
    } else if ('(){}|+?'.includes(ch)) out += '\\' + ch;
    else out += ch;
  }
  try {
    return new RegExp(out, flags.includes('g') ? 'g' : '');
  } catch {
    return null;
  }
}

/** An awk string literal's value (`"rm -rf ~"`, escapes decoded). */
function awkString(body: string): string {
  return body.replace(/\\(["\\/ntr])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c));
}

const AWK_STR = String.raw`"((?:[^"\\]|\\.)*)"`;
/** Adjacent string literals (awk concatenation), optionally with simple parenthesising. */
const AWK_CONCAT = String.raw`((?:\s*${AWK_STR})+)`;

function concatValue(s: string): string {
  let out = '';
  for (const m of s.matchAll(new RegExp(AWK_STR, 'g'))) out += awkString(m[1]!);
  return out;
}

/**
 * Shell command lines an awk program runs with literal text: `system("…")`, `print … | "cmd"` (cmd; and when
 * cmd is a shell, the printed literals are its commands), `"cmd" | getline`. Concatenated literals are joined;
 * a command computed from fields or variables is left to the caller (unknown).
 */
export function awkCommands(program: string): { commands: string[]; unknown: boolean } {
  const commands: string[] = [];
  let unknown = false;
  // The patterns run over a copy whose string literals are blanked (same length), so that a `|`, `;` or `}`
  // inside a string (`printf "%s|", $0`) is never taken for syntax; literal values are read from the original.
  const masked = maskAwkStrings(program);
  const orig = (m: RegExpMatchArray, group: number): string => {
    const span = m.indices?.[group];
    return span ? program.slice(span[0], span[1]) : '';
  };
  // `cmd = "…"` assignments of literals, for `system(cmd)` (a name assigned twice is not resolved).
  const vars = new Map<string, string | null>();
  for (const m of masked.matchAll(new RegExp(`(?:^|[;{\\s])([A-Za-z_]\\w*)\\s*=(?!=)\\s*${AWK_CONCAT}\\s*(?=[;}\\n]|$)`, 'gd'))) {
    vars.set(m[1]!, vars.has(m[1]!) ? null : concatValue(orig(m, 2)));
  }
  for (const m of masked.matchAll(/\bsystem\s*\(([^)]*)\)/gd)) {
    const argMasked = m[1]!.trim();
    const arg = orig(m, 1).trim();
    const lit = new RegExp(`^${AWK_CONCAT}\\s*$`).exec(argMasked);
    const v = vars.get(argMasked);
    if (lit) commands.push(concatValue(arg));
    else if (v) commands.push(v);
    else unknown = true;
  }
  for (const m of masked.matchAll(new RegExp(`${AWK_CONCAT}\\s*\\|\\s*getline`, 'gd'))) commands.push(concatValue(orig(m, 1)));
  for (const m of masked.matchAll(new RegExp(`(?:print|printf)([^|;}]*)(?<!\\|)\\|(?!\\|)\\s*${AWK_CONCAT}`, 'gd'))) {
    const target = concatValue(orig(m, 2));
    commands.push(target);
    if (/^\s*(?:\/\S*\/)?(?:ba|da|k|z)?sh\b/.test(target)) {
      const printed = new RegExp(`^\\s*\\(?${AWK_CONCAT}\\s*\\)?\\s*$`).exec(m[1]!);
      if (printed) commands.push(concatValue(orig(m, 1)));
      else unknown = true;
    }
  }
  return { commands, unknown };
}

/** The program with every character inside a string literal replaced by `_` (quotes and length kept). */
function maskAwkStrings(program: string): string {
  let out = '';
  let inStr = false;
  for (let i = 0; i < program.length; i++) {
    const ch = program[i]!;
    if (!inStr) {
      out += ch;
      if (ch === '"') inStr = true;
    } else if (ch === '\\' && i + 1 < program.length) {
      out += '__';
      i++;
    } else if (ch === '"') {
      out += ch;
      inStr = false;
    } else out += ch === '\n' ? '\n' : '_';
  }
  return out;
}

/**
 * The command git's `ext::` transport runs for a URL, as argv: git splits the text at spaces itself (no shell),
 * `% ` is a literal space, `%%` a percent, `%s`/`%S` the service name (git-upload-pack / git-receive-pack),
 * `%G`/`%V` add a hint word that we leave out. Null when it is not an ext URL.
 */
export function gitExtCommand(url: string, service = 'git-upload-pack'): string[] | null {
  if (!url.startsWith('ext::')) return null;
  const argv: string[] = [];
  let cur = '';
  let any = false;
  const body = url.slice(5);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === '%' && i + 1 < body.length) {
      const n = body[++i]!;
      any = true;
      if (n === ' ') cur += ' ';
      else if (n === '%') cur += '%';
      else if (n === 's') cur += service;
      else if (n === 'S') cur += service.replace(/^git-/, '');
      else if (n === 'G' || n === 'V') {
        // `%G<repo>` / `%V<host>`: the rest of this word is a hint for git, not passed on.
        while (i + 1 < body.length && body[i + 1] !== ' ') i++;
        any = cur !== '';
      } else cur += '%' + n;
    } else if (ch === ' ') {
      if (any || cur !== '') argv.push(cur);
      cur = '';
      any = false;
    } else {
      cur += ch;
      any = true;
    }
  }
  if (cur !== '') argv.push(cur);
  return argv.length > 0 ? argv : null;
}
