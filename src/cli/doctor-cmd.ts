// `asimov doctor`: checks that a client really runs asimov before every tool call here, and says what to fix.

import type { AuditSettings } from '../policy/layers.ts';
import { resolveAuditPath } from '../audit/paths.ts';
import { resolveTeamToken } from '../audit/team-token.ts';
import { describeShipStatus, loadShipStatus, serverKey, statusPathOf } from '../audit/ship-state.ts';
import { homedir } from 'node:os';
import { createGate } from '../gate/gate.ts';
import { findProjectRoot } from '../policy/load.ts';
import { describeTeamPolicy } from '../policy/team-cache.ts';
import { findClient, listClients } from '../wire/clients.ts';
import { doctorClaude, type CheckStatus, type DoctorOptions, type DoctorReport } from '../wire/doctor.ts';
import { doctorHookClient } from '../wire/doctor-hooks.ts';
import type { OwnInstall } from '../wire/hook-command.ts';
import { WIRE_TARGETS, type Tier } from '../wire/targets.ts';
import { cwdOption } from './cwd-option.ts';
import { parseOptions } from './args.ts';
import { callPathCheck } from './doctor-call-path.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { styleOf, type Style } from './style.ts';
import { TIER_MEANING, locateAsimovEntry } from './wire-cmd.ts';

const USAGE = `Usage: asimov doctor [CLIENT] [--cwd DIR] [--json]

Checks that a client runs asimov before every tool call in DIR (default: the current directory), and ends
each client with a verdict, PROTECTED or NOT PROTECTED.

CLIENT is one of ${Object.keys(WIRE_TARGETS).join(', ')}. Without one: a section for each
client that \`asimov wire --list\` shows as wired here, then the names of those installed but not wired;
when no client is wired, a section for each installed one (Claude Code when none is installed either).

For each client: that asimov is wired in a config file the client reads here (the files \`wire --list\`
looks at; tier 2 and 3 wirings are listed, not run); that the installed command line runs, through a shell
in DIR with the client's own payload on stdin, and blocks a dangerous call (rm -rf /) while an everyday one
(git status) passes, read the way that client reads a hook's reply; what keeps that client from running an
installed hook, where it can be checked (Claude Code: settings, matchers, disableAllHooks, its timeout;
Gemini CLI: folder trust, hooksConfig; Codex: the hook's trust record; Qwen Code: disableAllHooks; Factory
Droid: a hooks.json without the hook; OpenCode: OPENCODE_PURE); and that the policy loads (with the team
server's policy, when \`audit.remote\` names one: its version and age, or that only local layers apply).

Exit status 0 when every client checked is protected, 1 when not (so, without CLIENT, 1 when no client is
wired). --json prints one report per client checked, one JSON object a line.
`;

const MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗', info: '·' };
const MARK_COLOUR: Record<CheckStatus, keyof Pick<Style, 'green' | 'yellow' | 'red' | 'dim'>> = { ok: 'green', warn: 'yellow', fail: 'red', info: 'dim' };

export async function doctorCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { cwd: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`doctor checks one client at a time (or every one, given none), not '${positionals.join(' ')}'`);
  const named = positionals[0];
  if (named !== undefined && !Object.hasOwn(WIRE_TARGETS, named)) {
    throw new UsageError(`doctor checks ${Object.keys(WIRE_TARGETS).join(', ')}; '${named}' is not one of them`);
  }
  const cwd = cwdOption(values.cwd, io.cwd);
  const home = io.env.HOME || homedir();
  const projectRoot = findProjectRoot(cwd);
  const o: DoctorOptions = {
    home,
    cwd,
    projectRoot,
    env: io.env,
    loadPolicy: () => {
      const p = createGate({ audit: false, env: io.env, home }).policyFor(cwd);
      const files = p.sources.filter((s) => s.layer !== 'builtin').map((s) => `${s.layer} ${s.path}${s.trusted ? '' : ' (untrusted)'}`);
      const team = (p.team ? `\n${describeTeamPolicy(p.team)}` : '') + shippingLine(p.audit, io.env);
      return `${files.length === 0 ? 'built-in rules only' : `built-in + ${files.join(', ')}`}; project root ${p.projectRoot}${p.warnings.length ? `; ${p.warnings.length} warning(s), see \`asimov policy\`` : ''}${team}`;
    },
    tierMeaning: (tier) => TIER_MEANING[tier as Tier] ?? `tier ${tier}`,
    own: ownInstall(),
    callPath: (command) => callPathCheck(command, io.env),
  };

  // Without a client: every wired client; when none is wired, the installed ones (Claude Code when none is),
  // each of which then fails with the way to wire it.
  let clients: string[];
  let unwired: string[] = [];
  if (named !== undefined) clients = [named];
  else {
    const found = listClients({ home, projectRoot, env: io.env }).filter((c) => c.supported && (c.wired || c.detected));
    const wired = found.filter((c) => c.wired).map((c) => c.name);
    unwired = found.filter((c) => !c.wired).map((c) => c.name);
    clients = wired.length > 0 ? wired : unwired.length > 0 ? unwired : ['claude'];
    if (wired.length === 0) unwired = [];
  }

  const reports: DoctorReport[] = [];
  for (const client of clients) reports.push(client === 'claude' ? await doctorClaude(o) : await doctorHookClient(client, o));
  const ok = reports.every((r) => r.protected);

  if (values.json) {
    io.out(reports.map((r) => `${JSON.stringify(r)}\n`).join(''));
    return ok ? EXIT.ok : EXIT.error;
  }
  const st = styleOf(io);
  const sections = reports.map((report) => {
    const label = findClient(report.client)?.label ?? report.client;
    const lines = [`asimov doctor: ${label} in ${cwd}`];
    for (const c of report.checks) {
      lines.push(`  ${st[MARK_COLOUR[c.status]](MARK[c.status])} ${c.title}`);
      if (c.detail) lines.push(...c.detail.split('\n').map((l) => `      ${l}`));
      if (c.fix) lines.push(`      fix: ${c.fix}`);
    }
    lines.push('', st.bold(report.verdict.startsWith('PROTECTED') ? st.green(report.verdict) : st.red(report.verdict)));
    return lines.join('\n');
  });
  if (unwired.length > 0) {
    const names = unwired.map((c) => `${findClient(c)?.label ?? c} (${c})`).join(', ');
    sections.push(`Also installed here, not wired, so not checked: ${names}. \`asimov wire <client>\` wires one.`);
  }
  io.out(`${sections.join('\n\n')}\n`);
  return ok ? EXIT.ok : EXIT.error;
}

/** The node and asimov entry point this process runs with: what `asimov wire` would install from here. */
function ownInstall(): OwnInstall | null {
  const asimovPath = locateAsimovEntry();
  return asimovPath === null ? null : { nodePath: process.execPath, asimovPath };
}

/** Where this machine's records go, and how the last attempt went (`audit.remote`). */
function shippingLine(audit: AuditSettings | undefined, env: NodeJS.ProcessEnv): string {
  if (!audit?.remote) return '';
  let log: string | null;
  try {
    log = resolveAuditPath(env);
  } catch {
    return '';
  }
  if (log === null) return `\naudit.remote is set (${audit.remote}) but auditing is off (ASIMOV_AUDIT_LOG=off): nothing ships`;
  const token = resolveTeamToken(audit, env);
  if (!token.ok) return `\naudit shipping to ${audit.remote}: ${token.reason}`;
  const status = loadShipStatus(statusPathOf(log, serverKey(audit.remote)));
  return `\naudit shipping to ${audit.remote}: ${describeShipStatus(status).trim().replace(/\n/g, '; ')}`;
}
