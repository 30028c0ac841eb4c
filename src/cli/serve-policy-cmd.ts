// `asimov serve policy publish|show`: the team policy an `asimov serve` hands every machine of the team. On
// this server's machine it goes through the running server's local socket, or opens the database when no
// server runs (as `asimov serve token …` does); from elsewhere, --server URL with an admin token. The file is
// checked here first, so its problems name the file itself, and the server checks it again before storing it.

import { join, resolve } from 'node:path';
import { AsimovError, describeError, formatLocated } from '../core/errors.ts';
import { readRegularFile } from '../core/read-regular.ts';
import { MAX_POLICY_BYTES } from '../policy/load.ts';
import { MAX_TEAM_GROUND_RULES_BYTES } from '../policy/team-cache.ts';
import { checkTeamGroundRules, checkTeamPolicy } from '../policy/team-policy-check.ts';
import { openDatabase } from '../store/database.ts';
import { createTeamPolicyStore, type TeamPolicyVersion } from '../store/team-policy.ts';
import { AUDIT_DEFAULT_TOKEN_ENV } from '../policy/schema.ts';
import { parseOptions } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { answerMessage, defaultDataDir, localRequest, localServerSocket } from './serve-client.ts';
import { styleOf, table } from './style.ts';

export const SERVE_POLICY_HELP = `Usage:
  asimov serve policy publish FILE [--ground-rules FILE] [--server URL [--token TOKEN]] [--data-dir DIR] [--json]
  asimov serve policy show [--server URL [--token TOKEN]] [--data-dir DIR] [--json]

The team policy: a policy file every machine whose user or managed policy names this server
(\`audit: { remote: URL }\`) applies as a managed layer, after /etc/asimov/policy.yaml, which nothing local
can loosen. Machines check for a new version before a call at most every 30 s, so a published change
reaches each one's next call within a minute; offline, they keep the copy they have.

publish checks FILE as every client will load it (YAML, keys, rule ids, custom rules' examples) and refuses
it with file, line and key when it would not load. --ground-rules FILE adds the team's ground rules for the
judge, appended to each machine's own (at most ${MAX_TEAM_GROUND_RULES_BYTES / 1024} KiB).

Without --server: the server on this machine (--data-dir, default $XDG_STATE_HOME/asimov/serve), through
its local socket while it runs, else its database. With --server URL: over HTTP with an admin token
(--token, else $${AUDIT_DEFAULT_TOKEN_ENV}).
`;

interface PolicyOps {
  publish(policy: string, groundRules: string | null): Promise<TeamPolicyVersion & { changed: boolean }>;
  /** The newest version, or null when none was published. */
  show(): Promise<TeamPolicyVersion | null>;
  close(): Promise<void>;
}

export async function servePolicyCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      'ground-rules': { type: 'string' },
      server: { type: 'string' },
      token: { type: 'string' },
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (sub === undefined || sub === '--help' || sub === '-h' || values.help) {
    io.out(SERVE_POLICY_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub !== 'publish' && sub !== 'show') throw new UsageError(`unknown policy command '${sub}' (publish or show)`);
  if (values.token !== undefined && values.server === undefined) throw new UsageError('--token goes with --server URL');
  if (values.server !== undefined && values['data-dir'] !== undefined) throw new UsageError('--server and --data-dir name two different servers; give one');

  let policy = '';
  let groundRules: string | null = null;
  if (sub === 'publish') {
    const [file, ...more] = positionals;
    if (file === undefined || more.length > 0) throw new UsageError('publish takes one policy file: asimov serve policy publish FILE');
    const path = resolve(io.cwd, file);
    policy = readText(path, MAX_POLICY_BYTES, 'policy file');
    try {
      checkTeamPolicy(policy, path);
    } catch (e) {
      if (!(e instanceof AsimovError)) throw e;
      io.err(`asimov serve policy: not published: ${formatLocated(e.message, e.location)}\n`);
      return EXIT.error;
    }
    if (values['ground-rules'] !== undefined) {
      groundRules = readText(resolve(io.cwd, values['ground-rules']), MAX_TEAM_GROUND_RULES_BYTES, 'ground rules');
      checkTeamGroundRules(groundRules);
    }
  } else if (positionals.length > 0) throw new UsageError('show takes no arguments');

  const ops = values.server !== undefined ? httpOps(values.server, values.token ?? io.env[AUDIT_DEFAULT_TOKEN_ENV]) : await localOps(values['data-dir'] !== undefined ? resolve(io.cwd, values['data-dir']) : defaultDataDir(io.env));
  try {
    if (sub === 'publish') {
      const p = await ops.publish(policy, groundRules);
      if (values.json) io.out(`${JSON.stringify(p, null, 2)}\n`);
      else if (!p.changed) io.out(`Version ${p.version} is already this policy${groundRules === null ? '' : ' with these ground rules'}; nothing changed.\n`);
      else io.out(`Published team policy version ${p.version} (${p.etag}). Machines of the team apply it from their next call once their last check is 30 s old.\n`);
      return EXIT.ok;
    }
    const p = await ops.show();
    if (values.json) {
      io.out(`${JSON.stringify(p, null, 2)}\n`);
      return p ? EXIT.ok : EXIT.error;
    }
    if (!p) {
      io.out('No team policy published: machines use their local layers only. Publish one with: asimov serve policy publish FILE\n');
      return EXIT.error;
    }
    const st = styleOf(io);
    io.out(
      `${table([
        ['version', String(p.version)],
        ['published', `${p.publishedAt.slice(0, 19).replace('T', ' ')} UTC by ${p.publishedBy}`],
        ['etag', p.etag],
        ['ground rules', p.groundRules === null ? st.dim('none') : `${Buffer.byteLength(p.groundRules)} bytes`],
      ])}\n\n${p.policy.endsWith('\n') ? p.policy : `${p.policy}\n`}` + (p.groundRules !== null ? `\n${st.bold('Ground rules')}\n${p.groundRules.trimEnd()}\n` : ''),
    );
    return EXIT.ok;
  } finally {
    await ops.close();
  }
}

function readText(path: string, max: number, what: string): string {
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularFile(path, max);
  } catch (e) {
    throw new UsageError(`the ${what} ${path} cannot be read: ${describeError(e).replace(/^Error: /, '')}`);
  }
  if (bytes === undefined) throw new UsageError(`the ${what} ${path} does not exist`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new UsageError(`the ${what} ${path} is not UTF-8 text`);
  }
}

/** An error answer of the server as the CLI's error: a refused policy names file, line and key. */
function refused(status: number, body: unknown, fallback: string): never {
  const msg = body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : fallback;
  if (status === 400) throw new UsageError(msg);
  throw new AsimovError('io_error', msg);
}

function httpOps(server: string, token: string | undefined): PolicyOps {
  let base: string;
  try {
    const u = new URL(server);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
    base = u.href.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`--server '${server}' is not an http(s) URL`);
  }
  if (!token) throw new UsageError(`--server needs an admin token: --token TOKEN, or $${AUDIT_DEFAULT_TOKEN_ENV}`);
  const call = async (method: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
    let res: Response;
    try {
      res = await fetch(`${base}/v1/team/policy`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      throw new AsimovError('io_error', `${base} cannot be reached: ${describeError((e as { cause?: unknown }).cause ?? e)}`);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* kept as text */
    }
    return { status: res.status, body: parsed };
  };
  return {
    publish: async (policy, groundRules) => {
      const a = await call('PUT', { policy, groundRules });
      if (a.status !== 200) refused(a.status, a.body, `${base} answered ${a.status}`);
      return a.body as TeamPolicyVersion & { changed: boolean };
    },
    show: async () => {
      const a = await call('GET');
      if (a.status === 404 && (a.body as { error?: string } | null)?.error === 'no_team_policy') return null;
      if (a.status !== 200) refused(a.status, a.body, `${base} answered ${a.status}`);
      return a.body as TeamPolicyVersion;
    },
    close: async () => {},
  };
}

/** The server on this machine: its local socket while it runs (PGlite's directory is one process's), else its database. */
async function localOps(dataDir: string): Promise<PolicyOps> {
  const socket = localServerSocket(dataDir);
  if (socket !== null) {
    const probe = await localRequest(socket, 'GET', '/healthz').catch(() => null);
    if (probe !== null) {
      return {
        publish: async (policy, groundRules) => {
          const a = await localRequest(socket, 'PUT', '/v1/team/policy', { policy, groundRules });
          if (a.status !== 200) refused(a.status, a.body, answerMessage(a));
          return a.body as TeamPolicyVersion & { changed: boolean };
        },
        show: async () => {
          const a = await localRequest(socket, 'GET', '/v1/team/policy');
          if (a.status === 404 && a.body?.error === 'no_team_policy') return null;
          if (a.status !== 200) refused(a.status, a.body, answerMessage(a));
          return a.body as TeamPolicyVersion;
        },
        close: async () => {},
      };
    }
  }
  const db = await openDatabase({ dir: join(dataDir, 'db') });
  const store = createTeamPolicyStore(db);
  return {
    publish: async (policy, groundRules) => {
      try {
        return await store.publish({ policy, groundRules, by: 'local' });
      } catch (e) {
        if (e instanceof AsimovError && e.code !== 'io_error') throw new UsageError(`The team policy was not published: ${formatLocated(e.message, e.location)}`);
        throw e;
      }
    },
    show: () => store.latest(),
    close: () => db.close(),
  };
}
