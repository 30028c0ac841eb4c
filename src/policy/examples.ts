// Checks that rules keep their own promises: every `match` example triggers the rule and no `notMatch`
// example does (Codex execpolicy's habit). Used for custom rules at load time and for the built-in pack in tests.

import type { Finding, ToolCall } from '../core/types.ts';
import { normalizeTool } from '../core/tools.ts';
import { classify, type ClassifierPolicy } from './classify.ts';
import { createRuleContext } from './context.ts';
import type { Rule, RuleExample } from './rule.ts';

/** The imaginary machine examples run on: nothing here needs to exist on disk. */
export const EXAMPLE_CONTEXT = {
  cwd: '/home/dev/project',
  projectRoot: '/home/dev/project',
  home: '/home/dev',
  allowedDomains: ['api.example-corp.com'] as readonly string[],
  defaultBranches: ['main', 'master'] as readonly string[],
  protectedPaths: ['migrations/**'] as readonly string[],
};

/** Turn an example into the call the engine sees. */
export function exampleCall(example: RuleExample): ToolCall {
  if (typeof example === 'string') {
    return { tool: 'shell', clientTool: 'Bash', input: { command: example }, cwd: EXAMPLE_CONTEXT.cwd, projectRoot: EXAMPLE_CONTEXT.projectRoot };
  }
  const norm = normalizeTool(example.tool, example.input);
  return { tool: norm.tool, clientTool: example.tool, input: norm.input ?? example.input, cwd: EXAMPLE_CONTEXT.cwd, projectRoot: EXAMPLE_CONTEXT.projectRoot };
}

/** Every finding the policy produces for an example, on the example machine. */
export function exampleFindings(example: RuleExample, policy: ClassifierPolicy, overrides: Partial<typeof EXAMPLE_CONTEXT> = {}): { findings: Finding[]; tier: string; rule: string | null } {
  const c = { ...EXAMPLE_CONTEXT, ...overrides };
  const ctx = createRuleContext({
    cwd: c.cwd,
    projectRoot: c.projectRoot,
    home: c.home,
    allowedDomains: c.allowedDomains,
    defaultBranches: c.defaultBranches,
    protectedPaths: c.protectedPaths,
  });
  const result = classify(exampleCall(example), policy, ctx);
  return { findings: result.findings, tier: result.tier, rule: result.rule };
}

function show(example: RuleExample): string {
  return typeof example === 'string' ? JSON.stringify(example) : JSON.stringify(example);
}

/** Problems with a rule's examples, as messages naming the example; empty when it keeps its promises. */
export function checkRuleExamples(rule: Rule, policy: ClassifierPolicy): string[] {
  const problems: string[] = [];
  if (rule.examples.match.length === 0) problems.push(`${rule.id}: needs at least one \`match\` example`);
  for (const ex of rule.examples.notMatch) {
    if (exampleFindings(ex, policy).findings.some((f) => f.rule === rule.id)) {
      problems.push(`${rule.id}: notMatch example ${show(ex)} triggers the rule`);
    }
  }
  for (const ex of rule.examplesNeedDisk ? [] : rule.examples.match) {
    if (!exampleFindings(ex, policy).findings.some((f) => f.rule === rule.id)) {
      problems.push(`${rule.id}: match example ${show(ex)} does not trigger the rule`);
    }
  }
  return problems;
}

/** A custom rule's example checked against that rule alone, on the example machine (policy load uses this). */
export function runExample(example: RuleExample, rule: Rule): boolean {
  return exampleFindings(example, { rules: [rule] }).findings.some((f) => f.rule === rule.id);
}
