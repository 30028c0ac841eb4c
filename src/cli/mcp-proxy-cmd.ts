// `asimov mcp proxy`: the MCP firewall proxy. A client's configuration changes only in the command that
// starts the server: `asimov mcp proxy -- <the server's command>` (or `--url` for a remote one).

import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AsimovError, describeError } from '../core/errors.ts';
import { deriveServerName } from '../adapters/mcp/call-mapping.ts';
import { runProxy, type ProxyOptions } from '../adapters/mcp/proxy.ts';
import { parseProxyArgs, type ProxyArgs } from '../adapters/mcp/proxy-args.ts';
import { DEFAULT_TIMEOUT_MS, type UpstreamSpec } from '../adapters/mcp/upstream.ts';
import type { JournaledAudit } from '../audit/journal.ts';
import { EXIT, type CliIO } from './io.ts';

const USAGE = `Usage: asimov mcp proxy [options] [--] <command> [args…]      an upstream server over stdio
       asimov mcp proxy [options] --url <URL> [--sse] [--header 'Name: value']…

A stdio MCP server in front of one upstream MCP server. In the client's configuration, put
\`asimov mcp proxy --\` before the server's command (the proxy's options go before it; the \`--\` may
be left out). The client sees the server's own name, tools, resources and prompts. Every tools/call
passes the gate first, with no person to ask: a call the policy does not allow is answered with an error
result naming the rule, and never reaches the server. Tools whose definitions look poisoned or changed
since they were pinned are hidden (\`asimov mcp pins\`), and roots outside the project are not passed
on. Each decision is recorded in the audit log.

Options:
  --name NAME       the server's name in tool names, mcp__NAME__tool, as policy rules see them
                    (default: derived from the command or URL; give the name the client uses)
  --timeout-ms N    how long a request may wait for the upstream (default ${DEFAULT_TIMEOUT_MS}); an upstream
                    that does not answer in time is restarted for the next request
  --cwd DIR         the project directory: calls are judged there and a stdio server runs there
                    (default: the current directory)
  --url URL         an upstream over Streamable HTTP (SSE when the server refuses Streamable HTTP)
  --sse             the upstream at --url speaks the older HTTP+SSE transport
  --header 'K: V'   an HTTP header sent with every request to the upstream (repeatable)
  --passthrough     no firewall: relay every message unchecked and record nothing (said on stderr at
                    start); for measuring the proxy itself or debugging a server, never for protection

GATE_CHECK switches the judge (Layer 2) only, as everywhere: with GATE_CHECK=false the static policy still
decides every call, in microseconds, and a call it would send to the judge is refused.
At start the proxy says on stderr what is active: the policy layers, the judge, approvals and the audit log.
Exit status: 0 when the client closes the connection, 1 on a usage error or when the upstream cannot start.
`;

export async function mcpProxyCommand(argv: string[], io: CliIO): Promise<number> {
  let args: ProxyArgs | 'help';
  try {
    args = parseProxyArgs(argv);
  } catch (e) {
    if (!(e instanceof AsimovError) || e.code !== 'usage') throw e;
    io.err(`asimov mcp proxy: ${e.message}\nRun 'asimov mcp proxy --help' for usage.\n`);
    return EXIT.usage;
  }
  if (args === 'help') {
    io.out(USAGE);
    return EXIT.ok;
  }
  const cwd = resolve(io.cwd, args.cwd ?? '.');
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    io.err(`asimov mcp proxy: --cwd ${cwd} is not a directory\n`);
    return EXIT.usage;
  }
  const env = io.env;
  const spec: UpstreamSpec = args.command
    ? { kind: 'stdio', command: args.command[0]!, args: args.command.slice(1), cwd, env: { ...env } }
    : { kind: 'http', url: args.url!, sse: args.sse, headers: args.headers };
  const server = args.name ?? deriveServerName(args.command ? { command: args.command[0]!, args: args.command.slice(1) } : { url: args.url! });
  const log = (line: string): void => io.err(`asimov mcp proxy: ${line}\n`);

  const options: ProxyOptions = { upstream: spec, timeoutMs: args.timeoutMs, input: io.stdin(), output: io.out, log };
  let audit: JournaledAudit | null = null;
  // --passthrough: a plain relay, said loudly, and none of the gate is even loaded. GATE_CHECK does not get
  // here: it switches the judge, which the gate reads itself.
  if (!args.passthrough) {
    const [{ freshGate }, { createFirewall }, { createToolGuard }, { serverIdFor }, { journaledAudit }, { bannerFacts, bannerLines, NOBODY_ON_CALL }] = await Promise.all([
      import('../gate/fresh-gate.ts'), import('../adapters/mcp/firewall.ts'), import('../adapters/mcp/tool-guard.ts'), import('../adapters/mcp/pins.ts'),
      import('../audit/journal.ts'), import('./active-banner.ts'),
    ]);
    // Each record is journaled before the call may go upstream and sealed into the shared log in batches,
    // while the proxy is idle or every 100 ms (src/audit/journal.ts): the log's cross-process lock stays off
    // every call's path. ASIMOV_DEBUG_AUDIT_SEALS=1 says each batch on stderr (the tests count them).
    const onBatch = env['ASIMOV_DEBUG_AUDIT_SEALS'] === '1' ? (n: number) => log(`sealed ${n} audit record(s) into the log`) : undefined;
    audit = journaledAudit(env, { log, ...(onBatch ? { onBatch } : {}) });
    if (audit) options.idle = audit.setIdle;
    // The proxy lives as long as the client's session: `asimov mcp allow`, `asimov trust` or an edited policy
    // apply from the next call (each call re-signs the policy files by stat: src/gate/fresh-gate.ts).
    const gate = freshGate({ env, audit: audit ?? false });
    const guard = createToolGuard({ serverId: serverIdFor(args.command ? { command: args.command[0]!, args: args.command.slice(1) } : { url: args.url! }), env });
    const sessionId = `mcp-proxy-${process.pid}-${Date.now().toString(36)}`;
    const sink = audit;
    options.firewall = (listTools) => createFirewall({ gate, guard, server, cwd, env, sessionId, listTools, log, audit: sink });
    const facts = bannerFacts(gate, cwd, env, { approvals: NOBODY_ON_CALL });
    for (const line of [`firewall for '${server}' in ${cwd}`, ...bannerLines(facts)]) log(line);
  } else {
    log(`--passthrough: NO FIREWALL for '${server}': every message is relayed unchecked and nothing is recorded`);
  }

  // stdout carries the protocol alone: anything that would print to it goes to stderr instead, and a
  // client that went away (EPIPE) ends the proxy rather than crashing it.
  const restore = redirectConsole();
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // A closed terminal: stop the same orderly way, so journaled audit records reach the log before exit.
  process.once('SIGHUP', onSignal);
  const onStdoutError = (): void => stop.abort();
  process.stdout.on('error', onStdoutError);
  try {
    return await runProxy({ ...options, stop: stop.signal });
  } catch (e) {
    log(`failed: ${describeError(e)}`);
    return EXIT.error;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGHUP', onSignal);
    process.stdout.off('error', onStdoutError);
    audit?.close();
    restore();
  }
}

function redirectConsole(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn };
  console.log = console.info = console.debug = console.warn = (...a: unknown[]) => console.error(...a);
  return () => Object.assign(console, saved);
}
