// POST /v1/proposals: the seed's two-phase protocol in one request. A model's reply goes in; its one
// `EXECUTE: <command>` line is found (adapters/proposals.ts), decided as a `shell` call, and, with
// `execute: true`, run exactly as /v1/execute runs it. A reply with no such line, several, or an empty one is
// answered without deciding anything, so a dispatcher can tell the model why.

import * as z from 'zod';
import { extractProposal, PROPOSAL_PREFIX } from '../../adapters/proposals.ts';
import type { ServerDeps } from '../deps.ts';
import { ExecutionFieldsSchema, executeCommand, RunFieldsSchema } from '../execute.ts';
import { HttpError, route, type RouteSpec } from '../route.ts';
import { DecisionSchema } from '../schemas.ts';
import { decideFor } from './decide.ts';

export const ProposalBodySchema = RunFieldsSchema.extend({
  text: z.string().max(1_000_000).describe(`The model's reply, as it wrote it: one line \`${PROPOSAL_PREFIX} <command>\` proposes a command`),
  execute: z.boolean().optional().describe('Also run the command when the gate allows it (needs the `execute` scope too); default false: decide only'),
}).strict();
export type ProposalBody = z.infer<typeof ProposalBodySchema>;

export const ProposalSchema = z.object({
  kind: z.enum(['none', 'command', 'several', 'invalid']).describe('none: no proposal line (the model is done); command: one; several: more than one, none is decided or run; invalid: an empty command'),
  command: z.string().optional(),
  line: z.number().int().optional().describe('The proposal line, 1-based'),
  commands: z.array(z.string()).optional(),
  lines: z.array(z.number().int()).optional(),
  reason: z.string().optional().describe('For several and invalid: what to tell the model'),
});

export const ProposalAnswerSchema = z.object({
  proposal: ProposalSchema,
  decision: DecisionSchema.optional().describe('The gate\'s answer, when the reply proposed one command'),
  execution: ExecutionFieldsSchema.optional().describe('With execute: true and one command: whether it ran and how it ended'),
});

export function proposalRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  return [
    route<ProposalBody>({
      method: 'POST',
      url: '/v1/proposals',
      scope: 'decide',
      tag: 'execute',
      summary: `Find the ${PROPOSAL_PREFIX} line in a model's reply, decide it, and run it when asked and allowed`,
      description:
        `The reply's proposal line is \`${PROPOSAL_PREFIX} <command>\` at the start of a line (leading spaces allowed, fences allowed, capitals only); ` +
        'the command is the rest of the line. One command at a time: with several lines nothing is decided. With `execute: true` (scope `execute` as well) ' +
        'an allowed command runs as by /v1/execute (the cwd must lie inside the allowed roots).',
      body: ProposalBodySchema,
      response: ProposalAnswerSchema,
      handler: async (ctx) => {
        const body = ctx.body;
        if (body.execute === true && ctx.principal && !ctx.principal.token.scopes.includes('execute')) {
          throw new HttpError(403, 'forbidden', `The token '${ctx.principal.token.name}' lacks the 'execute' scope that execute: true needs (it has: ${ctx.principal.token.scopes.join(', ')}).`);
        }
        const proposal = extractProposal(body.text);
        if (proposal.kind !== 'command') return { proposal };
        const run = { sessionId: body.sessionId, agent: body.agent };
        if (body.execute !== true) {
          const decision = await decideFor(deps, { tool: 'shell', input: { command: proposal.command }, cwd: body.cwd, ...defined(run) }, ctx);
          return { proposal, decision };
        }
        const { decision, ...execution } = await executeCommand(
          deps,
          { command: proposal.command, cwd: body.cwd, ...defined({ ...run, stdin: body.stdin, timeoutMs: body.timeoutMs }) },
          ctx,
        );
        return { proposal, decision, execution };
      },
    }),
  ];
}

/** The fields that are set (the request's optional fields pass on only when given). */
function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
