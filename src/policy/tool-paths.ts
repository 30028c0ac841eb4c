// How a tool call's path arguments are read. A client's own file tools (Write, Edit, Read and their
// equivalents) take a path as written: no glob and no variable is expanded (`app/[id]/page.tsx`, Remix's
// `routes/$noteId.tsx` name those very files), and every rule must read such a path the same way, or one rule's
// "a project file" is another's "unknown" and the second looks away (a workflow named `$ci.yml` is a workflow).
// An MCP server's path argument may be anything the server makes of it: read as the shell would.

import type { ToolCall } from '../core/types.ts';
import type { PathInfo } from './paths.ts';
import type { RuleContext } from './rule.ts';

/** Whether this call's path arguments are literal: a client's file tool, not an MCP server's. */
export function literalToolPaths(call: Pick<ToolCall, 'tool'>): boolean {
  return call.tool === 'write' || call.tool === 'edit' || call.tool === 'read';
}

/** A path argument of `call`, classified as the tool reads it. */
export function toolPath(call: Pick<ToolCall, 'tool'>, ctx: RuleContext, p: string): PathInfo {
  return ctx.path(p, literalToolPaths(call));
}
