// `asimov check`: decide one call (exit 0 allow, 2 deny, 3 ask), or a stream of calls with --batch.

import { resolve } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { createGate, type Gate, type GateOptions } from '../gate/gate.ts';
import { createProjectRoots } from '../gate/project-roots.ts';
import { callFromArgs } from './call-args.ts';
import { cwdOption } from './cwd-option.ts';
import { parseOptions } from './args.ts';
import { createDecisionTiming, formatTiming } from './decision-timing.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { styleOf, type Style } from './style.ts';

export const CHECK_HELP = `Usage:
  asimov check [--cwd DIR] [--json] [--no-person] [--audit] -- <shell command>
  asimov check [--cwd DIR] [--json] --tool <Name> --input '<json>'
  asimov check --batch [--cwd DIR] [--no-person]     (JSON lines on stdin, one JSON line out per input)

--batch decides by the static policy alone (Layer 1): neither the judge nor the policy's chains are
consulted. A blank or malformed line gets a deny line of its own, so output line N is input line N.
At the end it says on stderr how long the decisions took: mean, median and p99 per decision.

Exit status: 0 allow, 2 deny, 3 ask (a person must decide), 1 usage or internal error.
--no-person   nobody can answer "ask" here, so soft_deny/unknown become deny
--audit       also record the decision in the audit log
`;

export async function checkCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: 'string' },
      json: { type: 'boolean' },
      tool: { type: 'string' },
      input: { type: 'string' },
      batch: { type: 'boolean' },
      'no-person': { type: 'boolean' },
      audit: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(CHECK_HELP);
    return EXIT.ok;
  }
  const cwd = cwdOption(values.cwd, io.cwd);
  const personAvailable = !values['no-person'];
  const gateOptions: GateOptions = { env: io.env, personAvailable };
  if (!values.audit) gateOptions.audit = false; // a person's own check is not an agent's call
  const gate = io.gateFor?.(gateOptions) ?? createGate(gateOptions);
  if (values.batch) {
    if (positionals.length > 0 || values.tool) throw new UsageError('--batch reads calls from stdin; give no command');
    return runBatch(gate, io, cwd);
  }
  const call = callFromArgs({ tool: values.tool, input: values.input, command: positionals }, cwd);
  const decision = await gate.decide(call);
  if (values.json) io.out(`${JSON.stringify(decisionJson(decision))}\n`);
  else io.out(formatDecision(decision, styleOf(io)));
  return exitFor(decision);
}

export function exitFor(d: Decision): number {
  if (d.layer === 'error' && d.errorCode === 'internal') return EXIT.error;
  return d.verdict === 'allow' ? EXIT.allow : d.verdict === 'deny' ? EXIT.deny : EXIT.ask;
}

export function decisionJson(d: Decision): Record<string, unknown> {
  return {
    verdict: d.verdict,
    tier: d.tier,
    rule: d.rule,
    reason: d.reason,
    layer: d.layer,
    findings: d.findings,
    decision_id: d.decisionId,
    ms: Math.round(d.ms * 1000) / 1000,
    ...(d.errorCode ? { error_code: d.errorCode } : {}),
  };
}

function formatDecision(d: Decision, st: Style): string {
  const head = `${st.bold(st.verdict(d.verdict.toUpperCase()))} (${d.tier}${d.rule ? `, ${d.rule}` : ''})`;
  return `${head}: ${d.reason}\n`;
}

/** One batch input line -> the call it describes, or an error message. */
export function callFromPayload(line: string, defaultCwd: string): ToolCall | string {
  let payload: unknown;
  try {
    payload = JSON.parse(line);
  } catch (e) {
    return `malformed JSON: ${(e as Error).message}`;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'each line must be a JSON object';
  const p = payload as Record<string, unknown>;
  const toolName = p.tool_name;
  if (typeof toolName !== 'string' || toolName === '') return 'missing "tool_name" (a string)';
  const input = p.tool_input ?? {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return '"tool_input" must be a JSON object';
  const cwd = typeof p.cwd === 'string' && p.cwd !== '' ? resolve(defaultCwd, p.cwd) : defaultCwd;
  const norm = normalizeTool(toolName, input as Record<string, unknown>);
  const call: ToolCall = { tool: norm.tool, clientTool: toolName, input: norm.input ?? (input as Record<string, unknown>), cwd, agent: 'batch' };
  if (typeof p.session_id === 'string') call.sessionId = p.session_id;
  if (typeof p.tool_use_id === 'string') call.callId = p.tool_use_id;
  return call;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Said on stderr as a batch starts: its decisions can differ from `asimov check`'s on the same call. */
export const BATCH_NOTE = 'asimov check --batch: Layer 1 only (the static policy): the judge and the policy\'s chains are not consulted; `asimov check` applies them.\n';

async function runBatch(gate: Gate, io: CliIO, cwd: string): Promise<number> {
  io.err(BATCH_NOTE);
  let pending: Buffer[] = [];
  // The answers to one chunk of input go out together, when the chunk is decided: one write instead of one
  // per line, and a caller that writes a line and waits still gets its answer before the next read.
  let answers = '';
  const timing = createDecisionTiming();
  // Each call's project root, found once per directory and re-proven by a stat of each directory walked
  // (gate/project-roots.ts), so a marker made or removed mid-stream counts from the next line.
  const roots = createProjectRoots();
  // Every input line gets exactly one output line, a blank or broken one a deny of its own (fail closed),
  // so a reader can pair output line N with input line N.
  const deny = (reason: string): void => {
    answers += `${JSON.stringify({ verdict: 'deny', tier: 'unknown', rule: null, reason })}\n`;
  };
  const decideLine = (bytes: Buffer): void => {
    let line: string;
    try {
      line = decoder.decode(bytes);
    } catch {
      deny('input line is not valid UTF-8');
      return;
    }
    if (line.trim() === '') {
      deny('bad input line: empty (each line must be a JSON object)');
      return;
    }
    const call = callFromPayload(line, cwd);
    if (typeof call === 'string') {
      deny(`bad input line: ${call}`);
      return;
    }
    if (call.projectRoot === undefined) {
      try {
        call.projectRoot = roots.rootOf(call.cwd);
      } catch {
        // A directory that cannot be searched: the gate walks again itself and reports the failure as a deny.
      }
    }
    const d = gate.decideStatic(call);
    answers += `${JSON.stringify({ verdict: d.verdict, tier: d.tier, rule: d.rule, reason: d.reason })}\n`;
  };
  const handle = (bytes: Buffer): void => {
    const done = timing.begin();
    decideLine(bytes);
    done();
  };
  const flush = (): void => {
    if (answers !== '') io.out(answers);
    answers = '';
  };
  for await (const chunk of io.stdin()) {
    // Nobody reads the decisions any more (`… | head -1`): stop rather than decide the rest of the stream.
    if (io.outState?.() === 'closed') return EXIT.ok;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, start)) {
      pending.push(buf.subarray(start, i));
      handle(pending.length === 1 ? pending[0]! : Buffer.concat(pending));
      pending = [];
      start = i + 1;
    }
    if (start < buf.length) pending.push(buf.subarray(start));
    flush();
  }
  if (pending.length > 0) handle(Buffer.concat(pending));
  flush();
  const summary = timing.summary();
  if (summary !== null) io.err(`asimov check --batch: ${formatTiming(summary)} per decision (reading, deciding and answering each line)\n`);
  return EXIT.ok;
}
