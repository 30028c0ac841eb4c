// path.resolve for the common case of a path that is already absolute and clean.

import { posix } from 'node:path';

/** An empty, `.` or `..` component: what posix.resolve would rewrite inside an absolute path. */
const UNCLEAN = /\/\/|\/\.\.?(?:\/|$)/;

/** Whether `p` is absolute and exactly what posix.resolve returns for it (no trailing slash either). */
function isCleanAbsolute(p: string): boolean {
  if (p.charCodeAt(0) !== 47 /* / */) return false;
  if (p.length > 1 && p.charCodeAt(p.length - 1) === 47) return false;
  return !UNCLEAN.test(p);
}

/**
 * posix.resolve(dir, rest) (or posix.resolve(rest)) without its cost when the answer is `rest` as given,
 * or `dir/rest` as given. The gate and the path classifier resolve the same clean absolute directories on
 * every call, and posix.resolve builds its result a character run at a time: measured as the largest
 * single source of garbage per decision. Two fixed parameters, not a rest parameter: no array per call.
 */
export function resolvePath(first: string, second?: string): string {
  const last = second ?? first;
  if (isCleanAbsolute(last)) return last;
  if (second === undefined) return posix.resolve(first);
  // A clean absolute directory and a relative rest (the path classifier's `realpath + rest`).
  if (second !== '' && isCleanAbsolute(first)) {
    const joined = first === '/' ? '/' + second : first + '/' + second;
    if (isCleanAbsolute(joined)) return joined;
  }
  return posix.resolve(first, second);
}
