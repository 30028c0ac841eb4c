// Gemini CLI's settings files and asimov's BeforeTool hook in them: where the files are, what asimov's
// entry looks like, and the edit that installs, updates or removes exactly that entry. Pure: text in, text
// and a list of human-readable changes out. Facts from @google/gemini-cli 0.61.0 (its settings loader,
// hook registry and hook runner):
// - user `~/.gemini/settings.json` (`GEMINI_CLI_HOME` replaces the home directory), project
//   `<project>/.gemini/settings.json` (read from the directory gemini runs in), system
//   `/etc/gemini-cli/settings.json` (`GEMINI_CLI_SYSTEM_SETTINGS_PATH` replaces it), applied last.
// - The files may hold comments (strip-json-comments), but not trailing commas (JSON.parse).
// - A hook is `{name, type: "command", command, timeout}` inside `{matcher, hooks: [...]}` under
//   `hooks.BeforeTool`; `timeout` is in MILLISECONDS; matcher "*" (or none) matches every tool.
// - `hooksConfig.enabled: false` switches every hook off; `hooksConfig.disabled` lists hook names
//   (name, else command) that do not run.

import { join, resolve } from 'node:path';
import type { Node } from 'jsonc-parser';
import { isAsimovHookCommand } from './hook-command.ts';
import {
  describeNode, invalidAt, isBlank, parseJsonDocument, pathToString, propertyNode, removeJsonValue, serializeJson, setJsonValue,
  type JsonDialect, type JsonDocument, type JsonPath,
} from './json-settings.ts';
import type { WireTarget } from './targets.ts';

export const GEMINI_EVENT = 'BeforeTool';
/** Matches every tool, MCP tools included (Gemini treats "*" as match-all rather than as a regex). */
export const GEMINI_MATCHER = '*';
/** The hook's name: what Gemini shows in its hook list and what `hooksConfig.disabled` would name. */
export const GEMINI_HOOK_NAME = 'asimov';
const ALL_TOOLS_MATCHERS: ReadonlySet<string> = new Set(['', '*', '.*']);

export const GEMINI_DIALECT: JsonDialect = { comments: true, trailingCommas: false };

export type GeminiScope = 'user' | 'project' | 'system';

export function geminiSettingsPath(scope: string, o: { home: string; projectRoot: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): string {
  if (scope === 'user') return join(o.env.GEMINI_CLI_HOME ? resolve(o.env.GEMINI_CLI_HOME) : o.home, '.gemini', 'settings.json');
  if (scope === 'project') return join(o.projectRoot, '.gemini', 'settings.json');
  if (scope === 'system') {
    if (o.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH) return resolve(o.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH);
    const platform = o.platform ?? process.platform;
    if (platform === 'darwin') return '/Library/Application Support/GeminiCli/settings.json';
    if (platform === 'win32') return 'C:\\ProgramData\\gemini-cli\\settings.json';
    return '/etc/gemini-cli/settings.json';
  }
  throw new RangeError(`unknown Gemini CLI settings scope '${scope}'`);
}

export interface GeminiHookPlanOptions {
  command: string;
  /** The client timeout in seconds, as buildHookCommand gives it; written in milliseconds. */
  timeoutSec: number;
  uninstall: boolean;
  /** For messages only: the file the text came from. */
  file: string;
}

interface AsimovEntry {
  group: number;
  hook: number;
  matcher: string;
  command: string;
  name: unknown;
  type: unknown;
  timeout: unknown;
}

/**
 * Installs (or with `uninstall`, removes) asimov's BeforeTool hook. Installing is idempotent: an entry with
 * the same name, command and timeout is left alone, one that differs is updated in place, duplicates and
 * entries under a narrower matcher are removed, and `asimov` is taken off `hooksConfig.disabled`. Removing
 * takes exactly asimov's entries and then only the containers their removal emptied.
 */
export function planGeminiHooks(text: string | null, o: GeminiHookPlanOptions): { text: string | null; changes: string[] } {
  const timeoutMs = o.timeoutSec * 1000;
  if (text === null || isBlank(text)) {
    if (o.uninstall) return { text, changes: [] };
    return { text: serializeJson({ hooks: { [GEMINI_EVENT]: [hookGroup(o.command, timeoutMs)] } }), changes: [addedLine()] };
  }
  const parse = (t: string) => parseJsonDocument(t, o.file, GEMINI_DIALECT);
  const changes: string[] = [];
  let current = text;
  let entries = findAsimovEntries(parse(current));
  if (o.uninstall) {
    for (const e of [...entries].reverse()) current = removeEntry(current, parse, e);
    if (entries.length > 0) changes.push(`removed ${GEMINI_EVENT} hook${entries.length > 1 ? `s (${entries.length})` : ''}`);
    return { text: changes.length > 0 ? current : text, changes };
  }
  refuseIfHooksOff(parse(current));
  const narrow = entries.filter((e) => !ALL_TOOLS_MATCHERS.has(e.matcher));
  if (narrow.length > 0) {
    for (const e of [...narrow].reverse()) current = removeEntry(current, parse, e);
    for (const e of narrow) changes.push(`removed ${GEMINI_EVENT} hook under matcher "${e.matcher}" (it does not cover every tool)`);
    entries = findAsimovEntries(parse(current));
  }
  const [keep, ...duplicates] = entries;
  if (!keep) {
    const doc = parse(current);
    current = setJsonValue(doc, ['hooks', GEMINI_EVENT, eventList(doc)?.children?.length ?? 0], hookGroup(o.command, timeoutMs));
    changes.push(addedLine());
  } else {
    for (const e of [...duplicates].reverse()) current = removeEntry(current, parse, e);
    if (duplicates.length > 0) changes.push(`removed ${duplicates.length} duplicate ${GEMINI_EVENT} hook${duplicates.length > 1 ? 's' : ''}`);
    const at: JsonPath = ['hooks', GEMINI_EVENT, keep.group, 'hooks', keep.hook];
    const what: string[] = [];
    const fields: Array<[string, unknown, unknown, string]> = [
      ['name', keep.name, GEMINI_HOOK_NAME, `name "${GEMINI_HOOK_NAME}"`],
      ['type', keep.type, 'command', 'type "command"'],
      ['command', keep.command, o.command, 'new command line'],
      ['timeout', keep.timeout, timeoutMs, `timeout ${typeof keep.timeout === 'number' ? `${keep.timeout} ms` : 'unset'} → ${timeoutMs} ms`],
    ];
    for (const [key, have, want, label] of fields) {
      if (have === want) continue;
      current = setJsonValue(parse(current), [...at, key], want);
      what.push(label);
    }
    if (what.length > 0) changes.push(`updated ${GEMINI_EVENT} hook (matcher ${keep.matcher || '""'}): ${what.join(', ')}`);
  }
  const enabled = reEnable(current, parse);
  if (enabled !== current) {
    current = enabled;
    changes.push(`removed "${GEMINI_HOOK_NAME}" from hooksConfig.disabled`);
  }
  return { text: changes.length > 0 ? current : text, changes };
}

/** Whether the file holds asimov's hook for every tool (for --list and doctor). */
export function readGeminiHookState(text: string | null, file = 'settings.json'): { installed: boolean; command?: string; matcher?: string } {
  if (text === null || isBlank(text)) return { installed: false };
  const first = findAsimovEntries(parseJsonDocument(text, file, GEMINI_DIALECT)).find((e) => ALL_TOOLS_MATCHERS.has(e.matcher));
  return first ? { installed: true, command: first.command, matcher: first.matcher } : { installed: false };
}

function hookGroup(command: string, timeoutMs: number) {
  return { matcher: GEMINI_MATCHER, hooks: [{ name: GEMINI_HOOK_NAME, type: 'command', command, timeout: timeoutMs }] };
}

function addedLine(): string {
  return `added ${GEMINI_EVENT} hook (matcher ${GEMINI_MATCHER})`;
}

/**
 * `hooksConfig.enabled: false` in the same file would leave asimov's hook installed and never run: refuse
 * rather than report success. (Turning it on here would also start every other hook the person switched off.)
 */
function refuseIfHooksOff(doc: JsonDocument): void {
  const cfg = propertyNode(doc, doc.root, 'hooksConfig');
  if (cfg?.type !== 'object') return;
  const enabled = propertyNode(doc, cfg, 'enabled', ['hooksConfig']);
  if (enabled?.type === 'boolean' && enabled.value === false) {
    throw invalidAt(doc, enabled.offset, 'hooksConfig.enabled is false, so Gemini CLI would run no hooks, asimov\'s included; remove that setting to use asimov', 'hooksConfig.enabled');
  }
}

/** Takes asimov's name off `hooksConfig.disabled` (the list stays, even when emptied: it is the person's). */
function reEnable(text: string, parse: (t: string) => JsonDocument): string {
  let current = text;
  for (;;) {
    const doc = parse(current);
    const cfg = propertyNode(doc, doc.root, 'hooksConfig');
    const list = cfg?.type === 'object' ? propertyNode(doc, cfg, 'disabled', ['hooksConfig']) : undefined;
    const i = list?.type === 'array' ? (list.children ?? []).findIndex((n) => n.type === 'string' && n.value === GEMINI_HOOK_NAME) : -1;
    if (i < 0) return current;
    current = removeJsonValue(doc, ['hooksConfig', 'disabled', i]);
  }
}

function hooksObject(doc: JsonDocument): Node | undefined {
  const hooks = propertyNode(doc, doc.root, 'hooks');
  if (hooks && hooks.type !== 'object') throw invalidAt(doc, hooks.offset, `must be an object, found ${describeNode(hooks)}`, 'hooks');
  return hooks;
}

function eventList(doc: JsonDocument): Node | undefined {
  const hooks = hooksObject(doc);
  const list = hooks && propertyNode(doc, hooks, GEMINI_EVENT, ['hooks']);
  if (list && list.type !== 'array') throw invalidAt(doc, list.offset, `must be a list ([ … ]), found ${describeNode(list)}`, pathToString(['hooks', GEMINI_EVENT]));
  return list;
}

/** asimov's entries, in file order; groups and hooks of other shapes are not ours and are skipped. */
function findAsimovEntries(doc: JsonDocument): AsimovEntry[] {
  const out: AsimovEntry[] = [];
  (eventList(doc)?.children ?? []).forEach((g, gi) => {
    if (g.type !== 'object') return;
    const path = ['hooks', GEMINI_EVENT, gi];
    const list = propertyNode(doc, g, 'hooks', path);
    if (list?.type !== 'array') return;
    const m = propertyNode(doc, g, 'matcher', path);
    const matcher = m?.type === 'string' ? (m.value as string).trim() : '';
    (list.children ?? []).forEach((h, hi) => {
      if (h.type !== 'object') return;
      const hpath = [...path, 'hooks', hi];
      const c = propertyNode(doc, h, 'command', hpath);
      if (c?.type !== 'string' || !isAsimovHookCommand(c.value, 'gemini')) return;
      out.push({
        group: gi, hook: hi, matcher, command: c.value as string,
        name: propertyNode(doc, h, 'name', hpath)?.value,
        type: propertyNode(doc, h, 'type', hpath)?.value,
        timeout: propertyNode(doc, h, 'timeout', hpath)?.value,
      });
    });
  });
  return out;
}

/** Removes one entry, then each container that this removal left empty, innermost first. */
function removeEntry(text: string, parse: (t: string) => JsonDocument, e: AsimovEntry): string {
  let t = removeJsonValue(parse(text), ['hooks', GEMINI_EVENT, e.group, 'hooks', e.hook]);
  const emptied: JsonPath[] = [['hooks', GEMINI_EVENT, e.group, 'hooks'], ['hooks', GEMINI_EVENT], ['hooks']];
  const containers: JsonPath[] = [['hooks', GEMINI_EVENT, e.group], ['hooks', GEMINI_EVENT], ['hooks']];
  for (let i = 0; i < emptied.length; i++) {
    const doc = parse(t);
    const n = nodeAt(doc, emptied[i]!);
    if (!n || (n.children?.length ?? 0) > 0) break;
    t = removeJsonValue(doc, containers[i]!);
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

const PRIVATE = { fileMode: 0o600, dirMode: 0o700 };
const SHARED = { fileMode: 0o644, dirMode: 0o755 };

/*
 * Trust. Gemini CLI has two mechanisms, and wire writes to neither, on purpose:
 * - Trusted folders (security.folderTrust, on by default). In a folder the person has not trusted, Gemini
 *   0.61 runs NO hooks from any settings file, user and system included (its hook registry skips the merged
 *   hooks), but it also forces the approval mode back to "default", so the person confirms each tool that
 *   changes something; headless runs (-p) in such a folder refuse to start. Trusting a folder on the
 *   person's behalf would also turn on the project's own settings, MCP servers and YOLO mode there: that
 *   widens far more than asimov's hook, so it stays the person's decision (`notes` say so).
 * - ~/.gemini/trusted_hooks.json records project hooks already shown to the person; an unrecorded one still
 *   runs (Gemini prints a warning once and records it), so there is nothing to unlock there.
 */
export const geminiTarget: WireTarget = {
  client: 'gemini',
  label: 'Gemini CLI settings',
  scopes: ['user', 'project', 'system'],
  configPath: (scope, ctx) => geminiSettingsPath(scope, ctx),
  modes: (scope) => (scope === 'user' ? PRIVATE : SHARED),
  plan: (text, o) => planGeminiHooks(text, o),
  notes: (scope) => [
    ...(scope === 'project'
      ? ['note: Gemini CLI reads .gemini/settings.json from the directory it starts in, and runs its hooks only',
        'when that folder is trusted; the hook also names node and asimov by absolute paths on this machine,',
        'so others using this project should run `asimov wire gemini` (user scope) themselves.']
      : []),
    'Gemini CLI runs no hooks at all in folders the person has not trusted (it then asks before each change instead).',
    'Sessions already running need a restart to pick this up.',
  ],
};
