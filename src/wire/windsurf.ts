// Windsurf's hooks.json and asimov's entries in it (docs.windsurf.com/windsurf/cascade/hooks; DOCS ONLY):
// - user `~/.codeium/windsurf/hooks.json`, workspace `<project>/.windsurf/hooks.json`, system
//   `/etc/windsurf/hooks.json` (macOS `/Library/Application Support/Windsurf/hooks.json`, Windows
//   `C:\ProgramData\Windsurf\hooks.json`); Windsurf merges all three and runs system → user → workspace.
// - `{"hooks": {"<event>": [{"command", "show_output"}]}}`. There is no timeout field (so none is written:
//   the installed command line's watchdog bounds asimov) and no matcher; `show_output: true` puts the hook's
//   output, asimov's reason for a refusal, in front of the person.
// The file is read as plain JSON: comments and trailing commas are refused rather than risked.

import { join } from 'node:path';
import { WINDSURF_EVENTS } from '../adapters/windsurf.ts';
import { planFlatHooks, type FlatHooksSpec } from './flat-hooks.ts';
import type { WireTarget } from './targets.ts';

export const WINDSURF_HOOKS_SPEC: FlatHooksSpec = {
  client: 'windsurf',
  events: WINDSURF_EVENTS,
  dialect: { comments: false, trailingCommas: false },
  entry: (_event, command) => ({ command, show_output: true }),
};

export function windsurfHooksPath(scope: string, o: { home: string; projectRoot: string; platform?: NodeJS.Platform }): string {
  if (scope === 'user') return join(o.home, '.codeium', 'windsurf', 'hooks.json');
  if (scope === 'project') return join(o.projectRoot, '.windsurf', 'hooks.json');
  if (scope === 'system') {
    const platform = o.platform ?? process.platform;
    if (platform === 'darwin') return '/Library/Application Support/Windsurf/hooks.json';
    if (platform === 'win32') return 'C:\\ProgramData\\Windsurf\\hooks.json';
    return '/etc/windsurf/hooks.json';
  }
  throw new RangeError(`unknown Windsurf hooks scope '${scope}'`);
}

export const windsurfTarget: WireTarget = {
  client: 'windsurf',
  label: 'Windsurf hooks',
  scopes: ['user', 'project', 'system'],
  configPath: (scope, ctx) => windsurfHooksPath(scope, ctx),
  modes: (scope) => (scope === 'user' ? { fileMode: 0o600, dirMode: 0o700 } : { fileMode: 0o644, dirMode: 0o755 }),
  plan: (text, o) => planFlatHooks(WINDSURF_HOOKS_SPEC, text, o),
  notes: (scope) => [
    ...(scope === 'project'
      ? ['note: the hook names node and asimov by absolute paths on this machine; others using this project',
        'should run `asimov wire windsurf` (user scope) themselves rather than rely on this file.']
      : []),
    'Windsurf follows its documentation here; this integration has not been run against a real Windsurf.',
  ],
};
