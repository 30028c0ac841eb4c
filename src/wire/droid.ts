// Factory Droid's settings files and asimov's PreToolUse hook in them. Droid 0.225 read hooks from the
// `hooks` key of `~/.factory/settings.json` and not from hooks.json (notes/agent-clis.md); Factory's current
// documentation names `hooks.json` beside settings.json as the hooks file and reads settings.json's `hooks`
// only when hooks.json is absent. So asimov's entry goes into settings.json, which both read, and, when a
// hooks.json exists at the same scope (which would hide settings.json's hooks from newer versions), into
// that file too (extraWrites). The entry is Claude Code's shape, `timeout` in seconds; the files are
// edited as strict JSON (Droid rewrites settings.json itself; a file with comments is refused, not guessed at).
// User scope `~/.factory/`, project scope `<project>/.factory/`.

import { dirname, join } from 'node:path';
import { CLAUDE_DIALECT, planClaudeHooks } from './claude.ts';
import type { PlanOptions, TargetContext, WireTarget } from './targets.ts';
import { readTextFile, resolveTarget } from './write-file.ts';

export const DROID_EVENT = 'PreToolUse';

export function droidSettingsPath(scope: string, ctx: Pick<TargetContext, 'home' | 'projectRoot'>): string {
  if (scope === 'user') return join(ctx.home, '.factory', 'settings.json');
  if (scope === 'project') return join(ctx.projectRoot, '.factory', 'settings.json');
  throw new RangeError(`unknown Factory Droid settings scope '${scope}'`);
}

/** Installs, updates or removes asimov's PreToolUse hook in a Droid settings.json or hooks.json text. */
export function planDroidHooks(text: string | null, o: PlanOptions): { text: string | null; changes: string[] } {
  return planClaudeHooks(text, { ...o, events: [DROID_EVENT], client: 'droid', dialect: CLAUDE_DIALECT });
}

const PRIVATE = { fileMode: 0o600, dirMode: 0o700 };
const SHARED = { fileMode: 0o644, dirMode: 0o755 };

export const droidTarget: WireTarget = {
  client: 'droid',
  label: 'Factory Droid settings',
  scopes: ['user', 'project'],
  configPath: droidSettingsPath,
  modes: (scope) => (scope === 'project' ? SHARED : PRIVATE),
  plan: planDroidHooks,
  extraWrites(o) {
    // Only an existing hooks.json is edited: creating one would hide the person's settings.json hooks
    // from newer Droid versions. Uninstall takes asimov out of it whenever it is there.
    const file = join(dirname(o.file), 'hooks.json');
    const text = readTextFile(resolveTarget(file).realPath);
    if (text === null) return [];
    const plan = planDroidHooks(text, { ...o, file });
    return [{ file, text: plan.text, changes: plan.changes }];
  },
  notes: (scope) => [
    ...(scope === 'project'
      ? ['note: the hook names node and asimov by absolute paths on this machine; others using this project',
        'should run `asimov wire droid` (user scope) themselves.']
      : []),
    'Droid sessions already running need a restart to pick this up.',
  ],
};
