// Goose's PreToolUse hook (goose's hooks guide, documentation/docs/guides/context-engineering/hooks.md;
// DOCS ONLY, the real CLI is not run here). Goose follows the Open Plugins hooks spec, but its payload is not
// Claude's: `event` (not hook_event_name), `session_id`, `tool_name`, `tool_input`, `working_dir` (not cwd),
// `tool_call_id`, `matcher_context`.
//
// Tool names: Goose's tools are its extensions' (MCP servers') tools, named `<extension>__<tool>`. The built-in
// developer extension's are mapped to asimov's kinds (developer__shell {command}, developer__write {path,
// content}, developer__edit {path, before, after}, developer__text_editor of older versions, developer__tree,
// developer__read_image {source}); every other `<extension>__<tool>` is judged as the MCP call
// `mcp__<extension>__<tool>`, the name asimov's MCP rules know (clientTool says so).
//
// Replies (documented): exit 2 blocks with stderr as the reason; `{"decision":"block"}` on stdout blocks;
// exit 0 with EMPTY stdout allows; anything else is "no decision", which by default lets the tool RUN unless
// the entry has `on_failure: "block"` (asimov's entry does). So allow is a silent exit 0 and every refusal
// is exit 2 with the reason on stderr. Goose's hooks cannot ask a person, so ask is refused with a reason
// that says so.

import { isAbsolute } from 'node:path';
import type { Decision, ToolCall, ToolKind } from '../core/types.ts';
import { normalizeTool } from '../core/tools.ts';
import { reasonText } from './claude.ts';
import { type DoctorReply, type DoctorVerdict, type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';
import { exit2, isUnknownTool, silent, unknownToolReason, type PreToolPayload } from './pretool-payload.ts';

export const GOOSE_EVENT = 'PreToolUse';
const LABEL = 'Goose';

const DEVELOPER_TOOLS: ReadonlyMap<string, ToolKind> = new Map<string, ToolKind>([
  ['developer__shell', 'shell'], ['developer__write', 'write'], ['developer__edit', 'edit'],
  ['developer__text_editor', 'edit'], ['developer__tree', 'search'], ['developer__read_image', 'read'],
]);

export interface GoosePayload extends PreToolPayload {
  /** The name asimov judges the call by: Goose's own, or `mcp__<extension>__<tool>` for an extension tool. */
  judgedName: string;
}

export function gooseProtocol(o: { defaultCwd: string }): HookProtocol<GoosePayload> {
  return {
    client: 'goose',
    parse: (v) => parseGoosePayload(v, o.defaultCwd),
    toCall: gooseToolCall,
    reply: gooseReply,
    block: (reason) => exit2(reason),
    doctorPayload: (command, cwd) => ({
      event: GOOSE_EVENT, session_id: 'asimov-doctor', tool_name: 'developer__shell', tool_input: { command },
      working_dir: cwd, tool_call_id: 'asimov-doctor',
    }),
    doctorVerdict: gooseDoctorVerdict,
  };
}

/**
 * Goose: exit 2 or `{"decision":"block"}` blocks, exit 0 with empty stdout allows; anything else is "no
 * decision", which blocks only because asimov's entry says `on_failure: "block"`, so it is named as such.
 */
export function gooseDoctorVerdict(r: DoctorReply): DoctorVerdict {
  if (r.code === 2) return 'deny';
  if (r.code === 0 && r.stdout.trim() === '') return 'allow';
  try {
    if (r.code === 0 && (JSON.parse(r.stdout) as { decision?: unknown } | null)?.decision === 'block') return 'deny';
  } catch {
    // falls through
  }
  return r.code === 0 ? 'no decision (output Goose does not read)' : `no decision (exit ${r.code})`;
}

export function parseGoosePayload(v: unknown, defaultCwd: string): GoosePayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  const event = v['event'];
  if (event !== GOOSE_EVENT) {
    // asimov is installed for PreToolUse only; anything else reaching it is a miswired hook.
    return typeof event === 'string'
      ? `asimov handles Goose's ${GOOSE_EVENT}, not "${event.slice(0, 80)}" (check asimov's plugin in ~/.agents/plugins/asimov/hooks/hooks.json)`
      : 'the payload has no "event"';
  }
  const toolName = v['tool_name'];
  if (typeof toolName !== 'string' || toolName === '') return 'the payload has no "tool_name"';
  const toolInput = v['tool_input'] ?? {};
  if (!isPlainObject(toolInput)) return '"tool_input" is not a JSON object';
  const strings: Record<string, string | undefined> = {};
  for (const key of ['working_dir', 'session_id', 'tool_call_id']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    strings[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const cwd = strings['working_dir'] ?? defaultCwd;
  if (!isAbsolute(cwd)) return '"working_dir" is not an absolute path';
  const developer = DEVELOPER_TOOLS.get(toolName);
  const ext = /^([^_].*?)__(.+)$/.exec(toolName);
  const judgedName = developer === undefined && ext ? `mcp__${ext[1]}__${ext[2]}` : toolName;
  const norm = developer !== undefined ? { tool: developer, known: true } : normalizeTool(judgedName, toolInput);
  const p: GoosePayload = { toolName, toolInput, cwd, knownTool: norm.known, normalizedTool: norm.tool, judgedName };
  if (strings['session_id']) p.sessionId = strings['session_id'];
  if (strings['tool_call_id']) p.toolUseId = strings['tool_call_id'];
  return p;
}

export function gooseToolCall(p: GoosePayload): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.judgedName, input: p.toolInput, cwd: p.cwd, agent: 'goose' };
  if (p.sessionId) call.sessionId = p.sessionId;
  if (p.toolUseId) call.callId = p.toolUseId;
  return call;
}

export function gooseReply(p: GoosePayload, d: Decision): HookReply {
  if (isUnknownTool(p, d)) return exit2(unknownToolReason(LABEL, p.toolName));
  if (d.verdict === 'allow') return silent();
  if (d.verdict === 'ask') {
    return exit2(`${reasonText(d)} (a person must approve this call and Goose's hooks cannot ask one, so it is blocked; allow it with a rule in .asimov/policy.yaml if it is intended)`);
  }
  return exit2(reasonText(d));
}
