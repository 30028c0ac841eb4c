// Path classification: where a path points, relative to the project, the home directory and the system.

import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { tmpdir as osTmpdir } from 'node:os';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';
import { AsimovError } from '../core/errors.ts';
import { resolvePath } from '../core/abs-path.ts';

export type PathClass =
  | 'root'            // exactly `/`
  | 'system'          // /etc, /usr, /bin, /sbin, /lib*, /boot, /var (not /var/tmp), /opt, /srv, /sys, /proc, /snap, macOS /System /Library /Applications /private/etc
  | 'device'          // a block/char device other than the harmless ones (/dev/sda, /dev/nvme0n1, /dev/mem…)
  | 'null-device'     // /dev/null, /dev/zero, /dev/stdout, /dev/stderr, /dev/tty, /dev/fd/*, /dev/random, /dev/urandom
  | 'home-root'       // exactly the home directory
  | 'home'            // under the home directory (and not inside the project)
  | 'credentials'     // credential stores and secrets files, anywhere (~/.ssh, ~/.aws, .env, *.pem, …)
  | 'shell-init'      // ~/.bashrc, ~/.zshrc, ~/.profile, /etc/profile…
  | 'persistence'     // authorized_keys, sudoers, cron, systemd units, launchd agents, git hooks dirs outside project
  | 'agent-config'    // .claude/, .gemini/, .codex/, .cursor/, .mcp.json, hook configs, settings…: what an agent may do
  | 'agent-instructions' // CLAUDE.md, AGENTS.md, GEMINI.md, .cursor/rules/, .claude/commands/, skills…: what it is asked to do
  | 'agent-plan'      // plan files agents write themselves (~/.claude/plans/*.md, .cursor/plans/)
  | 'asimov-config'   // .asimov/, ~/.config/asimov/, /etc/asimov/
  | 'git-internals'   // <project>/.git/ (config, hooks)
  | 'project'         // inside the project root (the root itself included)
  | 'project-root'    // exactly the project root
  | 'build-artifact'  // inside the project under node_modules, dist, build, coverage, …
  | 'temp'            // /tmp, /var/tmp, $TMPDIR
  | 'outside'         // not inside the project and not temp
  | 'protected'       // matched by the policy's protected paths
  | 'dynamic';        // cannot be resolved statically ($VAR, $(…), glob in a parent component)

export interface PathInfo {
  /** The path as given. */
  input: string;
  /** Absolute, normalized (`..` and `.` resolved, `~` expanded, symlinks resolved where they exist); null when dynamic. */
  abs: string | null;
  classes: ReadonlySet<PathClass>;
}

/*
 * How the classifier decides (the choices the brief left open are marked DECIDED):
 *
 * - Expansion: `~`, `~/x`, `~+` (bash's $PWD), `~root`, `$HOME`/`${HOME}`, `$PWD`/`${PWD}`, `$TMPDIR`/`${TMPDIR}`.
 *   DECIDED: `~name` for any other user (and `~-`) is dynamic (abs null) with classes `home` + `outside`, and
 *   the rest of the path is classified as if relative to a home directory (`~bob/.ssh/id_rsa` is `credentials`).
 *   We do not guess /home/bob: the account database is not ours to read and the guess would be wrong on macOS.
 * - Any other `$` or backtick makes the path dynamic. What is still known is kept: the literal head before the
 *   first unknown component contributes the classes of "something inside that directory" (`/etc/$X` is
 *   `system`), and the literal tail after the last unknown component contributes the name-based classes
 *   (`$X/.ssh/id_rsa` is `credentials`, `$X/.claude/settings.json` is `agent-config`). A relative path that
 *   starts with a variable (`$X/a`) has no known head: the variable may hold an absolute path.
 * - Globs (`*`, `?`, `[…]`, extglob): in the last component only, the path is the directory's content
 *   (`/etc/*` is `system`) plus the classes of well-known sensitive names the pattern can match
 *   (`~/.bash*` is `shell-init`, `*.pem` is `credentials`). DECIDED: a pattern made only of `*`/`?` is not
 *   probed against those names (else `cat *` in every project would read as credentials), but such a
 *   pattern, and `.*`, takes the directory's exact classes: `/*` is `root`, `~/*` is `home-root`, `./*` is
 *   `project-root` (all of a directory's entries are as much as the directory). A glob in a higher
 *   component is dynamic.
 * - Symlinks: the deepest existing ancestor is canonicalized with realpath and the rest appended. Placement
 *   classes (project, outside, home, temp, build-artifact…) come from the resolved path only: that is where
 *   the bytes land. Every other class is the union of the lexical and the resolved path's classes (a link
 *   named `.claude/x` stays agent-config even when it points into the project).
 * - Name classes (credentials, agent-config, shell-init…) match case-insensitively: on macOS and Windows
 *   `claude.md` is the same file as `CLAUDE.md`. Placement (project, home) is compared exactly.
 * - `system` is not given to paths inside the project, the home directory or a temp dir when those lie
 *   below a system prefix (a project in /srv/app or /usr/src/app, a home in /var/lib/jenkins), unless that
 *   root is itself `/` or a system prefix.
 * - Protected globs: `~` expands to home; a pattern without `/` matches the base name at any depth; other
 *   relative patterns are anchored at the project root; a pattern also protects everything under what it
 *   names. Dynamic paths are never `protected` (they are `dynamic`, which no rule allows).
 * - /dev and /proc are classified lexically only (realpath of /dev/stdout is a pipe or a tty, not a file).
 */

export interface PathClassifierOptions {
  /** Directory relative paths resolve against. Absolute. */
  cwd: string;
  /** Root of the project. Absolute. */
  projectRoot: string;
  /** The user's home directory. Absolute. */
  home: string;
  /** Globs from the policy whose matches are `protected`. */
  protectedPaths?: readonly string[];
  /**
   * asimov's own directories where the environment puts them (`$XDG_CONFIG_HOME/asimov`, the audit log named
   * by ASIMOV_AUDIT_LOG…: asimovDirsFromEnv): `asimov-config` like `~/.config/asimov`, so that moving them
   * out of the home directory does not leave them writable by an agent. Absolute.
   */
  asimovDirs?: readonly string[];
  /** The temp directory ($TMPDIR); defaults to os.tmpdir(). */
  tmpdir?: string;
  /**
   * Every directory counted as `temp`. Defaults to /tmp, /var/tmp, /private/tmp, /private/var/tmp, /dev/shm
   * and `tmpdir`. (Tests that build a fake machine under /tmp set it, so that /tmp is not temp there.)
   */
  tempDirs?: readonly string[];
}

/**
 * `literal`: the path is taken as written, as file tools take their paths: no glob, no variable, no command
 * substitution (a Write of Next.js's `app/[id]/page.tsx` or Remix's `routes/$noteId.tsx` names that very file).
 * A leading `~`, `$HOME`, `$PWD` or `$TMPDIR` is still expanded: the stricter reading, should a client do it.
 */
export type PathClassifier = (p: string, literal?: boolean) => PathInfo;

/** Classes that say where a path is placed, taken from the resolved path only. */
export const PLACEMENT_CLASSES: ReadonlySet<PathClass> = new Set<PathClass>([
  'project', 'project-root', 'build-artifact', 'temp', 'home', 'home-root', 'outside',
]);

/** Longer inputs are not paths any system accepts (PATH_MAX is 4096): dynamic, never resolved. */
const MAX_PATH_CHARS = 4096;
/** Results cached per classifier instance (a call classifies the same few paths several times). */
const MAX_CACHE = 1024;
/** Symlinks followed by hand (dangling ones) before giving up, as the kernel's own limit (40). */
const MAX_LINK_HOPS = 40;

/** A name no pattern matches: classifying `dir/<this>` gives the classes of "something inside dir". */
const CHILD = '\u0001asimov-child\u0001';

/** Component-aware containment: `/proj` contains `/proj` and `/proj/a`, never `/proj-evil`. */
export function isWithin(parent: string, child: string): boolean {
  if (parent === '/') return child.startsWith('/');
  return child === parent || (child.startsWith(parent) && child.charCodeAt(parent.length) === 47 /* / */);
}

/** `child` relative to `parent` ('' when equal), or null when not within it. */
function relWithin(parent: string, child: string): string | null {
  if (!isWithin(parent, child)) return null;
  if (child === parent) return '';
  return parent === '/' ? child.slice(1) : child.slice(parent.length + 1);
}

// ---------------------------------------------------------------------------------------------------------
// The lists. Home patterns are relative to a home directory, absolute patterns to `/`: picomatch globs
// (dot: true, nocase: true), where `dir/**` also matches `dir` itself. "Anywhere" entries are runs of whole
// path components found at any depth (`.github/hooks` matches `/a/.github/hooks/x`), compared without case.

type NameClass = 'credentials' | 'shell-init' | 'persistence' | 'agent-config' | 'agent-instructions' | 'agent-plan' | 'asimov-config';

interface NameSpec {
  home?: string[];
  /** Home paths the `home` patterns would match that do not belong to the class. */
  homeExcept?: string[];
  abs?: string[];
  anywhere?: string[];
}


const BROWSER_SECRETS = '{Login Data*,Cookies,Web Data,logins.json,key3.db,key4.db,cookies.sqlite}';

const NAME_SPECS: Record<NameClass, NameSpec> = {
  credentials: {
    home: [
      '.ssh/**', '.aws/**', '.gnupg/**', '.config/gcloud/**', '.azure/**', '.kube/config', '.docker/config.json',
      '.netrc', '.npmrc', '.yarnrc.yml', '.pypirc', '.git-credentials', '.config/gh/hosts.yml', '.config/hub',
      '.cargo/credentials*', '.terraform.d/credentials*', 'Library/Keychains/**', '.password-store/**',
      '.local/share/keyrings/**', '.gemini/oauth_creds.json', '.codex/auth.json',
      // Agents' and MCP clients' own configs and logins: OAuth tokens, API keys, MCP servers' env tokens.
      // (Also agent-config, so writing them stays hard_deny; this makes READING them a credential read.)
      // Project-level MCP files (.mcp.json, .cursor/mcp.json) are not here: they are committed to repos,
      // refer to tokens by `${env:…}`, and reading them is ordinary project work.
      '.claude.json', '.claude.json.backup*', '.cursor/mcp.json', '.config/Claude/claude_desktop_config.json',
      'Library/Application Support/Claude/claude_desktop_config.json', '.codeium/windsurf/mcp_config.json',
      '.codeium/mcp_config.json', '.local/share/opencode/auth.json', '.config/opencode/auth.json',
      '.qwen/oauth_creds.json', '.config/github-copilot/{apps,hosts}.json', '.copilot/mcp-config.json',
      `.config/{google-chrome,chromium,BraveSoftware,microsoft-edge,vivaldi,opera}/**/${BROWSER_SECRETS}`,
      `.mozilla/firefox/**/${BROWSER_SECRETS}`,
      `Library/Application Support/{Google/Chrome,Chromium,BraveSoftware,Microsoft Edge,Firefox}/**/${BROWSER_SECRETS}`,
      'Library/Cookies/**',
    ],
    // Public keys are meant to be handed out ("print my public key for GitHub").
    homeExcept: ['.ssh/*.pub'],
    abs: [
      '/etc/shadow*', '/etc/gshadow*', '/etc/master.passwd', '/etc/sudoers*', '/etc/sudoers.d/**',
      '/etc/ssh/ssh_host_*_key', '/etc/ssl/private/**', '/proc/*/environ',
      // Secrets a container is given: Kubernetes service-account tokens, Docker and Compose secrets.
      '/var/run/secrets/**', '/run/secrets/**',
    ],
    anywhere: ['.password-store'],
  },
  'shell-init': {
    home: [
      '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.bash_aliases', '.profile',
      '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.config/fish/**', '.config/powershell/**',
    ],
    abs: [
      '/etc/profile', '/etc/profile.d/**', '/etc/bash.bashrc', '/etc/bashrc', '/etc/zsh/**', '/etc/zshrc',
      '/etc/zshenv', '/etc/zprofile', '/etc/zlogin', '/etc/environment',
    ],
  },
  persistence: {
    home: [
      '.ssh/authorized_keys*', '.ssh/rc', '.config/systemd/**', 'Library/LaunchAgents/**', '.config/autostart/**',
      '.gitconfig', '.config/git/config',
    ],
    abs: [
      '/etc/sudoers*', '/etc/sudoers.d/**', '/etc/cron*', '/etc/cron*/**', '/var/spool/cron/**', '/var/at/**',
      '/usr/lib/cron/**', '/etc/systemd/**', '/lib/systemd/**', '/usr/lib/systemd/**', '/etc/init.d/**',
      '/etc/rc.local', '/etc/ld.so.preload', '/etc/xdg/autostart/**', '/etc/pam.d/**', '/etc/ssh/sshd_config*',
      '/etc/gitconfig', '/Library/LaunchAgents/**', '/Library/LaunchDaemons/**',
    ],
  },
  'agent-config': {
    home: ['.config/opencode/**', '.cline/**', '.codeium/**', '.claude.json*', '.config/goose/**', '.grok/**'],
    abs: [
      '/etc/claude-code/**', '/Library/Application Support/ClaudeCode/**', '/etc/gemini-cli/**', '/etc/codex/**',
      '/etc/cursor/**', '/Library/Application Support/Cursor/**', '/etc/windsurf/**',
      '/Library/Application Support/Windsurf/**', '/etc/qwen-code/**',
    ],
    anywhere: [
      '.claude', '.gemini', '.codex', '.cursor', '.windsurf', '.github/hooks', '.copilot', '.qwen', '.factory', '.kimi',
      '.mcp.json', '.vscode/mcp.json', '.opencode', 'opencode.json', 'opencode.jsonc',
      // Goose loads hooks from plugins under .agents/plugins (home and project); Kimi Code's own directory.
      '.agents', '.kimi-code',
    ],
  },
  // Instruction and memory files: what users ask agents to edit ("add this to CLAUDE.md"), judged apart from
  // agent-config (which they sit inside of: `.claude/commands/x.md` is both, and instructions win, see
  // INSTRUCTIONS_OVER_CONFIG). What changes what an agent MAY do (hooks, permissions, MCP servers, settings)
  // stays agent-config.
  'agent-instructions': {
    home: ['.claude/CLAUDE.md', '.claude/commands/**', '.claude/agents/**', '.claude/skills/**', '.claude/output-styles/**', '.gemini/GEMINI.md', '.gemini/commands/**', '.codex/AGENTS.md', '.codex/prompts/**'],
    anywhere: [
      'CLAUDE.md', 'CLAUDE.local.md', 'AGENTS.md', 'AGENTS.override.md', 'GEMINI.md', 'QWEN.md', '.cursorrules',
      '.windsurfrules', '.clinerules', '.github/copilot-instructions.md', '.github/instructions', '.cursor/rules',
      '.cursor/commands', '.claude/commands', '.claude/agents', '.claude/skills', '.claude/output-styles',
      '.windsurf/rules', '.gemini/commands', '.qwen/commands', '.kimi/commands', '.opencode/command', '.opencode/agent',
    ],
  },
  // Plan files agents write for themselves in plan mode: their own scratch paper, not configuration.
  'agent-plan': {
    home: ['.claude/plans/*.md', '.cursor/plans/**'],
    anywhere: ['.cursor/plans'],
  },
  'asimov-config': {
    // The judge's cache and loop-guard state too: a forged cache entry would be a judge's allow.
    home: ['.config/asimov/**', '.local/state/asimov/**', '.cache/asimov/**'],
    // The daemon's socket directories too (src/cli/daemon/socket-path.ts): a process planted there would answer
    // every hook. $XDG_RUNTIME_DIR is /run/user/<uid> on systemd machines.
    abs: ['/etc/asimov/**', '/run/user/*/asimov/**', '/tmp/asimov-+([0-9])/**'],
    // groundRules.md: the seeds' name for the judge's ground rules, read from the project root.
    anywhere: ['.asimov', 'groundRules.md'],
  },
};

/**
 * INSTRUCTIONS_OVER_CONFIG: a path that is an instruction or plan file is not agent configuration, though it
 * sits in the agent's directory (`.claude/commands/review.md` is inside `.claude/`). Hooks, settings and MCP
 * definitions never match the instruction or plan lists, so they stay agent-config.
 */
function instructionsOverConfig(out: Set<PathClass>): void {
  if (out.has('agent-config') && (out.has('agent-instructions') || out.has('agent-plan'))) out.delete('agent-config');
}

/** Secrets recognised by their base name alone, anywhere (lower-cased base name in). */
function isSecretBasename(b: string): boolean {
  if (b === '.env') return true;
  if (b.startsWith('.env.')) return !ENV_NOT_SECRET.has(b.slice(5));
  if (SECRET_NAMES.has(b)) return true;
  if (SECRET_SUFFIXES.some((s) => b.endsWith(s) && b.length > s.length)) return true;
  if (/^id_(rsa|dsa|ecdsa|ed25519)(_sk)?/.test(b)) return !b.endsWith('.pub');
  return b.includes('secret') && /\.(json|ya?ml)$/.test(b);
}
const ENV_NOT_SECRET = new Set(['example', 'sample', 'template', 'dist']);
const SECRET_NAMES = new Set([
  'credentials.json', '.credentials.json', '.htpasswd', '.vault-token', '.pgpass', '.git-credentials', '.netrc',
]);
const SECRET_SUFFIXES = ['.pem', '.key', '.p12', '.pfx', '.keystore', '.jks'];

/** Names a last-component glob is tried against: the sensitive names it might expand to. */
const GLOB_PROBES = [
  '.env', '.env.local', '.env.production', 'id_rsa', 'id_ed25519', 'id_ecdsa', 'server.pem', 'server.key',
  'cert.p12', 'cert.pfx', 'credentials.json', '.netrc', '.npmrc', '.pypirc', '.git-credentials', '.bashrc',
  '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.gitconfig', '.ssh',
  '.aws', '.gnupg', '.kube', '.docker', '.azure', '.claude', '.claude.json', 'CLAUDE.md', 'AGENTS.md',
  'GEMINI.md', '.gemini', '.codex', '.cursor', '.mcp.json', '.asimov', '.git', 'authorized_keys', 'shadow',
  'gshadow', 'sudoers', 'sudoers.d', 'crontab', 'cron.d', 'profile', 'profile.d', 'bash.bashrc', 'systemd',
  'Login Data', 'Cookies', 'logins.json', 'environ',
];

const SYSTEM_PREFIXES = [
  '/etc', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/boot', '/var', '/opt', '/srv',
  '/sys', '/proc', '/snap', '/system', '/library', '/applications', '/private/etc', '/private/var',
];

const NULL_DEVICES = new Set([
  '/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/stdin', '/dev/stdout',
  '/dev/stderr', '/dev/tty', '/proc/self/fd/0', '/proc/self/fd/1', '/proc/self/fd/2',
]);

const FIXED_TEMP_ROOTS = ['/tmp', '/var/tmp', '/private/tmp', '/private/var/tmp', '/dev/shm'];

/** Directory names whose content is regenerated by tools (component-aware, at any depth in the project). */
const BUILD_DIRS = new Set([
  'node_modules', 'dist', 'build', 'out', 'coverage', 'target', '.next', '.nuxt', '.svelte-kit', '.cache',
  '.turbo', '.parcel-cache', '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.tox', '.venv',
  'venv', '.gradle',
  // Test runners' reports, rewritten on every run (Playwright empties test-results itself before each run).
  'test-results', 'playwright-report', 'blob-report', 'htmlcov', '.nyc_output', '.dart_tool', '.angular', 'storybook-static', '.docusaurus',
]);

/** Other users' home directories, whose content is classified like ours (`/root/.ssh/authorized_keys`). */
// Windows homes as Git Bash and WSL spell them (`/c/Users/me`, `/mnt/c/Users/me`): `C:\Users\me\.aws\credentials`
// reaches a bash tool from Windows agents, and is as much a credential file as `~/.aws/credentials`.
const OTHER_HOME = /^(?:\/root|\/var\/root|\/home\/[^/]+|\/Users\/[^/]+|\/(?:mnt\/)?[a-z]\/Users\/[^/]+)(?=\/|$)/i;

const PM_NAMES = { dot: true, nocase: true } as const;

interface Compiled {
  cls: NameClass;
  home: ((rel: string) => boolean) | null;
  homeExcept: ((rel: string) => boolean) | null;
  abs: ((abs: string) => boolean) | null;
  anywhere: ((comps: readonly string[]) => boolean) | null;
}

/**
 * One regular expression for a list of globs: far cheaper to test than picomatch's per-pattern matchers.
 * Compiled on first use, not at load: a hook process that never meets a path of that kind (most calls)
 * should not pay the few milliseconds picomatch takes for all of them.
 */
function compileGlobs(list: readonly string[], opts: { dot: boolean; nocase?: boolean }): (s: string) => boolean {
  let re: RegExp | undefined;
  return (s) => {
    re ??= new RegExp(list.map((g) => `(?:${picomatch.makeRe(g, opts).source})`).join('|'), opts.nocase ? 'i' : '');
    return re.test(s);
  };
}

/** A matcher for runs of components (lower-cased) found anywhere in a lower-cased component list. */
function componentRuns(list: readonly string[]): (comps: readonly string[]) => boolean {
  const runs = list.map((r) => r.toLowerCase().split('/'));
  const firsts = new Set(runs.map((r) => r[0]!));
  return (comps) => {
    for (let i = 0; i < comps.length; i++) {
      if (!firsts.has(comps[i]!)) continue;
      for (const run of runs) {
        if (run.every((part, j) => comps[i + j] === part)) return true;
      }
    }
    return false;
  };
}

const COMPILED: Compiled[] = (Object.keys(NAME_SPECS) as NameClass[]).map((cls) => {
  const s = NAME_SPECS[cls];
  const m = (list?: string[]) => (list && list.length > 0 ? compileGlobs(list, PM_NAMES) : null);
  return { cls, home: m(s.home), homeExcept: m(s.homeExcept), abs: m(s.abs), anywhere: s.anywhere ? componentRuns(s.anywhere) : null };
});

function homeMatch(c: Compiled, rel: string): boolean {
  return c.home !== null && c.home(rel) && !(c.homeExcept !== null && c.homeExcept(rel));
}

const GIT_OUTSIDE_PERSISTENCE = compileGlobs(['**/.git/hooks/**', '**/.git/config'], PM_NAMES);

/** Glob characters a shell would expand (extglob included). */
const GLOB_RE = /[*?]|\[[^\]]*\]|[@!+]\(/;
// A `$` that cannot begin an expansion is a literal character to bash too (Remix's `routes/$.tsx`).
const DYNAMIC_RE = /`|\$(?:[A-Za-z0-9_{(@*#?$!'"-]|\[)/;
/** A component that starts with an expansion (its own location is unknown, not only its name). */
const DYNAMIC_START_RE = new RegExp(`^(?:${DYNAMIC_RE.source})`);
const ONLY_WILDCARDS = /^[*?]+$/;
/** Patterns that expand to every entry (or every dot-entry) of their directory. */
const EVERYTHING = /^\.?[*?]*\*[*?]*$/;
/** Classes that name one directory exactly, inherited by a glob over all of its entries. */
const EXACT_CLASSES: readonly PathClass[] = ['root', 'home-root', 'project-root'];

// ---------------------------------------------------------------------------------------------------------

/**
 * Canonical forms of the roots (project, home, temp dirs), kept for a few seconds across classifiers:
 * a gate builds a classifier per call, and the roots are the user's setup, not the agent's, so they do
 * not change between two calls. Paths the agent names are never cached across calls: a symlink it made
 * in the previous call must be seen.
 */
const ROOT_TTL_MS = 5000;
/**
 * A root's forms; for the project root also its realpath and the identity (`dev:ino`, from lstat) of what
 * its path named when that realpath was found.
 */
interface RootEntry {
  forms: string[];
  real?: { path: string; id: string } | undefined;
}
const rootCache = new Map<string, RootEntry & { at: number }>();
let defaultTmp: string | undefined;
/**
 * Classes of resolved path strings, by roots (machine key) and then by kind and path (see `memoized` below);
 * bounded. Two levels so that a lookup hashes the short `kind + path`, not the long roots string each time.
 */
const classMemo = new Map<string, Map<string, PathClass[]>>();
let classMemoSize = 0;
const CLASS_MEMO_MAX = 20_000;

function cachedRoot(p: string, compute: () => RootEntry): RootEntry {
  const now = Date.now();
  const hit = rootCache.get(p);
  if (hit && now - hit.at < ROOT_TTL_MS) return hit;
  const entry = { ...compute(), at: now };
  if (rootCache.size > 256) rootCache.clear();
  rootCache.set(p, entry);
  return entry;
}

function statId(st: Stats): string {
  return `${st.dev}:${st.ino}`;
}

/** What a classifier derives from its roots alone: pure strings and a compiled matcher, no file system. */
interface RootSetup {
  projectRoots: readonly string[];
  homeRoots: readonly string[];
  tempForms: readonly (readonly string[])[];
  fixedTemp: boolean;
  protectedList: readonly string[];
  home: string;
  tempRoots: string[];
  /** Roots under which `system` is not given: only those strictly below a system prefix. */
  exempt: string[];
  protectedMatch: (abs: string) => boolean;
  asimovDirs: readonly string[];
  /** What the name classes of a path depend on besides the path itself. */
  machineKey: string;
}
let lastSetup: RootSetup | undefined;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The derived root setup, reused while the root forms are the very arrays `cachedRoot` handed out last time
 * (so it is never older than they are) and the other inputs are equal: a gate builds a classifier per call
 * with the same roots, and deriving these again cost about as much as classifying a path.
 */
function rootSetup(
  projectRoots: readonly string[],
  homeRoots: readonly string[],
  tempForms: readonly (readonly string[])[],
  fixedTemp: boolean,
  protectedList: readonly string[],
  home: string,
  asimovDirs: readonly string[],
): RootSetup {
  const s = lastSetup;
  if (
    s !== undefined && s.projectRoots === projectRoots && s.homeRoots === homeRoots && s.fixedTemp === fixedTemp &&
    s.home === home && s.tempForms.length === tempForms.length && s.tempForms.every((f, i) => f === tempForms[i]) &&
    sameList(s.protectedList, protectedList) && sameList(s.asimovDirs, asimovDirs)
  ) {
    return s;
  }
  const tempRoots = [...new Set(fixedTemp ? [...FIXED_TEMP_ROOTS, ...tempForms.flat()] : tempForms.flat())];
  const exempt = [...projectRoots, ...homeRoots, ...tempRoots].filter(
    (r) => r !== '/' && !SYSTEM_PREFIXES.includes(r.toLowerCase()),
  );
  const protectedMatch = compileProtected(protectedList, home, projectRoots);
  const machineKey = [projectRoots.join('\u0001'), homeRoots.join('\u0001'), tempRoots.join('\u0001'), protectedList.join('\u0001'), asimovDirs.join('\u0001')].join('\u0002');
  const fresh: RootSetup = {
    projectRoots, homeRoots, tempForms, fixedTemp, protectedList: [...protectedList], home, tempRoots, exempt, protectedMatch,
    asimovDirs: [...asimovDirs], machineKey,
  };
  lastSetup = fresh;
  return fresh;
}

/** Throws AsimovError('bad_input') unless `v` is an absolute path; `key` names it in the message. */
export function requireAbsolute(key: string, v: unknown): void {
  if (typeof v !== 'string' || !v.startsWith('/')) {
    throw new AsimovError('bad_input', `path classifier: ${key} must be an absolute path, got ${JSON.stringify(v)}`);
  }
}

export function createPathClassifier(opts: PathClassifierOptions): PathClassifier {
  requireAbsolute('cwd', opts.cwd);
  requireAbsolute('projectRoot', opts.projectRoot);
  requireAbsolute('home', opts.home);
  const cwd = normalized(opts.cwd);
  let cwdDepth: number | undefined;
  const home = stripSlash(normalized(opts.home));
  defaultTmp ??= osTmpdir(); // reads the environment each call; it does not change under a running gate
  const tmp = stripSlash(normalized(opts.tmpdir && opts.tmpdir.startsWith('/') ? opts.tmpdir : defaultTmp));

  // The project root's path and trusted realpath (set below, once the root cache has been consulted).
  const projectRootPath = stripSlash(normalized(opts.projectRoot));
  let projectRootReal: { path: string; id: string } | undefined;
  const statCache = new Map<string, Stats | null>();
  /**
   * lstat of a path, or null when nothing is there (or it cannot be looked at: ENOTDIR, EACCES, a name
   * too long); cached per instance. One lstat answers both questions asked of a path the agent names,
   * whether it exists (for `real`) and whether it is a symlink (for `readLink`), and a missing path
   * builds no Stats object and throws nothing.
   */
  const lstatOf = (p: string): Stats | null => {
    const hit = statCache.get(p);
    if (hit !== undefined) return hit;
    let st: Stats | null;
    // Nothing can be under a parent this call found missing, unreadable, or a file (not a symlink): the kernel
    // would walk through that parent first and fail there. `mkdir -p d/{a..z}` asks about d once, not 26 times.
    const slash = p.lastIndexOf('/');
    const parent = slash > 0 ? statCache.get(p.slice(0, slash)) : undefined;
    if (parent === null || (parent !== undefined && !parent.isDirectory() && !parent.isSymbolicLink())) {
      statCache.set(p, null);
      return null;
    }
    try {
      st = lstatSync(p, { throwIfNoEntry: false }) ?? null;
    } catch {
      st = null;
    }
    statCache.set(p, st);
    return st;
  };
  const realCache = new Map<string, string | null>();
  /**
   * realpath of an existing path, or null; cached per instance. An entry that is not a symlink, in a
   * directory whose realpath is known already (the project root's is, from the start), is that
   * realpath plus its name: no realpath call. Otherwise the kernel resolves it (a dangling link or a
   * loop throws: null, as for a missing path).
   */
  const real = (p: string): string | null => {
    const hit = realCache.get(p);
    if (hit !== undefined) return hit;
    let r: string | null = null;
    const st = lstatOf(p);
    if (st !== null && p === projectRootPath && projectRootReal !== undefined && statId(st) === projectRootReal.id) {
      // The project root's realpath from the root cache, while its path still names the same thing: the
      // lstat is needed anyway, and a root swapped for a symlink (or moved) since has another identity.
      r = projectRootReal.path;
    } else if (st !== null) {
      const slash = p.lastIndexOf('/');
      const name = p.slice(slash + 1);
      const parentReal = st.isSymbolicLink() || name === '' || name === '.' || name === '..'
        ? undefined
        : parentRealOf(slash === 0 ? '/' : p.slice(0, slash));
      if (parentReal) {
        r = parentReal === '/' ? '/' + name : parentReal + '/' + name;
      } else {
        try {
          r = realpathSync.native(p);
        } catch {
          r = null; // a dangling link, a loop: not a place a path can resolve through
        }
      }
    }
    realCache.set(p, r);
    return r;
  };
  /** A directory's realpath when known already, or when it is the project root (one lstat, see above). */
  const parentRealOf = (dir: string): string | null | undefined =>
    realCache.get(dir) ?? (dir === projectRootPath && projectRootReal !== undefined ? real(dir) : undefined);
  const linkCache = new Map<string, string | null>();
  /** The target of a symlink (dangling ones included), or null when the path is not a symlink. */
  const readLink = (p: string): string | null => {
    const hit = linkCache.get(p);
    if (hit !== undefined) return hit;
    let r: string | null = null;
    if (lstatOf(p)?.isSymbolicLink()) {
      try {
        r = readlinkSync(p);
      } catch {
        r = null;
      }
    }
    linkCache.set(p, r);
    return r;
  };
  /**
   * Canonicalize the deepest existing ancestor of a raw absolute path and append the rest. When the first
   * missing component is a dangling symlink, follow it: a write through `proj/x -> ~/.bashrc` creates
   * ~/.bashrc even though that file does not exist yet.
   */
  const resolveReal = (rawAbs: string, lexical: string, hops = 0): string => {
    if (isWithin('/dev', lexical) || isWithin('/proc', lexical)) return lexical;
    const comps = rawAbs.split('/').filter((c) => c !== '');
    // Trailing `.` components are not probed: `dir/.` resolves as `dir` does when dir is a directory, and
    // when it is not, the loop falls back to `dir` anyway. Starting at `dir` gives the same result and
    // shares `dir`'s realpath with the other paths of the call (`find . -name x > out.txt`).
    let top = comps.length;
    while (top > 0 && comps[top - 1] === '.') top--;
    for (let i = top; i >= 0; i--) {
      const prefix = '/' + comps.slice(0, i).join('/');
      const r = real(prefix);
      if (r === null) continue;
      const next = comps[i];
      if (next !== undefined && next !== '..' && next !== '.' && hops < MAX_LINK_HOPS) {
        const target = readLink(posix.join(r, next));
        if (target !== null) {
          const raw = posix.join(target.startsWith('/') ? '/' : r, target, ...comps.slice(i + 1));
          return resolveReal(raw, resolvePath(raw), hops + 1);
        }
      }
      const rest = comps.slice(i).join('/');
      return rest ? resolvePath(r, rest) : r;
    }
    return lexical;
  };
  const bothForms = (p: string): string[] => {
    const r = resolveReal(p, p);
    return r === p ? [p] : [p, r];
  };
  /**
   * A root's forms, from the cache. Only the forms: a home or temp root's own realpath is found afresh per call
   * when a path resolves through it. The project root's is kept too, but used only while lstat finds the same
   * file there (see `real`).
   */
  const rootForms = (p: string): string[] => cachedRoot(p, () => ({ forms: bothForms(p) })).forms;

  // The project root: most paths an agent names that do not exist yet resolve through it (see `real`).
  const projectEntry = cachedRoot(projectRootPath, () => {
    const forms = bothForms(projectRootPath);
    const r = real(projectRootPath);
    const st = lstatOf(projectRootPath);
    return { forms, real: r !== null && st !== null ? { path: r, id: statId(st) } : undefined };
  });
  projectRootReal = projectEntry.real;
  const projectRoots = projectEntry.forms;
  const homeRoots = rootForms(home);
  const tempForms = opts.tempDirs
    ? opts.tempDirs.filter((d) => typeof d === 'string' && d.startsWith('/')).map((d) => rootForms(stripSlash(normalized(d))))
    : [rootForms(tmp)];
  const protectedList = opts.protectedPaths ?? [];
  const asimovDirList = (opts.asimovDirs ?? []).filter((d) => typeof d === 'string' && d.startsWith('/')).map((d) => stripSlash(normalized(d)));
  const setup = rootSetup(projectRoots, homeRoots, tempForms, !opts.tempDirs, protectedList, home, asimovDirList);
  const { tempRoots, exempt, protectedMatch, asimovDirs, machineKey } = setup;
  let memo = classMemo.get(machineKey);

  /** Classes that depend on where the path is placed. */
  function placement(abs: string, out: Set<PathClass>): void {
    memoized('p', abs, out, placementUncached);
  }

  function sensitive(abs: string, out: Set<PathClass>): void {
    memoized('s', abs, out, sensitiveUncached);
  }

  /**
   * The classes a resolved path string gets are a pure function of that string and the roots, so they are
   * remembered across classifiers. Only the resolution of a path (realpath, links) is done afresh per call.
   */
  function memoized(kind: string, abs: string, out: Set<PathClass>, compute: (abs: string, out: Set<PathClass>) => void): void {
    const key = kind + abs;
    let classes = memo?.get(key);
    if (classes === undefined) {
      const fresh = new Set<PathClass>();
      compute(abs, fresh);
      classes = [...fresh];
      if (classMemoSize >= CLASS_MEMO_MAX) {
        classMemo.clear();
        classMemoSize = 0;
        memo = undefined;
      }
      if (memo === undefined) {
        memo = classMemo.get(machineKey);
        if (memo === undefined) classMemo.set(machineKey, (memo = new Map()));
      }
      memo.set(key, classes);
      classMemoSize++;
    }
    for (const c of classes) out.add(c);
  }

  function placementUncached(abs: string, out: Set<PathClass>): void {
    let projRel: string | null = null;
    let projDepth = -1;
    for (const r of projectRoots) {
      projRel = relWithin(r, abs);
      if (projRel !== null) {
        projDepth = r.length;
        break;
      }
    }
    // The deepest root wins between temp, home and the project: a home directory that lies inside /tmp
    // (sandboxes, CI, test machines) is still the user's home, so `rm -rf ~/notes` there is not "removing temp
    // files"; and a project checked out under /tmp is a project, so `rm -rf .git` there is not either.
    let tempDepth = -1;
    for (const r of tempRoots) if (r.length > tempDepth && isWithin(r, abs)) tempDepth = r.length;
    let homeDepth = -1;
    for (const r of homeRoots) if (r.length > homeDepth && isWithin(r, abs)) homeDepth = r.length;
    const inTemp = tempDepth >= 0 && tempDepth >= homeDepth && tempDepth >= projDepth;
    if (projRel !== null) {
      out.add('project');
      if (projRel === '') out.add('project-root');
      const comps = projRel.split('/');
      if (comps.some((c) => BUILD_DIRS.has(c) || c.endsWith('.egg-info'))) out.add('build-artifact');
    }
    if (inTemp) out.add('temp');
    if (homeRoots.includes(abs)) out.add('home-root');
    else if (projRel === null && homeRoots.some((r) => isWithin(r, abs))) out.add('home');
    if (projRel === null && !inTemp) out.add('outside');
  }

  /** Classes that depend on what the path names (computed for both the lexical and the resolved form). */
  function sensitiveUncached(abs: string, out: Set<PathClass>): void {
    if (abs === '/') out.add('root');
    const lower = abs.toLowerCase();
    const lowerComps = lower.split('/').filter((x) => x !== '');
    let projRel: string | null = null;
    for (const r of projectRoots) {
      projRel = relWithin(r, abs);
      if (projRel !== null) break;
    }
    // devices
    if (isWithin('/dev', abs) || lower.startsWith('/proc/self/fd/')) {
      if (NULL_DEVICES.has(abs) || isWithin('/dev/fd', abs)) out.add('null-device');
      else if (!isWithin('/dev/shm', abs) && isWithin('/dev', abs)) out.add('device');
    }
    // system
    if (
      !NULL_DEVICES.has(abs) &&
      SYSTEM_PREFIXES.some((p) => isWithin(p, lower)) &&
      !tempRoots.some((r) => isWithin(r, abs)) &&
      !exempt.some((r) => isWithin(r, abs))
    ) {
      out.add('system');
    }
    // names
    const homeRels: string[] = [];
    for (const r of homeRoots) {
      const rel = relWithin(r, abs);
      if (rel !== null && rel !== '') homeRels.push(rel);
    }
    const other = OTHER_HOME.exec(abs);
    if (other && abs.length > other[0].length) homeRels.push(abs.slice(other[0].length + 1));
    for (const c of COMPILED) {
      if (
        (c.abs && c.abs(abs)) ||
        (c.anywhere && c.anywhere(lowerComps)) ||
        (c.home && homeRels.some((rel) => homeMatch(c, rel)))
      ) {
        out.add(c.cls);
      }
    }
    instructionsOverConfig(out);
    if (asimovDirs.some((d) => isWithin(d, abs))) out.add('asimov-config');
    const base = posix.basename(lower);
    if (base && isSecretBasename(base)) out.add('credentials');
    // git
    if (projRel !== null) {
      if (projRel.split('/').some((c) => c.toLowerCase() === '.git')) out.add('git-internals');
    } else if (GIT_OUTSIDE_PERSISTENCE(abs)) {
      out.add('persistence');
    }
    if (protectedMatch(abs)) out.add('protected');
  }

  /** Name classes of a literal tail seen after a dynamic part: it could sit anywhere, or right under a home. */
  function tailClasses(tail: string[], out: Set<PathClass>): void {
    if (tail.length === 0) return;
    const rel = tail.join('/');
    const lowerTail = tail.map((x) => x.toLowerCase());
    for (const c of COMPILED) {
      if ((c.anywhere && c.anywhere(lowerTail)) || homeMatch(c, rel)) out.add(c.cls);
    }
    instructionsOverConfig(out);
    const base = (tail[tail.length - 1] ?? '').toLowerCase();
    if (isSecretBasename(base)) out.add('credentials');
    if (tail.some((c) => c.toLowerCase() === '.git')) out.add('git-internals');
  }

  function classifyUncached(input: string, literal: boolean): PathInfo {
    const dynamicOnly = (): PathInfo => ({ input, abs: null, classes: new Set<PathClass>(['dynamic']) });
    if (input === '' || input.includes('\0') || input.length > MAX_PATH_CHARS) return dynamicOnly();

    let p = input;
    if (p.startsWith('file://')) {
      try {
        p = fileURLToPath(p);
      } catch {
        return dynamicOnly();
      }
    }

    // 1. Expand the prefixes we know; note when the head is another user's home (unknown location).
    let otherHome = false;
    if (p.startsWith('~')) {
      const slash = p.indexOf('/');
      const user = slash === -1 ? p.slice(1) : p.slice(1, slash);
      const rest = slash === -1 ? '' : p.slice(slash);
      if (user === '') p = home + rest;
      else if (user === '+') p = cwd + rest;
      else if (user === 'root') p = '/root' + rest;
      else {
        otherHome = true;
        p = '$' + '{~' + user + '}' + rest; // a dynamic first component with no known head
      }
    } else {
      const m = /^\$(?:\{(HOME|PWD|TMPDIR)\}|(HOME|PWD|TMPDIR)(?![A-Za-z0-9_]))(?=\/|$)/.exec(p);
      if (m) {
        const name = m[1] ?? m[2];
        const value = name === 'HOME' ? home : name === 'PWD' ? cwd : tmp;
        p = value + p.slice(m[0].length);
      }
    }

    // 2. Join with cwd without normalizing (the kernel resolves `link/..` through the link, not lexically).
    const isAbs = p.startsWith('/');
    const cwdCount = isAbs ? 0 : (cwdDepth ??= cwd.split('/').filter((c) => c !== '').length);
    const rawAbs = isAbs ? p : (cwd === '/' ? '/' : cwd + '/') + p;
    const comps = rawAbs.split('/').filter((c) => c !== '');

    let firstBad = -1;
    let lastBad = -1;
    let anyDynamic = false;
    comps.forEach((c, i) => {
      const dyn = !literal && DYNAMIC_RE.test(c);
      if (dyn || (!literal && GLOB_RE.test(c))) {
        if (firstBad === -1) firstBad = i;
        lastBad = i;
        if (dyn) anyDynamic = true;
      }
    });

    const classes = new Set<PathClass>();

    // 3. Fully literal, or a glob in the last component only.
    if (firstBad === -1 || (!anyDynamic && firstBad === comps.length - 1)) {
      const glob = firstBad === -1 ? null : (comps[comps.length - 1] as string);
      const rawTarget = glob === null ? rawAbs : '/' + [...comps.slice(0, -1), CHILD].join('/');
      const lexical = resolvePath(rawTarget);
      const resolved = resolveReal(rawTarget, lexical);
      sensitive(lexical, classes);
      if (resolved !== lexical) sensitive(resolved, classes);
      placement(resolved, classes);
      let abs = stripSlash(resolved);
      if (glob !== null) {
        const dir = posix.dirname(resolved);
        const lexDir = posix.dirname(lexical);
        abs = (dir === '/' ? '' : dir) + '/' + glob;
        if (EVERYTHING.test(glob)) {
          // Every entry of a directory is as much as the directory itself: `rm -rf /*` is `rm -rf /`.
          const own = new Set<PathClass>();
          placement(dir, own);
          sensitive(dir, own);
          for (const k of EXACT_CLASSES) if (own.has(k)) classes.add(k);
        }
        if (!ONLY_WILDCARDS.test(glob)) {
          for (const probe of probesMatching(glob)) {
            sensitive(posix.join(lexDir, probe), classes);
            if (dir !== lexDir) sensitive(posix.join(dir, probe), classes);
          }
        }
      }
      return { input, abs, classes };
    }

    // 4. Dynamic: keep what the literal head and tail tell.
    classes.add('dynamic');
    if (otherHome) {
      classes.add('home');
      classes.add('outside');
    }
    const headUnknown = otherHome || (!isAbs && firstBad === cwdCount && DYNAMIC_START_RE.test(comps[firstBad] ?? ''));
    const climbsOut = comps.slice(firstBad + 1).some((c) => c === '..');
    if (!headUnknown && !climbsOut) {
      const child = resolvePath('/' + [...comps.slice(0, firstBad), CHILD].join('/'));
      sensitive(child, classes);
      placement(child, classes);
    }
    const lastComp = comps[comps.length - 1] ?? '';
    const tail = comps.slice(lastBad + 1);
    if (climbsOut) {
      const lastUp = comps.lastIndexOf('..');
      tailClasses(comps.slice(Math.max(lastBad, lastUp) + 1), classes);
    } else {
      tailClasses(tail, classes);
    }
    if (lastBad === comps.length - 1 && !DYNAMIC_RE.test(lastComp) && !ONLY_WILDCARDS.test(lastComp)) {
      for (const probe of probesMatching(lastComp)) tailClasses([probe], classes);
    }
    return { input, abs: null, classes };
  }

  const cache = new Map<string, PathInfo>();
  return function classifyPath(p: string, literal = false): PathInfo {
    if (typeof p !== 'string') return { input: String(p), abs: null, classes: new Set<PathClass>(['dynamic']) };
    // A literal reading differs only where the path holds glob or expansion characters.
    const asLiteral = literal && (GLOB_RE.test(p) || DYNAMIC_RE.test(p));
    const key = asLiteral ? `\u0001${p}` : p;
    const hit = cache.get(key);
    if (hit) return hit;
    const info = classifyUncached(p, asLiteral);
    if (cache.size >= MAX_CACHE) cache.clear();
    cache.set(key, info);
    return info;
  };
}

/**
 * A matcher for a last-component glob as bash expands it (a leading dot must be matched explicitly).
 * A pattern picomatch cannot compile matches every probe: unsure means assume the worst.
 */
function probeMatcher(glob: string): (name: string) => boolean {
  try {
    return picomatch(glob, { dot: false, nocase: true });
  } catch {
    return () => true;
  }
}

/** The probes a last-component glob matches, kept across calls: a pure function of the text (no file system). */
const probeMemo = new Map<string, readonly string[]>();
const PROBE_MEMO_MAX = 2048;

/** The GLOB_PROBES (in their order) that `glob` matches (probeMatcher); compiling a matcher costs more than a call. */
function probesMatching(glob: string): readonly string[] {
  let hit = probeMemo.get(glob);
  if (hit === undefined) {
    const pm = probeMatcher(glob);
    hit = GLOB_PROBES.filter((probe) => pm(probe));
    if (probeMemo.size >= PROBE_MEMO_MAX) probeMemo.clear();
    probeMemo.set(glob, hit);
  }
  return hit;
}

/** posix.normalize of the few root strings a gate passes on every call, remembered (a pure string function). */
const normalizedRoots = new Map<string, string>();
function normalized(p: string): string {
  let n = normalizedRoots.get(p);
  if (n === undefined) {
    n = posix.normalize(p);
    if (normalizedRoots.size >= 256) normalizedRoots.clear();
    normalizedRoots.set(p, n);
  }
  return n;
}

function stripSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/** Compile the policy's protected globs into one matcher over absolute paths. */
/** Compiled protected-path matchers, by their inputs: a classifier is built per call, the patterns rarely change. */
const protectedCache = new Map<string, (abs: string) => boolean>();

function compileProtected(
  patterns: readonly string[],
  home: string,
  projectRoots: readonly string[],
): (abs: string) => boolean {
  if (patterns.length === 0) return () => false;
  const key = JSON.stringify([patterns, home, projectRoots]);
  let m = protectedCache.get(key);
  if (!m) {
    m = compileProtectedUncached(patterns, home, projectRoots);
    if (protectedCache.size > 64) protectedCache.clear();
    protectedCache.set(key, m);
  }
  return m;
}

function compileProtectedUncached(
  patterns: readonly string[],
  home: string,
  projectRoots: readonly string[],
): (abs: string) => boolean {
  const full: string[] = [];
  for (const raw of patterns) {
    if (typeof raw !== 'string' || raw.trim() === '') {
      throw new AsimovError('bad_input', `protected path pattern must be a non-empty string, got ${JSON.stringify(raw)}`);
    }
    let pat = stripSlash(raw.trim());
    if (pat === '~' || pat.startsWith('~/')) pat = home + pat.slice(1);
    if (!pat.includes('/')) {
      full.push(`**/${pat}`, `**/${pat}/**`);
      continue;
    }
    const anchored = pat.startsWith('/') ? [pat] : projectRoots.map((r) => posix.join(r, pat));
    for (const a of anchored) full.push(a, `${a}/**`);
  }
  try {
    return compileGlobs(full, { dot: true });
  } catch (e) {
    throw new AsimovError('bad_input', `protected path pattern is not a valid glob: ${(e as Error).message}`);
  }
}

/**
 * asimov's own directories where the environment moves them, for PathClassifierOptions.asimovDirs: the
 * `asimov` directory under each absolute XDG base directory asimov follows (config: policy and trust store;
 * state: audit log and pins; cache: judge cache and hook approvals; runtime: the daemon's socket). The
 * defaults under the home directory are covered by the name classes already; the audit log that
 * ASIMOV_AUDIT_LOG names is added by the gate, from the resolver the audit writer itself uses.
 */
export function asimovDirsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const key of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_RUNTIME_DIR'] as const) {
    const v = env[key]?.trim();
    if (v && v.startsWith('/')) out.push(posix.join(v, 'asimov'));
  }
  return out;
}
