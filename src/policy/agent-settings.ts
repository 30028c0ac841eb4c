// Agents' JSON settings files judged by what a change does: which agent's file a path is, the keys of each
// that only change how the agent looks or talks (an allowlist: any other key can run code or widen what the
// agent may do), and whether every key a change touches is one of them.

import { posix } from 'node:path';
import type { PathInfo } from './paths.ts';
import { isObject, type JsonValue, type SettingsChange, type SettingsSyntax } from './settings-diff.ts';

/** A key whose value is checked exactly as the agent validates it, or an object whose keys are listed. */
type KeySpec = ((v: JsonValue) => boolean) | { readonly [key: string]: KeySpec };

const bool = (v: JsonValue): boolean => typeof v === 'boolean';
const str = (v: JsonValue): boolean => typeof v === 'string';
const oneOf = (...xs: string[]) => (v: JsonValue): boolean => typeof v === 'string' && xs.includes(v);
const intAtLeast = (min: number) => (v: JsonValue): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min;

/*
 * Why each list is short, and only simple values: Claude Code skips a settings file WHOLE when one value
 * fails its schema ("Files with errors are skipped entirely", anthropics/claude-code#75081), and with it
 * every hook (asimov's own included) and every permissions.deny rule in that file. So a harmless key is
 * only harmless with a value the agent accepts; each check below is the agent's own type, taken from its
 * shipped schema (Claude Code 2.1.330's settings schema, Gemini CLI 0.61's SETTINGS_SCHEMA), never looser.
 *
 * Left out on purpose, though they look like preferences: anything that names a command, a script, a path
 * or a URL (statusLine, fileSuggestion, apiKeyHelper, awsAuthRefresh, otelHeadersHelper, general.preferredEditor,
 * spinnerTipsOverride.tipsFile, plansDirectory, general.plan.directory), anything about permissions, hooks,
 * MCP servers, plugins, marketplaces, sandboxing, environment, providers, updates or approval modes
 * (general.defaultApprovalMode: "yolo"), and cleanupPeriodDays (it deletes transcripts: the record of what
 * the agent did). Keys not listed are unknown, and unknown is hard_deny.
 */

/** Claude Code: .claude/settings.json and .claude/settings.local.json (project and ~). */
const CLAUDE_KEYS: KeySpec = {
  $schema: str,
  model: str,
  effortLevel: oneOf('low', 'medium', 'high', 'xhigh'),
  alwaysThinkingEnabled: bool,
  showThinkingSummaries: bool,
  fastMode: bool,
  outputStyle: str, // selects an output-style file: instructions, which are soft_deny themselves
  language: str,
  viewMode: oneOf('default', 'verbose', 'focus'),
  tui: oneOf('default', 'fullscreen'),
  maxProseWidth: intAtLeast(40),
  spinnerTipsEnabled: bool,
  prefersReducedMotion: bool,
  syntaxHighlightingDisabled: bool,
  terminalTitleFromRename: bool,
  promptSuggestionEnabled: bool,
  emojiCompletionEnabled: bool,
  respectGitignore: bool, // the @-file picker's listing only
  includeCoAuthoredBy: bool,
  includeGitInstructions: bool,
};

/** Gemini CLI: .gemini/settings.json (project and ~). */
const GEMINI_KEYS: KeySpec = {
  $schema: str,
  general: {
    vimMode: bool,
    enableNotifications: bool,
  },
  model: { name: str },
  ui: {
    theme: str,
    autoThemeSwitching: bool,
    hideWindowTitle: bool,
    showStatusInTitle: bool,
    dynamicWindowTitle: bool,
    hideTips: bool,
    hideBanner: bool,
    hideContextSummary: bool,
    hideFooter: bool,
    showMemoryUsage: bool,
    showLineNumbers: bool,
    showCitations: bool,
    showModelInfoInChat: bool,
    showSpinner: bool,
    useBackgroundColor: bool,
    compactToolOutput: bool,
    footer: {
      hideCWD: bool,
      hideSandboxStatus: bool,
      hideModelInfo: bool,
      hideContextPercentage: bool,
    },
    accessibility: { screenReader: bool },
  },
};

/** OpenCode: opencode.json / opencode.jsonc (project) and ~/.config/opencode/opencode.json[c]. */
const OPENCODE_KEYS: KeySpec = {
  $schema: str,
  theme: str,
  model: str,
  small_model: str,
  username: str,
};

export interface SettingsKind {
  /** The agent, for reasons. */
  agent: string;
  syntax: SettingsSyntax;
  keys: KeySpec;
}

const CLAUDE: SettingsKind = { agent: 'Claude Code', syntax: 'json', keys: CLAUDE_KEYS };
const GEMINI: SettingsKind = { agent: 'Gemini CLI', syntax: 'jsonc', keys: GEMINI_KEYS };
const OPENCODE: SettingsKind = { agent: 'OpenCode', syntax: 'jsonc', keys: OPENCODE_KEYS };

/** A settings file: its kind, and the directory that holds the agent's own directory (or the file). */
export interface SettingsFile {
  kind: SettingsKind;
  /**
   * Must not itself be agent configuration: `.claude/hooks/.claude/settings.json` or `.cursor/opencode.json`
   * is a file in another agent's directory, which some hook or plugin may read as anything.
   */
  container: string;
}

/**
 * The settings file at an absolute path, by its last components spelled exactly (a `.Claude/Settings.json`
 * that a case-insensitive disk would load is not recognised, so it stays hard_deny). Null for every other
 * agent file: hooks, MCP definitions, TOML and YAML configs (no parser here to diff them by), managed
 * settings under /etc.
 */
export function settingsFileAt(abs: string, home: string): SettingsFile | null {
  const base = posix.basename(abs);
  const dir = posix.dirname(abs);
  const dirName = posix.basename(dir);
  if (dirName === '.claude' && (base === 'settings.json' || base === 'settings.local.json')) return { kind: CLAUDE, container: posix.dirname(dir) };
  if (dirName === '.gemini' && base === 'settings.json') return { kind: GEMINI, container: posix.dirname(dir) };
  if (base === 'opencode.json' || base === 'opencode.jsonc') {
    return { kind: OPENCODE, container: dir === posix.join(home, '.config/opencode') ? posix.dirname(dir) : dir };
  }
  return null;
}

/** Classes a settings path may carry and still be judged by its content: where it is, and that it is agent config. */
const JUDGEABLE_CLASSES: ReadonlySet<string> = new Set(['agent-config', 'project', 'home', 'temp', 'outside']);

/** Whether the path's classes leave it to the content diff (nothing else sensitive about where it is). */
export function judgeableSettingsPath(info: PathInfo): boolean {
  for (const c of info.classes) if (!JUDGEABLE_CLASSES.has(c)) return false;
  return info.classes.has('agent-config');
}

function specAt(keys: KeySpec, path: readonly string[]): KeySpec | null {
  let cur: KeySpec = keys;
  for (const k of path) {
    if (typeof cur === 'function' || !Object.hasOwn(cur, k)) return null;
    cur = cur[k]!;
  }
  return cur;
}

/** The first change (as a dotted key path) that is not on the kind's list, or null when all are harmless. */
export function firstUnlistedChange(kind: SettingsKind, changes: readonly SettingsChange[]): string | null {
  for (const c of changes) {
    const spec = specAt(kind.keys, c.path);
    const ok = spec === null
      ? false
      : typeof spec === 'function'
        ? c.after === undefined || spec(c.after)
        : (c.after === undefined || isObject(c.after)) && (c.before === undefined || isObject(c.before));
    if (!ok) return c.path.join('.');
  }
  return null;
}

/** The leaf keys a change sets or removes, for the reason shown to the person (`ui.theme`, `model`). */
export function changedLeaves(changes: readonly SettingsChange[]): string[] {
  return changes.filter((c) => !(isObject(c.after) || (c.after === undefined && isObject(c.before)))).map((c) => c.path.join('.'));
}

