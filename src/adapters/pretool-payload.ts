// The Claude-shaped PreToolUse payload that several clients copied (Qwen Code, Factory Droid, Kimi CLI,
// Goose): `hook_event_name`, `tool_name`, `tool_input`, plus optional `cwd`, `session_id` and `tool_use_id`.
// One strict reader for all of them, so that each client's adapter holds only what differs: its event
// name, its agent name and how it reads a reply.

import { isAbsolute } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';

export interface PreToolPayload {
  toolName: string;
  toolInput: Record<string, unknown>;
  cwd: string;
  sessionId?: string;
  toolUseId?: string;
  /** Whether asimov maps this tool name (a known client tool, an MCP tool or a known internal one). */
  knownTool: boolean;
  normalizedTool: string;
}

export interface PreToolPayloadOptions {
  /** The one event asimov is installed for (`PreToolUse`). */
  event: string;
  /** For messages: "Qwen Code". */
  label: string;
  /** Where the hook is configured, for the message about a miswired event: "~/.qwen/settings.json". */
  configHint: string;
  /** Used when the payload has no cwd. */
  defaultCwd: string;
  /** Whether a payload without `hook_event_name` is accepted (a client that sends none). Default false. */
  eventOptional?: boolean;
}

export function parsePreToolPayload(v: unknown, o: PreToolPayloadOptions): PreToolPayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  const event = v['hook_event_name'];
  if (event === undefined && !o.eventOptional) return 'the payload has no "hook_event_name"';
  if (event !== undefined && event !== o.event) {
    // asimov is installed for one event; anything else reaching it is a miswired hook.
    return typeof event === 'string'
      ? `asimov handles ${o.label}'s ${o.event}, not "${event.slice(0, 80)}" (check the hooks in ${o.configHint})`
      : '"hook_event_name" is not a string';
  }
  const toolName = v['tool_name'];
  if (typeof toolName !== 'string' || toolName === '') return 'the payload has no "tool_name"';
  const toolInput = v['tool_input'] ?? {};
  if (!isPlainObject(toolInput)) return '"tool_input" is not a JSON object';
  const strings: Record<string, string | undefined> = {};
  for (const key of ['cwd', 'session_id', 'tool_use_id']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    strings[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const cwd = strings['cwd'] ?? o.defaultCwd;
  if (!isAbsolute(cwd)) return '"cwd" is not an absolute path';
  const norm = normalizeTool(toolName, toolInput);
  const p: PreToolPayload = { toolName, toolInput, cwd, knownTool: norm.known, normalizedTool: norm.tool };
  if (strings['session_id']) p.sessionId = strings['session_id'];
  if (strings['tool_use_id']) p.toolUseId = strings['tool_use_id'];
  return p;
}

export function preToolCall(p: PreToolPayload, agent: string): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.toolName, input: p.toolInput, cwd: p.cwd, agent };
  if (p.sessionId) call.sessionId = p.sessionId;
  if (p.toolUseId) call.callId = p.toolUseId;
  return call;
}

/**
 * A tool name the client did not have when its adapter was written, and that no rule names: refused rather
 * than waved through, so that a new or renamed tool is looked at once and given a rule.
 */
export function isUnknownTool(p: PreToolPayload, d: Decision): boolean {
  return !p.knownTool && d.layer === 'static' && d.tier === 'unknown' && d.rule === null;
}

export function unknownToolReason(label: string, toolName: string): string {
  return `asimov: ${label}'s tool \`${toolName}\` is unknown to asimov, so it is blocked; add a custom rule for it in .asimov/policy.yaml if it should run.`;
}

/** Exit 2, the reason on stderr, nothing on stdout: the refusal every one of these clients honours. */
export function exit2(reason: string): HookReply {
  return { stdout: '', stderr: `${reason}\n`, exitCode: 2 };
}

/** Exit 0 and nothing said: the client's own approval flow goes on as usual. */
export function silent(): HookReply {
  return { stdout: '', stderr: '', exitCode: 0 };
}
