// GitHub Copilot CLI's hook files and asimov's hook in them. Copilot loads every `*.json` in its hooks
// directories, so asimov keeps a file of its own (`asimov.json`) and never edits a file of the person's.
// Verified with the real CLI 1.0.102:
// - `$COPILOT_HOME/hooks` (default ~/.copilot/hooks) is read by every session; with COPILOT_HOME set,
//   ~/.copilot/hooks is not read at all;
// - `<project>/.github/hooks` is read only in a folder Copilot trusts (its trust prompt, --trust-folder, or
//   COPILOT_ALLOW_ALL=true); asimov does not grant that trust, since trusting a folder also loads its MCP
//   servers, skills and plugins;
// - a hook file with a comment or a trailing comma is skipped without a word (its hooks never run), so such
//   a file is refused here rather than edited as if it worked;
// - the entry `{"type":"command","bash":…,"timeoutSec":N}` under `hooks.preToolUse` (native payload and
//   replies, src/adapters/copilot.ts); the timeout is in seconds, and a hook that times out lets the tool
//   RUN, so it must stay longer than the command line's own watchdog (buildHookCommand sees to that).
// Pure: text in, text and human-readable changes out.

import { join, resolve } from 'node:path';
import type { Node } from 'jsonc-parser';
import { isAsimovHookCommand } from './hook-command.ts';
import type { WireTarget } from './targets.ts';
import {
  describeNode, invalidAt, isBlank, parseJsonDocument, pathToString, propertyNode, removeJsonValue, serializeJson, setJsonValue,
  type JsonDialect, type JsonDocument, type JsonPath,
} from './json-settings.ts';

/** The native event: camelCase payload `{toolName, toolArgs}` and top-level `permissionDecision` replies. */
export const COPILOT_HOOK_EVENT = 'preToolUse';

export const COPILOT_HOOK_FILE = 'asimov.json';

/** Copilot silently skips a hook file it cannot parse strictly (see above). */
export const COPILOT_DIALECT: JsonDialect = { comments: false, trailingCommas: false };

/** Matchers that let a hook see every tool (the regex is anchored: `^(?:…)$`). */
const ALL_TOOLS_MATCHERS: ReadonlySet<string> = new Set(['', '.*', '.+', '*']);

export function copilotHookPaths(o: { home: string; projectRoot: string; env: NodeJS.ProcessEnv }): { user: string; project: string } {
  const copilotHome = o.env.COPILOT_HOME ? resolve(o.env.COPILOT_HOME) : join(o.home, '.copilot');
  return {
    user: join(copilotHome, 'hooks', COPILOT_HOOK_FILE),
    project: join(o.projectRoot, '.github', 'hooks', COPILOT_HOOK_FILE),
  };
}

export interface CopilotHookPlanOptions {
  command: string;
  timeoutSec: number;
  uninstall: boolean;
  /** For messages only. */
  file: string;
}

/** One of asimov's entries: `hooks.preToolUse[index]`. */
interface AsimovEntry {
  index: number;
  node: Node;
}

/**
 * Installs (or with `uninstall`, removes) asimov's preToolUse hook. Installing is idempotent: an entry
 * that is current is left alone, one that differs is brought up to date in place, duplicates go. Removing
 * takes exactly asimov's entries, then the containers their removal emptied; other bytes stay as they were.
 */
export function planCopilotHooks(text: string | null, o: CopilotHookPlanOptions): { text: string | null; changes: string[] } {
  if (text === null || isBlank(text)) {
    if (o.uninstall) return { text, changes: [] };
    return { text: serializeJson({ version: 1, hooks: { [COPILOT_HOOK_EVENT]: [hookEntry(o)] } }), changes: [addedLine()] };
  }
  const parse = (t: string) => parseJsonDocument(t, o.file, COPILOT_DIALECT);
  const changes: string[] = [];
  let current = text;
  const entries = findAsimovEntries(parse(current));
  if (o.uninstall) {
    for (const e of [...entries].reverse()) current = removeEntry(current, parse, e.index);
    if (entries.length > 0) changes.push(`removed ${COPILOT_HOOK_EVENT} hook${entries.length > 1 ? `s (${entries.length})` : ''}`);
    return { text: changes.length > 0 ? current : text, changes };
  }
  const [keep, ...duplicates] = entries;
  if (!keep) {
    const doc = parse(current);
    const list = listNode(doc);
    // A file without "version" is read all the same (verified), so none is added: uninstall gives back its bytes.
    current = setJsonValue(doc, ['hooks', COPILOT_HOOK_EVENT, list?.children?.length ?? 0], hookEntry(o));
    return { text: current, changes: [addedLine()] };
  }
  for (const e of [...duplicates].reverse()) current = removeEntry(current, parse, e.index);
  if (duplicates.length > 0) changes.push(`removed ${duplicates.length} duplicate ${COPILOT_HOOK_EVENT} hook${duplicates.length > 1 ? 's' : ''}`);
  const at: JsonPath = ['hooks', COPILOT_HOOK_EVENT, keep.index];
  const what: string[] = [];
  const field = (key: string) => {
    const doc = parse(current);
    const entry = nodeAt(doc, at)!;
    return propertyNode(doc, entry, key, at);
  };
  if (field('type')?.value !== 'command') {
    current = setJsonValue(parse(current), [...at, 'type'], 'command');
    what.push('type "command"');
  }
  if (field('bash')?.value !== o.command) {
    current = setJsonValue(parse(current), [...at, 'bash'], o.command);
    what.push('new command line');
  }
  // `command` is Copilot's cross-platform alias for the line; asimov's line is for a POSIX shell only.
  if (field('command') !== undefined) {
    current = removeJsonValue(parse(current), [...at, 'command']);
    what.push('"command" alias removed');
  }
  const timeout = field('timeoutSec')?.value;
  if (timeout !== o.timeoutSec) {
    current = setJsonValue(parse(current), [...at, 'timeoutSec'], o.timeoutSec);
    what.push(`timeout ${typeof timeout === 'number' ? `${timeout} s` : 'unset'} → ${o.timeoutSec} s`);
  }
  // `timeout` is an alias of timeoutSec: a second value of it could be the one Copilot uses.
  if (field('timeout') !== undefined) {
    current = removeJsonValue(parse(current), [...at, 'timeout']);
    what.push('"timeout" alias removed');
  }
  const matcher = field('matcher');
  if (matcher !== undefined && !(typeof matcher.value === 'string' && ALL_TOOLS_MATCHERS.has(matcher.value))) {
    current = removeJsonValue(parse(current), [...at, 'matcher']);
    what.push(`matcher ${JSON.stringify(matcher.value)} removed (it does not cover every tool)`);
  }
  if (what.length > 0) changes.push(`updated ${COPILOT_HOOK_EVENT} hook: ${what.join(', ')}`);
  return { text: changes.length > 0 ? current : text, changes };
}

function hookEntry(o: CopilotHookPlanOptions): Record<string, unknown> {
  return { type: 'command', bash: o.command, timeoutSec: o.timeoutSec };
}

function addedLine(): string {
  return `added ${COPILOT_HOOK_EVENT} hook (every tool)`;
}

/** `hooks.preToolUse`, checked for shape; undefined when absent. */
function listNode(doc: JsonDocument): Node | undefined {
  const hooks = propertyNode(doc, doc.root, 'hooks');
  if (hooks === undefined) return undefined;
  if (hooks.type !== 'object') throw invalidAt(doc, hooks.offset, `must be an object, found ${describeNode(hooks)}`, 'hooks');
  const list = propertyNode(doc, hooks, COPILOT_HOOK_EVENT, ['hooks']);
  if (list === undefined) return undefined;
  if (list.type !== 'array') {
    throw invalidAt(doc, list.offset, `must be a list ([ … ]), found ${describeNode(list)}`, pathToString(['hooks', COPILOT_HOOK_EVENT]));
  }
  return list;
}

function findAsimovEntries(doc: JsonDocument): AsimovEntry[] {
  const list = listNode(doc);
  const out: AsimovEntry[] = [];
  (list?.children ?? []).forEach((node, index) => {
    if (node.type !== 'object') return;
    const path = ['hooks', COPILOT_HOOK_EVENT, index];
    const bash = propertyNode(doc, node, 'bash', path)?.value;
    const command = propertyNode(doc, node, 'command', path)?.value;
    if (isAsimovHookCommand(bash) || isAsimovHookCommand(command)) out.push({ index, node });
  });
  return out;
}

/** Removes one entry, then the list and the `hooks` object if that left them empty. */
function removeEntry(text: string, parse: (t: string) => JsonDocument, index: number): string {
  let t = removeJsonValue(parse(text), ['hooks', COPILOT_HOOK_EVENT, index]);
  for (const path of [['hooks', COPILOT_HOOK_EVENT], ['hooks']] as JsonPath[]) {
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

export const copilotTarget: WireTarget = {
  client: 'copilot',
  label: 'GitHub Copilot CLI hooks',
  scopes: ['user', 'project'],
  configPath: (scope, ctx) => copilotHookPaths(ctx)[scope as 'user' | 'project'],
  // The user file names this machine's node and asimov, and lives in a private directory; the project
  // file is shared with whoever uses the repository.
  modes: (scope) => (scope === 'user' ? { fileMode: 0o600, dirMode: 0o700 } : { fileMode: 0o644, dirMode: 0o755 }),
  plan: (text, o) => planCopilotHooks(text, o),
  notes: (scope) => [
    ...(scope === 'project'
      ? ['note: Copilot reads .github/hooks only in folders it trusts (its trust prompt, --trust-folder, or',
        'COPILOT_ALLOW_ALL=true), and the hook names node and asimov by absolute paths on this machine:',
        'the user scope (the default) is what protects every session.']
      : []),
    'Copilot sessions already running need a restart to pick this up.',
  ],
};
