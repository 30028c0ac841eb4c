// The dashboard's API: the decision index (list, one decision with the policy layers of its directory,
// charts), the audit chain's status, the live feed as server-sent events, and the browser's sign-in. The page
// itself is in routes/web.ts, listed here too.

import { statSync } from 'node:fs';
import * as z from 'zod';
import { resolveAuditPath } from '../../audit/paths.ts';
import { parseTime } from '../../audit/reader.ts';
import { verifyLog, type VerifyResult } from '../../audit/verify.ts';
import { describeError } from '../../core/errors.ts';
import { decisionStats, DecisionItemSchema, getDecisionEvent, itemOf, listDecisions } from '../decision-index.ts';
import type { ServerDeps } from '../deps.ts';
import type { ServerEvent } from '../events.ts';
import { SESSION_COOKIE } from '../app.ts';
import { HttpError, route, type RouteSpec } from '../route.ts';
import { TierSchema, VerdictSchema } from '../schemas.ts';
import { ScopeSchema } from './tokens.ts';
import { webRoutes } from './web.ts';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;
/** A comment line on the event stream this often, so proxies and browsers keep an idle stream open. */
export const HEARTBEAT_MS = 15_000;

const Text = z.string().max(500);
const ListQuery = z.object({
  verdict: VerdictSchema.optional(),
  tier: TierSchema.optional(),
  rule: Text.optional(),
  agent: Text.optional(),
  session: Text.optional(),
  principal: Text.optional().describe('The name of the token the call came with (a person, on a team server)'),
  client: Text.optional().describe('The machine (client id) that shipped it; the team dashboard links here'),
  q: Text.optional().describe('Text the call\'s summary, the reason or the rule contains (case-insensitive)'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional().describe(`Decisions per page (default ${DEFAULT_PAGE})`),
  before: Text.optional().describe('The nextBefore of the previous page: the decisions older than that one'),
});
type ListQuery = z.infer<typeof ListQuery>;

const ListAnswer = z.object({
  decisions: z.array(DecisionItemSchema),
  nextBefore: z.string().nullable().describe('Give as `before` for the next (older) page; null on the last page'),
});

const LayerSchema = z.object({
  layer: z.string().describe('builtin, managed, user or project'),
  path: z.string(),
  sha256: z.string(),
  trusted: z.boolean().describe('Whether its loosening settings apply (a project file only once `asimov trust`ed)'),
});
const PolicyAnswer = z.object({
  projectRoot: z.string().nullable(),
  layers: z.array(LayerSchema),
  error: z.string().nullable().describe('Why the policy of this directory could not be loaded, if it could not'),
});
const DetailAnswer = z.object({
  decision: DecisionItemSchema,
  event: z.record(z.string(), z.unknown()).describe('The audit event as the log holds it (input and free text redacted)'),
  policy: PolicyAnswer.describe('The policy layers that apply to the call\'s directory now'),
});

const CountSchema = z.object({ key: z.string(), count: z.number() });
const StatsQuery = z.object({ since: Text.optional().describe('A duration before now (30m, 24h, 7d) or an ISO time; default 24h') });
const StatsAnswer = z.object({
  since: z.string(),
  until: z.string(),
  bucketSeconds: z.number(),
  buckets: z.array(z.object({ start: z.string(), allow: z.number(), deny: z.number(), ask: z.number() })),
  total: z.number(),
  topRules: z.array(CountSchema),
  topAsked: z.array(CountSchema).describe('The calls most often asked about or soft-denied'),
});

const VerifyAnswer = z.object({
  path: z.string().nullable().describe('The audit log; null when auditing is off'),
  exists: z.boolean(),
  ok: z.boolean().describe('The chain is intact (true as well for a log that does not exist yet)'),
  lines: z.number(),
  firstBroken: z.object({ line: z.number(), problem: z.string(), message: z.string() }).optional(),
  error: z.string().optional().describe('Why the log could not be read'),
});

const SessionBody = z.object({ token: z.string().min(1).max(200) }).strict();
const SessionAnswer = z.object({ signedIn: z.boolean(), name: z.string().nullable(), scopes: z.array(ScopeSchema) });

export function dashboardRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  const verify = verifier(deps);
  return [
    route<unknown, Record<string, string>, ListQuery>({
      method: 'GET', url: '/v1/decisions', scope: 'read', tag: 'dashboard',
      summary: 'The decisions of every process writing the audit log, newest first, filtered',
      description: 'Read from the index the server keeps of the audit log. Pages are keyset pages: pass the answer\'s nextBefore as `before`.',
      query: ListQuery, response: ListAnswer,
      handler: async (ctx) => {
        const { limit, ...f } = ctx.query;
        const page = await listDecisions(deps.db, { ...f, limit: limit ?? DEFAULT_PAGE });
        if (!page) throw new HttpError(400, 'bad_request', `No decision '${ctx.query.before}' to page from (before).`);
        return page;
      },
    }),
    route<unknown, { id: string }>({
      method: 'GET', url: '/v1/decisions/:id', scope: 'read', tag: 'dashboard',
      summary: 'One decision: its audit event and the policy layers of its directory',
      params: z.object({ id: z.string().min(1).max(200) }), response: DetailAnswer,
      handler: async (ctx) => {
        let event = await getDecisionEvent(deps.db, ctx.params.id);
        if (!event && deps.auditFeed) {
          // Asked for right after it was made: the feed may not have read that line yet.
          await deps.auditFeed.sync();
          event = await getDecisionEvent(deps.db, ctx.params.id);
        }
        if (!event) throw new HttpError(404, 'not_found', `No decision '${ctx.params.id}' in the audit log.`);
        return { decision: itemOf(event), event, policy: policyOf(deps, event.cwd) };
      },
    }),
    route<unknown, Record<string, string>, z.infer<typeof StatsQuery>>({
      method: 'GET', url: '/v1/stats', scope: 'read', tag: 'dashboard',
      summary: 'Decisions over time by verdict, the top rules and the calls most often asked about',
      query: StatsQuery, response: StatsAnswer,
      handler: async (ctx) => {
        let since: Date;
        try {
          since = parseTime(ctx.query.since ?? '24h');
        } catch (e) {
          throw new HttpError(400, 'bad_request', describeError(e));
        }
        if (since.getTime() >= Date.now()) throw new HttpError(400, 'bad_request', `since (${ctx.query.since}) must be in the past.`);
        return decisionStats(deps.db, since);
      },
    }),
    route({
      method: 'GET', url: '/v1/audit/verify', scope: 'read', tag: 'dashboard',
      summary: 'Whether the audit log\'s hash chain is intact, or the first line that breaks it',
      response: VerifyAnswer,
      handler: () => verify(),
    }),
    route({
      method: 'GET', url: '/v1/events', scope: 'read', tag: 'dashboard',
      summary: 'The live feed: server-sent events `decision` (a decision item) and `approval` (an approval)',
      description: `A comment line every ${HEARTBEAT_MS / 1000} s keeps the stream open; it ends when the client leaves or the server stops.`,
      produces: 'text/event-stream', unlimited: true,
      handler: (ctx) => {
        const res = ctx.reply.raw;
        ctx.reply.hijack();
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          'x-content-type-options': 'nosniff',
          // Proxies (nginx) must not hold events back to fill a buffer.
          'x-accel-buffering': 'no',
        });
        res.write('retry: 2000\n: asimov events\n\n');
        const unsubscribe = deps.events.subscribe((e: ServerEvent) => {
          res.write(`event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
        });
        const beat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
        beat.unref();
        let ended = false;
        const end = (): void => {
          if (ended) return;
          ended = true;
          unsubscribe();
          clearInterval(beat);
          deps.closing?.signal.removeEventListener('abort', end);
          if (!res.writableEnded) res.end();
        };
        ctx.req.raw.once('close', end);
        res.once('close', end);
        res.once('error', end);
        if (deps.closing?.signal.aborted) end();
        else deps.closing?.signal.addEventListener('abort', end, { once: true });
      },
    }),
    route({
      method: 'GET', url: '/v1/session', scope: null, tag: 'dashboard',
      summary: 'Who the request is signed in as (the dashboard\'s cookie or a bearer token), if anyone',
      response: SessionAnswer,
      handler: (ctx) => ({
        signedIn: ctx.principal !== null,
        name: ctx.principal?.token.name ?? null,
        scopes: ctx.principal?.token.scopes ?? [],
      }),
    }),
    route<z.infer<typeof SessionBody>>({
      method: 'POST', url: '/v1/session', scope: null, tag: 'dashboard',
      summary: 'Sign the browser in with a token: it is kept in an HttpOnly, SameSite=Strict cookie',
      body: SessionBody, response: SessionAnswer,
      handler: async (ctx) => {
        const token = await deps.tokens.verify(ctx.body.token.trim());
        if (!token) throw new HttpError(401, 'unauthorized', 'The token is unknown or revoked.');
        void ctx.reply.header('set-cookie', cookie(ctx.body.token.trim(), ctx.req.protocol === 'https'));
        return { signedIn: true, name: token.name, scopes: token.scopes };
      },
    }),
    route({
      method: 'DELETE', url: '/v1/session', scope: null, tag: 'dashboard',
      summary: 'Sign the browser out (the cookie is cleared)',
      response: SessionAnswer,
      handler: (ctx) => {
        void ctx.reply.header('set-cookie', cookie('', ctx.req.protocol === 'https', 0));
        return { signedIn: false, name: null, scopes: [] };
      },
    }),
    ...webRoutes(deps),
  ];
}

/** The dashboard's cookie: never readable by scripts, never sent cross-site, for this whole origin. */
export function cookie(value: string, secure: boolean, maxAge?: number): string {
  return [
    `${SESSION_COOKIE}=${encodeURIComponent(value)}`,
    'HttpOnly',
    'SameSite=Strict',
    'Path=/',
    ...(secure ? ['Secure'] : []),
    ...(maxAge !== undefined ? [`Max-Age=${maxAge}`] : []),
  ].join('; ');
}

/** The policy layers that apply to a directory now; an error in place of them when it cannot load. */
function policyOf(deps: ServerDeps, cwd: string): z.infer<typeof PolicyAnswer> {
  try {
    const p = deps.gate.policyFor(cwd);
    return {
      projectRoot: p.projectRoot ?? null,
      layers: p.sources.map((s) => ({ layer: s.layer, path: s.path, sha256: s.sha256, trusted: s.trusted })),
      error: null,
    };
  } catch (e) {
    return { projectRoot: null, layers: [], error: describeError(e) };
  }
}

/**
 * verifyLog of the server's audit log. The whole file is read, so the answer is kept while the file is
 * unchanged (same inode, size and modification time): the dashboard asks on every refresh.
 */
function verifier(deps: ServerDeps): () => z.infer<typeof VerifyAnswer> {
  let cached: { key: string; result: VerifyResult } | null = null;
  return () => {
    let path: string | null;
    try {
      path = resolveAuditPath(deps.env);
    } catch (e) {
      return { path: null, exists: false, ok: false, lines: 0, error: describeError(e) };
    }
    if (path === null) return { path: null, exists: false, ok: true, lines: 0 };
    let key: string;
    try {
      const st = statSync(path);
      key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path, exists: false, ok: true, lines: 0 };
      return { path, exists: false, ok: false, lines: 0, error: describeError(e) };
    }
    try {
      if (cached?.key !== key) cached = { key, result: verifyLog(path) };
    } catch (e) {
      return { path, exists: true, ok: false, lines: 0, error: describeError(e) };
    }
    return { path, exists: true, ...cached.result };
  };
}
