// path.resolve for the common case of a path that is already absolute and clean.

import { posix } from 'node:path';

/**
 * Whether `p` is absolute with no empty, `.` or `..` component and no trailing slash: exactly the paths
 * that posix.resolve returns unchanged.
 */
function isCleanAbsolute(p: string): boolean {
  if (p.charCodeAt(0) !== 47 /* / */) return false;
  if (p.length === 1) return true;
  if (p.charCodeAt(p.length - 1) === 47) return false;
  for (let i = 0; i < p.length; i++) {
    if (p.charCodeAt(i) !== 47) continue;
    // After a slash: another slash, or a component that is `.` or `..`.
    const a = p.charCodeAt(i + 1);
    if (a === 47) return false;
    if (a === 46 /* . */) {
      const b = p.charCodeAt(i + 2);
      if (Number.isNaN(b) || b === 47) return false;
      if (b === 46) {
        const c = p.charCodeAt(i + 3);
        if (Number.isNaN(c) || c === 47) return false;
      }
    }
  }
  return true;
}

/**
 * posix.resolve(...parts) without its cost when the answer is the last part as given. The gate and the
 * path classifier resolve the same clean absolute directories on every call, and posix.resolve builds its
 * result a character run at a time: measured as the largest single source of garbage per decision.
 */
export function resolvePath(...parts: string[]): string {
  const last = parts[parts.length - 1];
  if (last !== undefined && isCleanAbsolute(last)) return last;
  // A clean absolute directory and a relative rest (the path classifier's `realpath + rest`).
  if (parts.length === 2 && last !== '' && isCleanAbsolute(parts[0]!)) {
    const joined = parts[0] === '/' ? '/' + last : parts[0] + '/' + last;
    if (isCleanAbsolute(joined)) return joined;
  }
  return posix.resolve(...parts);
}
