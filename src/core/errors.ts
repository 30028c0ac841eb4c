// Errors as data: one error class with a closed set of codes, so every failure can be named in the
// audit log and turned into a deny with a reason a person can act on.

export type ErrorCode =
  | 'policy_not_found'
  | 'policy_parse_error'
  | 'policy_schema_error'
  | 'policy_example_failed'
  | 'policy_untrusted'
  | 'policy_io_error'
  | 'bad_input'
  | 'unknown_tool'
  | 'parse_limit'
  | 'audit_io_error'
  | 'audit_chain_broken'
  | 'wire_settings_invalid'
  | 'wire_io_error'
  | 'usage'
  | 'mcp_pins_invalid'
  | 'mcp_pins_io_error'
  | 'path_refused'
  | 'path_changed'
  | 'io_error'
  | 'exec_failed'
  | 'upstream_failed'
  | 'internal';

/** Where in a file an error was found. Lines and columns are 1-based. */
export interface ErrorLocation {
  file?: string;
  line?: number;
  column?: number;
  /** Dotted path of the key, e.g. `rules[2].match.argv`. */
  key?: string;
}

/**
 * Marks asimov's errors so that `instanceof` holds across bundles: the CLI's rarely used commands are built
 * as separate bundles, each with its own copy of this class, and an error thrown in one is caught in another.
 */
const ASIMOV_ERROR = Symbol.for('asimov.AsimovError');

export class AsimovError extends Error {
  readonly code: ErrorCode;
  readonly location: ErrorLocation | undefined;

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[ASIMOV_ERROR] === true;
  }

  constructor(code: ErrorCode, message: string, location?: ErrorLocation, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AsimovError';
    this.code = code;
    this.location = location;
  }

  get [ASIMOV_ERROR](): boolean {
    return true;
  }

  /** `file:line: key: message`, the form people grep for and editors can jump to. */
  override toString(): string {
    return formatLocated(this.message, this.location);
  }
}

export function formatLocated(message: string, loc?: ErrorLocation): string {
  if (!loc) return message;
  let where = loc.file ?? '';
  if (loc.line !== undefined) where += `${where ? ':' : 'line '}${loc.line}`;
  if (loc.column !== undefined && loc.line !== undefined) where += `:${loc.column}`;
  const key = loc.key ? `${loc.key}: ` : '';
  return where ? `${where}: ${key}${message}` : `${key}${message}`;
}

/** Any thrown value as a one-line message, never a bare stack trace. */
export function describeError(e: unknown): string {
  if (e instanceof AsimovError) return e.toString();
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

export function errorCodeOf(e: unknown): ErrorCode {
  return e instanceof AsimovError ? e.code : 'internal';
}

/** The errno code of a thrown value (`ENOENT`, `EEXIST`…), or undefined. */
export function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null | undefined)?.code;
}
