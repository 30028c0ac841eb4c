// Persistence files of the operating system: crontab lines, systemd units, XDG autostart entries, launchd
// property lists. Each names a command that runs on a schedule, at boot or at login, without a person.
// systemd, autostart and launchd hand an argv to exec (no shell): the words are re-quoted so the shell engine
// sees the same words; a value that itself runs `/bin/sh -c '…'` reaches the shell engine as such.

import { argvLine, LineIndex, type Collector } from './util.ts';

// ---------------------------------------------------------------- crontab

const CRON_SPECIAL = /^@(?:reboot|yearly|annually|monthly|weekly|daily|midnight|hourly)$/;
const CRON_FIELD = /^[\d*?,/LW#A-Za-z-]+$/;
const SHELLS = /^(?:\/(?:usr\/)?(?:local\/)?bin\/)?(?:sh|bash|dash|zsh|ksh|ash)$/;

/**
 * Crontab lines: 5 time fields or @reboot…, then (system crontabs: /etc/crontab, /etc/cron.d/*) a user, then the
 * command to the end of the line. An unescaped `%` ends the command: the rest is its stdin (`%` = newline);
 * when the command is a shell reading stdin, that stdin is a script and is returned too.
 */
export function extractCrontab(text: string, system: boolean, out: Collector): void {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && !out.full; i++) {
    const l = lines[i]!.trim();
    if (l === '' || l.startsWith('#')) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(l)) continue; // MAILTO=, SHELL=, PATH=
    const words = l.split(/[ \t]+/);
    let k: number;
    if (CRON_SPECIAL.test(words[0]!)) k = 1;
    else if (words.length > 5 && words.slice(0, 5).every((w) => CRON_FIELD.test(w))) k = 5;
    else {
      // Not a crontab line (anacrontab: period delay id command; or junk): keep it as a command, partial.
      const ana = /^\S+\s+\d+\s+\S+\s+(.*)$/.exec(l);
      out.partial = true;
      out.command(ana ? ana[1]! : l, `line ${i + 1} (not a crontab line; read as a command)`);
      continue;
    }
    if (system) k++;
    // The command is the rest of the line as written (its own spacing), after the fields.
    let rest = l;
    for (let w = 0; w < k; w++) rest = rest.replace(/^\S+[ \t]*/, '');
    let cmd = '';
    let stdin: string | null = null;
    for (let j = 0; j < rest.length; j++) {
      const c = rest[j]!;
      if (c === '\\' && rest[j + 1] === '%') {
        cmd += '%';
        j++;
      } else if (c === '%') {
        stdin = rest.slice(j + 1).replace(/(?<!\\)%/g, '\n').replace(/\\%/g, '%');
        break;
      } else cmd += c;
    }
    cmd = cmd.trimEnd();
    out.command(cmd, `line ${i + 1}`);
    const prog = cmd.trim().split(/\s+/)[0] ?? '';
    if (stdin !== null && stdin.trim() !== '' && SHELLS.test(prog) && !/\s-c\b/.test(cmd)) {
      out.command(stdin, `line ${i + 1} (the text after % is the stdin of ${prog}: a script)`);
    }
  }
}

// ---------------------------------------------------------------- systemd

export const SYSTEMD_EXEC = ['ExecStart', 'ExecStartPre', 'ExecStartPost', 'ExecStop', 'ExecStopPost', 'ExecReload', 'ExecCondition'];
const EXEC_SET = new Set(SYSTEMD_EXEC);

/** systemd's own word splitting of an Exec= value (quotes, backslash escapes); a lone `;` separates commands. */
function systemdWords(v: string): string[][] {
  const cmds: string[][] = [[]];
  const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|((?:[^\s"'\\]|\\.)+)/g;
  for (const m of v.matchAll(re)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? '';
    const word = raw.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', s: ' ' } as Record<string, string>)[c] ?? c).replace(/%%/g, '%');
    if (m[3] === ';') cmds.push([]);
    else cmds[cmds.length - 1]!.push(word);
  }
  return cmds.filter((c) => c.length > 0);
}

/** A word keeps `$VAR` / `${VAR}` (systemd expands them from Environment=) as a shell variable reference. */
function systemdLine(argv: string[]): string {
  return argv.map((w) => (/^\$\{?[A-Za-z_]\w*\}?$/.test(w) ? w : argvLine([w]))).join(' ');
}

export function extractSystemd(text: string, out: Collector): { timerUnit: string | null } {
  const lines = text.split('\n');
  let section = '';
  let timerUnit: string | null = null;
  for (let i = 0; i < lines.length && !out.full; i++) {
    let l = lines[i]!.trim();
    const start = i;
    while (l.endsWith('\\') && i + 1 < lines.length) l = l.slice(0, -1) + ' ' + lines[++i]!.trim();
    if (l === '' || l.startsWith('#') || l.startsWith(';')) continue;
    const sec = /^\[(.+)\]$/.exec(l);
    if (sec) {
      section = sec[1]!;
      continue;
    }
    const kv = /^([A-Za-z]+)\s*=\s*(.*)$/.exec(l);
    if (!kv) continue;
    const key = kv[1]!;
    if (key === 'Unit' && (section === 'Timer' || section === 'Path')) timerUnit = kv[2]!.trim();
    if (!EXEC_SET.has(key)) continue;
    // Prefixes: @ (argv0 given separately), - (failure ignored), : (no env expansion), + ! !! (privileges).
    let v = kv[2]!.trim();
    let argv0Given = false;
    for (let m = /^(?:!!|[@\-:+!|])/.exec(v); m; m = /^(?:!!|[@\-:+!|])/.exec(v)) {
      if (m[0] === '@') argv0Given = true;
      v = v.slice(m[0].length);
    }
    for (const argv of systemdWords(v)) {
      // With @, the second word is argv[0] as the program sees it; the first is what runs.
      const words = argv0Given && argv.length > 1 ? [argv[0]!, ...argv.slice(2)] : argv;
      out.command(systemdLine(words), `${section ? `[${section}] ` : ''}${key}, line ${start + 1}`);
    }
  }
  return { timerUnit };
}

// ---------------------------------------------------------------- XDG autostart (.desktop)

/** The Exec= of [Desktop Entry]: field codes dropped, the spec's quoting undone, re-quoted for the shell. */
export function extractDesktop(text: string, out: Collector): void {
  let section = '';
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    const sec = /^\[(.+)\]$/.exec(l);
    if (sec) {
      section = sec[1]!;
      continue;
    }
    if (section !== 'Desktop Entry') continue;
    const m = /^Exec\s*=\s*(.*)$/.exec(l);
    if (!m) continue;
    const argv: string[] = [];
    for (const w of m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"|((?:[^\s"])+)/g)) {
      let word = w[1] !== undefined ? w[1].replace(/\\(["`$\\])/g, '$1') : w[2]!;
      if (/^%[fFuUdDnNickvm]$/.test(word)) continue; // a field code alone: the file/URL list, the icon…
      word = word.replace(/%[fFuUdDnNickvm]/g, '').replace(/%%/g, '%');
      argv.push(word);
    }
    out.command(argvLine(argv), `[Desktop Entry] Exec, line ${i + 1} (runs at login)`);
  }
}

// ---------------------------------------------------------------- launchd (XML property list)

function xmlText(s: string): string {
  return s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&#x([0-9a-fA-F]+);/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(parseInt(d, 10)))
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/**
 * ProgramArguments (an argv) and Program, wherever they are keys (a tolerant tokenizer, no XML library):
 * with both, Program is what runs and ProgramArguments[0] is only argv[0]. A binary plist cannot be read:
 * partial, no command.
 */
export function extractLaunchd(text: string, out: Collector): void {
  if (text.startsWith('bplist')) {
    out.partial = true;
    return;
  }
  const body = text.replace(/<!--[\s\S]*?-->/g, (c) => ' '.repeat(c.length));
  const idx = new LineIndex(body);
  let program: string | null = null;
  let programAt = 0;
  let args: string[] | null = null;
  let argsAt = 0;
  for (const m of body.matchAll(/<key>\s*(Program|ProgramArguments)\s*<\/key>\s*/g)) {
    const after = m.index + m[0].length;
    if (m[1] === 'Program') {
      const s = /^<string>([\s\S]*?)<\/string>/.exec(body.slice(after, after + 65536));
      if (s) {
        program = xmlText(s[1]!);
        programAt = m.index;
      }
    } else {
      const a = /^<array>([\s\S]*?)<\/array>/.exec(body.slice(after, after + (1 << 20)));
      if (a) {
        args = [...a[1]!.matchAll(/<string>([\s\S]*?)<\/string>|<string\s*\/>/g)].map((x) => xmlText(x[1] ?? ''));
        argsAt = m.index;
      } else out.partial = true;
    }
  }
  if (args && args.length > 0) {
    const argv = program !== null ? [program, ...args.slice(1)] : args;
    out.command(argvLine(argv), `ProgramArguments, line ${idx.lineOf(argsAt)}`);
  } else if (program !== null) out.command(argvLine([program]), `Program, line ${idx.lineOf(programAt)}`);
  if (!args && program === null && /<key>\s*Program/.test(text)) out.partial = true;
}
