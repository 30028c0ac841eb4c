// The team dashboard's API: the machines shipping their audit logs and the state of their chains, the team's
// decisions by person and by agent, and the calls the policy asks people about most. Read-only, scope read
// (a laptop's `report` token ships records but cannot read the team's). Queries: server/team-queries.ts.

import * as z from 'zod';
import { parseTime } from '../../audit/reader.ts';
import { describeError } from '../../core/errors.ts';
import type { ServerDeps } from '../deps.ts';
import { HttpError, route, type RouteSpec } from '../route.ts';
import { chainProblems, getClient, listAgents, listClients, listPeople, topAsked } from '../team-queries.ts';

export const DEFAULT_TOP_ASKED = 20;
export const MAX_TOP_ASKED = 100;
export const DEFAULT_PROBLEMS = 50;
export const MAX_PROBLEMS = 500;

const Since = z.string().max(100).optional().describe('A duration before now (24h, 7d, 30d) or an ISO time; default 7d');
const SinceQuery = z.object({ since: Since });
const TopAskedQuery = z.object({
  since: Since,
  limit: z.coerce.number().int().min(1).max(MAX_TOP_ASKED).optional().describe(`Groups at most (default ${DEFAULT_TOP_ASKED})`),
});
const ClientQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PROBLEMS).optional().describe(`Chain problems at most (default ${DEFAULT_PROBLEMS})`),
});

const Iso = z.string().describe('ISO 8601 UTC');
const VerdictCountsSchema = z.object({ allow: z.number(), deny: z.number(), ask: z.number() });
const ClientSchema = z.object({
  clientId: z.string().describe('The random id of the client\'s state directory'),
  tokenName: z.string().describe('The name of the token it ships with: the person or machine account'),
  host: z.string().nullable(),
  osUser: z.string().nullable(),
  firstSeen: Iso,
  lastContact: Iso,
  headSeq: z.number().describe('Records shipped and verified (the sequence number of the chain head the server holds)'),
  status: z.enum(['ok', 'broken']).describe('Whether the shipped chain verified; broken stays until someone looks'),
  problem: z.string().nullable().describe('What broke the chain (the latest problem), when broken'),
  problemAt: Iso.nullable(),
  last24h: VerdictCountsSchema.describe('Its decisions over the last 24 hours by verdict'),
  last7d: VerdictCountsSchema.describe('Its decisions over the last 7 days by verdict'),
});
const ProblemSchema = z.object({
  id: z.number(),
  at: Iso,
  kind: z.string().describe('What the server found (a gap, a changed record, a cut log, …)'),
  seq: z.number().nullable(),
  decisionId: z.string().nullable(),
  message: z.string(),
});
const PersonSchema = z.object({
  name: z.string().describe('The token name'),
  machines: z.number(),
  broken: z.number().describe('Of its machines, those whose chain is broken'),
  lastContact: Iso.nullable().describe('The latest contact of its machines; null when it only calls the API'),
  decisions: z.number(),
  asks: z.number(),
  denies: z.number(),
  lastDecision: Iso.nullable(),
});
const AgentSchema = z.object({
  agent: z.string().nullable().describe('null: calls that named no agent'),
  decisions: z.number(),
  asks: z.number(),
  denies: z.number(),
  users: z.number().describe('Distinct token names'),
  lastSeen: Iso,
});
const AskedSchema = z.object({
  rule: z.string().nullable(),
  summary: z.string().describe('The call\'s redacted one-line gist, as grouped (at most 80 characters)'),
  count: z.number(),
  users: z.number().describe('Distinct token names asked'),
  machines: z.number().describe('Distinct machines (the server\'s own decisions are none)'),
  lastSeen: Iso,
  example: z.object({ decisionId: z.string(), principal: z.string().nullable(), agent: z.string().nullable() }).describe('The newest decision of the group'),
});

const ClientsAnswer = z.object({ clients: z.array(ClientSchema) });
const ClientAnswer = z.object({ client: ClientSchema, problems: z.array(ProblemSchema).describe('Newest first') });
const PeopleAnswer = z.object({ since: Iso, people: z.array(PersonSchema) });
const AgentsAnswer = z.object({ since: Iso, agents: z.array(AgentSchema) });
const TopAskedAnswer = z.object({ since: Iso, calls: z.array(AskedSchema) });

/** `since` as a time in the past; a 400 naming the problem otherwise. */
function sinceOf(text: string | undefined): Date {
  let since: Date;
  try {
    since = parseTime(text ?? '7d');
  } catch (e) {
    throw new HttpError(400, 'bad_request', describeError(e));
  }
  if (since.getTime() >= Date.now()) throw new HttpError(400, 'bad_request', `since (${text}) must be in the past.`);
  return since;
}

export function teamRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  return [
    route({
      method: 'GET', url: '/v1/team/clients', scope: 'read', tag: 'team',
      summary: 'Every machine shipping its audit log: who, last contact, records shipped, chain status, decisions by verdict',
      description: 'Broken chains first, then the most recently heard from.',
      response: ClientsAnswer,
      handler: async () => ({ clients: await listClients(deps.db) }),
    }),
    route<unknown, { id: string }, z.infer<typeof ClientQuery>>({
      method: 'GET', url: '/v1/team/clients/:id', scope: 'read', tag: 'team',
      summary: 'One machine, with the problems found in its chain (newest first)',
      params: z.object({ id: z.string().min(1).max(200) }), query: ClientQuery, response: ClientAnswer,
      handler: async (ctx) => {
        const client = await getClient(deps.db, ctx.params.id);
        if (!client) throw new HttpError(404, 'not_found', `No machine '${ctx.params.id}' has shipped to this server.`);
        return { client, problems: await chainProblems(deps.db, ctx.params.id, ctx.query.limit ?? DEFAULT_PROBLEMS) };
      },
    }),
    route<unknown, Record<string, string>, z.infer<typeof SinceQuery>>({
      method: 'GET', url: '/v1/team/people', scope: 'read', tag: 'team',
      summary: 'Per token name (a person): machines, decisions, asks, denies, last contact',
      query: SinceQuery, response: PeopleAnswer,
      handler: async (ctx) => {
        const since = sinceOf(ctx.query.since);
        return { since: since.toISOString(), people: await listPeople(deps.db, since) };
      },
    }),
    route<unknown, Record<string, string>, z.infer<typeof SinceQuery>>({
      method: 'GET', url: '/v1/team/agents', scope: 'read', tag: 'team',
      summary: 'Per agent: decisions, asks, denies and how many people used it',
      query: SinceQuery, response: AgentsAnswer,
      handler: async (ctx) => {
        const since = sinceOf(ctx.query.since);
        return { since: since.toISOString(), agents: await listAgents(deps.db, since) };
      },
    }),
    route<unknown, Record<string, string>, z.infer<typeof TopAskedQuery>>({
      method: 'GET', url: '/v1/team/top-asked', scope: 'read', tag: 'team',
      summary: 'The calls that cost people the most time: asked decisions grouped by rule and call, most frequent first',
      description: 'Each group counts its decisions, the people and machines asked, and names its newest decision as an example.',
      query: TopAskedQuery, response: TopAskedAnswer,
      handler: async (ctx) => {
        const since = sinceOf(ctx.query.since);
        return { since: since.toISOString(), calls: await topAsked(deps.db, since, ctx.query.limit ?? DEFAULT_TOP_ASKED) };
      },
    }),
  ];
}
