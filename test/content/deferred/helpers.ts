// Shared helpers of the deferred-execution extractor tests.
import { extractDeferred, type DeferredContent, type DeferredKind } from '../../../src/content/deferred/index.ts';

export const PROJECT = '/home/dev/project';
export const HOME = '/home/dev';
export const WF = `${PROJECT}/.github/workflows/ci.yml`;

export function ex(kind: DeferredKind, text: string, path: string): DeferredContent {
  return extractDeferred(kind, text, path);
}

export function lines(kind: DeferredKind, text: string, path: string): string[] {
  return ex(kind, text, path).commands.map((c) => c.line);
}

export function signals(kind: DeferredKind, text: string, path: string): string[] {
  return ex(kind, text, path).signals.map((s) => s.kind);
}

/** A row of a table test: the extraction must contain these lines (and, when given, exactly these signal kinds). */
export interface Row {
  name: string;
  kind: DeferredKind;
  path: string;
  text: string;
  /** Every one of these lines must be among the commands (substring match when it starts with '~'). */
  has?: string[];
  /** None of these may be a command (substring match when it starts with '~'). */
  not?: string[];
  /** Exactly this multiset of signal kinds (sorted). */
  signals?: string[];
  partial?: boolean;
  interpreter?: string;
}

export function checkRow(r: Row): string[] {
  const got = ex(r.kind, r.text, r.path);
  const ls = got.commands.map((c) => c.line);
  const problems: string[] = [];
  const found = (want: string): boolean => (want.startsWith('~') ? ls.some((l) => l.includes(want.slice(1))) : ls.includes(want));
  for (const w of r.has ?? []) if (!found(w)) problems.push(`missing command ${JSON.stringify(w)}`);
  for (const w of r.not ?? []) if (found(w)) problems.push(`unexpected command ${JSON.stringify(w)}`);
  if (r.signals) {
    const s = got.signals.map((x) => x.kind).sort();
    if (JSON.stringify(s) !== JSON.stringify([...r.signals].sort())) problems.push(`signals ${JSON.stringify(s)}, want ${JSON.stringify(r.signals)}`);
  }
  if (r.partial !== undefined && got.partial !== r.partial) problems.push(`partial ${got.partial}, want ${r.partial}`);
  if (r.interpreter !== undefined && got.interpreter !== r.interpreter) problems.push(`interpreter ${got.interpreter}, want ${r.interpreter}`);
  if (problems.length) problems.push(`got ${JSON.stringify(ls)}`);
  return problems;
}
