// Read-only uses of the CLIs agents call constantly to look at the world around the code: the forge (gh, glab:
// pull requests, CI runs, issues, `gh api` reads), Android devices (adb), macOS and Linux system inspection.
// Merged into dev.read-only's table (dev.ts): each check says which argument shapes only look. Every check is
// a closed list of subcommands; anything else (an acting subcommand, an option that writes or changes the
// method, a flag before the subcommand that could shift which word is the subcommand) drops out of the allow
// set and is left to the other rules or to a person.

import type { Analysis, SimpleCommand } from '../../shell/types.ts';
import type { RuleContext } from '../rule.ts';

export type Check = (a: readonly string[], cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis) => boolean;

// ---------------------------------------------------------------------------------------------------------
// Forges: gh and glab

/**
 * The first two operands of a forge command (`pr view`), skipping the repository option, which takes a value.
 * Any other option before the subcommand fails the check: gh accepts flags anywhere, and an unknown option
 * taking a value would make us read its value as the subcommand (`gh pr -X view merge`).
 */
function forgeCommand(a: readonly string[], repoOpts: ReadonlySet<string>): { group: string; verb: string | undefined; rest: readonly string[] } | null {
  const ops: string[] = [];
  let i = 0;
  for (; i < a.length && ops.length < 2; i++) {
    const x = a[i]!;
    if (repoOpts.has(x)) { i++; continue; }
    if (x.startsWith('--') && repoOpts.has(x.slice(0, x.indexOf('=')))) continue;
    if (x.startsWith('-')) return null;
    ops.push(x);
    // `gh api` takes its endpoint and options after it: the rest is the API call's.
    if (x === 'api' && ops.length === 1) { i++; break; }
  }
  if (ops[0] === undefined) return null;
  return { group: ops[0], verb: ops[0] === 'api' ? undefined : ops[1], rest: a.slice(i) };
}

const GH_REPO_OPTS: ReadonlySet<string> = new Set(['-R', '--repo']);
const GLAB_REPO_OPTS: ReadonlySet<string> = new Set(['-R', '--repo', '-g', '--group']);

/** gh's subcommands that only read, per command group. */
const GH_READ: Readonly<Record<string, ReadonlySet<string>>> = {
  pr: new Set(['view', 'list', 'checks', 'diff', 'status']),
  run: new Set(['view', 'list', 'watch']),
  workflow: new Set(['list', 'view']),
  issue: new Set(['view', 'list', 'status']),
  // `repo clone` writes a new directory, as `git clone` does; it changes nothing that exists.
  repo: new Set(['view', 'list', 'clone']),
  release: new Set(['list', 'view']),
  search: new Set(['repos', 'issues', 'prs', 'code', 'commits']),
  cache: new Set(['list']),
  label: new Set(['list']),
  // Names only: `gh secret list` never shows a value.
  secret: new Set(['list']),
  variable: new Set(['list']),
  gist: new Set(['list', 'view']),
  ruleset: new Set(['list', 'view', 'check']),
  extension: new Set(['list']),
  config: new Set(['get', 'list']),
  auth: new Set(['status']),
};

const GLAB_READ: Readonly<Record<string, ReadonlySet<string>>> = {
  mr: new Set(['view', 'list', 'diff']),
  ci: new Set(['view', 'list', 'status', 'trace', 'get']),
  pipeline: new Set(['list', 'status', 'view', 'get']),
  issue: new Set(['view', 'list']),
  repo: new Set(['view', 'list', 'clone']),
  release: new Set(['list', 'view']),
  label: new Set(['list']),
  variable: new Set(['list']),
  auth: new Set(['status']),
};

/**
 * `gh api` / `glab api` that only reads: the method is GET (none given, or -X GET), and no option makes a body
 * (-f/-F/--field/--raw-field switch gh to POST; --input sends a file). With an explicit GET, fields go into the
 * query string; a field read from a file (`-F x=@path`) is still refused, as is --input: a file's bytes are
 * not a query.
 */
function forgeApiRead(rest: readonly string[]): boolean {
  let method: string | null = null;
  let fields = false;
  for (let i = 0; i < rest.length; i++) {
    const x = rest[i]!;
    let opt = x;
    let val: string | undefined;
    const eq = x.startsWith('--') ? x.indexOf('=') : -1;
    if (eq > 0) { opt = x.slice(0, eq); val = x.slice(eq + 1); }
    else if (/^-[XfFH]./.test(x)) { opt = x.slice(0, 2); val = x.slice(2); }
    const next = (): string => val ?? rest[++i] ?? '';
    if (opt === '-X' || opt === '--method') { method = next().toUpperCase(); continue; }
    if (opt === '--input') return false;
    if (opt === '-f' || opt === '--raw-field') { next(); fields = true; continue; }
    if (opt === '-F' || opt === '--field') {
      const v = next();
      if (v.slice(v.indexOf('=') + 1).startsWith('@')) return false;
      fields = true;
      continue;
    }
    // A header other than Accept can change what the request does (`X-HTTP-Method-Override: DELETE`): not a read.
    if (opt === '-H' || opt === '--header') {
      if (!/^\s*accept\s*:/i.test(next())) return false;
      continue;
    }
    // Options that take a value: skip it, so that it is not read as something else.
    if (/^(-q|--jq|-t|--template|--hostname|--cache|-p|--preview)$/.test(opt) && val === undefined) i++;
  }
  if (method !== null && method !== 'GET' && method !== 'HEAD') return false;
  // A full URL as the endpoint reaches a host other than the forge's API; the network rules judge that.
  if (rest.some((x) => x.includes('://'))) return false;
  return !fields || method !== null;
}

function forgeReadOnly(read: Readonly<Record<string, ReadonlySet<string>>>, repoOpts: ReadonlySet<string>, extra: (group: string, verb: string | undefined, rest: readonly string[]) => boolean): Check {
  return (a) => {
    const c = forgeCommand(a, repoOpts);
    if (c === null) return false;
    if (c.group === 'api') return forgeApiRead(c.rest);
    if (c.verb === undefined) return c.group === 'status';
    const verbs = read[c.group];
    return verbs !== undefined && verbs.has(c.verb) && extra(c.group, c.verb, c.rest);
  };
}

/** `gh auth status --show-token` prints the token itself; every other read here shows no secret. */
const ghExtra = (group: string, _verb: string | undefined, rest: readonly string[]): boolean =>
  !(group === 'auth' && rest.some((x) => x === '--show-token' || x === '-t'));

const gh = forgeReadOnly(GH_READ, GH_REPO_OPTS, ghExtra);
const glab = forgeReadOnly(GLAB_READ, GLAB_REPO_OPTS, ghExtra);

// ---------------------------------------------------------------------------------------------------------
// adb: the device under development

/** Options before adb's command that pick the device or server (`-s SERIAL`, `-H host`); -d/-e/-a take none. */
const ADB_VALUE_OPTS = new Set(['-s', '-t', '-H', '-P', '-L']);

/** What a shell on the device may run and only look: properties, services' state, installed packages. */
function adbShellRead(words: readonly string[]): boolean {
  const [p, s, t] = words;
  switch (p) {
    case 'getprop':
    case 'dumpsys':
    case 'uname':
    case 'id':
    case 'whoami':
    case 'df':
    case 'ps':
    case 'uptime':
    case 'date':
    case 'pwd':
    case 'ls':
      return words.every((w) => !w.startsWith('-') || /^-[a-zA-Z]+$/.test(w)) && !(p === 'date' && words.some((w) => w.startsWith('-s') || /^\d{6,}/.test(w)));
    case 'pm':
      return s === 'list' || s === 'path' || s === 'dump' || s === 'resolve-activity';
    case 'cmd':
      return s === 'package' && (t === 'list' || t === 'resolve-activity');
    case 'wm':
      return (s === 'size' || s === 'density') && words.length === 2;
    case 'settings':
      return s === 'get' || s === 'list';
    // A screenshot written on the device: nothing of the host, nothing the device keeps beyond one file.
    case 'screencap':
      return true;
    default:
      return false;
  }
}

/** A device path pulled to the temp directory (never into the project, where it could replace a hook or a script). */
function adbPullToTemp(ops: readonly string[], ctx: RuleContext): boolean {
  if (ops.length !== 3) return false;
  const c = ctx.path(ops[2]!).classes;
  return c.has('temp') && !c.has('dynamic') && !c.has('project');
}

const adb: Check = (a, _cmd, ctx) => {
  let i = 0;
  for (; i < a.length; i++) {
    const x = a[i]!;
    if (ADB_VALUE_OPTS.has(x)) { i++; continue; }
    if (/^-[deal]$/.test(x)) continue;
    break;
  }
  const rest = a.slice(i);
  const sub = rest[0];
  switch (sub) {
    case 'devices':
    case 'version':
    case 'get-state':
    case 'get-serialno':
    case 'get-devpath':
    case 'help':
      return true;
    case 'logcat':
      // -c clears the device's log, -f writes a file on it, -G/-P change the buffer and its prune list.
      return !rest.some((x) => /^-[a-zA-Z]*[cfGPrn]|^--(clear|file|buffer-size|prune|rotate)/.test(x));
    case 'pull':
      return adbPullToTemp(rest.filter((x) => !x.startsWith('-')), ctx);
    case 'shell': {
      const inner = rest.slice(1);
      if (inner.length === 0 || inner[0]!.startsWith('-')) return false;
      // `adb shell "getprop x"` hands the device's shell one string: read it only when it is plain words, with
      // nothing its shell would interpret (separators, substitutions, redirections, quotes, globs).
      const text = inner.join(' ');
      if (/[;&|$`<>()\\'"*?{}[\]~!#\n]/.test(text)) return false;
      return adbShellRead(text.split(/\s+/).filter((w) => w !== ''));
    }
    default:
      return false;
  }
};

// ---------------------------------------------------------------------------------------------------------
// macOS and Linux system inspection

/** `defaults read|read-type|domains|find` print preferences; write, delete, import and export change or copy them. */
const defaults: Check = (a) => ['read', 'read-type', 'domains', 'find', 'help'].includes(a.find((x) => !x.startsWith('-')) ?? '');

/** `plutil -p` / `-lint` / `-type` print; -convert, -insert, -replace, -remove rewrite the file in place. */
const plutil: Check = (a) => a.some((x) => /^-(p|lint|help|type)$/.test(x)) && a.every((x) => !x.startsWith('-') || /^-(p|lint|help|type|s)$/.test(x));

/** `diskutil list|info|activity`, `diskutil apfs list`: erase, partition, mount and repair act. */
const diskutil: Check = (a) => {
  const ops = a.filter((x) => !x.startsWith('-'));
  return ['list', 'info', 'information', 'activity'].includes(ops[0] ?? '') || (ops[0] === 'apfs' && ['list', 'listCryptoUsers', 'listSnapshots', 'listVolumeGroups'].includes(ops[1] ?? ''));
};

/** `/usr/libexec/java_home -V`, `-v 17`: prints a path. --exec runs the command that follows. */
const javaHome: Check = (a) => a.every((x) => /^(-V|--verbose|-v|--version|-a|--arch|-F|--failfast|-X|--xml|-h|--help|[\w.+*-]+)$/.test(x)) && !a.some((x) => /^-?-exec$/.test(x));

/** `xcrun simctl list`, `xcrun --show-sdk-path`, `xcrun --find clang`: xcrun otherwise runs the tool it names. */
const xcrun: Check = (a) => {
  const ops = a.filter((x) => !x.startsWith('-'));
  if (ops[0] === 'simctl') return ops[1] === 'list' || ops[1] === 'help';
  return a.length > 0 && a.every((x, i) => /^--(show-sdk-path|show-sdk-version|show-sdk-build-version|show-sdk-platform-path|show-sdk-platform-version|find|sdk|version|help)$|^-(f|h)$/.test(x) || /^--(sdk|find)$|^-f$/.test(a[i - 1] ?? ''));
};


export const READ_ONLY_CLIS: Readonly<Record<string, Check>> = {
  gh,
  glab,
  adb,
  // macOS
  system_profiler: () => true,
  // Spotlight's index: file names and metadata, as `find` and `locate` give them.
  mdfind: () => true,
  defaults,
  plutil,
  diskutil,
  java_home: javaHome,
  xcrun,
  // Linux
  pg_lsclusters: () => true,
  // Windows' `where` (reached through Git Bash) and zsh's builtin: both only look a program up, like `which`.
  where: () => true,
  // Windows' grep (`findstr /C:"x" file`) and process list: no option of either writes or runs anything.
  // (taskkill is process control: sys.kill-* rules, not here.)
  findstr: () => true,
  tasklist: () => true,
};
