// Finding programs the way a shell would, but only through absolute PATH entries: a relative entry would
// resolve against whatever directory the agent is in.

import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH's absolute entries, or null. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const p = join(dir, name);
    if (isExecutable(p)) return p;
  }
  return null;
}
