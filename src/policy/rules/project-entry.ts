// The project's own Python entry points: `python -m <module of the project>` and the application servers that run
// a project module (`uvicorn app.main:app`, `gunicorn app:app`, `flask run`, `fastapi dev`, `streamlit run app.py`,
// `python -m http.server --bind 127.0.0.1`). dev.project-tooling allows them through these checks.
//
// Two things make such a command the project's own:
// - the code it runs is a file of the project, looked up the way Python looks it up. `python -m X` puts the
//   command's directory first on sys.path, so a top-level `X.py` or regular package `X/__init__.py` there (or
//   under `src/`, the src layout an editable install puts on the path) is what runs. A name found nowhere in
//   the project is some installed module (`python -m smtpd`, `python -m webbrowser`): not the project's code, so
//   it stays asked. A namespace directory (no __init__.py) is not enough: a regular package of the same name
//   installed elsewhere would win. `-P`/`-I`/PYTHONSAFEPATH drop the directory from sys.path and with it the claim;
//   PYTHONPATH (searched before the standard library) must name only project directories.
// - the server is reachable only from this machine. Binding an explicit public address (`--host 0.0.0.0`, a LAN
//   address, `-b :8000`) publishes the project's code, and with --reload/--debug a debugger, to every network
//   the machine is on; the agent chose that on the command line, so a person confirms it (as `rails server -b
//   0.0.0.0` already asks). A tool's own default address is the developer's choice and is not second-guessed.
//   Unix sockets and inherited descriptors are left out (not needed for development, and not judged here).

import { statSync } from 'node:fs';
import type { Analysis, SimpleCommand } from '../../shell/types.ts';
import { staticValue } from '../../shell/program.ts';
import type { RuleContext } from '../rule.ts';
import { lineWrites } from './exec.ts';

/** Loopback addresses: a server bound there is reachable from this machine only. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\]|0:0:0:0:0:0:0:1|ip6-localhost)$/i;

export function isLoopbackHost(h: string): boolean {
  return LOOPBACK_HOST.test(h);
}

/** `127.0.0.1:8000`, `localhost`, `[::1]:8000`: a gunicorn/hypercorn bind on loopback (no unix:, fd://, `:8000`). */
export function isLoopbackBind(b: string): boolean {
  const v6 = /^(\[[^\]]+\])(?::\d+)?$/.exec(b);
  if (v6) return isLoopbackHost(v6[1]!);
  const m = /^([^:]+)(?::\d+)?$/.exec(b);
  return m !== null && isLoopbackHost(m[1]!);
}

/** A path inside the project that is not a link out of it, a secret, agent or asimov config, or only known at run time. */
function plainProjectPath(p: string, ctx: RuleContext, secretsOk = false): string | null {
  const info = ctx.path(p);
  const c = info.classes;
  if (!(c.has('project') || c.has('build-artifact')) || c.has('outside') || c.has('dynamic') || (c.has('credentials') && !secretsOk) || c.has('agent-config') || c.has('agent-instructions') || c.has('asimov-config') || c.has('git-internals')) return null;
  return info.abs;
}

function isFile(abs: string): boolean {
  return statSync(abs, { throwIfNoEntry: false })?.isFile() === true;
}

/** PYTHON* variables that change nothing about where code comes from. */
const HARMLESS_PY_ENV = /^PYTHON(UNBUFFERED|DONTWRITEBYTECODE|IOENCODING|WARNINGS|UTF8|HASHSEED|DEVMODE|FAULTHANDLER|ASYNCIODEBUG|TRACEMALLOC|OPTIMIZE|BREAKPOINT|NODEBUGRANGES|COERCECLOCALE|LEGACYWINDOWSSTDIO|PYCACHEPREFIX)$/;

/**
 * The extra module roots a command's environment adds (PYTHONPATH of project directories), or null when its
 * environment moves Python's search path somewhere the project does not control.
 */
function pythonPathRoots(cmd: SimpleCommand, ctx: RuleContext): string[] | null {
  const roots: string[] = [];
  for (const a of cmd.assignments) {
    if (!a.name.startsWith('PYTHON')) continue;
    if (HARMLESS_PY_ENV.test(a.name)) continue;
    if (a.name !== 'PYTHONPATH') return null; // PYTHONSAFEPATH, PYTHONHOME, PYTHONUSERBASE, PYTHONSTARTUP…
    const v = staticValue(a.value);
    if (v === null) return null;
    for (const entry of v.split(':')) {
      if (entry === '') continue;
      if (plainProjectPath(entry, ctx) === null) return null;
      roots.push(entry.replace(/\/+$/, ''));
    }
  }
  return roots;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The file `python -m <mod>` runs when <mod> is the project's: searched in `base` (the command's directory, or
 * a server's --app-dir), its `src/`, and the PYTHONPATH roots of the command. Null when it is not found there.
 */
function projectModuleFile(mod: string, base: string, extraRoots: readonly string[], ctx: RuleContext): { file: string; top: string } | null {
  const parts = mod.split('.');
  if (!parts.every((p) => IDENT.test(p))) return null;
  const join = (...xs: string[]) => xs.filter((x) => x !== '' && x !== '.').join('/') || '.';
  for (const root of [base, join(base, 'src'), ...extraRoots]) {
    const top = join(root, parts[0]!);
    const topAbs = plainProjectPath(top, ctx);
    if (topAbs === null) continue;
    // A regular package or a module at the top: the first match on sys.path, so nothing installed shadows it.
    const regular = parts.length === 1 ? isFile(`${topAbs}.py`) || isFile(`${topAbs}/__init__.py`) : isFile(`${topAbs}/__init__.py`);
    if (!regular) continue;
    const path = join(root, ...parts);
    for (const cand of [`${path}.py`, `${path}/__main__.py`]) {
      const abs = plainProjectPath(cand, ctx);
      if (abs !== null && isFile(abs)) return { file: abs, top: topAbs };
    }
  }
  return null;
}

/**
 * `python -m <mod>` (or a server's `<mod>:app`) runs a module of the project. The line must not write into that
 * package before it runs (`echo … > app/main.py && python -m app.main`), as for exec.run-project-script.
 */
export function runsProjectModule(mod: string, cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis | undefined, base = '.'): boolean {
  const roots = pythonPathRoots(cmd, ctx);
  if (roots === null) return false;
  const found = projectModuleFile(mod, base, roots, ctx);
  if (found === null) return false;
  if (analysis && lineWrites(analysis, ctx).some((w) => w.abs === found.file || w.abs === `${found.top}.py` || w.abs.startsWith(`${found.top}/`))) return false;
  return true;
}

/** Python options that take the command's directory off sys.path: then `-m X` is not looked up in the project. */
export function dropsCwdFromPath(flags: ReadonlySet<string>): boolean {
  return flags.has('P') || flags.has('I');
}

// ---------------------------------------------------------------------------------------------------------
// Application servers

interface ServerArgs {
  positionals: string[];
  values: Map<string, string[]>;
  flags: Set<string>;
}

/** Options and operands, with the options that take a value named (`--host x`, `--host=x`, `-b x`). */
function parseServerArgs(args: readonly string[], withValue: ReadonlySet<string>): ServerArgs {
  const out: ServerArgs = { positionals: [], values: new Map(), flags: new Set() };
  const put = (k: string, v: string) => out.values.set(k, [...(out.values.get(k) ?? []), v]);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') { out.positionals.push(...args.slice(i + 1)); break; }
    if (a.startsWith('--') && a.includes('=')) { put(a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)); continue; }
    if (withValue.has(a)) { put(a, args[i + 1] ?? ''); i++; continue; }
    if (a.startsWith('-') && a.length > 1) { out.flags.add(a); continue; }
    out.positionals.push(a);
  }
  return out;
}

const vals = (s: ServerArgs, ...keys: string[]): string[] => keys.flatMap((k) => s.values.get(k) ?? []);

/** `module:attr`, `module:factory()`, `module`: the module must be the project's. */
function projectApp(spec: string, cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis | undefined, base: string): boolean {
  const mod = spec.split(':')[0]!;
  return runsProjectModule(mod, cmd, ctx, analysis, base);
}

/** A directory option (--app-dir, --chdir, --working-dir) that must stay in the project; '.' when absent. */
function baseDir(s: ServerArgs, ctx: RuleContext, ...keys: string[]): string | null {
  const v = vals(s, ...keys);
  if (v.length === 0) return '.';
  if (v.length > 1 || plainProjectPath(v[0]!, ctx) === null) return null;
  return v[0]!.replace(/\/+$/, '');
}

/**
 * Every file option is a project file (configs are code: gunicorn's is Python, logging ini files build objects).
 * Env files and TLS keys are secrets by nature; handing the project's own to its server is what they are for.
 */
function filesInProject(s: ServerArgs, ctx: RuleContext, ...keys: string[]): boolean {
  return keys.every((k) => {
    const secretsOk = /^--?(env-files?|e|ssl-keyfile|ssl-certfile|ssl-certificate|ssl-ca-certs|certfile|keyfile|ca-certs|cert|key)$/.test(k);
    return vals(s, k).every((f) => plainProjectPath(f.replace(/^file:/, ''), ctx, secretsOk) !== null);
  });
}

const UVICORN_VALUE = new Set(['--host', '--port', '--uds', '--fd', '--reload-dir', '--reload-include', '--reload-exclude', '--reload-delay', '--workers', '--loop', '--http', '--ws', '--ws-max-size', '--ws-max-queue', '--ws-ping-interval', '--ws-ping-timeout', '--ws-per-message-deflate', '--lifespan', '--interface', '--env-file', '--log-config', '--log-level', '--root-path', '--limit-concurrency', '--backlog', '--limit-max-requests', '--timeout-keep-alive', '--timeout-graceful-shutdown', '--ssl-keyfile', '--ssl-certfile', '--ssl-keyfile-password', '--ssl-version', '--ssl-cert-reqs', '--ssl-ca-certs', '--ssl-ciphers', '--header', '--app-dir', '--forwarded-allow-ips', '--h11-max-incomplete-event-size']);

function uvicornOk(args: readonly string[], cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): boolean {
  const s = parseServerArgs(args, UVICORN_VALUE);
  if (s.positionals.length !== 1 || vals(s, '--uds', '--fd').length > 0) return false;
  if (!vals(s, '--host').every(isLoopbackHost)) return false;
  if (!filesInProject(s, ctx, '--env-file', '--log-config', '--ssl-keyfile', '--ssl-certfile', '--ssl-ca-certs')) return false;
  const base = baseDir(s, ctx, '--app-dir');
  return base !== null && projectApp(s.positionals[0]!, cmd, ctx, analysis, base);
}

const GUNICORN_VALUE = new Set(['-b', '--bind', '-c', '--config', '--chdir', '--pythonpath', '-k', '--worker-class', '-w', '--workers', '--threads', '-t', '--timeout', '--graceful-timeout', '--keep-alive', '--log-level', '--access-logfile', '--error-logfile', '--log-file', '--access-logformat', '-e', '--env', '--max-requests', '--max-requests-jitter', '-n', '--name', '--worker-connections', '--forwarded-allow-ips', '--log-config', '--certfile', '--keyfile', '--ca-certs', '-p', '--pid', '--backlog', '--limit-request-line', '--limit-request-fields', '--limit-request-field_size', '--worker-tmp-dir', '--statsd-host', '--paste', '--log-syslog-to', '-u', '--user', '-g', '--group', '-m', '--umask', '--reload-extra-file', '--reload-engine']);
const KNOWN_WORKERS = /^(sync|eventlet|gevent|tornado|gthread|asyncio|uvloop|trio|uvicorn\.workers\.Uvicorn(H11)?Worker|uvicorn_worker\.Uvicorn(H11)?Worker)$/;

/** gunicorn and hypercorn: `[options] module:app`, binds with -b. */
function gunicornLikeOk(args: readonly string[], cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): boolean {
  const s = parseServerArgs(args, new Set([...GUNICORN_VALUE, '--insecure-bind', '--quic-bind', '--root-path', '--access-log-format']));
  if (s.positionals.length !== 1) return false;
  // statsd/syslog send to a host, --paste loads a PasteDeploy ini, user/group switch identity: not development.
  if (vals(s, '--statsd-host', '--log-syslog-to', '--paste', '-u', '--user', '-g', '--group').length > 0) return false;
  if (!vals(s, '-b', '--bind', '--insecure-bind', '--quic-bind').every(isLoopbackBind)) return false;
  if (!vals(s, '-c', '--config').every((c) => !c.startsWith('python:') && plainProjectPath(c.replace(/^file:/, ''), ctx) !== null)) return false;
  if (!filesInProject(s, ctx, '--log-config', '--certfile', '--keyfile', '--ca-certs')) return false;
  const roots = vals(s, '--pythonpath').flatMap((p) => p.split(','));
  if (!roots.every((r) => plainProjectPath(r, ctx) !== null)) return false;
  const base = baseDir(s, ctx, '--chdir');
  if (base === null) return false;
  if (!vals(s, '-k', '--worker-class').every((k) => KNOWN_WORKERS.test(k) || runsProjectModule(k.split('.').slice(0, -1).join('.') || k, cmd, ctx, analysis, base))) return false;
  return projectApp(s.positionals[0]!, cmd, ctx, analysis, base);
}

const GRANIAN_VALUE = new Set(['--interface', '--host', '--port', '--uds', '--workers', '--threads', '--blocking-threads', '--runtime-threads', '--runtime-mode', '--loop', '--task-impl', '--http', '--backlog', '--backpressure', '--log-level', '--log-config', '--ssl-keyfile', '--ssl-certificate', '--ssl-keyfile-password', '--url-path-prefix', '--respawn-interval', '--workers-lifetime', '--workers-kill-timeout', '--reload-paths', '--reload-ignore-dirs', '--reload-ignore-patterns', '--reload-ignore-paths', '--working-dir', '--env-files', '--pid-file', '--static-path-route', '--static-path-mount', '--process-name']);

function granianOk(args: readonly string[], cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): boolean {
  const s = parseServerArgs(args, GRANIAN_VALUE);
  if (s.positionals.length !== 1 || vals(s, '--uds').length > 0) return false;
  if (!vals(s, '--host').every(isLoopbackHost)) return false;
  if (!filesInProject(s, ctx, '--log-config', '--env-files', '--ssl-keyfile', '--ssl-certificate', '--static-path-mount')) return false;
  const base = baseDir(s, ctx, '--working-dir');
  return base !== null && projectApp(s.positionals[0]!, cmd, ctx, analysis, base);
}

/** `flask --app X`, FLASK_APP=X: a module spec (`hello`, `hello:create_app()`) or a project .py file. */
function flaskAppOk(app: string, cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): boolean {
  const target = app.split(':')[0]!;
  if (target.includes('/') || target.endsWith('.py')) {
    const abs = plainProjectPath(target, ctx);
    return abs !== null && (isFile(abs) || isFile(`${abs}/__init__.py`));
  }
  return runsProjectModule(target, cmd, ctx, analysis);
}

const FLASK_VALUE = new Set(['--app', '-A', '-e', '--env-file', '--host', '-h', '--port', '-p', '--cert', '--key', '--extra-files', '--exclude-patterns']);

/**
 * `flask [--app X] run|routes`: run serves the app (127.0.0.1 unless told otherwise), routes lists it. Other
 * subcommands are the project's own CLI or `flask shell` (an interactive interpreter): not judged here. With
 * no app named, flask loads wsgi.py or app.py from the directory it runs in, or fails.
 */
function flaskOk(args: readonly string[], cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): boolean {
  const s = parseServerArgs(args, FLASK_VALUE);
  const sub = s.positionals[0];
  if ((sub !== 'run' && sub !== 'routes') || s.positionals.length > 1) return false;
  if (!vals(s, '--host', '-h').every(isLoopbackHost)) return false;
  if (!filesInProject(s, ctx, '-e', '--env-file', '--cert', '--key')) return false;
  const apps = [...vals(s, '--app', '-A'), ...cmd.assignments.filter((a) => a.name === 'FLASK_APP').map((a) => staticValue(a.value) ?? '\0')];
  if (apps.length > 0) return apps.every((a) => flaskAppOk(a, cmd, ctx, analysis));
  return plainProjectPath('.', ctx) !== null;
}

const FASTAPI_VALUE = new Set(['--host', '--port', '--root-path', '--app', '--entrypoint', '-e', '--workers', '--forwarded-allow-ips']);

/** `fastapi dev|run [path]`: a project file or package (or the one it discovers in the directory it runs in). */
function fastapiOk(args: readonly string[], cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): boolean {
  const s = parseServerArgs(args, FASTAPI_VALUE);
  const [sub, path, ...more] = s.positionals;
  if ((sub !== 'dev' && sub !== 'run') || more.length > 0) return false;
  if (!vals(s, '--host').every(isLoopbackHost)) return false;
  if (!vals(s, '--entrypoint', '-e').every((e) => runsProjectModule(e.split(':')[0]!, cmd, ctx, analysis))) return false;
  if (path === undefined) return plainProjectPath('.', ctx) !== null;
  const abs = plainProjectPath(path, ctx);
  return abs !== null && (isFile(abs) || isFile(`${abs}/__init__.py`));
}

/** `streamlit run app.py [--server.address 127.0.0.1] [-- args]`: a project script, no URL, loopback if an address is given. */
function streamlitOk(args: readonly string[], ctx: RuleContext): boolean {
  if (args[0] !== 'run') return false;
  const rest = args.slice(1);
  const script = rest.find((a) => !a.startsWith('-'));
  if (script === undefined || !script.endsWith('.py')) return false;
  const abs = plainProjectPath(script, ctx);
  if (abs === null || !isFile(abs)) return false;
  const before = rest.slice(0, rest.indexOf('--') >= 0 ? rest.indexOf('--') : rest.length);
  for (let i = 0; i < before.length; i++) {
    const a = before[i]!;
    if (!a.startsWith('--server.address')) continue;
    const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : before[i + 1] ?? '';
    if (!isLoopbackHost(v)) return false;
  }
  return true;
}

/**
 * `python -m http.server --bind 127.0.0.1 [port] [-d dir]`: serves a project directory to this machine only.
 * Without --bind it listens on every interface and hands out every file of the directory (.env, .git) to the
 * network (net.listener asks); --cgi runs the directory's scripts for anyone who asks.
 */
function httpServerOk(args: readonly string[], ctx: RuleContext): boolean {
  const s = parseServerArgs(args, new Set(['-b', '--bind', '-d', '--directory', '-p', '--protocol']));
  if (s.flags.has('--cgi') || s.positionals.length > 1 || !s.positionals.every((p) => /^\d+$/.test(p))) return false;
  const binds = vals(s, '-b', '--bind');
  if (binds.length === 0 || !binds.every(isLoopbackHost)) return false;
  const dirs = vals(s, '-d', '--directory');
  return [...(dirs.length > 0 ? dirs : ['.'])].every((d) => plainProjectPath(d, ctx) !== null);
}

/** Application servers that run a project module, by program (or `python -m` module) name. */
export const APP_SERVERS = new Set(['uvicorn', 'gunicorn', 'hypercorn', 'granian', 'flask', 'fastapi', 'streamlit']);

/** Is `name args…` (a server program, or `python -m name args…`) serving the project on loopback? */
export function appServerOk(name: string, args: readonly string[], cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): boolean {
  switch (name) {
    case 'uvicorn':
      return uvicornOk(args, cmd, ctx, analysis);
    case 'gunicorn':
    case 'hypercorn':
      return gunicornLikeOk(args, cmd, ctx, analysis);
    case 'granian':
      return granianOk(args, cmd, ctx, analysis);
    case 'flask':
      return flaskOk(args, cmd, ctx, analysis);
    case 'fastapi':
      return fastapiOk(args, cmd, ctx, analysis);
    case 'streamlit':
      return streamlitOk(args, ctx);
    case 'http.server':
      return httpServerOk(args, ctx);
    default:
      return false;
  }
}
