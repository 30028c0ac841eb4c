// What a call would bring into existence inside the project: the file a Write tool creates, the files and
// directories a shell line's redirections, mkdir, touch, cp, mv, tee… create. The gate records these for the
// session after it allows the call (gate/session-files.ts), so that the agent may later remove what it made
// itself (`rm -rf repro_app`) without a person, while the user's own untracked work still asks.
//
// Only paths that do not exist when the call is decided count (the hook runs before the call), and for a path
// under directories that do not exist either, the topmost missing directory is what the call creates
// (`mkdir -p a/b/c` and a Write of `a/b/c.py` both create `a`).

import { lstatSync } from 'node:fs';
import { posix } from 'node:path';
import { extractPaths, extractShellCommand } from '../core/tools.ts';
import type { ToolCall } from '../core/types.ts';
import { analyzeShell } from '../shell/unwrap.ts';
import type { RuleContext } from './rule.ts';
import { toolPath } from './tool-paths.ts';
import { contextAt } from './workdir.ts';
import { mayHavePathTargets, pathTargets } from './rules/writes.ts';
import type { Analysis } from '../shell/types.ts';

/** A bound on the paths taken from one call: a line that creates thousands of paths is not a cleanup we need to help. */
const MAX_PER_CALL = 64;

/**
 * Absolute paths (symlinks resolved in the existing part) this call would create inside the project (a shell
 * line's analysis may be passed when the caller has it: it must be of the call's own command), each the
 * topmost one that does not exist yet. Empty for calls that create nothing, and for anything not understood:
 * what is not recorded can only make a later removal ask.
 */
export function pathsCreatedBy(call: ToolCall, ctx: RuleContext, analysis?: Analysis): CreatedPath[] {
  const out = new Map<string, boolean>();
  const add = (abs: string | null, inProject: boolean, dir: boolean) => {
    if (abs === null || !inProject || out.size >= MAX_PER_CALL) return;
    const top = topmostMissing(abs, ctx.projectRoot);
    if (top !== null) out.set(top, (out.get(top) ?? false) || dir || top !== abs);
  };
  if (call.tool === 'write' || call.tool === 'edit') {
    for (const p of extractPaths(call.tool, call.input)) {
      const info = toolPath(call, ctx, p);
      add(info.abs, info.classes.has('project') && !info.classes.has('project-root'), false);
    }
  } else if (call.tool === 'shell') {
    const command = extractShellCommand(call.input);
    if (command === null) return [];
    const a = analysis ?? analyzeShell(command);
    if (a.status !== 'ok') return [];
    for (const cmd of a.commands) {
      if (!mayHavePathTargets(cmd)) continue;
      const cctx = cmd.cwd === undefined ? ctx : contextAt(ctx, cmd.cwd);
      for (const t of pathTargets(cmd, cctx, a)) {
        // Every writing target creates its path when missing (a copy's or move's destination, a clone's
        // directory); touch is a 'modify' that creates too.
        if (t.placeholder || !(t.kind === 'write' || t.how === 'touch')) continue;
        add(t.info.abs, t.info.classes.has('project') && !t.info.classes.has('project-root'), DIR_HOWS.has(t.how));
      }
    }
  }
  return [...out].map(([path, dir]) => ({ path, dir }));
}

/** A path a call creates; `dir` when it is a directory (a missing parent of the target, or what mkdir makes). */
export interface CreatedPath {
  path: string;
  dir: boolean;
}

/** Writers whose target is a directory. */
const DIR_HOWS: ReadonlySet<string> = new Set(['mkdir', 'git clone', 'git worktree']);

/**
 * The topmost directory or file on the way from the project root to `abs` that does not exist; null when
 * `abs` exists (the call creates nothing there) or lies outside the root.
 */
export function topmostMissing(abs: string, projectRoot: string): string | null {
  const root = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
  if (!abs.startsWith(root)) return null;
  if (exists(abs)) return null;
  let top = abs;
  for (let dir = posix.dirname(abs); dir.length >= root.length && dir.startsWith(root); dir = posix.dirname(dir)) {
    if (exists(dir)) break;
    top = dir;
  }
  return top;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch (e) {
    // Only "no such file" means missing; a path we may not look at is treated as existing (not recorded).
    const code = (e as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}
