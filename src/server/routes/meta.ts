// The public routes: the OpenAPI document and a health check that says nothing about the policy or the log.

import * as z from 'zod';
import { openApiDocument } from '../openapi.ts';
import type { ServerDeps } from '../deps.ts';
import { route, type RouteSpec } from '../route.ts';

export const HealthSchema = z.object({ ok: z.literal(true), version: z.string() });

/** The routes of every module, for the document (routes/index.ts hands them in, avoiding an import cycle). */
export function metaRoutes(deps: ServerDeps, all: () => RouteSpec<any, any, any>[]): RouteSpec<any, any, any>[] {
  let doc: unknown;
  return [
    route({
      method: 'GET',
      url: '/openapi.json',
      scope: null,
      tag: 'meta',
      summary: 'This API\'s OpenAPI 3.1 document',
      unlimited: true,
      handler: () => (doc ??= openApiDocument(all(), deps.version)),
    }),
    route({
      method: 'GET',
      url: '/healthz',
      scope: null,
      tag: 'meta',
      summary: 'Whether the server is up',
      response: HealthSchema,
      unlimited: true,
      handler: () => ({ ok: true as const, version: deps.version }),
    }),
  ];
}
