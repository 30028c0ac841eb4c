// Codex CLI's hooks file and asimov's PreToolUse hook in it (verified with codex 0.169.0):
// - user `$CODEX_HOME/hooks.json` (default ~/.codex), project `<project>/.codex/hooks.json`. The file is
//   Claude-shaped, `{"hooks": {"PreToolUse": [{matcher, hooks: [{type: "command", command, timeout}]}]}}`,
//   strict JSON (serde_json: no comments, no trailing commas); `timeout` is in SECONDS (default 600);
//   matcher "*" matches every tool.
// - A user or project hook runs only once its hash is trusted in $CODEX_HOME/config.toml (codex-trust.ts);
//   an untrusted one is skipped without a word. So `extraWrites` records the trust of asimov's own entry.
// - Codex reads a project's .codex/ only when the person has trusted that project folder
//   (`[projects."<dir>"] trust_level = "trusted"`). asimov never sets that: it would also switch on the
//   project's own config.toml, which a cloned repository could have written. The notes say so instead.
// - `async: true` on an entry would make Codex run it without waiting (so it could not block); asimov's
//   entry is kept to exactly type, command and timeout.

import { join, resolve } from 'node:path';
import type { Node } from 'jsonc-parser';
import { isAsimovHookCommand } from './hook-command.ts';
import { CLAUDE_DIALECT, planClaudeHooks } from './claude.ts';
import { codexTrustHash, codexTrustKey, planCodexTrust, type TrustRecord } from './codex-trust.ts';
import { isBlank, parseJsonDocument, propertyNode, removeJsonValue } from './json-settings.ts';
import { readTextFile, resolveTarget } from './write-file.ts';
import type { PlanOptions, TargetContext, WireTarget } from './targets.ts';

export const CODEX_EVENT = 'PreToolUse';
/** Codex's label for the event in hook-state keys and trust hashes. */
export const CODEX_EVENT_KEY = 'pre_tool_use';
/** The keys asimov's hook entry has; any other (async, statusMessage, commandWindows) is taken out. */
const ENTRY_KEYS: ReadonlySet<string> = new Set(['type', 'command', 'timeout']);

export type CodexScope = 'user' | 'project';

export function codexHome(ctx: { home: string; env: NodeJS.ProcessEnv }): string {
  return ctx.env.CODEX_HOME ? resolve(ctx.env.CODEX_HOME) : join(ctx.home, '.codex');
}

export function codexHooksPath(scope: string, ctx: TargetContext): string {
  if (scope === 'user') return join(codexHome(ctx), 'hooks.json');
  if (scope === 'project') return join(ctx.projectRoot, '.codex', 'hooks.json');
  throw new RangeError(`unknown Codex hooks scope '${scope}'`);
}

/** Where Codex keeps hook trust: always the user's config.toml, whichever hooks file the hook is in. */
export function codexConfigPath(ctx: { home: string; env: NodeJS.ProcessEnv }): string {
  return join(codexHome(ctx), 'config.toml');
}

/** One of asimov's entries in a Codex hooks file. */
export interface CodexEntry {
  group: number;
  hook: number;
  /** Absent when the group has none (Codex hashes it so). */
  matcher?: string;
  command: string;
  timeout?: number;
  extraKeys: string[];
}

/** asimov's PreToolUse entries, in file order. Throws AsimovError wire_settings_invalid on bad JSON. */
export function codexAsimovEntries(text: string | null, file: string): CodexEntry[] {
  if (text === null || isBlank(text)) return [];
  const doc = parseJsonDocument(text, file, CLAUDE_DIALECT);
  const hooks = propertyNode(doc, doc.root, 'hooks');
  const list = hooks?.type === 'object' ? propertyNode(doc, hooks, CODEX_EVENT) : undefined;
  const out: CodexEntry[] = [];
  if (list?.type !== 'array') return out;
  (list.children ?? []).forEach((g, gi) => {
    if (g.type !== 'object') return;
    const handlers = propertyNode(doc, g, 'hooks');
    if (handlers?.type !== 'array') return;
    const m = propertyNode(doc, g, 'matcher');
    (handlers.children ?? []).forEach((h, hi) => {
      const c = h.type === 'object' ? propertyNode(doc, h, 'command') : undefined;
      if (c?.type !== 'string' || !isAsimovHookCommand(c.value, 'codex')) return;
      const t = propertyNode(doc, h, 'timeout');
      const entry: CodexEntry = { group: gi, hook: hi, command: c.value as string, extraKeys: keysOf(h).filter((k) => !ENTRY_KEYS.has(k)) };
      if (m?.type === 'string') entry.matcher = m.value as string;
      if (t?.type === 'number') entry.timeout = t.value as number;
      out.push(entry);
    });
  });
  return out;
}

function keysOf(node: Node): string[] {
  return (node.children ?? []).map((p) => p.children?.[0]?.value).filter((k): k is string => typeof k === 'string');
}

/** Installs, updates or removes asimov's PreToolUse hook in a Codex hooks file (text in, text out). */
export function planCodexHooks(text: string | null, o: PlanOptions): { text: string | null; changes: string[] } {
  const plan = planClaudeHooks(text, { ...o, events: [CODEX_EVENT], client: 'codex' });
  if (o.uninstall || plan.text === null) return plan;
  let current = plan.text;
  const changes = [...plan.changes];
  for (const e of codexAsimovEntries(current, o.file)) {
    for (const k of e.extraKeys) {
      current = removeJsonValue(parseJsonDocument(current, o.file, CLAUDE_DIALECT), ['hooks', CODEX_EVENT, e.group, 'hooks', e.hook, k]);
      changes.push(`removed "${k}" from the ${CODEX_EVENT} hook (asimov's entry must block and be hashed as written)`);
    }
  }
  return changes.length > 0 ? { text: current, changes } : { text, changes };
}

/** The trust record Codex needs to run this entry of the hooks file at `hooksFile`. */
export function codexTrustRecord(hooksFile: string, e: CodexEntry): TrustRecord {
  return {
    key: codexTrustKey(resolve(hooksFile), CODEX_EVENT_KEY, e.group, e.hook),
    hash: codexTrustHash({
      event: CODEX_EVENT_KEY, command: e.command, timeoutSec: e.timeout ?? 600,
      ...(e.matcher !== undefined ? { matcher: e.matcher } : {}),
    }),
  };
}

const PRIVATE = { fileMode: 0o600, dirMode: 0o700 };
const SHARED = { fileMode: 0o644, dirMode: 0o755 };

export const codexTarget: WireTarget = {
  client: 'codex',
  label: 'Codex CLI hooks',
  scopes: ['user', 'project'],
  configPath: codexHooksPath,
  modes: (scope) => (scope === 'project' ? SHARED : PRIVATE),
  plan: planCodexHooks,
  extraWrites(o) {
    // Trust follows the entry: the record of asimov's entry as it will be, minus records of asimov's
    // entries as they are now (an older command line, another position) that no longer apply.
    const before = readTextFile(resolveTarget(o.file).realPath);
    const drop = codexAsimovEntries(before, o.file).map((e) => codexTrustRecord(o.file, e));
    const now = o.uninstall ? [] : codexAsimovEntries(o.configText, o.file);
    const want = now[0] ? codexTrustRecord(o.file, now[0]) : null;
    const config = codexConfigPath(o.ctx);
    const text = readTextFile(resolveTarget(config).realPath);
    const plan = planCodexTrust(text, { file: config, want, drop });
    return [{ file: config, text: plan.text, changes: plan.changes }];
  },
  notes: (scope) => [
    ...(scope === 'project'
      ? ['note: Codex reads .codex/hooks.json of a project only once you trust that project folder in Codex;',
        'asimov does not do that for you. The trust record of the hook itself is in your user config.toml.']
      : []),
    'Codex sessions already running need a restart to pick this up.',
  ],
};
