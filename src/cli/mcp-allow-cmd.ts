// `asimov mcp allow <server> [TOOL… | --read-only | --all]`: the way out of "asimov has no rule for the tool
// mcp__<server>__<tool>". It writes one custom allow rule per server (policy/mcp-allow.ts) into the user
// policy (or, with --project, the project's), after showing it, and only once the real loader accepted the
// resulting file. Tools a built-in rule already decides are left alone and said so.

import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeError } from '../core/errors.ts';
import { isPlainObject } from '../core/json.ts';
import { createGate, type Gate } from '../gate/gate.ts';
import { runExample } from '../policy/examples.ts';
import { loadPolicy, policyPaths, readPolicyBytes, PROJECT_POLICY } from '../policy/load.ts';
import { checkServerName, checkToolName, mcpAllowRuleId, mergeMcpAllow, toolsOfExistingRule, type AllowScope } from '../policy/mcp-allow.ts';
import { commitPolicyText, customRuleIn, renderCustomItem, upsertCustomRule } from '../policy/policy-edit.ts';
import { toToolCall } from '../adapters/mcp/call-mapping.ts';
import { readClientConfigs, type ServerEntry } from '../adapters/mcp/client-configs.ts';
import { inspectTool, printable, type ToolDef } from '../adapters/mcp/poison.ts';
import { DEFAULT_SCAN_TIMEOUT_MS, listServerTools } from '../adapters/mcp/scan.ts';
import { pickServerEntry } from '../adapters/mcp/server-lookup.ts';
import { parseHeaderOption } from '../adapters/mcp/proxy-args.ts';
import { parseOptions } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { styleOf, table, type Style } from './style.ts';

export const MCP_ALLOW_HELP = `Usage: asimov mcp allow <server> TOOL…         allow these tools of the server
       asimov mcp allow <server> --read-only      the tools whose annotations say readOnlyHint: true
                        [-- <command> [args…] | --url <URL> [--sse] [--header 'K: V']…]
       asimov mcp allow <server> --all            every tool of the server

Through \`asimov mcp proxy\` (and in a hook), a tool of an MCP server that asimov has no rule for is refused:
"asimov has no rule for the tool \`mcp__<server>__<tool>\`". This command writes the rule that lets it
through: one custom rule per server, \`mcp-allow.<server>\` (tier allow, with the examples the policy
loader checks), added to your user policy ($XDG_CONFIG_HOME/asimov/policy.yaml, else
~/.config/asimov/policy.yaml). It shows the rule and the file first, keeps the file's other content and
comments as they are, and writes only once the whole policy loads with it. Running it again adds to the
same rule; a tool it already allows is not added twice.

An allow rule never lifts another rule's verdict: the paths, URLs, commands and secrets in each call are
still judged, and tools whose names say they destroy (delete_*, drop_*…) still need a person. Tools a
built-in rule already decides (get_*, list_*… are allowed; shell tools are judged by their command) are
left out, with the reason.

  --read-only     start the server (as the clients' configurations say, or as given after \`--\` or with
                  --url) and allow the tools it annotates readOnlyHint: true. That hint is the server's
                  own claim, so read the list before relying on it
  --all           one rule for every tool of the server, mcp__<server>__*, tools it adds later included
  --project       write the project's .asimov/policy.yaml instead; a project file loosens only once you
                  run \`asimov trust\` on it
  --dry-run       show what would be added, write nothing
  --timeout-ms N  time the server gets to start and list its tools (default ${DEFAULT_SCAN_TIMEOUT_MS})

<server> is the name in mcp__<server>__<tool>: the client's name for the server, or the proxy's --name.
Exit status: 0 done (or nothing to do), 1 a usage error, a server that could not be listed, or a policy
that would not load.
`;

const HEADER = `# asimov user policy: your own rules, trusted in every project (docs/policy.md).
# \`asimov mcp allow\` adds its rules to \`custom:\` below.
`;

interface Options {
  server: string;
  mode: 'tools' | 'read-only' | 'all';
  tools: string[];
  command?: string[];
  url?: string;
  sse: boolean;
  headers: Record<string, string>;
  dryRun: boolean;
  project: boolean;
  timeoutMs: number;
}

/** One tool's fate: added to the rule, already decided by the policy, or left out and why. */
interface Verdict {
  tool: string;
  fate: 'add' | 'covered' | 'left out';
  why: string;
}

function parse(argv: string[]): Options | 'help' {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? undefined : argv.slice(dash + 1);
  const { values, positionals } = parseOptions({
    args: own,
    allowPositionals: true,
    options: {
      'read-only': { type: 'boolean' },
      all: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      project: { type: 'boolean' },
      url: { type: 'string' },
      sse: { type: 'boolean' },
      header: { type: 'string', multiple: true },
      'timeout-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const [server, ...tools] = positionals;
  if (server === undefined) throw new UsageError('name the server: asimov mcp allow <server> [TOOL… | --read-only | --all]');
  const bad = checkServerName(server);
  if (bad) throw new UsageError(bad);
  for (const t of tools) {
    const why = checkToolName(t);
    if (why) throw new UsageError(why);
  }
  const modes = [tools.length > 0, values['read-only'] === true, values.all === true].filter(Boolean).length;
  if (modes !== 1) throw new UsageError('give exactly one of: tool names, --read-only, --all');
  const mode = tools.length > 0 ? 'tools' : values['read-only'] ? 'read-only' : 'all';
  if ((command !== undefined || values.url !== undefined) && mode !== 'read-only') {
    throw new UsageError('a server command (after --) or --url is only for --read-only, which lists the server\'s tools');
  }
  if (command !== undefined && values.url !== undefined) throw new UsageError('give the server\'s command after -- or its --url, not both');
  if (command !== undefined && command.length === 0) throw new UsageError('-- must be followed by the server\'s command');
  if ((values.sse || values.header) && values.url === undefined) throw new UsageError('--sse and --header go with --url');
  const headers: Record<string, string> = {};
  for (const h of values.header ?? []) {
    const header = parseHeaderOption(h);
    if (!header) throw new UsageError(`--header takes 'Name: value', not '${h}'`);
    headers[header[0]] = header[1];
  }
  let timeoutMs = DEFAULT_SCAN_TIMEOUT_MS;
  if (values['timeout-ms'] !== undefined) {
    timeoutMs = Number(values['timeout-ms']);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout-ms takes a positive whole number, not ${values['timeout-ms']}`);
  }
  return {
    server, mode, tools, sse: values.sse === true, headers, dryRun: values['dry-run'] === true, project: values.project === true, timeoutMs,
    ...(command !== undefined ? { command } : {}), ...(values.url !== undefined ? { url: values.url } : {}),
  };
}

export async function mcpAllowCommand(argv: string[], io: CliIO): Promise<number> {
  const o = parse(argv);
  if (o === 'help') {
    io.out(MCP_ALLOW_HELP);
    return EXIT.ok;
  }
  const style = styleOf(io);
  const fail = (message: string): number => {
    io.err(`asimov mcp allow: ${message}\n`);
    return EXIT.error;
  };
  const home = io.env.HOME || homedir();
  const gate = createGate({ env: io.env, home, audit: false, sessionState: false });
  let projectRoot: string;
  try {
    projectRoot = gate.policyFor(io.cwd).projectRoot;
  } catch (e) {
    return fail(`the policy in effect does not load, so nothing was changed; fix it first: ${describeError(e)}`);
  }
  const file = o.project ? join(projectRoot, PROJECT_POLICY) : policyPaths({ projectRoot, home, env: io.env }).user;

  // What to allow, tool by tool.
  let scope: AllowScope;
  let verdicts: Verdict[] = [];
  if (o.mode === 'all') {
    scope = 'all';
  } else {
    let listed: Array<{ name: string; def?: ToolDef }>;
    if (o.mode === 'tools') {
      listed = o.tools.map((name) => ({ name }));
    } else {
      const got = await readOnlyTools(o, io, home);
      if ('error' in got) return fail(got.error);
      for (const n of got.notes) io.err(`note: ${n}\n`);
      io.out(`${style.bold(o.server)}: ${got.listed} tool${got.listed === 1 ? '' : 's'} listed, ${got.readOnly.length} annotated readOnlyHint: true\n`);
      listed = got.readOnly;
      verdicts = got.leftOut;
    }
    verdicts = [...listed.map((t) => judge(gate, o.server, t.name, t.def, io.cwd)), ...verdicts];
    scope = { tools: verdicts.filter((v) => v.fate === 'add').map((v) => v.tool) };
  }
  if (verdicts.length > 0) io.out(`${table(verdicts.map((v) => [printable(v.tool, 48), fateWord(v.fate, style), v.why]), { indent: '  ' })}\n`);

  // The rule, merged into the one the file may already have.
  let text: string | null;
  try {
    const bytes = readPolicyBytes(file);
    text = bytes === undefined ? null : bytes.toString('utf8');
  } catch (e) {
    return fail(describeError(e));
  }
  const id = mcpAllowRuleId(o.server);
  const existing = text === null ? undefined : customRuleIn(text, id);
  let existingTools: string[] | null = null;
  if (existing !== undefined) {
    const tools = toolsOfExistingRule(o.server, existing);
    if (typeof tools === 'string') {
      return fail(`${file} already has a custom rule ${id} that asimov mcp allow did not write (${tools}); rename or remove it, or add the tools to it by hand`);
    }
    existingTools = tools;
  }
  if (scope !== 'all' && scope.tools.length === 0) {
    io.out('Nothing to add: no tool above needs a rule.\n');
    return EXIT.ok;
  }
  const merged = mergeMcpAllow(o.server, scope, existingTools);
  if (merged.added.length === 0) {
    io.out(`Nothing to add: rule ${id} in ${file} already allows ${scope === 'all' ? 'every tool of the server' : merged.already.join(', ')}.\n`);
    return EXIT.ok;
  }
  if (scope === 'all') {
    io.out(`${style.yellow('warning:')} --all lets every tool of ${o.server} through without a person, including tools it adds later and\n` +
      'tools whose names say nothing about what they do. The arguments of each call (paths, URLs, commands, secrets) are still\n' +
      'judged, tools named as destructive still need a person, and the proxy still hides poisoned or changed definitions.\n');
  }
  let newText: string;
  try {
    newText = upsertCustomRule(text, { ...merged.rule }, HEADER);
  } catch (e) {
    return fail(describeError(e));
  }
  const what = merged.updates ? `Updating rule ${id} (adding ${merged.added.join(', ')})` : `Adding rule ${id}`;
  io.out(`\n${what} ${o.dryRun ? 'would go ' : ''}in ${style.bold(file)}${text === null ? ' (a new file)' : ''}:\n\n${style.cyan(renderCustomItem({ ...merged.rule }).trimEnd())}\n\n`);

  // The whole policy must load with it before anything is written.
  const check = (scratch: string): void => {
    loadPolicy({ cwd: io.cwd, projectRoot, home, env: io.env, exampleRunner: runExample, ...(o.project ? { projectPath: scratch } : { userPath: scratch }) });
  };
  try {
    if (o.dryRun) {
      const dir = mkdtempSync(join(tmpdir(), 'asimov-allow-'));
      try {
        commitPolicyText(join(dir, 'policy.yaml'), newText, check);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } else {
      commitPolicyText(file, newText, check);
    }
  } catch (e) {
    return fail(`the policy would not load with this rule, so nothing was written: ${describeError(e).replace(/\/[^\s:]*\.asimov-new|\/[^\s:]*asimov-allow-[^/\s:]*\/policy\.yaml/g, file)}`);
  }
  if (o.dryRun) {
    io.out('Dry run: the policy loads with it; nothing was written.\n');
    return EXIT.ok;
  }
  io.out(`Wrote ${file}.\n`);
  io.out('It applies from the next call: hooks, the daemon and an `asimov mcp proxy` already running re-read the policy files when they change.\n');
  if (o.project) {
    io.out(`A project policy loosens only once trusted: review ${file}, then run \`asimov trust ${file}\`.\n`);
  }
  return EXIT.ok;
}

function fateWord(fate: Verdict['fate'], style: Style): string {
  return fate === 'add' ? style.green(fate) : fate === 'covered' ? style.dim(fate) : style.yellow(fate);
}

/** What the policy in effect does with a call of the tool today, and so whether a rule would help. */
function judge(gate: Gate, server: string, tool: string, def: ToolDef | undefined, cwd: string): Verdict {
  const call = toToolCall(tool, {}, def, { server, cwd }, 'mcp-allow');
  if (call.tool === 'shell') {
    return { tool, fate: 'left out', why: 'it runs the commands it is given: each call is judged by its command, which an allow rule would not change' };
  }
  const d = gate.decideStatic(call, { personAvailable: true });
  if (d.tier === 'allow') return { tool, fate: 'covered', why: `already allowed${d.rule ? ` by ${d.rule}` : ''}: ${d.reason}` };
  if (d.tier === 'unknown' && d.rule === null) return { tool, fate: 'add', why: 'no rule decides it today' };
  return {
    tool,
    fate: 'left out',
    why: `${d.rule ?? 'the policy'} makes it ${d.tier}: ${d.reason} An allow rule does not lift that (a custom rule with \`overrides\` can; docs/policy.md)`,
  };
}

/** Starts the server and sorts its tools by their readOnlyHint annotation (and poisoning findings). */
async function readOnlyTools(o: Options, io: CliIO, home: string): Promise<{ listed: number; readOnly: Array<{ name: string; def: ToolDef }>; leftOut: Verdict[]; notes: string[] } | { error: string }> {
  let entry: ServerEntry;
  let notes: string[] = [];
  if (o.command !== undefined) {
    entry = { client: 'file', file: '(command line)', name: o.server, scope: 'user', transport: 'stdio', command: o.command[0]!, args: o.command.slice(1), cwd: io.cwd };
  } else if (o.url !== undefined) {
    entry = {
      client: 'file', file: '(command line)', name: o.server, scope: 'user', transport: o.sse ? 'sse' : 'http', url: o.url,
      ...(Object.keys(o.headers).length > 0 ? { headers: o.headers } : {}), ...(o.sse ? {} : { transportGuessed: true }),
    };
  } else {
    const found = readClientConfigs({ home, cwd: io.cwd, env: io.env });
    const pick = pickServerEntry(o.server, found.entries);
    if ('error' in pick) return pick;
    entry = pick.entry;
    notes = pick.notes;
  }
  let tools: ToolDef[];
  try {
    tools = (await listServerTools(entry, o.timeoutMs)).tools;
  } catch (e) {
    return { error: `cannot list the tools of ${o.server}: ${describeError(e)}` };
  }
  const names = tools.map((t) => (typeof t.name === 'string' ? t.name : ''));
  const readOnly: Array<{ name: string; def: ToolDef }> = [];
  const leftOut: Verdict[] = [];
  tools.forEach((def, i) => {
    const name = names[i]!;
    if (checkToolName(name) !== null) return;
    let block: string | null;
    try {
      const f = inspectTool(def, { siblings: names }).find((x) => x.severity === 'block');
      block = f ? `${f.kind}: ${f.detail}` : null;
    } catch (e) {
      block = `it cannot be inspected: ${describeError(e)}`;
    }
    const hint = isPlainObject(def.annotations) ? def.annotations['readOnlyHint'] : undefined;
    if (block !== null) leftOut.push({ tool: name, fate: 'left out', why: `its definition looks poisoned (${printable(block, 200)}); the proxy hides it` });
    else if (hint === true) readOnly.push({ name, def });
    else leftOut.push({ tool: name, fate: 'left out', why: hint === false ? 'annotated readOnlyHint: false' : 'not annotated readOnlyHint: true' });
  });
  return { listed: tools.length, readOnly, leftOut, notes };
}
