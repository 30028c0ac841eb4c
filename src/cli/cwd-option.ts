// `--cwd DIR`, as every command that takes it reads it: resolved against the directory asimov runs in,
// and a usage error when it names no directory. A mistyped --cwd must not be decided as if it were a
// project with no policy (allowing what the real project's policy denies).

import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from './io.ts';

/** The absolute directory `--cwd` names (`base` itself when absent); throws UsageError when it is not one. */
export function cwdOption(value: string | undefined, base: string): string {
  const dir = resolve(base, value ?? '.');
  if (value === undefined) return dir;
  let st;
  try {
    st = statSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`--cwd ${value}: ${code === 'ENOENT' ? 'no such directory' : `cannot be read (${code ?? (e as Error).message})`}`);
  }
  if (!st.isDirectory()) throw new UsageError(`--cwd ${value}: not a directory`);
  return dir;
}
