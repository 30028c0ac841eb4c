// Codex CLI's PreToolUse hook (notes/agent-clis.md; verified with codex 0.169.0). The payload is
// Claude-shaped: `tool_name` is `Bash` (tool_input `{command: "<line>"}`, whatever shell tool the model
// used), `apply_patch` or `mcp__<server>__<tool>`, plus session_id, turn_id, tool_use_id, cwd and a
// nullable transcript_path.
//
// Replies: Codex runs the tool when a hook exits with any code but 0 or 2, prints JSON it does not
// recognise (an unknown field is enough), or answers "ask" or `permissionDecision: "allow"` without an
// updated input. So asimov says nothing at all to allow (exit 0, empty stdout: Codex's own approval flow
// goes on as usual) and refuses with exit 2 and the reason on stderr, the one refusal Codex always honours
// (the reason reaches the model as "Command blocked by PreToolUse hook: <reason>").

import { isAbsolute } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { reasonText } from './claude.ts';
import { exit2Verdict, permissionDecisionOf, type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';

export interface CodexPayload {
  toolName: string;
  toolInput: Record<string, unknown>;
  cwd: string;
  sessionId?: string;
  turnId?: string;
  toolUseId?: string;
  knownTool: boolean;
  normalizedTool: string;
}

export function codexProtocol(o: { defaultCwd: string }): HookProtocol<CodexPayload> {
  return {
    client: 'codex',
    parse: (v) => parseCodexPayload(v, o.defaultCwd),
    toCall: codexToolCall,
    reply: codexReply,
    block: (reason) => codexBlock(reason),
    doctorPayload: (command, cwd) => ({
      session_id: 'asimov-doctor', turn_id: 'asimov-doctor', transcript_path: null, cwd, hook_event_name: 'PreToolUse',
      model: 'asimov-doctor', permission_mode: 'default', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'asimov-doctor',
    }),
    // Exit 0 JSON stops the call only as a deny or a block; anything else Codex does not act on runs the tool.
    doctorVerdict: (r) => exit2Verdict(r, (v) => {
      if (permissionDecisionOf(v) === 'deny' || (v as { decision?: unknown } | null)?.decision === 'block') return 'deny';
      return 'JSON that Codex does not act on: the tool runs';
    }),
  };
}

export function parseCodexPayload(v: unknown, defaultCwd: string): CodexPayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  const event = v['hook_event_name'];
  // asimov installs itself for PreToolUse only; anything else reaching it is a miswired hook.
  if (event !== 'PreToolUse') {
    return typeof event === 'string'
      ? `asimov handles Codex's PreToolUse, not "${event.slice(0, 80)}" (check the hooks in Codex's hooks.json)`
      : 'the payload has no "hook_event_name"';
  }
  const toolName = v['tool_name'];
  if (typeof toolName !== 'string' || toolName === '') return 'the payload has no "tool_name"';
  const toolInput = v['tool_input'] ?? {};
  if (!isPlainObject(toolInput)) return '"tool_input" is not a JSON object';
  const strings: Record<string, string | undefined> = {};
  // transcript_path is null when Codex keeps no rollout file; it is not used (Codex's rollout is not the
  // transcript format the judge's intent reader knows).
  for (const key of ['cwd', 'session_id', 'turn_id', 'tool_use_id', 'transcript_path']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    strings[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const cwd = strings['cwd'] ?? defaultCwd;
  if (!isAbsolute(cwd)) return '"cwd" is not an absolute path';
  const norm = normalizeTool(toolName, toolInput);
  const p: CodexPayload = { toolName, toolInput, cwd, knownTool: norm.known, normalizedTool: norm.tool };
  if (strings['session_id']) p.sessionId = strings['session_id'];
  if (strings['turn_id']) p.turnId = strings['turn_id'];
  if (strings['tool_use_id']) p.toolUseId = strings['tool_use_id'];
  return p;
}

export function codexToolCall(p: CodexPayload): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.toolName, input: p.toolInput, cwd: p.cwd, agent: 'codex' };
  if (p.sessionId) call.sessionId = p.sessionId;
  if (p.toolUseId) call.callId = p.toolUseId;
  return call;
}

export function codexReply(p: CodexPayload, d: Decision): HookReply {
  // A tool name Codex did not have when this was written, and no rule knows: refused, not waved through.
  if (!p.knownTool && d.layer === 'static' && d.tier === 'unknown' && d.rule === null) {
    return codexBlock(`asimov: Codex's tool \`${p.toolName}\` is unknown to asimov, so it is blocked; add a custom rule for it in .asimov/policy.yaml if it should run.`);
  }
  if (d.verdict === 'allow') return { stdout: '', stderr: '', exitCode: 0 };
  // Codex has no way to put a hook's "ask" before a person (it runs the tool), so ask is a refusal that
  // tells the model a person has to decide.
  if (d.verdict === 'ask') return codexBlock(`${reasonText(d)} (this needs a person's approval, which Codex cannot ask for from a hook; the user can run it themselves)`);
  return codexBlock(reasonText(d));
}

export function codexBlock(reason: string): HookReply {
  return { stdout: '', stderr: `${reason}\n`, exitCode: 2 };
}
