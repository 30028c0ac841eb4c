// The hook-file shape Cursor and Windsurf share: `{"hooks": {"<event>": [{"command": …, …}, …]}}`, one flat
// list of entries per event (no matcher groups as in Claude Code's settings). This plans asimov's entries
// into such a file, one per event, and takes exactly them out again. Pure: text in, text and human-readable
// changes out; every edit goes through json-settings.ts, so the person's bytes stay as they were.

import type { Node } from 'jsonc-parser';
import { isAsimovHookCommand } from './hook-command.ts';
import {
  describeNode, invalidAt, isBlank, parseJsonDocument, pathToString, propertyNode, removeJsonValue, serializeJson, setJsonValue,
  type JsonDialect, type JsonDocument, type JsonPath,
} from './json-settings.ts';

export interface FlatHooksSpec {
  /** Client name in the hook command's marker (`# asimov-hook:<client>`). */
  client: string;
  /** The events asimov is installed for, in the order a new file lists them. */
  events: readonly string[];
  dialect: JsonDialect;
  /** asimov's entry for one event, every field in the order a new entry is written. */
  entry(event: string, command: string, timeoutSec: number): Record<string, unknown>;
  /** Top-level fields a file must carry for the client to read it (Cursor's `version: 1`). Optional. */
  required?: Record<string, unknown>;
  /** Fields of an entry that narrow which calls reach it (a matcher): removed from asimov's entries. */
  narrowing?: readonly string[];
}

export interface FlatHooksPlanOptions {
  command: string;
  timeoutSec: number;
  uninstall: boolean;
  /** For messages only: the file the text came from. */
  file: string;
}

/**
 * Installs (or with `uninstall`, removes) asimov's entry under every event of the spec. Installing is
 * idempotent: a current entry is left alone, one that differs is updated in place, duplicates go, and
 * a narrowing field (a matcher) is removed. Removing takes exactly asimov's entries, then the lists and
 * the `hooks` object that their removal emptied; the required top-level fields stay, being the person's
 * file's as much as ours.
 */
export function planFlatHooks(spec: FlatHooksSpec, text: string | null, o: FlatHooksPlanOptions): { text: string | null; changes: string[] } {
  if (text === null || isBlank(text)) {
    if (o.uninstall) return { text, changes: [] };
    const hooks = Object.fromEntries(spec.events.map((e) => [e, [spec.entry(e, o.command, o.timeoutSec)]]));
    return { text: serializeJson({ ...(spec.required ?? {}), hooks }), changes: spec.events.map((e) => `added ${e} hook`) };
  }
  const parse = (t: string) => parseJsonDocument(t, o.file, spec.dialect);
  let current = text;
  const changes: string[] = [];
  // Parse once up front so that a broken file is refused before anything is planned.
  parse(current);
  for (const event of spec.events) {
    const entries = findAsimovEntries(spec, parse(current), event);
    if (o.uninstall) {
      for (const i of [...entries].reverse()) current = removeEntry(current, parse, event, i);
      if (entries.length > 0) changes.push(`removed ${event} hook${entries.length > 1 ? `s (${entries.length})` : ''}`);
      continue;
    }
    const [keep, ...duplicates] = entries;
    if (keep === undefined) {
      const doc = parse(current);
      current = setJsonValue(doc, ['hooks', event, eventList(doc, event)?.children?.length ?? 0], spec.entry(event, o.command, o.timeoutSec));
      changes.push(`added ${event} hook`);
      continue;
    }
    for (const i of [...duplicates].reverse()) current = removeEntry(current, parse, event, i);
    if (duplicates.length > 0) changes.push(`removed ${duplicates.length} duplicate ${event} hook${duplicates.length > 1 ? 's' : ''}`);
    const at: JsonPath = ['hooks', event, keep];
    const what: string[] = [];
    const field = (key: string) => {
      const doc = parse(current);
      return propertyNode(doc, nodeAt(doc, at)!, key, at);
    };
    for (const [key, want] of Object.entries(spec.entry(event, o.command, o.timeoutSec))) {
      const have = field(key);
      if (have !== undefined && have.value === want) continue;
      current = setJsonValue(parse(current), [...at, key], want);
      what.push(key === 'command' ? 'new command line' : `${key} ${have === undefined ? 'unset' : JSON.stringify(have.value)} → ${JSON.stringify(want)}`);
    }
    for (const key of spec.narrowing ?? []) {
      const have = field(key);
      if (have === undefined) continue;
      current = removeJsonValue(parse(current), [...at, key]);
      what.push(`${key} ${JSON.stringify(have.value)} removed (asimov must see every call)`);
    }
    if (what.length > 0) changes.push(`updated ${event} hook: ${what.join(', ')}`);
  }
  if (!o.uninstall) {
    for (const [key, want] of Object.entries(spec.required ?? {})) {
      const doc = parse(current);
      const have = propertyNode(doc, doc.root, key);
      if (have !== undefined && have.value === want) continue;
      current = setJsonValue(doc, [key], want);
      changes.push(`set ${key} to ${JSON.stringify(want)}`);
    }
  }
  return { text: changes.length > 0 ? current : text, changes };
}

/** Whether the file holds asimov's entry under every event of the spec (for doctor and tests). */
export function flatHooksInstalled(spec: FlatHooksSpec, text: string | null, file: string): { events: string[]; complete: boolean } {
  if (text === null || isBlank(text)) return { events: [], complete: false };
  const doc = parseJsonDocument(text, file, spec.dialect);
  const events = spec.events.filter((e) => findAsimovEntries(spec, doc, e).length > 0);
  return { events, complete: events.length === spec.events.length };
}

function hooksObject(doc: JsonDocument): Node | undefined {
  const hooks = propertyNode(doc, doc.root, 'hooks');
  if (hooks && hooks.type !== 'object') throw invalidAt(doc, hooks.offset, `must be an object, found ${describeNode(hooks)}`, 'hooks');
  return hooks;
}

function eventList(doc: JsonDocument, event: string): Node | undefined {
  const hooks = hooksObject(doc);
  const list = hooks && propertyNode(doc, hooks, event, ['hooks']);
  if (list && list.type !== 'array') throw invalidAt(doc, list.offset, `must be a list ([ … ]), found ${describeNode(list)}`, pathToString(['hooks', event]));
  return list;
}

/** Indexes of asimov's entries under one event, in file order; entries of other shapes are not ours. */
function findAsimovEntries(spec: FlatHooksSpec, doc: JsonDocument, event: string): number[] {
  const out: number[] = [];
  (eventList(doc, event)?.children ?? []).forEach((n, i) => {
    if (n.type !== 'object') return;
    const c = propertyNode(doc, n, 'command', ['hooks', event, i]);
    if (c?.type === 'string' && isAsimovHookCommand(c.value, spec.client)) out.push(i);
  });
  return out;
}

/** Removes one entry, then the event's list and the `hooks` object if that left them empty. */
function removeEntry(text: string, parse: (t: string) => JsonDocument, event: string, index: number): string {
  let t = removeJsonValue(parse(text), ['hooks', event, index]);
  for (const path of [['hooks', event], ['hooks']] as JsonPath[]) {
    const doc = parse(t);
    const n = nodeAt(doc, path);
    if (!n || (n.children?.length ?? 0) > 0) break;
    t = removeJsonValue(doc, path);
  }
  return t;
}

function nodeAt(doc: JsonDocument, path: JsonPath): Node | undefined {
  let n: Node | undefined = doc.root;
  for (const seg of path) {
    if (!n) return undefined;
    n = typeof seg === 'string' ? (n.type === 'object' ? propertyNode(doc, n, seg) : undefined) : n.type === 'array' ? n.children?.[seg] : undefined;
  }
  return n;
}
