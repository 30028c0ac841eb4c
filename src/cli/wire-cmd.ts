// `asimov wire`: installs asimov's hooks into an agent client's settings, removes them, or lists the
// clients on this machine and whether each runs asimov.

import { parseArgs } from 'node:util';
import { existsSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AsimovError } from '../core/errors.ts';
import { findProjectRoot } from '../policy/load.ts';
import { WIRE_TARGETS, type WireTarget } from '../wire/targets.ts';
import { findClient, listClients, type ClientStatus } from '../wire/clients.ts';
import { buildHookCommand, detectWatchdog } from '../wire/hook-command.ts';
import { readTextFile, resolveTarget, writeFileAtomic } from '../wire/write-file.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

export const WIRE_HELP = `Usage:
  asimov wire <client> [--scope S] [--dry-run] [--uninstall] [--on-allow approve|passthrough]
                       [--deadline-ms N] [--cwd DIR]
  asimov wire --list [--json] [--cwd DIR]

Clients: claude (scopes user, project, local), gemini (user, project, system), codex (user, project),
copilot (user, project), qwen, droid, cursor, windsurf, kimi, opencode, goose. \`asimov wire --list\` shows
scopes and tiers; docs/claude-code.md and docs/clients.md say what each reply does in each client.

wire claude   adds asimov's PreToolUse and PermissionRequest hooks (matcher "*") to Claude Code's settings:
              --scope user (default) ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json when set),
              project .claude/settings.json, local .claude/settings.local.json of the project (its git or
              .asimov root). Running it again changes nothing; an entry of a moved install is updated;
              other settings and hooks keep their bytes. --uninstall removes exactly asimov's entries.
              --dry-run prints the changes and a diff and writes nothing.
              --on-allow and --deadline-ms are passed to \`asimov hook claude\`.
wire <other>  the same for the client's own hook config (format kept, exact uninstall, the client's trust
              record where it has one).
--list        each known client: detected on this machine or not, its enforcement tier, and where asimov
              is installed.

A config file asimov cannot parse is never rewritten: the error names its line and column.
`;

export async function wireCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      scope: { type: 'string' },
      'dry-run': { type: 'boolean' },
      uninstall: { type: 'boolean' },
      'on-allow': { type: 'string' },
      'deadline-ms': { type: 'string' },
      list: { type: 'boolean' },
      json: { type: 'boolean' },
      cwd: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(WIRE_HELP);
    return EXIT.ok;
  }
  const cwd = resolve(io.cwd, values.cwd ?? '.');
  const home = io.env.HOME || homedir();
  if (values.list) {
    if (positionals.length > 0) throw new UsageError('--list takes no client name');
    return listCommand(io, { home, cwd, json: values.json === true });
  }
  if (values.json) throw new UsageError('--json goes with --list');
  const client = positionals[0];
  if (client === undefined) throw new UsageError('name a client (asimov wire claude), or use --list');
  if (positionals.length > 1) throw new UsageError('wire one client at a time');
  const target = WIRE_TARGETS[client];
  if (!target) {
    const known = findClient(client);
    io.err(known
      ? `asimov wire: ${known.label} (${client}) is not supported yet; these can be wired: ${Object.keys(WIRE_TARGETS).join(', ')}.\n`
      : `asimov wire: unknown client '${client}'. 'asimov wire --list' shows the clients asimov knows.\n`);
    return EXIT.error;
  }
  const scope = values.scope ?? target.scopes[0]!;
  if (!target.scopes.includes(scope)) throw new UsageError(`--scope must be one of ${target.scopes.join(', ')}, got '${values.scope}'`);
  const onAllow = values['on-allow'];
  if (onAllow !== undefined && onAllow !== 'approve' && onAllow !== 'passthrough') {
    throw new UsageError(`--on-allow must be approve or passthrough, got '${onAllow}'`);
  }
  let deadlineMs: number | undefined;
  if (values['deadline-ms'] !== undefined) {
    deadlineMs = Number(values['deadline-ms']);
    if (!/^\d+$/.test(values['deadline-ms']) || deadlineMs < 100 || deadlineMs > 600_000) {
      throw new UsageError(`--deadline-ms must be a whole number from 100 to 600000, got '${values['deadline-ms']}'`);
    }
  }
  return wireTarget(io, target, {
    home, cwd, scope,
    dryRun: values['dry-run'] === true,
    uninstall: values.uninstall === true,
    args: onAllow ? ['--on-allow', onAllow] : [],
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
  });
}

interface WireOptions {
  home: string;
  cwd: string;
  scope: string;
  dryRun: boolean;
  uninstall: boolean;
  args: string[];
  deadlineMs?: number;
}

async function wireTarget(io: CliIO, t: WireTarget, o: WireOptions): Promise<number> {
  const projectRoot = findProjectRoot(o.cwd);
  const ctx = { home: o.home, projectRoot, env: io.env };
  const file = t.configPath(o.scope, ctx);
  const out: string[] = [`${t.label} (${o.scope}): ${file}`];
  if (o.scope !== 'user' && !existsSync(resolve(projectRoot, '.git')) && !existsSync(resolve(projectRoot, '.asimov'))) {
    out.push(`  note: no .git or .asimov above ${o.cwd}, so the project root is taken to be that directory`);
  }

  // Uninstalling needs no command line: it removes whatever asimov entries the file holds.
  let command = '';
  let timeoutSec = 0;
  let noWatchdog = false;
  if (!o.uninstall) {
    const asimovPath = locateAsimovEntry();
    if (asimovPath === null) {
      io.err(`asimov wire: cannot find asimov's entry point bin/asimov.cjs beside this program (${fileURLToPath(import.meta.url)}).\n`
        + `The hook must name asimov by an absolute path that keeps working, so run wire from an installed asimov (npx asimov wire ${t.client}).\n`);
      return EXIT.error;
    }
    const watchdog = detectWatchdog(io.env);
    noWatchdog = watchdog.kind === 'none';
    const built = buildHookCommand({
      client: t.client, nodePath: process.execPath, asimovPath, args: o.args, watchdog,
      ...(o.deadlineMs !== undefined ? { deadlineMs: o.deadlineMs } : {}),
    });
    command = built.command;
    timeoutSec = built.clientTimeoutSec;
  }

  const target = resolveTarget(file);
  if (target.viaSymlink) out.push(`  (a symlink: ${o.dryRun ? 'would write' : 'writing'} through it to ${target.realPath})`);
  let text: string | null;
  let plan;
  try {
    text = readTextFile(target.realPath);
    plan = t.plan(text, { command, timeoutSec, uninstall: o.uninstall, file });
  } catch (e) {
    if (e instanceof AsimovError && e.code === 'wire_settings_invalid') {
      io.out(`${out.join('\n')}\n`);
      io.err(`asimov wire: ${e.toString()}\nThe file was not changed. The client cannot read it either; fix it, then run this again.\n`);
      return EXIT.error;
    }
    throw e;
  }

  const extras = t.extraWrites?.({ command, timeoutSec, uninstall: o.uninstall, file, scope: o.scope, ctx, configText: plan.text }) ?? [];
  if (plan.changes.length === 0 && extras.every((x) => x.changes.length === 0)) {
    out.push(o.uninstall ? '  nothing to change: no asimov hooks in this file' : '  nothing to change: asimov\'s hooks are installed and current');
    io.out(`${out.join('\n')}\n`);
    return EXIT.ok;
  }
  if (text === null) out.push(`  the file does not exist yet: ${o.dryRun ? 'it would be' : 'it is'} created`);
  out.push(...plan.changes.map((c) => `  ${c}`));
  if (o.dryRun) {
    out.push('', lineDiff(text ?? '', plan.text ?? ''), 'dry run: nothing was written');
  } else if (plan.changes.length > 0 && plan.text === null) {
    // A target that owns its whole file (OpenCode's plugin, Goose's hook plugin) uninstalls by deleting it:
    // an empty file left behind would still be loaded.
    rmSync(file, { force: true });
    out.push('  deleted');
  } else if (plan.changes.length > 0) {
    writeFileAtomic(file, plan.text ?? '', t.modes(o.scope));
    out.push(`  written${target.viaSymlink ? ` to ${target.realPath}` : ''}`);
  }
  for (const x of extras) {
    if (x.changes.length === 0) continue;
    out.push(`${x.file}:`, ...x.changes.map((c) => `  ${c}`));
    if (o.dryRun) continue;
    if (x.text === null) rmSync(x.file, { force: true });
    else writeFileAtomic(x.file, x.text, t.modes(o.scope));
  }
  if (!o.uninstall && !o.dryRun) out.push(...(t.notes?.(o.scope) ?? []).map((l) => `  ${l}`));
  io.out(`${out.join('\n')}\n`);
  if (noWatchdog) {
    io.err('asimov wire: warning: neither `timeout` nor `perl` is on PATH, so the hook has no watchdog: a hang inside asimov would\n'
      + 'last until Claude Code\'s own timeout, after which Claude Code runs the tool.\n');
  }
  return EXIT.ok;
}

/**
 * The absolute path of this installation's bin/asimov.cjs. The bundle runs from dist/cli.cjs (bin/ is its
 * sibling); the sources, under tsx, from src/cli/. Null when the file is not there.
 */
export function locateAsimovEntry(moduleUrl: string = import.meta.url): string | null {
  const here = dirname(fileURLToPath(moduleUrl));
  const p = resolve(here, basename(here) === 'dist' ? '../bin/asimov.cjs' : '../../bin/asimov.cjs');
  return existsSync(p) ? p : null;
}

async function listCommand(io: CliIO, o: { home: string; cwd: string; json: boolean }): Promise<number> {
  const asimovPath = locateAsimovEntry();
  const clients = listClients({
    home: o.home, projectRoot: findProjectRoot(o.cwd), env: io.env,
    ...(asimovPath ? { expected: { nodePath: process.execPath, asimovPath } } : {}),
  });
  if (o.json) {
    io.out(`${JSON.stringify({ clients })}\n`);
    return EXIT.ok;
  }
  io.out(`${clients.map(describeClient).join('\n')}\n`);
  return EXIT.ok;
}

/**
 * How strongly asimov can enforce on each client (issue 6's tiers): 1, a native pre-tool hook that blocks;
 * 2, the client's shell switched off and asimov's gated MCP tools in its place; 3, advisory only.
 */
function tierOf(c: ClientStatus): string {
  if (!c.supported) return 'no tier yet (asimov cannot wire it yet)';
  const caveat = TIER_CAVEATS[c.name];
  return `tier 1 (native pre-tool hook${caveat ? `; ${caveat}` : ''})`;
}

/** Where a tier-1 hook still does not run, said next to the tier so that --list never claims more. */
const TIER_CAVEATS: Record<string, string> = {
  gemini: 'Gemini runs no hooks at all in a folder it does not trust',
  codex: 'Codex skips a hook without its trust record, which wire writes',
  copilot: 'project hooks load only in folders Copilot trusts',
  qwen: 'follows Qwen Code\'s docs, not yet verified with the real CLI; project hooks only in trusted folders',
  droid: 'follows the notes and Factory\'s docs, not yet verified with the real CLI; wire edits hooks.json too when it exists',
  cursor: 'follows Cursor\'s docs, not yet verified with a real Cursor; failClosed is set on every entry',
  windsurf: 'follows Windsurf\'s docs, not yet verified with a real Windsurf; only exit 2 blocks, so every refusal is exit 2',
  kimi: 'follows Kimi CLI\'s docs, not yet verified with the real CLI; only exit 2 blocks, so every refusal is exit 2',
  goose: 'a hook plugin in ~/.agents/plugins; follows Goose\'s docs, not yet verified with the real CLI; on_failure "block" is set',
  opencode: 'a plugin, not a hook; follows OpenCode\'s docs, not yet verified with the real CLI',
};

function describeClient(c: ClientStatus): string {
  const found = c.detected ? `detected (${c.detectedBy})` : 'not detected';
  if (!c.supported) return `${c.label} (${c.name}): ${found}; not supported yet${c.detected ? ', so its tool calls are not checked' : ''}`;
  const lines = [`${c.label} (${c.name}): ${found}; ${tierOf(c)}`];
  for (const s of c.scopes ?? []) {
    let state: string = s.state;
    if (s.state === 'outdated') state = `outdated: names another node or asimov; run asimov wire ${c.name} again`;
    else if (s.state === 'partial') state = `partial: only ${s.events.map((e) => e.event).join(', ')}`;
    else if (s.state === 'unreadable') state = `unreadable: ${s.error}`;
    else if (s.state === 'installed') {
      const narrow = s.events.filter((e) => e.matcher !== '*' && e.matcher !== '' && e.matcher !== '.*');
      if (narrow.length > 0) state += ` (matcher ${narrow.map((e) => `"${e.matcher}"`).join(', ')}: not every tool)`;
    }
    lines.push(`  ${s.scope.padEnd(8)} ${s.path}${s.exists ? '' : ' (no file)'}: ${state}`);
  }
  return lines.join('\n');
}

/** A line diff of two texts with two lines of context, for --dry-run. */
export function lineDiff(before: string, after: string): string {
  const a = before === '' ? [] : before.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  // Common head and tail first, so the quadratic part only sees the lines that changed.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const ops: { op: ' ' | '-' | '+'; line: string }[] = [];
  if (x.length * y.length > 4_000_000) {
    ops.push(...x.map((line) => ({ op: '-' as const, line })), ...y.map((line) => ({ op: '+' as const, line })));
  } else {
    // Longest common subsequence, table from the end.
    const lcs: number[][] = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) { ops.push({ op: ' ', line: x[i]! }); i++; j++; }
      // On a tie the old line goes first, so a changed line reads as '-' then '+'.
      else if (i < x.length && (j === y.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) { ops.push({ op: '-', line: x[i]! }); i++; }
      else { ops.push({ op: '+', line: y[j]! }); j++; }
    }
  }
  const context = 2;
  const before2 = a.slice(Math.max(0, head - context), head).map((line) => `  ${line}`);
  const after2 = a.slice(a.length - tail, a.length - tail + context).map((line) => `  ${line}`);
  const first = Math.max(0, head - context) + 1;
  return [`@@ line ${first} @@`, ...before2, ...ops.map((o) => `${o.op} ${o.line}`), ...after2].join('\n');
}
