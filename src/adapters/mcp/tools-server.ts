// `asimov mcp tools`: an MCP server offering bash, read, write and edit to agents whose own tools can be
// switched off. Every call passes the gate first (no person is on an MCP line, so `ask` is a refusal); only
// an `allow` acts, and then through the hardened execution in src/exec: allowed roots and link-safe file
// access, a cleared environment, a process group killed on timeout, bounded output.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import { AsimovError, describeError } from '../../core/errors.ts';
import type { Decision, ToolCall } from '../../core/types.ts';
import type { Gate } from '../../gate/gate.ts';
import { freshGate } from '../../gate/fresh-gate.ts';
import { childEnv } from '../../exec/env.ts';
import { runCommand, type RunResult } from '../../exec/run-command.ts';
import { safeEdit, safeRead, safeWrite, type SafeFsOptions } from '../../exec/safe-fs.ts';
import { canonicalRoots } from '../../exec/safe-path.ts';
import { takeApproval } from '../../gate/hook-approvals.ts';
import type { OwnToolName } from '../../core/tools.ts';
import { toolsSettings, type ToolsSettings } from '../../exec/tools-settings.ts';

export const SERVER_NAME = 'asimov-tools';

export interface ToolsServerOptions {
  /** The working directory of commands and of relative paths; the first allowed root. Absolute. */
  cwd: string;
  /** Further allowed roots given on the command line (on top of the policy's `tools.roots`). */
  roots?: string[];
  /** Command-line limits; each replaces the policy's value when given. */
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** The server's environment: the gate reads it, and commands get an allowlisted part of it. */
  env?: NodeJS.ProcessEnv;
  version?: string;
  /** A gate to use instead of freshGate({ env }) (tests). */
  gate?: Gate;
  /** Test seams of the file access (see safe-fs.ts). */
  fs?: Pick<SafeFsOptions, 'afterCheck' | 'procFd'>;
}

/** What applies to one call: the policy's `tools:` section merged with the command line. */
type Settings = ToolsSettings;

export interface ToolsServer {
  server: McpServer;
  /** The gate its calls pass (the command's start-up banner reads the policy layers from it). */
  gate: Gate;
  /** Stops every command still running (their process groups) and closes the server. */
  close(): Promise<void>;
}

const AGENT = 'mcp-tools';

/** The text the agent reads for a refused call (the same shape as the hooks' reasons). */
function refusal(d: Decision): string {
  const rule = d.rule ? ` [${d.rule}]` : '';
  return `asimov${rule}: ${d.reason}`;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function text(...parts: string[]): CallToolResult {
  return { content: parts.map((t) => ({ type: 'text' as const, text: t })) };
}

export function createToolsServer(o: ToolsServerOptions): ToolsServer {
  const env = o.env ?? process.env;
  // The server lives as long as the client's session: a policy edited, trusted or widened meanwhile applies
  // from the next call.
  const gate = o.gate ?? freshGate({ env });
  const cwd = o.cwd;
  // The command line's roots are checked when the server starts (a typo should stop it, not every call).
  const fixedRoots = canonicalRoots([cwd, ...(o.roots ?? [])], cwd);
  const closing = new AbortController();

  // The policy loaded for this directory; a broken one throws here, but the gate has refused the call by then.
  const settings = (): Settings =>
    toolsSettings(gate.policyFor(cwd).gatedTools, { fixedRoots, base: cwd, timeoutMs: o.timeoutMs, maxOutputBytes: o.maxOutputBytes });

  /** The gate, then the action only on `allow`; every failure on the way is an error result, never an action. */
  const gated = async (
    kind: 'shell' | 'read' | 'write' | 'edit',
    clientTool: OwnToolName,
    input: Record<string, unknown>,
    signal: AbortSignal,
    act: (s: Settings) => Promise<CallToolResult> | CallToolResult,
  ): Promise<CallToolResult> => {
    // The client's own asimov hook may have allowed exactly this call a moment ago (hook-approvals.ts):
    // then it runs without a second decision. Settings first, so a policy broken since then still refuses.
    let current: Settings | undefined;
    try {
      current = settings();
    } catch {
      current = undefined;
    }
    const approved = current?.hookApprovals === true && takeApproval({ tool: clientTool, input, cwd }, { env }) !== null;
    if (!approved) {
      const call: ToolCall = { tool: kind, clientTool, input, cwd, agent: AGENT };
      let decision: Decision;
      try {
        decision = await gate.decide(call, { personAvailable: false, signal });
      } catch (e) {
        return errorResult(`asimov: the call could not be checked, so it is refused: ${describeError(e)}`);
      }
      if (decision.verdict !== 'allow') return errorResult(refusal(decision));
    }
    try {
      return await act(current ?? settings());
    } catch (e) {
      return errorResult(`asimov: ${e instanceof AsimovError ? e.message : describeError(e)}`);
    }
  };

  const fsOptions = (s: Settings): SafeFsOptions => ({ cwd, roots: s.roots, ...o.fs });

  const server = new McpServer(
    { name: SERVER_NAME, version: o.version ?? '0.0.0' },
    {
      instructions:
        `Shell and file tools checked by asimov's policy before they act. A refused call returns an error that says why; ` +
        `do not retry it unchanged. Files can be touched only under ${fixedRoots.join(', ')} (and roots the policy adds); ` +
        `links at the end of a path are never followed.`,
    },
  );

  server.registerTool(
    'bash',
    {
      description:
        `Runs a command with bash -c in ${cwd}, after asimov's policy allowed it. The environment is cleared to a short allowlist ` +
        `(no secrets, no loader variables), stdin is empty, and when the command ends or times out every process it started in its ` +
        `process group is stopped. Output (stdout and stderr together) is cut in the middle when it is too long.`,
      inputSchema: {
        command: z.string().check(z.minLength(1), z.describe('The command line, as you would type it in bash.')),
        timeout_ms: z.optional(z.number().check(z.int(), z.minimum(1), z.describe('Stop the command after this many milliseconds (capped by the server\'s limit).'))),
      },
      annotations: { title: 'bash (gated by asimov)', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    (args, extra) =>
      gated('shell', 'bash', { ...args }, extra.signal, async (s) => {
        const timeoutMs = Math.min(args.timeout_ms ?? s.timeoutMs, s.timeoutMs);
        const r = await runCommand({
          command: args.command,
          cwd,
          env: childEnv(env, s.env),
          timeoutMs,
          maxOutputBytes: s.maxOutputBytes,
          signal: AbortSignal.any([extra.signal, closing.signal]),
        });
        const result = text(r.output === '' ? '(no output)' : r.output, runStatus(r, timeoutMs));
        if (r.timedOut || r.aborted) result.isError = true;
        return result;
      }),
  );

  server.registerTool(
    'read',
    {
      description:
        `Reads a text file under ${cwd} (or another allowed root), after asimov's policy allowed it: lines offset to offset+limit-1 ` +
        `(default: the first 2000). A link at the end of the path is not followed.`,
      inputSchema: {
        path: z.string().check(z.minLength(1), z.describe('The file: absolute, or relative to the working directory.')),
        offset: z.optional(z.number().check(z.int(), z.minimum(1), z.describe('The first line to return, 1-based.'))),
        limit: z.optional(z.number().check(z.int(), z.minimum(1), z.describe('How many lines to return.'))),
      },
      annotations: { title: 'read (gated by asimov)', readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      gated('read', 'read', { ...args }, extra.signal, (s) => {
        const r = safeRead(args.path, { ...fsOptions(s), offset: args.offset, limit: args.limit, maxBytes: s.maxOutputBytes });
        const notes: string[] = [];
        if (r.size === 0) notes.push('The file is empty.');
        else if (r.lastLine < r.firstLine) notes.push(`The file has ${r.totalLines ?? 'fewer'} lines; nothing from line ${r.firstLine} on.`);
        else if (r.cut) notes.push(`Cut at ${s.maxOutputBytes} bytes inside line ${r.lastLine}.`);
        else if (r.more) notes.push(`Lines ${r.firstLine}-${r.lastLine} shown; more follow (offset ${r.lastLine + 1}).`);
        return text(r.text, ...notes);
      }),
  );

  server.registerTool(
    'write',
    {
      description:
        `Creates or replaces a whole file under ${cwd} (or another allowed root), after asimov's policy allowed it. Missing parent ` +
        `directories are created. A link at the end of the path is never written through.`,
      inputSchema: {
        path: z.string().check(z.minLength(1), z.describe('The file: absolute, or relative to the working directory.')),
        content: z.string().check(z.describe('The complete new content of the file.')),
      },
      annotations: { title: 'write (gated by asimov)', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) =>
      gated('write', 'write', { ...args }, extra.signal, (s) => {
        const r = safeWrite(args.path, args.content, fsOptions(s));
        return text(`${r.created ? 'Created' : 'Replaced'} ${r.path} (${r.bytes} bytes).`);
      }),
  );

  server.registerTool(
    'edit',
    {
      description:
        `Replaces old_string with new_string in a text file under ${cwd} (or another allowed root), after asimov's policy allowed it. ` +
        `old_string must occur exactly once (include enough surrounding lines), unless replace_all is true.`,
      inputSchema: {
        path: z.string().check(z.minLength(1), z.describe('The file: absolute, or relative to the working directory.')),
        old_string: z.string().check(z.describe('The exact text to replace, whitespace and indentation included.')),
        new_string: z.string().check(z.describe('The text to put in its place.')),
        replace_all: z.optional(z.boolean().check(z.describe('Replace every occurrence instead of exactly one.'))),
      },
      annotations: { title: 'edit (gated by asimov)', readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    (args, extra) =>
      gated('edit', 'edit', { ...args }, extra.signal, (s) => {
        const r = safeEdit(args.path, { oldString: args.old_string, newString: args.new_string, replaceAll: args.replace_all === true }, fsOptions(s));
        return text(`Replaced ${r.replacements} occurrence${r.replacements === 1 ? '' : 's'} in ${r.path}.`);
      }),
  );

  return {
    server,
    gate,
    close: async () => {
      closing.abort();
      await server.close();
    },
  };
}

/** One line on how the command ended and how much of its output was kept. */
export function runStatus(r: RunResult, timeoutMs: number): string {
  let s: string;
  if (r.timedOut) s = `Timed out after ${timeoutMs} ms; its process group was stopped.`;
  else if (r.aborted) s = 'Cancelled; its process group was stopped.';
  else if (r.exitCode !== null) s = `Exit code ${r.exitCode}.`;
  else s = `Ended by ${r.signal ?? 'a signal'}.`;
  if (r.droppedBytes > 0) {
    s += ` Output: ${r.outputBytes} bytes, of which ${r.droppedBytes} were dropped from the middle (${r.outputBytes - r.droppedBytes} kept, from the start and the end).`;
  }
  return s;
}
