// Option parsing for rules: turns a command's words into normalized flags and operands, so that a rule
// asks "is -r set?" and gets the same answer for `-rf`, `-r -f`, `-fr` and `--recursive --force`.

import type { SimpleCommand, Word } from './types.ts';
import { staticValue } from './program.ts';

export interface ArgSpec {
  /** Short options that take a value (`n` for `head -n 5`; `-n5` works too). */
  shortWithValue?: string;
  /** Long options that take a value (`output` for `--output x` / `--output=x`). */
  longWithValue?: readonly string[];
  /** Long option name -> canonical name (`recursive` -> `r`), so both spellings read the same. */
  aliases?: Readonly<Record<string, string>>;
  /** Stop at the first operand (POSIX getopt); by default options after operands still count (GNU). */
  stopAtFirstOperand?: boolean;
  /** Treat `-word` as one long option (find, java, go tool style), instead of a cluster of letters. */
  singleDashLong?: boolean;
}

export interface ParsedArgs {
  /** Canonical flag name -> its value (true for flags without one). Later occurrences win. */
  flags: Map<string, string | true>;
  /** Every flag occurrence in order, for rules that care about repetition (`-f -f`). */
  flagList: { name: string; value: string | true; word: Word }[];
  /** Operands (non-option words), in order. */
  operands: Word[];
  /** A word that could be an option or an operand but is not known statically (`$FLAGS`, `$(…)`). */
  dynamic: boolean;
}

/** Parse the words after the program name (or pass explicit words). */
export function parseArgs(cmdOrWords: SimpleCommand | readonly Word[], spec: ArgSpec = {}): ParsedArgs {
  // Rules call this for most commands they look at: read the command's own argv from index 1 instead
  // of copying it, and look long options up in the spec's (short) list instead of building a Set.
  const explicit = Array.isArray(cmdOrWords);
  const words = explicit ? (cmdOrWords as readonly Word[]) : (cmdOrWords as SimpleCommand).argv;
  const first = explicit ? 0 : 1;
  const flags = new Map<string, string | true>();
  const flagList: ParsedArgs['flagList'] = [];
  const operands: Word[] = [];
  let dynamic = false;
  const shortWithValue = spec.shortWithValue ?? '';
  const longWithValue = spec.longWithValue;
  const aliases = spec.aliases;
  const set = (name: string, value: string | true, word: Word): void => {
    const c = aliases?.[name] ?? name;
    flags.set(c, value);
    flagList.push({ name: c, value, word });
  };

  let optionsDone = false;
  for (let i = first; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    // A word only known at run time could expand to an option as well as an operand.
    if (staticValue(w) === null) dynamic = true;
    if (optionsDone || v.length < 2 || v[0] !== '-') {
      operands.push(w);
      if (spec.stopAtFirstOperand) optionsDone = true;
      continue;
    }
    if (v === '--') {
      optionsDone = true;
      continue;
    }
    if (v.startsWith('--') || spec.singleDashLong) {
      const body = v.startsWith('--') ? v.slice(2) : v.slice(1);
      const eq = body.indexOf('=');
      if (eq >= 0) {
        set(body.slice(0, eq), body.slice(eq + 1), w);
      } else if (longWithValue !== undefined && longWithValue.includes(body) && i + 1 < words.length) {
        set(body, words[++i]!.value, w);
      } else {
        set(body, true, w);
      }
      continue;
    }
    // A cluster of short options: -rf, -n5, -xvzf file.
    for (let j = 1; j < v.length; j++) {
      const ch = v[j]!;
      if (shortWithValue.includes(ch)) {
        const rest = v.slice(j + 1);
        if (rest.length > 0) set(ch, rest, w);
        else if (i + 1 < words.length) set(ch, words[++i]!.value, w);
        else set(ch, true, w);
        break;
      }
      set(ch, true, w);
    }
  }
  return { flags, flagList, operands, dynamic };
}

/** True when any of the given canonical flags is set. */
export function hasFlag(args: ParsedArgs, ...names: string[]): boolean {
  for (const n of names) if (args.flags.has(n)) return true;
  return false;
}

/** The value of the first of the given flags that has one. */
export function flagValue(args: ParsedArgs, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = args.flags.get(n);
    if (typeof v === 'string') return v;
  }
  return undefined;
}
