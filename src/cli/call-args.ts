// Turns `check`/`explain` arguments into a ToolCall: `-- <shell command>` or `--tool Name --input '<json>'`.

import { normalizeTool } from '../core/tools.ts';
import type { ToolCall } from '../core/types.ts';
import { UsageError } from './io.ts';

export interface CallArgs {
  tool?: string | undefined;
  input?: string | undefined;
  command: string[];
}

/**
 * Kinds of tool whose call means nothing without its arguments (a command, a path, a URL, a pattern): with
 * no --input the policy would judge an empty call, so that is a usage mistake, not a decision.
 */
const NEEDS_INPUT: ReadonlySet<string> = new Set(['shell', 'write', 'edit', 'read', 'fetch', 'search']);

/** The call the arguments describe, in `cwd` (already checked by cwdOption). */
export function callFromArgs(a: CallArgs, cwd: string): ToolCall {
  if (a.tool !== undefined) {
    if (a.command.length > 0) throw new UsageError('give either --tool/--input or a shell command after --, not both');
    if (a.tool === '') throw new UsageError('--tool needs a tool name (Bash, Write, Edit, Read, an mcp__server__tool…)');
    if (a.input === undefined && NEEDS_INPUT.has(normalizeTool(a.tool).tool)) {
      throw new UsageError(`--tool ${a.tool} needs --input '<json>' with its arguments, e.g. --input '${exampleInput(normalizeTool(a.tool).tool)}'`);
    }
    let input: unknown;
    try {
      input = JSON.parse(a.input ?? '{}');
    } catch (e) {
      throw new UsageError(`--input is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new UsageError('--input must be a JSON object');
    const norm = normalizeTool(a.tool, input as Record<string, unknown>);
    return { tool: norm.tool, clientTool: a.tool, input: norm.input ?? (input as Record<string, unknown>), cwd, agent: 'cli' };
  }
  if (a.input !== undefined) throw new UsageError('--input needs --tool');
  if (a.command.length === 0) throw new UsageError('nothing to check: give a shell command after --, or --tool and --input');
  // Several words after -- are joined with spaces, as a shell would join them for `sh -c`.
  return { tool: 'shell', clientTool: 'Bash', input: { command: a.command.join(' ') }, cwd, agent: 'cli' };
}

function exampleInput(kind: string): string {
  switch (kind) {
    case 'shell': return '{"command":"ls"}';
    case 'fetch': return '{"url":"https://example.com"}';
    case 'search': return '{"pattern":"*.ts"}';
    case 'write': return '{"file_path":"notes.txt","content":"hello"}';
    case 'edit': return '{"file_path":"README.md","old_string":"a","new_string":"b"}';
    default: return '{"file_path":"README.md"}';
  }
}
