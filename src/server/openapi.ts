// The OpenAPI 3.1 document of `asimov serve`, generated from the route declarations and their zod schemas
// (JSON Schema 2020-12, which OpenAPI 3.1 uses as is). docs/openapi.json is this document as released; a test
// regenerates it and compares, and checks it against the routes the server actually registers.

import * as z from 'zod';
import type { RouteSpec } from './route.ts';
import { ErrorSchema } from './schemas.ts';

type Json = Record<string, unknown>;

function schemaOf(s: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

/** `/v1/approvals/:id` -> `/v1/approvals/{id}` and the names of its parameters. */
export function openApiPath(url: string): { path: string; names: string[] } {
  const names: string[] = [];
  const path = url.replace(/:([A-Za-z0-9_]+)/g, (_m, n: string) => {
    names.push(n);
    return `{${n}}`;
  });
  return { path, names };
}

const ERRORS: Record<string, string> = {
  '400': 'The request is malformed (bad JSON, invalid UTF-8, a field of the wrong shape)',
  '401': 'No token, or an unknown or revoked one',
  '403': 'The token lacks the scope, or the request came from another origin',
  '413': 'The body is larger than the server accepts',
  '415': 'The body is not application/json',
  '429': 'The token\'s rate limit is spent',
};

export function openApiDocument(routes: readonly RouteSpec<any, any, any>[], version: string): Json {
  const paths: Record<string, Json> = {};
  const errorRef = { $ref: '#/components/schemas/Error' };
  for (const r of routes) {
    const { path, names } = openApiPath(r.url);
    const op: Json = { operationId: operationId(r.method, r.url), tags: [r.tag], summary: r.summary };
    if (r.description) op.description = r.description;
    const parameters: Json[] = [];
    const paramShape = r.params ? (schemaOf(r.params, 'input').properties as Json | undefined) : undefined;
    for (const n of names) parameters.push({ name: n, in: 'path', required: true, schema: (paramShape?.[n] as Json | undefined) ?? { type: 'string' } });
    if (r.query) {
      const q = schemaOf(r.query, 'input');
      const req = new Set((q.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((q.properties as Json | undefined) ?? {})) {
        parameters.push({ name, in: 'query', required: req.has(name), schema });
      }
    }
    if (parameters.length > 0) op.parameters = parameters;
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(r.body, 'input') } } };
    const ok = String(r.status ?? 200);
    const responses: Json = {};
    if (r.produces) responses[ok] = { description: 'OK', content: { [r.produces]: {} } };
    else if (r.response) responses[ok] = { description: 'OK', content: { 'application/json': { schema: schemaOf(r.response, 'output') } } };
    else responses[ok] = { description: 'OK' };
    const codes = r.scope === null ? ['400'] : r.body ? ['400', '401', '403', '413', '415', '429'] : ['400', '401', '403', '429'];
    for (const c of codes) responses[c] = { description: ERRORS[c], content: { 'application/json': { schema: errorRef } } };
    op.responses = responses;
    if (r.scope !== null) {
      op.security = [{ bearer: [] }, { cookie: [] }];
      // One scope, or a list of scopes any one of which will do.
      op['x-asimov-scope'] = typeof r.scope === 'string' ? r.scope : [...r.scope];
    } else op.security = [];
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'asimov serve',
      version,
      description: 'The asimov gate as a service: decide tool calls, run allowed commands, route questions to a person on call. Every route but the public ones needs a bearer token with the scope it names (x-asimov-scope; a list means any one of them).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:7420' }],
    paths,
    components: {
      schemas: { Error: schemaOf(ErrorSchema, 'output') },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token from `asimov serve token create`' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'asimov_token', description: 'The dashboard\'s sign-in; state-changing requests also need the x-asimov-request header' },
      },
    },
  };
}

function operationId(method: string, url: string): string {
  const words = url.replace(/^\/(v1\/)?/, '').split(/[/.-]/).filter((w) => w !== '').map((w) => (w.startsWith(':') ? `by_${w.slice(1)}` : w));
  return [method.toLowerCase(), ...words].join('_');
}
