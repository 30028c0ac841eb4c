// The client's roots, as the upstream may see them. A root tells a server where it may work (a filesystem
// server widens its allowed directories to them), so a proxy that forwarded them as given would let a
// client (or whatever edits its configuration) move the server out of the project. Only roots inside the
// project root or a directory the policy names (`mcp.roots`) pass; anything else, including a root that is
// not a local file:// URI, is dropped.

import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isWithin } from '../../policy/paths.ts';
import type { Params } from './jsonrpc.ts';

/** Where a path really lands: the deepest existing ancestor resolved through its symlinks, the rest appended. */
export function canonicalPath(p: string): string {
  const abs = resolve(p);
  const rest: string[] = [];
  for (let cur = abs; ; cur = dirname(cur)) {
    try {
      return join(realpathSync(cur), ...rest);
    } catch {
      if (dirname(cur) === cur) return abs;
      rest.unshift(basename(cur));
    }
  }
}

/** A root's directory, or null when it is not a local file:// URI. */
export function rootPath(uri: unknown): string | null {
  if (typeof uri !== 'string' || !/^file:\/\//i.test(uri)) return null;
  try {
    const p = fileURLToPath(uri);
    return isAbsolute(p) && !p.includes('\0') ? p : null;
  } catch {
    return null;
  }
}

/** The directories roots must lie in: each entry an absolute path or a file:// URI (others are ignored). */
export function allowedRootDirs(projectRoot: string, extra: readonly string[]): string[] {
  const dirs = [projectRoot];
  for (const e of extra) {
    const p = /^file:\/\//i.test(e) ? rootPath(e) : isAbsolute(e) ? e : null;
    if (p !== null) dirs.push(p);
  }
  return [...new Set(dirs.map(canonicalPath))];
}

export interface FilteredRoots {
  result: Params;
  /** URIs of the roots taken out. */
  dropped: string[];
}

/** A `roots/list` result with only the roots inside `allowed` (canonical directories). Never throws. */
export function filterRoots(result: Params, allowed: readonly string[]): FilteredRoots {
  const roots = Array.isArray(result['roots']) ? (result['roots'] as unknown[]) : [];
  const kept: unknown[] = [];
  const dropped: string[] = [];
  for (const r of roots) {
    const uri = typeof r === 'object' && r !== null ? (r as Record<string, unknown>)['uri'] : undefined;
    const p = rootPath(uri);
    const real = p === null ? null : canonicalPath(p);
    if (real !== null && allowed.some((a) => isWithin(a, real))) kept.push(r);
    else dropped.push(typeof uri === 'string' ? uri : JSON.stringify(r));
  }
  return { result: { ...result, roots: kept }, dropped };
}
