// OpenCode's guard protocol. OpenCode has no command hooks: it loads JS plugins, and a plugin's
// `tool.execute.before(input, output)` that throws stops the tool call; the error's message is the tool
// result the model reads (verified with OpenCode 1.18.33, test/e2e/opencode-hooks.test.ts). asimov's plugin
// (src/wire/opencode.ts writes it) runs `asimov hook opencode` through the fail-closed command line and sends
// it what OpenCode hands the plugin:
//   {tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: output.args, cwd}
// where cwd is the plugin context's `directory` (the directory OpenCode runs in). 1.18.33 offers bash
// {command, timeout, workdir}, read {filePath, offset, limit}, write {filePath, content}, edit {filePath,
// oldString, newString, replaceAll}, glob and grep {pattern, path, …}, webfetch {url, …}, skill, task and
// todowrite; for GPT models apply_patch replaces edit and write. MCP tools come as `<server>_<tool>` with no
// prefix (`rec_write_note`), so asimov does not recognise them and blocks them until a custom rule names them.
//
// bash's `workdir` is where the command runs: the gate judges a shell call there (core/tools.ts shellWorkdir),
// so `rm -rf notes` with workdir ~ is the removal in ~ that it is, for every client whose shell takes one.
//
// Replies: the plugin lets the call run only on exit 0 and throws (blocks) on anything else, with stderr as
// the error the model reads. So allow is a silent exit 0 and every refusal is exit 2 with the reason on
// stderr. The plugin has no way to ask a person, so ask is refused with a reason that says so.

import { isAbsolute } from 'node:path';
import type { Decision, ToolCall } from '../core/types.ts';
import { normalizeTool } from '../core/tools.ts';
import { reasonText } from './claude.ts';
import { type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';
import { exit2, isUnknownTool, silent, unknownToolReason, type PreToolPayload } from './pretool-payload.ts';

const LABEL = 'OpenCode';

export type OpenCodePayload = PreToolPayload;

export function opencodeProtocol(o: { defaultCwd: string }): HookProtocol<OpenCodePayload> {
  return {
    client: 'opencode',
    parse: (v) => parseOpenCodePayload(v, o.defaultCwd),
    toCall: opencodeToolCall,
    reply: opencodeReply,
    block: (reason) => exit2(reason),
    doctorPayload: (command, cwd) => ({
      tool: 'bash', sessionID: 'asimov-doctor', callID: 'asimov-doctor', args: { command, description: 'asimov doctor' }, cwd,
    }),
    // asimov's plugin lets the call run on exit 0 only and throws (stops it) on anything else.
    doctorVerdict: (r) => (r.code === 0 ? 'allow' : 'deny'),
  };
}

export function parseOpenCodePayload(v: unknown, defaultCwd: string): OpenCodePayload | string {
  if (!isPlainObject(v)) return 'the payload is not a JSON object';
  const tool = v['tool'];
  if (typeof tool !== 'string' || tool === '') return 'the payload has no "tool"';
  const args = v['args'] ?? {};
  if (!isPlainObject(args)) return '"args" is not a JSON object';
  const strings: Record<string, string | undefined> = {};
  for (const key of ['cwd', 'sessionID', 'callID']) {
    const s = v[key];
    if (s !== undefined && s !== null && typeof s !== 'string') return `"${key}" is not a string`;
    strings[key] = typeof s === 'string' && s !== '' ? s : undefined;
  }
  const cwd = strings['cwd'] ?? defaultCwd;
  if (!isAbsolute(cwd)) return '"cwd" is not an absolute path';
  const norm = normalizeTool(tool, args);
  const p: OpenCodePayload = { toolName: tool, toolInput: args, cwd, knownTool: norm.known, normalizedTool: norm.tool };
  if (strings['sessionID']) p.sessionId = strings['sessionID'];
  if (strings['callID']) p.toolUseId = strings['callID'];
  return p;
}

export function opencodeToolCall(p: OpenCodePayload): ToolCall {
  const call: ToolCall = { tool: p.normalizedTool, clientTool: p.toolName, input: p.toolInput, cwd: p.cwd, agent: 'opencode' };
  if (p.sessionId) call.sessionId = p.sessionId;
  if (p.toolUseId) call.callId = p.toolUseId;
  return call;
}

export function opencodeReply(p: OpenCodePayload, d: Decision): HookReply {
  if (isUnknownTool(p, d)) return exit2(unknownToolReason(LABEL, p.toolName));
  if (d.verdict === 'allow') return silent();
  if (d.verdict === 'ask') {
    return exit2(`${reasonText(d)} (a person must approve this call and OpenCode's plugin cannot ask one, so it is blocked; allow it with a rule in .asimov/policy.yaml if it is intended)`);
  }
  return exit2(reasonText(d));
}
