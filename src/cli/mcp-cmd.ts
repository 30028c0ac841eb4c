// `asimov mcp <proxy|tools|scan|pins|allow>`: the MCP side of asimov. Each subcommand lives in its own module and
// loads only when used, so the proxy's start-up does not pay for the scanner or the gated tools.

import { unknownName } from './args.ts';
import { EXIT, type CliIO } from './io.ts';

type Sub = (argv: string[], io: CliIO) => Promise<number>;

const USAGE = `Usage: asimov mcp <command> [options]

  proxy   a stdio MCP server in front of one upstream server: every tools/call passes the gate
            asimov mcp proxy [options] -- <command> [args…]     (an upstream over stdio)
            asimov mcp proxy [options] --url <http(s)://…>     (Streamable HTTP, or SSE with --sse)
  tools   a stdio MCP server offering gated bash, read, write and edit tools
  scan    connect to the MCP servers installed clients know (or given config files) and report
          poisoned tool definitions and changed pins
  pins    list, approve or forget pinned tool definitions
  allow   write the rule that lets a server's tools through the proxy (refused until a rule allows them)
            asimov mcp allow <server> TOOL…  |  --read-only  |  --all

Run \`asimov mcp <command> --help\` for its options.
`;

const SUBS: Record<string, () => Promise<Sub>> = {
  proxy: async () => (await import('./mcp-proxy-cmd.ts')).mcpProxyCommand,
  tools: async () => (await import('./mcp-tools-cmd.ts')).mcpToolsCommand,
  scan: async () => (await import('./mcp-scan-cmd.ts')).mcpScanCommand,
  pins: async () => (await import('./mcp-pins-cmd.ts')).mcpPinsCommand,
  allow: async () => (await import('./mcp-allow-cmd.ts')).mcpAllowCommand,
};

export async function mcpCommand(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    io.out(USAGE);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const load = SUBS[name];
  if (!load) {
    io.err(`asimov mcp: ${unknownName('mcp command', name, Object.keys(SUBS)).message}\n`);
    return EXIT.usage;
  }
  return (await load())(rest, io);
}
