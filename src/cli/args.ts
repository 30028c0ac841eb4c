// Argument parsing shared by the commands: node's parseArgs, with its errors said the way asimov says a
// usage mistake (`unknown option --jsn (did you mean --json?)`), and "did you mean" for a mistyped name
// (a command, a subcommand), with the same closeness test the policy files' keys use.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from '../policy/schema.ts';
import { UsageError } from './io.ts';

/** ` (did you mean X?)` when one of `candidates` is close to `word`, else ''. */
export function suggestion(word: string, candidates: Iterable<string>, quote: (s: string) => string = (s) => `'${s}'`): string {
  const hint = didYouMean(word, candidates);
  return hint === undefined ? '' : ` (did you mean ${quote(hint)}?)`;
}

/** A usage error for a name that is not one of `known`: `unknown audit command 'tial' (did you mean 'tail'?)`. */
export function unknownName(what: string, name: string, known: readonly string[]): UsageError {
  const hint = suggestion(name, known);
  return new UsageError(`unknown ${what} '${name}'${hint || ` (${known.join(', ')})`}`);
}

/** The spellings a command's options accept: `--json`, `-h`. */
function optionNames(options: ParseArgsConfig['options']): string[] {
  const names: string[] = [];
  for (const [long, o] of Object.entries(options ?? {})) {
    names.push(`--${long}`);
    if (o.short) names.push(`-${o.short}`);
  }
  return names;
}

/**
 * A parseArgs error (ERR_PARSE_ARGS_*) reworded as a UsageError. With the command's options, an unknown
 * option gets the nearest one as a suggestion; without them (main.ts, for the commands not yet parsing
 * through parseOptions), the message only loses node's advice about `--`, which fits node, not asimov.
 */
export function parseError(e: unknown, options?: ParseArgsConfig['options']): UsageError | null {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return null;
  const message = (e as Error).message;
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const option = unknown[1]!;
    const hint = options ? suggestion(option.replace(/=.*$/, ''), optionNames(options), (s) => s) : '';
    return new UsageError(`unknown option ${option}${hint}`);
  }
  const missing = /^Option '(-\S+)(?:, (--\S+))? <value>' argument missing/.exec(message);
  if (missing) return new UsageError(`${missing[2] ?? missing[1]} needs a value`);
  const noValue = /^Option '(-\S+)(?:, (--\S+))?' does not take an argument/.exec(message);
  if (noValue) return new UsageError(`${noValue[2] ?? noValue[1]} takes no value`);
  const positional = /^Unexpected argument '([^']*)'/.exec(message);
  if (positional) return new UsageError(`unexpected argument '${positional[1]}': this command takes options only`);
  return new UsageError(message.replace(/\. To specify a positional argument.*$/s, ''));
}

/** parseArgs, with a usage mistake thrown as a UsageError that suggests the nearest option. */
export function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    throw parseError(e, config.options) ?? e;
  }
}
