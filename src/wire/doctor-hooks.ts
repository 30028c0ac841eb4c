// `asimov doctor <client>` for every client but Claude Code (doctor.ts): where asimov is wired (the files
// `asimov wire --list` looks at), the command line installed there run the way the client runs it with the
// client's own payload, read the way the client reads replies, the client's own switches and trust that
// keep an installed hook from running (doctor-caveats.ts), and the policy.

import { describeError } from '../core/errors.ts';
import { HOOK_PROTOCOLS } from '../adapters/registry.ts';
import { findClient, targetScopes, type ScopeStatus } from './clients.ts';
import { asimovCommandsIn } from './doctor-commands.ts';
import { clientCaveats, type WiredFile } from './doctor-caveats.ts';
import {
  hasWatchdog, policyCheck, reportOf, runCommandLine, type DoctorCheck, type DoctorOptions, type DoctorReport,
} from './doctor.ts';
import { clientTimeoutSecFor, DEFAULT_DEADLINE_MS, hookDeadlineMs } from './hook-command.ts';
import { tierOf, wireTargetsOf } from './targets.ts';
import { readTextFile, resolveTarget } from './write-file.ts';

/** The clients `asimov doctor <client>` checks with a run of their hook (tier 1), Claude Code aside. */
export function doctorHookClients(): string[] {
  return Object.keys(HOOK_PROTOCOLS).filter((c) => c !== 'claude');
}

export async function doctorHookClient(client: string, o: DoctorOptions): Promise<DoctorReport> {
  const label = findClient(client)?.label ?? client;
  const targets = wireTargetsOf(client);
  if (targets.length === 0) throw new Error(`asimov cannot wire '${client}'`);
  const checks: DoctorCheck[] = [];
  const scopes = targetScopes(client, { home: o.home, projectRoot: o.projectRoot, env: o.env });

  for (const s of scopes.filter((x) => x.state === 'unreadable')) {
    checks.push({ status: 'fail', title: `${s.path} cannot be read`, detail: s.error ?? '', fix: 'fix its permissions or remove it' });
  }
  const others = scopes.filter((s) => s.tier !== 1 && s.state !== 'not installed' && s.state !== 'unreadable');
  for (const s of others) {
    const meaning = o.tierMeaning?.(s.tier);
    checks.push({ status: 'info', title: `wired at tier ${s.tier} in ${s.path} (${s.scope})${meaning ? `: ${meaning}` : ''}; doctor runs tier 1 hooks only` });
  }

  const wired: WiredFile[] = [];
  const commands: string[] = [];
  const placeOf = new Map<string, { scope: string; file: string }>();
  for (const s of scopes.filter((x) => x.tier === 1 && x.state !== 'not installed' && x.state !== 'unreadable')) {
    const found = readWired(client, s);
    if ('check' in found) {
      checks.push(found.check);
      continue;
    }
    checks.push({ status: 'ok', title: `asimov's hook is in ${s.path} (${s.scope})` });
    wired.push(found.file);
    for (const c of found.commands) {
      if (commands.includes(c)) continue;
      commands.push(c);
      placeOf.set(c, { scope: s.scope, file: s.path });
    }
  }

  if (wired.length === 0 && !checks.some((c) => c.status === 'fail')) checks.push(notWired(client, label, scopes, others));
  if (wired.length > 0) {
    checks.push(...clientCaveats(client, { o, wired, otherTiers: others.map((s) => s.tier) }));
    const protocol = HOOK_PROTOCOLS[client]?.({ onAllow: 'approve', cwd: o.cwd });
    for (const command of commands) {
      if (commands.length > 1) checks.push({ status: 'info', title: `command line: ${command}` });
      if (!hasWatchdog(command)) {
        checks.push({ status: 'warn', title: `the command line has no watchdog (timeout or perl): a hang inside asimov would last until ${label}'s own timeout, after which most clients run the tool` });
      }
      if (!protocol?.doctorPayload || !protocol.doctorVerdict) {
        checks.push({ status: 'warn', title: `doctor does not know ${label}'s payload, so the command line was not run` });
        continue;
      }
      checks.push(...(await runCommandLine({
        client, label, command, timeoutMs: clientTimeoutMs(command), env: o.env,
        payload: (c) => protocol.doctorPayload!(c, o.cwd),
        verdict: protocol.doctorVerdict,
        ...(placeOf.has(command) ? { place: placeOf.get(command)! } : {}),
      }, o)));
      if (o.callPath) checks.push(await o.callPath(command));
    }
  }
  checks.push(policyCheck(o));
  return reportOf(client, label, checks);
}

/** asimov's command lines in one wired file, or the check that says why there are none. */
function readWired(client: string, s: ScopeStatus): { file: WiredFile; commands: string[] } | { check: DoctorCheck } {
  try {
    const text = readTextFile(resolveTarget(s.path).realPath) ?? '';
    const commands = asimovCommandsIn(text, s.path, client);
    if (commands.length > 0) return { file: { scope: s.scope, path: s.path, text }, commands };
    return { check: { status: 'fail', title: `${s.path} names asimov, but doctor finds no command line of asimov's for ${client} in it`, fix: `run \`asimov wire ${client}${s.scope === wireTargetsOf(client)[0]?.scopes[0] ? '' : ` --scope ${s.scope}`}\` again` } };
  } catch (e) {
    return { check: { status: 'fail', title: `${s.path} cannot be parsed`, detail: describeError(e), fix: `the client cannot read it either; fix it, then run \`asimov wire ${client}\` again` } };
  }
}

/** Nothing at tier 1: not wired at all, or only at a tier that runs no hook. */
function notWired(client: string, label: string, scopes: ScopeStatus[], others: ScopeStatus[]): DoctorCheck {
  const hookTier = wireTargetsOf(client).some((t) => tierOf(t) === 1);
  if (others.some((s) => s.tier === 2)) return { status: 'ok', title: `${label} is wired at tier 2: its own tools are off and asimov's gated tools stand in` };
  if (others.length > 0) {
    return {
      status: 'fail',
      title: `${label} is wired at tier 3 only: advisory, its own tools still run unchecked`,
      ...(hookTier ? { fix: `run \`asimov wire ${client}\`` } : { detail: `${label} has no pre-tool hook asimov could use` }),
    };
  }
  return {
    status: 'fail',
    title: `asimov is not wired into ${label} for this directory`,
    detail: `looked in ${[...new Set(scopes.map((s) => s.path))].join(', ')}`,
    fix: `run \`asimov wire ${client}\``,
  };
}

/**
 * How long to let the command line run: the client timeout `wire` writes for its deadline (the watchdog's
 * kill plus a margin), so that doctor waits as long as the client would.
 */
function clientTimeoutMs(command: string): number {
  return clientTimeoutSecFor(hookDeadlineMs(command) ?? DEFAULT_DEADLINE_MS) * 1000;
}
