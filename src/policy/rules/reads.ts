// Shared helper for rules: the files a command reads (and may print or send on), so the secrets rules
// can ask "does this command read a credential?" whatever the reader is.

import type { SimpleCommand, Word } from '../../shell/types.ts';
import type { RuleContext } from '../rule.ts';
import type { PathClass, PathInfo } from '../paths.ts';
import { programName, staticValue } from '../../shell/program.ts';
import { ctxFacts, networkTarget } from './network.ts';
import { parseGit } from './writes.ts';

export interface ReadTarget {
  word: Word;
  /** The path as written (static value, or the raw text when dynamic). */
  path: string;
  info: PathInfo;
  /** How it is read: `cat`, `redirect`, `cp`, `upload`… */
  how: string;
}

/** Programs whose every operand is a file they read. */
const ALL_OPERANDS = new Set([
  'cat', 'tac', 'nl', 'less', 'more', 'most', 'head', 'tail', 'wc', 'cut', 'paste', 'fold', 'fmt', 'column', 'expand',
  'unexpand', 'rev', 'strings', 'od', 'hexdump', 'hd', 'base64', 'base32', 'basenc', 'md5sum', 'md5', 'sha1sum',
  'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'shasum', 'b2sum', 'cksum', 'sum', 'zcat', 'gzcat', 'bzcat',
  'xzcat', 'zstdcat', 'lzcat', 'zless', 'zmore', 'bat', 'batcat', 'iconv', 'diff', 'cmp', 'comm', 'sdiff', 'diff3',
  'join', 'sort', 'view', 'vim', 'vi', 'nvim', 'nano', 'emacs', 'pico', 'gedit', 'code', 'subl', 'gpg', 'gpg2',
  'uuencode', 'xxd', 'split', 'csplit', 'shuf', 'pr', 'tsort', 'gzip', 'bzip2', 'xz', 'zstd', 'lz4', 'pigz',
  'uniq', 'look', 'yq', 'xq', 'mlr', 'csvlook', 'csvcut', 'gron', 'gunzip', 'bunzip2', 'unxz', 'unzstd', 'unlz4',
  'unpigz', 'pbzip2', 'lbzip2', 'lzma', 'unlzma', 'lzip', 'compress', 'uncompress', 'brotli', 'dos2unix', 'unix2dos',
  'nm', 'objdump', 'readelf', 'size', 'ldd', 'otool', 'xmllint', 'csvstat', 'csvgrep', 'csvsort', 'csvjson', 'in2csv',
  'xsv', 'htmlq', 'pup', 'tomlq', 'ddrescue',
  // Windows' grep through Git Bash: its options are `/x`, so every word is taken as a file it may read (the
  // pattern too, which at worst names a file that is not there).
  'findstr',
]);

/**
 * Short options that take their value as the next word, per program, so operands are told from option values.
 * A letter listed wrongly swallows the file after it (`tail -F .env` read nothing): only options whose value
 * is REQUIRED belong here; flags and options with an optional attached value (`od -w16`, `pr -n:3`) do not.
 */
export const VALUE_OPTS: Readonly<Record<string, string>> = {
  head: 'nc', tail: 'ncs', cut: 'bcdf', fold: 'w', fmt: 'wgp', column: 'csoNWRHOlT', od: 'AjNtS', hexdump: 'enfs',
  hd: 'enfs', split: 'abClnt', sort: 'ktSoT', uniq: 'fsw', diff: 'CUFIxLXDW', nl: 'bdfhilnsvw', shuf: 'ino',
  xxd: 'cglos', iconv: 'fto', strings: 'nte', base64: 'w', base32: 'w', basenc: 'w', gpg: 'oru', gpg2: 'oru',
  pr: 'hlwNo', join: 'jteo12', less: 'bhjkoOpPtTxyz', bat: 'lmHr', batcat: 'lmHr', yq: 'oIp', xq: 'oI',
  mlr: 'n', zstd: 'oD', gzip: 'S', xz: 'FCM', tac: 's', wc: '', cat: '',
};

function val(w: Word | undefined): string | null {
  return staticValue(w);
}

function pathOf(w: Word): string {
  return val(w) ?? w.value;
}

/** Split a command's words into operands (what is not an option or an option's value). */
function operandsOf(words: readonly Word[], shortWithValue: string, longWithValue: readonly string[] = []): Word[] {
  const out: Word[] = [];
  let done = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (done || v.length < 2 || v[0] !== '-') {
      out.push(w);
      continue;
    }
    if (v === '--') {
      done = true;
      continue;
    }
    if (v.startsWith('--')) {
      if (!v.includes('=') && longWithValue.includes(v.slice(2))) i++;
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      if (shortWithValue.includes(v[j]!)) {
        if (j === v.length - 1) i++;
        break;
      }
    }
  }
  return out;
}

const GREP_LIKE = new Set(['grep', 'egrep', 'fgrep', 'zgrep', 'rg', 'ag', 'ack', 'ack-grep', 'pcregrep', 'ugrep']);
const GREP_VALUES: Readonly<Record<string, string>> = {
  grep: 'efmABCdD', egrep: 'efmABCdD', fgrep: 'efmABCdD', zgrep: 'efmABCdD', pcregrep: 'efmABCdD', ugrep: 'efmABCdDgtKNQ',
  rg: 'efgtTmABCjMErd', ag: 'GABCmgp', ack: 'ABCmg', 'ack-grep': 'ABCmg',
};
const GREP_LONG = [
  'regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'include', 'exclude', 'exclude-dir',
  'exclude-from', 'label', 'binary-files', 'devices', 'directories', 'glob', 'iglob', 'type', 'type-not', 'type-add',
  'max-depth', 'max-filesize', 'pre', 'pre-glob', 'replace', 'sort', 'sortr', 'colors', 'engine', 'threads',
  'ignore-file', 'encoding', 'path-separator', 'context-separator', 'field-match-separator', 'dfa-size-limit',
  'regex-size-limit', 'max-columns', 'group-separator', 'ignore', 'depth', 'path-to-ignore', 'file-search-regex',
];


/**
 * Programs with a case in computeReadTargets: every other program reads only its `<`/`<>` redirects, so
 * `readTargets` is empty for a command that is none of these and has no such redirect (the rules that only look
 * at read targets use that as their pre-check: `needs: { traits: ['input-redirect'], programs: READER_PROGRAMS }`).
 */
export const READER_PROGRAMS: ReadonlySet<string> = new Set([
  ...ALL_OPERANDS, ...GREP_LIKE, 'sed', 'awk', 'gawk', 'mawk', 'nawk', 'jq', 'gojq', 'jaq', 'cp', 'install', 'ditto', 'tar',
  'bsdtar', 'gtar', 'zip', '7z', '7za', '7zz', 'rar', 'dd', 'openssl', 'ssh-keygen', 'scp', 'rsync', 'curl', 'wget', 'http',
  'https', 'xh', 'xhs', 'socat', 'gh', 'git', 'xargs',
]);

/** Every file a command reads, classified. Never throws; dynamic paths are classified as dynamic. Cached per command. */
export function readTargets(cmd: SimpleCommand, ctx: RuleContext): ReadTarget[] {
  const facts = ctxFacts(cmd, ctx);
  if (facts.reads !== undefined) return facts.reads as ReadTarget[];
  const targets = computeReadTargets(cmd, ctx);
  facts.reads = targets;
  return targets;
}

function computeReadTargets(cmd: SimpleCommand, ctx: RuleContext): ReadTarget[] {
  const out: ReadTarget[] = [];
  const add = (w: Word, how: string, path?: string): void => {
    const p = path ?? pathOf(w);
    if (p === '' || p === '-') return;
    out.push({ word: w, path: p, info: ctx.path(p), how });
  };
  for (const r of cmd.redirects) {
    if (r.op === '<' || r.op === '<>') add(r.target, 'redirect');
  }
  const prog = programName(cmd);
  // Most commands read no file operand: answer them before copying their words.
  if (prog === null || !READER_PROGRAMS.has(prog)) return out;
  const args = cmd.argv.slice(1);

  if (ALL_OPERANDS.has(prog)) {
    let ops = operandsOf(args, VALUE_OPTS[prog] ?? '');
    if (prog === 'uniq' || prog === 'xxd') ops = ops.slice(0, 1); // the second operand is the output
    for (const w of ops) add(w, prog);
    // diff's --from-file/--to-file name files too.
    if (prog === 'diff') for (const w of args) if (/^--(from|to)-file=/.test(w.value)) add(w, 'diff', (val(w) ?? w.value).replace(/^--(from|to)-file=/, ''));
    return out;
  }
  if (GREP_LIKE.has(prog)) {
    const values = GREP_VALUES[prog] ?? '';
    let patternGiven = false;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (v === '-e' || v === '-f' || v === '--regexp' || v === '--file' || v.startsWith('--regexp=') || v.startsWith('--file=')) patternGiven = true;
      else if (/^-[^-]*[ef]/.test(v) && !v.startsWith('--')) {
        const letters = v.slice(1);
        const idx = letters.search(/[ef]/);
        if (idx >= 0 && ![...letters.slice(0, idx)].some((c) => values.includes(c))) patternGiven = true;
      }
      if ((v === '-f' || v === '--file') && args[i + 1]) add(args[i + 1]!, prog);
    }
    const ops = operandsOf(args, values, GREP_LONG);
    for (const w of patternGiven ? ops : ops.slice(1)) add(w, prog);
    return out;
  }
  switch (prog) {
    case 'sed': {
      let scriptGiven = false;
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === '-e' || v === '--expression' || v.startsWith('--expression=') || v === '-f' || v === '--file' || v.startsWith('--file=')) scriptGiven = true;
        else if (/^-[nrEsuzi]*[ef]$/.test(v)) scriptGiven = true;
      }
      let ops = operandsOf(args, 'efl', ['expression', 'file', 'line-length']);
      if (ops[0] && ops[0].value === '' && args.some((w) => w.value === '-i')) ops = ops.slice(1); // BSD `sed -i '' …`
      for (const w of scriptGiven ? ops : ops.slice(1)) add(w, 'sed');
      return out;
    }
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk': {
      let progGiven = false;
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === '-f' || v === '--file' || v === '-e' || v === '--source' || v === '-E' || v === '--exec') progGiven = true;
      }
      const ops = operandsOf(args, 'vFfeEilW', ['file', 'source', 'exec', 'assign', 'field-separator', 'include', 'load']);
      // `var=value` operands are assignments, not files.
      for (const w of (progGiven ? ops : ops.slice(1)).filter((x) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(x.value))) add(w, prog);
      return out;
    }
    case 'jq':
    case 'gojq':
    case 'jaq': {
      let filterGiven = false;
      const ops: Word[] = [];
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === '--arg' || v === '--argjson') { i += 2; continue; }
        if (v === '--slurpfile' || v === '--rawfile') {
          if (args[i + 2]) add(args[i + 2]!, 'jq');
          i += 2;
          continue;
        }
        if (v === '-f' || v === '--from-file') { filterGiven = true; if (args[i + 1]) add(args[i + 1]!, 'jq'); i++; continue; }
        if (v === '--indent' || v === '-L') { i++; continue; }
        if (v === '--args' || v === '--jsonargs') break;
        if (v.startsWith('-') && v.length > 1) continue;
        ops.push(args[i]!);
      }
      for (const w of filterGiven ? ops : ops.slice(1)) add(w, 'jq');
      return out;
    }
    case 'cp':
    case 'install':
    case 'ditto': {
      const ops = operandsOf(args, 'tSm', ['target-directory', 'suffix', 'backup', 'mode', 'owner', 'group']);
      const hasT = args.some((w) => w.value === '-t' || w.value.startsWith('--target-directory') || /^-[^-]*t/.test(w.value));
      for (const w of hasT ? ops : ops.slice(0, -1)) add(w, prog);
      return out;
    }
    case 'tar':
    case 'bsdtar':
    case 'gtar': {
      const first = val(args[0]) ?? '';
      const letters = first.startsWith('-') ? '' : first;
      const flags = args.map((w) => w.value);
      const creating = /[cru]/.test(letters) || flags.some((f) => /^-[A-Za-z]*[cru]/.test(f) && !f.startsWith('--')) || flags.includes('--create') || flags.includes('--append');
      if (!creating) return out;
      const ops = operandsOf(first.startsWith('-') ? args : args.slice(1), 'fCTbHKLNVgX', ['file', 'directory', 'files-from', 'exclude', 'exclude-from', 'format', 'transform', 'owner', 'group', 'mode', 'mtime', 'label', 'use-compress-program', 'to-command', 'checkpoint-action', 'rsh-command', 'newer', 'after-date']);
      // With bundled letters (`tar czf out.tgz dir`) the archive name is the first operand.
      const inputs = !first.startsWith('-') && /f/.test(letters) ? ops.slice(1) : ops;
      for (const w of inputs) add(w, 'tar');
      for (let i = 0; i < args.length; i++) {
        if ((args[i]!.value === '-T' || args[i]!.value === '--files-from') && args[i + 1]) add(args[i + 1]!, 'tar');
      }
      return out;
    }
    case 'zip':
    case '7z':
    case '7za':
    case '7zz':
    case 'rar': {
      const start = prog === 'zip' ? 0 : 1; // 7z a archive files…
      if (prog !== 'zip' && val(args[0]) !== 'a' && val(args[0]) !== 'u') return out;
      const ops = operandsOf(args.slice(start), prog === 'zip' ? 'bnPtx' : '', []);
      for (const w of ops.slice(1)) add(w, prog);
      return out;
    }
    case 'xargs': {
      // `xargs -a FILE` reads its arguments from FILE (and with no command, echoes them: a `cat`).
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === '--') break;
        if ((v === '-a' || v === '--arg-file') && args[i + 1]) add(args[i + 1]!, 'xargs');
        else if (v.startsWith('--arg-file=')) add(args[i]!, 'xargs', (val(args[i]!) ?? v).slice(11));
        else if (/^-[0rtpx]*a./.test(v)) add(args[i]!, 'xargs', (val(args[i]!) ?? v).replace(/^-[0rtpx]*a/, ''));
        else if (!v.startsWith('-')) break; // the command xargs runs
      }
      return out;
    }
    case 'dd':
      for (const w of args) if (w.value.startsWith('if=')) add(w, 'dd', (val(w) ?? w.value).slice(3));
      return out;
    case 'openssl':
      for (let i = 0; i < args.length; i++) {
        if ((args[i]!.value === '-in' || args[i]!.value === '-inkey' || args[i]!.value === '-key') && args[i + 1]) add(args[i + 1]!, 'openssl');
      }
      return out;
    case 'ssh-keygen':
      // -y prints the public half of a private key: it reads the key but shows nothing secret.
      return out;
    case 'scp':
    case 'rsync':
    case 'curl':
    case 'wget':
    case 'http':
    case 'https':
    case 'xh':
    case 'xhs':
    case 'socat': {
      const t = networkTarget(cmd, ctx);
      if (t) {
        for (const u of t.uploads) {
          if (u.kind !== 'file' || !u.word) continue;
          add(u.word, 'upload', u.value);
        }
        // A local copy (`rsync a b`, `scp a b` without a host) still reads its sources.
        if ((prog === 'scp' || prog === 'rsync') && t.endpoints.length === 0) {
          const ops = operandsOf(args, prog === 'scp' ? 'cFiJlPoSDX' : 'eBfTM', ['rsh', 'exclude', 'include', 'filter', 'files-from', 'exclude-from', 'include-from']);
          for (const w of ops.slice(0, -1)) add(w, prog);
        }
      }
      return out;
    }
    case 'git':
      for (const [w, p] of gitContentReads(cmd)) add(w, 'git', p);
      return out;
    case 'gh':
      // `gh gist create FILE…` publishes files.
      if (val(args[0]) === 'gist' && (val(args[1]) === 'create' || val(args[1]) === 'new')) {
        for (const w of operandsOf(args.slice(2), 'df', ['desc', 'filename'])) add(w, 'gh gist');
      }
      return out;
    default:
      return out;
  }
}

const GIT_PATCH_FLAG = /^(-p|-u|--patch|-U\d*|--unified=\d+|-W|--function-context|--full-diff)$/;

/** git subcommands that print the content of the files named after `--` (as diffs or annotated lines). */
const GIT_SHOWS_PATHS = new Set(['show', 'diff', 'log', 'blame', 'annotate', 'whatchanged', 'format-patch', 'cat-file']);

/**
 * Files whose content a git command prints: `REV:PATH` (show, cat-file, diff, log), the operands of
 * `diff --no-index` (two files outside any repository), the files of `blame`, and the paths after `--` of
 * the subcommands that print diffs. A secrets file committed by mistake, or any file on disk, is read this
 * way as surely as with cat. Paths of `REV:PATH` are taken as named (git resolves them in the repository).
 */
function gitContentReads(cmd: SimpleCommand): [Word, string][] {
  const g = parseGit(cmd);
  if (g.sub === null || !GIT_SHOWS_PATHS.has(g.sub)) return [];
  const out: [Word, string][] = [];
  const dash = g.args.findIndex((w) => w.value === '--');
  const before = dash === -1 ? g.args : g.args.slice(0, dash);
  for (const w of before) {
    const v = staticValue(w) ?? w.value;
    const colon = v.indexOf(':');
    // `HEAD:.env`, `main:config/secrets.yml`, `:0:.env` (the index); not `--format=%H:%s` or a URL.
    if (colon >= 0 && !v.startsWith('-') && !v.includes('://')) {
      const path = v.slice(v.lastIndexOf(':') + 1).replace(/^\.\//, '');
      if (path !== '') out.push([w, path]);
    }
  }
  // `git log -- .env` lists commits; only with a patch does it print the file's lines.
  if ((g.sub === 'log' || g.sub === 'whatchanged') && !before.some((w) => GIT_PATCH_FLAG.test(w.value))) return out;
  if (dash !== -1) for (const w of g.args.slice(dash + 1)) out.push([w, staticValue(w) ?? w.value]);
  // Without `--`, git takes an operand that is no revision as a path (`git diff .env`, `git blame .env`): every
  // operand is looked at as one (a revision's name as a path is harmless to classify).
  if (g.sub !== 'log' && g.sub !== 'whatchanged') {
    for (const w of before) {
      const v = staticValue(w) ?? w.value;
      if (!v.startsWith('-') && !v.includes(':')) out.push([w, v]);
    }
  }
  return out;
}

/** The first read target with the given class, or undefined. */
export function readsClass(cmd: SimpleCommand, ctx: RuleContext, cls: PathClass): ReadTarget | undefined {
  return readTargets(cmd, ctx).find((r) => r.info.classes.has(cls));
}
