// One route of `asimov serve`, declared once: the HTTP server registers it (server/app.ts) and the OpenAPI
// document is generated from the same declaration (server/openapi.ts), so the two cannot drift apart.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type * as z from 'zod';
import type { Scope, TokenInfo } from '../store/tokens.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Who made a request: the token it carried (every request but the public ones has one). */
export interface Principal {
  token: TokenInfo;
}

export interface RouteContext<B, P, Q> {
  body: B;
  params: P;
  query: Q;
  principal: Principal | null;
  req: FastifyRequest;
  reply: FastifyReply;
  /** Aborted when the client goes away (its connection closed) or the server closes. */
  signal: AbortSignal;
}

export interface RouteSpec<B = unknown, P = Record<string, string>, Q = Record<string, unknown>> {
  method: Method;
  /** Fastify's path syntax (`/v1/approvals/:id`); the OpenAPI document writes `{id}`. */
  url: string;
  /**
   * The scope a token needs, or a list of scopes any one of which will do; null for the few public routes (the
   * OpenAPI document, health, the dashboard's shell).
   */
  scope: Scope | readonly Scope[] | null;
  /** A tag grouping routes in the document (`decide`, `execute`, `approvals`, `dashboard`, …). */
  tag: string;
  summary: string;
  description?: string;
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** The JSON answer on success (status 200 unless `status` says otherwise). */
  response?: z.ZodType;
  status?: number;
  /** Non-JSON answers (text/event-stream, text/html, …): their media type, for the document. */
  produces?: string;
  /** Overrides the server's body limit for this route (bytes). */
  bodyLimit?: number;
  /** Left out of the per-token rate limit (long-lived streams, static files). */
  unlimited?: boolean;
  handler(ctx: RouteContext<B, P, Q>): Promise<unknown> | unknown;
}

/** Identity helper that keeps the generic parameters of one spec tied together. */
export function route<B = unknown, P = Record<string, string>, Q = Record<string, unknown>>(spec: RouteSpec<B, P, Q>): RouteSpec<B, P, Q> {
  return spec;
}

/** An error a handler throws to answer with a status and a message (never a stack trace). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
