// Gemini CLI's hook protocol (notes/agent-clis.md; checked against @google/gemini-cli 0.61.0): a BeforeTool
// payload in, a native reply out.
//
// How Gemini CLI reads a hook's reply (packages/core hookRunner and hookAggregator):
// - exit 0: stdout is parsed as JSON; `decision` "deny"/"block" blocks, "ask" forces a confirmation,
//   anything else (or nothing) lets the tool run.
// - exit 2: blocks, with stderr as the reason the model reads ("Tool execution blocked: …").
// - any other exit, a timeout or a spawn error is a "non-blocking" failure: the tool RUNS.
// So every refusal here is exit 2 with the reason on stderr, the one reply that blocks however the JSON
// handling changes; the installed command line turns asimov's own failures into exit 2 as well.
//
// `ask` is refused, not asked. Gemini's "ask" sends the call to its confirmation flow, which in headless
// runs (`gemini -p`) has no person behind it, and which, reading Gemini's source, the person's own settings
// ("allow always" policies, YOLO mode) could approve without anyone looking at asimov's reason. A call asimov wants a person
// for is therefore blocked with a reason that says so; a policy rule (or the judge) can allow it.

import { isAbsolute } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { exit2Verdict, type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';
import { reasonText } from './claude.ts';

/** The only event asimov is installed for: it fires before every tool, MCP tools included. */
export const GEMINI_EVENT = 'BeforeTool';

export interface GeminiPayload {
  toolName: string;
  toolInput: Record<string, unknown>;
  cwd: string;
  sessionId?: string;
  /** Whether asimov maps this tool name (a Gemini CLI tool, an MCP tool or a known internal one). */
  knownTool: boolean;
  normalizedTool: string;
}

export interface GeminiProtocolOptions {
  /** Used when the payload has no cwd (Gemini CLI always sends one; hand-made payloads may not). */
  defaultCwd: string;
}

export function geminiProtocol(o: GeminiProtocolOptions): HookProtocol<GeminiPayload> {
  return {
    client: 'gemini',
    parse: (v) => parseGeminiPayload(v, o.defaultCwd),
    toCall: geminiToolCall,
    reply: geminiReply,
    block: (reason) => geminiBlock(reason),
    doctorPayload: (command, cwd) => ({
      session_id: 'asimov-doctor', transcript_path: '', cwd, hook_event_name: GEMINI_EVENT, timestamp: new Date(0).toISOString(),
      tool_name: 'run_shell_command', tool_input: { command, description: 'asimov doctor' },
    }),
    // Exit 0 JSON: `decision` "deny"/"block" stops the tool, "ask" goes to Gemini's confirmation, the rest runs it.
    doctorVerdict: (r) => exit2Verdict(r, (v) => {
      const d = (v as { decision?: unknown } | null)?.decision;
      return d === 'deny' || d === 'block' ? 'deny' : d === 'ask' ? 'ask' : undefined;
    }),
  };
}

export function parseGeminiPayload(v: unknown, defaultCwd: string): GeminiPayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  const event = v['hook_event_name'];
  if (typeof event !== 'string') return 'the payload has no "hook_event_name"';
  if (event !== GEMINI_EVENT) {
    return `asimov handles ${GEMINI_EVENT}, not "${event.slice(0, 80)}" (check the hooks in Gemini CLI's settings.json)`;
  }
  const toolName = v['tool_name'];
  if (typeof toolName !== 'string' || toolName === '') return 'the payload has no "tool_name"';
  const toolInput = v['tool_input'] ?? {};
  if (!isPlainObject(toolInput)) return '"tool_input" is not a JSON object';
  const strings: Record<string, string | undefined> = {};
  for (const key of ['cwd', 'session_id']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    strings[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const cwd = strings['cwd'] ?? defaultCwd;
  if (!isAbsolute(cwd)) return '"cwd" is not an absolute path';
  const norm = normalizeTool(toolName, toolInput);
  const p: GeminiPayload = { toolName, toolInput, cwd, knownTool: norm.known, normalizedTool: norm.tool };
  if (strings['session_id']) p.sessionId = strings['session_id'];
  return p;
}

export function geminiToolCall(p: GeminiPayload): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.toolName, input: p.toolInput, cwd: p.cwd, agent: 'gemini' };
  if (p.sessionId) call.sessionId = p.sessionId;
  return call;
}

/**
 * A tool name Gemini CLI does not have (and no rule of the policy knows) is refused: a new or renamed tool
 * should be looked at once and given a rule, not waved through.
 */
function isUnknownTool(p: GeminiPayload, d: Decision): boolean {
  return !p.knownTool && d.layer === 'static' && d.tier === 'unknown' && d.rule === null;
}

export function geminiReply(p: GeminiPayload, d: Decision): HookReply {
  if (d.verdict === 'allow' && !isUnknownTool(p, d)) {
    // Gemini CLI's own allow: the tool runs, subject to Gemini's own confirmation settings.
    return { stdout: `${JSON.stringify({ decision: 'allow' })}\n`, stderr: '', exitCode: 0 };
  }
  if (isUnknownTool(p, d)) {
    return geminiBlock(`asimov: Gemini CLI's tool \`${p.toolName}\` is unknown to asimov, so it is blocked; add a custom rule for it in .asimov/policy.yaml if it should run.`);
  }
  if (d.verdict === 'ask') {
    return geminiBlock(`${reasonText(d)} (a person must approve this call and Gemini CLI's hook cannot ask one, so it is blocked; allow it with a rule in .asimov/policy.yaml if it is intended)`);
  }
  return geminiBlock(reasonText(d));
}

/** Exit 2 with the reason on stderr and nothing on stdout: Gemini blocks the tool and tells the model why. */
export function geminiBlock(reason: string): HookReply {
  return { stdout: '', stderr: `${reason}\n`, exitCode: 2 };
}
