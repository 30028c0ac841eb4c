// A request's tool call as the gate takes it: a client's own tool name (`Bash`, `run_shell_command`,
// `mcp__github__create_issue`) is normalized as the hooks do, and the request never chooses its principal.

import { normalizeTool } from '../core/tools.ts';
import type { ToolCall, ToolKind } from '../core/types.ts';
import type { ToolCallBody } from './schemas.ts';

const KINDS: ReadonlySet<string> = new Set<ToolKind>(['shell', 'write', 'edit', 'read', 'fetch', 'search', 'mcp']);

export function toToolCall(body: ToolCallBody, defaultAgent: string): ToolCall {
  let tool = body.tool;
  let input = body.input;
  let clientTool = body.clientTool;
  if (!KINDS.has(tool)) {
    const norm = normalizeTool(tool, input);
    clientTool ??= tool;
    tool = norm.tool;
    input = norm.input ?? input;
  }
  const call: ToolCall = { tool, input, cwd: body.cwd, agent: body.agent ?? defaultAgent };
  if (clientTool !== undefined) call.clientTool = clientTool;
  if (body.projectRoot !== undefined) call.projectRoot = body.projectRoot;
  if (body.sessionId !== undefined) call.sessionId = body.sessionId;
  if (body.callId !== undefined) call.callId = body.callId;
  if (body.intent !== undefined) call.intent = body.intent;
  return call;
}
