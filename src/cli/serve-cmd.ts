// `asimov serve`: the gate as an HTTP service with a person on call and a dashboard (src/server/), and
// `asimov serve token …` to manage its bearer tokens.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AsimovError, describeError } from '../core/errors.ts';
import { resolveAuditPath } from '../audit/paths.ts';
import { DEFAULT_BODY_LIMIT, DEFAULT_RATE_LIMIT_PER_MINUTE } from '../server/app.ts';
import { DEFAULT_LISTEN, isLoopback, parseListen } from '../server/listen.ts';
import { checkExposure, startServer, type StartOptions } from '../server/start.ts';
import { serverOtlpConfig } from '../server/otlp-export.ts';
import { openDatabase } from '../store/database.ts';
import { checkDatabaseUrl, redactDatabaseUrl } from '../store/postgres-database.ts';
import { createTokenStore, parseScopes, SCOPES, type TokenInfo } from '../store/tokens.ts';
import { parseOptions } from './args.ts';
import { cwdOption } from './cwd-option.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { answerMessage, defaultDataDir, localRequest, localServerSocket } from './serve-client.ts';
import { styleOf, table } from './style.ts';
import { VERSION } from './version.ts';

export const SERVE_HELP = `Usage:
  asimov serve [--listen ADDR] [--data-dir DIR] [--database URL] [--tls-cert FILE --tls-key FILE | --insecure]
               [--body-limit BYTES] [--rate-limit N] [--cwd DIR] [--webhook URL [--webhook-format json|slack]]
               [--otlp-endpoint URL [--otlp-header NAME=VALUE]… [--otlp-header-env NAME=VARIABLE]…]
  asimov serve token create --name NAME --scopes ${SCOPES.join(',')} [--json] [--database URL]
  asimov serve token list [--all] [--json] [--database URL]
  asimov serve token revoke NAME [--database URL]
  asimov serve policy publish FILE [--ground-rules FILE] | show   the team policy (asimov serve policy --help)
  asimov serve openapi                 print the API's OpenAPI 3.1 document

Runs the gate as an HTTP service: POST /v1/decide, /v1/decide/batch, /v1/execute (the gate, then the
hardened execution), /v1/proposals (a model's "EXECUTE: <command>" reply), approvals for a person on call,
and a dashboard at /. Every route but /, /healthz and /openapi.json needs a bearer token with its scope.

  --listen ADDR      where to listen (default ${DEFAULT_LISTEN}, this machine only); any other address
                     needs --tls-cert and --tls-key, or --insecure to send tokens in the clear
  --data-dir DIR     the embedded database and the local socket (default $XDG_STATE_HOME/asimov/serve)
  --database URL     a PostgreSQL server instead of the embedded database (postgres://user@host:5432/db;
                     default $ASIMOV_DATABASE_URL): several servers on one database are replicas of one
                     service (tokens, approvals, decisions shared; an answer on one releases a call on another)
  --body-limit N     largest request body in bytes (default ${DEFAULT_BODY_LIMIT})
  --rate-limit N     requests per token per minute (default ${DEFAULT_RATE_LIMIT_PER_MINUTE}; 0: no limit)
  --cwd DIR          the directory commands run in by default, and the first allowed root of /v1/execute
  --webhook URL      POST each new approval there (JSON, or a Slack incoming-webhook body with
                     --webhook-format slack), with a link to answer it on the dashboard
  --otlp-endpoint URL  send every decision (this server's and those its clients ship) to an OpenTelemetry
                     collector as OTLP/HTTP logs (a base URL gets /v1/logs); default: audit.otlp of this
                     user's policy. --otlp-header adds a header, --otlp-header-env one read from a variable

A person on call: with \`approvals: { timeoutSec: 120 }\` in this user's policy, a call the API would refuse
only because nobody is at the agent's terminal waits for an answer on the dashboard, from \`asimov approvals
approve|deny ID\`, or through the webhook's link. Agents elsewhere (hooks of headless runs, the MCP proxy)
ask this server with \`approvals: { server: <this URL>, timeoutSec: 120 }\` and a decide token in
ASIMOV_APPROVALS_TOKEN. A hard_deny is never offered.

Scopes: decide (decide calls, ask a person), execute (run allowed commands), approve (answer approvals),
read (the dashboard and the decision feed), admin (manage tokens). Tokens are stored hashed; a new one is
shown once. While the server runs, \`asimov serve token …\` goes through its local socket.
Stop with Ctrl-C (SIGINT) or SIGTERM. Exit status: 0 stopped cleanly, 1 error.
`;

export async function serveCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'token') return tokenCommand(rest, io);
  if (sub === 'policy') return (await import('./serve-policy-cmd.ts')).servePolicyCommand(rest, io);
  if (sub === 'openapi') {
    const { openApiDocument } = await import('../server/openapi.ts');
    const { allRoutes } = await import('../server/routes/index.ts');
    // The document depends only on the route declarations, not on a running server's state.
    io.out(`${JSON.stringify(openApiDocument(allRoutes(OFFLINE_DEPS), VERSION), null, 2)}\n`);
    return EXIT.ok;
  }
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      listen: { type: 'string' },
      'data-dir': { type: 'string' },
      database: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      insecure: { type: 'boolean' },
      'body-limit': { type: 'string' },
      'rate-limit': { type: 'string' },
      cwd: { type: 'string' },
      webhook: { type: 'string' },
      'webhook-format': { type: 'string' },
      'otlp-endpoint': { type: 'string' },
      'otlp-header': { type: 'string', multiple: true },
      'otlp-header-env': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(SERVE_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError(`unknown serve command '${positionals[0]}' (token, policy, openapi, or options only)`);
  const listen = asUsage(() => parseListen(values.listen ?? DEFAULT_LISTEN));
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  const cwd = cwdOption(values.cwd, io.cwd);
  const opts: StartOptions = {
    listen,
    dataDir: dataDirOf(values['data-dir'], io),
    ...databaseOf(values.database, io),
    env: io.env,
    cwd,
    version: VERSION,
    insecure: values.insecure === true,
    bodyLimit: positiveInt(values['body-limit'], '--body-limit', DEFAULT_BODY_LIMIT, 1024),
    rateLimitPerMinute: positiveInt(values['rate-limit'], '--rate-limit', DEFAULT_RATE_LIMIT_PER_MINUTE, 0),
    log: (line) => io.err(`${line}\n`),
  };
  if (values['webhook-format'] !== undefined && values.webhook === undefined) throw new UsageError('--webhook-format goes with --webhook URL');
  if (values.webhook !== undefined) {
    const format = values['webhook-format'] ?? 'json';
    if (format !== 'json' && format !== 'slack') throw new UsageError(`--webhook-format must be json or slack, not '${format}'`);
    let url: URL;
    try {
      url = new URL(values.webhook);
    } catch {
      throw new UsageError(`--webhook '${values.webhook}' is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError('--webhook must be an http(s) URL');
    opts.webhook = { url: url.href, format };
  }
  if (values['tls-cert'] !== undefined && values['tls-key'] !== undefined) {
    opts.tls = { cert: readPem(resolve(io.cwd, values['tls-cert']), '--tls-cert'), key: readPem(resolve(io.cwd, values['tls-key']), '--tls-key') };
  }
  const otlp = asUsage(() => serverOtlpConfig({ endpoint: values['otlp-endpoint'], headers: values['otlp-header'], headersEnv: values['otlp-header-env'] }, io.env, cwd, opts.log));
  if (otlp) opts.otlp = otlp;
  asUsage(() => checkExposure(listen, opts));
  const st = styleOf(io);
  io.err(
    opts.databaseUrl !== undefined
      ? `asimov serve: starting on PostgreSQL at ${redactDatabaseUrl(opts.databaseUrl)}…\n`
      : `asimov serve: starting (the embedded database in ${opts.dataDir} may take a few seconds the first time)…\n`,
  );
  const server = await startServer(opts);
  const tokens = await server.deps.tokens.list();
  let audit: string;
  try {
    audit = resolveAuditPath(io.env) ?? 'off (ASIMOV_AUDIT_LOG=off): the dashboard has no decisions to show';
  } catch (e) {
    audit = `unusable: ${describeError(e)}`;
  }
  io.err(
    `asimov serve: listening on ${st.bold(server.url)} (${isLoopback(listen.host) ? 'this machine only' : opts.tls ? 'TLS' : st.bold('IN THE CLEAR (--insecure)')})\n` +
      table([
        ['  dashboard', `${server.url}/`],
        ['  API', `${server.url}/openapi.json`],
        ...(opts.databaseUrl !== undefined
          ? [['  database', `${server.db.location} (PostgreSQL; replicas on it share tokens, approvals, decisions)`], ['  data', `${opts.dataDir} (the local socket)`]]
          : [['  data', `${opts.dataDir} (embedded PostgreSQL, PGlite)`]]),
        ['  audit log', audit],
        ['  OTLP export', opts.otlp ? opts.otlp.endpoint : 'off'],
        ['  tokens', tokens.length === 0 ? `none yet: ${st.bold('asimov serve token create --name me --scopes decide,read,approve')}` : `${tokens.length} live`],
      ]) +
      '\n',
  );
  await new Promise<void>((res) => {
    const stop = () => res();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  io.err('asimov serve: stopping…\n');
  await server.close();
  return EXIT.ok;
}

/** Runs f, turning asimov's own usage errors (a bad --listen) into the CLI's. */
function asUsage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof AsimovError && e.code === 'usage') throw new UsageError(e.message);
    throw e;
  }
}

/** Route declarations need deps only in their handlers; the document never calls one. */
const OFFLINE_DEPS = {} as never;

/** --database, else ASIMOV_DATABASE_URL; checked before anything starts. None: the embedded database. */
function databaseOf(given: string | undefined, io: CliIO): { databaseUrl?: string } {
  const url = given ?? (io.env.ASIMOV_DATABASE_URL?.trim() || undefined);
  if (url === undefined) return {};
  if (url.trim() === '') throw new UsageError('--database needs a URL (postgres://user@host:5432/db)');
  asUsage(() => checkDatabaseUrl(url));
  return { databaseUrl: url };
}

function dataDirOf(given: string | undefined, io: CliIO): string {
  return given !== undefined ? resolve(io.cwd, given) : defaultDataDir(io.env);
}

function positiveInt(text: string | undefined, flag: string, dflt: number, min: number): number {
  if (text === undefined) return dflt;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be a whole number of at least ${min}, not '${text}'`);
  return n;
}

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new UsageError(`${flag} ${path}: ${describeError(e)}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// asimov serve token …

async function tokenCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      'data-dir': { type: 'string' },
      database: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (sub === undefined || sub === '--help' || sub === '-h' || values.help) {
    io.out(SERVE_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const dataDir = dataDirOf(values['data-dir'], io);
  const { databaseUrl } = databaseOf(values.database, io);
  const ops = await tokenOps(dataDir, databaseUrl);
  try {
    switch (sub) {
      case 'create': {
        if (positionals.length > 0) throw new UsageError('create takes --name and --scopes, no other arguments');
        if (values.name === undefined) throw new UsageError('create needs --name NAME (who or what will use the token)');
        if (values.scopes === undefined) throw new UsageError(`create needs --scopes (any of ${SCOPES.join(', ')}, comma-separated)`);
        const scopes = parseScopes(values.scopes);
        const { token, info } = await ops.create(values.name, scopes);
        if (values.json) io.out(`${JSON.stringify({ token, ...info }, null, 2)}\n`);
        else {
          io.out(`${token}\n`);
          io.err(`Token '${info.name}' created with scopes ${info.scopes.join(', ')}. It is shown only now: store it where its user reads it (an environment variable, a secret store).\n`);
        }
        return EXIT.ok;
      }
      case 'list': {
        if (positionals.length > 0) throw new UsageError('list takes no arguments');
        const list = await ops.list(values.all === true);
        if (values.json) io.out(`${JSON.stringify({ tokens: list }, null, 2)}\n`);
        else if (list.length === 0) io.out('No tokens. Create one with: asimov serve token create --name NAME --scopes decide\n');
        else io.out(`${formatTokens(list, io)}\n`);
        return EXIT.ok;
      }
      case 'revoke': {
        const [name, ...more] = positionals;
        if (name === undefined || more.length > 0) throw new UsageError('revoke takes one token name (or id)');
        if (!(await ops.revoke(name))) {
          io.err(`asimov serve token: no live token named '${name}' (see \`asimov serve token list\`).\n`);
          return EXIT.error;
        }
        io.out(`Revoked '${name}': requests carrying it are refused from now on.\n`);
        return EXIT.ok;
      }
      default:
        throw new UsageError(`unknown token command '${sub}' (create, list or revoke)`);
    }
  } finally {
    await ops.close();
  }
}

function formatTokens(list: TokenInfo[], io: CliIO): string {
  const st = styleOf(io);
  return table(
    list.map((t) => [t.name, t.scopes.join(','), t.createdAt.slice(0, 16).replace('T', ' '), t.lastUsedAt ? t.lastUsedAt.slice(0, 16).replace('T', ' ') : '-', t.revokedAt ? 'revoked' : '']),
    { head: ['NAME', 'SCOPES', 'CREATED', 'LAST USED', ''], style: st },
  );
}

interface TokenOps {
  create(name: string, scopes: ReturnType<typeof parseScopes>): Promise<{ token: string; info: TokenInfo }>;
  list(all: boolean): Promise<TokenInfo[]>;
  revoke(name: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Token operations on the server's database: on PostgreSQL directly (the replicas share it); else through the
 * running server's local socket when there is one (PGlite's directory is one process's), else by opening
 * the embedded database here.
 */
async function tokenOps(dataDir: string, databaseUrl: string | undefined): Promise<TokenOps> {
  const socket = databaseUrl === undefined ? localServerSocket(dataDir) : null;
  if (socket !== null) {
    const via = async (method: string, path: string, body?: unknown) => {
      let a;
      try {
        a = await localRequest(socket, method, path, body);
      } catch (e) {
        return null; // a socket left by a killed server: fall back to the database
      }
      if (a.status >= 400) throw new UsageError(answerMessage(a));
      return a.body;
    };
    const probe = await via('GET', '/v1/tokens');
    if (probe !== null) {
      return {
        create: async (name, scopes) => (await via('POST', '/v1/tokens', { name, scopes })) as { token: string; info: TokenInfo },
        list: async (all) => ((await via('GET', `/v1/tokens${all ? '?all=true' : ''}`)) as { tokens: TokenInfo[] }).tokens,
        revoke: async (name) => {
          try {
            await via('DELETE', `/v1/tokens/${encodeURIComponent(name)}`);
            return true;
          } catch (e) {
            if (e instanceof UsageError && /No live token/.test(e.message)) return false;
            throw e;
          }
        },
        close: async () => {},
      };
    }
  }
  const db = await openDatabase(databaseUrl !== undefined ? { url: databaseUrl } : { dir: join(dataDir, 'db') });
  const store = createTokenStore(db);
  return {
    create: async (name, scopes) => {
      try {
        return await store.create(name, scopes);
      } catch (e) {
        throw new UsageError(describeError(e));
      }
    },
    list: (all) => store.list({ all }),
    revoke: (name) => store.revoke(name),
    close: () => db.close(),
  };
}
