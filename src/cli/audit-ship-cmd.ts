// `asimov audit ship` and `asimov audit verify --remote`: this machine's side of the team's audit trail.
//
// `ship` runs in the background by itself (the hook starts it when none runs and `audit.remote` is set); a
// person runs it to see the state, to push the backlog now (`--once`), or under a service manager (`--follow`).

import { loadPolicy } from '../policy/load.ts';
import type { AuditSettings } from '../policy/layers.ts';
import { resolveTeamToken } from '../audit/team-token.ts';
import { followAndShip, followLog, shipBatch, ShipError, shippedSoFar } from '../audit/shipper.ts';
import { chainSentence, clientIdOf, osUserName, describeShipStatus, loadShipStatus, lockShipper, serverKey, statusPathOf } from '../audit/ship-state.ts';
import { verifyLog } from '../audit/verify.ts';
import { exportBacklog } from '../audit/otlp-ship.ts';
import type { OtlpExporter } from '../audit/otlp.ts';
import { hostname } from 'node:os';
import { VERSION } from './version.ts';
import { describeError } from '../core/errors.ts';
import { parseOptions } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

export const SHIP_HELP = `Usage:
  asimov audit ship [--once | --follow [--idle-exit SECONDS]] [--status] [--json] [--log FILE]

Ships this machine's audit log to the team server named by \`audit.remote\` in the user or managed policy
(token: audit.token_file, audit.token_env or $ASIMOV_TEAM_TOKEN). The hook starts a background shipper by
itself; records wait in the log while the server is unreachable and go out when it answers.

  --once        ship the backlog now, then exit (exit 1 when the server could not be reached)
  --follow      keep shipping as the log grows (for a service manager); --idle-exit ends it after that
                many seconds with nothing new
  --status      what the last attempt found (default when neither --once nor --follow is given)
`;

export interface RemoteTarget {
  server: string;
  token: string;
  settings: AuditSettings;
}

function auditSettingsOf(io: CliIO): AuditSettings | undefined | { why: string } {
  try {
    return loadPolicy({ cwd: io.cwd, env: io.env }).audit;
  } catch (e) {
    return { why: `the policy cannot be loaded: ${describeError(e)}` };
  }
}

/** The team server and token from the policy, or why there is none. */
export function remoteTarget(io: CliIO): RemoteTarget | { why: string } {
  const settings = auditSettingsOf(io);
  if (settings !== undefined && 'why' in settings) return settings;
  if (!settings?.remote) return { why: 'no team server: set audit.remote in the user policy (~/.config/asimov/policy.yaml) or the managed one' };
  const token = resolveTeamToken(settings, io.env);
  if (!token.ok) return { why: token.reason };
  return { server: settings.remote, token: token.token, settings };
}

/** The OpenTelemetry receiver of `audit.otlp`, when one is set (null), or why it cannot be used. */
async function otlpExporterFor(io: CliIO, logPath: string): Promise<OtlpExporter | null | { why: string }> {
  const settings = auditSettingsOf(io);
  if (settings === undefined || 'why' in settings || !settings.otlp) return null;
  const { otlpConfigFromSettings, createOtlpExporter } = await import('../audit/otlp.ts');
  const c = otlpConfigFromSettings(settings.otlp, io.env, settings.source);
  if (!c.ok) return { why: c.reason };
  return createOtlpExporter({ ...c.config, resource: { hostName: hostname(), user: osUserName() ?? 'unknown', version: VERSION, clientId: clientIdOf(logPath) } });
}

export async function auditShipCommand(argv: string[], logPath: string, io: CliIO): Promise<number> {
  const { values } = parseOptions({
    args: argv,
    options: {
      once: { type: 'boolean' },
      follow: { type: 'boolean' },
      'idle-exit': { type: 'string' },
      status: { type: 'boolean' },
      json: { type: 'boolean' },
      log: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(SHIP_HELP);
    return EXIT.ok;
  }
  if (values.once && values.follow) throw new UsageError('give --once or --follow, not both');
  let idleExitMs: number | undefined;
  if (values['idle-exit'] !== undefined) {
    const s = Number(values['idle-exit']);
    if (!Number.isFinite(s) || s <= 0) throw new UsageError(`--idle-exit takes a positive number of seconds, not ${values['idle-exit']}`);
    idleExitMs = s * 1000;
  }
  const target = remoteTarget(io);
  const otlp = values.once || values.follow ? await otlpExporterFor(io, logPath) : null;
  if (otlp !== null && 'why' in otlp) {
    io.err(`asimov audit ship: ${otlp.why}\n`);
    return EXIT.error;
  }
  if ('why' in target && otlp === null) {
    io.err(`asimov audit ship: ${target.why}\n`);
    return EXIT.error;
  }
  const server = 'why' in target ? null : target;
  try {
    if (values.once) {
      let code: number = EXIT.ok;
      if (server) code = await shipOnce(logPath, server, io, values.json === true);
      if (otlp) code = Math.max(code, await exportOnce(logPath, otlp, io));
      return code;
    }
    if (values.follow) return await follow(logPath, server, otlp, io, idleExitMs);
  } finally {
    await otlp?.shutdown().catch(() => {});
  }
  if (!server) {
    io.err(`asimov audit ship: ${(target as { why: string }).why}\n`);
    return EXIT.error;
  }
  return showStatus(logPath, server, io, values.json === true);
}

async function exportOnce(logPath: string, exporter: OtlpExporter, io: CliIO): Promise<number> {
  try {
    const n = await exportBacklog(logPath, exporter);
    io.out(`${exporter.endpoint}: ${n} record${n === 1 ? '' : 's'} exported over OTLP\n`);
    return EXIT.ok;
  } catch (e) {
    io.err(`asimov audit ship: ${describeError(e)}; the rest waits in the log\n`);
    return EXIT.error;
  }
}

async function shipOnce(logPath: string, t: RemoteTarget, io: CliIO, json: boolean): Promise<number> {
  let sent = 0;
  let dups = 0;
  try {
    for (;;) {
      const r = await shipBatch({ logPath, server: t.server, token: t.token });
      sent += r.sent;
      dups += r.duplicates;
      if (r.atEnd) {
        if (json) io.out(`${JSON.stringify({ server: t.server, sent, duplicates: dups, chain: r.chain })}\n`);
        else {
          io.out(`${t.server}: ${sent} line${sent === 1 ? '' : 's'} shipped${dups ? ` (${dups} the server already had)` : ''}; ${r.chain.headSeq} records held for this machine\n`);
          io.out(chainSentence(r.chain.status, r.chain.problem));
        }
        return r.chain.status === 'ok' ? EXIT.ok : EXIT.error;
      }
    }
  } catch (e) {
    io.err(`asimov audit ship: ${e instanceof ShipError ? e.message : describeError(e)}${sent ? ` (${sent} lines shipped before that)` : ''}; the rest waits in the log\n`);
    return EXIT.error;
  }
}

async function follow(logPath: string, t: RemoteTarget | null, otlp: OtlpExporter | null, io: CliIO, idleExitMs: number | undefined): Promise<number> {
  const lock = lockShipper(logPath);
  if ('heldBy' in lock) {
    io.out(`asimov audit ship: a shipper already runs for ${logPath} (pid ${lock.heldBy})\n`);
    return EXIT.ok;
  }
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  let lastError = '';
  let lastOtlpError = '';
  let otlpRetryAt = 0;
  // The OpenTelemetry receiver's pass, beside the server's: its failures pause it alone, and are said once per change.
  const alongside = otlp
    ? async () => {
        if (Date.now() < otlpRetryAt) return;
        try {
          await exportBacklog(logPath, otlp);
          if (lastOtlpError !== '') io.err(`asimov audit ship: OTLP export to ${otlp.endpoint} works again\n`);
          lastOtlpError = '';
        } catch (e) {
          const line = describeError(e);
          if (line !== lastOtlpError) io.err(`asimov audit ship: ${line}\n`);
          lastOtlpError = line;
          otlpRetryAt = Date.now() + 10_000;
        }
      }
    : undefined;
  try {
    if (t) {
      await followAndShip({
        logPath, server: t.server, token: t.token, signal: ac.signal,
        ...(idleExitMs !== undefined ? { idleExitMs } : {}),
        ...(alongside ? { alongside } : {}),
        onStatus: (s) => {
          // Said once per change, so a shipper under a service manager does not fill its log while the server is down.
          const line = s.ok ? (s.chain?.status === 'broken' ? `chain broken: ${s.chain.problem}` : '') : (s.error ?? 'failed');
          if (line !== lastError && line !== '') io.err(`asimov audit ship: ${line}\n`);
          lastError = line;
        },
      });
    } else if (alongside) {
      await followLog(logPath, ac.signal, idleExitMs, alongside);
    }
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    lock.release();
  }
  return EXIT.ok;
}

function showStatus(logPath: string, t: RemoteTarget, io: CliIO, json: boolean): number {
  const s = loadShipStatus(statusPathOf(logPath, serverKey(t.server)));
  const shipped = shippedSoFar(logPath, t.server);
  if (json) {
    io.out(`${JSON.stringify({ server: t.server, log: logPath, clientId: clientIdOf(logPath), shipped, last: s })}\n`);
    return EXIT.ok;
  }
  io.out(`${logPath} ships to ${t.server} as client ${clientIdOf(logPath)}\n`);
  io.out(`${shipped} line${shipped === 1 ? '' : 's'} shipped so far\n`);
  io.out(describeShipStatus(s));
  return EXIT.ok;
}


interface RemoteChain {
  status: 'ok' | 'broken';
  problem: string | null;
  headSeq: number;
  lastContact: string;
  problems: { kind: string; message: string; at: string }[];
}

/**
 * `audit verify --remote`: the local chain, then the server's verdict on what this machine shipped, and a
 * comparison of the two ends. The server saw every record as it arrived, so it sees what a local check cannot:
 * lines cut off the end, and a chain re-sealed after an edit.
 */
export async function verifyRemote(logPath: string, io: CliIO, json: boolean): Promise<number> {
  const target = remoteTarget(io);
  if ('why' in target) {
    io.err(`asimov audit verify --remote: ${target.why}\n`);
    return EXIT.error;
  }
  let local: ReturnType<typeof verifyLog> | { error: string };
  try {
    local = verifyLog(logPath);
  } catch (e) {
    local = { error: describeError(e) };
  }
  const clientId = clientIdOf(logPath);
  let remote = null as RemoteChain | null;
  let remoteError: string | null = null;
  try {
    const res = await fetch(`${target.server}/v1/audit/clients/${clientId}`, { headers: { authorization: `Bearer ${target.token}` }, signal: AbortSignal.timeout(15_000) });
    const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (res.status === 404) remoteError = 'the server holds nothing from this machine yet (nothing shipped)';
    else if (!res.ok) remoteError = `the server answered ${res.status}: ${typeof body?.message === 'string' ? body.message : ''}`;
    else remote = body as unknown as RemoteChain;
  } catch (e) {
    remoteError = `the team server ${target.server} cannot be reached: ${describeError(e)}`;
  }
  const localOk = !('error' in local) && local.ok;
  const remoteOk = remote !== null && remote.status === 'ok';
  if (json) {
    io.out(`${JSON.stringify({ log: logPath, clientId, server: target.server, local, remote, remoteError })}\n`);
  } else {
    if ('error' in local) io.out(`local: ${local.error}\n`);
    else io.out(`local: ${local.lines} lines, ${local.ok ? 'chain intact' : `chain broken at line ${local.firstBroken?.line}: ${local.firstBroken?.message}`}\n`);
    if (remote) {
      io.out(`server ${target.server}: ${remote.headSeq} records from this machine, last contact ${remote.lastContact}\n`);
      io.out(remote.status === 'ok' ? "server: this machine's shipped chain is intact\n" : `server: BROKEN — ${remote.problem}\n`);
      for (const p of remote.problems.slice(0, 10)) io.out(`  ${p.at}  ${p.kind}: ${p.message}\n`);
      const pending = !('error' in local) ? local.lines - shippedSoFar(logPath, target.server) : 0;
      if (pending > 0) io.out(`${pending} line${pending === 1 ? '' : 's'} of the local log not shipped yet\n`);
    } else io.out(`server: ${remoteError}\n`);
  }
  return localOk && remoteOk ? EXIT.ok : EXIT.error;
}
