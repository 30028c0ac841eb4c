// Token management over the API (scope `admin`): what `asimov serve token …` does through the local socket
// while the server runs. A new token's secret is in the answer once and never again.

import * as z from 'zod';
import { SCOPES, type Scope } from '../../store/tokens.ts';
import type { ServerDeps } from '../deps.ts';
import { HttpError, route, type RouteSpec } from '../route.ts';
import { AsimovError } from '../../core/errors.ts';

export const ScopeSchema = z.enum(SCOPES);
export const TokenInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(ScopeSchema),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
const CreateBody = z.object({ name: z.string().min(1).max(64), scopes: z.array(ScopeSchema).min(1) }).strict();
const ListQuery = z.object({ all: z.enum(['true', 'false']).optional() });

export function tokenRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  return [
    route<unknown, Record<string, string>, z.infer<typeof ListQuery>>({
      method: 'GET', url: '/v1/tokens', scope: 'admin', tag: 'tokens', summary: 'List the tokens (never their secrets)',
      query: ListQuery,
      response: z.object({ tokens: z.array(TokenInfoSchema) }),
      handler: async (ctx) => ({ tokens: await deps.tokens.list({ all: ctx.query.all === 'true' }) }),
    }),
    route<z.infer<typeof CreateBody>>({
      method: 'POST', url: '/v1/tokens', scope: 'admin', tag: 'tokens', summary: 'Create a token; its secret is shown only in this answer',
      body: CreateBody, status: 201,
      response: z.object({ token: z.string(), info: TokenInfoSchema }),
      handler: async (ctx) => {
        try {
          return await deps.tokens.create(ctx.body.name, ctx.body.scopes as Scope[]);
        } catch (e) {
          if (e instanceof AsimovError && e.code === 'usage') throw new HttpError(400, 'bad_request', e.message);
          throw e;
        }
      },
    }),
    route<unknown, { name: string }>({
      method: 'DELETE', url: '/v1/tokens/:name', scope: 'admin', tag: 'tokens', summary: 'Revoke the live token of that name (or id)',
      params: z.object({ name: z.string().min(1) }),
      response: z.object({ revoked: z.literal(true), name: z.string() }),
      handler: async (ctx) => {
        if (!(await deps.tokens.revoke(ctx.params.name))) throw new HttpError(404, 'not_found', `No live token named '${ctx.params.name}'.`);
        return { revoked: true as const, name: ctx.params.name };
      },
    }),
  ];
}
