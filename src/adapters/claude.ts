// Claude Code's hook protocol (notes/claude-code.md): PreToolUse and PermissionRequest payloads in, native
// replies out. Claude Code runs the tool when a hook exits 1, prints unparseable output or is missing, so
// every refusal here is either the event's own JSON deny or, when the event is unknown, exit 2 with the
// reason on stderr, which blocks for every event.

import { isAbsolute } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import { type DoctorReply, type DoctorVerdict, type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';

export const CLAUDE_EVENTS = ['PreToolUse', 'PermissionRequest'] as const;
export type ClaudeEvent = (typeof CLAUDE_EVENTS)[number];

/**
 * What an `allow` becomes. `approve` answers allow, so Claude Code skips its own prompt (what the seeds
 * ask for); `passthrough` says nothing, so Claude Code's normal permission flow decides.
 */
export type OnAllow = 'approve' | 'passthrough';

export interface ClaudePayload {
  event: ClaudeEvent;
  toolName: string;
  toolInput: Record<string, unknown>;
  cwd: string;
  sessionId?: string;
  toolUseId?: string;
  transcriptPath?: string;
  /**
   * What the policy judges: the tool's input, or for `SlashCommand` naming an MCP prompt the prompt request it
   * sends (core/tools.ts claudeMcpRequest). The audit keeps this, with the client's tool name.
   */
  judgedInput?: Record<string, unknown>;
  /** Whether asimov maps this tool name (a Claude Code tool, an MCP tool or a known internal one). */
  knownTool: boolean;
  normalizedTool: string;
}

export interface ClaudeProtocolOptions {
  onAllow: OnAllow;
  /** Used when the payload has no cwd (Claude Code always sends one; hand-made payloads may not). */
  defaultCwd: string;
}

export function claudeProtocol(o: ClaudeProtocolOptions): HookProtocol<ClaudePayload> {
  return {
    client: 'claude',
    parse: (v) => parseClaudePayload(v, o.defaultCwd),
    toCall: claudeToolCall,
    reply: (p, d) => claudeReply(p, d, o.onAllow),
    block: (reason, p) => claudeBlock(reason, p?.event),
    doctorPayload: (command, cwd) => ({
      session_id: 'asimov-doctor', transcript_path: '', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse',
      tool_name: 'Bash', tool_input: { command }, tool_use_id: 'asimov-doctor',
    }),
    doctorVerdict: claudeDoctorVerdict,
  };
}

/**
 * How Claude Code reads a PreToolUse reply: exit 2 blocks, another non-zero exit runs the tool, silence is
 * no opinion (its own permission flow decides), JSON carries the decision.
 */
export function claudeDoctorVerdict(r: DoctorReply): DoctorVerdict {
  if (r.code === 2) return 'deny';
  if (r.code !== 0) return `exit ${r.code}`;
  if (r.stdout.trim() === '') return 'no opinion';
  try {
    return String((JSON.parse(r.stdout) as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput?.permissionDecision);
  } catch {
    return 'unparseable output';
  }
}

export function parseClaudePayload(v: unknown, defaultCwd: string): ClaudePayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  const event = v['hook_event_name'];
  if (typeof event !== 'string') return 'the payload has no "hook_event_name"';
  if (!(CLAUDE_EVENTS as readonly string[]).includes(event)) {
    return `asimov handles ${CLAUDE_EVENTS.join(' and ')}, not "${event.slice(0, 80)}" (check the hooks in Claude Code's settings)`;
  }
  const toolName = v['tool_name'];
  if (typeof toolName !== 'string' || toolName === '') return 'the payload has no "tool_name"';
  const toolInput = v['tool_input'] ?? {};
  if (!isPlainObject(toolInput)) return '"tool_input" is not a JSON object';
  const strings: Record<string, string | undefined> = {};
  for (const key of ['cwd', 'session_id', 'tool_use_id', 'transcript_path']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    strings[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const cwd = strings['cwd'] ?? defaultCwd;
  if (!isAbsolute(cwd)) return `"cwd" is not an absolute path`;
  const norm = normalizeTool(toolName, toolInput);
  const p: ClaudePayload = {
    event: event as ClaudeEvent,
    toolName,
    toolInput,
    judgedInput: norm.input ?? toolInput,
    cwd,
    knownTool: norm.known,
    normalizedTool: norm.tool,
  };
  if (strings['session_id']) p.sessionId = strings['session_id'];
  if (strings['tool_use_id']) p.toolUseId = strings['tool_use_id'];
  if (strings['transcript_path']) p.transcriptPath = strings['transcript_path'];
  return p;
}

export function claudeToolCall(p: ClaudePayload): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.toolName, input: p.judgedInput ?? p.toolInput, cwd: p.cwd, agent: 'claude-code' };
  if (p.sessionId) call.sessionId = p.sessionId;
  if (p.toolUseId) call.callId = p.toolUseId;
  // Read only if the judge is consulted and the policy sends the user's request (sendUserRequest).
  if (p.transcriptPath) call.intentSource = { kind: 'claude-transcript', path: p.transcriptPath };
  return call;
}

/**
 * A tool name Claude Code does not have (and no rule of the policy knows) is refused, not asked: a new or
 * renamed tool should be looked at once and given a rule, not waved through prompt by prompt.
 */
function isUnknownTool(p: ClaudePayload, d: Decision): boolean {
  return !p.knownTool && d.layer === 'static' && d.tier === 'unknown' && d.rule === null;
}

/** The text the model (and the person, in a prompt) reads. */
export function reasonText(d: Decision): string {
  const rule = d.rule ? ` [${d.rule}]` : '';
  return `asimov${rule}: ${d.reason}`;
}

export function claudeReply(p: ClaudePayload, d: Decision, onAllow: OnAllow): HookReply {
  let verdict = d.verdict;
  let reason = reasonText(d);
  if (verdict !== 'deny' && isUnknownTool(p, d)) {
    verdict = 'deny';
    reason = `asimov: Claude Code's tool \`${p.toolName}\` is unknown to asimov, so it is blocked; add a custom rule for it in .asimov/policy.yaml if it should run.`;
  }
  if (p.event === 'PreToolUse') {
    if (verdict === 'allow' && onAllow === 'passthrough') return silent();
    return json({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: verdict, permissionDecisionReason: reason },
    });
  }
  // PermissionRequest fires only when Claude Code is about to ask the person. `ask` leaves that prompt in
  // place (no output); deny refuses with the reason; allow answers for the person only in approve mode.
  if (verdict === 'deny') {
    return json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: reason } } });
  }
  if (verdict === 'allow' && onAllow === 'approve') {
    return json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  }
  return silent();
}

export function claudeBlock(reason: string, event?: ClaudeEvent): HookReply {
  if (event === 'PreToolUse') {
    return json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } });
  }
  if (event === 'PermissionRequest') {
    return json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: reason } } });
  }
  // The event is unknown: exit 2 is the one reply that blocks for every event.
  return { stdout: '', stderr: `${reason}\n`, exitCode: 2 };
}

function json(value: unknown): HookReply {
  return { stdout: `${JSON.stringify(value)}\n`, stderr: '', exitCode: 0 };
}

function silent(): HookReply {
  return { stdout: '', stderr: '', exitCode: 0 };
}
