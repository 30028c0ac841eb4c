// Factory Droid's PreToolUse hook (notes/agent-clis.md, checked with droid 0.225; Factory's hooks
// reference). The payload is Claude Code's, with Droid's tool names: `Execute` (shell, `tool_input.command`),
// `Create`, `Edit`, `ApplyPatch`, `Read`, `LS`, `Grep`, `Glob`, MCP tools, plus `session_id`, `cwd`,
// `transcript_path`, `permission_mode`.
//
// Replies follow Claude Code's contract, which Droid copies: exit 2 blocks with stderr as the reason the
// model reads; exit 0 with `hookSpecificOutput.permissionDecision` decides; any other exit is a
// non-blocking error and the tool RUNS. So every refusal is exit 2 with the reason on stderr (the one reply
// seen to block), and the installed command line turns asimov's own failures into exit 2 as well.
// `ask` is refused too: whether Droid puts a hook's "ask" before a person in every autonomy level (and
// in `droid exec`, where nobody is there) is not established, and a refusal cannot fail open.

import type { Decision } from '../core/types.ts';
import { reasonText, type OnAllow } from './claude.ts';
import { exit2Verdict, permissionDecisionOf, type HookProtocol, type HookReply } from './hook-runtime.ts';
import {
  exit2, isUnknownTool, parsePreToolPayload, preToolCall, silent, unknownToolReason, type PreToolPayload,
} from './pretool-payload.ts';

export const DROID_EVENT = 'PreToolUse';
const LABEL = 'Factory Droid';

export type DroidPayload = PreToolPayload;

export function droidProtocol(o: { onAllow: OnAllow; defaultCwd: string }): HookProtocol<DroidPayload> {
  return {
    client: 'droid',
    parse: (v) => parsePreToolPayload(v, { event: DROID_EVENT, label: LABEL, configHint: '~/.factory/settings.json', defaultCwd: o.defaultCwd }),
    toCall: (p) => preToolCall(p, 'droid'),
    reply: (p, d) => droidReply(p, d, o.onAllow),
    block: (reason) => exit2(reason),
    doctorPayload: (command, cwd) => ({
      session_id: 'asimov-doctor', transcript_path: '', cwd, permission_mode: 'default', hook_event_name: DROID_EVENT,
      tool_name: 'Execute', tool_input: { command },
    }),
    doctorVerdict: (r) => exit2Verdict(r, permissionDecisionOf),
  };
}

export function droidReply(p: DroidPayload, d: Decision, onAllow: OnAllow): HookReply {
  if (isUnknownTool(p, d)) return exit2(unknownToolReason(LABEL, p.toolName));
  if (d.verdict === 'allow') {
    if (onAllow === 'passthrough') return silent();
    const out = { hookSpecificOutput: { hookEventName: DROID_EVENT, permissionDecision: 'allow', permissionDecisionReason: reasonText(d) } };
    return { stdout: `${JSON.stringify(out)}\n`, stderr: '', exitCode: 0 };
  }
  if (d.verdict === 'ask') {
    return exit2(`${reasonText(d)} (a person must approve this call, and asimov does not rely on Droid's hook to ask one, so it is blocked; allow it with a rule in .asimov/policy.yaml if it is intended)`);
  }
  return exit2(reasonText(d));
}
