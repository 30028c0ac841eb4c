// Small shared pieces of the deferred-execution extractors: the collector that caps what one file yields,
// POSIX quoting for argv values (systemd, launchd, devcontainer arrays run without a shell, so their words
// must reach the shell engine as the same words), shebang reading, and line numbers.

import type { DeferredCommand, DeferredSignal } from './types.ts';

/** At most this many commands per file: past it the file is reported partial (a planted step hides in bulk). */
export const MAX_COMMANDS = 500;
/** At most this many signals per file: one is enough for a decision, a few help the reason. */
export const MAX_SIGNALS = 50;

/** What one extractor run gathers; `partial` becomes true when something could not be read or was cut. */
export class Collector {
  readonly commands: DeferredCommand[] = [];
  readonly signals: DeferredSignal[] = [];
  partial = false;
  interpreter: string | undefined;
  /** Keys of findings already reported once per file (an env entry seen from every step in its scope). */
  readonly reported = new Set<string>();

  get full(): boolean {
    return this.commands.length >= MAX_COMMANDS;
  }

  command(line: string, where: string, lang?: string): void {
    if (line.trim() === '') return;
    line = line.replace(/\n+$/, ''); // a block scalar's or a file's final newline means nothing to the shell
    if (this.commands.length >= MAX_COMMANDS) {
      this.partial = true;
      return;
    }
    this.commands.push(lang ? { line, where, lang } : { line, where });
  }

  signal(s: DeferredSignal): void {
    if (this.signals.length >= MAX_SIGNALS) return;
    if (this.signals.some((x) => x.kind === s.kind && x.where === s.where && x.detail === s.detail)) return;
    this.signals.push(s);
  }
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argv word as a POSIX shell word that means the same bytes. */
export function shQuote(word: string): string {
  if (word !== '' && SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An argv (no shell involved when it runs) as one shell line with the same words. */
export function argvLine(argv: readonly string[]): string {
  return argv.map(shQuote).join(' ');
}

/** 1-based line numbers of character offsets, by binary search over the line starts (one linear pass). */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

/** Interpreters the shell engine can read a script of (POSIX-like shells). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox', 'yash', 'posh', 'lksh', 'pdksh', 'ksh93']);

export interface Shebang {
  /** Normalised interpreter name: 'sh' for any POSIX shell, 'python', 'node', 'fish', or the program's basename. */
  interpreter: string;
  /** The whole first line, for reasons. */
  line: string;
}

/**
 * The interpreter a `#!` first line names, through `/usr/bin/env [-S] [-i] [NAME=value] prog`. Null when the
 * file has no shebang (a file without one is run by the shell: execve fails and the calling shell reads it).
 */
export function readShebang(text: string): Shebang | null {
  if (!text.startsWith('#!')) return null;
  const nl = text.indexOf('\n');
  const line = nl === -1 ? text : text.slice(0, nl);
  const words = line.slice(2).trim().split(/\s+/).filter((w) => w !== '');
  let i = 0;
  let prog = words[i] ?? '';
  if (basename(prog) === 'env') {
    i++;
    // env's own options and NAME=value assignments come before the program.
    while (i < words.length && (words[i]!.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!))) {
      const w = words[i]!;
      i++;
      if ((w === '-u' || w === '-C' || w === '--unset' || w === '--chdir') && i < words.length) i++;
    }
    prog = words[i] ?? '';
  }
  return { interpreter: normaliseInterpreter(basename(prog)), line };
}

function basename(p: string): string {
  const i = p.lastIndexOf('/');
  return i === -1 ? p : p.slice(i + 1);
}

/** python3.12 -> python, nodejs -> node, bash -> sh; an empty name (a bare `#!`) is the shell. */
export function normaliseInterpreter(name: string): string {
  if (name === '') return 'sh';
  const bare = name.replace(/[\d.]+$/, '');
  if (SHELLS.has(bare)) return 'sh';
  if (bare === 'python' || bare === 'pypy') return 'python';
  if (bare === 'nodejs' || bare === 'node') return 'node';
  return bare || name;
}
