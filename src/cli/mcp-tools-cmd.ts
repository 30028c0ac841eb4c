// `asimov mcp tools`: serves the gated bash, read, write and edit tools over stdio until the client
// hangs up. Nothing but the protocol may reach stdout; problems go to stderr.

import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describeError } from '../core/errors.ts';
import { createToolsServer, type ToolsServer } from '../adapters/mcp/tools-server.ts';
import {
  GATED_TOOLS_DEFAULT_MAX_OUTPUT_BYTES, GATED_TOOLS_DEFAULT_TIMEOUT_MS, GATED_TOOLS_MAX_OUTPUT_BYTES, GATED_TOOLS_MAX_TIMEOUT_MS,
} from '../policy/schema.ts';
import { parseOptions } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { VERSION } from './version.ts';

const USAGE = `Usage: asimov mcp tools [--cwd DIR] [--root DIR]… [--timeout-ms N] [--max-output N]

A stdio MCP server offering bash, read, write and edit. Every call passes asimov's policy first (no person
is on the line: what would be asked is refused); an allowed call then acts with hardening: files only under
the allowed roots and never through a link at the end of a path, commands with a cleared environment in
their own process group, stopped on timeout, with bounded output.

  --cwd DIR         working directory of commands and relative paths, and the first allowed root
                    (default: the current directory)
  --root DIR        another directory the file tools may touch (repeatable; the policy's tools.roots add more)
  --timeout-ms N    longest a command may run, at most ${GATED_TOOLS_MAX_TIMEOUT_MS} (default: the policy's
                    tools.timeoutMs, else ${GATED_TOOLS_DEFAULT_TIMEOUT_MS})
  --max-output N    bytes of a command's output (or of a read) kept, at most ${GATED_TOOLS_MAX_OUTPUT_BYTES} (default:
                    the policy's tools.maxOutputBytes, else ${GATED_TOOLS_DEFAULT_MAX_OUTPUT_BYTES})

Example client entry: { "command": "asimov", "args": ["mcp", "tools", "--cwd", "/path/to/project"] }
`;

function positive(v: string | undefined, flag: string, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0 || n > max) throw new UsageError(`${flag} must be a whole number from 1 to ${max}, not '${v}'`);
  return n;
}

function directory(v: string, base: string, flag: string): string {
  const abs = resolve(base, v);
  if (!statSync(abs, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${flag} ${v}: not a directory`);
  return abs;
}

export async function mcpToolsCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: 'string' },
      root: { type: 'string', multiple: true },
      'timeout-ms': { type: 'string' },
      'max-output': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const cwd = directory(values.cwd ?? io.cwd, io.cwd, '--cwd');
  const roots = (values.root ?? []).map((r) => directory(r, io.cwd, '--root'));
  const timeoutMs = positive(values['timeout-ms'], '--timeout-ms', GATED_TOOLS_MAX_TIMEOUT_MS);
  // The bound keeps a result well under the 10 MB message size at which MCP clients drop the connection.
  const maxOutputBytes = positive(values['max-output'], '--max-output', GATED_TOOLS_MAX_OUTPUT_BYTES);

  let tools: ToolsServer;
  try {
    tools = createToolsServer({
      cwd, roots, env: io.env, version: VERSION,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
    });
  } catch (e) {
    io.err(`asimov mcp tools: ${describeError(e)}\n`);
    return EXIT.usage;
  }

  // Serve until the client hangs up (stdin ends) or the process is told to stop; then stop every command
  // still running, so none outlives the server in its own process group.
  const ended = new Promise<void>((done) => {
    process.stdin.once('end', done);
    process.stdin.once('close', done);
    tools.server.server.onclose = done;
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, done);
  });
  const { bannerFacts, bannerLines, NOBODY_ON_CALL } = await import('./active-banner.ts');
  const facts = bannerFacts(tools.gate, cwd, io.env, { approvals: NOBODY_ON_CALL });
  for (const line of bannerLines(facts)) io.err(`asimov mcp tools: ${line}\n`);
  await tools.server.connect(new StdioServerTransport());
  await ended;
  await tools.close().catch(() => undefined);
  return EXIT.ok;
}
