// What `asimov wire <client>` needs to know about each client it can wire: where its config lives for each
// scope, how to merge asimov's hook into that config and take it out again (pure: text in, text out), and
// how strongly the result is enforced. Each client's module adds one entry to WIRE_TARGETS.

import { CLAUDE_HOOK_EVENTS, claudeSettingsPaths, planClaudeHooks } from './claude.ts';
import { codexTarget } from './codex.ts';
import { copilotTarget } from './copilot.ts';
import { cursorTarget } from './cursor.ts';
import { droidTarget } from './droid.ts';
import { geminiTarget } from './gemini.ts';
import { gooseTarget } from './goose.ts';
import { kimiTarget } from './kimi.ts';
import { opencodeTarget } from './opencode.ts';
import { qwenTarget } from './qwen.ts';
import { windsurfTarget } from './windsurf.ts';

export interface TargetContext {
  home: string;
  projectRoot: string;
  env: NodeJS.ProcessEnv;
}

export interface PlanOptions {
  /** The hook command line (from buildHookCommand), or '' when uninstalling. */
  command: string;
  /** The client-side timeout to write, in seconds (clients that take milliseconds multiply). */
  timeoutSec: number;
  uninstall: boolean;
  /** For messages only: the file the text came from. */
  file: string;
}

export interface WireTarget {
  /** Name on the command line: `asimov wire gemini`, `asimov hook gemini`. */
  client: string;
  /** What the config file is, for the output: "Claude Code settings". */
  label: string;
  /** Scopes it supports, the first being the default. */
  scopes: readonly string[];
  configPath(scope: string, ctx: TargetContext): string;
  /** File and directory modes for a file wire creates, per scope. */
  modes(scope: string): { fileMode: number; dirMode: number };
  /** Merges asimov's entries in (or takes exactly them out). Throws AsimovError wire_settings_invalid on a file it cannot parse. */
  plan(text: string | null, o: PlanOptions): { text: string | null; changes: string[] };
  /**
   * Further files to touch after the config is written (a trust record, a plugin file); each as a
   * separate write so that dry runs can show them. Optional.
   */
  extraWrites?(o: PlanOptions & { scope: string; ctx: TargetContext; configText: string | null }): Array<{ file: string; text: string | null; changes: string[] }>;
  /** Lines printed after a successful install (what else the person should know). */
  notes?(scope: string): string[];
}

const PRIVATE = { fileMode: 0o600, dirMode: 0o700 };
const SHARED = { fileMode: 0o644, dirMode: 0o755 };

export const claudeTarget: WireTarget = {
  client: 'claude',
  label: 'Claude Code settings',
  scopes: ['user', 'project', 'local'],
  configPath: (scope, ctx) => claudeSettingsPaths(ctx)[scope as 'user' | 'project' | 'local'],
  modes: (scope) => (scope === 'user' ? PRIVATE : scope === 'project' ? SHARED : { fileMode: 0o600, dirMode: 0o755 }),
  plan: (text, o) => planClaudeHooks(text, { ...o, events: CLAUDE_HOOK_EVENTS }),
  notes: (scope) => [
    ...(scope === 'project'
      ? ['note: the hook names node and asimov by absolute paths on this machine; others using this project',
        'should run `asimov wire claude` (user or local scope) themselves rather than rely on this file.']
      : []),
    'Claude Code sessions already running may need a restart to pick this up; `asimov doctor` checks it.',
  ],
};

export const WIRE_TARGETS: Record<string, WireTarget> = {
  claude: claudeTarget,
  codex: codexTarget,
  copilot: copilotTarget,
  cursor: cursorTarget,
  droid: droidTarget,
  gemini: geminiTarget,
  goose: gooseTarget,
  kimi: kimiTarget,
  opencode: opencodeTarget,
  qwen: qwenTarget,
  windsurf: windsurfTarget,
};
