// `asimov uninstall [--purge]`: asimov taken out of every place `wire` ever wrote (the record) and every
// place `wire --list` finds wired here, the files wire created deleted, the daemon stopped; with --purge,
// asimov's own config, state and cache directories removed too, once it has said exactly what they hold.

import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { isatty } from 'node:tty';
import { resolveAuditPath } from '../audit/paths.ts';
import { asimovCacheDir, asimovStateDir } from '../core/asimov-dirs.ts';
import { describeError } from '../core/errors.ts';
import { findProjectRoot } from '../policy/load.ts';
import { asimovConfigDir } from '../policy/trust.ts';
import { listClients } from '../wire/clients.ts';
import { samePlace, type WiredPlace } from '../wire/record.ts';
import { wireTargetFor } from '../wire/targets.ts';
import { describeStop, stopDaemon } from './daemon/control.ts';
import { socketPathFor } from './daemon/socket-path.ts';
import { parseOptions } from './args.ts';
import { cwdOption } from './cwd-option.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { styleOf, table } from './style.ts';
import { openRecord, saveRecord, wireTarget } from './wire-cmd.ts';

const USAGE = `Usage: asimov uninstall [--purge [--yes]] [--dry-run] [--cwd DIR]

Takes asimov out of every place \`asimov wire\` wrote (all clients, scopes and tiers, project scopes in other
directories too: the record in $XDG_STATE_HOME/asimov/wired.json, else ~/.local/state/asimov/wired.json)
and of every place \`asimov wire --list\` finds wired in this home and project. Each file gets its bytes
back as they were before wire; a file wire created is deleted (with the directories it created, when
empty), unless something else has been put in it since: then only asimov's entries go. Then the resident
daemon is stopped. Prints what it did to each file.

  --purge     also removes asimov's own directories: config ($XDG_CONFIG_HOME/asimov: the user policy, the
              trust store), state ($XDG_STATE_HOME/asimov: the audit log, sessions, the wire record) and
              cache ($XDG_CACHE_HOME/asimov). It first lists them with their sizes, then asks (y/N) on a
              terminal; without a terminal it needs --yes. Nothing outside those directories is removed.
  --yes       go ahead with --purge without asking
  --dry-run   prints what would be done and changes nothing
  --cwd DIR   the project whose scopes \`wire --list\` looks at (default: the current directory)

The package itself stays installed: \`npm uninstall -g asimov-firewall\` removes it.
`;

export async function uninstallCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      purge: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
      'dry-run': { type: 'boolean' },
      cwd: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError(`uninstall takes no arguments, got '${positionals.join(' ')}' (\`asimov wire <client> --uninstall\` takes one client out)`);
  if (values.yes && !values.purge) throw new UsageError('--yes goes with --purge');
  const dryRun = values['dry-run'] === true;
  const home = io.env.HOME || homedir();
  const cwd = cwdOption(values.cwd, io.cwd);
  const style = styleOf(io);

  // --purge says what it will remove, and is confirmed, before anything at all is done.
  const purge = values.purge ? purgePlan(io.env, home) : null;
  if (purge) {
    io.out(`${describePurge(purge, style)}\n\n`);
    if (!dryRun && !values.yes && !(await confirmed(io))) {
      io.err(isatty(0)
        ? 'asimov uninstall: nothing was done.\n'
        : 'asimov uninstall: --purge removes the directories above; add --yes to go ahead (there is no terminal to ask). Nothing was done.\n');
      return EXIT.error;
    }
  }

  const record = openRecord(io, home);
  const places = placesToUnwire(record.places, { home, cwd, env: io.env });
  let code: number = EXIT.ok;
  if (places.length === 0) io.out('No place with asimov wired is recorded or found here.\n');
  for (const [i, place] of places.entries()) {
    if (i > 0) io.out('\n');
    const target = wireTargetFor(place.client, place.tier);
    if (!target || !target.scopes.includes(place.scope)) {
      io.out(`${place.client} (${place.scope}, tier ${place.tier}): ${place.file}\n  this asimov cannot unwire it: take asimov's entries out by hand\n`);
      code = EXIT.error;
      continue;
    }
    if (place.projectRoot !== undefined && lstatSync(place.projectRoot, { throwIfNoEntry: false }) === undefined) {
      io.out(`${target.label} (${place.scope}): ${place.file}\n  the project ${place.projectRoot} no longer exists: nothing to remove; ${dryRun ? 'it would be' : 'it is'} dropped from the record\n`);
      if (!dryRun) record.places = record.places.filter((p) => !samePlace(p, place));
      continue;
    }
    const one = await wireTarget(io, target, {
      home, cwd: place.projectRoot ?? cwd, scope: place.scope, dryRun, uninstall: true, record, args: [], file: place.file, diff: false,
      ...(place.projectRoot !== undefined ? { projectRoot: place.projectRoot } : {}),
    });
    if (one !== EXIT.ok) code = one;
  }
  if (!dryRun) saveRecord(io, record);

  const socketPath = socketPathFor(io.env);
  if (dryRun) io.out(`\nThe resident daemon (${socketPath}) would be stopped, if it runs.\n`);
  else {
    const stopped = await stopDaemon(socketPath);
    if (stopped.kind === 'failed') {
      io.err(`asimov uninstall: the daemon: ${describeStop(stopped, socketPath)}\n`);
      code = EXIT.error;
    } else io.out(`\nDaemon: ${describeStop(stopped, socketPath)}\n`);
  }

  if (purge) {
    if (dryRun) io.out('\ndry run: nothing was removed\n');
    else if (code !== EXIT.ok) {
      // The record names the places still wired: it is kept until they are out.
      io.err('asimov uninstall: not purged, since asimov could not be taken out of every place above; fix that and run this again.\n');
    } else {
      for (const d of purge.dirs.filter((x) => x.exists)) {
        try {
          rmSync(d.path, { recursive: true, force: true });
          io.out(`removed ${d.path}${d.symlink ? ' (the symbolic link only)' : ''}\n`);
        } catch (e) {
          io.err(`asimov uninstall: could not remove ${d.path}: ${describeError(e)}\n`);
          code = EXIT.error;
        }
      }
    }
  } else if (dryRun) io.out('\ndry run: nothing was changed\n');

  io.out(`\n${style.bold('To remove the package itself:')} npm uninstall -g asimov-firewall\n`);
  return code;
}

interface PlaceContext {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The recorded places, then those `wire --list` finds wired in this home and project that are not recorded
 * (wired by an asimov from before the record, or with the record lost). Claude Code's managed settings are
 * not wire's to change, and are left out.
 */
export function placesToUnwire(recorded: readonly WiredPlace[], ctx: PlaceContext): WiredPlace[] {
  const projectRoot = findProjectRoot(ctx.cwd);
  const out = [...recorded];
  for (const c of listClients({ home: ctx.home, projectRoot, env: ctx.env })) {
    for (const s of c.scopes ?? []) {
      if (s.state !== 'installed' && s.state !== 'outdated' && s.state !== 'partial') continue;
      const target = wireTargetFor(c.name, s.tier);
      if (!target || !target.scopes.includes(s.scope)) continue;
      const place: WiredPlace = {
        client: c.name, tier: s.tier, scope: s.scope, file: s.path,
        ...(s.scope === 'user' || s.scope === 'system' ? {} : { projectRoot }),
        args: [], wiredAt: '', files: [],
      };
      if (!out.some((p) => samePlace(p, place))) out.push(place);
    }
  }
  return out;
}

interface PurgeDir {
  what: string;
  path: string;
  exists: boolean;
  symlink: boolean;
  bytes: number;
  files: number;
}

interface PurgePlan {
  dirs: PurgeDir[];
  /** asimov's files that live elsewhere and are left alone (an audit log set by ASIMOV_AUDIT_LOG). */
  outside: string[];
}

/** asimov's three directories where this environment puts them, with what they hold. */
export function purgePlan(env: NodeJS.ProcessEnv, home: string): PurgePlan {
  const candidates: Array<[string, string]> = [
    ['config', asimovConfigDir(home, env)],
    ['state', asimovStateDir(env, home)],
    ['cache', asimovCacheDir(env, home)],
  ];
  const dirs: PurgeDir[] = [];
  for (const [what, path] of candidates) {
    // Only a directory named asimov, absolute, below the root: never a home or a shared directory.
    if (!isAbsolute(path) || basename(path) !== 'asimov' || dirname(path) === path || dirs.some((d) => d.path === path)) continue;
    const st = lstatSync(path, { throwIfNoEntry: false });
    const symlink = st?.isSymbolicLink() === true;
    const size = st && !symlink ? sizeOf(path) : { bytes: 0, files: 0 };
    dirs.push({ what, path, exists: st !== undefined, symlink, ...size });
  }
  const outside: string[] = [];
  try {
    const audit = resolveAuditPath(env, home);
    if (audit !== null && !dirs.some((d) => audit.startsWith(`${d.path}${sep}`))) outside.push(audit);
  } catch {
    // an ASIMOV_AUDIT_LOG asimov itself refuses: nothing of asimov's is written there
  }
  return { dirs, outside };
}

/** Bytes and files under a directory, symlinks counted as themselves (never followed). */
function sizeOf(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else {
        files++;
        bytes += st.size;
      }
    }
  };
  walk(dir);
  return { bytes, files };
}

function describePurge(p: PurgePlan, style: ReturnType<typeof styleOf>): string {
  const present = p.dirs.filter((d) => d.exists);
  const lines = [style.bold('--purge removes these directories of asimov\'s, and everything in them:')];
  if (present.length === 0) lines.push('  (none of them exists)');
  else {
    lines.push(table(present.map((d) => [d.what, d.path, d.symlink ? 'a symbolic link: only the link' : `${humanBytes(d.bytes)} in ${d.files} file${d.files === 1 ? '' : 's'}`]), { indent: '  ' }));
  }
  for (const d of p.dirs.filter((x) => !x.exists)) lines.push(style.dim(`  (${d.what} ${d.path} does not exist)`));
  for (const f of p.outside) lines.push(`  left alone: ${f} (ASIMOV_AUDIT_LOG puts the audit log outside asimov's directories; remove it yourself if you want)`);
  lines.push('  Project policies (.asimov/ in your projects) are the projects\' own and stay.');
  return lines.join('\n');
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** On a terminal: asks y/N and reads one line of the answer. Without one: false (the caller says to add --yes). */
async function confirmed(io: CliIO): Promise<boolean> {
  if (!isatty(0)) return false;
  io.out('Remove them? [y/N] ');
  let answer = '';
  for await (const chunk of io.stdin()) {
    answer += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (answer.includes('\n')) break;
  }
  return /^\s*y(es)?\s*$/i.test(answer.split('\n')[0] ?? '');
}
