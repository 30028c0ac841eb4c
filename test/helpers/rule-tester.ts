// Test helpers for rules: run a family's examples through the real pipeline (parse, unwrap, the whole
// recommended pack) and assert tiers and rule ids for extra cases.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tier } from '../../src/core/types.ts';
import { exampleFindings } from '../../src/policy/examples.ts';
import type { Rule, RuleExample } from '../../src/policy/rule.ts';
import { recommended } from '../../src/policy/rules/index.ts';

const POLICY = { rules: recommended };
const ID_RE = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;

function label(ex: RuleExample): string {
  return typeof ex === 'string' ? ex : `${ex.tool} ${JSON.stringify(ex.input)}`;
}

/** For each rule: its metadata is well-formed, each match example triggers it, each notMatch does not. */
export function testRuleExamples(rules: readonly Rule[]): void {
  for (const rule of rules) {
    describe(rule.id, () => {
      test('has a well-formed id, a reason and both kinds of example', () => {
        assert.match(rule.id, ID_RE);
        assert.ok(rule.reason.trim().length > 0, 'reason is empty');
        assert.ok(!rule.reason.includes('\n'), 'reason must be one line');
        assert.ok(rule.examples.match.length > 0, 'no match examples');
        assert.ok(rule.examples.notMatch.length > 0, 'no notMatch examples');
        const all = [...rule.examples.match, ...rule.examples.notMatch].map(label);
        assert.equal(new Set(all).size, all.length, 'duplicate examples');
      });
      // Examples that need files on disk run in the rule's own tests (Rule.examplesNeedDisk).
      for (const ex of rule.examplesNeedDisk ? [] : rule.examples.match) {
        test(`matches ${label(ex)}`, () => {
          const r = exampleFindings(ex, POLICY);
          assert.ok(r.findings.some((f) => f.rule === rule.id), `expected ${rule.id}; got ${r.tier} with [${r.findings.map((f) => f.rule).join(', ')}]`);
        });
      }
      for (const ex of rule.examples.notMatch) {
        test(`does not match ${label(ex)}`, () => {
          const r = exampleFindings(ex, POLICY);
          assert.ok(!r.findings.some((f) => f.rule === rule.id), `did not expect ${rule.id} (tier ${r.tier})`);
        });
      }
    });
  }
}

/** The combined tier of a call on the example machine. */
export function tierOf(ex: RuleExample): Tier {
  return exampleFindings(ex, POLICY).tier as Tier;
}

export function expectTier(ex: RuleExample, tier: Tier): void {
  const r = exampleFindings(ex, POLICY);
  assert.equal(r.tier, tier, `${label(ex)}: expected ${tier}, got ${r.tier} [${r.findings.map((f) => `${f.rule}:${f.tier}`).join(', ')}]`);
}

export function expectRule(ex: RuleExample, id: string): void {
  const r = exampleFindings(ex, POLICY);
  assert.ok(r.findings.some((f) => f.rule === id), `${label(ex)}: expected ${id}; got ${r.tier} [${r.findings.map((f) => f.rule).join(', ')}]`);
}

export function expectNoRule(ex: RuleExample, id: string): void {
  const r = exampleFindings(ex, POLICY);
  assert.ok(!r.findings.some((f) => f.rule === id), `${label(ex)}: did not expect ${id} (tier ${r.tier})`);
}

/** One test per row: `[call, expected tier]`. */
export function tierTable(name: string, rows: readonly (readonly [RuleExample, Tier])[]): void {
  describe(name, () => {
    for (const [ex, tier] of rows) test(`${label(ex)} is ${tier}`, () => expectTier(ex, tier));
  });
}
