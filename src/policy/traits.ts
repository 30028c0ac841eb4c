// Cheap facts about one command, as a bitmask the engine computes once per command: a rule without a
// `programs` list that declares `needs` (rule.ts) is called only for commands with one of the traits it
// needs, so the forty-odd rules that would otherwise run for every `ls` and `grep` cost nothing there.
// Each trait is a plain test of the command's words; the rules that rely on one say why it covers them
// next to their `needs`, and test/policy/traits.test.ts checks every rule's examples against its pre-check.

import type { Analysis, SimpleCommand, Word } from '../shell/types.ts';
import { programName } from '../shell/program.ts';
import { mayHavePathTargets } from './rules/writes.ts';
import { familyOf, isAwkName } from './rules/exec.ts';

/**
 * - `assignment`: the command has `NAME=value` words (prefixes, or a bare assignment).
 * - `path-targets`: it may write, modify or delete a path (an output redirect, or a program that writes
 *   its arguments): exactly when `pathTargets` can be non-empty.
 * - `odd-name`: its command name is not a plain literal word (an expansion, a glob, quotes or escapes in it).
 * - `expansion`: one of its arguments expands a parameter (`$x`, `${x}`).
 * - `functions`: the line defines a shell function.
 * - `interpreter`: its program (programName: basename, lower-cased) is an interpreter of any version: a shell,
 *   pwsh, python, node, perl, ruby… (exec.ts familyOf is not null), an awk (isAwkName), or `busybox` (which
 *   runs one as an applet). Exactly the commands for which `invocation` can be non-null or `codeTexts` non-empty.
 * - `path-name`: its command name, as written, contains a `/` (`./build.sh`, `/usr/bin/x`): it runs a file by path.
 * - `input-redirect`: it reads a file through `<` or `<>`.
 * - `dev-path`: a word of it or a redirect target contains `/dev/` (`/dev/tcp/…`, `/dev/sda`).
 * - `quoted-substitution`: a word or an assignment value is literal text (quoted, so inert here) that holds
 *   `$(` or a backtick: text that would run a command if it reached arithmetic evaluation.
 * - `metadata-host`: a word of 8 characters or more contains `169.254`, `metadata`, `100.100` or `ec2::`, the
 *   marks of a cloud metadata endpoint's address.
 */
export type CommandTrait =
  | 'assignment' | 'path-targets' | 'odd-name' | 'expansion' | 'functions' | 'interpreter' | 'path-name'
  | 'input-redirect' | 'dev-path' | 'quoted-substitution' | 'metadata-host';

const BITS: Readonly<Record<CommandTrait, number>> = {
  assignment: 1,
  'path-targets': 2,
  'odd-name': 4,
  expansion: 8,
  functions: 16,
  interpreter: 32,
  'path-name': 64,
  'input-redirect': 128,
  'dev-path': 256,
  'quoted-substitution': 512,
  'metadata-host': 1024,
};

/** Every trait, in bit order (for tests and tools that list a command's traits). */
export const COMMAND_TRAITS: readonly CommandTrait[] = Object.keys(BITS) as CommandTrait[];

export function traitMask(traits: readonly CommandTrait[]): number {
  let m = 0;
  for (const t of traits) m |= BITS[t];
  return m;
}

/** Literal (inert) text holding a command substitution: obf.arith-substitution's holder. */
function quotedSubstitution(w: Word): boolean {
  return w.literal && (w.value.includes('$(') || w.value.includes('`'));
}

/** net.metadata's marks of a metadata endpoint in a word (the same tests, in the same case, as that rule). */
function metadataHost(v: string): boolean {
  return v.length >= 8 && (v.includes('169.254') || v.includes('metadata') || v.includes('100.100') || v.includes('ec2::'));
}

export function commandTraits(cmd: SimpleCommand, analysis: Analysis): number {
  let m = 0;
  const assignments = cmd.assignments;
  if (assignments.length > 0) {
    m |= BITS.assignment;
    for (let i = 0; i < assignments.length; i++) if (quotedSubstitution(assignments[i]!.value)) m |= BITS['quoted-substitution'];
  }
  if (mayHavePathTargets(cmd)) m |= BITS['path-targets'];
  const prog = programName(cmd);
  if (prog !== null && (familyOf(prog) !== null || prog === 'busybox' || isAwkName(prog))) m |= BITS.interpreter;
  const argv = cmd.argv;
  const w0 = argv[0];
  if (w0 !== undefined) {
    if (!w0.literal || w0.glob || w0.raw !== w0.value) m |= BITS['odd-name'];
    if (w0.value.includes('/')) m |= BITS['path-name'];
  }
  // One pass over the words for the word traits.
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i]!;
    const v = w.value;
    if (w.vars.length > 0) m |= BITS.expansion;
    if (v.includes('/dev/')) m |= BITS['dev-path'];
    if (quotedSubstitution(w)) m |= BITS['quoted-substitution'];
    if (metadataHost(v)) m |= BITS['metadata-host'];
  }
  const redirects = cmd.redirects;
  for (let i = 0; i < redirects.length; i++) {
    const r = redirects[i]!;
    if (r.op === '<' || r.op === '<>') m |= BITS['input-redirect'];
    if (r.target.value.includes('/dev/')) m |= BITS['dev-path'];
  }
  if (analysis.functions.length > 0) m |= BITS.functions;
  return m;
}
