// `asimov approvals list | approve ID | deny ID`: answer the person-on-call questions of an `asimov serve`,
// through the local socket of its data directory (this user's own, no token needed) or, with --server, a
// remote one with a token from the environment (never on the command line, where `ps` would show it).

import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { asimovStateDir } from '../core/asimov-dirs.ts';
import { describeError } from '../core/errors.ts';
import { parseOptions } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';
import { styleOf, table } from './style.ts';

const USAGE = `Usage: asimov approvals list [--all] [--json]
       asimov approvals approve ID [--scope once|session|always] [--reason TEXT] [--json]
       asimov approvals deny ID [--reason TEXT] [--json]

Answers the questions asimov serve puts to a person on call (policy \`approvals:\`).

  --scope once      approve this call only (default)
  --scope session   also the same call again in the same agent session
  --scope always    approve it and show a policy rule that would allow it always (never written for you)
  --all             list answered and expired approvals too (default: pending only)
  --data-dir DIR    the server's data directory (default: $XDG_STATE_HOME/asimov/serve); its api.sock is used
  --server URL      a remote asimov serve instead, with a token (scopes read, approve) from --token-env
  --token-env VAR   the variable holding that token (default ASIMOV_TOKEN)
  --json            print the approvals as JSON
`;

const SCOPES = ['once', 'session', 'always'] as const;
export const SOCKET_NAME = 'api.sock';

interface Target {
  socketPath?: string;
  server?: string;
  token?: string;
  where: string;
}

export async function approvalsCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      scope: { type: 'string' },
      reason: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      'data-dir': { type: 'string' },
      server: { type: 'string' },
      'token-env': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  const [sub, id, ...extra] = positionals;
  if (sub === undefined) throw new UsageError('give a subcommand: list, approve ID or deny ID');
  if (!['list', 'approve', 'deny'].includes(sub)) throw new UsageError(`unknown subcommand '${sub}' (known: list, approve, deny)`);
  if (sub === 'list' ? id !== undefined : id === undefined || extra.length > 0) {
    throw new UsageError(sub === 'list' ? '`list` takes no argument' : `\`${sub}\` takes exactly one approval id`);
  }
  if (values.scope !== undefined && sub !== 'approve') throw new UsageError('--scope is for `approve` (a denial applies to that call only)');
  if (values.scope !== undefined && !(SCOPES as readonly string[]).includes(values.scope)) throw new UsageError(`--scope must be once, session or always, not '${values.scope}'`);
  if (values.all && sub !== 'list') throw new UsageError('--all is for `list`');
  if (values.server !== undefined && values['data-dir'] !== undefined) throw new UsageError('give --server or --data-dir, not both');

  const target = targetOf(values, io);
  if (sub === 'list') {
    const r = await send(target, 'GET', `/v1/approvals?status=${values.all ? 'all' : 'pending'}`);
    const approvals = (r as { approvals: ApprovalView[] }).approvals;
    if (values.json) io.out(`${JSON.stringify(approvals, null, 2)}\n`);
    else io.out(renderList(approvals, io, values.all === true));
    return EXIT.ok;
  }
  const body: Record<string, unknown> = { verdict: sub === 'approve' ? 'allow' : 'deny' };
  if (values.scope !== undefined) body.scope = values.scope;
  if (values.reason !== undefined) body.reason = values.reason;
  const a = (await send(target, 'POST', `/v1/approvals/${encodeURIComponent(id!)}/answer`, body)) as ApprovalView;
  if (values.json) io.out(`${JSON.stringify(a, null, 2)}\n`);
  else {
    const st = styleOf(io);
    io.out(`${a.status === 'approved' ? st.green('approved') : st.red('denied')} ${a.id}: ${describeCall(a)}${a.scope && a.scope !== 'once' ? ` (scope ${a.scope})` : ''}\n`);
    if (a.proposedRule) {
      io.out(`\nA rule that would allow this call always (not written; review it and add it under \`custom:\` in a policy file):\n\n${a.proposedRule}`);
    }
  }
  return EXIT.ok;
}

function targetOf(values: { server?: string | undefined; 'data-dir'?: string | undefined; 'token-env'?: string | undefined }, io: CliIO): Target {
  if (values.server !== undefined) {
    if (!/^https?:\/\/[^\s/]+/.test(values.server)) throw new UsageError(`--server must be an http:// or https:// URL, not '${values.server}'`);
    const envName = values['token-env'] ?? 'ASIMOV_TOKEN';
    const token = io.env[envName];
    if (!token) throw new UsageError(`no token in ${envName}: put a token with the read and approve scopes there (asimov serve token create)`);
    return { server: values.server.replace(/\/+$/, ''), token, where: values.server };
  }
  if (values['token-env'] !== undefined) throw new UsageError('--token-env goes with --server (the local socket needs no token)');
  const dir = values['data-dir'] ?? join(asimovStateDir(io.env), 'serve');
  return { socketPath: join(dir, SOCKET_NAME), where: dir };
}

export interface ApprovalView {
  id: string;
  status: string;
  createdAt: string;
  expiresAt: string;
  call: { tool: string; clientTool: string | null; cwd: string; agent: string | null; sessionId: string | null; input: Record<string, unknown> };
  decision: { rule: string | null; tier: string; reason: string };
  requestedBy: string | null;
  answeredBy: string | null;
  scope: string | null;
  reason: string | null;
  proposedRule: string | null;
}

function describeCall(a: ApprovalView): string {
  const input = a.call.input;
  const text =
    typeof input['command'] === 'string' ? input['command']
    : typeof input['file_path'] === 'string' ? `${a.call.tool} ${input['file_path']}`
    : typeof input['url'] === 'string' ? `${a.call.tool} ${input['url']}`
    : `${a.call.clientTool ?? a.call.tool} ${JSON.stringify(input)}`;
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

function renderList(list: ApprovalView[], io: CliIO, all: boolean): string {
  if (list.length === 0) return all ? 'No approvals yet.\n' : 'No approvals are waiting.\n';
  const st = styleOf(io);
  const rows = list.map((a) => [
    a.id,
    st.verdict(a.status === 'approved' ? 'allowed' : a.status === 'denied' ? 'denied' : a.status === 'pending' ? 'ask' : a.status),
    describeCall(a),
    a.decision.rule ?? a.decision.tier,
    a.call.agent ?? '',
    a.status === 'pending' ? `until ${a.expiresAt.slice(11, 19)}` : (a.answeredBy ?? ''),
  ]);
  const out = table(rows, { head: ['ID', 'STATUS', 'CALL', 'RULE', 'AGENT', all ? 'EXPIRES / BY' : 'EXPIRES'], style: st });
  return `${out}${out.endsWith('\n') ? '' : '\n'}${all ? '' : `\nAnswer with: asimov approvals approve ID | deny ID [--reason …]\n`}`;
}

/** One request to the server; its JSON answer, or an error a person can act on. */
async function send(t: Target, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const { status, text } = t.socketPath !== undefined ? await viaSocket(t.socketPath, method, path, body) : await viaHttp(t, method, path, body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`the server at ${t.where} answered ${status} with something that is not JSON`);
  }
  if (status >= 400) {
    const m = (parsed as { message?: unknown }).message;
    throw new Error(typeof m === 'string' ? m : `the server at ${t.where} answered ${status}`);
  }
  return parsed;
}

function viaSocket(socketPath: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      { socketPath, path, method, headers: payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}, timeout: 30_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`the server at ${socketPath} did not answer within 30 s`)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED') {
        reject(new Error(`no asimov serve is running with its data in ${socketPath.replace(/\/api\.sock$/, '')} (no socket to talk to). Start one with \`asimov serve\`, or give --data-dir or --server.`));
      } else reject(new Error(`cannot talk to asimov serve through ${socketPath}: ${describeError(e)}`));
    });
    req.end(payload);
  });
}

async function viaHttp(t: Target, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  let r: Response;
  try {
    r = await fetch(t.server + path, {
      method,
      headers: { authorization: `Bearer ${t.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      signal: AbortSignal.timeout(30_000),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (e) {
    throw new Error(`cannot reach asimov serve at ${t.server}: ${describeError(e)}`);
  }
  return { status: r.status, text: await r.text() };
}
