// Starts `asimov serve`: the database, the gate, the HTTP(S) listener, and a local socket beside the data
// for this user's own commands (`asimov serve token …`, `asimov approvals …`) that need no token, because
// only this user can reach it. Closing stops all three, in the order that loses nothing.

import { createServer as createHttpServer, type Server } from 'node:http';
import { chmodSync, existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AsimovError } from '../core/errors.ts';
import { isPrivateDir } from '../core/private-dir.ts';
import type { Gate } from '../gate/gate.ts';
import { freshGate } from '../gate/fresh-gate.ts';
import { openDatabase, type Database } from '../store/database.ts';
import { createTokenStore } from '../store/tokens.ts';
import { buildApp, LOCAL_SOCKET } from './app.ts';
import type { ServerDeps } from './deps.ts';
import { createEventBus } from './events.ts';
import { createBatchedAuditSink } from './audit-batch.ts';
import { createApprovalService } from './approvals.ts';
import { createChainAlertNotifier, createWebhookNotifier, type WebhookOptions } from './notify.ts';
import { createApprovalStore } from '../store/approvals.ts';
import { isLoopback, urlOf, type ListenAddress } from './listen.ts';
import { startAuditFeed } from './audit-feed.ts';
import { followDecisions, type DecisionFollower } from './decision-announce.ts';
import { lockDirectory, type DirLock } from '../store/dir-lock.ts';
import { resolveAuditPath } from '../audit/paths.ts';
import type { OtlpConfig } from '../audit/otlp.ts';
import { startOtlpExport } from './otlp-export.ts';

import { SOCKET_NAME } from './socket-name.ts';

export { SOCKET_NAME };

export interface StartOptions {
  listen: ListenAddress;
  /** The server's own directory (database, local socket); omitted: an in-memory database and no local socket. */
  dataDir?: string;
  /**
   * A PostgreSQL server instead of the embedded database (`--database postgres://…`), possibly shared with
   * other replicas; the data directory then holds only the local socket.
   */
  databaseUrl?: string;
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Listen on a non-loopback address without TLS. */
  insecure?: boolean;
  bodyLimit?: number;
  rateLimitPerMinute?: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
  /** POST each new pending approval there (`--webhook URL [--webhook-format json|slack]`). */
  webhook?: WebhookOptions;
  /** Follow the audit log into the dashboard's index and live feed (server/audit-feed.ts); default true. */
  auditFeed?: boolean;
  /** Export every decision on the bus (own and shipped) as OTLP/HTTP logs (server/otlp-export.ts). */
  otlp?: OtlpConfig;
  /** A gate to use instead of freshGate({ env }) (tests). */
  gate?: Gate;
  log?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  /** The local socket of this user's commands, when there is a data directory. */
  socketPath: string | null;
  app: FastifyInstance;
  db: Database;
  deps: ServerDeps;
  close(): Promise<void>;
}

/** Refuses a non-loopback address without TLS unless the operator said --insecure. */
export function checkExposure(listen: ListenAddress, o: Pick<StartOptions, 'tls' | 'insecure'>): void {
  if (!isLoopback(listen.host) && !o.tls && !o.insecure) {
    throw new AsimovError('usage', `listening on ${listen.host} carries tokens and commands over the network: give --tls-cert and --tls-key, or --insecure to do it in the clear anyway`);
  }
}

export async function startServer(o: StartOptions): Promise<RunningServer> {
  checkExposure(o.listen, o);
  if (o.dataDir !== undefined) {
    mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(o.dataDir)) {
      throw new AsimovError('io_error', `${o.dataDir} must be a directory of this user's alone (mode 700, not a link): it holds the database and the local socket, which needs no token.`);
    }
  }
  // Fails here, before anything listens, when ASIMOV_AUDIT_LOG is unusable.
  const audit = o.gate ? null : createBatchedAuditSink(o.env);
  // PGlite locks its own directory (data/db). PostgreSQL arbitrates between replicas itself, but the local
  // socket is one server's: the data directory is then locked for it, so two replicas on one machine need two.
  let socketLock: DirLock | undefined;
  if (o.databaseUrl !== undefined && o.dataDir !== undefined) socketLock = lockDirectory(o.dataDir);
  let db: Database;
  try {
    db = await openDatabase(
      o.databaseUrl !== undefined
        ? { url: o.databaseUrl, ...(o.log ? { log: o.log } : {}) }
        : o.dataDir === undefined ? {} : { dir: join(o.dataDir, 'db') },
    );
  } catch (e) {
    socketLock?.release();
    throw e;
  }
  const deps: ServerDeps = {
    gate: o.gate ?? freshGate({ env: o.env, ...(audit ? { audit } : { audit: false }) }),
    audit,
    db,
    tokens: createTokenStore(db),
    env: o.env,
    cwd: o.cwd,
    baseUrl: urlOf(o.listen, o.tls !== undefined),
    version: o.version,
    events: createEventBus(),
    closing: new AbortController(),
    ...(o.log ? { log: o.log } : {}),
  };
  deps.approvals = createApprovalService({
    store: createApprovalStore(db),
    events: deps.events,
    // Replicas exist only on PostgreSQL: the embedded database is one process's.
    ...(db.kind === 'postgres' ? { db } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.webhook ? { notify: createWebhookNotifier({ ...o.webhook, baseUrl: () => deps.baseUrl, ...(o.log ? { log: o.log } : {}) }) } : {}),
  });
  // A tampered machine log is said in the server's own log always, and to the webhook when there is one.
  const chainWebhook = o.webhook ? createChainAlertNotifier({ ...o.webhook, baseUrl: () => deps.baseUrl, ...(o.log ? { log: o.log } : {}) }) : undefined;
  deps.alert = (a) => {
    o.log?.(`asimov serve: the audit chain of ${a.tokenName}${a.host ? ` on ${a.host}` : ''} (client ${a.clientId}) is broken: ${a.problems.map((p) => p.message).join('; ')}`);
    chainWebhook?.(a);
  };
  let app: FastifyInstance;
  let local: Server | null = null;
  let socketPath: string | null = null;
  let follower: DecisionFollower | undefined;
  try {
    // Approvals answered and decisions made on other replicas of a shared PostgreSQL database.
    await deps.approvals.start();
    if (db.kind === 'postgres') follower = await followDecisions({ db, events: deps.events, ...(o.log ? { log: o.log } : {}) });
    app = await buildApp({
      deps,
      ...(o.bodyLimit !== undefined ? { bodyLimit: o.bodyLimit } : {}),
      ...(o.rateLimitPerMinute !== undefined ? { rateLimitPerMinute: o.rateLimitPerMinute } : {}),
      ...(o.tls ? { tls: o.tls } : {}),
      ...(o.log ? { log: o.log } : {}),
    });
    await app.listen({ host: o.listen.host, port: o.listen.port });
    const addr = app.server.address();
    if (addr && typeof addr === 'object') deps.baseUrl = urlOf({ host: o.listen.host, port: addr.port }, o.tls !== undefined);
    if (o.dataDir !== undefined) {
      socketPath = join(o.dataDir, SOCKET_NAME);
      local = await listenLocal(app, socketPath);
    }
    if (o.auditFeed !== false) {
      const path = resolveAuditPath(o.env);
      if (path !== null) deps.auditFeed = startAuditFeed({ path, db, events: deps.events, ...(o.log ? { log: o.log } : {}) });
    }
    if (o.otlp) deps.otlpExport = startOtlpExport({ config: o.otlp, db, events: deps.events, resource: { hostName: hostname(), version: o.version }, ...(o.log ? { log: o.log } : {}) });
  } catch (e) {
    deps.approvals.close();
    await deps.auditFeed?.close().catch(() => {});
    await deps.otlpExport?.close().catch(() => {});
    await follower?.close().catch(() => {});
    await db.close().catch(() => {});
    socketLock?.release();
    throw e;
  }
  let closing: Promise<void> | undefined;
  return {
    url: deps.baseUrl,
    socketPath,
    app,
    db,
    deps,
    close: () =>
      (closing ??= (async () => {
        deps.approvals?.close();
        await deps.auditFeed?.close();
        deps.closing?.abort();
        if (local) await new Promise<void>((res) => local!.close(() => res()));
        local?.closeAllConnections();
        // Requests aborted by the close answer, and their keep-alive connections then idle: drop those as
        // they appear rather than at the end of their keep-alive time.
        const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
        try {
          await app.close();
        } finally {
          clearInterval(sweep);
        }
        // After the last decisions reached the bus (the feed's, the ingested ones), before the database it reads them from.
        await deps.otlpExport?.close();
        await follower?.close();
        try {
          await db.close();
        } finally {
          socketLock?.release();
        }
      })()),
  };
}

/** The local socket: requests on it go through the same routes, marked as this user's own. */
async function listenLocal(app: FastifyInstance, path: string): Promise<Server> {
  if (existsSync(path)) {
    // Left by a server that was killed: the data directory's lock (PGlite's, or the socket's with PostgreSQL),
    // held by now, says no other server runs.
    if (!lstatSync(path).isSocket()) throw new AsimovError('io_error', `${path} exists and is not a socket; remove it.`);
    unlinkSync(path);
  }
  const server = createHttpServer((req, res) => {
    (req.socket as Socket & { [LOCAL_SOCKET]?: true })[LOCAL_SOCKET] = true;
    app.routing(req, res);
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(path, () => res());
  });
  chmodSync(path, 0o600);
  return server;
}
