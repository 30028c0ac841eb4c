// Cheap facts about one command, as a bitmask the engine computes once per command: a rule without a
// `programs` list that declares `needs` (rule.ts) is called only for commands with one of the traits it
// needs, so the forty-odd rules that would otherwise run for every `ls` and `grep` cost nothing there.

import type { Analysis, SimpleCommand } from '../shell/types.ts';
import { mayHavePathTargets } from './rules/writes.ts';

/**
 * - `assignment`: the command has `NAME=value` words (prefixes, or a bare assignment).
 * - `path-targets`: it may write, modify or delete a path (an output redirect, or a program that writes
 *   its arguments): exactly when `pathTargets` can be non-empty.
 * - `odd-name`: its command name is not a plain literal word (an expansion, a glob, quotes or escapes in it).
 * - `expansion`: one of its arguments expands a parameter (`$x`, `${x}`).
 * - `functions`: the line defines a shell function.
 */
export type CommandTrait = 'assignment' | 'path-targets' | 'odd-name' | 'expansion' | 'functions';

const BITS: Readonly<Record<CommandTrait, number>> = {
  assignment: 1,
  'path-targets': 2,
  'odd-name': 4,
  expansion: 8,
  functions: 16,
};

export function traitMask(traits: readonly CommandTrait[]): number {
  let m = 0;
  for (const t of traits) m |= BITS[t];
  return m;
}

export function commandTraits(cmd: SimpleCommand, analysis: Analysis): number {
  let m = 0;
  if (cmd.assignments.length > 0) m |= BITS.assignment;
  if (mayHavePathTargets(cmd)) m |= BITS['path-targets'];
  const argv = cmd.argv;
  const w0 = argv[0];
  if (w0 !== undefined && (!w0.literal || w0.glob || w0.raw !== w0.value)) m |= BITS['odd-name'];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i]!.vars.length > 0) {
      m |= BITS.expansion;
      break;
    }
  }
  if (analysis.functions.length > 0) m |= BITS.functions;
  return m;
}
