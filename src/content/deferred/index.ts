// Which files run code later, and what they will run: the dispatcher over the per-kind extractors.
// STUB (to be completed by the extractor work): kind detection by path and the script kinds only.

import type { DeferredContent, DeferredKind } from './types.ts';

export type { DeferredCommand, DeferredContent, DeferredKind, DeferredSignal } from './types.ts';

/** Where a path sits, for kind detection: the home directory and the project root, both absolute. */
export interface DeferredPlace {
  home: string;
  projectRoot: string;
}

/**
 * The kind of a file that runs code later, from its absolute path (after symlinks were resolved by the
 * caller), or null for a file that does not. Pure: reads nothing.
 */
export function deferredKindOf(absPath: string, place: DeferredPlace): DeferredKind | null {
  const rel = absPath.startsWith(place.projectRoot + '/') ? absPath.slice(place.projectRoot.length + 1) : null;
  if (rel !== null) {
    if (rel.startsWith('.husky/') && !rel.startsWith('.husky/_/')) return 'hook-manager';
    if (rel.startsWith('.git/hooks/')) return 'git-hook';
    if (rel === '.envrc') return 'envrc';
  }
  return null;
}

/** What a file of `kind` with this content will run. Never throws: unreadable structure falls back to lines. */
export function extractDeferred(kind: DeferredKind, content: string, absPath: string): DeferredContent {
  void absPath;
  return { kind, label: kind, commands: [{ line: content, where: 'the whole file' }], signals: [], partial: false };
}
