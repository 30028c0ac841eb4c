// The `asimov` command: reads the subcommand and hands over to its module. Modules load lazily, so
// `asimov check` does not pay for the audit or policy-authoring code.

import { describeError } from '../core/errors.ts';
import { parseError, suggestion } from './args.ts';
import { EXIT, UsageError, processIO, type CliIO } from './io.ts';
import { hookProcessIO } from './fd-io.ts';
import { VERSION } from './version.ts';

export { VERSION };
/** For bin/asimov.cjs, which hands main the standard input its daemon client already read. */
export { processIO, hookProcessIO };

const HELP = `asimov ${VERSION}: a firewall for the tool calls of AI coding agents

Usage: asimov <command> [options]

Start here:  asimov wire claude && asimov doctor claude     (asimov wire --list shows every client)

Deciding:
  check     decide one call, or a stream of calls with --batch  (exit 0 allow, 2 deny, 3 ask)
  explain   show the commands found, the rules that matched and the decision
  judge     eval: run labelled calls through the judge and compare models

Policy:
  init      write a commented starter .asimov/policy.yaml and .asimov/ground-rules.md
  test      run the policy files' tests: sections
  trust     trust the project policy's exact content so it may loosen rules
  rules     list the built-in rules with their ids, tiers and reasons
  policy    show the policy layers in effect, their trust and warnings

Records:
  audit     tail | stats | verify the audit log

A person on call:
  approvals list | approve ID | deny ID: answer the questions asimov serve holds for a person

Clients:
  wire      install asimov in agent clients (claude, gemini, codex… or --all), --list them, --refresh after an upgrade
  hook      answer one hook call of an agent client (installed by wire)
  doctor    check that a client runs asimov before every tool call, and what to fix
  mcp       proxy | tools | scan | pins | allow: the MCP firewall proxy, the gated MCP tools, allowing a server's tools
  daemon    start | stop | status | run: an optional resident process that makes hook and check start fast
  serve     the gate as an HTTP service (decide, execute, proposals), approvals by a person on call, a dashboard
  uninstall take asimov out of every client and scope wire wrote, stop the daemon; --purge: its data too

Run \`asimov <command> --help\` for a command's options. Every command: docs/cli.md in the package
asimov-firewall (https://www.npmjs.com/package/asimov-firewall).
`;

type Command = (argv: string[], io: CliIO) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  check: async () => (await import('./check.ts')).checkCommand,
  explain: async () => (await import('./explain.ts')).explainCommand,
  judge: async () => (await import('./judge-cmd.ts')).judgeCommand,
  init: async () => (await import('./init.ts')).initCommand,
  test: async () => (await import('./test-cmd.ts')).testCommand,
  trust: async () => (await import('./trust.ts')).trustCommand,
  rules: async () => (await import('./rules-cmd.ts')).rulesCommand,
  policy: async () => (await import('./policy-cmd.ts')).policyCommand,
  audit: async () => (await import('./audit-cmd.ts')).auditCommand,
  approvals: async () => (await import('./approvals-cmd.ts')).approvalsCommand,
  wire: async () => (await import('./wire-cmd.ts')).wireCommand,
  hook: async () => (await import('./hook-cmd.ts')).hookCommand,
  doctor: async () => (await import('./doctor-cmd.ts')).doctorCommand,
  mcp: async () => (await import('./mcp-cmd.ts')).mcpCommand,
  daemon: async () => (await import('./daemon-cmd.ts')).daemonCommand,
  uninstall: async () => (await import('./uninstall-cmd.ts')).uninstallCommand,
  serve: async () => (await import('./serve-cmd.ts')).serveCommand,
};

/** A hook replies through file descriptors (src/cli/fd-io.ts); every other command through process streams. */
function defaultIO(argv: readonly string[]): CliIO {
  return argv[0] === 'hook' ? hookProcessIO() : processIO();
}

export async function main(argv: string[], io: CliIO = defaultIO(argv)): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.out(`${VERSION}\n`);
    return EXIT.ok;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.err(`asimov: unknown command '${name}'${suggestion(name, Object.keys(COMMANDS))}. Run 'asimov --help' for the list.\n`);
    return EXIT.usage;
  }
  try {
    const command = await load();
    const code = await command(rest, io);
    return io.outState?.() === 'failed' ? EXIT.error : code;
  } catch (caught) {
    // A command that does not parse through parseOptions (src/cli/args.ts) still gets asimov's wording.
    const e = parseError(caught) ?? caught;
    if (e instanceof UsageError) {
      io.err(`asimov ${name}: ${e.message}\nRun 'asimov ${name} --help' for usage.\n`);
      return EXIT.usage;
    }
    io.err(`asimov ${name}: ${describeError(e)}\n`);
    return EXIT.error;
  }
}
