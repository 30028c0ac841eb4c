// `asimov mcp scan`: report poisoned and changed tool definitions of the MCP servers clients are set up with.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { readClientConfigs, readConfigFiles } from '../adapters/mcp/client-configs.ts';
import { defaultPinsPath } from '../adapters/mcp/pins.ts';
import { DEFAULT_SCAN_TIMEOUT_MS, formatScanText, scanExitCode, scanServers } from '../adapters/mcp/scan.ts';
import { parseOptions } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

export const MCP_SCAN_HELP = `Usage: asimov mcp scan [--json] [--timeout-ms N] [--project] [--pins FILE] [FILE…]

Connects to every MCP server that installed clients are configured with (Claude Code, Claude Desktop,
Cursor, Gemini CLI, Codex, Windsurf, VS Code), or to those in the given config files, lists their tools,
and reports for each tool the poisoning findings and whether its definition is new, pinned, or CHANGED
since it was pinned. A scan never changes pins. Nothing is sent anywhere but to the servers themselves.

  --json          one JSON document instead of text
  --timeout-ms N  time each server gets to start and list its tools (default ${DEFAULT_SCAN_TIMEOUT_MS})
  --project       also start servers from the current project's own files (.mcp.json, .cursor/,
                  .gemini/, .vscode/): off by default, since a cloned repository controls them
  --pins FILE     the pin store to compare with (default $XDG_STATE_HOME/asimov/mcp-pins.json,
                  else ~/.local/state/asimov/mcp-pins.json)

Exit status: 0 nothing found, 2 a tool would be hidden (a block finding or a changed pin),
1 a server could not be scanned or another error.
`;

export async function mcpScanCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      'timeout-ms': { type: 'string' },
      project: { type: 'boolean' },
      pins: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(MCP_SCAN_HELP);
    return EXIT.ok;
  }
  let timeoutMs = DEFAULT_SCAN_TIMEOUT_MS;
  if (values['timeout-ms'] !== undefined) {
    timeoutMs = Number(values['timeout-ms']);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout-ms takes a positive whole number, not ${values['timeout-ms']}`);
  }
  const home = io.env.HOME || homedir();
  const found = positionals.length > 0
    ? readConfigFiles(positionals, { home, cwd: io.cwd, env: io.env })
    : readClientConfigs({ home, cwd: io.cwd, env: io.env });
  const pinsPath = values.pins !== undefined ? resolve(io.cwd, values.pins) : defaultPinsPath(io.env, home);
  const report = await scanServers({ entries: found.entries, notes: found.notes, pinsPath, timeoutMs, includeProject: values.project === true });
  io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatScanText(report));
  return scanExitCode(report);
}
