// The approvals API: list and read them (scope read), answer one (scope approve), and, for processes that
// are not this server (the MCP proxy, gated tools, hooks of headless runs), ask a person and wait for the
// answer (scope decide: POST /v1/approvals, then long polls on GET /v1/approvals/:id/wait).

import * as z from 'zod';
import { APPROVAL_SCOPES, APPROVAL_STATUSES, type Approval } from '../../store/approvals.ts';
import { ApprovalError, APPROVAL_MAX_TIMEOUT_MS, type ApprovalService } from '../approvals.ts';
import type { ServerDeps } from '../deps.ts';
import { HttpError, route, type RouteSpec } from '../route.ts';
import { FindingSchema, TierSchema, ToolCallSchema, type ToolCallBody } from '../schemas.ts';
import { toToolCall } from '../to-call.ts';
import { API_AGENT } from './decide.ts';

/** A long poll lasts at most this long; the requester polls again. */
export const MAX_WAIT_MS = 60_000;
const DEFAULT_TIMEOUT_SEC = 120;

export const ApprovalScopeSchema = z.enum(APPROVAL_SCOPES);

export const ApprovalSchema = z
  .object({
    id: z.string(),
    status: z.enum(APPROVAL_STATUSES),
    createdAt: z.string(),
    expiresAt: z.string(),
    call: z.object({
      tool: z.string(),
      clientTool: z.string().nullable(),
      cwd: z.string(),
      agent: z.string().nullable(),
      sessionId: z.string().nullable(),
      input: z.record(z.string(), z.unknown()).describe('The call\'s arguments, redacted as the audit log keeps them'),
    }),
    decision: z.object({
      decisionId: z.string(),
      tier: z.string(),
      rule: z.string().nullable(),
      reason: z.string(),
      findings: z.array(z.object({ rule: z.string(), tier: z.string(), reason: z.string(), subject: z.string().optional() })),
    }),
    requestedBy: z.string().nullable().describe('The name of the token that asked'),
    answeredBy: z.string().nullable(),
    answeredAt: z.string().nullable(),
    scope: ApprovalScopeSchema.nullable(),
    reason: z.string().nullable().describe('The answerer\'s reason'),
    proposedRule: z.string().nullable().describe('For scope always: a custom policy rule (YAML) to review and add by hand; never written by asimov'),
  })
  .describe('A question put to a person on call, and its answer');

const IdParams = z.object({ id: z.string().min(1).max(100) });
const ListQuery = z.object({ status: z.enum(['pending', 'all']).optional() });
const AnswerBody = z
  .object({
    verdict: z.enum(['allow', 'deny']),
    scope: ApprovalScopeSchema.optional().describe('once (default), session (the same call in the same session runs without asking again), always (also proposes a policy rule)'),
    reason: z.string().max(2000).optional(),
  })
  .strict();
const CreateBody = z
  .object({
    call: ToolCallSchema,
    decision: z
      .object({
        decisionId: z.string().max(200),
        tier: TierSchema,
        rule: z.string().max(500).nullable(),
        reason: z.string().max(20_000),
        findings: z.array(FindingSchema).max(200),
      })
      .describe('The requester\'s decision that asked for a person'),
    timeoutSec: z.number().int().positive().max(APPROVAL_MAX_TIMEOUT_MS / 1000).optional(),
  })
  .strict();
const WaitQuery = z.object({ timeoutMs: z.coerce.number().int().min(0).max(MAX_WAIT_MS).optional() });

export function approvalRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  const service = (): ApprovalService => {
    if (!deps.approvals) throw new HttpError(503, 'unavailable', 'This server has no approvals service.');
    return deps.approvals;
  };
  return [
    route<unknown, Record<string, string>, z.infer<typeof ListQuery>>({
      method: 'GET', url: '/v1/approvals', scope: 'read', tag: 'approvals', summary: 'List approvals, newest first',
      query: ListQuery,
      response: z.object({ approvals: z.array(ApprovalSchema) }),
      handler: async (ctx) => ({ approvals: await service().list(ctx.query.status ?? 'pending') }),
    }),
    route<z.infer<typeof CreateBody>>({
      method: 'POST', url: '/v1/approvals', scope: 'decide', tag: 'approvals',
      summary: 'Ask a person on call about a call (for processes that enforce elsewhere)',
      description: 'Creates a pending approval (or one already approved when a session grant covers the call) and notifies. A hard_deny call is refused with 422: it is never offered for approval. Then wait with GET /v1/approvals/{id}/wait.',
      body: CreateBody, status: 201,
      response: ApprovalSchema,
      handler: async (ctx) => {
        const call = toToolCall(ctx.body.call as ToolCallBody, API_AGENT);
        // The requester's tier is its word; this server's own policy gets a say too, and never offers a hard_deny.
        try {
          if (deps.gate.inspect(call).classification.tier === 'hard_deny') {
            throw new HttpError(422, 'not_approvable', 'This call is hard_deny under the approvals server\'s policy: it is never offered for approval.');
          }
        } catch (e) {
          if (e instanceof HttpError) throw e;
          /* the server cannot judge a call from elsewhere (its policy or paths): the requester's tier stands */
        }
        return answerErrors(() =>
          service().create({
            call,
            decision: ctx.body.decision,
            requestedBy: ctx.principal?.token.name ?? null,
            timeoutMs: (ctx.body.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000,
          }),
        );
      },
    }),
    route<unknown, z.infer<typeof IdParams>>({
      method: 'GET', url: '/v1/approvals/:id', scope: 'read', tag: 'approvals', summary: 'One approval',
      params: IdParams,
      response: ApprovalSchema,
      handler: async (ctx) => {
        const a = await service().get(ctx.params.id);
        if (!a) throw new HttpError(404, 'not_found', `No approval ${ctx.params.id}.`);
        return a;
      },
    }),
    route<unknown, z.infer<typeof IdParams>, z.infer<typeof WaitQuery>>({
      method: 'GET', url: '/v1/approvals/:id/wait', scope: 'decide', tag: 'approvals',
      summary: 'Wait for an approval\'s answer (long poll)',
      description: `Answers as soon as the approval is answered or expires, or after timeoutMs (default and at most ${MAX_WAIT_MS} ms) with the approval still pending: poll again.`,
      params: IdParams, query: WaitQuery,
      response: ApprovalSchema,
      unlimited: true,
      handler: (ctx) =>
        answerErrors(() => service().wait(ctx.params.id, { deadline: Date.now() + (ctx.query.timeoutMs ?? MAX_WAIT_MS), signal: ctx.signal })),
    }),
    route<z.infer<typeof AnswerBody>, z.infer<typeof IdParams>>({
      method: 'POST', url: '/v1/approvals/:id/answer', scope: 'approve', tag: 'approvals', summary: 'Answer a pending approval',
      description: '409 when it is no longer pending (answered or expired). A deny applies once. `always` approves this call and proposes a policy rule, shown in proposedRule, never written.',
      params: IdParams, body: AnswerBody,
      response: ApprovalSchema,
      handler: (ctx) =>
        answerErrors(() =>
          service().answer(ctx.params.id, {
            verdict: ctx.body.verdict,
            by: ctx.principal?.token.name ?? 'unknown',
            ...(ctx.body.scope !== undefined ? { scope: ctx.body.scope } : {}),
            ...(ctx.body.reason !== undefined ? { reason: ctx.body.reason } : {}),
          }),
        ),
    }),
  ];
}

const STATUS: Record<ApprovalError['code'], number> = { not_found: 404, conflict: 409, not_approvable: 422, bad_request: 400 };

/** The service's refusals as HTTP answers. */
async function answerErrors(fn: () => Promise<Approval>): Promise<Approval> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ApprovalError) throw new HttpError(STATUS[e.code], e.code, e.message);
    throw e;
  }
}
