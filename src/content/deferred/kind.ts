// Which files run code later, from the path alone. Project files (CI, hooks, package.json, Makefile, …) are
// recognised wherever they sit, not only at the project root: a nested package, a vendored repository or a
// clone in /tmp runs its files the same way once someone builds, commits or pushes there. Home and system
// files (shell init, crontab, systemd, autostart, launchd, PATH directories) are recognised at their places.

import type { DeferredKind } from './types.ts';

/** Where a path sits, for kind detection: the home directory and the project root, both absolute. */
export interface DeferredPlace {
  home: string;
  projectRoot: string;
}

/** The CI system a 'ci' file belongs to, from its path (null: unknown, e.g. a pseudo path: every dialect's keys). */
export type CiDialect = 'github' | 'gitlab' | 'circleci' | 'azure' | 'bitbucket' | 'buildkite' | 'jenkins' | 'travis' | 'drone' | null;

const GIT_HOOK_NAMES = new Set([
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg',
  'commit-msg', 'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update',
  'proc-receive', 'post-receive', 'post-update', 'reference-transaction', 'push-to-checkout', 'pre-auto-gc',
  'post-rewrite', 'sendemail-validate', 'fsmonitor-watchman', 'p4-changelist', 'p4-prepare-changelist',
  'p4-post-changelist', 'p4-pre-submit', 'post-index-change',
]);

const YAML_EXT = /\.ya?ml$/i;

function base(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** The path below `dir` (which ends in '/'), or null. */
function under(p: string, dir: string): string | null {
  return p.startsWith(dir) ? p.slice(dir.length) : null;
}

/** The part of `p` after the last occurrence of the segment run `seg` ('/.github/workflows/'), or null. */
function afterSegment(p: string, seg: string): string | null {
  const i = p.lastIndexOf(seg);
  return i === -1 ? null : p.slice(i + seg.length);
}

export function ciDialectOf(path: string): CiDialect {
  const p = path.toLowerCase();
  const b = base(p);
  if (/^(?:Jenkinsfile(?:\..*)?|.*\.jenkinsfile)$/i.test(b)) return 'jenkins';
  if (!YAML_EXT.test(b) && afterSegment(p, '/.buildkite/') === null) return null;
  if (afterSegment(p, '/.github/workflows/') !== null || afterSegment(p, '/.gitea/workflows/') !== null || afterSegment(p, '/.forgejo/workflows/') !== null) return 'github';
  if (/^action\.ya?ml$/.test(b)) return 'github';
  if (/^\.?gitlab-ci\.ya?ml$/.test(b) || /\.gitlab-ci\.ya?ml$/.test(b) || afterSegment(p, '/.gitlab/ci/') !== null) return 'gitlab';
  if (afterSegment(p, '/.circleci/') !== null) return 'circleci';
  if (/^azure-pipelines.*\.ya?ml$/.test(b) || afterSegment(p, '/.azure-pipelines/') !== null) return 'azure';
  if (/^bitbucket-pipelines\.ya?ml$/.test(b)) return 'bitbucket';
  if (afterSegment(p, '/.buildkite/') !== null || /^buildkite\.ya?ml$/.test(b)) return 'buildkite';
  if (b === '.travis.yml' || b === '.travis.yaml') return 'travis';
  if (/^\.(?:drone|woodpecker)\.ya?ml$/.test(b) || afterSegment(p, '/.woodpecker/') !== null) return 'drone';
  return null;
}

function isCi(p: string): boolean {
  const b = base(p);
  if (/^(?:Jenkinsfile(?:\..*)?|.*\.jenkinsfile)$/i.test(b)) return true;
  if (afterSegment(p, '/.buildkite/') !== null) return true; // pipeline.yml and the agent hooks (scripts)
  return ciDialectOf(p) !== null;
}

/** Hook-manager flavour: how its file is read. */
export type HookManagerFlavor = 'husky' | 'lefthook' | 'lefthook-script' | 'pre-commit' | 'json' | null;

export function hookManagerFlavorOf(path: string): HookManagerFlavor {
  const p = path.toLowerCase();
  const b = base(p);
  const husky = afterSegment(p, '/.husky/');
  if (husky !== null && husky !== '' && !husky.startsWith('_/')) return 'husky';
  if (/^\.?lefthook(?:-local)?\.ya?ml$/.test(b)) return 'lefthook';
  const lh = afterSegment(p, '/.lefthook/');
  if (lh !== null && lh.includes('/')) return 'lefthook-script';
  if (b === '.pre-commit-config.yaml' || b === '.pre-commit-config.yml') return 'pre-commit';
  // Chosen: simple-git-hooks and husky v4 in their JSON files only (a .js config is code, not data).
  if (b === '.simple-git-hooks.json' || b === 'simple-git-hooks.json' || b === '.huskyrc' || b === '.huskyrc.json') return 'json';
  return null;
}

function isGitHook(p: string): boolean {
  const b = base(p);
  if (b.endsWith('.sample') || b === '') return false;
  // .git/hooks/<name>, also of a nested repository and of submodules (.git/modules/<name>/hooks/<hook>).
  if (/\/\.git\/(?:modules\/.+\/)?hooks\/[^/]+$/.test(p)) return true;
  // A committed hooks directory (git config core.hooksPath .githooks): only files named like git hooks.
  if (/\/\.(?:githooks|git-hooks)\/[^/]+$/.test(p) && GIT_HOOK_NAMES.has(b)) return true;
  return false;
}

const HOME_SHELL_INIT = [
  '.bashrc', '.bash_profile', '.bash_login', '.profile', '.bash_logout', '.bash_aliases',
  '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout',
  '.xprofile', '.xsessionrc', '.xinitrc',
  '.config/fish/config.fish',
];
const ETC_SHELL_INIT = ['/etc/profile', '/etc/bash.bashrc', '/etc/bashrc', '/etc/zshrc', '/etc/zshenv', '/etc/zprofile', '/etc/zlogin', '/etc/zlogout'];

function isShellInit(p: string, home: string): boolean {
  const h = under(p, home + '/');
  if (h !== null) {
    if (HOME_SHELL_INIT.includes(h)) return true;
    if (/^\.config\/fish\/(?:conf\.d|functions)\/[^/]+\.fish$/.test(h)) return true;
    if (/^\.(?:bashrc|zshrc)\.d\/[^/]+$/.test(h)) return true;
    // ~/.config/environment.d/*.conf holds KEY=VALUE lines for systemd, not commands: not a kind.
  }
  if (ETC_SHELL_INIT.includes(p)) return true;
  if (/^\/etc\/profile\.d\/[^/]+$/.test(p) || /^\/etc\/zsh\/[^/]+$/.test(p)) return true;
  return false;
}

function isCrontab(p: string): boolean {
  return p === '/etc/crontab' || /^\/etc\/cron\.(?:d|hourly|daily|weekly|monthly)\/[^/]+$/.test(p) || p.startsWith('/var/spool/cron/') || p === '/etc/anacrontab';
}

function isSystemd(p: string, home: string): boolean {
  const h = under(p, home + '/');
  if (h !== null && (h.startsWith('.config/systemd/') || h.startsWith('.local/share/systemd/user/'))) return true;
  if (p.startsWith('/etc/systemd/')) return true;
  // Vendor unit directories: unit files only (the rest there are systemd's own binaries).
  if (/^\/(?:usr\/|usr\/local\/)?lib\/systemd\/(?:system|user)\/.+\.(?:service|socket|timer|path|mount)$/.test(p)) return true;
  return false;
}

function isAutostart(p: string, home: string): boolean {
  return /\.desktop$/.test(p) && (p.startsWith(home + '/.config/autostart/') || p.startsWith('/etc/xdg/autostart/'));
}

function isLaunchd(p: string, home: string): boolean {
  return /\.plist$/.test(p) && (
    /^\/library\/launch(?:agents|daemons)\/[^/]+$/.test(p) || (under(p, home + '/library/launchagents/') ?? '/').indexOf('/') === -1);
}

const PATH_DIRS_HOME = ['.local/bin/', 'bin/', '.cargo/bin/'];
const PATH_DIRS_SYS = ['/usr/local/bin/', '/usr/local/sbin/'];

function isPathProgram(p: string, home: string): boolean {
  for (const d of PATH_DIRS_HOME) {
    const rest = under(p, `${home}/${d}`);
    if (rest !== null && rest !== '' && !rest.includes('/')) return true;
  }
  for (const d of PATH_DIRS_SYS) {
    const rest = under(p, d);
    if (rest !== null && rest !== '' && !rest.includes('/')) return true;
  }
  return false;
}

/**
 * The kind of a file that runs code later, from its absolute path (after symlinks were resolved by the
 * caller), or null for a file that does not. Pure: reads nothing.
 */
export function deferredKindOf(absPath: string, place: DeferredPlace): DeferredKind | null {
  // Remembered across calls: every written path of every call is asked about, and the answer depends on the
  // path and the home only (kindUncached reads nothing else), while the tests below are some thirty regexes.
  const key = `${place.home}\0${absPath}`;
  const hit = kindMemo.get(key);
  if (hit !== undefined) return hit;
  const kind = kindUncached(absPath, place.home);
  if (kindMemo.size >= KIND_MEMO_MAX) kindMemo.clear();
  kindMemo.set(key, kind);
  return kind;
}

const kindMemo = new Map<string, DeferredKind | null>();
const KIND_MEMO_MAX = 4096;

function kindUncached(absPath: string, placeHome: string): DeferredKind | null {
  // Compared in lower case: on a case-insensitive file system (macOS by default) `.GIT/HOOKS/PRE-COMMIT` IS
  // the pre-commit hook and `.GitHub/Workflows/x.yml` the workflow. On Linux this only adds odd spellings.
  const p = absPath.toLowerCase();
  const home = placeHome.replace(/\/+$/, '').toLowerCase();
  const b = base(p);
  if (b === '') return null;
  // Home and system places first: ~/.profile is shell init even when the project is the home directory.
  if (isShellInit(p, home)) return 'shell-init';
  if (isCrontab(p)) return 'crontab';
  if (isSystemd(p, home)) return 'systemd-unit';
  if (isAutostart(p, home)) return 'autostart';
  if (isLaunchd(p, home)) return 'launchd';
  if (isPathProgram(p, home)) return 'path-program';
  if (isGitHook(p)) return 'git-hook';
  if (hookManagerFlavorOf(p) !== null) return 'hook-manager';
  if (isCi(p)) return 'ci';
  if (b === 'package.json') return 'package-scripts';
  if (b === 'setup.py') return 'setup-py';
  if (b === 'makefile' || b === 'gnumakefile' || /\.mk$/.test(b)) return 'makefile';
  if (b === '.envrc') return 'envrc';
  if (b === 'tasks.json' && p.endsWith('/.vscode/tasks.json')) return 'editor-task';
  if (/\/\.devcontainer\/(?:[^/]+\/)?devcontainer\.json$/.test(p) || b === '.devcontainer.json') return 'devcontainer';
  return null;
}
