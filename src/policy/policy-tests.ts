// A policy's own `tests:`: each a call and the tier or verdict it must get, collected with file and
// line from every layer and run against the real classifier by `asimov test`.

import { dirname, isAbsolute, resolve } from 'node:path';
import type { Tier, ToolCall, Verdict } from '../core/types.ts';
import { describeError, formatLocated } from '../core/errors.ts';
import type { RuleExample } from './rule.ts';
import type { ParsedPolicy } from './schema.ts';
import { TIERS, formatKeyPath } from './schema.ts';
import type { EffectivePolicy, LayerName } from './layers.ts';

/** What a test expects: a tier (`allow` included) or a final verdict (`deny`, `ask`). */
export type PolicyExpectation = { kind: 'tier'; tier: Tier } | { kind: 'verdict'; verdict: Verdict };

export interface PolicyTest {
  /** A shell line (string) or another tool call. */
  call: RuleExample;
  /** Absolute directory the call runs in. */
  cwd: string;
  /** The project root the call is classified against. */
  projectRoot: string;
  expect: PolicyExpectation;
  /** The rule id that must decide the call, when given. */
  rule?: string;
  file: string;
  line: number;
  /** `tests[3]`, for messages. */
  key: string;
  layer: LayerName;
}

/** What the classifier answered for one test call. */
export interface PolicyTestOutcome {
  tier: Tier;
  verdict: Verdict;
  rule: string | null;
}

export interface PolicyTestResult {
  test: PolicyTest;
  pass: boolean;
  /** `file:line`, for editors and people. */
  where: string;
  expected: string;
  /** What the classifier gave; absent when it threw. */
  got?: PolicyTestOutcome;
  /** One line: `file:line: tests[0]: expected …, got …`. */
  message: string;
}

/**
 * The tests of one file. A relative `cwd` is taken from the project the file belongs to (the
 * directory holding `.asimov/`), not from `.asimov/` itself; user and managed files use the
 * project root being loaded.
 */
export function testsFromFile(parsed: ParsedPolicy, layer: LayerName, projectRoot: string): PolicyTest[] {
  const base = layer === 'project' ? dirname(dirname(parsed.file)) : projectRoot;
  return (parsed.doc.tests ?? []).map((t, i) => {
    const loc = parsed.locate(['tests', i], 'value');
    const call: RuleExample = t.command !== undefined ? t.command : { tool: t.tool ?? '', input: t.input ?? {} };
    const expect: PolicyExpectation = (TIERS as readonly string[]).includes(t.expect)
      ? { kind: 'tier', tier: t.expect as Tier }
      : { kind: 'verdict', verdict: t.expect as Verdict };
    const cwd = t.cwd === undefined ? base : isAbsolute(t.cwd) ? t.cwd : resolve(base, t.cwd);
    return {
      call,
      cwd,
      projectRoot: layer === 'project' ? base : projectRoot,
      expect,
      ...(t.rule !== undefined ? { rule: t.rule } : {}),
      file: parsed.file,
      line: loc.line ?? 1,
      key: formatKeyPath(['tests', i]),
      layer,
    };
  });
}

/** Every test of every layer, in layer order (user, project, managed). */
export function collectTests(policy: EffectivePolicy): PolicyTest[] {
  return policy.tests;
}

/** The tool call a test describes, as the gate would receive it. */
export function testCall(t: PolicyTest): ToolCall {
  if (typeof t.call === 'string') {
    return { tool: 'shell', input: { command: t.call }, cwd: t.cwd, projectRoot: t.projectRoot, agent: 'policy-test' };
  }
  return { tool: t.call.tool, input: t.call.input, cwd: t.cwd, projectRoot: t.projectRoot, agent: 'policy-test' };
}

function describeExpected(t: PolicyTest): string {
  const what = t.expect.kind === 'tier' ? t.expect.tier : `verdict ${t.expect.verdict}`;
  return t.rule ? `${what} (rule ${t.rule})` : what;
}

function describeGot(o: PolicyTestOutcome): string {
  return `${o.tier}, verdict ${o.verdict}${o.rule ? ` (rule ${o.rule})` : ' (no rule)'}`;
}

/** Runs each test through `classify`; a throwing classifier fails that test, it does not stop the run. */
export function runPolicyTests(tests: readonly PolicyTest[], classify: (call: ToolCall) => PolicyTestOutcome): PolicyTestResult[] {
  return tests.map((test) => {
    const where = `${test.file}:${test.line}`;
    const expected = describeExpected(test);
    const loc = { file: test.file, line: test.line, key: test.key };
    let got: PolicyTestOutcome;
    try {
      got = classify(testCall(test));
    } catch (e) {
      return { test, pass: false, where, expected, message: formatLocated(`expected ${expected}, but classifying failed: ${describeError(e)}`, loc) };
    }
    const tierOk = test.expect.kind === 'tier' ? got.tier === test.expect.tier : got.verdict === test.expect.verdict;
    const ruleOk = test.rule === undefined || got.rule === test.rule;
    const pass = tierOk && ruleOk;
    const message = formatLocated(pass ? `ok: ${expected}` : `expected ${expected}, got ${describeGot(got)}`, loc);
    return { test, pass, where, expected, got, message };
  });
}
