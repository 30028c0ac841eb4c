// The hook protocols `asimov hook <client>` speaks, by client name. Each adapter module adds one line.

import type { HookProtocol } from './hook-runtime.ts';
import { claudeProtocol, type OnAllow } from './claude.ts';
import { codexProtocol } from './codex.ts';
import { copilotProtocol } from './copilot.ts';
import { cursorProtocol } from './cursor.ts';
import { droidProtocol } from './droid.ts';
import { geminiProtocol } from './gemini.ts';
import { gooseProtocol } from './goose.ts';
import { kimiProtocol } from './kimi.ts';
import { opencodeProtocol } from './opencode.ts';
import { qwenProtocol } from './qwen.ts';
import { windsurfProtocol } from './windsurf.ts';

export interface ProtocolOptions {
  onAllow: OnAllow;
  /** The process's cwd, for payloads that carry none. */
  cwd: string;
}

export const HOOK_PROTOCOLS: Record<string, (o: ProtocolOptions) => HookProtocol<never>> = {
  claude: (o) => claudeProtocol({ onAllow: o.onAllow, defaultCwd: o.cwd }) as HookProtocol<never>,
  codex: (o) => codexProtocol({ defaultCwd: o.cwd }) as HookProtocol<never>,
  copilot: (o) => copilotProtocol({ onAllow: o.onAllow, defaultCwd: o.cwd }) as HookProtocol<never>,
  cursor: (o) => cursorProtocol({ defaultCwd: o.cwd }) as HookProtocol<never>,
  droid: (o) => droidProtocol({ onAllow: o.onAllow, defaultCwd: o.cwd }) as HookProtocol<never>,
  gemini: (o) => geminiProtocol({ defaultCwd: o.cwd }) as HookProtocol<never>,
  goose: (o) => gooseProtocol({ defaultCwd: o.cwd }) as HookProtocol<never>,
  kimi: (o) => kimiProtocol({ defaultCwd: o.cwd }) as HookProtocol<never>,
  opencode: (o) => opencodeProtocol({ defaultCwd: o.cwd }) as HookProtocol<never>,
  qwen: (o) => qwenProtocol({ onAllow: o.onAllow, defaultCwd: o.cwd }) as HookProtocol<never>,
  windsurf: (o) => windsurfProtocol({ defaultCwd: o.cwd }) as HookProtocol<never>,
};
