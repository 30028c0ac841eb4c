// The team policy: what an admin publishes (PUT) and every machine of the team fetches (GET, with the ETag
// it holds in If-None-Match, so an unchanged policy costs a 304). Clients apply it as a managed layer
// (policy/load.ts). A policy is checked as each client would load it before it is stored: one that does not
// load would make every client deny every call.

import * as z from 'zod';
import { AsimovError, formatLocated } from '../../core/errors.ts';
import { MAX_POLICY_BYTES } from '../../policy/load.ts';
import { MAX_TEAM_GROUND_RULES_BYTES } from '../../policy/team-cache.ts';
import { createTeamPolicyStore, type TeamPolicyStore } from '../../store/team-policy.ts';
import type { ServerDeps } from '../deps.ts';
import { HttpError, route, type RouteSpec } from '../route.ts';

export const TeamPolicySchema = z.object({
  version: z.number().int(),
  etag: z.string().describe('The same value as the ETag header: send it back in If-None-Match'),
  policy: z.string().describe('The policy file\'s text (YAML), exactly as published'),
  groundRules: z.string().nullable().describe('The team\'s ground rules for the judge (Markdown), appended to each machine\'s own'),
  publishedAt: z.string(),
  publishedBy: z.string().describe('The name of the token that published it'),
});

const PublishBody = z
  .object({
    policy: z.string().min(1).max(MAX_POLICY_BYTES),
    groundRules: z.string().max(MAX_TEAM_GROUND_RULES_BYTES * 4).nullable().optional(),
  })
  .strict();

/** Whether an If-None-Match header names this ETag (a list, `*`, or a weak form of it). */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = [header].flat().flatMap((h) => h.split(',')).map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

export function teamPolicyRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  let store: TeamPolicyStore | undefined;
  const policies = () => (store ??= createTeamPolicyStore(deps.db));
  return [
    route({
      method: 'GET',
      url: '/v1/team/policy',
      scope: ['report', 'read', 'decide', 'admin'],
      tag: 'team',
      summary: 'The team policy every machine applies as its managed layer',
      description: 'Answers with an ETag header; a request whose If-None-Match names it gets 304 and no body. 404 when no team policy was published.',
      response: TeamPolicySchema,
      handler: async (ctx) => {
        const p = await policies().latest();
        if (!p) throw new HttpError(404, 'no_team_policy', 'This team has no policy published yet (an admin publishes one with `asimov serve policy publish FILE`); clients use their local layers only.');
        void ctx.reply.header('etag', p.etag).header('cache-control', 'no-cache');
        if (etagMatches(ctx.req.headers['if-none-match'], p.etag)) {
          await ctx.reply.code(304).send();
          return ctx.reply;
        }
        return { version: p.version, etag: p.etag, policy: p.policy, groundRules: p.groundRules, publishedAt: p.publishedAt, publishedBy: p.publishedBy };
      },
    }),
    route<z.infer<typeof PublishBody>>({
      method: 'PUT',
      url: '/v1/team/policy',
      scope: 'admin',
      tag: 'team',
      summary: 'Publish a new team policy (refused, with file, line and key, when it would not load)',
      description: 'The policy is parsed and layered as every client will (the built-in rules, custom rules\' examples); an invalid one is refused with 400 and its location. Publishing the text already published changes nothing.',
      body: PublishBody,
      bodyLimit: MAX_POLICY_BYTES + MAX_TEAM_GROUND_RULES_BYTES * 4 + 4096,
      response: TeamPolicySchema.omit({ policy: true, groundRules: true }).extend({ changed: z.boolean().describe('false when the same policy and ground rules were already the newest version') }),
      handler: async (ctx) => {
        try {
          const p = await policies().publish({ policy: ctx.body.policy, groundRules: ctx.body.groundRules ?? null, by: ctx.principal?.token.name ?? 'unknown' });
          return { version: p.version, etag: p.etag, publishedAt: p.publishedAt, publishedBy: p.publishedBy, changed: p.changed };
        } catch (e) {
          if (!(e instanceof AsimovError)) throw e;
          const location = e.location ?? null;
          throw new HttpError(400, e.code === 'usage' ? 'bad_request' : 'invalid_policy', `The team policy was not published: ${formatLocated(e.message, e.location)}`, location ? { location } : {});
        }
      },
    }),
  ];
}
