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
  let name = v === null || v === '' ? null : basename(v).toLowerCase();
  // A Windows program reached through Git Bash or WSL (`curl.exe`, `.\venv\Scripts\python.exe`, `rm.exe`) is
  // the same program: judged by the same rules (a tightening for `rm.exe -rf ~` as much as a loosening).
  if (name !== null && name.length > 4 && name.endsWith('.exe')) name = name.slice(0, -4);
  slots.program = name;
  return name;
}

/**
 * Derived facts about one command, shared by the rules that look at it (its program name here, the
 * policy's per-command facts in `facts`). Not part of the analysis' data: kept in a private field
 * (see SlotHolder), so that JSON, spreads and deep equality never see it.
 */
export interface CommandSlots {
  program: string | null | undefined;
  /** argTexts' answer. */
  args: readonly string[] | undefined;
  facts: unknown;
}

function emptySlots(): CommandSlots {
  return { program: undefined, args: undefined, facts: undefined };
}

/**
 * A base class whose constructor returns its argument: `new` on a subclass then defines the subclass's
 * private fields on that existing object instead of a fresh one (class fields' "return override").
 */
class ReturnsItsArgument {
  constructor(target: object) {
    return target;
  }
}

/**
 * Gives a command its slots as a private field. Every rule asks for every command's slots, so this is
 * on the hot path: defining a private field is an ordinary inline-cached store, where the
 * non-enumerable symbol property used before cost an `Object.defineProperty` runtime call per command.
 * A private field is, like that property, invisible to JSON, spreads (`{ ...cmd, argv }` gets fresh
 * slots, so a copy with other words never reuses the original's program name), deep equality and
 * reflection. One field holding one object of fixed shape keeps commands to the few hidden classes
 * the analysis itself makes, so property loads on commands stay monomorphic in the rules.
 */
class SlotHolder extends ReturnsItsArgument {
  #slots: CommandSlots = emptySlots();

  static attach(cmd: SimpleCommand): void {
    // Defining the field twice on one object would throw: a command that has slots keeps them.
    if (!(#slots in cmd)) new SlotHolder(cmd);
  }

  static of(cmd: SimpleCommand): CommandSlots {
    if (#slots in cmd) return (cmd as SlotHolder).#slots;
    if (Object.isExtensible(cmd)) return (new SlotHolder(cmd) as SlotHolder).#slots;
    let s = foreignSlots.get(cmd);
    if (!s) foreignSlots.set(cmd, (s = emptySlots()));
    return s;
  }
}

/** Slots for frozen commands (built by hand, or frozen), by identity: a private field cannot be added to them. */
const foreignSlots = new WeakMap<SimpleCommand, CommandSlots>();

/**
 * Gives a command its slots as it is made (a command that has them keeps them), and returns it. The analysis does this for every command it makes, so that no command reaches the rules
 * without slots: commands given slots lazily, whenever a rule first asked, came in each of their
 * shapes both without and with the field, twice the hidden classes, and every property load on a
 * command in every rule (`cmd.argv`, `cmd.redirects`…) turned megamorphic. Measured, that cost far
 * more than making the slots.
 */
export function withSlots<T extends SimpleCommand>(cmd: T): T {
  SlotHolder.attach(cmd);
  return cmd;
}

export function commandSlots(cmd: SimpleCommand): CommandSlots {
  return SlotHolder.of(cmd);
}

export function basename(p: string): string {
  let end = p.length;
  while (end > 1 && p[end - 1] === '/') end--;
  const i = p.lastIndexOf('/', end - 1);
  return p.slice(i + 1, end);
}

// Made once: a regular expression literal inside the function is a new object on every call.
const VERSIONED_INTERPRETER =
  /^(python|pypy|node|nodejs|perl|ruby|php|lua|luajit|bash|zsh|sh|dash|ksh|mksh|fish|tclsh|wish|pwsh|deno|bun|osascript|awk|gawk|mawk|nawk|busybox)[0-9.\-]*$/;

/**
 * The family of a versioned interpreter name: `python3.11` -> `python`, `node20` -> `node`.
 * Used so rules about an interpreter catch every version of it.
 */
export function interpreterFamily(name: string): string {
  const m = VERSIONED_INTERPRETER.exec(name);
  if (!m) return name;
  const base = m[1]!;
  return base === 'nodejs' ? 'node' : base;
}

/**
 * The words after the program, each as its static value, or as written (`$x`, `$(…)` left in) when it
 * is dynamic: `cmd.argv.slice(1).map((w) => staticValue(w) ?? w.value)`, which many rules need for
 * the same command, computed once per command. Read-only: it is shared by every rule that asks.
 */
export function argTexts(cmd: SimpleCommand): readonly string[] {
  const slots = commandSlots(cmd);
  if (slots.args !== undefined) return slots.args;
  const out: string[] = [];
  for (let i = 1; i < cmd.argv.length; i++) {
    const w = cmd.argv[i]!;
    out.push(staticValue(w) ?? w.value);
  }
  slots.args = out;
  return out;
}

/** argv values, with null for dynamic words. */
export function argValues(cmd: SimpleCommand): (string | null)[] {
  return cmd.argv.map(staticValue);
}
