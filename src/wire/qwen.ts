// Qwen Code's settings files and asimov's PreToolUse hook in them. Facts from Qwen Code's documentation and
// source (not run here: Qwen Code needs Node 22):
// - user `$QWEN_HOME/settings.json` (default ~/.qwen/settings.json), project `<project>/.qwen/settings.json`
//   (read only in a folder the person trusts), system `/etc/qwen-code/settings.json` (macOS
//   `/Library/Application Support/QwenCode/settings.json`; `QWEN_CODE_SYSTEM_SETTINGS_PATH` replaces it);
// - the files may hold comments (Qwen Code is a Gemini CLI fork and strips them), not trailing commas;
// - a command hook is `{type: "command", command, timeout}` inside `{matcher, hooks: [...]}` under
//   `hooks.PreToolUse`, Claude Code's shape, but `timeout` is in MILLISECONDS; matcher "*" matches every tool;
// - a top-level `disableAllHooks: true` switches every hook off.
// The plan is Claude Code's (src/wire/claude.ts) with Qwen's dialect and timeout unit.

import { join, resolve } from 'node:path';
import { planClaudeHooks } from './claude.ts';
import { invalidAt, isBlank, parseJsonDocument, propertyNode, type JsonDialect } from './json-settings.ts';
import type { PlanOptions, WireTarget } from './targets.ts';

export const QWEN_EVENT = 'PreToolUse';
export const QWEN_DIALECT: JsonDialect = { comments: true, trailingCommas: false };

export function qwenSettingsPath(scope: string, o: { home: string; projectRoot: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): string {
  if (scope === 'user') return join(o.env.QWEN_HOME ? resolve(o.env.QWEN_HOME) : join(o.home, '.qwen'), 'settings.json');
  if (scope === 'project') return join(o.projectRoot, '.qwen', 'settings.json');
  if (scope === 'system') {
    if (o.env.QWEN_CODE_SYSTEM_SETTINGS_PATH) return resolve(o.env.QWEN_CODE_SYSTEM_SETTINGS_PATH);
    const platform = o.platform ?? process.platform;
    if (platform === 'darwin') return '/Library/Application Support/QwenCode/settings.json';
    if (platform === 'win32') return 'C:\\ProgramData\\qwen-code\\settings.json';
    return '/etc/qwen-code/settings.json';
  }
  throw new RangeError(`unknown Qwen Code settings scope '${scope}'`);
}

/** Installs, updates or removes asimov's PreToolUse hook in a Qwen Code settings text. */
export function planQwenHooks(text: string | null, o: PlanOptions): { text: string | null; changes: string[] } {
  if (!o.uninstall && text !== null && !isBlank(text)) refuseIfHooksOff(text, o.file);
  return planClaudeHooks(text, { ...o, events: [QWEN_EVENT], client: 'qwen', dialect: QWEN_DIALECT, timeoutUnit: 'milliseconds' });
}

/**
 * `disableAllHooks: true` in the same file would leave asimov's hook installed and never run: refuse rather
 * than report success (switching it off here would also start every other hook the person switched off).
 */
function refuseIfHooksOff(text: string, file: string): void {
  const doc = parseJsonDocument(text, file, QWEN_DIALECT);
  const off = propertyNode(doc, doc.root, 'disableAllHooks');
  if (off?.type === 'boolean' && off.value === true) {
    throw invalidAt(doc, off.offset, 'disableAllHooks is true, so Qwen Code would run no hooks, asimov\'s included; remove that setting to use asimov', 'disableAllHooks');
  }
}

const PRIVATE = { fileMode: 0o600, dirMode: 0o700 };
const SHARED = { fileMode: 0o644, dirMode: 0o755 };

export const qwenTarget: WireTarget = {
  client: 'qwen',
  label: 'Qwen Code settings',
  scopes: ['user', 'project', 'system'],
  configPath: (scope, ctx) => qwenSettingsPath(scope, ctx),
  modes: (scope) => (scope === 'user' ? PRIVATE : SHARED),
  plan: planQwenHooks,
  notes: (scope) => [
    ...(scope === 'project'
      ? ['note: Qwen Code reads .qwen/settings.json only in folders it trusts, and the hook names node and',
        'asimov by absolute paths on this machine: the user scope (the default) protects every session.']
      : []),
    'Qwen Code sessions already running need a restart to pick this up.',
  ],
};
