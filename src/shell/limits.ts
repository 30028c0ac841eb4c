// Hard limits on shell analysis, so hostile input fails fast and closed instead of exhausting the process.

/** Longest command line we analyse (characters); longer input is status `too_long`. */
export const MAX_INPUT_CHARS = 256 * 1024;

/**
 * Deepest nesting of constructs of any kind (subshells, groups, substitutions, quotes inside
 * substitutions, parameter expansions, compound commands…); deeper input is status `too_deep`.
 * Real commands rarely pass 10; the cap also bounds the parser's recursion depth.
 */
export const MAX_NESTING = 64;

/** Most commands plus words one line may contain; more is status `too_complex`. */
export const MAX_NODES = 20_000;

/** Most words one brace expansion may produce (`{1..100000}` would otherwise flood the rules). */
export const MAX_BRACE_RESULTS = 1024;

/**
 * Most unquoted `{` one word may hold for brace expansion; more is status `too_complex`. Matching
 * braces the way bash does costs time in the square of their number, so it is kept small.
 */
export const MAX_BRACES_PER_WORD = 128;
