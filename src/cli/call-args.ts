// Turns `check`/`explain` arguments into a ToolCall: `-- <shell command>` or `--tool Name --input '<json>'`.

import { resolve } from 'node:path';
import { normalizeTool } from '../core/tools.ts';
import type { ToolCall } from '../core/types.ts';
import { UsageError } from './io.ts';

export interface CallArgs {
  tool?: string | undefined;
  input?: string | undefined;
  cwd?: string | undefined;
  command: string[];
}

export function callFromArgs(a: CallArgs, defaultCwd: string): ToolCall {
  const cwd = resolve(defaultCwd, a.cwd ?? '.');
  if (a.tool !== undefined) {
    if (a.command.length > 0) throw new UsageError('give either --tool/--input or a shell command after --, not both');
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
