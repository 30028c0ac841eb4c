// Names of programs as rules see them: `/usr/bin/RM` and `rm` are the same program to a rule.

import type { SimpleCommand, Word } from './types.ts';

/** A word's value when it is known statically (constant-propagated values count), else null. */
export function staticValue(w: Word | undefined): string | null {
  if (!w) return null;
  if (w.literal) return w.value;
  if (w.glob || w.substitutions.length > 0 || w.value.includes('$') || w.value.includes('`')) return null;
  return w.value;
}

/**
 * The program a command runs: basename of argv[0], lower-cased (macOS file systems are case-insensitive,
 * so `RM` runs rm there). Null when the name is dynamic or the command has no program.
 */
export function programName(cmd: SimpleCommand): string | null {
  // Every rule asks for it, for every command: remember the answer on the command itself (a hidden,
  // non-enumerable slot; a WeakMap lookup per call costs more than the name).
  const slot = cmd as SimpleCommand & { [PROGRAM]?: string | null };
  const hit = slot[PROGRAM];
  if (hit !== undefined) return hit;
  const v = staticValue(cmd.argv[0]);
  const name = v === null || v === '' ? null : basename(v).toLowerCase();
  if (Object.isExtensible(cmd)) Object.defineProperty(cmd, PROGRAM, { value: name, enumerable: false });
  return name;
}

const PROGRAM: unique symbol = Symbol('asimov.programName');

export function basename(p: string): string {
  let end = p.length;
  while (end > 1 && p[end - 1] === '/') end--;
  const i = p.lastIndexOf('/', end - 1);
  return p.slice(i + 1, end);
}

/**
 * The family of a versioned interpreter name: `python3.11` -> `python`, `node20` -> `node`.
 * Used so rules about an interpreter catch every version of it.
 */
export function interpreterFamily(name: string): string {
  const m = /^(python|pypy|node|nodejs|perl|ruby|php|lua|luajit|bash|zsh|sh|dash|ksh|mksh|fish|tclsh|wish|pwsh|deno|bun|osascript|awk|gawk|mawk|nawk|busybox)[0-9.\-]*$/.exec(name);
  if (!m) return name;
  const base = m[1]!;
  return base === 'nodejs' ? 'node' : base;
}

/** argv values, with null for dynamic words. */
export function argValues(cmd: SimpleCommand): (string | null)[] {
  return cmd.argv.map(staticValue);
}
