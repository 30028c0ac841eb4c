// `asimov mcp pins list|approve|forget`: review and approve the MCP tool definitions the proxy pinned or hid.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { AsimovError, describeError } from '../core/errors.ts';
import { printable } from '../adapters/mcp/poison.ts';
import { shellQuote } from '../core/tools.ts';
import { approvePending, defaultPinsPath, forgetPins, readPins, type PinChange, type PinStore } from '../adapters/mcp/pins.ts';
import { parseOptions } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

export const MCP_PINS_HELP = `Usage:
  asimov mcp pins list [--json]                                    pinned tools, and the definitions hidden for review
  asimov mcp pins approve <serverId> [tool…] [--accept-findings]   approve what the proxy hid (all of the server's
                                                                   changed tools when none is named)
  asimov mcp pins forget <serverId> [tool…]                        forget pins (the next listing pins them again)

The proxy pins each clean tool the first time it sees it. A pinned tool whose definition changes is hidden
and recorded as pending; approve pins exactly the recorded definition, without connecting to the server.
A tool hidden as poisoned is approved only by name, with --accept-findings, after reading its findings.
<serverId> is the upstream's command line or URL as \`list\` and \`asimov mcp scan\` print it.
--pins FILE uses another store (default $XDG_STATE_HOME/asimov/mcp-pins.json, else
~/.local/state/asimov/mcp-pins.json). Exit status: 0 done, 1 error.
`;

export async function mcpPinsCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.out(MCP_PINS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      pins: { type: 'string' },
      'accept-findings': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(MCP_PINS_HELP);
    return EXIT.ok;
  }
  const path = values.pins !== undefined ? resolve(io.cwd, values.pins) : defaultPinsPath(io.env, io.env.HOME || homedir());
  try {
    switch (sub) {
      case 'list': {
        if (positionals.length > 0) throw new UsageError('list takes no arguments');
        const store = readPins(path);
        io.out(values.json ? `${JSON.stringify({ path, ...store }, null, 2)}\n` : formatList(store, path));
        return EXIT.ok;
      }
      case 'approve':
      case 'forget': {
        const [serverId, ...tools] = positionals;
        if (serverId === undefined) throw new UsageError(`${sub} needs a server id (see \`asimov mcp pins list\`)`);
        if (sub === 'forget' && values['accept-findings']) throw new UsageError('--accept-findings goes with approve');
        const changes = sub === 'approve'
          ? approvePending(path, serverId, { tools, acceptFindings: values['accept-findings'] === true })
          : forgetPins(path, serverId, tools);
        io.out(formatChanges(changes));
        return EXIT.ok;
      }
      default:
        throw new UsageError(`unknown pins command '${sub}' (list, approve or forget)`);
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if (e instanceof AsimovError) {
      io.err(`asimov mcp pins: ${describeError(e)}\n`);
      return EXIT.error;
    }
    throw e;
  }
}

function formatChanges(changes: PinChange[]): string {
  const verb = { approved: 'approved', forgot: 'forgot the pin of', 'dropped-pending': 'dropped the pending definition of' } as const;
  return changes.map((c) => `${verb[c.action]} ${printable(c.tool, 80)} on ${printable(c.serverId, 200)}${c.hash ? ` (${c.hash.slice(0, 12)})` : ''}\n`).join('');
}

function formatList(store: PinStore, path: string): string {
  const ids = Object.keys(store.servers).sort();
  if (ids.length === 0) return `No pinned MCP tools (store: ${path}).\n`;
  const lines: string[] = [`Store: ${path}`];
  for (const id of ids) {
    const s = store.servers[id]!;
    lines.push('', printable(id, 300));
    const names = [...new Set([...Object.keys(s.tools), ...Object.keys(s.pending)])].sort();
    const width = Math.min(32, Math.max(...names.map((n) => printable(n, 32).length)));
    for (const name of names) {
      const pin = s.tools[name];
      const pending = s.pending[name];
      const shown = printable(name, 32).padEnd(width);
      if (pin) {
        const how = pin.by === 'first-use' ? 'on first use' : pin.acceptedFindings ? 'by a person, findings accepted' : 'by a person';
        lines.push(`  ${shown}  pinned ${pin.hash.slice(0, 12)}  ${pin.pinnedAt} (${how})`);
      }
      if (pending) {
        lines.push(`  ${pin ? ' '.repeat(width) : shown}  PENDING ${pending.kind === 'changed' ? 'changed definition' : 'poisoned definition'} ${pending.hash.slice(0, 12)}, seen ${pending.seenAt}`);
        for (const f of pending.findings ?? []) lines.push(`      finding: ${printable(f, 300)}`);
        const d = pending.definition;
        if (d && typeof d.description === 'string') lines.push(`      description: ${printable(d.description, 600)}`);
        if (d && d.inputSchema !== undefined) lines.push(`      input schema: ${printable(JSON.stringify(d.inputSchema), 600)}`);
      }
    }
    if (Object.keys(s.pending).length > 0) {
      lines.push(`  review with --json for whole definitions; approve with: asimov mcp pins approve ${shellQuote(id)} [tool…]`);
    }
  }
  return `${lines.join('\n')}\n`;
}
