// `asimov hook <client>`: one hook invocation of an agent client. Reads the payload on stdin, decides, replies
// in the client's native form, and never fails open: errors, bad input and a passed deadline all block.

import { kickShipper } from './ship-kick.ts';
import type { AuditSettings } from '../policy/layers.ts';
import { parseArgs } from 'node:util';
import { DEFAULT_DEADLINE_MS } from '../wire/hook-command.ts';
import { runHook, type HookReply } from '../adapters/hook-runtime.ts';
import { HOOK_PROTOCOLS } from '../adapters/registry.ts';
import { createGate } from '../gate/gate.ts';
import { ownToolOfClientName } from '../core/tools.ts';
import { recordApproval } from '../gate/hook-approvals.ts';
import { runsHeadless } from '../adapters/headless.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

const USAGE = `Usage: asimov hook <client> [--on-allow approve|passthrough] [--deadline-ms N]

Reads one hook payload on stdin and replies as the client expects. Installed by \`asimov wire\`.
Clients: ${Object.keys(HOOK_PROTOCOLS).join(', ')}

  --on-allow approve      an allowed call skips the client's own permission prompt (default)
  --on-allow passthrough  an allowed call is left to the client's normal permission flow
  --deadline-ms N         answer deny if no decision is reached N ms after the process started
                          (default ${DEFAULT_DEADLINE_MS}; the installed command line kills asimov soon after)

Headless runs (claude -p, or ASIMOV_HEADLESS=1) put what would be asked to the policy's person on call
(\`approvals:\`), within the deadline.
`;

const CLIENTS = HOOK_PROTOCOLS;

export async function hookCommand(argv: string[], io: CliIO): Promise<number> {
  // Start of the process, not of this function: node's own start-up counts against the client's patience.
  const started = io.started ?? Math.floor(Date.now() - process.uptime() * 1000);
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'on-allow': { type: 'string' },
      'deadline-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  const client = positionals[0];
  const make = client !== undefined ? CLIENTS[client] : undefined;
  if (!make || positionals.length !== 1) {
    // A hook line naming no known client must still block, whatever client runs it: exit 2, reason on stderr.
    io.err(`asimov hook: ${client === undefined ? 'no client given' : `unknown client '${client}'`} (known: ${Object.keys(CLIENTS).join(', ')}), so the call is blocked.\n`);
    return EXIT.deny;
  }
  const onAllow = values['on-allow'] ?? 'approve';
  if (onAllow !== 'approve' && onAllow !== 'passthrough') throw new UsageError(`--on-allow must be approve or passthrough, not '${onAllow}'`);
  const deadlineMs = values['deadline-ms'] === undefined ? DEFAULT_DEADLINE_MS : Number(values['deadline-ms']);
  if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) throw new UsageError(`--deadline-ms must be a positive number of milliseconds`);

  const gate = io.gateFor?.({ env: io.env }) ?? createGate({ env: io.env });
  const headless = runsHeadless(client!, io.env);
  const reply: HookReply = await runHook({
    protocol: make({ onAllow, cwd: io.cwd }),
    stdin: io.stdin,
    deadline: started + deadlineMs,
    decide: async (call, opts) => {
      // Headless, a question goes to the person on call when the policy names one (`approvals:`); without
      // one the client's own handling of `ask` stays as it was.
      const personAvailable = !(headless && hasApprovals(gate, call.cwd));
      const decision = await gate.decide(call, { personAvailable, deadline: opts.deadline, signal: opts.signal });
      // A call to asimov's own MCP tools that this hook allowed need not be decided again by them.
      const own = ownToolOfClientName(call.clientTool);
      if (own && decision.verdict === 'allow') recordApproval({ tool: own, input: call.input, cwd: call.cwd }, decision, { env: io.env });
      return decision;
    },
  });
  if (reply.stdout) io.out(reply.stdout);
  if (reply.stderr) io.err(reply.stderr);
  // After the answer: a background shipper for the team's audit trail, when one is configured and none runs.
  kickShipper(auditSettings(gate, io.cwd), io.env);
  return reply.exitCode;
}

function auditSettings(gate: { policyFor(cwd: string): { audit?: AuditSettings } }, cwd: string): AuditSettings | undefined {
  try {
    return gate.policyFor(cwd).audit;
  } catch {
    return undefined;
  }
}

/** Whether the policy for this directory routes questions to a person on call; a policy that fails to load decides nothing here (the gate refuses the call itself). */
function hasApprovals(gate: { policyFor(cwd: string): { approvals?: unknown } }, cwd: string): boolean {
  try {
    return gate.policyFor(cwd).approvals !== undefined;
  } catch {
    return false;
  }
}
