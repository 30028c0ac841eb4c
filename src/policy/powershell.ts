// PowerShell that reached a bash tool (Windows agents send it): recognised, so that the line is reported as
// PowerShell (`shell.powershell`, unknown) rather than as commands no rule knows or as bash obfuscation
// (`$_.Id` read as a command name only known at run time). Only the findings PowerShell's own syntax causes
// are re-labelled; a soft or hard finding of a real bash reading keeps the line's tier.

import type { Finding, Tier } from '../core/types.ts';
import { tierRank } from '../core/types.ts';
import { programName } from '../shell/program.ts';
import type { Analysis, SimpleCommand } from '../shell/types.ts';

/** PowerShell's own shapes: Verb-Noun cmdlets, `$x = @(…)`, `-ErrorAction`, pipelines into Where-Object/ForEach-Object. */
const POWERSHELL_RE = /\b(?:Get|Set|New|Remove|Invoke|Start|Stop|Test|Write|Select|Where|ForEach|Out|Import|Export|Add|Copy|Move)-[A-Z][A-Za-z]+\b|\$\w+\s*=\s*@\(|-ErrorAction\b|\|\s*(?:Where-Object|ForEach-Object|Select-Object|Out-Null)\b|\bforeach\s*\(\$/;

/** A line bash could not read at all that has PowerShell's shapes. */
export function looksLikePowerShell(line: string): boolean {
  return POWERSHELL_RE.test(line.length > 4096 ? line.slice(0, 4096) : line);
}

/** PowerShell's approved verbs (Get-Verb), lower case: a program named Verb-Noun with one of them is a cmdlet. */
const APPROVED_VERBS = new Set([
  'add', 'clear', 'close', 'copy', 'enter', 'exit', 'find', 'format', 'get', 'hide', 'join', 'lock', 'move', 'new', 'open',
  'optimize', 'pop', 'push', 'redo', 'remove', 'rename', 'reset', 'resize', 'search', 'select', 'set', 'show', 'skip',
  'split', 'step', 'switch', 'undo', 'unlock', 'watch', 'connect', 'disconnect', 'read', 'receive', 'send', 'write',
  'backup', 'checkpoint', 'compare', 'compress', 'convert', 'convertfrom', 'convertto', 'dismount', 'edit', 'expand',
  'export', 'group', 'import', 'initialize', 'limit', 'merge', 'mount', 'out', 'publish', 'restore', 'save', 'sync',
  'unpublish', 'update', 'approve', 'assert', 'build', 'complete', 'confirm', 'deny', 'deploy', 'disable', 'enable',
  'install', 'invoke', 'register', 'request', 'restart', 'resume', 'start', 'stop', 'submit', 'suspend', 'uninstall',
  'unregister', 'wait', 'debug', 'measure', 'ping', 'repair', 'resolve', 'test', 'trace', 'block', 'grant', 'protect',
  'revoke', 'unblock', 'unprotect', 'use', 'where', 'foreach', 'sort', 'tee',
]);

/** `Get-Process`, `Select-Object`, `ConvertFrom-Json`: a Verb-Noun name with an approved verb. */
export function isCmdletName(name: string): boolean {
  const m = /^([a-z]+)-[a-z][a-z0-9]*$/.exec(name);
  return m !== null && APPROVED_VERBS.has(m[1]!);
}

/**
 * A command word that is PowerShell syntax bash misreads as a command name: `$_.Path`, `$r.StatusCode`,
 * `$env:X="…"`, `$p='…'` (an assignment), a here-string `@'…'@`, a type accessor `[guid]::NewGuid()`.
 * A bare `$cmd` is not: in bash it runs whatever the variable holds (`$x = …` is recognised by its `=`).
 */
function powershellWord(cmd: SimpleCommand, analysis: Analysis): boolean {
  const w0 = cmd.argv[0];
  if (!w0) return false;
  const raw = w0.raw;
  // In bash `$_` is the previous command's last argument: `echo "rm -rf ~ #"; $_.x` runs rm. PowerShell's `$_`
  // only when no argument of the line could make bash's `$_` a command with options or a path.
  if (raw.startsWith('$_') && !underscoreInert(analysis)) return false;
  if (/^\$(_|\w+)(\.\w|\[|:\w)/.test(raw) || /^\$\w+=/.test(raw) || /^@['"]/.test(raw) || /^\[\w+(\.\w+)*\]::/.test(raw)) return true;
  return /^\$\w+$/.test(raw) && cmd.argv[1]?.raw === '=';
}

/** Whether bash's `$_` (the last argument of a command before) could only be a plain word in this line. */
function underscoreInert(analysis: Analysis): boolean {
  return analysis.commands.every((c) => {
    const p = programName(c);
    if (p !== null && isCmdletName(p)) return true;
    const last = c.argv[c.argv.length - 1];
    // Split (whitespace), a path (`/`) or a glob would let `$_.x` name a program of the attacker's choosing.
    return last === undefined || /^[^\s/*?[\]]*$/.test(last.value);
  });
}

/** Findings that only PowerShell's syntax causes, on a command of a PowerShell line. */
const SYNTAX_RULES = new Set(['obf.dynamic-command', 'obf.encoded-name', 'obf.glob-command']);

/** Whether the line, as bash read it, is PowerShell: a cmdlet runs in it, or a command is PowerShell syntax. */
export function readsAsPowerShell(analysis: Analysis): boolean {
  for (const c of analysis.commands) {
    const p = programName(c);
    if ((p !== null && isCmdletName(p)) || powershellWord(c, analysis)) return true;
  }
  return false;
}

/**
 * Whether the line's tier comes only from PowerShell read as bash: no command has a soft or hard finding other
 * than the syntax findings on PowerShell-shaped command words. Then the line is `shell.powershell` (unknown).
 */
export function onlyPowerShellFindings(analysis: Analysis, perCommand: readonly { command: SimpleCommand; tier: Tier; findings: readonly Finding[] }[]): boolean {
  for (const { command, findings } of perCommand) {
    const ps = powershellWord(command, analysis);
    for (const f of findings) {
      if (tierRank(f.tier) <= tierRank('unknown')) continue;
      if (ps && SYNTAX_RULES.has(f.rule)) continue;
      return false;
    }
  }
  return true;
}

export const POWERSHELL_REASON = 'This line is PowerShell, not bash: asimov reads bash, so a person has to read it (or run it through a PowerShell tool the policy knows).';
