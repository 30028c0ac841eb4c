// Claude Code's settings files and asimov's hooks in them: where the files are, what asimov's entries
// look like there, and the edit that installs, updates or removes exactly those entries. Pure: text in,
// text and a list of human-readable changes out; reading and writing the files is the caller's job.

import { join, resolve } from 'node:path';
import type { Node } from 'jsonc-parser';
import { isAsimovHookCommand } from './hook-command.ts';
import {
  describeNode, invalidAt, isBlank, parseJsonDocument, pathToString, propertyNode, removeJsonValue, serializeJson, setJsonValue,
  type JsonDialect, type JsonDocument, type JsonPath,
} from './json-settings.ts';

/** The events asimov hooks: every tool call (PreToolUse) and the permission prompts of SDK mode. */
export const CLAUDE_HOOK_EVENTS = ['PreToolUse', 'PermissionRequest'] as const;

/** Matches every tool, MCP tools included (notes/claude-code.md). */
export const CLAUDE_MATCHER = '*';

/** Matchers Claude Code applies to every tool (an omitted matcher reads as ''). */
export const ALL_TOOLS_MATCHERS: ReadonlySet<string> = new Set(['', '*', '.*']);

/**
 * Claude Code 2.1.330 silently ignores a settings file with a comment or a trailing comma (verified: a
 * hook in such a file never ran), so such a file is refused rather than edited as if it worked.
 */
export const CLAUDE_DIALECT: JsonDialect = { comments: false, trailingCommas: false };

export type ClaudeScope = 'user' | 'project' | 'local' | 'managed';

export interface ClaudeSettingsPaths {
  user: string;
  project: string;
  local: string;
  managed: string;
}

/**
 * The settings files Claude Code reads for a project. `CLAUDE_CONFIG_DIR` replaces `~/.claude` for the
 * user file (verified with the real CLI: with it set, hooks in ~/.claude/settings.json did not run and
 * those in $CLAUDE_CONFIG_DIR/settings.json did). The managed paths are from Claude Code's documentation.
 */
export function claudeSettingsPaths(o: { home: string; projectRoot: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): ClaudeSettingsPaths {
  const configDir = o.env.CLAUDE_CONFIG_DIR ? resolve(o.env.CLAUDE_CONFIG_DIR) : join(o.home, '.claude');
  const platform = o.platform ?? process.platform;
  const managed = platform === 'darwin'
    ? '/Library/Application Support/ClaudeCode/managed-settings.json'
    : platform === 'win32'
      ? 'C:\\ProgramData\\ClaudeCode\\managed-settings.json'
      : '/etc/claude-code/managed-settings.json';
  return {
    user: join(configDir, 'settings.json'),
    project: join(o.projectRoot, '.claude', 'settings.json'),
    local: join(o.projectRoot, '.claude', 'settings.local.json'),
    managed,
  };
}

export interface ClaudeHookPlanOptions {
  command: string;
  timeoutSec: number;
  events: readonly string[];
  uninstall: boolean;
  /** For messages only: the file the text came from. */
  file: string;
  /** Whose entries these are (the `# asimov-hook:<client>` tag): other clients with Claude-shaped hook files reuse this plan. Default claude. */
  client?: string;
  /** What the client's parser accepts (default CLAUDE_DIALECT): Qwen Code reads comments, Claude Code does not. */
  dialect?: JsonDialect;
  /** The unit the client reads `timeout` in (default seconds); `timeoutSec` is converted. */
  timeoutUnit?: 'seconds' | 'milliseconds';
}

export interface ClaudeHookPlan {
  /** The new text; the input text itself when nothing changes; null when there was and is no file. */
  text: string | null;
  /** One line per change; empty when nothing changes. */
  changes: string[];
}

/** One of asimov's hook entries: `hooks.<event>[group].hooks[hook]`. */
interface AsimovEntry {
  group: number;
  hook: number;
  matcher: string;
  command: string;
  timeout: number | undefined;
  type: unknown;
}

/**
 * Installs (or with `uninstall`, removes) asimov's hook for each event. Installing is idempotent: an
 * entry with the same command and timeout is left alone, one that differs is updated in place (a moved
 * install, a new deadline), duplicates are reduced to one. Removing takes exactly asimov's entries and
 * then only the containers that their removal emptied. All other bytes stay as they were.
 */
export function planClaudeHooks(text: string | null, o: ClaudeHookPlanOptions): ClaudeHookPlan {
  const ms = o.timeoutUnit === 'milliseconds';
  const timeout = ms ? o.timeoutSec * 1000 : o.timeoutSec;
  const unit = ms ? 'ms' : 's';
  if (text === null || isBlank(text)) {
    if (o.uninstall || o.events.length === 0) return { text, changes: [] };
    const hooks = Object.fromEntries(o.events.map((e) => [e, [hookGroup({ command: o.command, timeout })]]));
    return { text: serializeJson({ hooks }), changes: o.events.map(addedLine) };
  }
  const changes: string[] = [];
  let current = text;
  const parse = (t: string) => parseJsonDocument(t, o.file, o.dialect ?? CLAUDE_DIALECT);
  for (const event of o.events) {
    let entries = findAsimovEntries(parse(current), event, o.client);
    if (o.uninstall) {
      for (const e of [...entries].reverse()) current = removeEntry(current, parse, event, e);
      if (entries.length > 0) changes.push(`removed ${event} hook${entries.length > 1 ? `s (${entries.length})` : ''}`);
      continue;
    }
    // An asimov entry under a matcher that misses tools protects nothing else: move asimov out of it (the
    // group and its other hooks stay) and into a group for every tool.
    const narrow = entries.filter((e) => !ALL_TOOLS_MATCHERS.has(e.matcher));
    if (narrow.length > 0) {
      for (const e of [...narrow].reverse()) current = removeEntry(current, parse, event, e);
      for (const e of narrow) changes.push(`removed ${event} hook under matcher "${e.matcher}" (it does not cover every tool)`);
      entries = findAsimovEntries(parse(current), event, o.client);
    }
    const [keep, ...duplicates] = entries;
    if (!keep) {
      const doc = parse(current);
      const list = eventList(doc, event);
      current = setJsonValue(doc, ['hooks', event, list?.children?.length ?? 0], hookGroup({ command: o.command, timeout }));
      changes.push(addedLine(event));
      continue;
    }
    // Later entries first, so the indices of the earlier ones (the one kept among them) stay valid.
    for (const e of [...duplicates].reverse()) current = removeEntry(current, parse, event, e);
    if (duplicates.length > 0) changes.push(`removed ${duplicates.length} duplicate ${event} hook${duplicates.length > 1 ? 's' : ''}`);
    const at: JsonPath = ['hooks', event, keep.group, 'hooks', keep.hook];
    const what: string[] = [];
    if (keep.type !== 'command') {
      current = setJsonValue(parse(current), [...at, 'type'], 'command');
      what.push('type "command"');
    }
    if (keep.command !== o.command) {
      current = setJsonValue(parse(current), [...at, 'command'], o.command);
      what.push('new command line');
    }
    if (keep.timeout !== timeout) {
      current = setJsonValue(parse(current), [...at, 'timeout'], timeout);
      what.push(`timeout ${keep.timeout === undefined ? 'unset' : `${keep.timeout} ${unit}`} → ${timeout} ${unit}`);
    }
    if (what.length > 0) changes.push(`updated ${event} hook (matcher ${keep.matcher || '""'}): ${what.join(', ')}`);
  }
  return { text: changes.length > 0 ? current : text, changes };
}

export interface ClaudeHookState {
  events: Record<string, { installed: boolean; matcher: string; command?: string; timeout?: number }>;
}

/**
 * Where asimov's hooks are in a settings text: every event of CLAUDE_HOOK_EVENTS, plus any other event
 * that holds an asimov entry. Throws AsimovError `wire_settings_invalid` on a file Claude Code could not read.
 */
export function readClaudeHookState(text: string | null, file = 'settings.json'): ClaudeHookState {
  const events: ClaudeHookState['events'] = {};
  for (const e of CLAUDE_HOOK_EVENTS) events[e] = { installed: false, matcher: '' };
  if (text === null || isBlank(text)) return { events };
  const doc = parseJsonDocument(text, file, CLAUDE_DIALECT);
  const hooks = hooksObject(doc);
  const names = new Set<string>(CLAUDE_HOOK_EVENTS);
  for (const prop of hooks?.children ?? []) if (typeof prop.children?.[0]?.value === 'string') names.add(prop.children[0].value as string);
  for (const name of names) {
    const first = findAsimovEntries(doc, name)[0];
    if (first) {
      events[name] = { installed: true, matcher: first.matcher, command: first.command, ...(first.timeout !== undefined ? { timeout: first.timeout } : {}) };
    }
  }
  return { events };
}

function hookGroup(o: { command: string; timeout: number }) {
  return { matcher: CLAUDE_MATCHER, hooks: [{ type: 'command', command: o.command, timeout: o.timeout }] };
}

function addedLine(event: string): string {
  return `added ${event} hook (matcher ${CLAUDE_MATCHER})`;
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

/** asimov's entries for an event, in file order. Groups and hooks of other shapes are not ours: skipped. */
function findAsimovEntries(doc: JsonDocument, event: string, client = 'claude'): AsimovEntry[] {
  const out: AsimovEntry[] = [];
  const groups = eventList(doc, event)?.children ?? [];
  groups.forEach((g, gi) => {
    if (g.type !== 'object') return;
    const path = ['hooks', event, gi];
    const list = propertyNode(doc, g, 'hooks', path);
    if (list?.type !== 'array') return;
    const m = propertyNode(doc, g, 'matcher', path);
    const matcher = m?.type === 'string' ? (m.value as string) : '';
    (list.children ?? []).forEach((h, hi) => {
      if (h.type !== 'object') return;
      const hpath = [...path, 'hooks', hi];
      const c = propertyNode(doc, h, 'command', hpath);
      if (c?.type !== 'string' || !isAsimovHookCommand(c.value, client)) return;
      const t = propertyNode(doc, h, 'timeout', hpath);
      out.push({
        group: gi, hook: hi, matcher, command: c.value as string,
        timeout: t?.type === 'number' ? (t.value as number) : undefined,
        type: propertyNode(doc, h, 'type', hpath)?.value,
      });
    });
  });
  return out;
}

/** Removes one entry, then each container that this removal left empty, innermost first. */
function removeEntry(text: string, parse: (t: string) => JsonDocument, event: string, e: AsimovEntry): string {
  let t = removeJsonValue(parse(text), ['hooks', event, e.group, 'hooks', e.hook]);
  const emptied: JsonPath[] = [['hooks', event, e.group, 'hooks'], ['hooks', event], ['hooks']];
  const containers: JsonPath[] = [['hooks', event, e.group], ['hooks', event], ['hooks']];
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
