// Where asimov keeps its own state and cache, by the XDG base-directory spec: a variable is used only when
// it holds an absolute path (the spec says to ignore a relative one), else the spec's default under HOME.
// The config directory has its own reader (policy/trust.ts asimovConfigDir), which the path rules share.

import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

function xdgDir(value: string | undefined, fallback: string): string {
  const v = value?.trim();
  return join(v && isAbsolute(v) ? v : fallback, 'asimov');
}

/** `$XDG_STATE_HOME/asimov`, else `~/.local/state/asimov`: the audit log, sessions, pins, the wire record. */
export function asimovStateDir(env: NodeJS.ProcessEnv, home: string = env.HOME || homedir()): string {
  return xdgDir(env.XDG_STATE_HOME, join(home, '.local', 'state'));
}

/** `$XDG_CACHE_HOME/asimov`, else `~/.cache/asimov`: the judge's cache and what can be made again. */
export function asimovCacheDir(env: NodeJS.ProcessEnv, home: string = env.HOME || homedir()): string {
  return xdgDir(env.XDG_CACHE_HOME, join(home, '.cache'));
}
