// The hook protocols `asimov hook <client>` speaks, by client name. Each adapter module adds one line.

import type { HookProtocol } from './hook-runtime.ts';
import { claudeProtocol, type OnAllow } from './claude.ts';

export interface ProtocolOptions {
  onAllow: OnAllow;
  /** The process's cwd, for payloads that carry none. */
  cwd: string;
}

export const HOOK_PROTOCOLS: Record<string, (o: ProtocolOptions) => HookProtocol<never>> = {
  claude: (o) => claudeProtocol({ onAllow: o.onAllow, defaultCwd: o.cwd }) as HookProtocol<never>,
};
