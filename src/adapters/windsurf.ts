// Windsurf's Cascade hooks (docs.windsurf.com/windsurf/cascade/hooks; DOCS ONLY, no runnable Windsurf here).
// asimov is installed for the four pre-hooks. Each payload is one envelope, `agent_action_name` (the event),
// `trajectory_id` (the conversation), `execution_id` (this action), `timestamp`, and `tool_info`:
// - pre_run_command `{command_line, cwd}`;
// - pre_write_code `{file_path, edits: [{old_string, new_string}]}` (a new file is an edit from "");
// - pre_read_code `{file_path}`;
// - pre_mcp_tool_use `{mcp_server_name, mcp_tool_name, mcp_tool_arguments}`.
// Only pre_run_command says where it runs; the others are judged from the hook process's cwd, which the
// docs make the workspace root.
//
// Replies. Windsurf reads nothing but the exit code: exit 2 blocks (stderr is the reason shown), every other
// outcome, a crash or a timeout included, lets the action run. So allow is a silent exit 0, every refusal is
// exit 2, and the installed command line turns asimov's own failures into exit 2 as well. Windsurf has no
// way for a hook to ask a person, so a call asimov wants a person for is refused, with a reason that says so.

import { isAbsolute } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { reasonText } from './claude.ts';
import { type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';
import { exit2, silent, unknownToolReason } from './pretool-payload.ts';

export const WINDSURF_EVENTS = ['pre_run_command', 'pre_write_code', 'pre_read_code', 'pre_mcp_tool_use'] as const;
export type WindsurfEvent = (typeof WINDSURF_EVENTS)[number];
const LABEL = 'Windsurf';

export interface WindsurfPayload {
  event: WindsurfEvent;
  /** The name the policy sees: a client tool name asimov maps, or `mcp__<server>__<tool>`. */
  toolName: string;
  toolInput: Record<string, unknown>;
  cwd: string;
  sessionId?: string;
  callId?: string;
  knownTool: boolean;
  normalizedTool: string;
}

export function windsurfProtocol(o: { defaultCwd: string }): HookProtocol<WindsurfPayload> {
  return {
    client: 'windsurf',
    parse: (v) => parseWindsurfPayload(v, o.defaultCwd),
    toCall: windsurfToolCall,
    reply: windsurfReply,
    block: (reason) => exit2(reason),
    doctorPayload: (command, cwd) => ({
      agent_action_name: 'pre_run_command', trajectory_id: 'asimov-doctor', execution_id: 'asimov-doctor',
      timestamp: new Date(0).toISOString(), tool_info: { command_line: command, cwd },
    }),
    // Windsurf reads only the exit code: 2 blocks, everything else lets the action run.
    doctorVerdict: (r) => (r.code === 2 ? 'deny' : r.code === 0 ? 'allow' : `exit ${r.code}: the action runs`),
  };
}

export function parseWindsurfPayload(v: unknown, defaultCwd: string): WindsurfPayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  const event = v['agent_action_name'];
  if (typeof event !== 'string') return 'the payload has no "agent_action_name"';
  if (!(WINDSURF_EVENTS as readonly string[]).includes(event)) {
    return `asimov handles ${WINDSURF_EVENTS.join(', ')}, not "${event.slice(0, 80)}" (check Windsurf's hooks.json)`;
  }
  const ids: Record<string, string | undefined> = {};
  for (const key of ['trajectory_id', 'execution_id']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    ids[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const info = v['tool_info'];
  if (!isPlainObject(info)) return 'the payload has no "tool_info" object';

  let cwd = defaultCwd;
  let tool: { toolName: string; toolInput: Record<string, unknown> };
  switch (event as WindsurfEvent) {
    case 'pre_run_command': {
      const command = info['command_line'];
      if (typeof command !== 'string') return 'tool_info has no "command_line"';
      const c = info['cwd'];
      if (c !== undefined && c !== null && typeof c !== 'string') return 'tool_info "cwd" is not a string';
      if (typeof c === 'string' && c !== '') cwd = c;
      tool = { toolName: 'run_command', toolInput: { command } };
      break;
    }
    case 'pre_write_code': {
      const file = filePath(info);
      if (typeof file !== 'string') return file.error;
      const edits = info['edits'] ?? [];
      if (!Array.isArray(edits) || !edits.every(isPlainObject)) return 'tool_info "edits" is not a list of objects';
      tool = { toolName: 'edit_file', toolInput: { file_path: file, edits } };
      break;
    }
    case 'pre_read_code': {
      const file = filePath(info);
      if (typeof file !== 'string') return file.error;
      tool = { toolName: 'read_file', toolInput: { file_path: file } };
      break;
    }
    case 'pre_mcp_tool_use': {
      const server = info['mcp_server_name'];
      const name = info['mcp_tool_name'];
      if (typeof server !== 'string' || server === '') return 'tool_info has no "mcp_server_name"';
      if (typeof name !== 'string' || name === '') return 'tool_info has no "mcp_tool_name"';
      const args = info['mcp_tool_arguments'] ?? {};
      if (!isPlainObject(args)) return 'tool_info "mcp_tool_arguments" is not a JSON object';
      tool = { toolName: `mcp__${server}__${name}`, toolInput: args };
      break;
    }
  }
  if (!isAbsolute(cwd)) return '"cwd" is not an absolute path';
  const norm = normalizeTool(tool.toolName, tool.toolInput);
  const p: WindsurfPayload = { event: event as WindsurfEvent, ...tool, cwd, knownTool: norm.known, normalizedTool: norm.tool };
  if (ids['trajectory_id']) p.sessionId = ids['trajectory_id'];
  if (ids['execution_id']) p.callId = ids['execution_id'];
  return p;
}

function filePath(info: Record<string, unknown>): string | { error: string } {
  const f = info['file_path'];
  return typeof f === 'string' && f !== '' ? f : { error: 'tool_info has no "file_path"' };
}

export function windsurfToolCall(p: WindsurfPayload): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.toolName, input: p.toolInput, cwd: p.cwd, agent: 'windsurf' };
  if (p.sessionId) call.sessionId = p.sessionId;
  if (p.callId) call.callId = p.callId;
  return call;
}

export function windsurfReply(p: WindsurfPayload, d: Decision): HookReply {
  // Every Windsurf event maps to a known kind; this stays for the day the mapping and Windsurf drift apart.
  if (!p.knownTool && d.layer === 'static' && d.tier === 'unknown' && d.rule === null) return exit2(unknownToolReason(LABEL, p.toolName));
  if (d.verdict === 'allow') return silent();
  if (d.verdict === 'ask') {
    return exit2(`${reasonText(d)} (a person must approve this call and Windsurf's hooks cannot ask one, so it is blocked; allow it with a rule in .asimov/policy.yaml if it is intended)`);
  }
  return exit2(reasonText(d));
}
