// `asimov wire`: installs asimov's hooks into an agent client's settings, removes them, or lists the
// clients on this machine and whether each runs asimov.

import { existsSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AsimovError, describeError } from '../core/errors.ts';
import { findProjectRoot } from '../policy/load.ts';
import { WIRE_TARGETS, holdsNothingElse, tierOf, wireTargetFor, wireTargetsOf, type Tier, type WireTarget } from '../wire/targets.ts';
import {
  findPlace, forgetPlace, missingDirs, readWireRecord, recordPlace, removeEmptyDirs, saveWireRecord, wireRecordPath, type WireRecord, type WrittenFile,
} from '../wire/record.ts';
import { toolsServerLaunch, type ToolsServerLaunch } from '../wire/mcp-server-entry.ts';
import { findClient, listClients, type ClientStatus } from '../wire/clients.ts';
import { buildHookCommand, DAEMON_MODES, detectWatchdog, type DaemonMode } from '../wire/hook-command.ts';
import { readTextFile, resolveTarget, writeFileAtomic } from '../wire/write-file.ts';
import { parseOptions } from './args.ts';
import { cwdOption } from './cwd-option.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

export const WIRE_HELP = `Usage:
  asimov wire <client…> | --all [--scope S] [--tier 1|2|3] [--dry-run] [--uninstall]
                       [--on-allow approve|passthrough] [--deadline-ms N] [--daemon auto|manual|off] [--cwd DIR]
  asimov wire --list [--verbose] [--json] [--cwd DIR]
  asimov wire --refresh [--dry-run]

Clients: claude (scopes user, project, local), gemini (user, project, system), codex (user, project),
copilot (user, project), qwen, droid, cursor, windsurf, kimi, opencode, goose (tier 1: a native hook),
grok (tier 3, project). \`asimov wire --list --verbose\` shows scopes and files; docs/claude-code.md and
docs/clients.md say what each reply does in each client.

wire claude   adds asimov's PreToolUse and PermissionRequest hooks (matcher "*") to Claude Code's settings:
              --scope user (default) ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json when set),
              project .claude/settings.json, local .claude/settings.local.json of the project (its git or
              .asimov root). Running it again changes nothing; an entry of a moved install is updated;
              other settings and hooks keep their bytes. --uninstall removes exactly asimov's entries.
              --dry-run prints the changes and a diff and writes nothing.
              --on-allow and --deadline-ms are passed to \`asimov hook claude\`.
--daemon      how the hook line uses the resident daemon (docs/daemon.md). auto (default): the line starts
              a small perl first stage that hands the call to the daemon without starting node, and the
              first call that finds none starts one; manual: the same, but only a daemon you start is
              used; off: every call starts node and decides in its own process.
wire <other>  the same for the client's own hook config (format kept, exact uninstall, the client's trust
              record where it has one). Several clients may be named at once.
--all         wires every client detected on this machine (each at its usual tier and default scope, or
              --scope when the client has it); with --uninstall, removes asimov from all of them.
--uninstall   without --tier, removes asimov's wiring of every tier from the client (its hook and its
              gated tools); with --tier, only that one. A file wire created is deleted (and the directories
              it created, when empty) once nothing else is in it. \`asimov uninstall\` does every place at once.
--tier 2      instead of a hook: the client's own shell and file tools switched off with its own setting,
              and asimov's gated MCP tools (asimov mcp tools) registered in their place (gemini).
--tier 3      advisory: the gated tools registered and the client's instruction file asks the agent to
              prefer them; the client's own tools still run unchecked (grok, which has nothing stronger).
--refresh     wires every recorded place again (each client, scope and tier wire ever wrote, project
              scopes in other directories too) with this install's node and asimov and the options it was
              wired with: run it after upgrading or moving node or asimov (\`asimov doctor\` says when).
              A recorded project that no longer exists is dropped. The record: $XDG_STATE_HOME/asimov/wired.json
              (else ~/.local/state/asimov/wired.json); \`asimov uninstall\` removes asimov from every place in it.
--list        a table: each known client, installed here or not, where asimov is wired, the enforcement
              tier (1 native hook, 2 native tools off and gated tools in place, 3 advisory) and why.

A config file asimov cannot parse is never rewritten: the error names its line and column.
`;

export async function wireCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      scope: { type: 'string' },
      'dry-run': { type: 'boolean' },
      uninstall: { type: 'boolean' },
      'on-allow': { type: 'string' },
      'deadline-ms': { type: 'string' },
      daemon: { type: 'string' },
      list: { type: 'boolean' },
      all: { type: 'boolean' },
      refresh: { type: 'boolean' },
      tier: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      json: { type: 'boolean' },
      cwd: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(WIRE_HELP);
    return EXIT.ok;
  }
  const cwd = cwdOption(values.cwd, io.cwd);
  const home = io.env.HOME || homedir();
  if (values.list) {
    if (positionals.length > 0 || values.all) throw new UsageError('--list takes no client name');
    return listCommand(io, { home, cwd, json: values.json === true, verbose: values.verbose === true });
  }
  if (values.json) throw new UsageError('--json goes with --list');
  if (values.refresh) {
    if (positionals.length > 0 || values.all || values.uninstall || values.scope !== undefined || values.tier !== undefined || values['on-allow'] !== undefined || values['deadline-ms'] !== undefined || values.daemon !== undefined) {
      throw new UsageError('--refresh rewires every recorded place with the options it was wired with: give no client, --all, --uninstall, --scope, --tier, --on-allow, --deadline-ms or --daemon');
    }
    return refreshCommand(io, { home, dryRun: values['dry-run'] === true });
  }
  let tier: Tier | undefined;
  if (values.tier !== undefined) {
    if (!['1', '2', '3'].includes(values.tier)) throw new UsageError(`--tier must be 1, 2 or 3, got '${values.tier}'`);
    tier = Number(values.tier) as Tier;
  }
  if (values.all && positionals.length > 0) throw new UsageError('--all wires every detected client: give no client name');
  if (!values.all && positionals.length === 0) throw new UsageError('name a client (asimov wire claude), use --all, or --list');
  const clients = values.all ? detectedClients(io, home, cwd) : positionals;
  if (values.all && clients.length === 0) {
    io.out('asimov wire --all: no agent client detected on this machine (asimov wire --list shows what it looks for).\n');
    return EXIT.ok;
  }
  const plans: Array<{ target: WireTarget; scope: string }> = [];
  for (const client of clients) {
    const target = wireTargetFor(client, tier);
    if (!target) {
      const known = findClient(client);
      if (known && tier !== undefined && wireTargetFor(client)) {
        const tiers = wireTargetsOf(client).map(tierOf).join(', ');
        if (values.all) continue;
        throw new UsageError(`${known.label} can be wired at tier ${tiers}, not ${tier}`);
      }
      io.err(known
        ? `asimov wire: ${known.label} (${client}) is not supported yet; these can be wired: ${Object.keys(WIRE_TARGETS).join(', ')}.\n`
        : `asimov wire: unknown client '${client}'. 'asimov wire --list' shows the clients asimov knows.\n`);
      return EXIT.error;
    }
    // With --all, a scope a client does not have is its default (`--all --scope project` skips none).
    const scope = values.scope !== undefined && (target.scopes.includes(values.scope) || !values.all) ? values.scope : target.scopes[0]!;
    if (!target.scopes.includes(scope)) throw new UsageError(`--scope must be one of ${target.scopes.join(', ')} for ${client}, got '${values.scope}'`);
    plans.push({ target, scope });
    // Uninstalling without --tier takes asimov out of the client at every tier (Gemini's hook and its gated tools).
    if (values.uninstall && tier === undefined) {
      for (const other of wireTargetsOf(client)) {
        if (other === target || !other.scopes.includes(scope)) continue;
        plans.push({ target: other, scope });
      }
    }
  }
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
  const daemon = values.daemon;
  if (daemon !== undefined && !(DAEMON_MODES as readonly string[]).includes(daemon)) {
    throw new UsageError(`--daemon must be ${DAEMON_MODES.join(', ')}, got '${daemon}'`);
  }
  const dryRun = values['dry-run'] === true;
  const record = openRecord(io, home);
  let code: number = EXIT.ok;
  for (const [i, { target, scope }] of plans.entries()) {
    if (i > 0) io.out('\n');
    const one = await wireTarget(io, target, {
      home, cwd, scope, dryRun, record,
      uninstall: values.uninstall === true,
      args: onAllow ? ['--on-allow', onAllow] : [],
      ...(deadlineMs !== undefined ? { deadlineMs } : {}),
      ...(daemon !== undefined ? { daemon: daemon as DaemonMode } : {}),
    });
    // One client's unreadable config does not stop the others; the exit code says something failed.
    if (one !== EXIT.ok) code = one;
  }
  if (!dryRun) saveRecord(io, record);
  return code;
}

/**
 * The record of wired places (src/wire/record.ts). One that cannot be read is said on stderr and treated
 * as empty: wiring goes on, and the unreadable file is set aside when the new record is saved.
 */
export function openRecord(io: CliIO, home: string): OpenRecord {
  const record = readWireRecord(wireRecordPath(io.env, home));
  if (record.problem !== undefined) {
    io.err(`asimov: note: the record of wired places ${record.path} could not be read (${record.problem}); places recorded there are not known to this run\n`);
  }
  return Object.assign(record, { saved: JSON.stringify(record.places) });
}

export type OpenRecord = WireRecord & { saved: string };

/** Saves the record when this run changed it. A record that cannot be written is a warning: the wiring itself is done. */
export function saveRecord(io: CliIO, record: OpenRecord): void {
  if (JSON.stringify(record.places) === record.saved && record.problem === undefined) return;
  try {
    saveWireRecord(record);
    record.saved = JSON.stringify(record.places);
  } catch (e) {
    io.err(`asimov: warning: could not write the record of wired places (${describeError(e)}); \`asimov uninstall\` and \`asimov wire --refresh\` will only find these places through \`asimov wire --list\` in this home and project\n`);
  }
}

/**
 * `asimov wire --refresh`: every recorded place wired again with this install's node and asimov, and the
 * options it was wired with. A recorded project that no longer exists is said and dropped from the record.
 */
async function refreshCommand(io: CliIO, o: { home: string; dryRun: boolean }): Promise<number> {
  const record = openRecord(io, o.home);
  if (record.places.length === 0) {
    io.out(`asimov wire --refresh: no wired place is recorded (${record.path}). \`asimov wire --list\` shows where asimov is wired here; \`asimov wire <client>\` wires one and records it.\n`);
    return EXIT.ok;
  }
  let code: number = EXIT.ok;
  for (const [i, place] of [...record.places].entries()) {
    if (i > 0) io.out('\n');
    const target = wireTargetFor(place.client, place.tier);
    if (!target || !target.scopes.includes(place.scope)) {
      io.out(`${place.client} (${place.scope}, tier ${place.tier}): ${place.file}\n  this asimov cannot wire it any more; dropped from the record\n`);
      if (!o.dryRun) forgetPlace(record, place);
      continue;
    }
    if (place.projectRoot !== undefined && !existsSync(place.projectRoot)) {
      io.out(`${target.label} (${place.scope}): ${place.file}\n  the project ${place.projectRoot} no longer exists: ${o.dryRun ? 'it would be' : 'it is'} dropped from the record\n`);
      if (!o.dryRun) forgetPlace(record, place);
      continue;
    }
    const one = await wireTarget(io, target, {
      home: o.home, cwd: place.projectRoot ?? io.cwd, scope: place.scope, dryRun: o.dryRun, uninstall: false, record,
      file: place.file, args: place.args, ...(place.deadlineMs !== undefined ? { deadlineMs: place.deadlineMs } : {}),
      ...(place.daemon !== undefined ? { daemon: place.daemon } : {}),
      ...(place.projectRoot !== undefined ? { projectRoot: place.projectRoot } : {}),
    });
    if (one !== EXIT.ok) code = one;
  }
  if (!o.dryRun) saveRecord(io, record);
  return code;
}

/** The clients --all wires: those detected here that asimov can wire. */
function detectedClients(io: CliIO, home: string, cwd: string): string[] {
  return listClients({ home, projectRoot: findProjectRoot(cwd), env: io.env })
    .filter((c) => c.detected && c.supported)
    .map((c) => c.name);
}

export interface WireOptions {
  home: string;
  cwd: string;
  scope: string;
  dryRun: boolean;
  uninstall: boolean;
  args: string[];
  deadlineMs?: number;
  /** How the hook line uses the resident daemon (default auto). */
  daemon?: DaemonMode;
  /** The project a recorded place belongs to; else the one found above `cwd`. */
  projectRoot?: string;
  /** The config file of a recorded place (as it was recorded); else the scope's file here. */
  file?: string;
  /** The record of wired places, updated in memory (the caller saves it). */
  record?: WireRecord;
  /** Whether --dry-run shows the diff of each file (uninstall's long list of files shows only the changes). */
  diff?: boolean;
}

/** Wires (or unwires) one client's config file at one scope and tier, saying what it did; returns the exit code. */
export async function wireTarget(io: CliIO, t: WireTarget, o: WireOptions): Promise<number> {
  const projectRoot = o.projectRoot ?? findProjectRoot(o.cwd);
  const ctx = { home: o.home, projectRoot, env: io.env };
  const file = o.file ?? t.configPath(o.scope, ctx);
  const out: string[] = [`${t.label} (${o.scope}${tierOf(t) === 1 ? '' : `, tier ${tierOf(t)}`}): ${file}`];
  if (o.projectRoot === undefined && o.scope !== 'user' && !existsSync(resolve(projectRoot, '.git')) && !existsSync(resolve(projectRoot, '.asimov'))) {
    out.push(`  note: no .git or .asimov above ${o.cwd}, so the project root is taken to be that directory`);
  }
  const key = { client: t.client, tier: tierOf(t), file };
  const recorded = o.record ? findPlace(o.record, key) : undefined;

  // Uninstalling needs no command line: it removes whatever asimov entries the file holds.
  let command = '';
  let timeoutSec = 0;
  let noWatchdog = false;
  let tools: ToolsServerLaunch | undefined;
  if (!o.uninstall) {
    const asimovPath = locateAsimovEntry();
    if (asimovPath === null) {
      io.err(`asimov wire: cannot find asimov's entry point bin/asimov.cjs beside this program (${fileURLToPath(import.meta.url)}).\n`
        + `The hook must name asimov by an absolute path that keeps working, so run wire from an installed asimov (\`npm install -g asimov-firewall\`, then \`asimov wire ${t.client}\`).\n`);
      return EXIT.error;
    }
    const watchdog = detectWatchdog(io.env, o.daemon);
    noWatchdog = watchdog.kind === 'none';
    const built = buildHookCommand({
      client: t.client, nodePath: process.execPath, asimovPath, args: o.args, watchdog, ...(o.daemon !== undefined ? { daemon: o.daemon } : {}),
      ...(o.deadlineMs !== undefined ? { deadlineMs: o.deadlineMs } : {}),
    });
    command = built.command;
    timeoutSec = built.clientTimeoutSec;
    tools = toolsServerLaunch(process.execPath, asimovPath);
    // Tiers 2 and 3 run no hook, so a missing watchdog does not matter to them.
    if (tierOf(t) !== 1) noWatchdog = false;
  }

  const target = resolveTarget(file);
  if (target.viaSymlink) out.push(`  (a symlink: ${o.dryRun ? 'would write' : 'writing'} through it to ${target.realPath})`);
  let text: string | null;
  let plan: ReturnType<WireTarget['plan']>;
  let extras: ReturnType<NonNullable<WireTarget['extraWrites']>>;
  let planned = false;
  try {
    text = readTextFile(target.realPath);
    plan = t.plan(text, { command, timeoutSec, uninstall: o.uninstall, file, ...(tools ? { tools } : {}) });
    planned = true;
    extras = t.extraWrites?.({ command, timeoutSec, uninstall: o.uninstall, file, scope: o.scope, ctx, configText: plan.text, ...(tools ? { tools } : {}) }) ?? [];
  } catch (e) {
    if (e instanceof AsimovError && e.code === 'wire_settings_invalid') {
      io.out(`${out.join('\n')}\n`);
      // The config file itself, or one of the further files (a trust record, a rule file) that is not asimov's.
      const after = planned ? 'Nothing was changed.' : 'The file was not changed. The client cannot read it either; fix it, then run this again.';
      io.err(`asimov wire: ${e.toString()}\n${after}\n`);
      return EXIT.error;
    }
    throw e;
  }
  // What each file was before this run, for the record: a file that does not exist yet is created now.
  // A file that exists and holds nothing of asimov's after this run is not recorded: only the ones that will exist.
  const written = [{ path: target.realPath, text: plan.text }, ...extras.map((x) => ({ path: resolveTarget(x.file).realPath, text: x.text }))]
    .filter(({ text: after }) => after !== null)
    .map(({ path }): WrittenFile => (existsSync(path) ? { path, created: false, createdDirs: [] } : { path, created: true, createdDirs: missingDirs(path) }));
  const remember = () => {
    if (o.dryRun || !o.record) return;
    if (o.uninstall) {
      forgetPlace(o.record, key);
      return;
    }
    recordPlace(o.record, {
      ...key, scope: o.scope, ...(o.scope === 'user' || o.scope === 'system' ? {} : { projectRoot }),
      args: o.args, ...(o.deadlineMs !== undefined ? { deadlineMs: o.deadlineMs } : {}),
      ...(o.daemon !== undefined && o.daemon !== 'auto' ? { daemon: o.daemon } : {}),
      wiredAt: new Date().toISOString(),
      files: written,
    });
  };
  if (plan.changes.length === 0 && extras.every((x) => x.changes.length === 0)) {
    const what = tierOf(t) === 1 ? 'hooks' : 'gated tools';
    out.push(o.uninstall ? `  nothing to change: no asimov ${what} in this file` : `  nothing to change: asimov's ${what} are installed and current`);
    io.out(`${out.join('\n')}\n`);
    remember();
    return EXIT.ok;
  }
  if (text === null) out.push(`  the file does not exist yet: ${o.dryRun ? 'it would be' : 'it is'} created`);
  out.push(...plan.changes.map((c) => `  ${c}`));
  // On uninstall, a file wire created goes when nothing but what wire leaves of nothing remains in it.
  const createdByWire = (path: string) => recorded?.files.some((f) => f.path === path && f.created) === true;
  const deleteCreated = o.uninstall && plan.text !== null && createdByWire(target.realPath) && holdsNothingElse(t, file, plan.text);
  if (o.dryRun) {
    if (o.diff !== false) out.push('', lineDiff(text ?? '', plan.text ?? ''));
    out.push(...(deleteCreated ? [`${o.diff !== false ? '' : '  '}asimov created this file, so uninstall would delete it`] : []), `${o.diff !== false ? '' : '  '}dry run: nothing was written`);
  } else if (plan.changes.length > 0 && (plan.text === null || deleteCreated)) {
    // A target that owns its whole file (OpenCode's plugin, Goose's hook plugin) uninstalls by deleting it:
    // an empty file left behind would still be loaded. A file wire created goes the same way.
    rmSync(target.realPath, { force: true });
    out.push(deleteCreated ? '  deleted (asimov had created it, and nothing else was in it)' : '  deleted');
  } else if (plan.changes.length > 0) {
    writeFileAtomic(file, plan.text ?? '', t.modes(o.scope));
    out.push(`  written${target.viaSymlink ? ` to ${target.realPath}` : ''}`);
  }
  for (const x of extras) {
    if (x.changes.length === 0) continue;
    out.push(`${x.file}:`, ...x.changes.map((c) => `  ${c}`));
    if (o.dryRun) continue;
    const real = resolveTarget(x.file).realPath;
    if (x.text === null) rmSync(x.file, { force: true });
    else if (o.uninstall && createdByWire(real) && x.text.trim() === '') {
      rmSync(real, { force: true });
      out.push('  deleted (asimov had created it, and nothing else was in it)');
    } else writeFileAtomic(x.file, x.text, t.modes(o.scope));
  }
  if (o.uninstall && !o.dryRun && recorded) {
    for (const d of removeEmptyDirs(recorded.files.flatMap((f) => f.createdDirs))) out.push(`  removed the empty directory ${d} (asimov had created it)`);
  }
  remember();
  if (!o.uninstall && !o.dryRun) {
    out.push(...(t.notes?.(o.scope) ?? []).map((l) => `  ${l}`));
    // Each tool call starts a hook process; the resident daemon makes that start about twice as fast.
    if (tierOf(t) === 1) {
      // Claude Code's own note names doctor already.
      if (t.client !== 'claude') out.push(`  check it: \`asimov doctor ${t.client}\` runs the installed hook here and says whether ${t.client} is protected`);
      out.push('  optional: `asimov daemon start` (e.g. from your login profile) makes each hook call start faster; docs/daemon.md');
    }
  }
  io.out(`${out.join('\n')}\n`);
  if (noWatchdog) {
    io.err('asimov wire: warning: neither `timeout` nor `perl` is on PATH, so the hook has no watchdog: a hang inside asimov would\n'
      + 'last until the client\'s own timeout, after which most clients run the tool.\n');
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

async function listCommand(io: CliIO, o: { home: string; cwd: string; json: boolean; verbose: boolean }): Promise<number> {
  const asimovPath = locateAsimovEntry();
  const clients = listClients({
    home: o.home, projectRoot: findProjectRoot(o.cwd), env: io.env,
    ...(asimovPath ? { expected: { nodePath: process.execPath, asimovPath } } : {}),
  });
  if (o.json) {
    io.out(`${JSON.stringify({ clients: clients.map((c) => ({ ...c, why: c.supported ? whyOf(c) : null })) })}\n`);
    return EXIT.ok;
  }
  io.out(`${clientTable(clients)}\n`);
  if (o.verbose) io.out(`\n${clients.map(describeClient).join('\n')}\n`);
  else io.out('\n`asimov wire --list --verbose` shows each config file and its state.\n');
  return EXIT.ok;
}

/** What each tier means, said in the table so that --list never claims more than the wiring gives. */
export const TIER_MEANING: Record<Tier, string> = {
  1: 'native pre-tool hook',
  2: 'native shell and file tools off; asimov\'s gated MCP tools in their place',
  3: 'ADVISORY ONLY: asimov\'s gated tools offered, the client\'s own tools still run unchecked',
};

/** Where a tier still does not hold, said next to it. */
const TIER_CAVEATS: Record<string, string> = {
  gemini: 'Gemini runs no hooks at all in a folder it does not trust (`--tier 2` does not depend on trust)',
  codex: 'Codex skips a hook without its trust record, which wire writes',
  copilot: 'project hooks load only in folders Copilot trusts',
  qwen: 'follows Qwen Code\'s docs, not yet verified with the real CLI; project hooks only in trusted folders',
  droid: 'follows the notes and Factory\'s docs, not yet verified with the real CLI; wire edits hooks.json too when it exists',
  cursor: 'follows Cursor\'s docs, not yet verified with a real Cursor; failClosed is set on every entry',
  windsurf: 'follows Windsurf\'s docs, not yet verified with a real Windsurf; only exit 2 blocks, so every refusal is exit 2',
  kimi: 'follows Kimi CLI\'s docs, not yet verified with the real CLI; only exit 2 blocks, so every refusal is exit 2',
  goose: 'a hook plugin in ~/.agents/plugins; follows Goose\'s docs, not yet verified with the real CLI; on_failure "block" is set',
  opencode: 'a plugin, not a hook; verified with OpenCode 1.18.33; `opencode --pure` (OPENCODE_PURE=1) loads no plugins',
  grok: 'Grok CLI has no pre-tool hook and cannot switch its own tools off; project scope only',
};

/** The tier's meaning and the client's caveat: why the tier is what it is. */
function whyOf(c: ClientStatus): string {
  const tier = c.tier ?? 1;
  const caveat = TIER_CAVEATS[c.name];
  // A Gemini wired at tier 2 does not need the caveat about hooks in untrusted folders.
  const note = tier === 1 || c.name === 'grok' ? caveat : undefined;
  return `${TIER_MEANING[tier]}${note ? `; ${note}` : ''}`;
}

/** The table: client, installed here?, wired where?, tier, why. */
function clientTable(clients: ClientStatus[]): string {
  const rows = clients.map((c) => {
    const wiredAt = (c.scopes ?? []).filter((x) => x.state === 'installed').map((x) => (x.tier === (c.tier ?? 1) ? x.scope : `${x.scope} (tier ${x.tier})`));
    const stale = (c.scopes ?? []).some((x) => x.state === 'outdated' || x.state === 'partial');
    const wired = wiredAt.length > 0 ? [...new Set(wiredAt)].join(', ') : stale ? 'outdated' : 'no';
    const tier = !c.supported ? '-' : c.wired ? String(c.tier) : `(${c.tier})`;
    return [`${c.label} (${c.name})`, c.detected ? 'yes' : 'no', wired, tier, c.supported ? whyOf(c) : 'asimov cannot wire it yet'];
  });
  const head = ['CLIENT', 'INSTALLED', 'WIRED', 'TIER', 'WHY'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(width[i]!))).join('  ');
  return [line(head), ...rows.map(line), '', 'TIER in parentheses: what `asimov wire <client>` would give; the client is not wired yet.'].join('\n');
}

function describeClient(c: ClientStatus): string {
  const found = c.detected ? `detected (${c.detectedBy})` : 'not detected';
  if (!c.supported) return `${c.label} (${c.name}): ${found}; not supported yet${c.detected ? ', so its tool calls are not checked' : ''}`;
  const lines = [`${c.label} (${c.name}): ${found}; tier ${c.tier} (${whyOf(c)})`];
  const tiers = new Set((c.scopes ?? []).map((x) => x.tier));
  for (const s of c.scopes ?? []) {
    let state: string = s.state;
    if (s.state === 'outdated') state = `outdated: names another node or asimov; rewire with asimov wire --refresh (or asimov wire ${c.name} --scope ${s.scope})`;
    else if (s.state === 'partial') state = `partial: only ${s.events.map((e) => e.event).join(', ')}`;
    else if (s.state === 'unreadable') state = `unreadable: ${s.error}`;
    else if (s.state === 'installed') {
      const narrow = s.events.filter((e) => e.matcher !== '*' && e.matcher !== '' && e.matcher !== '.*');
      if (narrow.length > 0) state += ` (matcher ${narrow.map((e) => `"${e.matcher}"`).join(', ')}: not every tool)`;
    }
    const label = tiers.size > 1 ? `${s.scope} t${s.tier}` : s.scope;
    lines.push(`  ${label.padEnd(8)} ${s.path}${s.exists ? '' : ' (no file)'}: ${state}`);
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
