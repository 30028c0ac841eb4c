// The library entry point: `import { createGate } from 'asimov'`.
export * from './core/types.ts';
export { AsimovError, type ErrorCode, type ErrorLocation } from './core/errors.ts';
export { normalizeTool } from './core/tools.ts';
export { createGate, resolveTier, type Gate, type GateOptions, type DecideOptions } from './gate/gate.ts';
export { analyzeShell } from './shell/unwrap.ts';
export { parseShell } from './shell/parse.ts';
export type { Analysis, SimpleCommand, Word, Redirect } from './shell/types.ts';
export { classify, classifyShell, type ClassifierPolicy } from './policy/classify.ts';
export { createRuleContext } from './policy/context.ts';
export { loadPolicy, findProjectRoot } from './policy/load.ts';
export type { EffectivePolicy } from './policy/layers.ts';
export { recommended } from './policy/rules/index.ts';
export { defineShellRule, defineToolRule, type Rule, type ShellRule, type ToolRule, type RuleContext } from './policy/rule.ts';
export { extractProposal, PROPOSAL_PREFIX, type Proposal } from './adapters/proposals.ts';
