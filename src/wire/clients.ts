// The agent clients `asimov wire` knows: which are on this machine, and for those asimov can wire,
// whether each of their settings files runs asimov's hooks. Clients not supported yet are listed
// too, so that `asimov wire --list` says plainly which agents on the machine run unguarded.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../core/errors.ts';
import { CLAUDE_HOOK_EVENTS, claudeSettingsPaths, readClaudeHookState, type ClaudeScope } from './claude.ts';
import { findExecutable } from '../core/executables.ts';
import { shellQuote } from '../core/tools.ts';
import { HOOK_MARKER } from './hook-command.ts';
import { tierOf, wireTargetFor, wireTargetsOf, type Tier } from './targets.ts';
import { readTextFile, resolveTarget } from './write-file.ts';

export interface ClientContext {
  home: string;
  projectRoot: string;
  env: NodeJS.ProcessEnv;
  /**
   * This installation's node and asimov. A hook that names others is reported as outdated (a moved or
   * removed install); other differences, such as a deadline or `--on-allow`, are choices, not staleness.
   */
  expected?: { nodePath: string; asimovPath: string };
}

export type WiredState = 'installed' | 'outdated' | 'partial' | 'not installed' | 'unreadable';

export interface ScopeStatus {
  scope: ClaudeScope | string;
  /** The tier this file's wiring gives (a client can have several wirings: Gemini's hook, tier 1, and its gated tools, tier 2). */
  tier: Tier;
  path: string;
  exists: boolean;
  state: WiredState;
  /** Events that hold an asimov hook, with its matcher. */
  events: { event: string; matcher: string }[];
  /** Why the file could not be read (state `unreadable`). */
  error?: string;
}

export interface ClientStatus {
  name: string;
  label: string;
  supported: boolean;
  detected: boolean;
  /** What gave the client away: an executable on PATH or a config directory. */
  detectedBy?: string;
  /** Per settings file, for the clients asimov can wire. */
  scopes?: ScopeStatus[];
  /** The tier in force: the best among the installed wirings, else the best asimov can wire (then `wired` is false). */
  tier?: Tier;
  /** Whether any of its files holds a current asimov wiring. */
  wired?: boolean;
}

interface ClientInfo {
  name: string;
  label: string;
  supported: boolean;
  executables: readonly string[];
  configDirs: (ctx: ClientContext) => string[];
}

const xdgConfig = (ctx: ClientContext) => ctx.env.XDG_CONFIG_HOME || join(ctx.home, '.config');

/** Config directories are from notes/agent-clis.md; they only serve to detect the client. */
export const CLIENTS: readonly ClientInfo[] = [
  {
    name: 'claude', label: 'Claude Code', supported: true, executables: ['claude'],
    configDirs: (ctx) => [ctx.env.CLAUDE_CONFIG_DIR || join(ctx.home, '.claude')],
  },
  { name: 'gemini', label: 'Gemini CLI', supported: true, executables: ['gemini'], configDirs: (ctx) => [join(ctx.home, '.gemini')] },
  { name: 'codex', label: 'Codex CLI', supported: true, executables: ['codex'], configDirs: (ctx) => [join(ctx.home, '.codex')] },
  { name: 'copilot', label: 'GitHub Copilot CLI', supported: true, executables: ['copilot'], configDirs: (ctx) => [join(ctx.home, '.copilot')] },
  { name: 'qwen', label: 'Qwen Code', supported: true, executables: ['qwen'], configDirs: (ctx) => [join(ctx.home, '.qwen')] },
  { name: 'droid', label: 'Factory Droid', supported: true, executables: ['droid'], configDirs: (ctx) => [join(ctx.home, '.factory')] },
  { name: 'cursor', label: 'Cursor', supported: true, executables: ['cursor-agent', 'cursor'], configDirs: (ctx) => [join(ctx.home, '.cursor')] },
  { name: 'windsurf', label: 'Windsurf', supported: true, executables: ['windsurf'], configDirs: (ctx) => [join(ctx.home, '.codeium', 'windsurf')] },
  { name: 'kimi', label: 'Kimi CLI', supported: true, executables: ['kimi'], configDirs: (ctx) => [join(ctx.home, '.kimi')] },
  { name: 'goose', label: 'Goose', supported: true, executables: ['goose'], configDirs: (ctx) => [join(xdgConfig(ctx), 'goose')] },
  { name: 'opencode', label: 'OpenCode', supported: true, executables: ['opencode'], configDirs: (ctx) => [join(xdgConfig(ctx), 'opencode')] },
  { name: 'grok', label: 'Grok CLI', supported: true, executables: ['grok'], configDirs: (ctx) => [join(ctx.home, '.grok')] },
];

export function findClient(name: string): ClientInfo | undefined {
  return CLIENTS.find((c) => c.name === name);
}

export function listClients(ctx: ClientContext): ClientStatus[] {
  return CLIENTS.map((c) => {
    const detectedBy = detect(c, ctx);
    const status: ClientStatus = { name: c.name, label: c.label, supported: c.supported, detected: detectedBy !== undefined };
    if (detectedBy) status.detectedBy = detectedBy;
    if (c.name === 'claude') status.scopes = claudeScopes(ctx);
    else if (c.supported) status.scopes = targetScopes(c.name, ctx);
    if (status.scopes) {
      const installed = status.scopes.filter((x) => x.state === 'installed').map((x) => x.tier);
      status.wired = installed.length > 0;
      const main = wireTargetFor(c.name);
      status.tier = status.wired ? (Math.min(...installed) as Tier) : main ? tierOf(main) : 1;
    }
    return status;
  });
}

function detect(c: ClientInfo, ctx: ClientContext): string | undefined {
  for (const exe of c.executables) {
    const p = findExecutable(exe, ctx.env);
    if (p) return `${exe} on PATH (${p})`;
  }
  for (const d of c.configDirs(ctx)) if (existsSync(d)) return `${d} exists`;
  return undefined;
}

/** Whether each Claude Code settings file for this project runs asimov's hooks. */
export function claudeScopes(ctx: ClientContext): ScopeStatus[] {
  const paths = claudeSettingsPaths(ctx);
  return (['user', 'project', 'local', 'managed'] as const).map((scope) => {
    const path = paths[scope];
    let text: string | null;
    let state;
    try {
      text = readTextFile(resolveTarget(path).realPath);
      state = readClaudeHookState(text, path);
    } catch (e) {
      return { scope, path, exists: existsSync(path), tier: 1 as const, state: 'unreadable', events: [], error: describeError(e) };
    }
    const events = Object.entries(state.events).filter(([, s]) => s.installed).map(([event, s]) => ({ event, matcher: s.matcher }));
    const wanted = CLAUDE_HOOK_EVENTS.map((e) => state.events[e]!);
    let wired: WiredState;
    if (wanted.every((s) => !s.installed)) wired = 'not installed';
    else if (wanted.some((s) => !s.installed)) wired = 'partial';
    else if (ctx.expected && wanted.some((s) => !namesInstall(s.command ?? '', ctx.expected!))) wired = 'outdated';
    else wired = 'installed';
    return { scope, path, exists: text !== null, tier: 1 as const, state: wired, events };
  });
}

/** Whether a hook command line runs this node with this asimov (as buildHookCommand writes them). */
function namesInstall(command: string, o: { nodePath: string; asimovPath: string }): boolean {
  return command.includes(`${shellQuote(o.nodePath)} ${shellQuote(o.asimovPath)} hook `);
}

/**
 * Whether each config file of a client other than Claude Code runs asimov's hook: asimov's entries carry
 * the `# asimov-hook:<client>` marker in their command line, whatever the file's format.
 */
export function targetScopes(client: string, ctx: ClientContext): ScopeStatus[] {
  return wireTargetsOf(client).flatMap((t) => t.scopes.map((scope): ScopeStatus => {
    const tier = tierOf(t);
    const path = t.configPath(scope, ctx);
    let text: string | null;
    try {
      text = readTextFile(resolveTarget(path).realPath);
    } catch (e) {
      return { scope, path, exists: existsSync(path), tier, state: 'unreadable', events: [], error: describeError(e) };
    }
    let state: WiredState;
    if (t.isInstalled) {
      state = t.isInstalled(text, scope, ctx) ? 'installed' : 'not installed';
    } else {
      const marker = `${HOOK_MARKER}${client}`;
      state = text !== null && text.includes(marker) ? 'installed' : 'not installed';
    }
    if (state === 'installed' && ctx.expected && !text!.includes(shellQuote(ctx.expected.asimovPath)) && !text!.includes(JSON.stringify(ctx.expected.asimovPath))) state = 'outdated';
    const events = state === 'not installed' ? [] : [{ event: tier === 1 ? 'pre-tool hook' : 'gated MCP tools', matcher: '*' }];
    return { scope, path, exists: text !== null, tier, state, events };
  }));
}
