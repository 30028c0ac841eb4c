// The API's shapes as zod schemas: requests are validated with them and the OpenAPI document is generated
// from them. They are the library's own ToolCall and Decision (core/types.ts), field for field.

import * as z from 'zod';
import { TIER_ORDER } from '../core/types.ts';

export const TierSchema = z.enum(TIER_ORDER as unknown as ['allow', 'unknown', 'soft_deny', 'hard_deny']);
export const VerdictSchema = z.enum(['allow', 'deny', 'ask']);

export const ToolCallSchema = z
  .object({
    tool: z.string().min(1).max(200).describe('A normalized kind (shell, write, edit, read, fetch, search, mcp) or a client\'s own tool name (Bash, run_shell_command, mcp__github__create_issue)'),
    clientTool: z.string().max(200).optional(),
    input: z.record(z.string(), z.unknown()).describe('The tool\'s arguments, as the client sent them'),
    cwd: z.string().min(1).max(4096).refine((s) => s.startsWith('/'), 'must be an absolute path').describe('The directory the call runs in (absolute)'),
    projectRoot: z.string().max(4096).refine((s) => s.startsWith('/'), 'must be an absolute path').optional(),
    agent: z.string().max(200).optional(),
    sessionId: z.string().max(200).optional(),
    callId: z.string().max(200).optional(),
    intent: z.string().max(20_000).optional().describe('The user\'s own latest request; only the judge reads it'),
  })
  .strict()
  .describe('One proposed action of an agent (the library\'s ToolCall)');

export const FindingSchema = z.object({
  rule: z.string(),
  tier: TierSchema,
  reason: z.string(),
  subject: z.string().optional(),
  source: z.string().optional(),
});

export const DecisionSchema = z
  .object({
    verdict: VerdictSchema,
    tier: TierSchema,
    rule: z.string().nullable(),
    reason: z.string(),
    layer: z.enum(['static', 'judge', 'chain', 'error']),
    ms: z.number(),
    findings: z.array(FindingSchema),
    decisionId: z.string(),
    errorCode: z.string().optional(),
    approval: z
      .object({
        id: z.string().nullable(),
        by: z.string().nullable(),
        scope: z.enum(['once', 'session', 'always']).nullable(),
        verdict: z.enum(['allow', 'deny']),
        reason: z.string().nullable(),
      })
      .optional()
      .describe('When a person on call was asked (policy approvals:): the approval and its answer'),
  })
  .describe('The gate\'s answer (the library\'s Decision)');

export const ErrorSchema = z.object({
  error: z.string().describe('A machine-readable code'),
  message: z.string(),
});

export type ToolCallBody = z.infer<typeof ToolCallSchema>;
