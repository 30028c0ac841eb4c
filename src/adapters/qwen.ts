// Qwen Code's PreToolUse hook (notes/agent-clis.md; Qwen Code's hooks documentation, docs/users/features/
// hooks.md, and its hook runner; NOT run against the real CLI here: it needs Node 22, this repository runs
// on Node 20). The payload is Claude-shaped: `tool_name` is Qwen's tool id (`run_shell_command`,
// `write_file`, `edit`, `read_file`, `grep_search`, `glob`, `list_directory`, `web_fetch`, MCP tools…),
// `tool_input`, `tool_use_id`, `session_id`, `cwd`, `transcript_path`, `permission_mode`.
//
// How Qwen Code reads a command hook's reply (documented):
// - exit 0: stdout is parsed as JSON; `hookSpecificOutput.permissionDecision` "deny" blocks, "allow" skips
//   Qwen's own approval prompt, "ask" prompts the person (and is a deny in headless runs);
// - exit 2: blocks, and stderr is what the model reads;
// - any other exit ("non-blocking error") and, by the same rule, a crash or a timeout: the tool RUNS.
// So every refusal here is exit 2 with the reason on stderr, the one reply that blocks whatever Qwen does
// with JSON, and the installed command line turns asimov's own failures into exit 2 as well.
//
// `ask` is refused, not asked: Qwen's documentation says its "ask" prompts in the TUI, but that has not been
// checked against the real CLI (in particular in YOLO mode, which skips Qwen's prompts), and a refusal
// cannot fail open. A call asimov wants a person for is blocked with a reason that says so.

import type { Decision } from '../core/types.ts';
import { reasonText, type OnAllow } from './claude.ts';
import { exit2Verdict, permissionDecisionOf, type HookProtocol, type HookReply } from './hook-runtime.ts';
import {
  exit2, isUnknownTool, parsePreToolPayload, preToolCall, silent, unknownToolReason, type PreToolPayload,
} from './pretool-payload.ts';

export const QWEN_EVENT = 'PreToolUse';
const LABEL = 'Qwen Code';

export type QwenPayload = PreToolPayload;

export function qwenProtocol(o: { onAllow: OnAllow; defaultCwd: string }): HookProtocol<QwenPayload> {
  return {
    client: 'qwen',
    parse: (v) => parsePreToolPayload(v, { event: QWEN_EVENT, label: LABEL, configHint: "Qwen Code's settings.json", defaultCwd: o.defaultCwd }),
    toCall: (p) => preToolCall(p, 'qwen'),
    reply: (p, d) => qwenReply(p, d, o.onAllow),
    block: (reason) => exit2(reason),
    doctorPayload: (command, cwd) => ({
      session_id: 'asimov-doctor', transcript_path: '', cwd, hook_event_name: QWEN_EVENT, timestamp: new Date(0).toISOString(),
      permission_mode: 'default', tool_name: 'run_shell_command', tool_input: { command, description: 'asimov doctor' },
      tool_use_id: 'asimov-doctor',
    }),
    doctorVerdict: (r) => exit2Verdict(r, permissionDecisionOf),
  };
}

export function qwenReply(p: QwenPayload, d: Decision, onAllow: OnAllow): HookReply {
  if (isUnknownTool(p, d)) return exit2(unknownToolReason(LABEL, p.toolName));
  if (d.verdict === 'allow') {
    if (onAllow === 'passthrough') return silent();
    // Qwen's documentation names permissionDecisionReason as required next to the decision.
    const out = { hookSpecificOutput: { hookEventName: QWEN_EVENT, permissionDecision: 'allow', permissionDecisionReason: reasonText(d) } };
    return { stdout: `${JSON.stringify(out)}\n`, stderr: '', exitCode: 0 };
  }
  if (d.verdict === 'ask') {
    return exit2(`${reasonText(d)} (a person must approve this call, and asimov does not rely on Qwen Code's hook to ask one, so it is blocked; allow it with a rule in .asimov/policy.yaml if it is intended)`);
  }
  return exit2(reasonText(d));
}
