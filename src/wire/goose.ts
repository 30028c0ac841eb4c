// Goose and asimov's hook plugin (goose's hooks guide; DOCS ONLY, not run against the real CLI). Goose reads
// hooks only from plugins: directories under `~/.agents/plugins/<name>/` (user) or
// `<project>/.agents/plugins/<name>/` (project), each with `plugin.json` and `hooks/hooks.json`, discovered
// without any enabling step (a plugin named in `disabledPlugins` of goose's settings.json is skipped).
//
// So asimov owns a whole plugin, `asimov`: wire writes its hooks/hooks.json (the config) and plugin.json (an
// extra write), rewrites them when the command line changes, and deletes both on uninstall (plan text null).
// A hooks.json there that is not asimov's is never overwritten or deleted.
//
// The entry: PreToolUse, NO matcher (Goose's matcher is a regex and a bare "*" is an invalid one, which makes
// Goose skip the rule silently; no matcher means every tool), `timeout` in SECONDS (default 30), and
// `on_failure: "block"`, without which a hook that returns no decision (a crash, a timeout, stray stdout)
// lets the tool run.

import { dirname, join } from 'node:path';
import { AsimovError } from '../core/errors.ts';
import { GOOSE_EVENT } from '../adapters/goose.ts';
import { isAsimovHookCommand } from './hook-command.ts';
import { readTextFile, resolveTarget } from './write-file.ts';
import type { PlanOptions, TargetContext, WireTarget } from './targets.ts';

export const GOOSE_PLUGIN_NAME = 'asimov';

export function gooseHooksPath(scope: string, ctx: TargetContext): string {
  const base = scope === 'user' ? ctx.home : scope === 'project' ? ctx.projectRoot : null;
  if (base === null) throw new RangeError(`unknown Goose plugin scope '${scope}'`);
  return join(base, '.agents', 'plugins', GOOSE_PLUGIN_NAME, 'hooks', 'hooks.json');
}

/** hooks.json as asimov writes it, every byte. */
export function gooseHooksText(command: string, timeoutSec: number): string {
  const entry = { type: 'command', command, timeout: Math.max(1, Math.ceil(timeoutSec)), on_failure: 'block' };
  return `${JSON.stringify({ hooks: { [GOOSE_EVENT]: [{ hooks: [entry] }] } }, null, 2)}\n`;
}

/** plugin.json as asimov writes it. */
export const GOOSE_PLUGIN_MANIFEST = `${JSON.stringify({
  name: GOOSE_PLUGIN_NAME, version: '1.0.0', description: 'asimov checks every tool call before it runs (written by `asimov wire goose`)',
}, null, 2)}\n`;

/** Whether a hooks.json holds an asimov command line for Goose anywhere in it (then the file is asimov's). */
export function isAsimovGooseHooks(text: string): boolean {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return false;
  }
  const found = (x: unknown): boolean => {
    if (Array.isArray(x)) return x.some(found);
    if (x === null || typeof x !== 'object') return false;
    const o = x as Record<string, unknown>;
    return isAsimovHookCommand(o['command'], 'goose') || Object.values(o).some(found);
  };
  return found(v);
}

export function planGooseHooks(text: string | null, o: PlanOptions): { text: string | null; changes: string[] } {
  const ours = text !== null && isAsimovGooseHooks(text);
  if (o.uninstall) return ours ? { text: null, changes: ['removed asimov\'s hooks.json'] } : { text, changes: [] };
  if (text !== null && !ours) {
    throw new AsimovError('wire_settings_invalid', 'this hooks.json is not asimov\'s; asimov does not overwrite it (move the directory away, then run this again)', { file: o.file });
  }
  const want = gooseHooksText(o.command, o.timeoutSec);
  if (text === want) return { text, changes: [] };
  return { text: want, changes: [`${text === null ? 'added' : 'updated'} ${GOOSE_EVENT} hook (on_failure "block", every tool)`] };
}

/** plugin.json next to the hooks: written with them, deleted with them, left alone when it names another plugin. */
function planManifest(file: string, uninstall: boolean): { file: string; text: string | null; changes: string[] } {
  const text = readTextFile(resolveTarget(file).realPath);
  let ours = false;
  try {
    ours = text !== null && (JSON.parse(text) as { name?: unknown }).name === GOOSE_PLUGIN_NAME;
  } catch {
    ours = false;
  }
  if (uninstall) return ours ? { file, text: null, changes: ['removed asimov\'s plugin.json'] } : { file, text, changes: [] };
  if (text === GOOSE_PLUGIN_MANIFEST || (text !== null && !ours)) return { file, text, changes: [] };
  return { file, text: GOOSE_PLUGIN_MANIFEST, changes: [`${text === null ? 'added' : 'updated'} plugin.json`] };
}

export const gooseTarget: WireTarget = {
  client: 'goose',
  label: 'Goose hook plugin',
  scopes: ['user', 'project'],
  configPath: gooseHooksPath,
  modes: (scope) => (scope === 'project' ? { fileMode: 0o644, dirMode: 0o755 } : { fileMode: 0o600, dirMode: 0o700 }),
  plan: planGooseHooks,
  extraWrites: (o) => [planManifest(join(dirname(dirname(o.file)), 'plugin.json'), o.uninstall)],
  notes: () => [
    'Goose follows its documentation here; this plugin has not been run inside a real Goose (hooks need a recent Goose).',
    'A plugin named "asimov" in disabledPlugins of Goose\'s settings.json would switch it off.',
    'Goose sessions already running need a restart to load the plugin.',
  ],
};
