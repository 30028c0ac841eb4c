// Stopping processes, tiered by what the command selects. Agents stop their own dev servers and jobs all
// the time (`pkill -f "next dev"`, `kill %1`, `lsof -ti:3000 | xargs kill -9`): a specific pid, job, port or
// pattern is allowed. A selection that reaches processes the agent did not start (every process of a user,
// a process group, a bare runtime name such as `node` that the agent CLI itself runs on, the shell, sshd,
// launchd, the window server, asimov or the agent CLIs) is soft_deny. Killing every process is sys.kill-all's
// (hard, system.ts); a pid or pattern only known at run time matches neither rule and stays with a person.

import type { Analysis, SimpleCommand, Word } from '../../shell/types.ts';
import { programName, staticValue } from '../../shell/program.ts';
import { defineShellRule, type Rule } from '../rule.ts';
import { isPlaceholder } from './writes.ts';

/** What a kill command selects: its own (specific) processes, too many, or something we cannot see. */
export type KillVerdict = { kind: 'specific' } | { kind: 'broad'; reason: string; subject: string } | null;

/**
 * Processes no agent's kill may reach by a pattern: the machine's and the session's own (init, sshd, launchd,
 * the window server, shells), the agents and asimov, the container daemon, and the runtimes the agent CLIs run
 * on. Each entry is a process name and a typical command line, so that a pattern is tried against what
 * `pkill` (names) and `pkill -f` (command lines) compare it with.
 */
const PROTECTED: readonly (readonly [string, string])[] = [
  ['init', '/sbin/init splash'], ['systemd', '/lib/systemd/systemd --user'], ['launchd', '/sbin/launchd'],
  ['sshd', '/usr/sbin/sshd -D'], ['ssh-agent', 'ssh-agent -s'], ['gpg-agent', 'gpg-agent --daemon'], ['login', 'login -pf user'],
  ['WindowServer', '/System/Library/PrivateFrameworks/SkyLight.framework/Resources/WindowServer -daemon'],
  ['loginwindow', '/System/Library/CoreServices/loginwindow.app/Contents/MacOS/loginwindow console'],
  ['Finder', '/System/Library/CoreServices/Finder.app/Contents/MacOS/Finder'], ['Dock', '/System/Library/CoreServices/Dock.app/Contents/MacOS/Dock'],
  ['Xorg', '/usr/lib/xorg/Xorg vt2 -displayfd 3'], ['gnome-shell', '/usr/bin/gnome-shell'], ['plasmashell', '/usr/bin/plasmashell'],
  ['explorer.exe', 'C:\\Windows\\explorer.exe'],
  ['dockerd', '/usr/bin/dockerd -H fd://'], ['containerd', '/usr/bin/containerd'],
  ['bash', '/bin/bash --login'], ['zsh', '-zsh'], ['sh', '/bin/sh -c'], ['fish', '/usr/bin/fish'], ['tmux', 'tmux new -s main'], ['screen', 'SCREEN -S main'],
  ['node', 'node /usr/local/bin/claude --resume'], ['claude', 'claude --dangerously-skip-permissions'],
  ['codex', 'node /usr/local/lib/node_modules/@openai/codex/bin/codex.js'], ['gemini', 'node /usr/local/bin/gemini'],
  ['Cursor', '/Applications/Cursor.app/Contents/MacOS/Cursor'], ['cursor-agent', 'cursor-agent --print'],
  ['aider', 'python3 -m aider --model sonnet'], ['python3', 'python3 -m openhands.server'], ['python', 'python -m mini_swe_agent'],
  ['Code Helper', '/Applications/Visual Studio Code.app/Contents/Frameworks/Code Helper.app/Contents/MacOS/Code Helper'],
  ['asimov', 'node /usr/local/lib/node_modules/asimov/bin/asimov.js gate'],
];

/** A regular expression a pgrep pattern denotes (ERE; GNU also reads `\|` as alternation), or null when unreadable. */
function patternRegexes(pattern: string, ignoreCase: boolean): RegExp[] | null {
  try {
    const flags = ignoreCase ? 'i' : '';
    return [new RegExp(pattern, flags), new RegExp(pattern.replace(/\\\|/g, '|'), flags)];
  } catch {
    return null;
  }
}

/** The protected process a pattern would reach, or null. Names for pkill, command lines too for pkill -f. */
function protectedByPattern(pattern: string, full: boolean, ignoreCase: boolean): string | null {
  const res = patternRegexes(pattern, ignoreCase);
  if (res === null) return pattern;
  for (const [name, line] of PROTECTED) {
    // pkill compares with the name the kernel keeps (15 characters on Linux).
    if (res.some((re) => re.test(name) || re.test(name.slice(0, 15)) || (full && re.test(line)))) return name;
  }
  return null;
}

function broad(reason: string, subject: string): KillVerdict {
  return { kind: 'broad', reason, subject };
}

/** Options of pkill/pgrep that take a value; those selecting by owner, group, session or terminal widen. */
const PGREP_VALUE = /^(-[uUgGPstFO]|--(euid|uid|group|pgroup|parent|session|terminal|pidfile|older|ns|nslist|signal))$/;
const PGREP_SELECT = /^-[uUgGPst]$|^--(euid|uid|group|pgroup|parent|session|terminal)(=|$)/;

/** pkill / pgrep: the selection its pattern and options make. `pgrep` is judged as what `kill $(pgrep …)` stops. */
function pgrepSelection(words: readonly (string | null)[], name: string): KillVerdict {
  let full = false;
  let ignoreCase = false;
  let exact = false;
  let selector = false;
  const patterns: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === null) return null;
    // -v stops every process the pattern does NOT match: sys.kill-all's (hard), never a specific selection.
    if (w === '--inverse' || (/^-[a-zA-Z]*v/.test(w) && !w.startsWith('--'))) return null;
    if (w === '--') { for (const x of words.slice(i + 1)) { if (x === null) return null; patterns.push(x); } break; }
    if (PGREP_VALUE.test(w)) { if (PGREP_SELECT.test(w)) selector = true; i++; continue; }
    if (w.startsWith('--')) {
      if (PGREP_SELECT.test(w)) selector = true;
      if (w === '--full') full = true;
      if (w === '--ignore-case') ignoreCase = true;
      if (w === '--exact') exact = true;
      continue;
    }
    if (w.startsWith('-') && w.length > 1) {
      // A signal (`-9`, `-KILL`, `-SIGTERM`) or bundled flags (`-9f` is not a thing; `-fi` is).
      if (/^-(\d+|[A-Z][A-Z0-9+]+)$/.test(w)) continue;
      const letters = w.slice(1);
      if (/[uUgGPstFO]/.test(letters)) { selector = selector || /[uUgGPst]/.test(letters); if (letters.length === 1 || /[uUgGPstFO]$/.test(letters)) i++; }
      if (letters.includes('f')) full = true;
      if (letters.includes('i')) ignoreCase = true;
      if (letters.includes('x')) exact = true;
      continue;
    }
    patterns.push(w);
  }
  if (patterns.length === 0) {
    return selector ? broad(`\`${name}\` without a pattern stops every process of that user, group, session or terminal, not only yours; name the process.`, name) : null;
  }
  for (const p of patterns) {
    const hit = protectedByPattern(exact ? `^${p}$` : p, full, ignoreCase);
    if (hit !== null) {
      return broad(`\`${name}${full ? ' -f' : ''} ${p}\` also matches ${hit}, which the agent did not start (the session, the system, the agent itself or everything of that runtime); match your own process more precisely (\`-f "next dev"\`) or use its pid.`, p);
    }
  }
  return { kind: 'specific' };
}

/** killall NAME…: exact names (regular expressions with -r), or with -u every process of the user. */
function killallSelection(words: readonly (string | null)[]): KillVerdict {
  let regex = false;
  let ignoreCase = false;
  let user = false;
  const names: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === null) return null;
    if (/^(-[suoyn]|--(signal|user|older-than|younger-than|ns))$/.test(w)) { if (w === '-u' || w === '--user') user = true; i++; continue; }
    if (w.startsWith('-') && w.length > 1) {
      if (/^-(\d+|[A-Z][A-Z0-9+]+)$/.test(w)) continue;
      if (w === '--regexp' || /^-[a-zA-Z]*r/.test(w)) regex = true;
      if (w === '--ignore-case' || /^-[a-zA-Z]*I/.test(w)) ignoreCase = true;
      continue;
    }
    names.push(w);
  }
  if (names.length === 0) return user ? broad('`killall -u` without a name stops every process of that user; name the process.', 'killall -u') : null;
  for (const n of names) {
    const hit = regex ? protectedByPattern(n, false, ignoreCase) : PROTECTED.find(([p]) => (ignoreCase ? p.toLowerCase() === n.toLowerCase() : p === n) || p.slice(0, 15) === n)?.[0] ?? null;
    if (hit !== null) return broad(`\`killall ${n}\` stops every ${hit} process, including ones the agent did not start (the session, the system, the agent itself or everything of that runtime); stop your own by pid or a precise pattern.`, n);
  }
  return { kind: 'specific' };
}

/** Ports in `lsof -i:3000`, `-ti tcp:5173`, `-i :3000,3001`; null when lsof lists more than ports (or no port). */
function lsofPorts(cmd: SimpleCommand): number[] | null {
  const words = cmd.argv.slice(1).map((w) => staticValue(w));
  if (words.some((w) => w === null)) return null;
  const ws = words as string[];
  if (!ws.some((w) => /^-[a-zA-Z]*t/.test(w))) return null;
  const ports: number[] = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    let spec: string | undefined;
    const m = /^-[a-zA-Z]*i(.*)$/.exec(w);
    if (m) spec = m[1] !== '' ? m[1] : ws[++i];
    else if (w.startsWith('-')) { if (/^-[a-zA-Z]*[psucgdk]$/.test(w)) return null; continue; }
    else return null; // a file operand: the processes that have it open
    if (spec === undefined) return null;
    const pm = /^(?:(?:tcp|udp|TCP|UDP)?(?:@[^:]*)?):([\d,]+)$/.exec(spec);
    if (!pm) return null;
    for (const p of pm[1]!.split(',')) ports.push(Number(p));
  }
  return ports.length > 0 ? ports : null;
}

/**
 * Processes found by a command whose output is the pids (`lsof -ti:3000`, `pgrep -f vite`): judged as that
 * selection. Ports below 1024 are the system's services (sshd on 22), never a dev server.
 */
function selectionOf(src: SimpleCommand | undefined): KillVerdict {
  if (src === undefined) return null;
  const name = programName(src);
  if (name === 'lsof') {
    const ports = lsofPorts(src);
    if (ports === null) return null;
    const low = ports.find((p) => p < 1024);
    return low === undefined ? { kind: 'specific' } : broad(`Port ${low} belongs to a system service (sshd, a web server), not to a dev server the agent started; a person must confirm it.`, src.text);
  }
  if (name === 'pgrep') return pgrepSelection(src.argv.slice(1).map((w) => staticValue(w)), 'pgrep');
  return null;
}

function worst(vs: readonly KillVerdict[]): KillVerdict {
  if (vs.some((v) => v === null)) return null;
  return vs.find((v) => v !== null && v.kind === 'broad') ?? { kind: 'specific' };
}

/** A pid operand of kill: a number, a job, `$!`, or the output of lsof/pgrep. */
function pidWord(w: Word, cmd: SimpleCommand, analysis: Analysis): KillVerdict {
  const v = staticValue(w);
  if (v !== null) {
    if (/^%([+%-]|\d+)?$/.test(v)) return { kind: 'specific' };
    if (v === '0') return broad('`kill 0` signals every process in the shell\'s process group, the agent\'s own included.', v);
    if (/^-\d+$/.test(v)) return broad(`\`kill -- ${v}\` signals a whole process group, which may hold processes the agent did not start; use the pids.`, v);
    return /^\d+$/.test(v) && v !== '1' ? { kind: 'specific' } : null;
  }
  if (w.raw === '$!' || w.raw === '"$!"' || w.raw === '${!}') return { kind: 'specific' };
  // Words xargs appends: its input is what the command feeding xargs printed.
  if (isPlaceholder(w) && cmd.wrappedBy !== undefined) {
    const x = analysis.commands[cmd.wrappedBy];
    if (!x || programName(x) !== 'xargs' || x.stdin.kind !== 'pipe' || x.stdin.from.length === 0) return null;
    return worst(x.stdin.from.map((id) => selectionOf(analysis.commands[id])));
  }
  // `kill $(lsof -ti:3000)`, `kill -9 $(pgrep -f vite)`: the word is exactly one substitution.
  if (w.substitutions.length === 1 && /^"?(\$\(|`)[^]*(\)|`)"?$/.test(w.raw)) return selectionOf(analysis.commands[w.substitutions[0]!]);
  return null;
}

/** kill's operands after its signal options (`-9`, `-s KILL`, `-n 9`, `--`); null for `kill -l`. */
function killOperands(cmd: SimpleCommand): Word[] | null {
  const argv = cmd.argv.slice(1);
  let i = 0;
  let signalSeen = false;
  for (; i < argv.length; i++) {
    const w = staticValue(argv[i]!);
    if (w === null) break;
    if (w === '--') { i++; break; }
    if (w === '-l' || w === '-L' || w === '--list' || w === '--table') return null;
    if (w === '-s' || w === '-n' || w === '--signal') { i++; signalSeen = true; continue; }
    // The first option-looking word is the signal (`-9`, `-KILL`); a later `-1234` is a process group.
    if (/^-[A-Za-z0-9+]+$/.test(w) && !signalSeen) { signalSeen = true; continue; }
    break;
  }
  return argv.slice(i);
}

/** The tiered verdict for a kill, pkill or killall command (sys.kill-all decides the kill-everything shapes first). */
export function killVerdict(cmd: SimpleCommand, analysis: Analysis): KillVerdict {
  const name = programName(cmd);
  const words = cmd.argv.slice(1).map((w) => staticValue(w));
  if (name === 'pkill') return pgrepSelection(words, 'pkill');
  if (name === 'killall') return killallSelection(words);
  if (name !== 'kill') return null;
  const ops = killOperands(cmd);
  if (ops === null) return { kind: 'specific' }; // `kill -l` lists signal names
  if (ops.length === 0) return null;
  return worst(ops.map((w) => pidWord(w, cmd, analysis)));
}

const KILLERS = ['kill', 'pkill', 'killall'];

export const rules: Rule[] = [
  defineShellRule({
    id: 'sys.kill-broad',
    // soft: stopping processes the agent did not start (sshd, launchd, the window server, the shell, the agent
    // CLI, every node or python) ends the user's work or the session; sometimes meant, so a person decides.
    tier: 'soft_deny',
    reason: 'This stops processes the agent did not start (the session, the system, the agent itself or every process of a runtime); stop your own by pid, job or a precise pattern.',
    programs: KILLERS,
    examples: {
      match: ['pkill node', 'killall node', 'pkill -9 -f "node"', 'pkill -f claude', 'killall Finder', 'pkill sshd', 'pkill -u bob', 'kill 0', 'kill -- -4321', 'kill $(lsof -ti:22)', 'pkill -f "vite|node"', 'pgrep -f python | xargs kill -9', 'pkill -f bin'],
      notMatch: ['pkill -f "next dev"', 'pkill -f vite', 'kill %1', 'kill 12345', 'kill $(lsof -ti:3000)', 'lsof -ti:3000 | xargs kill -9', 'killall trunk', 'kill $!'],
    },
    match(cmd, _ctx, analysis) {
      const v = killVerdict(cmd, analysis);
      return v !== null && v.kind === 'broad' ? { reason: v.reason, subject: v.subject } : null;
    },
  }),
  defineShellRule({
    id: 'sys.kill-own',
    // allow: stopping a dev server or a job the agent started, named by pid, job, port above 1023 or a pattern
    // that reaches none of the protected processes, is routine; anything wider is sys.kill-broad's.
    tier: 'allow',
    reason: 'Stops a specific process (a pid, a job, a dev server\'s port or a precise pattern).',
    programs: KILLERS,
    examples: {
      match: ['pkill -f "next dev"', 'pkill -f vite', 'pkill -f "uvicorn app.main"', 'kill %1', 'kill -9 12345 12346', 'kill $(lsof -ti:3000)', 'kill -9 $(pgrep -f "vite dev")', 'lsof -ti:5173,5174 | xargs kill -9', 'killall trunk', 'kill $!', 'kill -l'],
      notMatch: ['pkill node', 'killall node', 'kill $PID', 'kill $(cat server.pid)', 'pkill -f "$NAME"', 'kill -9 -1', 'ps aux | grep vite | awk \'{print $2}\' | xargs kill'],
    },
    match(cmd, _ctx, analysis) {
      const v = killVerdict(cmd, analysis);
      return v !== null && v.kind === 'specific' ? { subject: cmd.text } : null;
    },
  }),
];
