// What `asimov wire <client>` needs to know about each client it can wire: where its config lives for each
// scope, how to merge asimov's hook into that config and take it out again (pure: text in, text out), and
// how strongly the result is enforced. Each client's module adds one entry to WIRE_TARGETS.

import { CLAUDE_HOOK_EVENTS, claudeSettingsPaths, planClaudeHooks } from './claude.ts';
import { codexTarget } from './codex.ts';
import { toolsServerLaunch, type ToolsServerLaunch } from './mcp-server-entry.ts';
import { buildHookCommand } from './hook-command.ts';
import { geminiToolsTarget } from './gemini-tools.ts';
import { grokTarget } from './grok.ts';
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
  /** How to start asimov's gated MCP tools here (tiers 2 and 3); absent when uninstalling. */
  tools?: ToolsServerLaunch;
  /** The client-side timeout to write, in seconds (clients that take milliseconds multiply). */
  timeoutSec: number;
  uninstall: boolean;
  /** For messages only: the file the text came from. */
  file: string;
}

/**
 * How strongly a wiring enforces (issue 6): 1, a native pre-tool hook that blocks; 2, the client's own
 * shell and file tools switched off and asimov's gated MCP tools in their place; 3, advisory only (the
 * gated tools registered and an instruction to prefer them; the client's own tools still run unchecked).
 */
export type Tier = 1 | 2 | 3;

export interface WireTarget {
  /** Name on the command line: `asimov wire gemini`, `asimov hook gemini`. */
  client: string;
  /** What this wiring gives; 1 when absent. */
  tier?: Tier;
  /**
   * Whether a config text holds this wiring (and, for a wiring of several files, whether the others do
   * too). Absent: the `# asimov-hook:<client>` marker of the hook command line is looked for.
   */
  isInstalled?(text: string | null, scope: string, ctx: TargetContext): boolean;
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
  grok: grokTarget,
};

/** Other tiers a client can be wired at besides its entry in WIRE_TARGETS (`asimov wire gemini --tier 2`). */
export const OTHER_TIER_TARGETS: Record<string, readonly WireTarget[]> = {
  gemini: [geminiToolsTarget],
};

export const tierOf = (t: WireTarget): Tier => t.tier ?? 1;

/** The wiring of a client at a tier (its usual one when none is asked for), or undefined. */
export function wireTargetFor(client: string, tier?: Tier): WireTarget | undefined {
  const main = Object.hasOwn(WIRE_TARGETS, client) ? WIRE_TARGETS[client] : undefined;
  if (tier === undefined) return main;
  return [main, ...(OTHER_TIER_TARGETS[client] ?? [])].find((t) => t !== undefined && tierOf(t) === tier);
}

/** Every wiring of a client, best tier first. */
export function wireTargetsOf(client: string): WireTarget[] {
  const main = Object.hasOwn(WIRE_TARGETS, client) ? [WIRE_TARGETS[client]!] : [];
  return [...main, ...(OTHER_TIER_TARGETS[client] ?? [])].sort((a, b) => tierOf(a) - tierOf(b));
}

/**
 * What uninstalling leaves of a config file that wiring created from nothing (`{}`, `{"version": 1}`, an
 * empty TOML): a created file that holds exactly this (or only whitespace) after uninstall holds nothing of
 * the person's, and is deleted rather than left behind. Null for a target that deletes its file itself.
 */
export function leftOfNothing(t: WireTarget, file: string): string | null {
  const [node, asimov] = ['/usr/bin/node', '/opt/asimov/bin/asimov.cjs'];
  const built = buildHookCommand({ client: t.client, nodePath: node, asimovPath: asimov, watchdog: { kind: 'none' } });
  const o: PlanOptions = { command: built.command, timeoutSec: built.clientTimeoutSec, uninstall: false, file, tools: toolsServerLaunch(node, asimov) };
  const installed = t.plan(null, o);
  return t.plan(installed.text, { ...o, command: '', uninstall: true }).text;
}

/** Whether what remains of a file after uninstall is only what wiring would leave of nothing. */
export function holdsNothingElse(t: WireTarget, file: string, remaining: string | null): boolean {
  return remaining === null || remaining.trim() === '' || remaining === leftOfNothing(t, file);
}
