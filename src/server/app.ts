// The HTTP server of `asimov serve`, on Fastify. Every route is declared once (server/route.ts) and
// registered here through one wrapper that authenticates, checks the token's scope, validates the request
// with the route's zod schemas and turns every failure into a JSON error with a status, never a stack trace.
//
// Deliberately absent: CORS. The API is for programs and for the dashboard served by this same origin; a
// request that a browser marks as coming from another origin is refused outright.

import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import * as z from 'zod';
import { describeError } from '../core/errors.ts';
import { SCOPES, type Scope, type TokenInfo } from '../store/tokens.ts';
import type { ServerDeps } from './deps.ts';
import { HttpError, type Principal, type RouteSpec } from './route.ts';
import { allRoutes } from './routes/index.ts';

export { allRoutes };

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** Requests per token per minute (per client address for requests without a valid token). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 30_000;
/** Marks a request that came over the local socket (server/start.ts), which only this user can reach. */
export const LOCAL_SOCKET = Symbol.for('asimov.serve.local');

/** The cookie the dashboard's sign-in sets: the token itself, HttpOnly and SameSite=Strict. */
export const SESSION_COOKIE = 'asimov_token';

export interface AppOptions {
  deps: ServerDeps;
  bodyLimit?: number;
  /** Requests per token per minute; 0 turns the limit off. */
  rateLimitPerMinute?: number;
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Routes to serve instead of every module's (tests). */
  routes?: RouteSpec<any, any, any>[];
  /** One line per notable event (refused requests, errors); default nothing. */
  log?: (line: string) => void;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    asimovRoutes: { method: string; url: string }[];
  }
}

export async function buildApp(o: AppOptions): Promise<FastifyInstance> {
  const log = o.log ?? (() => {});
  const app = Fastify({
    logger: false,
    bodyLimit: o.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // Behind no proxy by default: the peer address is the client's.
    trustProxy: false,
    // On close, connections with no request in flight are dropped at once rather than at their keep-alive's end.
    forceCloseConnections: 'idle',
    ...(o.tls ? { https: { cert: o.tls.cert, key: o.tls.key } } : {}),
  } as Parameters<typeof Fastify>[0]) as unknown as FastifyInstance;

  app.decorateRequest('principal', null);
  // Every route as Fastify registered it, for the test that holds the OpenAPI document to the real routes.
  const registered: { method: string; url: string }[] = [];
  app.decorate('asimovRoutes', registered);
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (m !== 'HEAD') registered.push({ method: m, url: r.url });
  });

  // JSON only, decoded strictly: invalid UTF-8 is an error, not silently replaced characters.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    const buf = body as Buffer;
    if (buf.length === 0) return done(null, undefined);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      return done(new HttpError(400, 'bad_encoding', 'The request body is not valid UTF-8.'), undefined);
    }
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(new HttpError(400, 'bad_json', `The request body is not valid JSON: ${(e as Error).message}`), undefined);
    }
  });

  app.addHook('onRequest', async (req: FastifyRequest) => {
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `${o.tls ? 'https' : 'http'}://${req.headers.host ?? ''}`) {
      throw new HttpError(403, 'cross_origin', `Requests from another origin (${origin}) are refused: this API has no CORS.`);
    }
    req.principal = await authenticate(req, o.deps);
  });

  const limit = o.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  if (limit > 0) {
    await app.register(rateLimit, {
      global: false,
      hook: 'preHandler',
      max: limit,
      timeWindow: 60_000,
      keyGenerator: (req: FastifyRequest) => (req.principal ? `token:${req.principal.token.id}` : `ip:${req.ip}`),
      errorResponseBuilder: (_req, ctx) => ({ statusCode: 429, error: 'rate_limited', message: `Too many requests: at most ${ctx.max} a minute for one token; try again in ${ctx.after}.` }),
    });
  }

  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ error: 'not_found', message: `No route ${req.method} ${req.url.split('?')[0]}.` });
  });

  app.setErrorHandler((err: unknown, req, reply) => {
    const { status, body } = errorAnswer(err);
    if (status >= 500) log(`asimov serve: ${req.method} ${req.url.split('?')[0]} failed: ${describeError(err)}`);
    void reply.code(status).send(body);
  });

  // Requests still running when the server closes (a command, a wait for an approval, the event stream) are
  // aborted, so closing takes as long as their clean-up, not as long as they would have run.
  const running = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const ac of running) ac.abort();
  });
  for (const spec of o.routes ?? allRoutes(o.deps)) register(app, spec, limit > 0, running);
  return app;
}

function register(app: FastifyInstance, spec: RouteSpec<any, any, any>, limited: boolean, running: Set<AbortController>): void {
  app.route({
    method: spec.method,
    url: spec.url,
    ...(spec.bodyLimit !== undefined ? { bodyLimit: spec.bodyLimit } : {}),
    ...(limited && !spec.unlimited ? { config: { rateLimit: {} } } : {}),
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (spec.scope !== null) requireScope(req.principal, spec.scope);
      const body = spec.body ? parse(spec.body, req.body ?? {}, 'body') : req.body;
      const params = spec.params ? parse(spec.params, req.params, 'path') : req.params;
      const query = spec.query ? parse(spec.query, req.query, 'query') : req.query;
      const ac = new AbortController();
      running.add(ac);
      reply.raw.once('close', () => {
        running.delete(ac);
        if (!reply.raw.writableFinished) ac.abort();
      });
      // Left in `running` until the response's connection closes: a stream outlives its handler.
      const out = await spec.handler({ body, params, query, principal: req.principal, req, reply, signal: ac.signal });
      if (reply.sent) return reply;
      if (spec.status !== undefined) void reply.code(spec.status);
      return out;
    },
  });
}

function requireScope(p: Principal | null, scope: Scope | readonly Scope[]): void {
  if (!p) throw new HttpError(401, 'unauthorized', 'This route needs a token: send `Authorization: Bearer <token>` (create one with `asimov serve token create`).');
  const anyOf: readonly Scope[] = typeof scope === 'string' ? [scope] : scope;
  if (!anyOf.some((s) => p.token.scopes.includes(s))) {
    const need = anyOf.length === 1 ? `the '${anyOf[0]}' scope` : `one of the scopes ${anyOf.map((s) => `'${s}'`).join(', ')}`;
    throw new HttpError(403, 'forbidden', `The token '${p.token.name}' lacks ${need} this route needs (it has: ${p.token.scopes.join(', ')}).`);
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new HttpError(400, 'bad_request', `Invalid request ${where}: ${z.prettifyError(r.error).replace(/\n/g, '; ')}`);
}

/**
 * The principal of a request: the token in `Authorization: Bearer`, else the dashboard's cookie. A cookie
 * alone never authorises a state-changing request without the `x-asimov-request` header, which no
 * cross-site form can send (CSRF); SameSite=Strict already keeps the cookie off cross-site requests.
 */
async function authenticate(req: FastifyRequest, deps: ServerDeps): Promise<Principal | null> {
  if ((req.raw.socket as { [LOCAL_SOCKET]?: true })[LOCAL_SOCKET]) return { token: LOCAL_TOKEN };
  const auth = req.headers.authorization;
  let secret: string | undefined;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw new HttpError(401, 'unauthorized', 'The Authorization header must be `Bearer <token>`.');
    secret = m[1]!;
  } else {
    secret = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (secret !== undefined && req.method !== 'GET' && req.method !== 'HEAD' && req.headers['x-asimov-request'] === undefined) {
      throw new HttpError(403, 'csrf', 'A request signed in by cookie must carry the x-asimov-request header.');
    }
  }
  if (secret === undefined) return null;
  const token = await deps.tokens.verify(secret);
  // A stale cookie (its token revoked) is no sign-in rather than an error: the dashboard's page and its
  // sign-in form must still load, and the routes that need a token answer 401 anyway.
  if (!token && auth === undefined) return null;
  if (!token) throw new HttpError(401, 'unauthorized', 'The token is unknown or revoked.');
  deps.tokens.touch(token.id);
  return { token };
}

/** The principal of the local socket: this user, every scope. */
export const LOCAL_TOKEN: TokenInfo = {
  id: 'local', name: 'local', scopes: [...SCOPES], createdAt: new Date(0).toISOString(), lastUsedAt: null, revokedAt: null,
};

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Any error as a status and a JSON body: ours, Fastify's own (body too large, bad media type), or a bug. */
export function errorAnswer(err: unknown): { status: number; body: Record<string, unknown> } {
  if (err instanceof HttpError) return { status: err.status, body: { error: err.code, message: err.message, ...err.extra } };
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code =
      e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'body_too_large'
      : e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'unsupported_media_type'
      : e.statusCode === 429 ? 'rate_limited'
      : 'bad_request';
    const message =
      code === 'unsupported_media_type' ? 'Send the body as application/json.'
      : code === 'body_too_large' ? 'The request body is larger than this server accepts (see --body-limit).'
      : (e.message ?? 'Bad request.');
    return { status: e.statusCode, body: { error: code, message } };
  }
  return { status: 500, body: { error: 'internal', message: `asimov serve failed on this request: ${describeError(err)}` } };
}
