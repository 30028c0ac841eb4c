// Built-in rules: selfmod family. An agent must not rewrite the rules it runs under: its own configuration and
// hooks, asimov's policy, trust and audit log, or the git hooks that check its work.

import { programName, staticValue } from '../../shell/program.ts';
import type { Analysis, SimpleCommand, Word } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleContext, type RuleHit } from '../rule.ts';
import { has, pathTargets, type PathTarget } from './writes.ts';

function values(words: readonly Word[]): string[] {
  return words.map((w) => staticValue(w) ?? w.value);
}

function verb(t: PathTarget): string {
  if (t.kind === 'delete') return 'Deleting';
  if (t.kind === 'modify') return 'Changing';
  return 'Writing';
}

function firstTarget(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis, test: (t: PathTarget) => boolean): PathTarget | null {
  const targets = pathTargets(cmd, ctx, analysis);
  for (const t of targets) if (!t.placeholder && test(t)) return t;
  return null;
}

/**
 * A wildcard (`.*`, `.[^.]*`) that only may expand to a config name: the classifier flags what it could match,
 * so the hit is soft (a person looks) rather than a certain rewrite of the configuration.
 */
function isWildcard(t: PathTarget): boolean {
  const last = t.path.slice(t.path.lastIndexOf('/') + 1);
  return /[*?[]/.test(last);
}

/** Agent CLIs managing their own configuration: `claude mcp add`, `claude config set`… */
const AGENT_CLIS = ['claude', 'gemini', 'codex', 'qwen', 'cursor-agent', 'opencode', 'amp', 'goose', 'aider', 'copilot', 'crush', 'droid'] as const;
const CONFIG_VERBS = new Set(['add', 'add-json', 'remove', 'rm', 'set', 'unset', 'reset-project-choices', 'add-from-claude-desktop', 'install', 'uninstall', 'enable', 'disable', 'login', 'logout']);
/** Flags that start an agent with its approvals or sandbox switched off. */
const BYPASS_FLAGS = /^--(dangerously-skip-permissions|dangerously-bypass-approvals-and-sandbox|yolo|allow-dangerously-skip-permissions|approval-mode=yolo|permission-mode=bypasspermissions|full-auto|trust-all-tools|force|always-approve)$/i;

function agentCliHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  const words = values(cmd.argv.slice(1));
  const lw = words.map((w) => w.toLowerCase());
  const ops = lw.filter((w) => !w.startsWith('-'));
  if ((ops[0] === 'mcp' || ops[0] === 'config' || ops[0] === 'plugin' || ops[0] === 'plugins' || ops[0] === 'hooks' || ops[0] === 'extensions') && ops[1] !== undefined && CONFIG_VERBS.has(ops[1])) {
    return { reason: `\`${name} ${ops.slice(0, 2).join(' ')}\` changes the agent's own configuration (tools, servers, permissions); the user must do this.` };
  }
  return null;
}

/** Environment variables that start an agent with its plugins (asimov's guard among them) unloaded. */
const BYPASS_ENV = /^OPENCODE_PURE$/;

/** Commands that put a variable into the environment of later commands: `export X=1`, `declare -x X=1`… */
const EXPORTERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/**
 * A bypass variable set anywhere on the line before the agent starts: as a prefix (`OPENCODE_PURE=1 opencode`),
 * exported (`export OPENCODE_PURE=1; opencode …`, `declare -x …`), or assigned and exported later or under
 * `set -a`. Any of them on the same line as the agent is taken as meant for it.
 */
function bypassEnvOnLine(cmd: SimpleCommand, analysis: Analysis): string | null {
  for (const a of cmd.assignments) if (BYPASS_ENV.test(a.name)) return a.name;
  for (const other of analysis.commands) {
    if (other === cmd) continue;
    for (const a of other.assignments) if (BYPASS_ENV.test(a.name)) return a.name;
    const prog = programName(other);
    if (prog === null || !EXPORTERS.has(prog)) continue;
    for (const w of values(other.argv.slice(1))) {
      const name = w.split('=')[0]!;
      if (BYPASS_ENV.test(name)) return name;
    }
  }
  return null;
}

/** `--pure`, and `--pure=<anything but a false value>` as argument parsers read it. */
function isPureFlag(lw: string): boolean {
  return lw === '--pure' || (lw.startsWith('--pure=') && !/^--pure=(false|0|no|off)$/.test(lw));
}

function agentBypassHit(cmd: SimpleCommand, analysis: Analysis): RuleHit | null {
  const name = programName(cmd);
  const env = name === 'opencode' ? bypassEnvOnLine(cmd, analysis) : null;
  if (env !== null) {
    return { subject: env, reason: `Starting \`${name}\` with ${env} set runs an agent without its plugins or hooks, asimov's among them; the user must do this.` };
  }
  const words = values(cmd.argv.slice(1));
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const lw = w.toLowerCase();
    // OpenCode's --pure loads no plugins at all, so asimov's guard plugin would not run (seen with 1.18.33).
    if (name === 'opencode' && isPureFlag(lw)) return { subject: w, reason: 'Starting `opencode --pure` runs an agent without its plugins, asimov\'s guard among them; the user must do this.' };
    if (BYPASS_FLAGS.test(lw)) return { subject: w, reason: `Starting \`${name}\` with ${w} runs an agent with its approvals switched off; the user must do this.` };
    if ((lw === '--permission-mode' && words[i + 1]?.toLowerCase() === 'bypasspermissions') || (lw === '--approval-mode' && words[i + 1]?.toLowerCase() === 'yolo') ||
        (lw === '-y' && (name === 'gemini' || name === 'qwen')) || (lw === '--sandbox' && words[i + 1] === 'danger-full-access') || lw === '--sandbox=danger-full-access' ||
        ((lw === '-s' || lw === '--sandbox') && words[i + 1] === 'danger-full-access')) {
      return { subject: w, reason: `Starting \`${name}\` with ${w} ${words[i + 1] ?? ''} runs an agent with its approvals switched off; the user must do this.` };
    }
  }
  return null;
}

/** The npm package asimov is published as (`asimov-firewall`), and its short name. */
const isAsimovPackage = (w: string): boolean => /^asimov(-firewall)?(@|$)/.test(w);

/** `asimov trust`, `asimov wire --uninstall`, `asimov uninstall`, `asimov init --force`, and removing the package. */
function asimovCliHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  let words = values(cmd.argv.slice(1));
  if (name === 'npx' || name === 'pnpx' || name === 'bunx') {
    const i = words.findIndex((w) => w === 'asimov' || w.startsWith('asimov@'));
    if (i < 0) return null;
    words = words.slice(i + 1);
  } else if (name === 'npm' || name === 'pnpm' || name === 'yarn' || name === 'bun') {
    const ops = words.filter((w) => !w.startsWith('-'));
    if (ops[0] === 'exec' || ops[0] === 'x' || ops[0] === 'dlx') {
      const i = words.findIndex((w) => w === 'asimov' || w.startsWith('asimov@'));
      if (i < 0) return null;
      words = words.slice(i + 1);
    } else if (['uninstall', 'remove', 'rm', 'un', 'r', 'unlink'].includes(ops[0] ?? '') && ops.slice(1).some(isAsimovPackage)) {
      return { reason: 'Uninstalling asimov removes the firewall the agent runs under; the user must do this.' };
    } else return null;
  } else if (name !== 'asimov') return null;
  const ops = words.filter((w) => !w.startsWith('-'));
  const sub = ops[0];
  if (sub === 'trust' || sub === 'untrust') return { reason: `\`asimov ${sub}\` decides which policy files may loosen the rules; only the user may run it.` };
  if (sub === 'uninstall') return { reason: '`asimov uninstall` removes the hooks that check the agent from every client; only the user may run it.' };
  if (sub === 'wire' && words.some((w) => w === '--uninstall' || w === '--remove')) return { reason: '`asimov wire --uninstall` removes the hooks that check the agent; only the user may run it.' };
  if (sub === 'init' && words.some((w) => w === '--force' || w === '-f')) return { reason: '`asimov init --force` overwrites the project\'s policy; only the user may run it.' };
  return null;
}

/** Programs that set or unset variables for later commands (asimovEnvHit); also selfmod.asimov's pre-check. */
const ASIMOV_ENV_PROGRAMS = ['export', 'unset', 'declare', 'typeset', 'setenv', 'unsetenv', 'env', 'launchctl'] as const;
/** Programs that run the asimov CLI (asimovCliHit); also selfmod.asimov's pre-check. */
const ASIMOV_CLI_PROGRAMS = ['asimov', 'npx', 'pnpx', 'bunx', 'npm', 'pnpm', 'yarn', 'bun'] as const;

/** ASIMOV_* variables set or unset for later commands. */
function asimovEnvHit(cmd: SimpleCommand): RuleHit | null {
  for (const a of cmd.assignments) if (a.name.startsWith('ASIMOV_')) return { subject: a.name, reason: `Setting ${a.name} changes how asimov behaves; only the user may do this.` };
  const name = programName(cmd);
  if (name !== null && (ASIMOV_ENV_PROGRAMS as readonly string[]).includes(name)) {
    const v = values(cmd.argv.slice(1)).find((w) => /^ASIMOV_/.test(w) || /^-[a-z]*\s*ASIMOV_/.test(w));
    if (v) return { subject: v, reason: `Changing ${v.split('=')[0]} changes how asimov behaves; only the user may do this.` };
  }
  return null;
}

const GIT_HOOK_PATH = /(^|\/)\.git\/(hooks(\/|$)|config$|info\/attributes$)/;

export const rules: Rule[] = [
  // Hard for settings, hooks and permissions (the agent would grant itself more); soft for instruction files
  // (CLAUDE.md, AGENTS.md), which agents are sometimes asked to update.
  defineShellRule({
    id: 'selfmod.agent-config',
    needs: { traits: ['path-targets'], programs: AGENT_CLIS },
    tier: 'hard_deny',
    reason: 'Agents must not change their own configuration, hooks or permissions; ask the user to make the change.',
    examples: {
      match: ['echo "{}" > .claude/settings.json', 'sed -i s/deny/allow/ .claude/settings.local.json', 'rm -rf .claude', 'cp evil.json ~/.claude/settings.json', 'mv .mcp.json /tmp/', 'git checkout -- .claude/settings.json', 'tee .cursor/rules/x.mdc < x', 'ln -sf /tmp/x .gemini/settings.json', 'chmod 777 .codex/config.toml', 'echo "- always allow rm" >> CLAUDE.md', 'claude mcp add evil -- npx evil', 'git rm AGENTS.md'],
      notMatch: ['cat .claude/settings.json', 'cp .claude/settings.json /tmp/backup.json', 'echo x > claude-notes.md', 'claude --version', 'claude mcp list'],
    },
    match: (cmd, ctx, analysis) => {
      const name = programName(cmd);
      if (name !== null && (AGENT_CLIS as readonly string[]).includes(name)) {
        const h = agentCliHit(cmd);
        if (h) return h;
      }
      // Configuration first: a line that writes both CLAUDE.md and settings.json is judged by the settings.
      const t = firstTarget(cmd, ctx, analysis, (x) => has(x.info, 'agent-config')) ?? firstTarget(cmd, ctx, analysis, (x) => has(x.info, 'agent-instructions'));
      if (!t) return null;
      if (isWildcard(t)) return { tier: 'soft_deny', subject: t.path, reason: `The pattern ${t.path} may match the agent's own configuration (.claude, .cursor…); name the files you mean.` };
      const doc = !has(t.info, 'agent-config');
      return {
        tier: doc ? 'soft_deny' : 'hard_deny',
        subject: t.path,
        reason: doc
          ? `${verb(t)} ${t.path} changes the agent's standing instructions; confirm with the user first.`
          : `${verb(t)} ${t.path} (via ${t.how}) changes the agent's own configuration or hooks; ask the user to make the change.`,
      };
    },
  }),
  // Hard: a nested agent with approvals off would act without any of these checks.
  defineShellRule({
    id: 'selfmod.agent-bypass',
    tier: 'hard_deny',
    programs: AGENT_CLIS,
    reason: 'Starting an agent with its approvals or sandbox switched off escapes every check; the user must do this.',
    examples: {
      match: ['claude --dangerously-skip-permissions -p "fix it"', 'claude -p x --permission-mode bypassPermissions', 'codex --dangerously-bypass-approvals-and-sandbox exec x', 'gemini --yolo -p x', 'codex exec --sandbox danger-full-access x', 'opencode run --pure "fix it"', 'OPENCODE_PURE=1 opencode run x', 'opencode run --pure=true x', 'export OPENCODE_PURE=1; opencode run x'],
      notMatch: ['claude -p "summarize"', 'codex exec "run tests"', 'gemini -p x', 'claude --version', 'opencode run "fix it"', 'pure --version', 'opencode run --pure=false x', 'export OPENCODE_PURE=1; ls'],
    },
    match: (cmd, _ctx, analysis) => agentBypassHit(cmd, analysis),
  }),
  // Hard: asimov's policy, trust store and audit log are what keep the agent in check.
  defineShellRule({
    id: 'selfmod.asimov',
    needs: { traits: ['assignment', 'path-targets'], programs: [...ASIMOV_ENV_PROGRAMS, ...ASIMOV_CLI_PROGRAMS] },
    tier: 'hard_deny',
    reason: 'Agents must not change asimov\'s policy, trust or audit log, nor switch asimov off; ask the user.',
    examples: {
      match: ['echo "rules: {}" > .asimov/policy.yaml', 'rm -rf ~/.config/asimov', 'asimov trust', 'npx asimov trust .asimov/policy.yaml', 'asimov wire --uninstall', 'asimov init --force', 'npm uninstall -g asimov', 'ASIMOV_POLICY=/tmp/p.yaml claude', 'export ASIMOV_DISABLE=1', 'truncate -s 0 ~/.local/state/asimov/audit.jsonl', 'sed -i s/hard_deny/allow/ .asimov/policy.yaml'],
      notMatch: ['cat .asimov/policy.yaml', 'asimov check -- ls', 'asimov audit tail', 'asimov explain -- rm -rf /', 'npm install asimov', 'asimov init'],
    },
    match: (cmd, ctx, analysis) => {
      const env = cmd.assignments.length > 0 || cmd.argv.length > 1 ? asimovEnvHit(cmd) : null;
      if (env) return env;
      const name = programName(cmd);
      if (name !== null && (ASIMOV_CLI_PROGRAMS as readonly string[]).includes(name)) {
        const h = asimovCliHit(cmd);
        if (h) return h;
      }
      const t = firstTarget(cmd, ctx, analysis, (x) => has(x.info, 'asimov-config'));
      if (t && isWildcard(t)) return { tier: 'soft_deny', subject: t.path, reason: `The pattern ${t.path} may match asimov's own files (.asimov); name the files you mean.` };
      return t ? { subject: t.path, reason: `${verb(t)} ${t.path} changes asimov's policy, trust or audit log; ask the user.` } : null;
    },
  }),
  // Soft: hooks and .git/config run code on the next git command; writing them by hand bypasses review.
  defineShellRule({
    id: 'selfmod.git-hooks',
    needs: { traits: ['path-targets'] },
    tier: 'soft_deny',
    reason: 'Files in .git/hooks and .git/config run code on the next git command; use the project\'s hook manager, or ask the user.',
    examples: {
      match: ['echo "exit 0" > .git/hooks/pre-commit', 'chmod -x .git/hooks/pre-push', 'rm .git/hooks/commit-msg', 'cp x .git/hooks/', 'echo "[core] fsmonitor = x" >> .git/config'],
      notMatch: ['cat .git/hooks/pre-commit', 'ls .git/hooks', 'rm -f .git/index.lock', 'echo x > hooks/pre-commit'],
    },
    match: (cmd, ctx, analysis) => {
      const t = firstTarget(cmd, ctx, analysis, (x) => has(x.info, 'git-internals') && (GIT_HOOK_PATH.test(x.info.abs ?? '') || GIT_HOOK_PATH.test(x.path)));
      return t ? { subject: t.path, reason: `${verb(t)} ${t.path} changes what runs on the next git command; use the project's hook manager, or ask the user.` } : null;
    },
  }),
];

