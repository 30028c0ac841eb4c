// Shared helper for the rule families: the paths a shell command writes, modifies or deletes, each with
// its classification, so that one rule can ask "does anything here touch ~/.bashrc?" however it is written.

import { posix } from 'node:path';
import { parseArgs, type ArgSpec, type ParsedArgs } from '../../shell/args.ts';
import { basename, programName, staticValue } from '../../shell/program.ts';
import type { Analysis, SimpleCommand, Word } from '../../shell/types.ts';
import type { PathClass, PathInfo } from '../paths.ts';
import type { RuleContext } from '../rule.ts';
import { ctxFacts, factsOf } from './network.ts';

/** write: content replaced or created; modify: metadata or content changed in place; delete: removed. */
export type TargetKind = 'write' | 'modify' | 'delete';

export interface PathTarget {
  /** The word the path came from (a synthetic word for defaults such as tar's `.`). */
  word: Word;
  /** The path as classified: the word's value, joined with a `cd`/`-C` directory where one applies. */
  path: string;
  info: PathInfo;
  /** How the command touches it: 'redirect', 'tee', 'cp', 'mv', 'rm', 'sed -i', 'tar -x', 'chmod', … */
  how: string;
  kind: TargetKind;
  /**
   * The path is run-time data handed on by find/xargs (`{}`, xargs input). `info` is then dynamic; the rules
   * judge such a command by the find that feeds it.
   */
  placeholder?: boolean;
}

/** How the rm family removes files; the fs rm rules own these targets (other rules may still look). */
export const DELETE_HOWS: ReadonlySet<string> = new Set(['rm', 'rmdir', 'unlink', 'shred', 'find -delete', 'rsync --delete']);

const EMPTY: readonly PathTarget[] = Object.freeze([]);

// ---------------------------------------------------------------------------------------------------------
// Word helpers

export function literalWord(value: string): Word {
  return { raw: value, value, literal: true, glob: false, vars: [], substitutions: [], substitutionKinds: [] };
}

/** A piece of a word (`of=/dev/sda` -> `/dev/sda`), keeping what made the word dynamic. */
function derived(w: Word, value: string): Word {
  return { ...w, value };
}

/** Variables the unwrapper writes in place of run-time data: find's `{}`, xargs' and parallel's input. */
const PLACEHOLDER_VARS: ReadonlySet<string> = new Set(['find_path', 'xargs_input', 'parallel_input']);

/** The unwrapper's stand-in for run-time data (`${find_path}` in the inner command of `find -exec rm {}`). */
export function isPlaceholder(w: Word): boolean {
  const v = w.vars.length === 1 ? w.vars[0]! : null;
  return v !== null && PLACEHOLDER_VARS.has(v) && !w.literal && w.value === `\${${v}}`;
}

/** The value of a word when static, else its value with the run-time parts left in (`$X/a`), which paths see as dynamic. */
function pathValue(w: Word): string {
  return staticValue(w) ?? w.value;
}

/** True for `host:path`, `user@host:path`, `host::module` and `rsync://…`: a remote end, not a local path. */
export function isRemoteSpec(v: string): boolean {
  if (v.startsWith('/') || v.startsWith('./') || v.startsWith('../') || v.startsWith('~')) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return true;
  const colon = v.indexOf(':');
  if (colon <= 0) return false;
  const slash = v.indexOf('/');
  return slash === -1 || colon < slash;
}

/** The directory whose content a last-component glob (`dir/*`) names, or null when the word is no such glob. */
export function globDir(value: string): string | null {
  // `/home/*/` and `/home/*/.` name the same entries as `/home/*` (the directories among them).
  const v = value.length > 1 ? value.replace(/(?:\/+\.?)+$/, '') || '/' : value;
  const last = v.slice(v.lastIndexOf('/') + 1);
  if (!/[*?[]/.test(last)) return null;
  const cut = v.lastIndexOf('/');
  if (cut < 0) return '.';
  if (cut === 0) return '/';
  return v.slice(0, cut);
}

/** True when the classification says the path names a class (helper for readability). */
export function has(info: PathInfo, ...classes: PathClass[]): boolean {
  for (const c of classes) if (info.classes.has(c)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Where relative paths land: `cd /; rm -rf *` must be judged at `/`, not at the project.

const DYN_DIR = '\u0000dynamic';

const REASSIGNABLE: ReadonlySet<string> = new Set(['HOME', 'TMPDIR', 'PWD']);
const DECLARERS: ReadonlySet<string> = new Set(['export', 'declare', 'typeset', 'local', 'readonly', 'read', 'env', 'printf', 'mapfile', 'for']);

interface LineFacts {
  /**
   * Which of HOME, TMPDIR and PWD the line assigns anywhere (`export HOME=/`, `TMPDIR=/ bash -c …`, `read HOME`).
   * The path classifier expands those to the real directories; once the line changes them that is wrong, so
   * paths built on them are treated as only known at run time.
   */
  changed: ReadonlySet<string>;
}

const factsCache = new WeakMap<Analysis, LineFacts>();

/** Facts about the whole line that path targets depend on, gathered in one pass and cached. */
function lineFacts(analysis: Analysis): LineFacts {
  const hit = factsCache.get(analysis);
  if (hit) return hit;
  let changed: Set<string> | null = null;
  for (const c of analysis.commands) {
    for (const a of c.assignments) if (REASSIGNABLE.has(a.name)) (changed ??= new Set()).add(a.name);
    const n = programName(c);
    if (n === null) continue;
    if (DECLARERS.has(n)) {
      for (const w of c.argv) {
        const eq = w.value.indexOf('=');
        const name = eq >= 0 ? w.value.slice(0, eq) : w.value;
        if (REASSIGNABLE.has(name)) (changed ??= new Set()).add(name);
      }
    }
  }
  const facts: LineFacts = { changed: changed ?? EMPTY_SET };
  factsCache.set(analysis, facts);
  return facts;
}

function reassigned(analysis: Analysis | undefined): ReadonlySet<string> {
  return analysis ? lineFacts(analysis).changed : EMPTY_SET;
}

const EMPTY_SET: ReadonlySet<string> = new Set();

/** `${TMPDIR:-/tmp}` is a temp dir either way; `$PWD` follows an earlier `cd`; a reassigned HOME/TMPDIR/PWD is unknown. */
function normalizeValue(value: string, cd: string | null, changed: ReadonlySet<string>): string {
  // Every rewrite below starts at a leading `$`, backquote or `~`: other paths (most of them) stay as they are.
  const c0 = value.charCodeAt(0);
  if (c0 !== 36 /* $ */ && c0 !== 96 /* ` */ && c0 !== 126 /* ~ */) return value;
  // `$(pwd)` and `` `pwd` `` are $PWD by another name.
  let v = value.replace(/^\$\{TMPDIR:[-=](\/tmp|\/var\/tmp)\/?\}/, '$TMPDIR').replace(/^(\$\(\s*pwd(\s+-[LP])?\s*\)|`\s*pwd(\s+-[LP])?\s*`)/, '$PWD');
  const m = /^(?:\$\{(HOME|TMPDIR|PWD)\}|\$(HOME|TMPDIR|PWD)(?![A-Za-z0-9_]))/.exec(v);
  const name = m ? (m[1] ?? m[2])! : v.startsWith('~') && !/^~[A-Za-z0-9_+-]/.test(v) ? 'HOME' : null;
  if (name !== null && changed.has(name)) return '$__reassigned_' + name + (m ? v.slice(m[0].length) : v.slice(1));
  if (m && name === 'PWD' && cd !== null) v = (cd === DYN_DIR ? '$__cd_dir' : cd) + v.slice(m[0].length);
  return v;
}

/** Classifies relative paths of one command against ctx.cwd and, when a `cd` came first, against that directory too. */
class TargetBuilder {
  readonly out: PathTarget[] = [];
  /** Computed on first use: most writer commands (find without -delete) add nothing. */
  private facts: { cd: string | null; changed: ReadonlySet<string> } | null = null;
  private readonly unwrapped: boolean;

  constructor(
    private readonly ctx: RuleContext,
    cmd: SimpleCommand,
    private readonly analysis: Analysis | undefined,
    private readonly base: string | null = null,
  ) {
    this.unwrapped = cmd.wrappedBy !== undefined;
  }

  private get cd(): string | null {
    return this.line().cd;
  }

  private line(): { cd: string | null; changed: ReadonlySet<string> } {
    // Where the command runs (cd, env -C, links) is the context's business now (shell/cwd.ts, policy/workdir.ts):
    // relative paths and $PWD resolve against ctx.cwd.
    this.facts ??= { cd: null, changed: reassigned(this.analysis) };
    return this.facts;
  }

  add(word: Word, how: string, kind: TargetKind, raw: string = pathValue(word)): void {
    const value = normalizeValue(raw, this.cd, this.line().changed);
    if (this.unwrapped && isPlaceholder(word)) {
      this.out.push({ word, path: value, info: { input: value, abs: null, classes: new Set<PathClass>(['dynamic']) }, how, kind, placeholder: true });
      return;
    }
    const relative = !(value.startsWith('/') || value.startsWith('~') || value.startsWith('$') || value.startsWith('file:'));
    // A relative path lands in the directory of an earlier `cd` (or git's -C), when there is one.
    const base = relative ? (this.base ?? this.cd) : null;
    for (const b of [base]) {
      let p = value;
      if (b !== null) {
        if (b === DYN_DIR) {
          this.out.push({ word, path: value, info: { input: value, abs: null, classes: new Set<PathClass>(['dynamic']) }, how, kind });
          continue;
        }
        p = value === '' ? b : posix.join(b, value);
      }
      this.out.push({ word, path: p, info: this.ctx.path(p), how, kind });
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Argument specs of the programs that write files.

const CP_SPEC: ArgSpec = {
  shortWithValue: 'tS',
  longWithValue: ['target-directory', 'suffix', 'no-preserve', 'sparse'],
  aliases: { 'target-directory': 't', recursive: 'r', R: 'r', force: 'f', 'no-target-directory': 'T' },
};
const INSTALL_SPEC: ArgSpec = {
  shortWithValue: 'gmoSt',
  longWithValue: ['group', 'mode', 'owner', 'suffix', 'target-directory', 'strip-program'],
  aliases: { 'target-directory': 't', directory: 'd' },
};
const LN_SPEC: ArgSpec = { shortWithValue: 'St', longWithValue: ['suffix', 'target-directory'], aliases: { 'target-directory': 't' } };
const RSYNC_SPEC: ArgSpec = {
  shortWithValue: 'efBTM@',
  longWithValue: [
    'rsh', 'rsync-path', 'filter', 'exclude', 'include', 'exclude-from', 'include-from', 'files-from', 'temp-dir',
    'compare-dest', 'copy-dest', 'link-dest', 'partial-dir', 'backup-dir', 'suffix', 'chmod', 'chown', 'usermap',
    'groupmap', 'log-file', 'log-file-format', 'password-file', 'out-format', 'max-size', 'min-size', 'bwlimit',
    'timeout', 'port', 'sockopts', 'modify-window', 'block-size', 'compress-level', 'max-delete', 'info', 'debug',
    'iconv', 'outbuf', 'protocol', 'checksum-choice', 'compress-choice', 'address', 'contimeout', 'write-batch',
    'only-write-batch', 'read-batch', 'skip-compress', 'stop-after', 'stop-at', 'remote-option',
  ],
};
const SED_SPEC: ArgSpec = {
  shortWithValue: 'efl',
  longWithValue: ['expression', 'file', 'line-length'],
  aliases: { expression: 'e', file: 'f', 'in-place': 'i' },
};
const PERL_SPEC: ArgSpec = { shortWithValue: 'eE', stopAtFirstOperand: true };
const RUBY_SPEC: ArgSpec = { shortWithValue: 'eIrC', stopAtFirstOperand: true };
const TRUNCATE_SPEC: ArgSpec = { shortWithValue: 'sr', longWithValue: ['size', 'reference'] };
const TOUCH_SPEC: ArgSpec = { shortWithValue: 'dtr', longWithValue: ['date', 'reference', 'time'] };
// `--context[=CTX]`'s value is optional and only ever attached: as the next word it would swallow a directory.
const MKDIR_SPEC: ArgSpec = { shortWithValue: 'm', longWithValue: ['mode'] };
const PATCH_SPEC: ArgSpec = {
  shortWithValue: 'pdiorDBYzVFg',
  longWithValue: ['strip', 'directory', 'input', 'output', 'reject-file', 'ifdef', 'prefix', 'basename-prefix', 'suffix', 'version-control', 'fuzz', 'get'],
  aliases: { directory: 'd', output: 'o', 'reject-file': 'r' },
};
const TAR_SPEC: ArgSpec = {
  shortWithValue: 'fCbTXKNLgVHI',
  longWithValue: [
    'file', 'directory', 'files-from', 'exclude-from', 'use-compress-program', 'to-command', 'checkpoint-action',
    'format', 'label', 'owner', 'group', 'mode', 'mtime', 'newer', 'after-date', 'transform', 'xform', 'suffix',
    'volno-file', 'info-script', 'new-volume-script', 'rsh-command', 'index-file', 'blocking-factor', 'record-size',
    'tape-length', 'listed-incremental', 'newer-mtime', 'sort', 'warning', 'level', 'exclude', 'strip-components',
  ],
  aliases: {
    extract: 'x', get: 'x', create: 'c', append: 'r', update: 'u', concatenate: 'A', catenate: 'A', file: 'f',
    directory: 'C', list: 't',
  },
};
/**
 * What `ln` links to: each target with the link it makes (the last operand, a `-t` directory, or the current
 * directory). A symlink's relative target is resolved from the link's directory, as the kernel does; a hard
 * link's from the current directory. A hard link is the same file under a new name: a write to it changes the
 * target, and no realpath shows it.
 */
export function linkTargets(cmd: SimpleCommand): { target: string; link: string; symbolic: boolean }[] {
  if (programName(cmd) !== 'ln') return [];
  const p = parseArgs(cmd, LN_SPEC);
  const symbolic = p.flags.has('s') || p.flags.has('symbolic');
  const ops = p.operands.map((w) => staticValue(w) ?? w.value);
  const dir = p.flags.get('t');
  let targets: string[];
  let linkOf: (t: string) => string;
  if (typeof dir === 'string') {
    targets = ops;
    linkOf = (t) => posix.join(dir, posix.basename(t));
  } else if (ops.length >= 2) {
    targets = ops.slice(0, -1);
    const last = ops[ops.length - 1]!;
    linkOf = (t) => (ops.length > 2 || last.endsWith('/') ? posix.join(last, posix.basename(t)) : last);
  } else {
    targets = ops;
    linkOf = (t) => posix.basename(t);
  }
  return targets.map((t) => {
    const link = linkOf(t);
    const absolute = t.startsWith('/') || t.startsWith('~') || t.startsWith('$');
    return { target: absolute || !symbolic ? t : posix.join(posix.dirname(link), t), link, symbolic };
  });
}

/** Old-style tar letters that take the next word as their value, in the order they appear (`tar czfC a.tgz dir`). */
const TAR_VALUE_LETTERS = 'fCbTXKNLgVHI';
const CURL_SPEC: ArgSpec = {
  shortWithValue: 'AbcCdDeEFHKmoPQrtTuUwxXyYz',
  longWithValue: [
    'output', 'output-dir', 'dump-header', 'cookie-jar', 'cookie', 'data', 'data-raw', 'data-binary', 'data-ascii',
    'data-urlencode', 'json', 'form', 'form-string', 'header', 'proxy-header', 'user-agent', 'referer', 'url', 'user',
    'request', 'config', 'upload-file', 'write-out', 'proxy', 'proxy-user', 'max-time', 'connect-timeout', 'retry',
    'retry-delay', 'retry-max-time', 'cacert', 'capath', 'cert', 'key', 'cert-type', 'key-type', 'pass', 'range',
    'continue-at', 'resolve', 'connect-to', 'interface', 'limit-rate', 'max-filesize', 'max-redirs', 'oauth2-bearer',
    'trace', 'trace-ascii', 'stderr', 'etag-save', 'etag-compare', 'libcurl', 'unix-socket', 'abstract-unix-socket',
    'time-cond', 'ftp-port', 'quote', 'telnet-option', 'hostpubmd5', 'pubkey', 'krb', 'socks5', 'socks5-hostname',
    'preproxy', 'noproxy', 'dns-servers', 'aws-sigv4', 'variable', 'expand-url', 'expand-data', 'parallel-max',
  ],
  aliases: { output: 'o', 'dump-header': 'D', 'cookie-jar': 'c', 'remote-name': 'O', 'remote-name-all': 'O' },
};
const WGET_SPEC: ArgSpec = {
  shortWithValue: 'oaiBetOTwQPlARDIXU',
  longWithValue: [
    'output-document', 'directory-prefix', 'output-file', 'append-output', 'input-file', 'base', 'execute', 'tries',
    'timeout', 'wait', 'quota', 'level', 'accept', 'reject', 'domains', 'include-directories', 'exclude-directories',
    'user-agent', 'header', 'post-data', 'post-file', 'body-data', 'body-file', 'method', 'user', 'password',
    'http-user', 'http-password', 'load-cookies', 'save-cookies', 'ca-certificate', 'certificate', 'private-key',
  ],
  aliases: { 'output-document': 'O', 'directory-prefix': 'P', 'output-file': 'o', 'append-output': 'a', 'save-cookies': 'save-cookies' },
};
const SORT_SPEC: ArgSpec = {
  shortWithValue: 'koStT',
  longWithValue: ['key', 'output', 'buffer-size', 'field-separator', 'temporary-directory', 'files0-from', 'compress-program', 'parallel', 'batch-size', 'random-source'],
  aliases: { output: 'o' },
};
const UNIQ_SPEC: ArgSpec = { shortWithValue: 'fsw', longWithValue: ['skip-fields', 'skip-chars', 'check-chars'] };
const SCP_SPEC: ArgSpec = { shortWithValue: 'cFiJloPSX' };
const CHOWN_SPEC: ArgSpec = { longWithValue: ['from'], aliases: { recursive: 'R' } };
const SETFACL_SPEC: ArgSpec = { shortWithValue: 'mMxX', longWithValue: ['modify', 'modify-file', 'remove', 'remove-file', 'set', 'set-file'], aliases: { recursive: 'R' } };
const RM_SPEC: ArgSpec = { longWithValue: [], aliases: { recursive: 'r', R: 'r', force: 'f', dir: 'd' } };
const SHRED_SPEC: ArgSpec = { shortWithValue: 'ns', longWithValue: ['iterations', 'size', 'random-source'] };
const MKFIFO_SPEC: ArgSpec = { shortWithValue: 'm', longWithValue: ['mode'] };
const COMPRESS_SPEC: ArgSpec = { shortWithValue: 'SbT', longWithValue: ['suffix', 'threads', 'memlimit'], aliases: { stdout: 'c', 'to-stdout': 'c', keep: 'k', test: 't', list: 'l' } };
const ZSTD_SPEC: ArgSpec = { shortWithValue: 'oDBTLM', longWithValue: ['output', 'dict', 'format', 'threads', 'memory', 'patch-from'], aliases: { stdout: 'c', output: 'o', test: 't', list: 'l' } };
// -d/-x and --numeric-suffixes/--hex-suffixes take no value (or only one attached with `=`): listed, they swallowed the operand after them.
const SPLIT_SPEC: ArgSpec = { shortWithValue: 'abClnt', longWithValue: ['suffix-length', 'bytes', 'line-bytes', 'lines', 'number', 'separator', 'additional-suffix', 'filter'] };
const CSPLIT_SPEC: ArgSpec = { shortWithValue: 'bfn', longWithValue: ['suffix-format', 'prefix', 'digits'], aliases: { prefix: 'f' } };
const DOS2UNIX_SPEC: ArgSpec = { shortWithValue: 'c', longWithValue: ['convmode'] };
const ZIP_SPEC: ArgSpec = { shortWithValue: 'bnOPtx', longWithValue: ['output-file', 'temp-path', 'suffixes', 'password', 'exclude', 'include'], aliases: { 'output-file': 'O', move: 'm' } };
const DDRESCUE_SPEC: ArgSpec = { shortWithValue: 'abBcCeEiIKlLmMoOsSTxZ', longWithValue: ['domain-mapfile', 'size', 'input-position', 'output-position'] };

/**
 * The specs of the GNU tools among these, by program: test/policy/option-tables.test.ts checks every short
 * option listed as taking a value against the installed tool (a flag listed there hides the file after it).
 */
export const GNU_WRITE_SPECS: Readonly<Record<string, ArgSpec>> = {
  cp: CP_SPEC, install: INSTALL_SPEC, ln: LN_SPEC, sed: SED_SPEC, mkdir: MKDIR_SPEC, patch: PATCH_SPEC, sort: SORT_SPEC,
  uniq: UNIQ_SPEC, truncate: TRUNCATE_SPEC, touch: TOUCH_SPEC, shred: SHRED_SPEC, mkfifo: MKFIFO_SPEC, split: SPLIT_SPEC,
  csplit: CSPLIT_SPEC,
};

export function parseRm(cmd: SimpleCommand): ParsedArgs {
  return parseArgs(cmd, RM_SPEC);
}

// ---------------------------------------------------------------------------------------------------------
// git: global options before the subcommand, shared with the git rules.

export interface GitInvocation {
  /** Lower-cased subcommand, or null for a bare `git` / `git --version`. */
  sub: string | null;
  /** Words after the subcommand. */
  args: Word[];
  /** `-c key=value` and `--config-env key=ENV` pairs; keys lower-cased. */
  configs: { key: string; value: string; word: Word }[];
  /** The directory of `-C dir` (several compose), or null; DYN when dynamic. */
  dir: string | null;
  /** A global option word is only known at run time. */
  dynamic: boolean;
  /** Global options seen (`--no-pager`, `--git-dir`…), for rules that care. */
  globals: string[];
}

const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--list-cmds', '--attr-source']);

const gitCache = new WeakMap<SimpleCommand, GitInvocation>();

/** Parse `git [global options] <sub> args…`. Call only for commands whose program is git. */
export function parseGit(cmd: SimpleCommand): GitInvocation {
  const cached = gitCache.get(cmd);
  if (cached) return cached;
  const words = cmd.argv.slice(1);
  const configs: GitInvocation['configs'] = [];
  const globals: string[] = [];
  let dir: string | null = null;
  let dynamic = false;
  let i = 0;
  for (; i < words.length; i++) {
    const w = words[i]!;
    const v = staticValue(w);
    if (v === null) {
      dynamic = true;
      // A dynamic word where the subcommand should be: nothing more is known.
      if (!w.value.startsWith('-')) break;
      continue;
    }
    if (!v.startsWith('-')) break;
    if (v === '--') {
      i++;
      break;
    }
    const eq = v.indexOf('=');
    const name = v.startsWith('--') && eq > 0 ? v.slice(0, eq) : v;
    globals.push(name);
    let value: Word | undefined;
    if (GIT_GLOBAL_WITH_VALUE.has(name)) {
      if (name !== v) value = derived(w, v.slice(eq + 1));
      else value = words[++i];
    } else if (name.startsWith('-c') && name.length > 2 && !name.startsWith('--')) {
      // `-ccore.hooksPath=x` is accepted by git's option parser too.
      value = derived(w, v.slice(2));
      globals[globals.length - 1] = '-c';
    } else if (name.startsWith('-C') && name.length > 2 && !name.startsWith('--')) {
      value = derived(w, v.slice(2));
      globals[globals.length - 1] = '-C';
    }
    const g = globals[globals.length - 1]!;
    if (!value) continue;
    const vv = staticValue(value);
    if (vv === null) dynamic = true;
    if (g === '-c' || g === '--config-env') {
      const s = vv ?? value.value;
      const e = s.indexOf('=');
      const key = (e >= 0 ? s.slice(0, e) : s).toLowerCase();
      configs.push({ key, value: e >= 0 ? s.slice(e + 1) : 'true', word: value });
    } else if (g === '-C') {
      if (vv === null || dir === DYN_DIR) dir = DYN_DIR;
      else dir = dir === null || vv.startsWith('/') || vv.startsWith('~') ? vv : posix.join(dir, vv);
    }
  }
  const subWord = words[i];
  // Subcommands are case-sensitive (`git RESET` is an error, not a reset).
  const sub = subWord ? staticValue(subWord) : null;
  if (subWord && sub === null) dynamic = true;
  const out: GitInvocation = { sub, args: subWord ? words.slice(i + 1) : [], configs, dir, dynamic, globals };
  gitCache.set(cmd, out);
  return out;
}

export const GIT_DYNAMIC_DIR = DYN_DIR;

/** Operands of a git subcommand's args that come after `--`, or all non-option operands when there is no `--`. */
function gitPathspecs(args: Word[], spec: ArgSpec): { beforeDashes: Word[]; afterDashes: Word[] | null; parsed: ParsedArgs } {
  const dd = args.findIndex((w) => w.value === '--');
  const parsed = parseArgs(dd >= 0 ? args.slice(0, dd) : args, spec);
  return { beforeDashes: parsed.operands, afterDashes: dd >= 0 ? args.slice(dd + 1) : null, parsed };
}

const GIT_CHECKOUT_SPEC: ArgSpec = { shortWithValue: 'bBU', longWithValue: ['orphan', 'conflict', 'pathspec-from-file', 'unified', 'inter-hunk-context'], aliases: { force: 'f' } };
const GIT_RESTORE_SPEC: ArgSpec = {
  shortWithValue: 's',
  longWithValue: ['source', 'pathspec-from-file', 'conflict', 'unified', 'inter-hunk-context'],
  aliases: { staged: 'S', worktree: 'W', source: 's', patch: 'p' },
};

export interface GitRestore {
  /** The working tree is overwritten (no --staged, or --staged with --worktree), and git will act (no --help). */
  worktree: boolean;
  /** Paths named on the command line. */
  paths: Word[];
  /** Paths come from a file or an interactive selection (-p), so they are not known here. */
  unlisted: boolean;
}

/** What `git restore …` overwrites. */
export function gitRestore(args: Word[]): GitRestore {
  const { beforeDashes, afterDashes, parsed } = gitPathspecs(args, GIT_RESTORE_SPEC);
  const help = parsed.flags.has('help') || parsed.flags.has('h');
  // Later options win, and `--no-X` undoes `X`: `git restore -W --no-worktree f` restores nothing.
  let staged = false;
  let worktree: boolean | null = null;
  let patch = false;
  for (const f of parsed.flagList) {
    if (f.name === 'S') staged = true;
    else if (f.name === 'no-staged') staged = false;
    else if (f.name === 'W') worktree = true;
    else if (f.name === 'no-worktree') worktree = false;
    else if (f.name === 'p') patch = true;
    else if (f.name === 'no-patch') patch = false;
  }
  // Without --worktree/--staged git restores the working tree; --staged alone restores the index only; with
  // neither in effect (`--no-worktree` alone) git refuses and nothing changes.
  const touchesWorktree = !help && (worktree ?? !staged);
  const unlisted = parsed.flags.has('pathspec-from-file') || patch;
  return { worktree: touchesWorktree, paths: [...beforeDashes, ...(afterDashes ?? [])], unlisted };
}
const GIT_RM_SPEC: ArgSpec = { longWithValue: ['pathspec-from-file'], aliases: { cached: 'cached', recursive: 'r', force: 'f' } };
const GIT_CLONE_SPEC: ArgSpec = {
  shortWithValue: 'obcju',
  longWithValue: ['origin', 'branch', 'config', 'depth', 'jobs', 'upload-pack', 'template', 'reference', 'reference-if-able', 'separate-git-dir', 'shallow-since', 'shallow-exclude', 'filter', 'server-option', 'bundle-uri', 'ref-format', 'revision'],
};
const GIT_WORKTREE_SPEC: ArgSpec = { shortWithValue: 'bB', longWithValue: ['reason'] };

/** Which working-tree files a git subcommand overwrites or removes (for selfmod and the write rules). */
function gitTargets(cmd: SimpleCommand, b: TargetBuilder): void {
  const g = parseGit(cmd);
  const args = g.args;
  switch (g.sub) {
    case 'checkout': {
      const { beforeDashes, afterDashes, parsed } = gitPathspecs(dropOptionalValues(args), GIT_CHECKOUT_SPEC);
      if (parsed.flags.has('help') || parsed.flags.has('h')) break;
      if (parsed.flags.has('b') || parsed.flags.has('B') || parsed.flags.has('orphan')) break;
      // `checkout <tree> -- paths`, `checkout -- paths`, `checkout <tree> <paths…>` (2+ operands), `checkout .`
      let paths: Word[] = afterDashes ?? [];
      if (afterDashes === null) {
        if (beforeDashes.length >= 2) paths = beforeDashes.slice(1);
        else if (beforeDashes.length === 1 && looksLikePath(beforeDashes[0]!.value)) paths = beforeDashes;
      }
      for (const w of paths) b.add(w, 'git checkout', 'write');
      break;
    }
    case 'restore': {
      const r = gitRestore(args);
      if (!r.worktree) break;
      for (const w of r.paths) b.add(w, 'git restore', 'write');
      break;
    }
    case 'rm': {
      const { beforeDashes, afterDashes, parsed } = gitPathspecs(args, GIT_RM_SPEC);
      if (parsed.flags.has('cached')) break;
      for (const w of [...beforeDashes, ...(afterDashes ?? [])]) b.add(w, 'git rm', 'delete');
      break;
    }
    case 'mv': {
      const ops = parseArgs(args, {}).operands;
      if (ops.length >= 2) {
        for (const w of ops.slice(0, -1)) b.add(w, 'git mv', 'delete');
        b.add(ops[ops.length - 1]!, 'git mv', 'write');
      }
      break;
    }
    case 'clone': {
      const ops = parseArgs(args, GIT_CLONE_SPEC).operands;
      const dest = ops[1];
      if (dest) b.add(dest, 'git clone', 'write');
      else if (ops[0]) {
        const v = staticValue(ops[0]);
        if (v !== null) {
          const name = basename(v.replace(/\/+$/, '')).replace(/\.git$/, '').replace(/^.*:/, '');
          if (name) b.add(literalWord(name), 'git clone', 'write');
        }
      }
      break;
    }
    case 'worktree': {
      const sub = args[0]?.value;
      if (sub !== 'add') break;
      const ops = parseArgs(args.slice(1), GIT_WORKTREE_SPEC).operands;
      if (ops[0]) b.add(ops[0], 'git worktree', 'write');
      break;
    }
    case 'diff': case 'log': case 'show': case 'format-patch': case 'archive': case 'bundle': {
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v.startsWith('--output=')) b.add(derived(args[i]!, v.slice(9)), `git ${g.sub}`, 'write');
        else if ((v === '--output' || v === '-o' || v === '--output-directory') && args[i + 1]) b.add(args[++i]!, `git ${g.sub}`, 'write');
        else if (v.startsWith('--output-directory=')) b.add(derived(args[i]!, v.slice(19)), `git ${g.sub}`, 'write');
      }
      if (g.sub === 'bundle' && args[0]?.value === 'create' && args[1]) b.add(args[1], 'git bundle', 'write');
      break;
    }
    default:
      break;
  }
}

/** `--track direct` and `--recurse-submodules on-demand`: words that belong to the option before them. */
function dropOptionalValues(args: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    out.push(args[i]!);
    const v = args[i]!.value;
    const next = args[i + 1]?.value;
    if ((v === '--track' && (next === 'direct' || next === 'inherit')) || (v === '--recurse-submodules' && (next === 'checkout' || next === 'on-demand' || next === 'yes' || next === 'no'))) i++;
  }
  return out;
}

/** `git checkout X` with one operand is a branch switch unless X looks like a path. */
function looksLikePath(v: string): boolean {
  return v === '.' || v === '..' || v.startsWith('./') || v.startsWith('../') || v.startsWith('/') || v.startsWith(':') || /[*?]/.test(v);
}

// ---------------------------------------------------------------------------------------------------------
// The programs that write or delete, by name.

type Collector = (cmd: SimpleCommand, b: TargetBuilder, words: Word[]) => void;

function destOf(p: ParsedArgs, flag = 't'): { dest: Word | null; sources: Word[] } {
  const t = p.flagList.filter((f) => f.name === flag).pop();
  if (t && typeof t.value === 'string') {
    return { dest: derived(t.word, t.value), sources: p.operands };
  }
  if (p.operands.length >= 2) return { dest: p.operands[p.operands.length - 1]!, sources: p.operands.slice(0, -1) };
  return { dest: null, sources: p.operands };
}

/**
 * `cp -t DIR a b`, `cp a b DIR/`, `install x ~`: the files written are DIR/basename(source), which the rules must
 * see by name (`cp -t ~ .bashrc` writes ~/.bashrc). DEST counts as a directory when -t names it, when there are
 * several sources, or when it can only be one (`.`, `..`, `~`, a trailing slash). -T says it is not.
 */
function intoDir(b: TargetBuilder, p: ParsedArgs, dest: Word, sources: readonly Word[], how: string): void {
  if (p.flags.has('T') || sources.length === 0) return;
  const d = staticValue(dest);
  if (d === null) return;
  const isDir = p.flags.has('t') || sources.length > 1 || d.endsWith('/') || d === '.' || d === '..' || d === '~' || d.endsWith('/.') || d.endsWith('/..');
  if (!isDir) return;
  for (const s of sources) {
    const v = staticValue(s);
    if (v === null) continue;
    const name = posix.basename(v.replace(/\/+$/, ''));
    if (name === '' || name === '.' || name === '..' || name === '~') continue;
    b.add(derived(dest, `${d.replace(/\/+$/, '')}/${name}`), how, 'write');
  }
}

function chmodLike(modeFirst: boolean, spec: ArgSpec | null): Collector {
  return (cmd, b, words) => {
    const how = programName(cmd) ?? 'chmod';
    if (how === 'chmod') {
      const c = parseChmod(words);
      for (const w of c.files) b.add(w, 'chmod', 'modify');
      return;
    }
    const p = parseArgs(words, spec ?? {});
    const hasRef = [...p.flags.keys()].some((k) => k === 'reference');
    const files = modeFirst && !hasRef ? p.operands.slice(1) : p.operands;
    for (const w of files) b.add(w, how, 'modify');
  };
}

export interface ChmodArgs {
  mode: string | null;
  modeDynamic: boolean;
  files: Word[];
  recursive: boolean;
}

const CHMOD_FLAG = /^-[Rcfv]+$/;
const CHMOD_MODE = /^(?:[0-7]{1,4}|[ugoa]*(?:[-+=][rwxXstugo]*)+(?:,[ugoa]*(?:[-+=][rwxXstugo]*)+)*)$/;

/** chmod's operands, read by hand: `-w` and `-x` are modes, not options. */
export function parseChmod(words: readonly Word[]): ChmodArgs {
  let mode: string | null = null;
  let modeDynamic = false;
  let recursive = false;
  let reference = false;
  let optionsDone = false;
  const files: Word[] = [];
  for (const w of words) {
    const v = staticValue(w);
    if (!optionsDone && v !== null) {
      if (v === '--') {
        optionsDone = true;
        continue;
      }
      if (v === '--recursive') {
        recursive = true;
        continue;
      }
      if (v.startsWith('--reference=')) {
        reference = true;
        continue;
      }
      if (v.startsWith('--')) continue;
      if (CHMOD_FLAG.test(v)) {
        if (v.includes('R')) recursive = true;
        continue;
      }
    }
    if (mode === null && !reference && !modeDynamic) {
      if (v === null) modeDynamic = true;
      else if (CHMOD_MODE.test(v)) mode = v;
      else mode = v;
      continue;
    }
    files.push(w);
  }
  return { mode, modeDynamic, files, recursive };
}

function tarCollector(_cmd: SimpleCommand, b: TargetBuilder, words: Word[]): void {
  const t = parseTar(words);
  if (t.extract) {
    const dir = t.dir ?? literalWord('.');
    b.add(dir, 'tar -x', 'write');
  }
  if (t.create && t.file && t.file.value !== '-') b.add(t.file, 'tar -c', 'write');
}

export interface TarArgs {
  extract: boolean;
  create: boolean;
  file: Word | null;
  dir: Word | null;
  parsed: ParsedArgs;
}

/** tar in both its option styles: `tar -xzf a.tgz -C dir` and the old `tar xzfC a.tgz dir`. */
export function parseTar(words: readonly Word[]): TarArgs {
  let rest = words.slice();
  const pre: { name: string; value: Word | null }[] = [];
  const first = rest[0];
  if (first && first.literal && /^[A-Za-z]+$/.test(first.value)) {
    // Old style: a bare letter cluster; value letters take the following words in order.
    rest = rest.slice(1);
    for (const ch of first.value) {
      if (TAR_VALUE_LETTERS.includes(ch)) pre.push({ name: ch, value: rest.shift() ?? null });
      else pre.push({ name: ch, value: null });
    }
  }
  const parsed = parseArgs(rest, TAR_SPEC);
  const flag = (n: string): boolean => pre.some((p) => p.name === n) || parsed.flags.has(n);
  const valueOf = (n: string): Word | null => {
    const f = parsed.flagList.filter((x) => x.name === n).pop();
    if (f && typeof f.value === 'string') return derived(f.word, f.value);
    const p = pre.filter((x) => x.name === n && x.value).pop();
    return p?.value ?? null;
  };
  return {
    extract: flag('x'),
    create: flag('c') || flag('r') || flag('u') || flag('A') || parsed.flags.has('delete'),
    file: valueOf('f'),
    dir: valueOf('C'),
    parsed,
  };
}

const COLLECTORS: Readonly<Record<string, Collector>> = {
  tee: (_c, b, w) => {
    for (const o of parseArgs(w, {}).operands) b.add(o, 'tee', 'write');
  },
  sponge: (_c, b, w) => {
    for (const o of parseArgs(w, {}).operands) b.add(o, 'sponge', 'write');
  },
  cp: (_c, b, w) => {
    const p = parseArgs(w, CP_SPEC);
    const { dest, sources } = destOf(p);
    if (dest) b.add(dest, 'cp', 'write');
    if (dest) intoDir(b, p, dest, sources, 'cp');
  },
  mv: (_c, b, w) => {
    const p = parseArgs(w, CP_SPEC);
    const { dest, sources } = destOf(p);
    if (dest) b.add(dest, 'mv', 'write');
    if (dest) intoDir(b, p, dest, sources, 'mv');
    for (const s of sources) b.add(s, 'mv', 'delete');
  },
  install: (_c, b, w) => {
    const p = parseArgs(w, INSTALL_SPEC);
    if (p.flags.has('d')) {
      for (const o of p.operands) b.add(o, 'install', 'write');
      return;
    }
    const { dest, sources } = destOf(p);
    if (dest) b.add(dest, 'install', 'write');
    if (dest) intoDir(b, p, dest, sources, 'install');
  },
  ln: (_c, b, w) => {
    const p = parseArgs(w, LN_SPEC);
    const { dest } = destOf(p);
    if (dest) b.add(dest, 'ln', 'write');
    else if (p.operands.length === 1) {
      const v = staticValue(p.operands[0]);
      b.add(literalWord(v === null ? p.operands[0]!.value : basename(v)), 'ln', 'write');
    }
  },
  rsync: (_c, b, w) => {
    const p = parseArgs(w, RSYNC_SPEC);
    if (p.operands.length < 2) return;
    // A dry run (or a listing) changes nothing at the destination.
    if (p.flags.has('n') || p.flags.has('dry-run') || p.flags.has('list-only')) return;
    const dest = p.operands[p.operands.length - 1]!;
    const sources = p.operands.slice(0, -1);
    const keys = [...p.flags.keys()];
    if (!isRemoteSpec(dest.value)) {
      b.add(dest, 'rsync', 'write');
      if (keys.some((k) => k === 'del' || k.startsWith('delete'))) b.add(dest, 'rsync --delete', 'delete');
    }
    if (p.flags.has('remove-source-files')) for (const s of sources) if (!isRemoteSpec(s.value)) b.add(s, 'rsync', 'delete');
  },
  scp: (_c, b, w) => {
    const p = parseArgs(w, SCP_SPEC);
    if (p.operands.length < 2) return;
    const dest = p.operands[p.operands.length - 1]!;
    if (!isRemoteSpec(dest.value)) b.add(dest, 'scp', 'write');
  },
  dd: (_c, b, w) => {
    for (const x of w) {
      const v = x.value;
      if (v.startsWith('of=')) b.add(derived(x, v.slice(3)), 'dd', 'write');
    }
  },
  sed: (_c, b, w) => inPlace(b, w, SED_SPEC, 'sed -i', true),
  perl: (_c, b, w) => inPlace(b, w, PERL_SPEC, 'perl -i', false),
  ruby: (_c, b, w) => inPlace(b, w, RUBY_SPEC, 'ruby -i', false),
  truncate: (_c, b, w) => {
    for (const o of parseArgs(w, TRUNCATE_SPEC).operands) b.add(o, 'truncate', 'write');
  },
  touch: (_c, b, w) => {
    for (const o of parseArgs(w, TOUCH_SPEC).operands) b.add(o, 'touch', 'modify');
  },
  mkdir: (_c, b, w) => {
    for (const o of parseArgs(w, MKDIR_SPEC).operands) b.add(o, 'mkdir', 'write');
  },
  mkfifo: (_c, b, w) => {
    for (const o of parseArgs(w, MKFIFO_SPEC).operands) b.add(o, 'mkfifo', 'write');
  },
  patch: (_c, b, w) => {
    const p = parseArgs(w, PATCH_SPEC);
    const out = p.flagList.filter((f) => f.name === 'o' || f.name === 'r');
    for (const f of out) if (typeof f.value === 'string') b.add(literalWordFrom(f.word, f.value), 'patch', 'write');
    if (p.operands[0]) b.add(p.operands[0], 'patch', 'write');
    else {
      // The files come from the patch itself: the tree it applies in is what is at risk.
      const d = p.flagList.filter((f) => f.name === 'd').pop();
      b.add(d && typeof d.value === 'string' ? literalWordFrom(d.word, d.value) : literalWord('.'), 'patch', 'write');
    }
  },
  tar: tarCollector,
  bsdtar: tarCollector,
  gtar: tarCollector,
  unzip: (_c, b, w) => {
    let dir: Word | null = null;
    let listOnly = false;
    for (let i = 0; i < w.length; i++) {
      const v = w[i]!.value;
      if (v === '-d' && w[i + 1]) dir = w[++i]!;
      else if (v.startsWith('-d') && v.length > 2 && !v.startsWith('--')) dir = derived(w[i]!, v.slice(2));
      else if (/^-[A-Za-z]*[lptvZ]/.test(v) && !v.startsWith('--') && i === 0) listOnly = true;
    }
    if (!listOnly) b.add(dir ?? literalWord('.'), 'unzip', 'write');
  },
  curl: (_c, b, w) => {
    const p = parseArgs(w, CURL_SPEC);
    const outDir = p.flagList.filter((f) => f.name === 'output-dir').pop();
    for (const f of p.flagList) {
      if ((f.name === 'o' || f.name === 'D' || f.name === 'c' || f.name === 'trace' || f.name === 'trace-ascii' || f.name === 'stderr' || f.name === 'etag-save' || f.name === 'libcurl') && typeof f.value === 'string') {
        if (f.value === '-') continue;
        const base = outDir && typeof outDir.value === 'string' && !f.value.startsWith('/') && f.name === 'o' ? posix.join(outDir.value, f.value) : f.value;
        b.add(literalWordFrom(f.word, base), 'curl -o', 'write');
      }
    }
    if (p.flags.has('O') || p.flags.has('J')) {
      b.add(outDir && typeof outDir.value === 'string' ? literalWordFrom(outDir.word, outDir.value) : literalWord('.'), 'curl -o', 'write');
    }
  },
  wget: (_c, b, w) => {
    const p = parseArgs(w, WGET_SPEC);
    const doc = p.flagList.filter((f) => f.name === 'O').pop();
    for (const f of p.flagList) {
      if ((f.name === 'o' || f.name === 'a' || f.name === 'save-cookies') && typeof f.value === 'string') b.add(literalWordFrom(f.word, f.value), 'wget -O', 'write');
    }
    if (doc && typeof doc.value === 'string') {
      if (doc.value !== '-') b.add(literalWordFrom(doc.word, doc.value), 'wget -O', 'write');
      return;
    }
    const prefix = p.flagList.filter((f) => f.name === 'P').pop();
    if (p.operands.length > 0 || p.flags.has('i')) {
      b.add(prefix && typeof prefix.value === 'string' ? literalWordFrom(prefix.word, prefix.value) : literalWord('.'), 'wget -O', 'write');
    }
  },
  sort: (_c, b, w) => {
    for (const f of parseArgs(w, SORT_SPEC).flagList) if (f.name === 'o' && typeof f.value === 'string') b.add(literalWordFrom(f.word, f.value), 'sort -o', 'write');
  },
  uniq: (_c, b, w) => {
    const ops = parseArgs(w, UNIQ_SPEC).operands;
    if (ops[1] && ops[1].value !== '-') b.add(ops[1], 'uniq', 'write');
  },
  xxd: (_c, b, w) => {
    const ops = parseArgs(w, { shortWithValue: 'cglnso' }).operands;
    if (ops[1] && ops[1].value !== '-') b.add(ops[1], 'xxd', 'write');
  },
  openssl: (_c, b, w) => {
    for (let i = 0; i < w.length; i++) if (w[i]!.value === '-out' && w[i + 1]) b.add(w[++i]!, 'openssl -out', 'write');
  },
  chmod: chmodLike(true, null),
  chown: chmodLike(true, CHOWN_SPEC),
  chgrp: chmodLike(true, CHOWN_SPEC),
  chattr: (_c, b, w) => {
    for (const x of w) {
      const v = x.value;
      if (/^[-+=][aAcCdDeFijmPsStTux]+$/.test(v) || /^-[RVf]+$/.test(v) || v === '-v' || v === '-p') continue;
      b.add(x, 'chattr', 'modify');
    }
  },
  setfacl: (_c, b, w) => {
    for (const o of parseArgs(w, SETFACL_SPEC).operands) b.add(o, 'setfacl', 'modify');
  },
  gzip: compress,
  gunzip: compress,
  bzip2: compress,
  bunzip2: compress,
  xz: compress,
  unxz: compress,
  pigz: compress,
  unpigz: compress,
  pbzip2: compress,
  lbzip2: compress,
  lzma: compress,
  unlzma: compress,
  lzip: compress,
  compress: compress,
  uncompress: compress,
  zstd: compressKeeping,
  unzstd: compressKeeping,
  lz4: compressKeeping,
  unlz4: compressKeeping,
  brotli: compressKeeping,
  split: splitPieces,
  csplit: (_c, b, w) => {
    const prefix = parseArgs(w, CSPLIT_SPEC).flagList.filter((f) => f.name === 'f').pop();
    b.add(prefix && typeof prefix.value === 'string' ? literalWordFrom(prefix.word, prefix.value) : literalWord('xx'), 'csplit', 'write');
  },
  dos2unix: (_c, b, w) => {
    for (const o of parseArgs(w, DOS2UNIX_SPEC).operands) b.add(o, 'dos2unix', 'modify');
  },
  unix2dos: (_c, b, w) => {
    for (const o of parseArgs(w, DOS2UNIX_SPEC).operands) b.add(o, 'unix2dos', 'modify');
  },
  zip: zipArchive,
  '7z': sevenZip,
  '7za': sevenZip,
  '7zz': sevenZip,
  jar: modeArchive('jar'),
  ar: modeArchive('ar'),
  // Cloud downloads write where they are told to: `aws s3 cp s3://b/k ./f`, `gsutil cp gs://b/k f`, `az … download -f f`.
  aws: (_c, b, w) => {
    const ops = w.filter((x) => !x.value.startsWith('-'));
    if (ops[0]?.value !== 's3' || !['cp', 'sync', 'mv'].includes(ops[1]?.value ?? '')) return;
    const dest = ops[ops.length - 1];
    if (dest && ops.length >= 4 && !/^s3:\/\//.test(dest.value)) b.add(dest, 'cloud download', 'write');
  },
  gsutil: (_c, b, w) => {
    const ops = w.filter((x) => !x.value.startsWith('-'));
    if (!['cp', 'rsync', 'mv'].includes(ops[0]?.value ?? '')) return;
    const dest = ops[ops.length - 1];
    if (dest && ops.length >= 3 && !/^gs:\/\//.test(dest.value)) b.add(dest, 'cloud download', 'write');
  },
  gcloud: (_c, b, w) => {
    const ops = w.filter((x) => !x.value.startsWith('-'));
    if (ops[0]?.value !== 'storage' || !['cp', 'rsync', 'mv'].includes(ops[1]?.value ?? '')) return;
    const dest = ops[ops.length - 1];
    if (dest && ops.length >= 4 && !/^gs:\/\//.test(dest.value)) b.add(dest, 'cloud download', 'write');
  },
  az: (_c, b, w) => {
    if (!w.some((x) => /^download(-batch)?$/.test(x.value))) return;
    for (let i = 0; i < w.length; i++) {
      const v = w[i]!.value;
      if ((v === '-f' || v === '--file' || v === '-d' || v === '--destination') && w[i + 1]) b.add(w[++i]!, 'cloud download', 'write');
      else if (/^--(file|destination)=/.test(v)) b.add(derived(w[i]!, v.slice(v.indexOf('=') + 1)), 'cloud download', 'write');
    }
  },
  ddrescue: (_c, b, w) => {
    // `ddrescue infile outfile [mapfile]`: the output (a disk image, or a disk) and the map file are written.
    const ops = parseArgs(w, DDRESCUE_SPEC).operands;
    for (const o of ops.slice(1, 3)) b.add(o, 'ddrescue', 'write');
  },
  rm: (_c, b, w) => {
    for (const o of parseArgs(w, RM_SPEC).operands) b.add(o, 'rm', 'delete');
  },
  rmdir: (_c, b, w) => {
    for (const o of parseArgs(w, {}).operands) b.add(o, 'rmdir', 'delete');
  },
  unlink: (_c, b, w) => {
    for (const o of parseArgs(w, {}).operands) b.add(o, 'unlink', 'delete');
  },
  shred: (_c, b, w) => {
    for (const o of parseArgs(w, SHRED_SPEC).operands) b.add(o, 'shred', 'delete');
  },
  srm: (_c, b, w) => {
    for (const o of parseArgs(w, {}).operands) b.add(o, 'shred', 'delete');
  },
  find: (c, b) => {
    const f = findArgsOf(c); // the collector's words are always c.argv.slice(1)
    for (const out of f.writes) b.add(out, 'find -fprint', 'write');
    if (f.deletes) for (const r of f.roots) b.add(r, 'find -delete', 'delete');
  },
  'ssh-keygen': (_c, b, w) => {
    let file: Word | null = null;
    let readOnly = false;
    let removeHost = false;
    for (let i = 0; i < w.length; i++) {
      const v = w[i]!.value;
      if (v === '-f' && w[i + 1]) file = w[++i]!;
      else if (/^-[lyFBDe]$/.test(v)) readOnly = true;
      else if (v === '-R') {
        removeHost = true;
        i++;
      }
    }
    if (removeHost) b.add(file ?? literalWord('~/.ssh/known_hosts'), 'ssh-keygen', 'modify');
    else if (!readOnly && file) b.add(file, 'ssh-keygen', 'write');
  },
};

function literalWordFrom(w: Word, value: string): Word {
  return { ...w, value };
}

function compress(_c: SimpleCommand, b: TargetBuilder, w: Word[]): void {
  const p = parseArgs(w, COMPRESS_SPEC);
  if (p.flags.has('c') || p.flags.has('t') || p.flags.has('l')) return;
  // The result lands next to each operand (`f` -> `f.gz`); without -k the operand itself is replaced.
  const how = p.flags.has('k') ? 'write' : 'modify';
  for (const o of p.operands) if (o.value !== '-') b.add(o, 'compress', how);
}

/** zstd, lz4, brotli: keep their input by default, write next to it, or to -o FILE. */
function compressKeeping(_c: SimpleCommand, b: TargetBuilder, w: Word[]): void {
  const p = parseArgs(w, ZSTD_SPEC);
  if (p.flags.has('c') || p.flags.has('t') || p.flags.has('l')) return;
  const out = p.flagList.filter((f) => f.name === 'o').pop();
  if (out && typeof out.value === 'string') {
    b.add(literalWordFrom(out.word, out.value), 'compress', 'write');
    return;
  }
  const ops = p.operands.filter((o) => o.value !== '-');
  // lz4 and brotli take `input output`; zstd writes `input.zst` beside each input.
  for (const o of ops) b.add(o, 'compress', p.flags.has('rm') ? 'modify' : 'write');
}

/** split / csplit write their pieces under a prefix (default `x` / `xx` in the current directory). */
function splitPieces(_c: SimpleCommand, b: TargetBuilder, w: Word[]): void {
  const p = parseArgs(w, SPLIT_SPEC);
  const prefix = p.operands[1];
  b.add(prefix ?? literalWord('x'), 'split', 'write');
}

/** `zip [options] archive files…`: writes the archive (or -O copy); -m moves the files into it. */
function zipArchive(_c: SimpleCommand, b: TargetBuilder, w: Word[]): void {
  const p = parseArgs(w, ZIP_SPEC);
  const out = p.flagList.filter((f) => f.name === 'O').pop();
  if (out && typeof out.value === 'string') b.add(literalWordFrom(out.word, out.value), 'zip', 'write');
  const [archive, ...files] = p.operands;
  if (archive) b.add(archive, 'zip', 'write');
  if (p.flags.has('m')) for (const f of files) b.add(f, 'zip -m', 'delete');
}

/** 7z: `a`/`u`/`d`/`rn` change the archive; `x`/`e` extract into -oDIR or the current directory. */
function sevenZip(_c: SimpleCommand, b: TargetBuilder, w: Word[]): void {
  const ops = w.filter((x) => !x.value.startsWith('-'));
  const verb = ops[0]?.value;
  if (verb === 'a' || verb === 'u' || verb === 'd' || verb === 'rn') {
    if (ops[1]) b.add(ops[1], '7z', 'write');
  } else if (verb === 'x' || verb === 'e') {
    const o = w.find((x) => x.value.startsWith('-o') && x.value.length > 2);
    b.add(o ? derived(o, o.value.slice(2)) : literalWord('.'), '7z', 'write');
  }
}

/** jar and ar take their mode as the first word (`jar xf a.jar`, `ar rcs lib.a x.o`). */
function modeArchive(how: 'jar' | 'ar'): Collector {
  return (_c, b, w) => {
    const mode = (w[0]?.value ?? '').replace(/^-/, '');
    const ops = w.slice(1).filter((x) => !x.value.startsWith('-'));
    if (/x/.test(mode)) {
      const c = w.findIndex((x) => x.value === '-C');
      b.add(how === 'jar' && c >= 0 && w[c + 1] ? w[c + 1]! : literalWord('.'), how, 'write');
    }
    if (how === 'jar' ? /[cui]/.test(mode) && /f/.test(mode) : /[rqdms]/.test(mode)) {
      if (ops[0]) b.add(ops[0], how, 'write');
    }
  };
}

function inPlace(b: TargetBuilder, w: Word[], spec: ArgSpec, how: string, scriptFlagF: boolean): void {
  const p = parseArgs(w, spec);
  if (!p.flags.has('i') && !p.flagList.some((f) => f.name.startsWith('i') && f.word.value.startsWith('-i'))) return;
  let files = p.operands.filter((o) => o.value !== '');
  const hasScript = p.flags.has('e') || p.flags.has('E') || (scriptFlagF && p.flags.has('f'));
  if (!hasScript) files = files.slice(1);
  for (const f of files) b.add(f, how, 'write');
}

export interface FindArgs {
  /** Search roots (`.` when none is given). */
  roots: Word[];
  /** `-delete` is present. */
  deletes: boolean;
  /** Files written by -fprint/-fprint0/-fprintf/-fls. */
  writes: Word[];
  /** A test narrows what is matched (-name, -path, -mtime…), beyond `-type`. */
  filtered: boolean;
  /** Words after the roots. */
  expr: Word[];
  /** -exec, -execdir, -ok or -okdir runs a command (which unwrapping hands to the rules on its own). */
  execs: boolean;
}

const FIND_FILTERS = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-newer', '-anewer',
  '-cnewer', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-size', '-empty', '-user', '-group',
  '-uid', '-gid', '-perm', '-links', '-inum', '-samefile', '-lname', '-ilname', '-nouser', '-nogroup', '-used',
  '-newerXY', '-newermt', '-newerct', '-neweraa', '-context',
]);

/** Filters that take no argument. */
const FIND_NO_VALUE = new Set(['-empty', '-nouser', '-nogroup']);
/** Other expression words that take an argument, which must not be read as an action. */
const FIND_VALUE_OPTIONS = new Set(['-type', '-xtype', '-maxdepth', '-mindepth', '-fstype', '-printf', '-files0-from']);

/** find's search roots and the actions that write or delete. */
export function parseFind(words: readonly Word[]): FindArgs {
  let i = 0;
  // Leading options: -H -L -P -D debugopts -Olevel.
  while (i < words.length) {
    const v = words[i]!.value;
    if (v === '-H' || v === '-L' || v === '-P' || /^-O\d*$/.test(v)) {
      i++;
      continue;
    }
    if (v === '-D') {
      i += 2;
      continue;
    }
    break;
  }
  const roots: Word[] = [];
  while (i < words.length) {
    const v = words[i]!.value;
    if (v.startsWith('-') || v === '(' || v === '!' || v === ')' || v === ',') break;
    roots.push(words[i]!);
    i++;
  }
  const expr = words.slice(i);
  let deletes = false;
  let filtered = false;
  let execs = false;
  const writes: Word[] = [];
  for (let j = 0; j < expr.length; j++) {
    const v = expr[j]!.value;
    if (v === '-exec' || v === '-execdir' || v === '-ok' || v === '-okdir') {
      execs = true;
      // The command's own words (`-exec echo -delete \;`) are not find's expression.
      while (j + 1 < expr.length && expr[j + 1]!.value !== ';' && expr[j + 1]!.value !== '+') j++;
      j++;
      continue;
    }
    if (v === '-delete') deletes = true;
    else if (FIND_FILTERS.has(v) || v.startsWith('-newer')) {
      filtered = true;
      // The test's argument is a value, not an action: `find . -name -delete` looks for a file named -delete.
      if (!FIND_NO_VALUE.has(v) && j + 1 < expr.length) j++;
    } else if (FIND_VALUE_OPTIONS.has(v) && j + 1 < expr.length) j++;
    else if ((v === '-fprint' || v === '-fprint0' || v === '-fls' || v === '-fprintf') && expr[j + 1]) writes.push(expr[++j]!);
  }
  return { roots: roots.length > 0 ? roots : [literalWord('.')], deletes, writes, filtered, expr, execs };
}

/**
 * parseFind of a find command's own arguments, parsed once per command: fs.find-delete, dev.read-only and
 * exec-style checks all ask. A pure function of the command's words, so sharing it cannot go stale.
 * Callers must not mutate the result.
 */
export function findArgsOf(cmd: SimpleCommand): FindArgs {
  const facts = factsOf(cmd);
  if (facts.find !== undefined) return facts.find as FindArgs;
  const f = parseFind(cmd.argv.slice(1));
  facts.find = f;
  return f;
}

/** Programs some collector knows, besides git. */
const WRITER_NAMES: ReadonlySet<string> = new Set([...Object.keys(COLLECTORS), 'git']);

// ---------------------------------------------------------------------------------------------------------
// Entry points, cached per command (many rules ask about the same command).

function hasWriteRedirect(cmd: SimpleCommand): boolean {
  for (const r of cmd.redirects) if (r.access === 'write') return true;
  return false;
}

/** The program a collector is chosen by: versioned perl/ruby names fold to their family. */
function collectorName(cmd: SimpleCommand): string | null {
  const n = programName(cmd);
  if (n === null) return null;
  const c = n.charCodeAt(0);
  if (c === 112 /* p */ && n.length > 4 && /^perl[0-9.]+$/.test(n)) return 'perl';
  if (c === 114 /* r */ && n.length > 4 && /^ruby[0-9.]+$/.test(n)) return 'ruby';
  if (n === 'gsed') return 'sed';
  if (n === 'gcp') return 'cp';
  if (n === 'gmv') return 'mv';
  if (n === 'grm') return 'rm';
  return n;
}

/** Every path the command writes, modifies or deletes (redirects included). Cached per command: a dozen rules ask. */
export function pathTargets(cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): readonly PathTarget[] {
  // Kept in the command's facts (a property on the command), which costs less than a WeakMap lookup.
  const facts = ctxFacts(cmd, ctx);
  if (facts.writes !== undefined) return facts.writes as readonly PathTarget[];
  const all = computeTargets(cmd, ctx, analysis);
  facts.writes = all;
  return all;
}

/**
 * False when `pathTargets` of this command is certainly empty: no output redirect and no program that writes
 * its arguments. The engine's pre-check for the rules that only look at targets (policy/traits.ts); it is
 * the very test computeTargets starts with, so the two cannot drift apart.
 */
export function mayHavePathTargets(cmd: SimpleCommand): boolean {
  const name = collectorName(cmd);
  return (name !== null && WRITER_NAMES.has(name)) || hasWriteRedirect(cmd);
}

function computeTargets(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis | undefined): readonly PathTarget[] {
  if (!mayHavePathTargets(cmd)) return EMPTY;
  const name = collectorName(cmd);
  const known = name !== null && WRITER_NAMES.has(name);
  const b = new TargetBuilder(ctx, cmd, analysis);
  for (const r of cmd.redirects) {
    if (r.access !== 'write') continue;
    b.add(r.target, 'redirect', 'write');
  }
  if (known && name !== null) {
    if (name === 'git') {
      const g = parseGit(cmd);
      const gb = g.dir === null ? b : new TargetBuilder(ctx, cmd, analysis, g.dir);
      gitTargets(cmd, gb);
      if (gb !== b) b.out.push(...gb.out);
    } else {
      COLLECTORS[name]!(cmd, b, cmd.argv.slice(1));
    }
  }
  return b.out.length === 0 ? EMPTY : Object.freeze(b.out);
}

/** The paths a command writes or modifies (output redirects, tee, cp/mv destination, sed -i, chmod…). */
export function writeTargets(cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): PathTarget[] {
  return pathTargets(cmd, ctx, analysis).filter((t) => t.kind !== 'delete');
}

/** The paths a command deletes (rm, rmdir, unlink, shred, mv sources, find -delete roots, rsync --delete, git rm). */
export function deleteTargets(cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): PathTarget[] {
  return pathTargets(cmd, ctx, analysis).filter((t) => t.kind === 'delete');
}

/** Is `abs` the user's home directory's parent (`/home`, `/Users`) or another place whose removal ends the machine? */
export function isCatastrophicDir(abs: string | null, ctx: RuleContext): boolean {
  if (abs === null) return false;
  const a = abs.length > 1 && abs.endsWith('/') ? abs.slice(0, -1) : abs;
  if (CATASTROPHIC_DIRS.has(a)) return true;
  const homeParent = posix.dirname(ctx.home);
  return a === homeParent || a === ctx.home;
}

const CATASTROPHIC_DIRS: ReadonlySet<string> = new Set(['/', '/root', '/home', '/Users', '/dev', '/mnt', '/media', '/Volumes', '/private']);
