// Kimi CLI's PreToolUse hook (moonshotai.github.io/kimi-cli, customization/hooks; DOCS ONLY, the real CLI
// is not run here). The payload is Claude-shaped: `hook_event_name`, `session_id`, `cwd`, `tool_name` (Kimi's
// tools: `Shell`, `ReadFile`, `WriteFile`, `StrReplaceFile`, `Glob`, `Grep`, `SearchWeb`, `FetchURL`, …),
// `tool_input`, and `tool_call_id` where Claude Code says `tool_use_id`.
//
// How Kimi reads a reply (documented): exit 0 allows (a JSON `hookSpecificOutput.permissionDecision: "deny"`
// on stdout blocks); exit 2 blocks with stderr fed back to the model; any other exit, a crash, a timeout
// or a bad regex FAILS OPEN and the tool runs. So every refusal is exit 2 with the reason on stderr, allow is
// a silent exit 0 (Kimi has no hook reply that approves on the person's behalf), and the installed command
// line turns asimov's own failures into exit 2. Kimi's hooks cannot ask a person, so a call asimov wants a
// person for is refused with a reason that says so.

import type { Decision } from '../core/types.ts';
import { reasonText } from './claude.ts';
import { exit2Verdict, permissionDecisionOf, type HookProtocol, type HookReply } from './hook-runtime.ts';
import { isPlainObject } from '../core/json.ts';
import {
  exit2, isUnknownTool, parsePreToolPayload, preToolCall, silent, unknownToolReason, type PreToolPayload,
} from './pretool-payload.ts';

export const KIMI_EVENT = 'PreToolUse';
const LABEL = 'Kimi CLI';

export type KimiPayload = PreToolPayload;

export function kimiProtocol(o: { defaultCwd: string }): HookProtocol<KimiPayload> {
  return {
    client: 'kimi',
    parse: (v) => parseKimiPayload(v, o.defaultCwd),
    toCall: (p) => preToolCall(p, 'kimi'),
    reply: kimiReply,
    block: (reason) => exit2(reason),
    doctorPayload: (command, cwd) => ({
      hook_event_name: KIMI_EVENT, session_id: 'asimov-doctor', cwd, tool_name: 'Shell', tool_input: { command },
      tool_call_id: 'asimov-doctor',
    }),
    // Exit 0 JSON stops the call only with permissionDecision "deny" (Kimi has no hook reply that asks).
    doctorVerdict: (r) => exit2Verdict(r, (v) => (permissionDecisionOf(v) === 'deny' ? 'deny' : undefined)),
  };
}

export function parseKimiPayload(v: unknown, defaultCwd: string): KimiPayload | string {
  const p = parsePreToolPayload(v, { event: KIMI_EVENT, label: LABEL, configHint: '~/.kimi/config.toml', defaultCwd });
  if (typeof p === 'string' || !isPlainObject(v)) return p;
  // Kimi names the call `tool_call_id`; the shared reader knows Claude's `tool_use_id`.
  const id = v['tool_call_id'];
  if (id !== undefined && id !== null && typeof id !== 'string') return '"tool_call_id" is not a string';
  if (typeof id === 'string' && id !== '' && p.toolUseId === undefined) p.toolUseId = id;
  return p;
}

export function kimiReply(p: KimiPayload, d: Decision): HookReply {
  if (isUnknownTool(p, d)) return exit2(unknownToolReason(LABEL, p.toolName));
  if (d.verdict === 'allow') return silent();
  if (d.verdict === 'ask') {
    return exit2(`${reasonText(d)} (a person must approve this call and Kimi CLI's hooks cannot ask one, so it is blocked; allow it with a rule in .asimov/policy.yaml if it is intended)`);
  }
  return exit2(reasonText(d));
}
