// A RuleContext for a command that runs somewhere else than the call's cwd (shell/cwd.ts WorkDir): its path()
// resolves relative paths against that directory and follows the links earlier commands of the line made, so
// every rule (writes, reads, deletes) judges `cd ~ && rm -rf *` as `rm -rf ~/*` and `ln -s ~ h && … >> h/.bashrc`
// as a write to ~/.bashrc, without knowing about cd or links itself.

import { posix } from 'node:path';
import { basenameOfHome, type LineLink, type WorkDir } from '../shell/cwd.ts';
import type { PathClass, PathInfo } from './paths.ts';
import type { RuleContext } from './rule.ts';

const derived = new WeakMap<RuleContext, WeakMap<WorkDir, RuleContext>>();

/** The context a command with this WorkDir sees; one per (context, WorkDir), so per-command caches stay valid. */
export function contextAt(ctx: RuleContext, wd: WorkDir): RuleContext {
  let byDir = derived.get(ctx);
  if (!byDir) derived.set(ctx, (byDir = new WeakMap()));
  let out = byDir.get(wd);
  if (!out) byDir.set(wd, (out = makeContext(ctx, wd)));
  return out;
}

/**
 * The context the line starts in, from the one a command of it sees (itself when the command did not move).
 * Kept on the context itself, not in a module-level map: a bundle may hold two copies of this module.
 */
export function lineContext(ctx: RuleContext): RuleContext {
  return ctx.lineStart ?? ctx;
}

/** How many links one path may pass through (a link to a link…) before it is called dynamic. */
const MAX_HOPS = 8;

interface ResolvedLink {
  link: string;
  target: string | null;
}

function makeContext(parent: RuleContext, wd: WorkDir): RuleContext {
  const home = parent.home;
  const links: ResolvedLink[] = [];
  for (const l of wd.links ?? []) {
    const r = resolveLink(l, parent);
    if (r) links.push(r);
  }
  // Longest first: a link inside a linked directory wins over the directory.
  links.sort((a, b) => b.link.length - a.link.length);
  const follow = (abs: string): string | null => {
    let cur = abs;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      const l = links.find((x) => cur === x.link || cur.startsWith(x.link === '/' ? '/' : x.link + '/'));
      if (!l) return cur;
      if (l.target === null) return null;
      cur = cur === l.link ? l.target : posix.join(l.target, cur.slice(l.link.length));
    }
    return null;
  };
  const dirAbs = wd.dir === null ? null : lexical(wd.dir, parent.cwd, home);
  const cwd = dirAbs === null ? null : follow(dirAbs);
  const dynamic = (p: string): PathInfo => ({ input: p, abs: null, classes: new Set<PathClass>(['dynamic']) });
  const path = (p: string, literal?: boolean): PathInfo => {
    let abs: string | null;
    const pwd = /^(?:\$PWD|\$\{PWD\})(?=\/|$)/.exec(p);
    if (pwd) {
      if (cwd === null) return dynamic(p);
      abs = posix.join(cwd, p.slice(pwd[0].length));
    } else if (p.startsWith('/') || p === '~' || p.startsWith('~/') || /^(?:\$HOME|\$\{HOME\})(?=\/|$)/.test(p)) {
      if (links.length === 0) return parent.path(p, literal);
      abs = lexical(p, parent.cwd, home);
    } else if (p.startsWith('~') || p.startsWith('$') || p.startsWith('`') || p.startsWith('file:')) {
      return parent.path(p, literal);
    } else {
      if (cwd === null) return dynamic(p);
      abs = posix.resolve(cwd, p);
    }
    if (abs === null) return parent.path(p, literal);
    const real = follow(abs);
    if (real === null) return dynamic(p);
    // Keep a trailing slash (`rm -rf h/` follows the link h even when the rule looks at the word).
    const info = parent.path(p.endsWith('/') && real !== '/' ? real + '/' : real, literal);
    return info.input === p ? info : { ...info, input: p };
  };
  return {
    cwd: cwd ?? parent.cwd,
    projectRoot: parent.projectRoot,
    home,
    path,
    url: (u) => parent.url(u),
    allowedDomains: parent.allowedDomains,
    // Every field of the parent's, in its order (createRuleContext): the same shape, nothing lost after a cd.
    dlpAllow: parent.dlpAllow,
    defaultBranches: parent.defaultBranches,
    protectedNames: parent.protectedNames,
    declaredPackages: () => parent.declaredPackages(),
    classifyLine: (line) => parent.classifyLine(line),
    createdInSession: (abs) => parent.createdInSession(abs),
    lineStart: parent.lineStart ?? parent,
  };
}

/** `~`, `$HOME` expanded and the rest resolved from cwd, without touching the disk; null when dynamic. */
function lexical(p: string, cwd: string, home: string): string | null {
  let v = p;
  const m = /^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/.exec(v);
  if (m) v = home + v.slice(m[0].length);
  if (v.includes(basenameOfHome)) v = v.split(basenameOfHome).join(posix.basename(home));
  if (/[$`]/.test(v) || v.startsWith('~')) return null;
  return posix.resolve(cwd, v);
}

function resolveLink(l: LineLink, ctx: RuleContext): ResolvedLink | null {
  if (l.link === null) return null; // a link whose name is only known at run time: nothing can be followed through it
  const link = lexical(l.link, ctx.cwd, ctx.home);
  if (link === null) return null;
  const target = l.target === null ? null : lexical(l.target, ctx.cwd, ctx.home);
  return { link, target };
}
