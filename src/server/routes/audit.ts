// Audit shipping (scope `report`, the one a machine's token needs): each machine's log arrives here in batches
// and is verified against the chain the server holds for it (server/audit-ingest.ts); a machine can ask how its
// chain stands (`asimov audit verify --remote`).

import * as z from 'zod';
import type { ServerDeps } from '../deps.ts';
import { HttpError, route, type RouteSpec } from '../route.ts';
import { clientChainReport, ingestRecords } from '../audit-ingest.ts';
import { announceDecisions } from '../decision-announce.ts';
import { describeError } from '../../core/errors.ts';

/** Lines per request: the shipper sends 500; room for a larger batch from another shipper. */
export const MAX_RECORDS_PER_REQUEST = 1000;

const ClientSchema = z.object({
  id: z.string().regex(/^[0-9a-f-]{36}$/, 'a client id is the UUID of the shipping log'),
  host: z.string().max(255).nullable(),
  user: z.string().max(255).nullable(),
}).strict();

const RecordsBody = z.object({
  client: ClientSchema,
  records: z.array(z.string().max(4 * 1024 * 1024)).max(MAX_RECORDS_PER_REQUEST),
  local: z.object({ lines: z.number().int().min(0), head: z.string().regex(/^[0-9a-f]{64}$/).nullable() }).strict().optional(),
  rewound: z.string().max(1000).optional().describe('Why the shipper began again at line 1 (informational; the server judges from the records)'),
}).strict();

const ChainSchema = z.object({
  status: z.enum(['ok', 'broken']),
  problem: z.string().nullable(),
  headSeq: z.number().int(),
  headHash: z.string(),
});
const ProblemSchema = z.object({
  kind: z.enum(['edited', 'rewritten', 'fork', 'restarted', 'truncated', 'bad_line']),
  seq: z.number().int().nullable(),
  decisionId: z.string().nullable(),
  message: z.string(),
});

export const ClientChainSchema = ChainSchema.extend({
  clientId: z.string(),
  tokenName: z.string(),
  host: z.string().nullable(),
  user: z.string().nullable(),
  firstSeen: z.string(),
  lastContact: z.string(),
  problemAt: z.string().nullable(),
  localLines: z.number().int().nullable(),
  problems: z.array(ProblemSchema.extend({ at: z.string() })),
});

export function auditRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  return [
    route<z.infer<typeof RecordsBody>>({
      method: 'POST', url: '/v1/audit/records', scope: 'report', tag: 'audit',
      summary: "Ship a batch of a machine's audit log lines, in log order; answers with the chain as the server now holds it",
      description:
        'Idempotent by decision id: lines sent again are counted as duplicates. Each new record must follow the chain head the server holds ' +
        'for the client; what does not (edited, rewritten, cut, restarted) is stored as evidence and marks the chain broken.',
      body: RecordsBody,
      bodyLimit: 8 * 1024 * 1024,
      response: z.object({ accepted: z.number().int(), duplicates: z.number().int(), chain: ChainSchema, problems: z.array(ProblemSchema) }),
      handler: async (ctx) => {
        const tokenName = ctx.principal?.token.name ?? 'local';
        const r = await ingestRecords(deps.db, tokenName, ctx.body);
        // This replica's feed first, then the others (announcing after publishing, so this one never shows a row twice).
        for (const item of r.added) {
          const { event: _event, ...row } = item;
          deps.events.publish({ type: 'decision', data: row });
        }
        if (r.added.length > 0) {
          await announceDecisions(deps.db, r.added.map((a) => a.decisionId)).catch((e: unknown) => deps.log?.(`asimov serve: announcing shipped decisions to other replicas: ${describeError(e)}`));
        }
        if (r.problems.length > 0) deps.alert?.({ clientId: ctx.body.client.id, tokenName, host: ctx.body.client.host, user: ctx.body.client.user, chain: r.chain, problems: r.problems });
        return { accepted: r.accepted, duplicates: r.duplicates, chain: r.chain, problems: r.problems };
      },
    }),
    route<unknown, { id: string }>({
      method: 'GET', url: '/v1/audit/clients/:id', scope: ['report', 'admin'], tag: 'audit',
      summary: "A machine's chain as the server holds it: head, status, and the problems found",
      params: z.object({ id: z.string().min(1).max(64) }),
      response: ClientChainSchema,
      handler: async (ctx) => {
        const report = await clientChainReport(deps.db, ctx.params.id);
        const p = ctx.principal?.token;
        // A machine's token sees its own chains (the team's are the dashboard's, under /v1/team); an admin's sees any.
        const mayRead = !p || p.scopes.includes('admin') || report?.tokenName === p.name;
        if (!report || !mayRead) throw new HttpError(404, 'not_found', `No chain of client ${ctx.params.id} is known to this server${report ? ' for this token' : ''}.`);
        return report;
      },
    }),
  ];
}
