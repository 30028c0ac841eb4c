// Cursor's hooks.json and asimov's entries in it (cursor.com/docs/agent/hooks; DOCS ONLY, not run here):
// - user `~/.cursor/hooks.json`, project `<project>/.cursor/hooks.json`, system `/etc/cursor/hooks.json`
//   (macOS `/Library/Application Support/Cursor/hooks.json`); Cursor runs the hooks of every level.
// - `{"version": 1, "hooks": {"<event>": [{"command", "timeout", "failClosed"}]}}`; `timeout` in SECONDS.
// - `failClosed: true` is what makes a crash, a timeout or unparseable output block instead of letting the
//   action through; asimov's entries always carry it.
// - preToolUse entries may carry a `matcher` on the tool name; asimov's has none, so it sees every tool.
// The file is read as plain JSON: comments and trailing commas are refused rather than risked.

import { join } from 'node:path';
import { CURSOR_EVENTS } from '../adapters/cursor.ts';
import { planFlatHooks, type FlatHooksSpec } from './flat-hooks.ts';
import type { WireTarget } from './targets.ts';

export const CURSOR_HOOKS_SPEC: FlatHooksSpec = {
  client: 'cursor',
  events: CURSOR_EVENTS,
  dialect: { comments: false, trailingCommas: false },
  entry: (_event, command, timeoutSec) => ({ command, timeout: timeoutSec, failClosed: true }),
  required: { version: 1 },
  narrowing: ['matcher'],
};

export function cursorHooksPath(scope: string, o: { home: string; projectRoot: string; platform?: NodeJS.Platform }): string {
  if (scope === 'user') return join(o.home, '.cursor', 'hooks.json');
  if (scope === 'project') return join(o.projectRoot, '.cursor', 'hooks.json');
  if (scope === 'system') {
    const platform = o.platform ?? process.platform;
    if (platform === 'darwin') return '/Library/Application Support/Cursor/hooks.json';
    if (platform === 'win32') return 'C:\\ProgramData\\Cursor\\hooks.json';
    return '/etc/cursor/hooks.json';
  }
  throw new RangeError(`unknown Cursor hooks scope '${scope}'`);
}

export const cursorTarget: WireTarget = {
  client: 'cursor',
  label: 'Cursor hooks',
  scopes: ['user', 'project', 'system'],
  configPath: (scope, ctx) => cursorHooksPath(scope, ctx),
  modes: (scope) => (scope === 'user' ? { fileMode: 0o600, dirMode: 0o700 } : { fileMode: 0o644, dirMode: 0o755 }),
  plan: (text, o) => planFlatHooks(CURSOR_HOOKS_SPEC, text, o),
  notes: (scope) => [
    ...(scope === 'project'
      ? ['note: the hook names node and asimov by absolute paths on this machine; others using this project',
        'should run `asimov wire cursor` (user scope) themselves rather than rely on this file.']
      : []),
    'Cursor follows its documentation here; this integration has not been run against a real Cursor.',
  ],
};
