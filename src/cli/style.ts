// Output for people: colour when standard output is a terminal that wants it, and aligned tables.
// Colour follows the conventions users set once for every tool: NO_COLOR (any non-empty value) turns it
// off, FORCE_COLOR (not "0") turns it on even into a pipe, TERM=dumb turns it off. Machine output
// (--json, hook replies, the MCP protocol) never goes through here.

import type { CliIO } from './io.ts';

export interface Style {
  readonly enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  /** A decision or tier word in its colour: deny/hard_deny red, ask/soft_deny/unknown yellow, allow green. */
  verdict(word: string): string;
}

/** Whether output to a stream of this kind should be coloured, by the environment's conventions. */
export function colorWanted(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return isTTY === true;
}

const sgr = (on: number, off: number) => (s: string): string => `\x1b[${on}m${s}\x1b[${off}m`;
const plain = (s: string): string => s;

export function makeStyle(enabled: boolean): Style {
  const c = enabled
    ? { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) }
    : { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    enabled,
    ...c,
    verdict(word) {
      if (/^(hard_deny|deny|denied|failed|broken)$/i.test(word)) return c.red(word);
      if (/^(soft_deny|ask|unknown|warning|outdated|partial)$/i.test(word)) return c.yellow(word);
      if (/^(allow|allowed|ok|installed|intact|passed)$/i.test(word)) return c.green(word);
      return word;
    },
  };
}

/** The style for a command's standard output. */
export function styleOf(io: CliIO): Style {
  return makeStyle(io.color === true);
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** The width a string takes on a terminal, colour codes left out. */
export function visibleWidth(s: string): number {
  return s.replace(ANSI, '').length;
}

/**
 * Rows as aligned columns, two spaces apart; the last column is not padded (it may wrap). A header row,
 * when given, is set in bold.
 */
export function table(rows: string[][], o: { head?: string[]; style?: Style; indent?: string } = {}): string {
  const all = o.head ? [o.head, ...rows] : rows;
  const cols = Math.max(0, ...all.map((r) => r.length));
  const width = Array.from({ length: cols }, (_, i) => Math.max(0, ...all.map((r) => visibleWidth(r[i] ?? ''))));
  const line = (r: string[]): string => (o.indent ?? '') + r
    .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(width[i]! - visibleWidth(cell))))
    .join('  ')
    .trimEnd();
  const out = rows.map(line);
  if (o.head) out.unshift(line(o.head.map((h) => (o.style ? o.style.bold(h) : h))));
  return out.join('\n');
}
