// `asimov audit tail|stats|verify`: read the decision log.

import { resolve } from 'node:path';
import { resolveAuditPath } from '../audit/paths.ts';
import { parseFilter, tailCommand } from '../audit/reader.ts';
import { statsCommand } from '../audit/stats.ts';
import { verifyCommand } from '../audit/verify.ts';
import { parseOptions, unknownName } from './args.ts';
import { styleOf } from './style.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

export const AUDIT_HELP = `Usage:
  asimov audit tail   [-n N] [--json] [filters]   the last N decisions (default 20)
  asimov audit stats  [--json] [filters]          counts by verdict, tier, rule, tool, agent; p50/p95 time
  asimov audit verify [--remote] [--json]         check the hash chain; names the first broken line;
                                                  --remote: also what the team server holds from this machine
  asimov audit ship [--once|--follow|--status]    ship the log to the team server (audit.remote); see --help

Filters: --since 2h|7d|2026-11-01  --until …  --verdict deny,ask  --tier hard_deny  --rule 'git.*'
         --tool shell  --agent claude-code  --session ID
--log FILE reads another log (default: $ASIMOV_AUDIT_LOG, else $XDG_STATE_HOME/asimov/audit.jsonl,
else ~/.local/state/asimov/audit.jsonl). Exit status: 0 ok, 1 error or a broken chain.
`;

const SUBCOMMANDS = ['tail', 'stats', 'verify', 'ship'] as const;

export async function auditCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.out(AUDIT_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName('audit command', sub, SUBCOMMANDS);
  if (sub === 'ship') {
    const { auditShipCommand } = await import('./audit-ship-cmd.ts');
    const logArg = rest.indexOf('--log');
    const path = logArg >= 0 && rest[logArg + 1] !== undefined ? resolve(io.cwd, rest[logArg + 1]!) : resolveAuditPath(io.env);
    if (path === null) {
      io.err('asimov audit ship: auditing is off (ASIMOV_AUDIT_LOG=off): there is no log to ship\n');
      return EXIT.error;
    }
    return auditShipCommand(rest, path, io);
  }
  const { values } = parseOptions({
    args: rest,
    options: {
      n: { type: 'string', short: 'n' },
      json: { type: 'boolean' },
      log: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      verdict: { type: 'string' },
      tier: { type: 'string' },
      rule: { type: 'string' },
      tool: { type: 'string' },
      agent: { type: 'string' },
      session: { type: 'string' },
      remote: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(AUDIT_HELP);
    return EXIT.ok;
  }
  const path = values.log !== undefined ? resolve(io.cwd, values.log) : resolveAuditPath(io.env);
  if (path === null) {
    io.err('asimov audit: auditing is off (ASIMOV_AUDIT_LOG=off); give --log FILE to read a log\n');
    return EXIT.error;
  }
  const filterArgs = Object.fromEntries(
    (['since', 'until', 'verdict', 'tier', 'rule', 'tool', 'agent', 'session'] as const)
      .filter((k) => values[k] !== undefined)
      .map((k) => [k, values[k]]),
  );
  const filter = parseFilter(filterArgs);
  switch (sub) {
    case 'tail': {
      const n = values.n === undefined ? undefined : Number(values.n);
      if (n !== undefined && (!Number.isInteger(n) || n < 0)) throw new UsageError(`-n takes a whole number, not ${values.n}`);
      return tailCommand(path, io.out, { ...(n !== undefined ? { n } : {}), json: values.json === true, filter, err: io.err, paint: styleOf(io).verdict });
    }
    case 'stats':
      return statsCommand(path, io.out, { filter, json: values.json === true, err: io.err });
    case 'verify':
      if (values.remote) return (await import('./audit-ship-cmd.ts')).verifyRemote(path, io, values.json === true);
      return verifyCommand(path, io.out, io.err);
    default:
      throw unknownName('audit command', sub, SUBCOMMANDS);
  }
}
