// GitHub Copilot CLI's hook protocol: the native (camelCase) `preToolUse` event. Verified with the real CLI
// 1.0.102 (test/e2e/copilot-hooks.test.ts, docs/clients.md):
// - payload `{sessionId, timestamp, cwd, toolName, toolArgs}`; toolArgs is the arguments object, except for
//   the freeform apply_patch tool, whose toolArgs is the patch text itself;
// - stdout `{"permissionDecision":"deny","permissionDecisionReason":…}` blocks, and the model reads the
//   reason; "allow" skips Copilot's own approval; "ask" prompts the person in an interactive session and is
//   refused in prompt mode (-p) and autopilot, where nobody can answer, so ask is passed on as ask;
// - exit 2 and exit 1 both block, but the model sees no reason;
// - the tool RUNS when the hook prints something that is not JSON, prints Claude's hookSpecificOutput
//   form, or times out: hence nothing but native JSON here, and the installed command line's watchdog.
// A payload asimov cannot use gets exit 2 (reason on stderr): that blocks whichever event form it came as.

import { isAbsolute } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { type DoctorReply, type DoctorVerdict, type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';
import { reasonText, type OnAllow } from './claude.ts';

export interface CopilotPayload {
  toolName: string;
  toolInput: Record<string, unknown>;
  cwd: string;
  sessionId?: string;
  /** Whether asimov maps this tool name (a Copilot tool, an MCP tool or a known internal one). */
  knownTool: boolean;
  normalizedTool: string;
}

export interface CopilotProtocolOptions {
  onAllow: OnAllow;
  /** Used when the payload has no cwd (Copilot always sends one; hand-made payloads may not). */
  defaultCwd: string;
}

export function copilotProtocol(o: CopilotProtocolOptions): HookProtocol<CopilotPayload> {
  return {
    client: 'copilot',
    parse: (v) => parseCopilotPayload(v, o.defaultCwd),
    toCall: copilotToolCall,
    reply: (p, d) => copilotReply(p, d, o.onAllow),
    block: (reason, p) => (p ? deny(reason) : exit2(reason)),
    doctorPayload: (command, cwd) => ({
      sessionId: 'asimov-doctor', timestamp: 0, cwd, toolName: 'bash', toolArgs: { command, description: 'asimov doctor' },
    }),
    doctorVerdict: copilotDoctorVerdict,
  };
}

/** Copilot: exit 1 and 2 block; on exit 0, top-level `permissionDecision` decides, and output that is not JSON runs the tool. */
export function copilotDoctorVerdict(r: DoctorReply): DoctorVerdict {
  if (r.code === 1 || r.code === 2) return 'deny';
  if (r.code !== 0) return `exit ${r.code}`;
  if (r.stdout.trim() === '') return 'allow';
  let v: unknown;
  try {
    v = JSON.parse(r.stdout);
  } catch {
    return 'output that is not JSON: the tool runs';
  }
  const d = isPlainObject(v) ? v['permissionDecision'] : undefined;
  return d === 'deny' || d === 'ask' ? d : 'allow';
}

export function parseCopilotPayload(v: unknown, defaultCwd: string): CopilotPayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  // The PascalCase `PreToolUse` form carries snake_case fields and expects Claude's reply shape, which the
  // native form would not honour: refuse it rather than answer in a shape that Copilot could ignore.
  if (v['hook_event_name'] !== undefined || v['tool_name'] !== undefined) {
    return 'it is the PascalCase "PreToolUse" form; asimov is installed under the native "preToolUse" event (run `asimov wire copilot`)';
  }
  const toolName = v['toolName'];
  if (typeof toolName !== 'string' || toolName === '') return 'the payload has no "toolName"';
  const toolInput = toolInputOf(v['toolArgs']);
  if (typeof toolInput === 'string') return toolInput;
  const strings: Record<string, string | undefined> = {};
  for (const key of ['cwd', 'sessionId']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    strings[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const cwd = strings['cwd'] ?? defaultCwd;
  if (!isAbsolute(cwd)) return '"cwd" is not an absolute path';
  const norm = normalizeTool(toolName, toolInput);
  const p: CopilotPayload = { toolName, toolInput, cwd, knownTool: norm.known, normalizedTool: norm.tool };
  if (strings['sessionId']) p.sessionId = strings['sessionId'];
  return p;
}

/**
 * toolArgs as an input object. A string is either JSON text of an object (the docs allow for it) or the
 * input of a freeform tool (apply_patch's patch), kept whole under `input`: its file headers are what
 * the file rules check.
 */
function toolInputOf(args: unknown): Record<string, unknown> | string {
  if (args === undefined || args === null) return {};
  if (isPlainObject(args)) return args;
  if (typeof args === 'string') {
    if (/^\s*\{/.test(args)) {
      try {
        const parsed: unknown = JSON.parse(args);
        if (isPlainObject(parsed)) return parsed;
      } catch {
        // not JSON after all: freeform text
      }
    }
    return { input: args };
  }
  return '"toolArgs" is neither an object nor a string';
}

export function copilotToolCall(p: CopilotPayload): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.toolName, input: p.toolInput, cwd: p.cwd, agent: 'copilot' };
  if (p.sessionId) call.sessionId = p.sessionId;
  return call;
}

export function copilotReply(p: CopilotPayload, d: Decision, onAllow: OnAllow): HookReply {
  // A tool asimov does not know (and no rule names) is refused, not asked: a new tool should get a rule once.
  if (!p.knownTool && d.verdict !== 'deny' && d.layer === 'static' && d.tier === 'unknown' && d.rule === null) {
    return deny(`asimov: Copilot's tool \`${p.toolName}\` is unknown to asimov, so it is blocked; add a custom rule for it in .asimov/policy.yaml if it should run.`);
  }
  if (d.verdict === 'deny') return deny(reasonText(d));
  if (d.verdict === 'ask') return json({ permissionDecision: 'ask', permissionDecisionReason: reasonText(d) });
  return onAllow === 'approve' ? json({ permissionDecision: 'allow' }) : { stdout: '', stderr: '', exitCode: 0 };
}

function deny(reason: string): HookReply {
  return json({ permissionDecision: 'deny', permissionDecisionReason: reason });
}

function exit2(reason: string): HookReply {
  return { stdout: '', stderr: `${reason}\n`, exitCode: 2 };
}

function json(value: unknown): HookReply {
  return { stdout: `${JSON.stringify(value)}\n`, stderr: '', exitCode: 0 };
}
