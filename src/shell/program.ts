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
  // Every rule asks for it, for every command: remember the answer in the command's slots.
  const slots = commandSlots(cmd);
  const hit = slots.program;
  if (hit !== undefined) return hit;
  const v = staticValue(cmd.argv[0]);
  const name = v === null || v === '' ? null : basename(v).toLowerCase();
  slots.program = name;
  return name;
}

/**
 * Derived facts about one command, shared by the rules that look at it (its program name here, the
 * policy's per-command facts in `facts`). Not part of the analysis' data: kept under a non-enumerable
 * symbol, so that JSON, spreads and deep equality never see it.
 */
export interface CommandSlots {
  program: string | null | undefined;
  facts: unknown;
}

const SLOTS: unique symbol = Symbol('asimov.commandSlots');
type Slotted = SimpleCommand & { [SLOTS]?: CommandSlots };

/**
 * One slot object per command, under one symbol. Two symbols defined lazily, in whatever order rules
 * happened to ask, gave commands many hidden classes and made every property load on a command, in every
 * rule, megamorphic; one symbol keeps them to the few shapes the analysis itself makes. The slots object
 * always has the same two fields for the same reason.
 */
function withSlots<T extends SimpleCommand>(cmd: T): T {
  Object.defineProperty(cmd, SLOTS, { value: { program: undefined, facts: undefined } satisfies CommandSlots, enumerable: false });
  return cmd;
}

/** Slots for commands that did not come from the analysis (built by hand, or frozen), by identity. */
const foreignSlots = new WeakMap<SimpleCommand, CommandSlots>();

export function commandSlots(cmd: SimpleCommand): CommandSlots {
  const own = (cmd as Slotted)[SLOTS];
  if (own !== undefined) return own;
  if (Object.isExtensible(cmd)) return (withSlots(cmd) as Slotted)[SLOTS]!;
  let s = foreignSlots.get(cmd);
  if (!s) foreignSlots.set(cmd, (s = { program: undefined, facts: undefined }));
  return s;
}

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
