// POST /v1/decide and /v1/decide/batch: the gate as a service. The whole gate applies, as in the hooks
// (static policy, judge, chains); nobody is at the caller's terminal, so where asimov would ask, the answer
// is a refusal unless the policy routes the question to a person on call (approvals).

import * as z from 'zod';
import type { Decision } from '../../core/types.ts';
import { auditFailedDecision } from '../../gate/gate.ts';
import type { ServerDeps } from '../deps.ts';
import { route, type RouteContext, type RouteSpec } from '../route.ts';
import { DecisionSchema, ToolCallSchema, type ToolCallBody } from '../schemas.ts';
import { toToolCall } from '../to-call.ts';

/** Calls in one batch request at most. */
export const MAX_BATCH = 1000;
export const API_AGENT = 'api';

export const BatchBodySchema = z.object({ calls: z.array(ToolCallSchema).min(1).max(MAX_BATCH) }).strict();
export const BatchAnswerSchema = z.object({ decisions: z.array(DecisionSchema) });

/** One call through the gate for a request, with the request's token recorded as who asked. */
export async function decideFor(deps: ServerDeps, body: ToolCallBody, ctx: Pick<RouteContext<unknown, unknown, unknown>, 'principal' | 'signal'>): Promise<Decision> {
  const decision = await deps.gate.decide(toToolCall(body, API_AGENT), {
    personAvailable: false,
    signal: ctx.signal,
    ...(ctx.principal ? { principal: ctx.principal.token.name } : {}),
    // Where the policy routes questions to a person on call, this server is the one they go to.
    ...(deps.approvals ? { approver: deps.approvals.approver(ctx.principal?.token.name ?? null) } : {}),
  });
  return recorded(deps, decision);
}

/** The decision once its audit record is on disk; a refusal when it could not be written (fail closed). */
export async function recorded(deps: ServerDeps, decision: Decision): Promise<Decision> {
  try {
    await deps.audit?.settled();
    return decision;
  } catch (e) {
    return auditFailedDecision(decision, e);
  }
}

export function decideRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  return [
    route<ToolCallBody>({
      method: 'POST',
      url: '/v1/decide',
      scope: 'decide',
      tag: 'decide',
      summary: 'Decide one tool call',
      description: 'The static policy, then the judge for soft_deny/unknown calls when it is on, then the policy\'s chains. Where a person would be asked, the call is refused unless approvals route it to one.',
      body: ToolCallSchema,
      response: DecisionSchema,
      handler: (ctx) => decideFor(deps, ctx.body, ctx),
    }),
    route<z.infer<typeof BatchBodySchema>>({
      method: 'POST',
      url: '/v1/decide/batch',
      scope: 'decide',
      tag: 'decide',
      summary: `Decide up to ${MAX_BATCH} tool calls`,
      description: 'Each call is decided on its own, in order, exactly as by /v1/decide; the answers come back in the same order.',
      body: BatchBodySchema,
      response: BatchAnswerSchema,
      handler: async (ctx) => {
        const decisions: Decision[] = [];
        for (const c of ctx.body.calls) decisions.push(await decideFor(deps, c, ctx));
        return { decisions };
      },
    }),
  ];
}
