// Tier 2 for Gemini CLI: asimov's gated MCP tools registered in its settings (`mcpServers.asimov`), and
// Gemini's own shell, file-reading, file-writing and fetching tools denied by a rule file of Gemini's policy
// engine (`policies/asimov.toml` beside the settings file). Every such action then goes through
// `mcp_asimov_bash`, `mcp_asimov_read`, `mcp_asimov_write` or `mcp_asimov_edit`, which decide first.
//
// Why and when: Gemini runs no hooks in a folder the person has not trusted, and a hook can be switched off
// in settings; this wiring does not depend on either. Verified with @google/gemini-cli 0.61.0: a policy
// rule with `decision = "deny"` and no argument conditions takes the tool out of what the model is offered,
// in --yolo too (the older `tools.exclude` does the same but is deprecated for the policy engine); the MCP
// server starts in the directory Gemini runs in; its tools reach the model as `mcp_asimov_<tool>`.
//
// What stays: listing and globbing file names, web search, to-dos, plans, sub-agents. A sub-agent gets no
// denied tool either, verified with 0.61.0 (test/e2e/gemini-tier2.test.ts): its tool list is built from the
// tools the policy engine leaves active (even names its definition lists explicitly are dropped), a call to a
// name outside that list is refused as "Unauthorized tool call", and what it does run is checked against the
// same rules (this one names no sub-agent, so it holds for all). It keeps asimov's gated tools, which decide
// for it as for the main agent. No person is on the MCP line, so a call asimov would ask about is refused.

import { dirname, join } from 'node:path';
import { AsimovError } from '../core/errors.ts';
import { GEMINI_DIALECT, geminiSettingsPath } from './gemini.ts';
import { hasToolsServerEntry, planMcpServerEntry } from './mcp-server-entry.ts';
import type { PlanOptions, TargetContext, WireTarget } from './targets.ts';
import { readTextFile } from './write-file.ts';

/** Gemini's tools that run commands, read or write file contents, fetch URLs or write its memory file. */
export const GEMINI_DENIED_TOOLS = [
  'run_shell_command', 'write_file', 'replace', 'read_file', 'read_many_files', 'grep_search', 'search_file_content',
  'web_fetch', 'save_memory',
] as const;

const POLICY_MARKER = 'asimov-tools:gemini';
export const GEMINI_POLICY_FILE = 'asimov.toml';

/** The policy rule file: owned whole by asimov, recognised by its marker line. */
export function geminiPolicyText(): string {
  return `# asimov's tier-2 wiring for Gemini CLI (${POLICY_MARKER}), written by \`asimov wire gemini --tier 2\`.
# Gemini's own shell, file and fetch tools are denied, so each such action goes through asimov's gated MCP
# tools (mcp_asimov_bash, mcp_asimov_read, mcp_asimov_write, mcp_asimov_edit), which check every call first.
# Do not edit: running that command again rewrites this file, and with --uninstall deletes it.
[[rule]]
toolName = [${GEMINI_DENIED_TOOLS.map((t) => JSON.stringify(t)).join(', ')}]
decision = "deny"
priority = 999
`;
}

export function geminiPolicyPath(scope: string, ctx: TargetContext): string {
  return join(dirname(geminiSettingsPath(scope, ctx)), 'policies', GEMINI_POLICY_FILE);
}

const launchOf = (e: unknown) => {
  const o = (e ?? {}) as { command?: unknown; args?: unknown };
  return { command: o.command, args: o.args };
};

function planSettings(text: string | null, o: PlanOptions): { text: string | null; changes: string[] } {
  return planMcpServerEntry(text, {
    serversPath: ['mcpServers'],
    entry: o.tools ? { command: o.tools.command, args: o.tools.args } : null,
    launchOf,
    dialect: GEMINI_DIALECT,
    uninstall: o.uninstall,
    file: o.file,
  });
}

export const geminiToolsTarget: WireTarget = {
  client: 'gemini',
  tier: 2,
  label: 'Gemini CLI settings, gated tools',
  scopes: ['user', 'project', 'system'],
  configPath: (scope, ctx) => geminiSettingsPath(scope, ctx),
  modes: (scope) => (scope === 'user' ? { fileMode: 0o600, dirMode: 0o700 } : { fileMode: 0o644, dirMode: 0o755 }),
  plan: planSettings,
  extraWrites: (o) => {
    const file = geminiPolicyPath(o.scope, o.ctx);
    const text = readTextFile(file);
    const ours = text !== null && text.includes(POLICY_MARKER);
    if (o.uninstall) return [{ file, text: null, changes: ours ? ['removed the policy rule that denies Gemini\'s own shell and file tools'] : [] }];
    if (text !== null && !ours) {
      throw new AsimovError('wire_settings_invalid', 'this policy file is not asimov\'s; asimov does not overwrite it (move it away, then run this again)', { file });
    }
    const want = geminiPolicyText();
    return [{ file, text: want, changes: text === want ? [] : [`${text === null ? 'added' : 'updated'} a policy rule denying ${GEMINI_DENIED_TOOLS.join(', ')}`] }];
  },
  isInstalled: (text, scope, ctx) => {
    if (!hasToolsServerEntry(text, { serversPath: ['mcpServers'], launchOf, dialect: GEMINI_DIALECT, file: geminiSettingsPath(scope, ctx) })) return false;
    try {
      return readTextFile(geminiPolicyPath(scope, ctx))?.includes(POLICY_MARKER) === true;
    } catch {
      return false;
    }
  },
  notes: (scope) => [
    'Gemini\'s own shell, file and fetch tools are now denied; its agent works through mcp_asimov_bash, _read, _write and _edit.',
    'No person answers on the MCP line, so a call asimov would ask about is refused (tier 1, `asimov wire gemini`, can ask).',
    ...(scope === 'project' ? ['Gemini reads a project\'s settings and policies only in folders the person trusts.'] : []),
    'Sessions already running need a restart to pick this up.',
  ],
};
