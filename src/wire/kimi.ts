// Kimi CLI's config.toml and asimov's PreToolUse hook in it (Kimi CLI's hooks documentation; DOCS ONLY):
// - hooks are `[[hooks]]` array tables in `~/.kimi/config.toml`, each with `event`, `command`, optional
//   `matcher` (a regex on the tool name; absent or "" matches every tool) and `timeout` (whole SECONDS,
//   1–600, default 30). Kimi Code's docs add that a table with any other field, or an unknown event, makes
//   the whole config fail to load: asimov's table holds exactly event, command and timeout.
// - a hook that fails, times out or exits other than 0/2 lets the tool run (see src/adapters/kimi.ts).
// config.toml is the person's own file, so it is edited in place with codex-trust.ts's TOML scanner: only
// the bytes of asimov's own table are added, replaced or removed.

import { join } from 'node:path';
import { KIMI_EVENT } from '../adapters/kimi.ts';
import { scanToml, stringValue, tomlString } from './codex-trust.ts';
import { isAsimovHookCommand } from './hook-command.ts';
import { invalidAt } from './json-settings.ts';
import type { PlanOptions, TargetContext, WireTarget } from './targets.ts';

/** Kimi's bounds on a hook's timeout, in seconds. */
const MAX_TIMEOUT_SEC = 600;

export function kimiConfigPath(scope: string, ctx: TargetContext): string {
  if (scope === 'user') return join(ctx.home, '.kimi', 'config.toml');
  throw new RangeError(`unknown Kimi CLI config scope '${scope}'`);
}

/** asimov's `[[hooks]]` table, every byte of it, in the file's line ending. */
export function kimiHookTable(command: string, timeoutSec: number, eol = '\n'): string {
  const timeout = Math.min(MAX_TIMEOUT_SEC, Math.max(1, Math.ceil(timeoutSec)));
  return `[[hooks]]${eol}event = ${tomlString(KIMI_EVENT)}${eol}command = ${tomlString(command)}${eol}timeout = ${timeout}${eol}`;
}

interface HooksTable {
  /** From the header's line to the end of its last statement's line. */
  start: number;
  end: number;
  command: string | null;
}

/** Every `[[hooks]]` table of the text, in file order; throws where hooks are written in another form. */
function hooksTables(text: string, file: string): HooksTable[] {
  const out: HooksTable[] = [];
  let current: HooksTable | null = null;
  let inRoot = true;
  for (const s of scanToml(text, file)) {
    if (s.kind === 'keyval') {
      if (current) {
        current.end = s.end;
        if (s.path.length === 1 && s.path[0] === 'command') current.command = stringValue(text.slice(s.valueStart, s.valueEnd));
      } else if (inRoot && s.path[0] === 'hooks') {
        throw invalidAt({ text, file }, s.start, '`hooks` is written here as a key; asimov edits Kimi\'s hooks only as [[hooks]] tables');
      }
      continue;
    }
    inRoot = false;
    current = null;
    if (s.kind === 'array-table' && s.path.length === 1 && s.path[0] === 'hooks') {
      current = { start: s.start, end: s.end, command: null };
      out.push(current);
    } else if (s.path[0] === 'hooks') {
      throw invalidAt({ text, file }, s.start, `[${s.path.join('.')}] is in the way of Kimi's [[hooks]] list; asimov does not edit it`);
    }
  }
  return out;
}

/** Installs, updates or removes asimov's PreToolUse hook in the text of Kimi's config.toml. */
export function planKimiHooks(text: string | null, o: PlanOptions): { text: string | null; changes: string[] } {
  const before = text ?? '';
  const ours = hooksTables(before, o.file).filter((t) => t.command !== null && isAsimovHookCommand(t.command, 'kimi'));
  const eol = /\r\n/.test(before) ? '\r\n' : '\n';
  const want = o.uninstall ? null : kimiHookTable(o.command, o.timeoutSec, eol);
  const keep = o.uninstall ? undefined : ours[0];
  const rest = o.uninstall ? ours : ours.slice(1);
  let t = before;
  const changes: string[] = [];
  // From the end, so that earlier offsets stay right.
  for (const table of [...rest].reverse()) t = removeTable(t, table);
  if (rest.length > 0) changes.push(o.uninstall ? `removed ${KIMI_EVENT} hook${rest.length > 1 ? `s (${rest.length})` : ''}` : `removed ${rest.length} duplicate ${KIMI_EVENT} hook${rest.length > 1 ? 's' : ''}`);
  if (want !== null) {
    if (!keep) {
      const sep = t === '' ? '' : t.endsWith('\n') ? eol : eol + eol;
      t += sep + want;
      changes.push(`added ${KIMI_EVENT} hook`);
    } else if (t.slice(keep.start, keep.end) !== want) {
      t = t.slice(0, keep.start) + want + t.slice(keep.end);
      changes.push(`updated ${KIMI_EVENT} hook (event, command and timeout as asimov writes them; no matcher, so it sees every tool)`);
    }
  }
  if (changes.length === 0) return { text, changes };
  return { text: text === null && t === '' ? null : t, changes };
}

/** Removes a table and the blank line that set it apart, so that install then uninstall gives the bytes back. */
function removeTable(t: string, table: HooksTable): string {
  let start = table.start;
  let end = table.end;
  const blank = /(\r?\n)[ \t]*\r?\n$/.exec(t.slice(0, start));
  if (blank) start -= blank[0].length - blank[1]!.length;
  else if (start === 0) {
    const after = /^[ \t]*\r?\n/.exec(t.slice(end));
    if (after) end += after[0].length;
  }
  return t.slice(0, start) + t.slice(end);
}

export const kimiTarget: WireTarget = {
  client: 'kimi',
  label: 'Kimi CLI config',
  scopes: ['user'],
  configPath: kimiConfigPath,
  modes: () => ({ fileMode: 0o600, dirMode: 0o700 }),
  plan: planKimiHooks,
  notes: () => [
    'Kimi CLI follows its documentation here; this integration has not been run against a real Kimi CLI.',
    'Kimi CLI sessions already running need a restart to pick this up.',
  ],
};
