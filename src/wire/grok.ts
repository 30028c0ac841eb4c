// Tier 3 (advisory) for Grok CLI (@vibe-kit/grok-cli): it has no pre-tool hook and no setting that switches
// its own bash and file tools off, so asimov can only offer its gated MCP tools and ask, in the instruction
// file, that the agent use them. Grok's own tools still run unchecked: `asimov wire --list` says advisory.
//
// Facts from @vibe-kit/grok-cli 0.0.34's source: MCP servers are read from the PROJECT settings only,
// `<cwd>/.grok/settings.json` → `mcpServers` (an object keyed by name; each entry carries its `name`, and
// either `transport: {type: "stdio", command, args}` or plain `command`/`args`); tools reach the model as
// `mcp__<name>__<tool>`. Custom instructions come from `<cwd>/.grok/GROK.md`, else `~/.grok/GROK.md` (only
// the first found is read). So the only scope is the project: both files live in its `.grok/`.

import { join } from 'node:path';
import type { JsonDialect } from './json-settings.ts';
import { hasInstructionBlock, planInstructionBlock } from './instruction-block.ts';
import { hasToolsServerEntry, planMcpServerEntry } from './mcp-server-entry.ts';
import type { PlanOptions, TargetContext, WireTarget } from './targets.ts';
import { readTextFile } from './write-file.ts';

/** Grok reads its settings with JSON.parse: no comments, no trailing commas. */
const GROK_DIALECT: JsonDialect = { comments: false, trailingCommas: false };

export const GROK_INSTRUCTIONS = `## Shell and file actions go through asimov

This machine checks an agent's actions against the user's safety policy with asimov. For every shell
command and every file read, write or edit, use asimov's tools: \`mcp__asimov__bash\`, \`mcp__asimov__read\`,
\`mcp__asimov__write\` and \`mcp__asimov__edit\`. Do not use the built-in bash or file tools. When asimov
refuses a call, it says why: do not retry the same action another way; tell the user what was refused.
`;

export function grokSettingsPath(scope: string, ctx: TargetContext): string {
  if (scope === 'project') return join(ctx.projectRoot, '.grok', 'settings.json');
  throw new RangeError(`unknown Grok CLI scope '${scope}'`);
}

const grokInstructionsPath = (ctx: TargetContext) => join(ctx.projectRoot, '.grok', 'GROK.md');

const launchOf = (e: unknown) => {
  const o = (e ?? {}) as { command?: unknown; args?: unknown; transport?: { command?: unknown; args?: unknown } };
  return o.transport && typeof o.transport === 'object' ? { command: o.transport.command, args: o.transport.args } : { command: o.command, args: o.args };
};

function planSettings(text: string | null, o: PlanOptions): { text: string | null; changes: string[] } {
  return planMcpServerEntry(text, {
    serversPath: ['mcpServers'],
    entry: o.tools ? { name: 'asimov', transport: { type: 'stdio', command: o.tools.command, args: o.tools.args } } : null,
    launchOf,
    dialect: GROK_DIALECT,
    uninstall: o.uninstall,
    file: o.file,
  });
}

export const grokTarget: WireTarget = {
  client: 'grok',
  tier: 3,
  label: 'Grok CLI project settings, gated tools',
  scopes: ['project'],
  configPath: grokSettingsPath,
  modes: () => ({ fileMode: 0o644, dirMode: 0o755 }),
  plan: planSettings,
  extraWrites: (o) => {
    const file = grokInstructionsPath(o.ctx);
    const plan = planInstructionBlock(readTextFile(file), GROK_INSTRUCTIONS, o.uninstall);
    return [{ file, ...plan }];
  },
  isInstalled: (text, scope, ctx) => {
    if (!hasToolsServerEntry(text, { serversPath: ['mcpServers'], launchOf, dialect: GROK_DIALECT, file: grokSettingsPath(scope, ctx) })) return false;
    try {
      return hasInstructionBlock(readTextFile(grokInstructionsPath(ctx)));
    } catch {
      return false;
    }
  },
  notes: () => [
    'ADVISORY ONLY: Grok CLI has no pre-tool hook and cannot switch its own tools off, so its bash and file',
    'tools still run unchecked; .grok/GROK.md asks the agent to use asimov\'s tools instead.',
    'A ~/.grok/GROK.md is no longer read in this project (Grok reads only the first GROK.md it finds).',
  ],
};
