// Cursor's agent hooks (cursor.com/docs/agent/hooks; DOCS ONLY, no runnable Cursor here). asimov is
// installed for four events, each a JSON payload on stdin with `hook_event_name`, `conversation_id`,
// `generation_id` and `workspace_roots`:
// - beforeShellExecution `{command, cwd}` (cwd may be empty: then the first workspace root);
// - beforeMCPExecution `{tool_name, tool_input, url | command}` (tool_input an object, or JSON text of one;
//   the server's configured name is not sent, so MCP rules see the server as `unnamed`);
// - beforeReadFile `{file_path, content, attachments}` (content is never passed on: it would land in the audit);
// - preToolUse `{tool_name, tool_input, tool_use_id}` for every tool (Shell, Read, Write, StrReplace, Delete,
//   Grep, Glob, LS, Task, MCP:<tool>, …). A shell command is therefore checked twice, once per event; both
//   give the same verdict, so this costs a decision, not a behaviour.
//
// Replies. The permission events answer `{"permission":"allow"|"deny"|"ask","user_message","agent_message"}`;
// beforeReadFile's documented reply fields differ between versions of the docs, so it refuses with exit 2
// (reason on stderr), which the docs say blocks every event. Cursor FAILS OPEN when a hook exits non-zero,
// times out or prints no JSON, unless the entry says `failClosed: true`: `asimov wire cursor` writes that,
// and the installed command line turns asimov's own failures into exit 2 as well.
//
// `ask` goes to Cursor as ask where the docs list it (shell, MCP, preToolUse): Cursor puts the call before
// the person. beforeReadFile has no ask, so a read asimov wants a person for is refused.

import { isAbsolute } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { reasonText } from './claude.ts';
import { type DoctorReply, type DoctorVerdict, type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';

export const CURSOR_EVENTS = ['beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile', 'preToolUse'] as const;
export type CursorEvent = (typeof CURSOR_EVENTS)[number];

/** Cursor does not say which configured server an MCP tool belongs to; this stands in for it. */
export const CURSOR_MCP_SERVER = 'unnamed';

export interface CursorPayload {
  event: CursorEvent;
  /** The tool as Cursor names it (`Shell`, `Read`, the MCP tool's name, preToolUse's tool_name). */
  toolName: string;
  /** The name the policy sees: MCP tools as `mcp__unnamed__<tool>`. */
  clientTool: string;
  toolInput: Record<string, unknown>;
  cwd: string;
  projectRoot?: string;
  sessionId?: string;
  callId?: string;
  knownTool: boolean;
  normalizedTool: string;
}

export function cursorProtocol(o: { defaultCwd: string }): HookProtocol<CursorPayload> {
  return {
    client: 'cursor',
    parse: (v) => parseCursorPayload(v, o.defaultCwd),
    toCall: cursorToolCall,
    reply: cursorReply,
    block: (reason, p) => (p && p.event !== 'beforeReadFile' ? permission('deny', reason) : exit2(reason)),
    doctorPayload: (command, cwd) => ({
      hook_event_name: 'beforeShellExecution', conversation_id: 'asimov-doctor', generation_id: 'asimov-doctor',
      workspace_roots: [cwd], command, cwd,
    }),
    doctorVerdict: cursorDoctorVerdict,
  };
}

/**
 * Cursor: exit 2 blocks; exit 0 answers with `permission`. Any other outcome blocks only because asimov's
 * entries say `failClosed: true`, so it is named rather than counted as either.
 */
export function cursorDoctorVerdict(r: DoctorReply): DoctorVerdict {
  if (r.code === 2) return 'deny';
  if (r.code !== 0) return `exit ${r.code}`;
  try {
    const p = (JSON.parse(r.stdout) as { permission?: unknown } | null)?.permission;
    if (p === 'allow' || p === 'deny' || p === 'ask') return p;
  } catch {
    // falls through
  }
  return 'no permission in the reply';
}

export function parseCursorPayload(v: unknown, defaultCwd: string): CursorPayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  const event = v['hook_event_name'];
  if (typeof event !== 'string') return 'the payload has no "hook_event_name"';
  if (!(CURSOR_EVENTS as readonly string[]).includes(event)) {
    return `asimov handles ${CURSOR_EVENTS.join(', ')}, not "${event.slice(0, 80)}" (check Cursor's hooks.json)`;
  }
  const strings: Record<string, string | undefined> = {};
  for (const key of ['cwd', 'conversation_id', 'generation_id', 'tool_use_id']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    strings[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const roots = v['workspace_roots'];
  if (roots !== undefined && roots !== null && (!Array.isArray(roots) || !roots.every((r) => typeof r === 'string'))) {
    return '"workspace_roots" is not a list of strings';
  }
  const root = Array.isArray(roots) ? (roots as string[]).find((r) => r !== '') : undefined;
  if (root !== undefined && !isAbsolute(root)) return '"workspace_roots" holds a path that is not absolute';
  const cwd = strings['cwd'] ?? root ?? defaultCwd;
  if (!isAbsolute(cwd)) return '"cwd" is not an absolute path';

  let tool: { toolName: string; clientTool: string; toolInput: Record<string, unknown> };
  switch (event as CursorEvent) {
    case 'beforeShellExecution': {
      const command = v['command'];
      if (typeof command !== 'string') return 'the payload has no "command"';
      tool = { toolName: 'Shell', clientTool: 'Shell', toolInput: { command } };
      break;
    }
    case 'beforeReadFile': {
      const file = v['file_path'];
      if (typeof file !== 'string' || file === '') return 'the payload has no "file_path"';
      tool = { toolName: 'Read', clientTool: 'Read', toolInput: { file_path: file } };
      break;
    }
    case 'beforeMCPExecution': {
      const name = v['tool_name'];
      if (typeof name !== 'string' || name === '') return 'the payload has no "tool_name"';
      const input = inputObject(v['tool_input']);
      if (typeof input === 'string') return input;
      tool = { toolName: name, clientTool: mcpName(name), toolInput: input };
      break;
    }
    case 'preToolUse': {
      const name = v['tool_name'];
      if (typeof name !== 'string' || name === '') return 'the payload has no "tool_name"';
      const input = inputObject(v['tool_input']);
      if (typeof input === 'string') return input;
      const mcp = /^MCP:(.+)$/.exec(name);
      tool = { toolName: name, clientTool: mcp ? mcpName(mcp[1]!) : name, toolInput: input };
      break;
    }
  }
  const norm = normalizeTool(tool.clientTool, tool.toolInput);
  const p: CursorPayload = { event: event as CursorEvent, ...tool, cwd, knownTool: norm.known, normalizedTool: norm.tool };
  if (root !== undefined) p.projectRoot = root;
  if (strings['conversation_id']) p.sessionId = strings['conversation_id'];
  const callId = strings['tool_use_id'] ?? strings['generation_id'];
  if (callId) p.callId = callId;
  return p;
}

/** tool_input as an object: absent is empty; JSON text of an object is parsed; anything else is refused. */
function inputObject(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null) return {};
  if (isPlainObject(raw)) return raw;
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // falls through to the refusal
    }
  }
  return '"tool_input" is neither an object nor JSON text of one';
}

function mcpName(tool: string): string {
  return `mcp__${CURSOR_MCP_SERVER}__${tool}`;
}

export function cursorToolCall(p: CursorPayload): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.clientTool, input: p.toolInput, cwd: p.cwd, agent: 'cursor' };
  if (p.projectRoot) call.projectRoot = p.projectRoot;
  if (p.sessionId) call.sessionId = p.sessionId;
  if (p.callId) call.callId = p.callId;
  return call;
}

export function cursorReply(p: CursorPayload, d: Decision): HookReply {
  // A tool asimov does not know (and no rule names) is refused, not asked: a new tool should get a rule once.
  if (!p.knownTool && d.verdict !== 'deny' && d.layer === 'static' && d.tier === 'unknown' && d.rule === null) {
    return refuse(p, `asimov: Cursor's tool \`${p.toolName}\` is unknown to asimov, so it is blocked; add a custom rule for it in .asimov/policy.yaml if it should run.`);
  }
  if (d.verdict === 'allow') return permission('allow');
  if (d.verdict === 'deny') return refuse(p, reasonText(d));
  if (p.event === 'beforeReadFile') {
    return exit2(`${reasonText(d)} (a person must approve this read and Cursor's beforeReadFile hook cannot ask one, so it is blocked)`);
  }
  return permission('ask', reasonText(d));
}

function refuse(p: CursorPayload, reason: string): HookReply {
  return p.event === 'beforeReadFile' ? exit2(reason) : permission('deny', reason);
}

/** Cursor's own reply: allow carries nothing else; deny and ask tell both the person and the model why. */
function permission(verdict: 'allow' | 'deny' | 'ask', reason?: string): HookReply {
  const body = reason === undefined ? { permission: verdict } : { permission: verdict, user_message: reason, agent_message: reason };
  return { stdout: `${JSON.stringify(body)}\n`, stderr: '', exitCode: 0 };
}

function exit2(reason: string): HookReply {
  return { stdout: '', stderr: `${reason}\n`, exitCode: 2 };
}
