// Built-in rules: git family (history rewriting, pushes to shared branches, discarded work, disabled hooks)
// and the allow rule for everyday local git work.

import { parseArgs, type ArgSpec, type ParsedArgs } from '../../shell/args.ts';
import { programName, staticValue } from '../../shell/program.ts';
import type { Analysis, SimpleCommand, Word } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleContext, type RuleHit } from '../rule.ts';
import { gitRestore, parseGit, pathTargets, type GitInvocation } from './writes.ts';

// ---------------------------------------------------------------------------------------------------------
// Parsing helpers

function git(cmd: SimpleCommand): GitInvocation | null {
  return programName(cmd) === 'git' ? parseGit(cmd) : null;
}

/** Parse a subcommand's arguments. */
function sub(g: GitInvocation, spec: ArgSpec): ParsedArgs {
  return parseArgs(g.args, spec);
}

/**
 * Is an option set? git accepts any unambiguous prefix of a long option (`--har` is `--hard`) and rejects an
 * ambiguous one, so treating every prefix of two letters or more as the option only ever errs on the strict side.
 * Never use this for options that make a command safer (`--dry-run`): those must be spelled out.
 */
function opt(p: ParsedArgs, short: string | null, ...longs: string[]): boolean {
  if (short !== null && p.flags.has(short)) return true;
  for (const k of p.flags.keys()) {
    if (k.length < 2) continue;
    for (const l of longs) if (l.startsWith(k)) return true;
  }
  return false;
}

/**
 * Is `git clean` a dry run? Among clean's long options only --dry-run starts with `d`, so git reads any prefix of
 * it (`--dry-r`) as --dry-run; `--no-dry-run` (or a prefix of it down to `--no-d`) undoes it. Later options win.
 */
function cleanDryRun(p: ParsedArgs): boolean {
  let dry = false;
  for (const f of p.flagList) {
    if (f.name === 'n' || (f.word.value.startsWith('--') && f.name.length >= 1 && 'dry-run'.startsWith(f.name))) dry = true;
    else if (f.word.value.startsWith('--') && f.name.length >= 4 && 'no-dry-run'.startsWith(f.name)) dry = false;
  }
  return dry;
}

function values(words: readonly Word[]): string[] {
  return words.map((w) => staticValue(w) ?? w.value);
}

const PUSH_SPEC: ArgSpec = {
  shortWithValue: 'o',
  longWithValue: ['push-option', 'repo', 'receive-pack', 'exec'],
  aliases: { force: 'f', delete: 'd', 'set-upstream': 'u', 'dry-run': 'n', 'push-option': 'o' },
};

interface Refspec {
  raw: string;
  forced: boolean;
  /** Destination branch name without refs/heads/; '' for a deletion's source side; null when only known at run time. */
  dst: string | null;
  deletes: boolean;
}

interface Push {
  remote: string | null;
  refspecs: Refspec[];
  force: boolean;
  lease: boolean;
  mirror: boolean;
  all: boolean;
  deleteFlag: boolean;
  prune: boolean;
  dryRun: boolean;
  noVerify: boolean;
}

function branchName(ref: string): string {
  return ref.replace(/^refs\/heads\//, '');
}

function parsePush(g: GitInvocation): Push {
  const p = sub(g, PUSH_SPEC);
  const keys = [...p.flags.keys()];
  const ops = p.operands;
  const refs: Refspec[] = [];
  const deleteFlag = opt(p, 'd', 'delete');
  for (const w of ops.slice(1)) {
    // A refspec pattern (`refs/heads/*:refs/heads/*`) is data for git, not a file glob: read it as written.
    const v = staticValue(w) ?? (w.glob && !w.value.includes('$') && !w.value.includes('`') ? w.value : null);
    if (v === null) {
      refs.push({ raw: w.value, forced: false, dst: null, deletes: deleteFlag });
      continue;
    }
    let forced = v.startsWith('+');
    const s = forced ? v.slice(1) : v;
    const colon = s.indexOf(':');
    if (colon === 0) {
      refs.push({ raw: v, forced, dst: branchName(s.slice(1)), deletes: true });
    } else if (colon > 0) {
      let dst = s.slice(colon + 1);
      if (dst.startsWith('+')) {
        forced = true;
        dst = dst.slice(1);
      }
      refs.push({ raw: v, forced, dst: branchName(dst === '' ? s.slice(0, colon) : dst), deletes: deleteFlag });
    } else {
      refs.push({ raw: v, forced, dst: branchName(s), deletes: deleteFlag });
    }
  }
  return {
    remote: ops[0] ? staticValue(ops[0]) ?? ops[0].value : null,
    refspecs: refs,
    force: opt(p, 'f', 'force'),
    lease: keys.some((k) => k.length >= 7 && ('force-with-lease'.startsWith(k) || 'force-if-includes'.startsWith(k))),
    mirror: opt(p, null, 'mirror'),
    all: opt(p, null, 'all', 'branches'),
    deleteFlag,
    prune: opt(p, null, 'prune'),
    dryRun: p.flags.has('n'),
    noVerify: opt(p, null, 'no-verify'),
  };
}

/** A destination that is, or with a pattern may be, a default branch (`main`, `refs/heads/*`). */
function isDefault(branch: string | null, ctx: RuleContext): boolean {
  if (branch === null) return false;
  if (branch.includes('*')) {
    const re = new RegExp('^' + branch.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$');
    return ctx.defaultBranches.some((b) => re.test(b));
  }
  return ctx.defaultBranches.includes(branch);
}

// ---------------------------------------------------------------------------------------------------------
// Rule bodies

function forcePushHit(g: GitInvocation, ctx: RuleContext): RuleHit | null {
  if (g.sub !== 'push') return null;
  const p = parsePush(g);
  if (p.dryRun) return null;
  if (p.mirror) return { reason: '`git push --mirror` overwrites and deletes every branch on the remote; push the branches you mean instead.' };
  const forcedRefs = p.refspecs.filter((r) => r.forced || p.force || p.lease);
  const anyForce = p.force || p.lease || p.refspecs.some((r) => r.forced);
  if (!anyForce) return null;
  const hitsDefault = forcedRefs.find((r) => isDefault(r.dst, ctx));
  if (hitsDefault || ((p.force || p.lease) && p.all)) {
    const b = hitsDefault?.dst ?? 'every branch';
    return { reason: `Force-pushing to ${b} rewrites the shared history others build on; push a new branch and open a pull request instead.`, subject: hitsDefault?.raw ?? '--all' };
  }
  if (p.lease && !p.force && !p.refspecs.some((r) => r.forced)) {
    return { tier: 'soft_deny', reason: '`--force-with-lease` still rewrites the remote branch; check with the user that the branch is yours alone.' };
  }
  // With no refspec the current branch is pushed, and it could be the default branch: a person checks.
  return { tier: 'soft_deny', reason: 'Force-push rewrites the remote branch\'s history; push a new branch, or use --force-with-lease after checking with the user.' };
}

function pushDefaultHit(g: GitInvocation, ctx: RuleContext): RuleHit | null {
  if (g.sub !== 'push') return null;
  const p = parsePush(g);
  if (p.dryRun || p.mirror) return null;
  const r = p.refspecs.find((x) => !x.deletes && isDefault(x.dst, ctx));
  if (r) return { reason: `Pushing straight to ${r.dst} skips review of the shared branch; push a feature branch and open a pull request.`, subject: r.raw };
  if (p.all) return { reason: '`git push --all` pushes every branch, the default branch included; push the branch you mean.', subject: '--all' };
  // `git push master`: the default branch's name where git expects a remote. If it was meant as the branch, it is
  // a push straight to it; either way it is not what it looks like.
  if (p.refspecs.length === 0 && p.remote !== null && isDefault(p.remote, ctx)) {
    return { reason: `\`git push ${p.remote}\` names the default branch where git expects a remote; to push a branch, name the remote too (\`git push origin feature\`) and push a feature branch, not ${p.remote}.`, subject: p.remote };
  }
  // A bare `git push` / `git push origin` / `git push origin HEAD` pushes the current branch, which cannot be
  // known statically: it is allowed (git.local), as the issue's allow set asks for everyday pushes.
  return null;
}

function pushDeleteHit(g: GitInvocation, ctx: RuleContext): RuleHit | null {
  if (g.sub !== 'push') return null;
  const p = parsePush(g);
  if (p.dryRun) return null;
  const dels = p.refspecs.filter((r) => r.deletes);
  if (p.deleteFlag && dels.length === 0 && p.refspecs.length === 0) return null;
  const def = dels.find((r) => isDefault(r.dst, ctx));
  if (def) return { reason: `Deleting the remote ${def.dst} branch removes the shared default branch; never do this from an agent.`, subject: def.raw };
  if (dels.length > 0) return { tier: 'soft_deny', reason: `Deleting the remote branch ${dels.map((r) => r.dst ?? r.raw).join(', ')} affects everyone using it; check with the user.`, subject: dels.map((r) => r.raw).join(' ') };
  if (p.prune) return { tier: 'soft_deny', reason: '`git push --prune` deletes remote branches that do not exist locally; check with the user.' };
  return null;
}

const RESET_SPEC: ArgSpec = { longWithValue: ['pathspec-from-file'] };
const CLEAN_SPEC: ArgSpec = { shortWithValue: 'e', longWithValue: ['exclude'], aliases: { force: 'f', 'dry-run': 'n', interactive: 'i' } };
const CHECKOUT_SPEC: ArgSpec = { shortWithValue: 'bBU', longWithValue: ['orphan', 'conflict', 'pathspec-from-file'], aliases: { force: 'f' } };
const SWITCH_SPEC: ArgSpec = { shortWithValue: 'cC', longWithValue: ['create', 'force-create', 'orphan', 'conflict'], aliases: { force: 'f', 'discard-changes': 'f' } };
const BRANCH_SPEC: ArgSpec = {
  shortWithValue: 'tu',
  longWithValue: ['set-upstream-to', 'contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'sort', 'format', 'track'],
  aliases: { delete: 'd', force: 'f', move: 'm', copy: 'c', 'set-upstream-to': 'u', list: 'l', all: 'a', remotes: 'r' },
};
const TAG_SPEC: ArgSpec = { shortWithValue: 'mFu', longWithValue: ['message', 'file', 'local-user', 'contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'sort', 'format', 'cleanup', 'trailer'] };
const COMMIT_SPEC: ArgSpec = {
  shortWithValue: 'mFcCt',
  longWithValue: ['message', 'file', 'reuse-message', 'reedit-message', 'fixup', 'squash', 'author', 'date', 'template', 'cleanup', 'trailer', 'pathspec-from-file'],
  aliases: { 'no-verify': 'n', message: 'm' },
};
const CONFIG_SPEC: ArgSpec = { shortWithValue: 'f', longWithValue: ['file', 'blob', 'type', 'default', 'comment', 'value'] };

/** Variables that make hook managers skip their hooks. */
const HOOK_SKIP_VARS: Readonly<Record<string, (v: string) => boolean>> = {
  HUSKY: (v) => v === '0' || v === 'false',
  HUSKY_SKIP_HOOKS: (v) => v !== '' && v !== '0',
  LEFTHOOK: (v) => v === '0' || v === 'false',
  OVERCOMMIT_DISABLE: (v) => v !== '' && v !== '0',
  SKIP: (v) => v !== '',
  SKIP_HOOKS: (v) => v !== '' && v !== '0',
  PRE_COMMIT_ALLOW_NO_CONFIG: (v) => v === '1',
};

function noVerifyHit(cmd: SimpleCommand, g: GitInvocation): RuleHit | null {
  for (const a of cmd.assignments) {
    const test = HOOK_SKIP_VARS[a.name];
    if (test && test(staticValue(a.value) ?? a.value.value)) {
      return { reason: `${a.name}=… makes the hook manager skip the project's checks; run them, and fix what fails.`, subject: a.name };
    }
  }
  switch (g.sub) {
    case 'commit': {
      const p = sub(g, COMMIT_SPEC);
      return opt(p, 'n', 'no-verify') ? { subject: '--no-verify' } : null;
    }
    case 'push': {
      const p = parsePush(g);
      return p.noVerify ? { subject: '--no-verify' } : null;
    }
    case 'merge': case 'rebase': case 'am': case 'cherry-pick': case 'revert': case 'pull': {
      return g.args.some((w) => /^--no-ve(r(i(fy?)?)?)?$/.test(w.value)) ? { subject: '--no-verify' } : null;
    }
    default:
      return null;
  }
}

interface ConfigCall {
  action: 'get' | 'set' | 'unset' | 'list' | 'other';
  key: string | null;
  value: string | null;
}

/** `git config [scope] key [value]`, `git config --get key`, and the newer `git config set|get|unset|list`. */
function parseConfig(g: GitInvocation): ConfigCall {
  const p = sub(g, CONFIG_SPEC);
  const ops = values(p.operands);
  const f = (n: string): boolean => p.flags.has(n);
  let action: ConfigCall['action'] = 'other';
  let rest = ops;
  const verb = ops[0];
  if (verb === 'set' || verb === 'get' || verb === 'unset' || verb === 'list' || verb === 'edit' || verb === 'rename-section' || verb === 'remove-section') {
    rest = ops.slice(1);
    action = verb === 'set' ? 'set' : verb === 'get' ? 'get' : verb === 'unset' ? 'unset' : verb === 'list' ? 'list' : 'other';
  } else if (f('get') || f('get-all') || f('get-regexp') || f('get-urlmatch') || f('get-color') || f('get-colorbool')) action = 'get';
  else if (f('list') || f('l')) action = 'list';
  else if (f('unset') || f('unset-all')) action = 'unset';
  else if (f('add') || f('replace-all')) action = 'set';
  else if (f('edit') || f('e') || f('rename-section') || f('remove-section')) action = 'other';
  else action = ops.length >= 2 ? 'set' : ops.length === 1 ? 'get' : 'other';
  return { action, key: rest[0]?.toLowerCase() ?? null, value: rest[1] ?? null };
}

function hooksPathHit(cmd: SimpleCommand, g: GitInvocation | null): RuleHit | null {
  // Environment forms work for any git process: GIT_CONFIG_KEY_n=core.hooksPath, GIT_CONFIG_PARAMETERS.
  for (const a of cmd.assignments) {
    const v = (staticValue(a.value) ?? a.value.value).toLowerCase();
    if ((/^GIT_CONFIG_KEY_\d+$/.test(a.name) || a.name === 'GIT_CONFIG_PARAMETERS') && v.includes('core.hookspath')) {
      return { reason: 'Setting core.hooksPath through the environment swaps the git hooks that run; never do this from an agent.', subject: a.name };
    }
  }
  if (g === null) return null;
  const c = g.configs.find((x) => x.key === 'core.hookspath');
  if (c) return { reason: '`-c core.hooksPath=…` runs (or skips) hooks from another directory; run git normally.', subject: `core.hooksPath=${c.value}` };
  if (g.sub !== 'config') return null;
  const call = parseConfig(g);
  if (call.key !== 'core.hookspath') return null;
  if (call.action === 'set') return { subject: `core.hooksPath ${call.value ?? ''}`.trim() };
  if (call.action === 'unset') return { tier: 'soft_deny', reason: 'Unsetting core.hooksPath changes which hooks run on every commit; ask the user.' };
  return null;
}

/** Config keys that are plain preferences (no program runs, no traffic redirected). */
const SAFE_CONFIG = /^(user\.(name|email|signingkey)|init\.defaultbranch|pull\.(rebase|ff)|push\.(default|autosetupremote|followtags)|fetch\.(prune|prunetags|parallel)|rebase\.(autostash|autosquash|updaterefs)|merge\.(conflictstyle|ff)|color\..*|core\.(autocrlf|eol|filemode|ignorecase|quotepath|safecrlf|whitespace|longpaths|precomposeunicode)|branch\.[^.]+\.(merge|remote|rebase|description)|advice\..*|commit\.(gpgsign|verbose|template)|tag\.(gpgsign|sort)|help\.autocorrect|rerere\.(enabled|autoupdate)|diff\.(algorithm|renames|colormoved|mnemonicprefix|noprefix|submodule)|log\.(date|decorate|follow)|status\.(short|branch|showuntrackedfiles|submodulesummary)|column\.ui|feature\..*|gc\.auto|submodule\.recurse|blame\.ignorerevsfile|lfs\..*|maintenance\.auto)$/;

const ALWAYS_LOCAL = new Set([
  'status', 'diff', 'log', 'show', 'shortlog', 'describe', 'blame', 'annotate', 'grep', 'ls-files', 'ls-tree',
  'ls-remote', 'rev-parse', 'rev-list', 'cat-file', 'show-ref', 'for-each-ref', 'name-rev', 'merge-base',
  'count-objects', 'fsck', 'verify-commit', 'verify-tag', 'whatchanged', 'range-diff', 'cherry', 'check-ignore',
  'check-attr', 'check-ref-format', 'var', 'help', 'version', 'bisect', 'add', 'stage', 'commit', 'branch',
  'switch', 'checkout', 'restore', 'reset', 'fetch', 'pull', 'merge', 'rebase', 'cherry-pick', 'revert', 'push',
  'tag', 'init', 'clone', 'mv', 'rm', 'apply', 'am', 'format-patch', 'archive', 'show-branch', 'request-pull',
  'sparse-checkout', 'notes', 'mergetool', 'rerere', 'diff-tree', 'diff-files', 'diff-index', 'hash-object',
  'interpret-trailers', 'mailinfo', 'patch-id', 'shortlog', 'column', 'bugreport', 'gc', 'repack', 'pack-refs',
  'commit-graph', 'multi-pack-index', 'symbolic-ref', 'stripspace', 'get-tar-commit-id', 'verify-pack',
  'unpack-file', 'worktree', 'stash', 'reflog', 'remote', 'submodule', 'lfs', 'config', 'clean', 'prune',
]);

/** Variables through which git runs other programs or reads other configuration. */
const GIT_EXEC_ENV = /^(GIT_(SSH|SSH_COMMAND|SSH_VARIANT|EXTERNAL_DIFF|PAGER|EDITOR|SEQUENCE_EDITOR|ASKPASS|PROXY_COMMAND|EXEC_PATH|CONFIG|CONFIG_GLOBAL|CONFIG_SYSTEM|CONFIG_NOSYSTEM|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|CONFIG_PARAMETERS|TEMPLATE_DIR|DIR|COMMON_DIR)|SSH_ASKPASS|EDITOR|VISUAL|PAGER|LESSOPEN|LESSCLOSE)$/;
/** `-c` keys that are plain preferences; any other `-c` is left to a person (or the exec rules). */
const SAFE_DASH_C = /^(user\.\w+|color\..*|core\.(quotepath|autocrlf|eol|filemode|longpaths|safecrlf|ignorecase|precomposeunicode)|safe\.directory|init\.defaultbranch|advice\..*|i18n\..*|log\..*|diff\.(noprefix|mnemonicprefix|renames|algorithm|colormoved)|commit\.gpgsign|tag\.gpgsign|gc\.auto|maintenance\.auto|merge\.(ff|conflictstyle)|pull\.(rebase|ff)|rebase\.(autostash|autosquash)|submodule\.recurse|protocol\.version|fetch\.(prune|parallel)|push\.(default|autosetupremote)|status\..*|column\.ui|versionsort\..*)$/;

/** Variables git only consults when it talks to a remote (or asks for its credentials). */
const NETWORK_ONLY_ENV = /^(GIT_SSH|GIT_SSH_COMMAND|GIT_SSH_VARIANT|GIT_PROXY_COMMAND|GIT_ASKPASS|SSH_ASKPASS)$/;
/** `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_n` / `GIT_CONFIG_VALUE_n`: configuration given through the environment. */
const ENV_CONFIG = /^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/;
/** Config keys that only matter when git talks to a remote. */
const NETWORK_ONLY_KEY = /^(core\.sshcommand|core\.askpass|credential\..*|http\..*|url\..*)$/;

/** How the line's environment makes git run other programs: anywhere (`other`) or only on network subcommands. */
interface EnvTaint {
  other: boolean;
  network: boolean;
}
const envTaint = new WeakMap<Analysis, EnvTaint>();

function gitEnvTaint(analysis: Analysis): EnvTaint {
  const hit = envTaint.get(analysis);
  if (hit !== undefined) return hit;
  const t: EnvTaint = { other: false, network: false };
  const mark = (name: string): void => {
    if (NETWORK_ONLY_ENV.test(name)) t.network = true;
    else t.other = true;
  };
  for (const c of analysis.commands) {
    for (const a of c.assignments) {
      if (!GIT_EXEC_ENV.test(a.name)) continue;
      // Configuration pairs set on a git command itself are judged key by key (gitEnvConfigs); elsewhere they taint.
      if (ENV_CONFIG.test(a.name) && programName(c) === 'git') continue;
      mark(a.name);
    }
    const n = programName(c);
    if (n === 'export' || n === 'declare' || n === 'typeset' || n === 'env' || n === 'readonly' || n === 'local') {
      for (const w of c.argv.slice(1)) {
        const name = w.value.split('=')[0] ?? '';
        if (GIT_EXEC_ENV.test(name)) mark(name);
      }
    }
  }
  envTaint.set(analysis, t);
  return t;
}

/** `GIT_CONFIG_KEY_n=k GIT_CONFIG_VALUE_n=v git …`: the pairs, or null when one is only known at run time. */
function gitEnvConfigs(cmd: SimpleCommand): { key: string; value: string }[] | null {
  const keys = new Map<string, string>();
  const vals = new Map<string, string>();
  for (const a of cmd.assignments) {
    const m = /^GIT_CONFIG_(KEY|VALUE)_(\d+)$/.exec(a.name);
    if (!m) {
      if (a.name === 'GIT_CONFIG_PARAMETERS') return null;
      continue;
    }
    const v = staticValue(a.value);
    if (v === null) return null;
    (m[1] === 'KEY' ? keys : vals).set(m[2]!, v);
  }
  return [...keys].map(([i, key]) => ({ key: key.toLowerCase(), value: vals.get(i) ?? '' }));
}

/** Subcommands that reach a remote, where ssh/askpass/credential settings run their programs. */
function reachesRemote(g: GitInvocation): boolean {
  const a = values(g.args);
  const first = a.find((x) => !x.startsWith('-'));
  switch (g.sub) {
    case 'fetch': case 'pull': case 'push': case 'clone': case 'ls-remote': case 'submodule': case 'lfs':
    case 'request-pull': case 'send-pack': case 'fetch-pack': case 'credential': case null:
      return g.sub !== null;
    case 'remote':
      return first === 'show' || first === 'update' || first === 'prune' || first === 'set-head';
    case 'archive':
      return a.some((x) => x.startsWith('--remote'));
    default:
      return false;
  }
}

/** git-lfs subcommands that fetch or inspect large files of this repository. */
const LFS_LOCAL = new Set(['pull', 'fetch', 'ls-files', 'install', 'track', 'untrack', 'status', 'env', 'version', 'checkout', 'prune']);

/** Subcommands an alias may stand for and stay allowed: they only show things. */
const ALIAS_OK = new Set(['status', 'diff', 'log', 'show', 'shortlog', 'describe', 'blame', 'ls-files', 'ls-tree', 'rev-parse', 'grep', 'whatchanged', 'reflog', 'show-branch', 'cat-file', 'version', 'help']);

/**
 * Configuration from `-c` and from GIT_CONFIG_* on the command: allowed when every key is a plain preference, an
 * alias to one of the showing subcommands (not a `!shell` alias), or a network-only key on a local subcommand.
 * Returns the subcommand git will really run (the alias resolved), or null when the configuration is not allowed.
 */
function effectiveSub(g: GitInvocation, cmd: SimpleCommand): { sub: string | null } | null {
  const env = gitEnvConfigs(cmd);
  if (env === null) return null;
  const all = [...g.configs.map((c) => ({ key: c.key, value: staticValue(c.word) === null ? null : c.value })), ...env];
  let sub = g.sub;
  for (const c of all) {
    if (SAFE_DASH_C.test(c.key)) continue;
    if (NETWORK_ONLY_KEY.test(c.key) && !reachesRemote(g)) continue;
    const alias = /^alias\.(.+)$/.exec(c.key);
    if (alias && c.value !== null && ALIAS_OK.has(c.value.trim())) {
      if (g.sub === alias[1]) sub = c.value.trim();
      continue;
    }
    return null;
  }
  return { sub };
}

function beforeDashes(a: readonly string[]): readonly string[] {
  const i = a.indexOf('--');
  return i < 0 ? a : a.slice(0, i);
}

/** Unicode dashes where an option would be (`git reset ‐‐hard`): not what it looks like, so not allowed. */
const ODD_DASH = /^[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]/;

/** Forms of the broader subcommands that stay local and harmless; the rest are left to a person (unknown). */
function localHit(g0: GitInvocation, cmd: SimpleCommand): boolean {
  if (g0.dynamic) return false;
  const eff = effectiveSub(g0, cmd);
  if (eff === null) return false;
  const g: GitInvocation = eff.sub === g0.sub ? g0 : { ...g0, sub: eff.sub };
  if (g.sub === null) return true; // `git`, `git --version`, `git --help`
  if (!ALWAYS_LOCAL.has(g.sub)) return false;
  const a = values(g.args);
  if (a.some((x) => ODD_DASH.test(x))) return false;
  if (a.includes('--help')) return true;
  const first = a.find((x) => !x.startsWith('-'));
  switch (g.sub) {
    case 'remote':
      return first === undefined || first === 'show' || first === 'get-url' || first === 'update' || first === 'prune';
    case 'worktree':
      // After `--` a word is the worktree's path (`git worktree remove -- -f` removes a worktree named -f).
      if (first === 'remove') return !beforeDashes(a).some((x) => /^-[a-z]*f/.test(x) || /^--fo/.test(x));
      return first === 'list' || first === 'add' || first === 'prune' || first === 'lock' || first === 'unlock' || first === 'repair' || first === 'move';
    case 'submodule':
      return first === undefined || ['status', 'update', 'init', 'sync', 'summary', 'absorbgitdirs', 'add', 'set-branch', 'set-url'].includes(first);
    case 'lfs':
      return first === undefined || LFS_LOCAL.has(first);
    case 'reflog':
      return first === undefined || first === 'show' || first === 'list' || first === 'exists';
    case 'clean':
      return cleanDryRun(sub(g, CLEAN_SPEC));
    case 'prune':
      return a.some((x) => x === '-n' || x === '--dry-run');
    case 'config': {
      const c = parseConfig(g);
      if (c.action === 'get' || c.action === 'list') return true;
      return c.action === 'set' && c.key !== null && SAFE_CONFIG.test(c.key);
    }
    case 'apply':
      // --unsafe-paths lets a patch (and --directory) write outside the working tree.
      return !a.some((x) => x.startsWith('--unsafe-p'));
    case 'symbolic-ref':
      return a.filter((x) => !x.startsWith('-')).length <= 1;
    case 'stash':
      return true;
    default:
      return true;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The rules

/** The first credentials file `git add`/`git stage` names among its operands, or null. */
function addedSecret(cmd: SimpleCommand, ctx: RuleContext): string | null {
  const g = git(cmd);
  if (!g || (g.sub !== 'add' && g.sub !== 'stage')) return null;
  let afterDashes = false;
  for (const w of g.args) {
    const v = staticValue(w) ?? w.value;
    if (!afterDashes && v === '--') {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && v.startsWith('-')) continue;
    if (ctx.path(v).classes.has('credentials')) return v;
  }
  return null;
}

export const rules: Rule[] = [
  // Soft: a credentials file staged is one commit and one push away from the remote and everyone who clones
  // it (`git add -f .env` even overrides the ignore file that kept it out); sometimes a placeholder, so a person
  // decides.
  defineShellRule({
    id: 'git.add-secrets',
    tier: 'soft_deny',
    programs: ['git'],
    reason: 'This stages a credentials or secrets file, one push away from the remote; keep secrets out of git (a .env.example without values).',
    examples: {
      match: ['git add -f .env', 'git add .env.production', 'git stage config/server.key', 'git add -- ~/.ssh/id_rsa'],
      notMatch: ['git add .env.example', 'git add -A', 'git add src/env.ts', 'git add -p', 'git commit -m ".env"'],
    },
    match: (cmd, ctx) => {
      const file = addedSecret(cmd, ctx);
      return file === null ? null : { subject: file, reason: `\`git add ${file}\` stages a credentials or secrets file, one push away from the remote; keep secrets out of git (a .env.example without values).` };
    },
  }),
  // Hard when it rewrites a default branch (or everything): others' work built on that history is lost.
  // Soft elsewhere: rewriting your own feature branch is common, but the current branch cannot be known here.
  defineShellRule({
    id: 'git.force-push',
    tier: 'hard_deny',
    programs: ['git'],
    reason: 'Force-push rewrites shared history; push a new branch or use --force-with-lease after checking with the user.',
    examples: {
      match: ['git push --force origin main', 'git push -f', 'git push origin +main', 'git push origin main --force', 'git push --force-with-lease', 'git push --mirror', 'git -C repo push -f origin feature', 'git push origin +HEAD:master', 'GIT push -f'],
      notMatch: ['git push', 'git push origin feature', 'git push -n -f origin main', 'git push --follow-tags', 'git log --force'],
    },
    match: (cmd, ctx) => {
      const g = git(cmd);
      return g ? forcePushHit(g, ctx) : null;
    },
  }),
  // Soft: pushing straight to the default branch skips review; some solo projects work that way, a person says so.
  defineShellRule({
    id: 'git.push-default-branch',
    tier: 'soft_deny',
    programs: ['git'],
    reason: 'Pushing straight to the default branch skips review; push a feature branch and open a pull request.',
    examples: {
      match: ['git push origin main', 'git push origin HEAD:main', 'git push -u origin master', 'git push origin feature:refs/heads/main', 'git push --all'],
      notMatch: ['git push', 'git push origin', 'git push origin HEAD', 'git push origin feature/main-menu', 'git push origin --delete old'],
    },
    match: (cmd, ctx) => {
      const g = git(cmd);
      return g ? pushDefaultHit(g, ctx) : null;
    },
  }),
  // Soft (hard for the default branch): remote branches are shared; deleting one affects everyone.
  defineShellRule({
    id: 'git.push-delete',
    tier: 'hard_deny',
    programs: ['git'],
    reason: 'Deleting remote branches affects everyone using them; check with the user.',
    examples: {
      match: ['git push origin --delete feature', 'git push origin :feature', 'git push -d origin old', 'git push origin :main', 'git push --prune origin'],
      notMatch: ['git push origin feature', 'git branch -d feature', 'git push'],
    },
    match: (cmd, ctx) => {
      const g = git(cmd);
      return g ? pushDeleteHit(g, ctx) : null;
    },
  }),
  // Soft: uncommitted work is lost for good; often intended, so a person confirms.
  defineShellRule({
    id: 'git.reset-hard',
    tier: 'soft_deny',
    programs: ['git'],
    reason: '`git reset --hard` throws away uncommitted changes for good; commit or stash them first, or use `git reset --keep`.',
    examples: {
      match: ['git reset --hard', 'git reset --hard HEAD~1', 'git reset --hard origin/main', 'git -C sub reset --hard'],
      notMatch: ['git reset', 'git reset --soft HEAD~1', 'git reset HEAD file.txt', 'git reset --keep HEAD~1'],
    },
    match: (cmd) => {
      const g = git(cmd);
      if (!g || g.sub !== 'reset') return null;
      const p = sub(g, RESET_SPEC);
      if (opt(p, null, 'hard')) return true;
      if (opt(p, null, 'merge')) return { reason: '`git reset --merge` can throw away staged changes; commit or stash them first.' };
      return null;
    },
  }),
  // Soft: untracked files are in no commit; once cleaned they are gone.
  defineShellRule({
    id: 'git.clean-force',
    tier: 'soft_deny',
    programs: ['git'],
    reason: '`git clean -f` deletes untracked files, which no commit can bring back; run `git clean -n` first and remove only what you mean.',
    examples: {
      match: ['git clean -f', 'git clean -fd', 'git clean -fdx', 'git clean -xf', 'git clean --force -d'],
      notMatch: ['git clean -n', 'git clean -nd', 'git clean --dry-run -fd', 'git status'],
    },
    match: (cmd) => {
      const g = git(cmd);
      if (!g || g.sub !== 'clean') return null;
      const p = sub(g, CLEAN_SPEC);
      if (cleanDryRun(p)) return null;
      return opt(p, 'f', 'force') || opt(p, 'i', 'interactive') ? true : null;
    },
  }),
  // Soft: overwriting working-tree files with the committed version loses edits that were never committed.
  defineShellRule({
    id: 'git.checkout-discard',
    tier: 'soft_deny',
    programs: ['git'],
    reason: 'This overwrites working-tree files and loses uncommitted edits; commit or stash them first.',
    examples: {
      match: ['git checkout -- .', 'git checkout .', 'git checkout -- src/app.ts', 'git checkout HEAD~1 file.txt', 'git restore file.txt', 'git restore --worktree .', 'git checkout -f main', 'git switch --discard-changes main', 'git restore --staged --worktree x'],
      notMatch: ['git checkout main', 'git checkout -b feature', 'git restore --staged file.txt', 'git switch feature', 'git checkout feature/x'],
    },
    match: (cmd, ctx, analysis) => {
      const g = git(cmd);
      if (!g) return null;
      if (g.sub === 'checkout') {
        const p = sub(g, CHECKOUT_SPEC);
        if (opt(p, 'f', 'force')) return { reason: '`git checkout -f` throws away local changes; commit or stash them first.' };
        if (opt(p, null, 'pathspec-from-file')) return { reason: 'Checking out the paths listed in a file overwrites them; commit or stash them first.' };
      } else if (g.sub === 'switch') {
        if (opt(sub(g, SWITCH_SPEC), 'f', 'force', 'discard-changes')) return { reason: 'Switching with --discard-changes throws away local changes; commit or stash them first.' };
        return null;
      } else if (g.sub !== 'restore') return null;
      else {
        const r = gitRestore(g.args);
        if (r.worktree && r.unlisted) return { reason: 'Restoring paths from a file or by patch overwrites working-tree files; commit or stash them first.' };
      }
      const t = pathTargets(cmd, ctx, analysis).find((x) => x.how === 'git checkout' || x.how === 'git restore');
      return t ? { subject: t.path } : null;
    },
  }),
  // Soft: -D deletes a branch even when its commits are merged nowhere.
  defineShellRule({
    id: 'git.branch-force-delete',
    tier: 'soft_deny',
    programs: ['git'],
    reason: '`git branch -D` deletes a branch even if its commits are not merged anywhere; use `git branch -d`, or check with the user.',
    examples: {
      match: ['git branch -D feature', 'git branch --delete --force feature', 'git branch -d -f feature', 'git branch -Dr origin/x'],
      notMatch: ['git branch -d feature', 'git branch feature', 'git branch -a'],
    },
    match: (cmd) => {
      const g = git(cmd);
      if (!g || g.sub !== 'branch') return null;
      const p = sub(g, BRANCH_SPEC);
      return p.flags.has('D') || (opt(p, 'd', 'delete') && opt(p, 'f', 'force')) ? true : null;
    },
  }),
  // Soft: -f/-M/-C move or overwrite an existing branch; the old tip survives only in the reflog.
  defineShellRule({
    id: 'git.branch-force-move',
    tier: 'soft_deny',
    programs: ['git'],
    reason: 'Forcing a branch to a new commit (or renaming over one) drops its old tip; check with the user.',
    examples: {
      match: ['git branch -f feature HEAD~3', 'git branch --force feature', 'git branch -M main', 'git branch -C old new'],
      notMatch: ['git branch -m old new', 'git branch new', 'git branch -D x'],
    },
    match: (cmd) => {
      const g = git(cmd);
      if (!g || g.sub !== 'branch') return null;
      const p = sub(g, BRANCH_SPEC);
      if (p.flags.has('D') || opt(p, 'd', 'delete')) return null;
      return opt(p, 'f', 'force') || p.flags.has('M') || p.flags.has('C') ? true : null;
    },
  }),
  // Soft: a tag names a release; `tag -d` drops it with no merged-check (unlike `branch -d`), and an annotated
  // tag's message and signature survive only as an unreachable object. Often the first step of moving a
  // published tag, which is a person's call.
  defineShellRule({
    id: 'git.tag-delete',
    tier: 'soft_deny',
    programs: ['git'],
    reason: 'Deleting a tag removes a release marker (and an annotated tag\'s message and signature); check with the user, and never move a tag that was pushed.',
    examples: {
      match: ['git tag -d v1.0.0', 'git tag --delete v1', 'git tag --del v1 v2', 'git -C sub tag -d v2'],
      notMatch: ['git tag v1.0.0', 'git tag -l', 'git tag -a v1 -m "release"', 'git tag --list "v1.*"'],
    },
    match: (cmd) => {
      const g = git(cmd);
      if (!g || g.sub !== 'tag') return null;
      const p = sub(g, TAG_SPEC);
      return opt(p, 'd', 'delete') ? { subject: values(p.operands).join(' ') || 'tag' } : null;
    },
  }),
  // Hard: rewriting every commit of the repository is never a step an agent should take on its own.
  defineShellRule({
    id: 'git.filter-branch',
    tier: 'hard_deny',
    programs: ['git', 'git-filter-repo', 'bfg'],
    reason: 'Rewriting the whole history (filter-branch, filter-repo, BFG) changes every commit id; a person must do this.',
    examples: {
      match: ['git filter-branch --tree-filter "rm -f x" HEAD', 'git filter-repo --path secrets --invert-paths', 'git-filter-repo --strip-blobs-bigger-than 10M', 'bfg --delete-files id_rsa'],
      notMatch: ['git log --filter=blob:none', 'git branch --filter x'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      if (name === 'git-filter-repo' || name === 'bfg') return true;
      const g = git(cmd);
      return g && (g.sub === 'filter-branch' || g.sub === 'filter-repo') ? true : null;
    },
  }),
  // Soft: the reflog is the last way back to lost commits; expiring it (and pruning) removes that way.
  defineShellRule({
    id: 'git.reflog-expire',
    tier: 'soft_deny',
    programs: ['git'],
    reason: 'Expiring the reflog or pruning unreachable objects removes the last way to recover lost commits; leave it to git\'s defaults.',
    examples: {
      match: ['git reflog expire --expire=now --all', 'git reflog delete HEAD@{1}', 'git gc --prune=now', 'git gc --aggressive --prune=all', 'git prune'],
      notMatch: ['git reflog', 'git gc', 'git prune --dry-run', 'git fetch --prune', 'git worktree prune'],
    },
    match: (cmd) => {
      const g = git(cmd);
      if (!g) return null;
      const a = values(g.args);
      if (g.sub === 'reflog') return a[0] === 'expire' || a[0] === 'delete' ? true : null;
      if (g.sub === 'gc') return a.some((x) => /^--pr(u(ne?)?)?=(now|all)$/.test(x)) ? true : null;
      if (g.sub === 'prune') return a.some((x) => x === '-n' || x === '--dry-run') ? null : true;
      return null;
    },
  }),
  // Soft: update-ref -d deletes a ref with no safety checks at all.
  defineShellRule({
    id: 'git.update-ref-delete',
    tier: 'soft_deny',
    programs: ['git'],
    reason: '`git update-ref -d` deletes a ref without any check; use `git branch -d` / `git tag -d`.',
    examples: {
      match: ['git update-ref -d refs/heads/feature', 'git update-ref --no-deref -d HEAD'],
      notMatch: ['git update-ref refs/heads/x HEAD', 'git show-ref'],
    },
    match: (cmd) => {
      const g = git(cmd);
      if (!g || g.sub !== 'update-ref') return null;
      return g.args.some((w) => w.value === '-d') ? true : null;
    },
  }),
  // Soft: a dropped stash is gone from every list; work parked there is easy to lose.
  defineShellRule({
    id: 'git.stash-destroy',
    tier: 'soft_deny',
    programs: ['git'],
    reason: 'Dropping or clearing stashes throws away the work parked there; apply it or check with the user first.',
    examples: {
      match: ['git stash drop', 'git stash clear', 'git stash drop stash@{0}'],
      notMatch: ['git stash', 'git stash pop', 'git stash list', 'git stash apply'],
    },
    match: (cmd) => {
      const g = git(cmd);
      if (!g || g.sub !== 'stash') return null;
      const first = values(g.args).find((x) => !x.startsWith('-'));
      return first === 'drop' || first === 'clear' ? { subject: `stash ${first}` } : null;
    },
  }),
  // Soft: hooks are the project's own checks; skipping them is sometimes agreed, never silently.
  defineShellRule({
    id: 'git.no-verify',
    tier: 'soft_deny',
    programs: ['git'],
    reason: 'Skipping git hooks skips the project\'s own checks; run them and fix what fails.',
    examples: {
      match: ['git commit --no-verify -m x', 'git commit -nm "x"', 'git push --no-verify', 'HUSKY=0 git commit -m x', 'git merge --no-verify feature', 'git commit -a -n -m wip'],
      notMatch: ['git commit -m "skip --no-verify next time"', 'git commit -m x', 'git push -n', 'git commit -m "-n"'],
    },
    match: (cmd) => {
      const g = git(cmd);
      return g ? noVerifyHit(cmd, g) : null;
    },
  }),
  // Hard: pointing git at another hooks directory runs (or silences) arbitrary code on every commit.
  defineShellRule({
    id: 'git.hooks-path',
    needs: { traits: ['assignment'], programs: ['git'] },
    tier: 'hard_deny',
    reason: 'Changing core.hooksPath swaps the hooks that run on every git command; never do this from an agent.',
    examples: {
      match: ['git config core.hooksPath /tmp/hooks', 'git config --global core.hooksPath .evil', 'git -c core.hooksPath=/dev/null commit -m x', 'git config set core.hooksPath x', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git commit'],
      notMatch: ['git config --get core.hooksPath', 'git config core.hooksPath', 'git config user.name x', 'echo core.hooksPath'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      if (name !== 'git' && cmd.assignments.length === 0) return null;
      return hooksPathHit(cmd, name === 'git' ? parseGit(cmd) : null);
    },
  }),
  // Allow: everyday local git work; the rules above raise the tier for the dangerous forms.
  defineShellRule({
    id: 'git.local',
    tier: 'allow',
    programs: ['git', 'git-lfs'],
    reason: 'Everyday git work.',
    examples: {
      match: ['git status', 'git diff --stat', 'git log --oneline -5', 'git add -A', 'git commit -m "fix: x"', 'git switch -c feature', 'git checkout -b feature', 'git fetch --all', 'git pull --rebase', 'git stash', 'git push origin feature', 'git push', 'git tag v1.0.0', 'git remote -v', 'git config --get user.email', 'git worktree add ../wt feature', 'git --version', 'git -C sub status', 'git branch -d old', 'git-lfs pull', 'git -c alias.st=status st', 'GIT_SSH_COMMAND=./ssh-wrapper git status', 'git clean --dry-r -f'],
      notMatch: ['git remote add evil https://x.example/r.git', 'git config core.sshCommand "sh -c x"', 'git update-ref refs/heads/main HEAD~3', 'git foo', 'GIT_SSH_COMMAND=./ssh-wrapper git fetch', 'git -c alias.st="reset --hard" st', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=less git log'],
    },
    match: (cmd, _ctx, analysis) => {
      if (programName(cmd) === 'git-lfs') {
        // `git-lfs pull` is `git lfs pull` run directly.
        const first = values(cmd.argv.slice(1)).find((x) => !x.startsWith('-'));
        const t = gitEnvTaint(analysis);
        return (first === undefined || LFS_LOCAL.has(first)) && !t.other && !t.network ? true : null;
      }
      const g = git(cmd);
      if (!g || !localHit(g, cmd)) return null;
      const t = gitEnvTaint(analysis);
      return t.other || (t.network && reachesRemote(g)) ? null : true;
    },
  }),
];
