// The rule `asimov mcp allow` writes: it passes the loader's own checks (schema, examples), merges instead of
// duplicating, refuses to take over a rule the user wrote under its id, and the refusal of an MCP tool no rule
// decides names the command that writes it.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { classify } from '../../src/policy/classify.ts';
import { createRuleContext } from '../../src/policy/context.ts';
import { EXAMPLE_CONTEXT, exampleCall, runExample } from '../../src/policy/examples.ts';
import { buildEffectivePolicy } from '../../src/policy/layers.ts';
import { parsePolicyText } from '../../src/policy/load.ts';
import {
  buildMcpAllowRule, mcpAllowCommandFor, mcpAllowRuleId, mergeMcpAllow, toolGlob, toolsOfExistingRule,
} from '../../src/policy/mcp-allow.ts';
import { recommended } from '../../src/policy/rules/index.ts';

/** The effective policy of a user file holding these rules, examples checked as the gate checks them. */
function policyWith(...rules: object[]) {
  const parsed = parsePolicyText(stringify({ version: 1, custom: rules }), '/home/dev/.config/asimov/policy.yaml');
  return buildEffectivePolicy({ builtin: recommended, layers: [{ layer: 'user', parsed }], projectRoot: EXAMPLE_CONTEXT.projectRoot, home: EXAMPLE_CONTEXT.home, isTrusted: () => true, exampleRunner: runExample });
}

function decide(policy: { rules: ReturnType<typeof policyWith>['rules'] } | { rules: typeof recommended }, tool: string, input: Record<string, unknown> = {}) {
  const ctx = createRuleContext({ cwd: EXAMPLE_CONTEXT.cwd, projectRoot: EXAMPLE_CONTEXT.projectRoot, home: EXAMPLE_CONTEXT.home });
  return classify(exampleCall({ tool, input }), policy as Parameters<typeof classify>[1], ctx);
}

describe('the rule asimov mcp allow writes', () => {
  test('loads with its examples checked, allows exactly the named tools, and leaves the server\'s others to a person', () => {
    const policy = policyWith(buildMcpAllowRule('everything', ['echo', 'trigger-long-running-operation']));
    assert.equal(decide(policy, 'mcp__everything__echo', { message: 'hi' }).tier, 'allow');
    assert.equal(decide(policy, 'mcp__everything__echo').rule, 'mcp-allow.everything');
    assert.equal(decide(policy, 'mcp__everything__toggle-simulated-logging').tier, 'unknown');
    assert.equal(decide(policy, 'mcp__other__echo').tier, 'unknown');
  });

  test('--all is one glob over the server, and its examples load too', () => {
    const rule = buildMcpAllowRule('github', ['*']);
    assert.deepEqual(rule.match.tool, ['mcp__github__*']);
    const policy = policyWith(rule);
    assert.equal(decide(policy, 'mcp__github__create_issue', { title: 't' }).tier, 'allow');
    assert.equal(decide(policy, 'mcp__githubx__create_issue').tier, 'unknown');
  });

  test('an allow rule does not lift a stricter verdict: a destructive name still needs a person, a credential path is still refused', () => {
    const policy = policyWith(buildMcpAllowRule('github', ['*']));
    assert.equal(decide(policy, 'mcp__github__delete_repository', { owner: 'o', repo: 'r' }).tier, 'soft_deny');
    const fsPolicy = policyWith(buildMcpAllowRule('fs', ['write_file']));
    assert.equal(decide(fsPolicy, 'mcp__fs__write_file', { path: '/home/dev/.bashrc', content: 'x' }).tier === 'allow', false);
  });

  test('tool names with glob characters are matched literally', () => {
    assert.equal(toolGlob('s', 'a*b?[c]'), 'mcp__s__a\\*b\\?\\[c\\]');
    const policy = policyWith(buildMcpAllowRule('s', ['a*b']));
    assert.equal(decide(policy, 'mcp__s__a*b').tier, 'allow');
    assert.equal(decide(policy, 'mcp__s__aXXb').tier, 'unknown');
  });

  test('the rule id is dotted lower-case whatever the server is called', () => {
    assert.equal(mcpAllowRuleId('My_Server-2'), 'mcp-allow.my-server-2');
    policyWith(buildMcpAllowRule('My_Server-2', ['Do_It']));
  });
});

describe('merging into an earlier rule', () => {
  test('adds only what is new, and says what was already there', () => {
    const m = mergeMcpAllow('s', { tools: ['b', 'a'] }, ['a']);
    assert.deepEqual(m.added, ['b']);
    assert.deepEqual(m.already, ['a']);
    assert.deepEqual(m.rule.match.tool, ['mcp__s__a', 'mcp__s__b']);
    assert.equal(m.updates, true);
  });

  test('a rule for every tool covers any tool asked for later; --all replaces a list', () => {
    assert.deepEqual(mergeMcpAllow('s', { tools: ['x'] }, ['*']).added, []);
    assert.deepEqual(mergeMcpAllow('s', 'all', ['a', 'b']).rule.match.tool, ['mcp__s__*']);
  });

  test('reads back the tools of a rule it wrote, escaped names included', () => {
    assert.deepEqual(toolsOfExistingRule('s', buildMcpAllowRule('s', ['a*b', 'c'])), ['a*b', 'c']);
    assert.deepEqual(toolsOfExistingRule('s', buildMcpAllowRule('s', ['*'])), ['*']);
  });

  test('a rule the user wrote under the same id is not taken over', () => {
    const mine = buildMcpAllowRule('s', ['a']);
    assert.match(toolsOfExistingRule('s', { ...mine, tier: 'hard_deny' }) as string, /tier is hard_deny/);
    assert.match(toolsOfExistingRule('s', { ...mine, overrides: ['mcp.call'] }) as string, /overrides/);
    assert.match(toolsOfExistingRule('s', { ...mine, match: { tool: ['mcp__s__get_*'] } }) as string, /not one of server s's tools/);
    assert.match(toolsOfExistingRule('s', { ...mine, match: { tool: ['mcp__t__a'] } }) as string, /not one of server s's tools/);
    assert.match(toolsOfExistingRule('s', { ...mine, match: { tool: ['mcp__s__a'], path: ['x'] } }) as string, /more than tool names/);
  });
});

describe('the refusal of an MCP tool no rule decides', () => {
  test('names the exact command that allows it', () => {
    const c = decide({ rules: recommended }, 'mcp__everything__echo', { message: 'hi' });
    assert.equal(c.tier, 'unknown');
    assert.match(c.reason, /asimov has no rule for the tool `mcp__everything__echo`/);
    assert.match(c.reason, /`asimov mcp allow everything echo`/);
  });

  test('quotes a tool name the shell would split, and says nothing for names it cannot write a rule for', () => {
    assert.equal(mcpAllowCommandFor('mcp__s__odd tool'), null);
    assert.equal(mcpAllowCommandFor("mcp__s__it's"), "asimov mcp allow s 'it'\\''s'");
    assert.equal(mcpAllowCommandFor('mcp__a.b__t'), null);
    assert.equal(mcpAllowCommandFor('frobnicate'), null);
    const other = decide({ rules: recommended }, 'Frobnicate', {});
    assert.doesNotMatch(other.reason, /mcp allow/);
  });
});
