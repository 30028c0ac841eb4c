// Tests for the engine's nested line classifier (RuleContext.classifyLine): bound once per context and policy,
// sharing one depth count across nesting, so data that holds commands that hold data stops at MAX_NESTED_LINES.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyShell, MAX_NESTED_LINES } from '../../src/policy/classify.ts';
import { createRuleContext } from '../../src/policy/context.ts';
import { defineShellRule, type RuleContext } from '../../src/policy/rule.ts';

let root: string;
let ctx: () => RuleContext;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'asimov-nesting-'));
  const project = join(root, 'home', 'project');
  mkdirSync(project, { recursive: true });
  ctx = () => createRuleContext({ cwd: project, projectRoot: project, home: join(root, 'home') });
});
after(() => rmSync(root, { recursive: true, force: true }));

/** A rule for `nest`: classifies `nest` again as data, and reports how deep that went. */
function nestingPolicy(depths: number[]) {
  let depth = 0;
  const rule = defineShellRule({
    id: 'test.nest',
    tier: 'soft_deny',
    programs: ['nest'],
    reason: 'nests',
    examples: { match: ['nest'], notMatch: ['ls'] },
    match: (_cmd, c) => {
      depth++;
      try {
        const inner = c.classifyLine('nest');
        depths.push(depth);
        return { reason: inner.rule ?? 'none' };
      } finally {
        depth--;
      }
    },
  });
  return { rules: [rule] };
}

test('nested lines stop at MAX_NESTED_LINES, counted across the nesting of one context', () => {
  const depths: number[] = [];
  const policy = nestingPolicy(depths);
  const c = ctx();
  const r = classifyShell('nest', policy, c);
  assert.equal(Math.max(...depths), MAX_NESTED_LINES + 1, 'the line itself and MAX_NESTED_LINES nested ones');
  assert.equal(r.classification.findings[0]?.rule, 'test.nest');
  // The innermost rule saw the depth limit; a second line on the same context starts from depth 0 again.
  const again: number[] = [];
  depths.length = 0;
  classifyShell('nest', policy, c);
  again.push(...depths);
  assert.equal(Math.max(...again), MAX_NESTED_LINES + 1);
});

test('a context bound to one policy is bound afresh to another', () => {
  const c = ctx();
  const a: number[] = [];
  const b: number[] = [];
  classifyShell('nest', nestingPolicy(a), c);
  classifyShell('nest', nestingPolicy(b), c);
  assert.equal(Math.max(...a), MAX_NESTED_LINES + 1);
  assert.equal(Math.max(...b), MAX_NESTED_LINES + 1, 'the second policy ran its own rule at every depth');
});
