// Built-in rules: dev family — the allow set for everyday development: read-only inspection and the
// project's own build/test/lint/format tooling. These rules must not nag; everything risky a command can
// also do is caught by the other families, whose tier wins (a line takes its most severe finding).

import type { Analysis, SimpleCommand } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleContext } from '../rule.ts';
import { argTexts, programName, staticValue } from '../../shell/program.ts';
import { awkProgram, awkTraits, cutText, invocation, sedScripts, sedTraits } from './exec.ts';
import { installCommand, isDeclared, localPathOf, npmBinDeclared, remoteRun, remoteRunDeclared, type InstallCommand } from './supply.ts';
import { findArgsOf, isPlaceholder } from './writes.ts';
import { APP_SERVERS, appServerOk, dropsCwdFromPath, runsProjectModule } from './project-entry.ts';
import { READ_ONLY_CLIS } from './read-only-clis.ts';

type Check = (a: readonly string[], cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis) => boolean;

const always: Check = () => true;
const none = (...bad: RegExp[]): Check => (a) => !a.some((x) => bad.some((re) => re.test(x)));
/** At most n operands, skipping the values of the given short options (`xxd -l 64 f` has one). */
const maxOperands = (n: number, withValue = ''): Check => (a) => {
  let count = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x.startsWith('-') && x.length > 1) {
      if (x.length === 2 && withValue.includes(x[1]!)) i++;
      continue;
    }
    count++;
  }
  return count <= n;
};

/** `source`/`.` of a file inside the project (a virtualenv's activate script, a project env file). */
function sourceProjectFile(a: readonly string[], _cmd: SimpleCommand, ctx: RuleContext): boolean {
  const f = a[0];
  if (f === undefined) return false;
  const c = ctx.path(f).classes;
  return (c.has('project') || c.has('build-artifact')) && !c.has('dynamic') && !c.has('outside') && !c.has('agent-config') && !c.has('agent-instructions') && !c.has('asimov-config');
}

/**
 * xargs whose input comes only from `find` printing paths: every appended word then starts with a search root
 * (`./a`, `src/b`), so none can be an option. -printf and friends print anything, so they do not count.
 */
function xargsFedByFind(cmd: SimpleCommand, analysis: Analysis): boolean {
  const x = cmd.wrappedBy === undefined ? undefined : analysis.commands[cmd.wrappedBy];
  if (!x || programName(x) !== 'xargs' || x.stdin.kind !== 'pipe' || x.stdin.from.length === 0) return false;
  return x.stdin.from.every((id) => {
    const s = analysis.commands[id];
    if (!s || programName(s) !== 'find') return false;
    const f = findArgsOf(s);
    if (f.execs || f.deletes || f.writes.length > 0 || s.argv.some((w) => /^-(printf|fprintf|ls|fls)$/.test(w.value))) return false;
    return f.roots.every((r) => {
      const v = staticValue(r);
      return v !== null && !v.startsWith('-');
    });
  });
}

/** `find` that only inspects: no action that deletes, runs a command or writes a file (a test's value is not an action). */
function findReadOnly(_a: readonly string[], cmd: SimpleCommand): boolean {
  const f = findArgsOf(cmd);
  return !f.deletes && !f.execs && f.writes.length === 0;
}

function awkReadOnly(_a: readonly string[], cmd: SimpleCommand, ctx: RuleContext): boolean {
  if (cmd.argv.some((w) => /^(-f|--file|-E|--exec|-l|--load|-i|--include)$/.test(w.value) || /^--(file|load|include|exec)=/.test(w.value))) return false;
  const p = awkProgram(cmd);
  if (p === null) return false;
  if (/^\s*@(load|include)\b/m.test(p)) return false;
  const t = awkTraits(p);
  if (t.system || t.pipes || t.net) return false;
  // `getline < file` reads a file the command line does not name: only project files (not secrets) count as inspection.
  if (!t.reads.every((r) => r !== null && isPlainProjectFile(r, ctx))) return false;
  // `print > "out.txt"` inside the project is an ordinary report file; anything else is not read-only.
  return t.writes.every((w) => w !== null && (w.startsWith('/dev/std') || ctx.path(w).classes.has('project')));
}

function sedReadOnly(_a: readonly string[], cmd: SimpleCommand, ctx: RuleContext): boolean {
  const s = sedScripts(cmd);
  if (s.fromFile || s.inPlace || s.scripts.length === 0) return false;
  return s.scripts.every((x) => {
    const t = sedTraits(x);
    return t.ok && !t.exec && t.writes.length === 0 && t.reads.every((r) => isPlainProjectFile(r, ctx));
  });
}

/** A file inside the project that is not a secret: reading it through awk/sed/date is ordinary inspection. */
function isPlainProjectFile(p: string, ctx: RuleContext): boolean {
  const c = ctx.path(p).classes;
  return (c.has('project') || c.has('build-artifact')) && !c.has('credentials') && !c.has('dynamic') && !c.has('outside');
}

function dateReadOnly(a: readonly string[], _cmd: SimpleCommand, ctx: RuleContext): boolean {
  // `date MMDDhhmm` and `date -s …` set the clock; `date +%s` and `date -d … +%F` only print.
  // `date -f FILE` echoes the file's lines in its errors: only a plain project file is inspection.
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if ((x === '-f' || x === '--file') && !isPlainProjectFile(a[i + 1] ?? '', ctx)) return false;
    if (x.startsWith('--file=') && !isPlainProjectFile(x.slice(7), ctx)) return false;
    if (x === '-s' || x.startsWith('--set') || (/^-[a-zA-Z]*s/.test(x) && !x.startsWith('--') && !x.startsWith('-I'))) return false;
    if (!x.startsWith('-') && !x.startsWith('+') && !/^-[a-zA-Z]*[drf]$|^--(date|reference|file)$/.test(a[i - 1] ?? '')) return false;
  }
  return true;
}

function tarListOnly(a: readonly string[]): boolean {
  const first = a[0] ?? '';
  const letters = first.startsWith('-') ? a.filter((x) => /^-[A-Za-z]+$/.test(x)).join('') : first;
  if (!/t/.test(letters) && !a.includes('--list')) return false;
  if (/[cxurA]/.test(letters) || a.some((x) => /^--(extract|get|create|append|update|delete|to-command|checkpoint-action|use-compress-program|rsh-command|info-script|new-volume-script)/.test(x) || x === '-I' || x === '-F')) return false;
  return true;
}

function historyListing(a: readonly string[]): boolean {
  return a.every((x) => /^\d+$/.test(x));
}

function lookupOnly(a: readonly string[]): boolean {
  return a.length > 0 && a.every((x) => /^-[vVp]+$/.test(x) || !x.startsWith('-'));
}

/** Every argument is known statically: a network diagnostic must not carry run-time data (a DNS or ICMP side channel). */
const staticArgs: Check = (_a, cmd) => cmd.argv.every((w) => staticValue(w) !== null);

/** The first word that is not an option: a tool's subcommand. */
function firstOperand(a: readonly string[]): string | undefined {
  return a.find((x) => !x.startsWith('-'));
}

/** A tool whose read-only uses are a closed list of subcommands (`apt show`, `brew list`, `hg status`). */
const subIn = (subs: readonly string[], bad?: RegExp): Check => {
  const set = new Set(subs);
  return (a) => {
    if (bad && a.some((x) => bad.test(x))) return false;
    const s = firstOperand(a) ?? a[0];
    return s !== undefined && set.has(s);
  };
};

/** A tool whose first word, option or not, names what it does (`brew --prefix x`, `brew list`). */
const firstIn = (subs: readonly string[]): Check => {
  const set = new Set(subs);
  return (a) => a[0] !== undefined && set.has(a[0]);
};

/** `ldd` and friends on binaries of the project or the system (ldd may run a binary's loader: not on downloads). */
function trustedBinaries(a: readonly string[], cmd: SimpleCommand, ctx: RuleContext): boolean {
  const ops = cmd.argv.slice(1).filter((w) => !w.value.startsWith('-'));
  if (ops.length === 0) return false;
  return ops.every((w) => {
    const v = staticValue(w);
    if (v === null) return false;
    const c = ctx.path(v).classes;
    if (c.has('credentials') || c.has('dynamic')) return false;
    return c.has('system') || ((c.has('project') || c.has('build-artifact')) && !c.has('outside'));
  }) && a.every((x) => !x.startsWith('-') || /^-[vudr]+$/.test(x) || x === '--version' || x === '--help');
}

/** `ip addr`, `ip -br link show`, `ip route get 1.1.1.1`: objects and verbs that only display (ip accepts prefixes). */
const IP_OBJECTS = ['address', 'link', 'route', 'neighbour', 'neighbor', 'rule', 'maddress', 'monitor', 'netconf', 'ntable', 'tunnel', 'tuntap', 'mroute', 'stats'];
function ipReadOnly(a: readonly string[]): boolean {
  if (a.some((x) => /^-(b|batch|force)$/.test(x))) return false;
  const ops: string[] = [];
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (/^-(n|netns|f|family|rc|rcvbuf)$/.test(x)) { i++; continue; }
    if (!x.startsWith('-')) ops.push(x);
  }
  const [obj, verb] = ops;
  if (obj === undefined) return false;
  if (!IP_OBJECTS.some((o) => o.startsWith(obj)) && obj !== 'a' && obj !== 'r' && obj !== 'n' && obj !== 'l') return false;
  if (verb === undefined) return true;
  return 'show'.startsWith(verb) || 'list'.startsWith(verb) || verb === 'ls' || verb === 'lst' || verb === 'get' || verb === 'help';
}

/** dpkg's query actions; every other action installs, removes or changes packages. */
const DPKG_READ = /^(-[lLsSpV]+|--(list|listfiles|status|search|print-avail|print-architecture|print-foreign-architectures|get-selections|compare-versions|verify|audit|version|help|yet-to-unpack|field|info|contents)(=.*)?|-[CIfc])$/;
function dpkgReadOnly(a: readonly string[]): boolean {
  const opts = a.filter((x) => x.startsWith('-'));
  return opts.length > 0 && opts.every((x) => DPKG_READ.test(x) || x === '--no-pager');
}

/** rpm queries (-q…, --query, -V): no install, erase, import or macro evaluation (macros can run commands). */
function rpmReadOnly(a: readonly string[]): boolean {
  if (a.some((x) => /^(-[a-zA-Z]*[iUFeE]|--(install|upgrade|freshen|erase|import|initdb|rebuilddb|setperms|setugids|restore|eval|define|macros|rcfile|pipe|delsign|addsign|resign))/.test(x) || x === '-D')) return false;
  return a.some((x) => /^-q[a-zA-Z]*$/.test(x) || x === '--query' || x === '-V' || x === '--verify' || x === '--querytags' || x === '--showrc' || x === '--version');
}

/** pacman -Q…, -Ss/-Si/-Sl/-Sg (no refresh or upgrade), -F without -y, -T, -V. */
function pacmanReadOnly(a: readonly string[]): boolean {
  const op = a.find((x) => x.startsWith('-'));
  if (op === undefined) return false;
  if (/^-Q[a-zA-Z]*$/.test(op) || op === '--query' || op === '-T' || op === '--deptest' || op === '-V' || op === '--version') return true;
  if (/^-S[silgp]+$/.test(op)) return true;
  return /^-F[a-xz]*$/.test(op) && !op.includes('y');
}

/** `top` prints once and exits in batch mode or with an iteration count; plain `top` is an interactive screen. */
const topOnce: Check = (a) => a.some((x) => /^-[a-zA-Z]*[bnl]/.test(x));

/** `mount` with no operands lists mounts (`mount -l -t ext4`); anything else mounts or unmounts. */
function mountList(a: readonly string[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x === '-t' || x === '--types') { i++; continue; }
    if (!/^(-[lvhV]+|--(show-labels|verbose|help|version)|--types=.*)$/.test(x)) return false;
  }
  return true;
}

/** A shell that only checks syntax (-n, -o noexec) or is given -c with no command string runs nothing. */
function shellRunsNothing(a: readonly string[], cmd: SimpleCommand, _ctx: RuleContext, analysis?: Analysis): boolean {
  // xargs and parallel append words at run time: `xargs bash -c` gets its command string from the input, and
  // `+n` would undo -n. Paths printed by find are only file operands.
  if (cmd.via.length > 0 && !(analysis !== undefined && xargsFedByFind(cmd, analysis))) return false;
  let noexec = false;
  let c = false;
  let interactive = false;
  let i = 0;
  for (; i < a.length; i++) {
    const x = a[i]!;
    if (x === '--') { i++; break; }
    if (x === '-o' || x === '+o') { if (x === '-o' && a[i + 1] === 'noexec') noexec = true; i++; continue; }
    if (!x.startsWith('-') || x.length < 2) break;
    if (x.startsWith('--')) {
      // An interactive or login shell ignores -n (and reads its startup files).
      if (/^--(login|interactive|rcfile|init-file)/.test(x)) interactive = true;
      continue;
    }
    if (x.includes('n')) noexec = true;
    if (x.includes('c')) c = true;
    if (x.includes('i') || x.includes('l')) interactive = true;
  }
  // `bash -c` with its string missing only reports the error; `bash -n script` executes nothing. A -c string with
  // -n is left to the other rules, which judge the string as if it ran.
  return c ? i >= a.length : noexec && !interactive;
}

/** Read-only programs, with a check of their arguments where some options act instead of inspecting. */
const noAtFile = none(/^@/);

const READ_ONLY: Readonly<Record<string, Check>> = {
  ls: always, dir: always, vdir: always, exa: always, eza: always, lsd: always, tree: none(/^-o$/, /^--output/, /^--fromfile/),
  stat: always, file: none(/^-C$/, /^--compile/), du: always, df: always, pwd: always, wc: always, nl: always,
  head: always, tail: always, cat: always, tac: always, less: none(/^-[a-zA-Z]*[oO]/, /^--(log-file|LOG-FILE|lesskey)/, /^\+/),
  more: always, grep: always, egrep: always, fgrep: always, zgrep: always, rg: none(/^--pre(=|$)/, /^--pre-glob/),
  ag: always, ack: always, fd: none(/^-[a-zA-Z]*[xX]$/, /^--exec/), fdfind: none(/^-[a-zA-Z]*[xX]$/, /^--exec/),
  find: findReadOnly, gfind: findReadOnly, locate: always, plocate: always, which: always, type: always,
  whereis: always, command: lookupOnly, hash: none(/^-[a-z]*[pd]/), help: always, id: always, whoami: always,
  groups: always, users: always, who: always, w: always, logname: always, tty: always, uname: always, arch: always,
  nproc: always, hostname: (a) => a.every((x) => x.startsWith('-') && !/^-(F|b|file|boot)$/.test(x)),
  hostnamectl: (a) => a.length === 0 || a[0] === 'status', date: dateReadOnly, cal: always, ncal: always,
  uptime: always, free: always, vmstat: always, iostat: always, lscpu: always, lsblk: always, lsusb: always,
  lspci: always, lsmod: always, ps: always, pstree: always, pv: always, pr: always, fg: always, bg: always,
  // mktemp creates an empty file in the temp dir; a template path or -p DIR could put it anywhere.
  mktemp: (a) => !a.some((x) => x.includes('/') || /^-[a-zA-Z]*p/.test(x) || x.startsWith('--tmpdir=')), pgrep: always, pidof: always, top: topOnce,
  lsof: always, ss: always, netstat: always, diff: always, colordiff: always, cmp: always, comm: always,
  sort: none(/^-[a-zA-Z]*o/, /^--output/, /^--compress-program/), uniq: maxOperands(1, 'fsw'), cut: always, tr: always,
  paste: always, join: always, fold: always, fmt: always, column: always, expand: always, unexpand: always, rev: always,
  shuf: none(/^-[a-zA-Z]*o/, /^--output/), seq: always, yes: always, jq: always, gojq: always, jaq: always,
  // yq can read arbitrary files and the environment from its expression (load(), env(), strenv()).
  yq: none(/^-[a-zA-Z]*i/, /^--inplace/, /\bload(_str|_xml|_props|_base64)?\s*\(|\b(str)?env\s*\(|\$ENV/),
  xq: none(/^-[a-zA-Z]*i/, /^--in-place/, /\$ENV|\benv\b|input_filename/), gron: always, sed: sedReadOnly,
  awk: awkReadOnly, gawk: awkReadOnly, mawk: awkReadOnly, nawk: awkReadOnly, xxd: maxOperands(1, 'cglnso'), source: sourceProjectFile, '.': sourceProjectFile,
  od: always, hexdump: always, hd: always, strings: noAtFile, base64: maxOperands(1, 'w'), base32: maxOperands(1, 'w'),
  md5sum: always, md5: always, sha1sum: always, sha224sum: always, sha256sum: always, sha384sum: always,
  sha512sum: always, shasum: always, b2sum: always, cksum: always, sum: always, basename: always, dirname: always,
  realpath: always, readlink: always, test: always, '[': always, true: always, false: always, ':': always,
  sleep: always, echo: always, printf: always, tput: always, clear: always, locale: always,
  // A whole-environment dump is secrets.env-dump's call (soft); a filtered or named one is fine.
  printenv: always, env: always, cd: always, pushd: always, popd: always, dirs: always,
  export: always, unset: always, set: (a) => a.length > 0, shopt: always, read: always, mapfile: always,
  readarray: always, wait: always, jobs: always, exit: always, return: always, break: always, continue: always,
  shift: always, getopts: always, local: always, declare: (a) => a.length > 0, typeset: (a) => a.length > 0,
  readonly: always, let: always, history: historyListing, fc: (a) => a.includes('-l'), alias: (a) => a.every((x) => !x.includes('=')),
  umask: (a) => a.length === 0 || a.every((x) => x === '-S' || x === '-p' || /^0?0[27][27]$/.test(x)), ulimit: always,
  man: none(/^-[a-zA-Z]*[PHB]/, /^--(pager|html|browser)/, /^-l$/, /^--local-file/), info: always, apropos: always,
  whatis: always, zcat: always, gzcat: always, bzcat: always, xzcat: always, zstdcat: always,
  gzip: (a) => a.some((x) => /^-[a-zA-Z]*[lt]/.test(x) || x === '--list' || x === '--test'),
  unzip: (a) => a.some((x) => /^-[a-zA-Z]*[lZtv]/.test(x)) && !a.includes('-d'), zipinfo: always, tar: tarListOnly,
  getent: none(/^g?shadow$/), dig: none(/^(axfr|ixfr)/i, /^-f$/), host: always, nslookup: always, bat: none(/^--pager/), batcat: none(/^--pager/),
  cloc: always, tokei: always, scc: always, numfmt: always, expr: always, bc: always, factor: always,
  iconv: none(/^-o$/, /^--output/), lsattr: always, getfacl: always, getconf: always, sw_vers: always,
  lsb_release: always, ifconfig: (a) => a.length === 0 || (a.length === 1 && a[0] === '-a'), xargs: (a) => a.every((x) => x.startsWith('-')),
  'ssh-keygen': (a) => a.some((x) => /^-[a-zA-Z]*l/.test(x)) && !a.some((x) => /^-[a-zA-Z]*[yNpPcdekmorst]/.test(x)),
  'ssh-add': (a) => a.length > 0 && a.every((x) => x === '-l' || x === '-L' || x === '-E' || /^(sha256|md5)$/.test(x)),
  'ssh-keyscan': always, ssh: (a) => a.length > 0 && a.every((x) => /^-[VGQ]$/.test(x) || !x.startsWith('-')) && a.some((x) => /^-[VGQ]$/.test(x)),
  'nvidia-smi': (a) => a.every((x) => !/^-(r|pm|pl|ac|rac|e|c|mig|lgc|rgc|lmc|rmc)$|--(gpu-reset|persistence-mode|power-limit|applications-clocks|compute-mode)/.test(x)),

  // Network diagnostics: they send probes, never files; a run-time argument could smuggle data into a DNS name.
  ping: (a, c, x) => staticArgs(a, c, x) && !a.some((y) => /^-[a-zA-Z]*[pf]/.test(y)), ping6: (a, c, x) => staticArgs(a, c, x) && !a.some((y) => /^-[a-zA-Z]*[pf]/.test(y)),
  traceroute: staticArgs, traceroute6: staticArgs, tracepath: staticArgs, tracepath6: staticArgs,
  // whois sends its query to the server -h names: with a server of one's choosing the query is an upload.
  whois: (a, c, x) => staticArgs(a, c, x) && !a.some((y) => /^-[a-zA-Z]*[hp]|^--(host|port)/.test(y)),
  // mtr -F reads host names from a file and echoes what it cannot resolve.
  mtr: (a, c, x) => staticArgs(a, c, x) && a.some((y) => /^-[a-zA-Z]*[rwjCxl]|^--(report|report-wide|json|csv|xml|raw|split)/.test(y)) && !a.some((y) => /^-[a-zA-Z]*F|^--filename/.test(y)),
  arp: none(/^-[a-zA-Z]*[sdfS]/, /^--(set|delete|file)/), ip: ipReadOnly,
  route: (a) => { const s = firstOperand(a); return s === undefined || s === 'get' || s === 'show' || s === 'print'; },

  // Package managers: queries only (what is installed, what a package holds, what exists upstream).
  apt: subIn(['list', 'show', 'search', 'policy', 'depends', 'rdepends', 'showsrc', 'help']),
  'apt-cache': subIn(['search', 'show', 'showpkg', 'showsrc', 'policy', 'depends', 'rdepends', 'madison', 'pkgnames', 'stats', 'unmet', 'dump', 'showauto']),
  'apt-file': subIn(['search', 'find', 'list', 'show']), 'apt-mark': subIn(['showauto', 'showmanual', 'showhold']),
  dpkg: dpkgReadOnly, 'dpkg-query': always, rpm: rpmReadOnly,
  yum: subIn(['info', 'list', 'search', 'provides', 'whatprovides', 'repolist', 'repoinfo', 'check-update', 'deplist', 'repoquery', 'help']),
  dnf: subIn(['info', 'list', 'search', 'provides', 'whatprovides', 'repolist', 'repoinfo', 'check-update', 'deplist', 'repoquery', 'help']),
  brew: firstIn(['list', 'ls', 'info', 'abv', 'search', 'desc', 'deps', 'uses', 'leaves', 'outdated', 'config', 'doctor', 'dr', 'commands', 'log', 'cat', 'formulae', 'casks', 'tap-info', 'options', 'missing', 'shellenv', 'help', '--prefix', '--cellar', '--repository', '--repo', '--cache', '--caskroom', '--env', '--version']),
  pacman: pacmanReadOnly,
  apk: subIn(['info', 'search', 'policy', 'list', 'dot', 'stats', 'version', 'audit']),
  snap: subIn(['list', 'info', 'find', 'search', 'version', 'services', 'connections', 'interfaces', 'changes', 'tasks', 'warnings', 'known', 'aliases', 'help']),
  flatpak: subIn(['list', 'info', 'search', 'remotes', 'remote-ls', 'ps', 'history', '--version']),
  port: subIn(['installed', 'list', 'info', 'search', 'contents', 'deps', 'rdeps', 'variants', 'outdated', 'echo', 'provides', 'dependents', 'location', 'version', 'help', 'usage', 'file', 'dir', 'url', 'notes', 'platform']),
  zypper: subIn(['search', 'se', 'info', 'if', 'packages', 'pa', 'patterns', 'pt', 'products', 'pd', 'repos', 'lr', 'services', 'ls', 'what-provides', 'wp', 'list-updates', 'lu', 'list-patches', 'lp', 'locks', 'll', 'help', '--version']),
  conda: (a) => { const s = firstOperand(a); return s === 'list' || s === 'info' || s === 'search' || s === 'compare' || (s === 'env' && ['list', 'export'].includes(a.filter((x) => !x.startsWith('-'))[1] ?? '')) || (s === 'config' && a.some((x) => /^--(show|get|describe|show-sources)$/.test(x)) && !a.some((x) => /^--(set|add|append|prepend|remove|remove-key|write-default)$/.test(x))); },
  gem: subIn(['list', 'search', 'info', 'environment', 'env', 'contents', 'specification', 'spec', 'which', 'dependency', 'dep', 'outdated', 'query', 'help']),
  pipx: subIn(['list', 'environment', 'help']), asdf: subIn(['list', 'current', 'where', 'which', 'latest', 'help', 'version', 'info']),
  mise: subIn(['ls', 'list', 'current', 'which', 'where', 'doctor', 'version', 'ls-remote', 'outdated', 'help', '--version']),
  pyenv: (a) => { const s = firstOperand(a); return (s !== undefined && ['versions', 'version', 'which', 'whence', 'root', 'prefix', 'commands', 'help'].includes(s)) || (s === 'install' && a.some((x) => x === '--list' || x === '-l')); },
  rbenv: subIn(['versions', 'version', 'which', 'whence', 'root', 'prefix', 'commands', 'help']),
  nodenv: subIn(['versions', 'version', 'which', 'whence', 'root', 'prefix', 'commands', 'help']),
  rustup: (a) => { const o = a.filter((x) => !x.startsWith('-')); return o[0] === 'show' || o[0] === 'which' || (['toolchain', 'target', 'component'].includes(o[0] ?? '') && o[1] === 'list'); },
  volta: subIn(['list', 'which', 'help']), nvm: subIn(['ls', 'list', 'current', 'version', 'which', 'ls-remote', 'help']),

  // Archive listing (extraction and creation are judged as file writes by the fs rules).
  bsdtar: tarListOnly, gtar: tarListOnly, lsar: always, rpm2cpio: always,
  '7z': (a) => ['l', 't', 'h', 'i'].includes(firstOperand(a) ?? ''), '7za': (a) => ['l', 't', 'h', 'i'].includes(firstOperand(a) ?? ''), '7zz': (a) => ['l', 't', 'h', 'i'].includes(firstOperand(a) ?? ''),
  unrar: (a) => ['l', 'lt', 'lta', 'lb', 'v', 'vt', 'vta', 'vb', 't'].includes(firstOperand(a) ?? ''),
  xz: (a) => a.some((x) => /^-[a-zA-Z]*[lt]/.test(x) || x === '--list' || x === '--test'),
  zstd: (a) => a.some((x) => /^-[a-zA-Z]*[lt]/.test(x) || x === '--list' || x === '--test'),
  jar: (a) => { const m = (a[0] ?? '').replace(/^-/, ''); return (/t/.test(m) || a.includes('--list')) && !/[cxui]/.test(m); },
  ar: (a) => { const m = (a[0] ?? '').replace(/^-/, ''); return /^[tpvO]+$/.test(m) && !a.some((x) => x.startsWith('@')); },
  cpio: (a) => a.some((x) => /^-[a-zA-Z]*t/.test(x) || x === '--list') && !a.some((x) => /^-[a-zA-Z]*[op]/.test(x) || /^--(create|pass-through|rsh-command|absolute-filenames)/.test(x)),

  // Binaries and the system: inspection only.
  // binutils read `@file` as more options and echo its lines in their errors: any file could leak that way.
  ldd: trustedBinaries, nm: noAtFile, objdump: noAtFile, readelf: noAtFile, size: noAtFile, 'c++filt': noAtFile, addr2line: noAtFile,
  otool: always, 'llvm-objdump': noAtFile, 'llvm-nm': noAtFile, 'llvm-readelf': noAtFile, 'llvm-size': noAtFile, dwarfdump: always,
  lshw: none(/^-dump/), blkid: none(/^-[a-zA-Z]*g/), findmnt: always, lsns: always, ipcs: always, lsipc: always, lslocks: always,
  // sysctl keys are names (`vm.swappiness`); a path form (`/../../etc/shadow`) reads any file.
  mount: mountList, sysctl: (a) => !a.some((x) => /^-[a-zA-Z]*[wpf]/.test(x) || /^--(write|load|system)/.test(x) || x.includes('=') || x.includes('..') || x.startsWith('/')),
  // -H pages the output (a pager runs commands); -F reads a file instead of the kernel buffer.
  dmesg: none(/^-[a-zA-Z]*[cCDEnHF]/, /^--(clear|read-clear|console-off|console-on|console-level|human|file)/),
  last: none(/^-[a-zA-Z]*f/, /^--file/), lastb: none(/^-[a-zA-Z]*f/, /^--file/), lastlog: none(/^-[a-zA-Z]*[CS]/, /^--(clear|set)/), lslogins: always,
  timedatectl: (a) => { const s = firstOperand(a); return s === undefined || ['status', 'show', 'list-timezones', 'timesync-status', 'show-timesync'].includes(s); },
  localectl: (a) => { const s = firstOperand(a); return s === undefined || s === 'status' || s.startsWith('list-'); },
  fuser: none(/^-[a-zA-Z]*k/, /^--kill/), pmap: always, pwdx: always, sensors: none(/^-[a-zA-Z]*s/), mpstat: always, pidstat: always,
  sar: none(/^-[a-zA-Z]*o/), stty: (a) => a.every((x) => x === '-a' || x === '--all' || x === '-g' || x === '--save' || x === 'size' || x === 'speed'),
  compgen: none(/^-[a-zA-Z]*[CF]/),

  // Text tools that only print.
  look: always, tsort: always, pathchk: always, diff3: always, sdiff: none(/^-[a-zA-Z]*o/, /^--output/),
  xmllint: none(/^--?o(utput)?$/, /^--output=/, /^--shell$/), htmlq: always, pup: always,
  csvlook: always, csvstat: always, csvcut: always, csvgrep: always, csvsort: always, csvjson: always, in2csv: always,
  xsv: none(/^-[a-zA-Z]*o/, /^--output/), tomlq: none(/^-[a-zA-Z]*i/, /^--in-place/),

  // Shells that execute nothing: `bash -n script.sh` (syntax check), `bash -c` with no command string.
  sh: shellRunsNothing, bash: shellRunsNothing, dash: shellRunsNothing, zsh: shellRunsNothing, ksh: shellRunsNothing,
  mksh: shellRunsNothing, ash: shellRunsNothing,

  // Other version control systems: the inspecting subcommands; options that name a program to run are out.
  hg: subIn(['status', 'st', 'log', 'diff', 'di', 'annotate', 'blame', 'cat', 'id', 'identify', 'summary', 'sum', 'paths', 'branches', 'tags', 'heads', 'parents', 'manifest', 'files', 'grep', 'root', 'version', 'help', 'tip', 'incoming', 'in', 'outgoing', 'out'], /^--(config|debugger|tool|cwd)|^-o$|^--output/),
  svn: subIn(['status', 'stat', 'st', 'log', 'diff', 'di', 'info', 'cat', 'list', 'ls', 'blame', 'praise', 'annotate', 'ann', 'proplist', 'plist', 'pl', 'propget', 'pget', 'pg', 'help', 'h', 'mergeinfo'], /^--(diff-cmd|diff3-cmd|editor-cmd|config-option|config-dir)/),

  // The forge, Android devices and system inspection CLIs: read-only-clis.ts.
  ...READ_ONLY_CLIS,
};

const READ_ONLY_CHECKS: ReadonlyMap<string, Check> = new Map(Object.entries(READ_ONLY));

const VERSION_ARGS = new Set(['--version', '--help', '-version', '-help', '--usage', '-?']);
/** Tools where `-v`/`-V`/`version`/`help` alone only prints a version or help. */
const VERSION_TOOLS = new Set([
  'node', 'npm', 'npx', 'yarn', 'pnpm', 'bun', 'deno', 'tsc', 'go', 'cargo', 'rustc', 'rustup', 'python', 'python3',
  'pip', 'pip3', 'java', 'javac', 'gcc', 'g++', 'clang', 'make', 'cmake', 'docker', 'kubectl', 'helm', 'terraform',
  'tofu', 'git', 'gh', 'aws', 'gcloud', 'az', 'ssh', 'uv', 'poetry', 'ruby', 'gem', 'bundle', 'php', 'composer',
  'dotnet', 'swift', 'perl', 'mvn', 'gradle', 'zig', 'flutter', 'dart', 'mix', 'elixir', 'lua', 'nvim', 'vim', 'scp',
  'rsync', 'curl', 'wget', 'jq', 'yq',
]);

const readOnly = defineShellRule({
  id: 'dev.read-only',
  // allow: inspecting files, processes and the system without changing anything is the bulk of an agent's
  // work; options that act (find -exec/-delete, sed -i/e/w, awk system(), sort -o…) drop out of this set.
  tier: 'allow',
  reason: 'Read-only inspection.',
  examples: {
    match: ['ls -la', 'cat README.md', 'grep -rn TODO src', 'rg -n "fn main"', 'find . -name "*.ts" -type f', 'head -n 20 log.txt', 'wc -l src/*.ts', 'sed -n \'1,20p\' file.txt', 'awk \'{print $1}\' data.txt', 'jq .version package.json', 'ps aux', 'date +%s', 'printenv HOME', 'node --version', 'diff a.txt b.txt', 'tar -tzf archive.tgz', 'set -euo pipefail', 'xxd file.bin'],
    notMatch: ['find . -delete', 'sed -i \'s/a/b/\' f', 'awk \'{system($0)}\' x', 'sort -o out.txt in.txt', 'date -s "2020-01-01"', 'rg --pre ./x.sh foo', 'hostname evil', 'tar xzf a.tgz', 'less -o copy.txt f'],
  },
  match(cmd, ctx, analysis) {
    const name = programName(cmd);
    if (name === null) return null;
    if (cmd.argv.length === 2) {
      const only = staticValue(cmd.argv[1]);
      if (only !== null && (VERSION_ARGS.has(only) || (VERSION_TOOLS.has(name) && /^(-v|-V|-h|version|help)$/.test(only)))) return { subject: cmd.text };
    }
    // A Map, not the record itself: a program named `constructor` must not find Object's, and one Map lookup
    // is cheaper than hasOwn plus a load on a record this size (this rule runs for every command).
    const check = READ_ONLY_CHECKS.get(name);
    if (!check) return null;
    // Words xargs or parallel append at run time could be any option (`-delete`, `-i`): only tools with no acting
    // option stay read-only then, unless the words are paths printed by find.
    if (check !== always && cmd.via.length > 0 && cmd.argv.some((w) => isPlaceholder(w) && !w.vars.includes('find_path')) && !xargsFedByFind(cmd, analysis)) return null;
    // GNU parallel appends its `:::` arguments (or its input lines), which the analysis does not show.
    if (cmd.via.includes('parallel')) return null;
    if (!check(argTexts(cmd), cmd, ctx, analysis)) return null;
    if (cmd.redirects.length === 0) return { subject: cutText(cmd.text) };
    // Its output redirected into a file: the program only reads, but the command writes that file (where the
    // file may go is the path rules' business; this reason must not call the write "read-only").
    const into = cmd.redirects.filter((r) => r.access === 'write' && staticValue(r.target) !== '/dev/null').map((r) => staticValue(r.target) ?? r.target.value);
    if (into.length > 0) return { subject: cutText(cmd.text), reason: `Only reads; its output is written to ${into.join(', ')}.` };
    return { subject: cutText(cmd.text) };
  },
});

// ---------------------------------------------------------------------------------------------------------
// Project tooling

const NPM_OK = new Set([
  'run', 'run-script', 'rum', 'urn', 'test', 'tst', 't', 'start', 'stop', 'restart', 'ci', 'clean-install', 'ic',
  'install-clean', 'isntall-clean', 'ls', 'list', 'll', 'la', 'outdated', 'audit', 'view', 'info', 'show', 'v', 'pack',
  'prune', 'dedupe', 'ddp', 'rebuild', 'rb', 'doctor', 'root', 'prefix', 'help', 'explain', 'why', 'fund', 'query',
  'uninstall', 'un', 'remove', 'rm', 'r', 'update', 'up', 'upgrade', 'find-dupes', 'sbom', 'pkg', 'init',
]);
const YARN_BUILTINS_NOT_OK = new Set([
  'add', 'dlx', 'global', 'exec', 'publish', 'npm', 'link', 'unlink', 'set', 'config', 'plugin', 'policies', 'login',
  'logout', 'owner', 'tag', 'team', 'create', 'import', 'unplug', 'patch', 'patch-commit', 'node', 'constraints',
  'stage', 'search', 'licenses', 'generate-lock-entry', 'self-update', 'version', 'pack', 'cache', 'upgrade-interactive',
  'up', 'upgrade', 'init', 'explain', 'bin', 'workspace', 'workspaces', 'sdks', 'rebuild',
]);
const PNPM_NOT_OK = new Set([
  'add', 'dlx', 'create', 'publish', 'link', 'ln', 'unlink', 'setup', 'env', 'config', 'c', 'patch', 'patch-commit',
  'patch-remove', 'server', 'self-update', 'import', 'deploy', 'pack', 'login', 'logout', 'adduser', 'store', 'root',
  'bin', 'approve-builds', 'doctor', 'init',
]);
const BUN_OK = new Set(['install', 'i', 'run', 'test', 'build', 'pm', 'outdated', 'audit', 'why', 'remove', 'rm', 'update', 'info']);

function nodePmOk(name: string, cmd: SimpleCommand, ctx: RuleContext): boolean {
  const ic = installCommand(cmd);
  if (ic) return !ic.global && ic.packages.every((p) => p.local || isDeclared(ctx, 'npm', p.name));
  const r = remoteRun(cmd);
  if (r) return remoteRunDeclared(r, ctx);
  const ops = cmd.argv.slice(1).map((w) => staticValue(w) ?? w.value).filter((x, i, arr) => !x.startsWith('-') && !/^(--prefix|-C|-w|--workspace|--filter|-F|--dir|--cwd)$/.test(arr[i - 1] ?? ''));
  const sub = ops[0];
  if (name === 'npm') {
    if (sub === undefined) return false;
    if (sub === 'config' || sub === 'c') return ops[1] === 'get' || ops[1] === 'list' || ops[1] === 'ls';
    if (sub === 'cache') return ops[1] === 'verify' || ops[1] === 'ls';
    if (sub === 'version') return ops.length === 1;
    if (/^(uninstall|un|remove|rm|r|unlink)$/.test(sub) && cmd.argv.some((w) => /^(-g|--global|--location=global)$/.test(w.value))) return false;
    if (sub === 'exec' || sub === 'x') {
      const bin = ops[1];
      return bin !== undefined && npmBinDeclared(ctx, bin);
    }
    return NPM_OK.has(sub) || sub === 'install' || sub === 'i';
  }
  if (name === 'yarn') {
    if (sub === undefined) return true; // bare `yarn` installs the lock file
    if (sub === 'exec') return ops[1] !== undefined && npmBinDeclared(ctx, ops[1]);
    return !YARN_BUILTINS_NOT_OK.has(sub);
  }
  if (name === 'pnpm') {
    if (sub === undefined) return false;
    if (sub === 'exec') return ops[1] !== undefined && npmBinDeclared(ctx, ops[1]);
    return !PNPM_NOT_OK.has(sub);
  }
  if (name === 'bun') {
    if (sub === undefined) return false;
    return BUN_OK.has(sub);
  }
  return false;
}

/** Direct linters, formatters, test runners and compilers: running them reads and (re)writes project files. */
const TOOLS = new Set([
  'tsc', 'eslint', 'prettier', 'biome', 'oxlint', 'stylelint', 'vitest', 'jest', 'mocha', 'ava', 'c8', 'nyc', 'vite',
  'webpack', 'rollup', 'esbuild', 'tsup', 'turbo', 'nx', 'lerna', 'next', 'astro', 'svelte-check', 'vue-tsc', 'knip',
  'depcheck', 'size-limit', 'typedoc', 'tailwindcss', 'postcss', 'dprint', 'taplo', 'cspell', 'codespell', 'typos',
  'vale', 'editorconfig-checker', 'markdownlint', 'markdownlint-cli2', 'commitlint', 'shellcheck', 'shfmt',
  'hadolint', 'actionlint', 'yamllint', 'golangci-lint', 'staticcheck', 'gofmt', 'goimports', 'rustfmt', 'clang-format',
  'clang-tidy', 'cppcheck', 'cpplint', 'swiftlint', 'swiftformat', 'ktlint', 'detekt', 'rubocop', 'standardrb',
  'erb_lint', 'phpcs', 'phpcbf', 'phpstan', 'psalm', 'php-cs-fixer', 'phpunit', 'pest', 'buf', 'protoc', 'sqlfluff',
  'ruff', 'black', 'isort', 'mypy', 'pyright', 'pylint', 'flake8', 'bandit', 'autopep8', 'yapf', 'pydocstyle',
  'pycodestyle', 'pyflakes', 'vulture', 'radon', 'pytest', 'py.test', 'tox', 'nox', 'sphinx-build', 'rspec', 'ctest',
  'ninja', 'meson', 'rustc', 'gcc', 'g++', 'cc', 'c++', 'clang', 'clang++', 'javac', 'kotlinc', 'scalac', 'swiftc',
  'tflint', 'semgrep', 'playwright', 'cypress', 'ng', 'storybook', 'jasmine', 'karma', 'xcodebuild', 'bazel',
  'bazelisk', 'buck2', 'pants', 'just', 'task', 'rebar3', 'tsx', 'ts-node', 'elm', 'elm-format', 'zig', 'mix',
  'coverage', 'mkdocs', 'asimov', 'trufflehog', 'gitleaks', 'detect-secrets', 'ggshield', 'noseyparker', 'secretlint',
  'lint-staged', 'stack', 'cabal', 'swift', 'flutter', 'dart', 'make', 'gmake', 'cmake', 'gradle', 'gradlew', 'mvn',
  'mvnw', 'dotnet', 'cargo', 'go', 'rake', 'rails', 'bundle', 'composer', 'pre-commit', 'deno', 'java', 'uv', 'poetry',
  'pipenv', 'pdm', 'hatch', 'rye', 'pip', 'pip3', 'python', 'python3', 'npm', 'yarn', 'pnpm', 'bun', 'npx', 'pnpx',
  'bunx', 'terraform', 'tofu', 'nix',
  // Application servers running a project module on loopback (project-entry.ts).
  'uvicorn', 'gunicorn', 'hypercorn', 'granian', 'flask', 'fastapi', 'streamlit',
]);

/** Versioned Python names the dispatcher should also route here (`python3.12 -m pytest`). */
const PYTHON_VERSIONS = ['python2', 'python3.8', 'python3.9', 'python3.10', 'python3.11', 'python3.12', 'python3.13', 'python3.14'];

const CARGO_OK = new Set(['build', 'b', 'test', 't', 'check', 'c', 'clippy', 'fmt', 'run', 'r', 'doc', 'd', 'bench', 'tree', 'metadata', 'update', 'fetch', 'clean', 'nextest', 'generate-lockfile', 'verify-project', 'locate-project', 'pkgid', 'search', 'vendor', 'new', 'init', 'fix', 'llvm-cov', 'audit', 'deny', 'outdated', 'machete', 'expand', 'make', 'help', 'version', 'rustc', 'rustdoc', 'miri', 'udeps', 'insta', 'hack', 'tarpaulin', 'criterion', 'bloat', 'semver-checks', 'msrv', 'sort', 'shear']);
const GO_OK = new Set(['build', 'test', 'vet', 'fmt', 'run', 'mod', 'generate', 'list', 'env', 'version', 'doc', 'clean', 'work', 'tool', 'help', 'fix']);
const DOTNET_OK = new Set(['build', 'test', 'run', 'restore', 'format', 'clean', 'watch', 'new', 'pack', 'publish', 'sln', 'list', 'build-server', 'msbuild', 'vstest', 'user-secrets-x']);
const PY_MODULES_OK = new Set(['pytest', 'unittest', 'doctest', 'mypy', 'black', 'ruff', 'isort', 'pylint', 'flake8', 'coverage', 'pyright', 'compileall', 'py_compile', 'json.tool', 'build', 'venv', 'virtualenv', 'tox', 'nox', 'pre_commit', 'sphinx', 'mkdocs', 'timeit', 'tabnanny', 'bandit', 'pycodestyle', 'pyflakes', 'twine-check', 'ensurepip', 'pipdeptree', 'pip_audit', 'hatchling', 'setuptools_scm', 'alembic', 'cProfile', 'trace']);
const PIP_OK = new Set(['list', 'show', 'freeze', 'check', 'download', 'wheel', 'index', 'inspect', 'debug', 'hash', 'help', 'cache', 'config']);
const UV_OK = new Set(['sync', 'lock', 'venv', 'build', 'tree', 'init', 'remove', 'export', 'version', 'help', 'python', 'self', 'cache']);
const POETRY_OK = new Set(['install', 'lock', 'build', 'check', 'show', 'env', 'version', 'remove', 'update', 'export', 'init', 'new', 'about', 'list', 'search', 'debug', 'sync']);
const DESTRUCTIVE_TASK_RE = /^(db:(drop|reset|purge|wipe|schema:load|migrate:reset|truncate_all|rollback)(:\w+)?|migrate:(fresh|reset|refresh|rollback)|flush|sqlflush|reset_db|ecto\.(drop|reset|rollback)|schema:drop|drop)$/;

/**
 * Tooling is allowed for the project it runs in: a path argument (or `--opt=path`) that leads outside the
 * project (another package's scripts, a config file in /tmp, `-C ../other`) or a URL operand (remote code)
 * takes the command out of the allow set.
 */
function staysInProject(cmd: SimpleCommand, ctx: RuleContext): boolean {
  for (const w of cmd.argv.slice(1)) {
    const v = staticValue(w);
    if (v === null) continue;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return false;
    const eq = v.startsWith('-') ? v.indexOf('=') : -1;
    const p = eq >= 0 ? v.slice(eq + 1) : v.startsWith('-') ? '' : v;
    if (!/^(\/|~|\.\.(\/|$))/.test(p)) continue;
    const c = ctx.path(p).classes;
    if (!(c.has('project') || c.has('build-artifact')) || c.has('outside')) return false;
  }
  return true;
}

/**
 * A Python install the project may make: into the project's environment (not --user, not the system), of
 * packages it declares or of its own directories (`-e .`, `-e '.[dev]'`, `./packages/core`). A local path that
 * leads out of the project (`-e ../other`, `'..[dev]'`, `/tmp/pkg`) installs, and runs the build backend of,
 * code that is not the project's.
 */
function pythonInstallOk(ic: InstallCommand, ctx: RuleContext): boolean {
  return !ic.global && ic.packages.every((p) => (p.local ? projectPath(localPathOf(p.spec), ctx) : isDeclared(ctx, 'python', p.name)));
}

/** A path inside the project (not a link out of it, not a secret, not known only at run time). */
function projectPath(p: string, ctx: RuleContext): boolean {
  const c = ctx.path(p).classes;
  return (c.has('project') || c.has('build-artifact')) && !c.has('outside') && !c.has('dynamic') && !c.has('credentials');
}

/** make variables that hold the program a recipe runs. */
const MAKE_COMMAND_VARS = /^(CC|CXX|CPP|LD|AR|AS|FC|RANLIB|STRIP|NM|OBJCOPY|OBJDUMP|LEX|YACC|SHELL|\.SHELLFLAGS|MAKE|RM|CP|MV|INSTALL|PYTHON3?|PERL|RUBY|NODE|GO|CARGO|[A-Z_]*(_CMD|_COMMAND|_PROGRAM))$/;

/**
 * `VAR=value` overriding such a variable with more than a plain program and options, or with a program that
 * lives neither on the system's paths nor in the project (`SHELL=/tmp/evil`).
 */
function makeCommandOverride(word: string, ctx: RuleContext): boolean {
  const eq = word.indexOf('=');
  if (eq <= 0 || !MAKE_COMMAND_VARS.test(word.slice(0, eq).replace(/[+:?]$/, ''))) return false;
  const value = word.slice(eq + 1);
  if (!/^[\w./+-]+(\s+-[\w=.,/+-]*)*$/.test(value)) return true;
  const program = value.split(/\s/)[0]!;
  if (!program.includes('/')) return false; // looked up on PATH, as make would
  const c = ctx.path(program).classes;
  return !(c.has('system') || (c.has('project') && !c.has('outside'))) || c.has('dynamic');
}

function toolingOk(name: string, cmd: SimpleCommand, ctx: RuleContext, analysis?: Analysis): boolean {
  if (!TOOLS.has(name)) return false;
  if (!staysInProject(cmd, ctx)) return false;
  const words = argTexts(cmd);
  const ops = words.filter((x) => !x.startsWith('-'));
  const sub = ops[0];
  switch (name) {
    case 'npm':
    case 'yarn':
    case 'pnpm':
    case 'bun':
      return nodePmOk(name, cmd, ctx);
    case 'npx':
    case 'pnpx':
    case 'bunx': {
      const r = remoteRun(cmd);
      return r !== null && remoteRunDeclared(r, ctx);
    }
    case 'make':
    case 'gmake':
      // `make install` writes outside the project (a system or user prefix); a variable that names a program
      // (`CC='rm -rf ~'`, `SHELL=…`) given a command line runs it from every recipe that uses it.
      return !words.some((x) => /^--eval/.test(x) || x === '-E' || x === 'install' || x === 'uninstall' || makeCommandOverride(x, ctx));
    case 'cmake':
      return !words.some((x, i) => x === '-E' || x === '-P' || x === '--install' || x.startsWith('--install') || (x === 'install' && words[i - 1] === '--target'));
    case 'ninja':
      return !ops.includes('install') && !ops.includes('uninstall');
    case 'meson':
      return sub !== 'install';
    case 'cargo':
      if (sub === 'watch') return !words.some((x) => x === '-s' || x === '--shell');
      // The tauri-cli plugin: dev/build run the project's app and its configured before-commands; add, init,
      // migrate and signer change dependencies, scaffolding or signing keys.
      if (sub === 'tauri') return ['dev', 'build', 'info', 'bundle'].includes(ops[1] ?? '');
      return sub !== undefined && CARGO_OK.has(sub);
    case 'go':
      if (sub === 'run') return ops.length > 1 && !ops[1]!.includes('@');
      if (sub === 'env') return !words.some((x) => x === '-w' || x === '-u');
      if (sub === 'clean') return !words.some((x) => /^-(modcache|cache|testcache|fuzzcache)$/.test(x));
      return sub !== undefined && GO_OK.has(sub);
    case 'dotnet':
      if (sub === 'tool' || sub === 'nuget' || sub === 'add') return false;
      return sub !== undefined && DOTNET_OK.has(sub);
    case 'mvn':
    case 'mvnw':
      return !ops.some((g) => /deploy|release:|site-deploy/i.test(g));
    case 'gradle':
    case 'gradlew':
      return !ops.some((t) => /publish|upload/i.test(t));
    case 'java': {
      if (words.length === 1 && /^-?-version$/.test(words[0]!)) return true;
      // A jar inside the project is the project's code, like `python tool.py`; the Jenkins CLI jar talks to a
      // server and is judged by the infra rules (its get-credentials command hands out secrets).
      const jar = words.indexOf('-jar');
      if (jar >= 0 && words[jar + 1]) {
        const j = words[jar + 1]!;
        if (/jenkins-cli[^/]*\.jar$/.test(j)) return false;
        const c = ctx.path(j).classes;
        return (c.has('build-artifact') || c.has('project')) && !c.has('outside') && !c.has('dynamic') && !c.has('credentials');
      }
      const src = ops[0];
      return src !== undefined && /\.java$/.test(src) && ctx.path(src).classes.has('project');
    }
    case 'python':
    case 'python3': {
      const inv = invocation(cmd);
      if (!inv || inv.module === null) return false;
      const mod = inv.module;
      if (mod === 'pip') {
        const ic = installCommand(cmd);
        if (ic) return pythonInstallOk(ic, ctx);
        const s = inv.rest.map((w) => w.value).find((x) => !x.startsWith('-'));
        return s !== undefined && (PIP_OK.has(s) || s === 'install');
      }
      if (PY_MODULES_OK.has(mod)) return true;
      // The project's own modules and servers are looked up on sys.path from the command's directory.
      if (dropsCwdFromPath(inv.flags)) return false;
      const rest = inv.rest.map((w) => staticValue(w) ?? w.value);
      if (APP_SERVERS.has(mod) || mod === 'http.server') return appServerOk(mod, rest, cmd, ctx, analysis);
      return runsProjectModule(mod, cmd, ctx, analysis);
    }
    case 'uvicorn':
    case 'gunicorn':
    case 'hypercorn':
    case 'granian':
    case 'flask':
    case 'fastapi':
    case 'streamlit':
      return appServerOk(name, words, cmd, ctx, analysis);
    case 'pip':
    case 'pip3': {
      const ic = installCommand(cmd);
      if (ic) return pythonInstallOk(ic, ctx);
      if (sub === 'config') return ops[1] === 'list' || ops[1] === 'get';
      return sub !== undefined && (PIP_OK.has(sub) || sub === 'install');
    }
    case 'uv': {
      if (sub === 'pip') {
        const ic = installCommand(cmd);
        if (ic) return pythonInstallOk(ic, ctx);
        return ops[1] !== undefined && PIP_OK.has(ops[1]);
      }
      if (sub === 'add') {
        const ic = installCommand(cmd);
        return ic !== null && pythonInstallOk(ic, ctx);
      }
      return sub !== undefined && UV_OK.has(sub);
    }
    case 'poetry':
    case 'pdm':
    case 'rye':
    case 'pipenv':
    case 'hatch': {
      if (sub === 'add') {
        const ic = installCommand(cmd);
        return ic !== null && pythonInstallOk(ic, ctx);
      }
      if (name === 'pipenv' && sub === 'install') return ops.length === 1;
      return sub !== undefined && (POETRY_OK.has(sub) || ['sync', 'test', 'lint', 'fmt', 'graph', 'run', 'build'].includes(sub)) && sub !== 'shell';
    }
    case 'bundle':
      return sub === undefined || ['install', 'check', 'list', 'outdated', 'show', 'lock', 'update', 'info', 'platform', 'doctor'].includes(sub) || (sub === 'config' && (ops[1] === 'get' || ops[1] === 'list' || ops.length === 1));
    case 'rake':
    case 'rails':
      if (words.some((x) => /^-(e|E|p)$|^--(execute|execute-print|execute-continue)/.test(x))) return false;
      if (sub === 'console' || sub === 'c' || sub === 'dbconsole' || sub === 'db' || sub === 'runner' || sub === 'r') return false;
      if (name === 'rails' && (sub === 'server' || sub === 's')) return !words.some((x) => /0\.0\.0\.0/.test(x));
      return true;
    case 'composer':
      return sub === undefined || ['install', 'i', 'update', 'u', 'dump-autoload', 'dumpautoload', 'run-script', 'run', 'test', 'validate', 'show', 'outdated', 'audit', 'check-platform-reqs', 'licenses', 'depends', 'why', 'prohibits', 'why-not', 'diagnose', 'fund'].includes(sub) && !(sub === 'update' && ops.length > 1);
    case 'pre-commit':
      return sub === 'run' || sub === undefined || sub === 'validate-config' || sub === 'validate-manifest';
    case 'deno':
      return sub !== undefined && ['test', 'fmt', 'lint', 'check', 'task', 'doc', 'info', 'bench', 'compile', 'coverage', 'types', 'cache'].includes(sub);
    case 'mix':
      return sub !== undefined && !/^(hex\.publish|archive\.install|escript\.install|local\.|hex\.user|hex\.organization)/.test(sub) && !/^ecto\.(drop|reset)$/.test(sub);
    case 'swift':
      return sub !== undefined && ['build', 'test', 'run', 'package', 'format'].includes(sub);
    case 'flutter':
    case 'dart':
      return sub !== undefined && ['test', 'analyze', 'format', 'build', 'run', 'pub', 'doctor', 'fix', 'compile'].includes(sub) && !(sub === 'pub' && ['publish', 'global', 'add'].includes(ops[1] ?? ''));
    case 'stack':
    case 'cabal':
      return sub !== undefined && ['build', 'test', 'run', 'bench', 'haddock', 'check', 'clean', 'repl', 'exec', 'freeze', 'configure', 'update', 'v2-build', 'v2-test', 'v2-run'].includes(sub) && sub !== 'repl';
    case 'terraform':
    case 'tofu':
      return sub === 'fmt' || sub === 'validate' || sub === 'version';
    case 'nix':
      return sub === 'build' || (sub === 'flake' && (ops[1] === 'check' || ops[1] === 'show' || ops[1] === 'metadata')) || sub === 'eval' || sub === 'fmt';
    case 'asimov':
      return sub === undefined || ['check', 'explain', 'test', 'audit', 'help', 'version'].includes(sub) && !(sub === 'audit' && ops[1] !== undefined && !['tail', 'stats', 'verify'].includes(ops[1]));
    case 'playwright':
      return sub === 'test' || sub === 'show-report' || sub === 'install' || sub === 'merge-reports';
    case 'cypress':
      return sub === 'run' || sub === 'verify' || sub === 'info';
    case 'ts-node':
    case 'tsx': {
      const first = ops[0];
      if (words.some((x) => x === '-e' || x === '--eval' || x === '-p' || x === '--print')) return false;
      return first === undefined ? false : ctx.path(first).classes.has('project');
    }
    case 'trufflehog':
    case 'gitleaks':
    case 'detect-secrets':
    case 'ggshield':
    case 'noseyparker':
    case 'secretlint': {
      const targets = ops.filter((x) => !/^(filesystem|git|detect|protect|dir|scan|secret|scan-path|path|audit|hook|pre-commit|ci|repo)$/.test(x));
      return targets.every((t) => /^(https?|file):\/\//.test(t) ? false : ctx.path(t).classes.has('project'));
    }
    case 'zig':
      return sub !== undefined && ['build', 'test', 'run', 'fmt', 'version', 'env', 'targets', 'ast-check', 'build-exe', 'build-lib', 'build-obj', 'cc', 'c++', 'init'].includes(sub);
    default:
      return TOOLS.has(name);
  }
}

const projectTooling = defineShellRule({
  id: 'dev.project-tooling',
  // allow: building, testing, linting and formatting through the project's own tooling is the core of
  // development; installs of undeclared packages, publishing and deploys are left to their own rules.
  tier: 'allow',
  reason: 'Builds, tests, lints or formats the project with its own tooling.',
  programs: [...TOOLS, ...PYTHON_VERSIONS],
  examples: {
    match: ['npm test', 'npm run build', 'npm ci', 'npm install', 'yarn', 'pnpm lint', 'make', 'cargo test --all', 'go test ./...', 'pytest -x', 'python -m pytest tests/', 'ruff check .', 'tsc --noEmit -p .', 'eslint src', 'prettier --write .', 'mvn -q test', './gradlew build', 'dotnet test', 'pip install -r requirements.txt', 'bundle install', 'terraform fmt', 'shellcheck scripts/*.sh'],
    notMatch: ['npm publish', 'npm install left-pad', 'cargo install ripgrep', 'go run github.com/x/y@latest', 'cmake -E rm -rf /', 'make --eval=\'x:=$(shell id)\'', 'terraform apply', 'pip install requests', 'npx cowsay'],
  },
  match(cmd, ctx, analysis) {
    const name = programName(cmd);
    if (name === null) return null;
    const base = /^python[23](\.\d+)?$/.test(name) ? 'python3' : name;
    return toolingOk(base, cmd, ctx, analysis) ? { subject: cutText(cmd.text) } : null;
  },
});

const DESTRUCTIVE_RUNNERS = new Set(['php', 'python', 'python3', 'rails', 'rake', 'bundle', 'mix', 'npx', 'prisma', 'sequelize', 'knex', 'typeorm', 'drizzle-kit', 'alembic', 'supabase', 'dotnet', 'artisan']);

const destructiveTask = defineShellRule({
  id: 'dev.destructive-task',
  // soft: framework tasks that drop or reset the database (migrate:fresh, db:drop, manage.py flush, prisma
  // migrate reset) destroy data behind an innocent-looking project command.
  tier: 'soft_deny',
  reason: 'This framework task drops or resets the database; make sure it is a throwaway database, or ask the user.',
  programs: [...DESTRUCTIVE_RUNNERS, ...PYTHON_VERSIONS],
  examples: {
    match: ['php artisan migrate:fresh --seed', 'python manage.py flush --noinput', 'rails db:drop', 'bundle exec rake db:reset', 'npx prisma migrate reset --force', 'mix ecto.drop', 'alembic downgrade base', 'supabase db reset', 'dotnet ef database drop -f'],
    notMatch: ['php artisan migrate', 'python manage.py test', 'rails db:migrate', 'npx prisma migrate dev', 'alembic upgrade head'],
  },
  match(cmd) {
    const name = programName(cmd);
    if (name === null) return null;
    const a = argTexts(cmd);
    const joined = a.join(' ');
    if (/\bprisma (migrate reset|db push .*--force-reset)/.test(`${name} ${joined}`)) return { subject: `prisma ${joined}` };
    if (/^alembic$/.test(name) && /\bdowngrade base\b/.test(joined)) return { subject: joined };
    if (name === 'supabase' && /^db reset\b/.test(joined)) return { subject: joined };
    if (name === 'dotnet' && /\bef database drop\b/.test(joined)) return { subject: joined };
    if (/^(sequelize|knex|typeorm|drizzle-kit)$/.test(name) && /\b(db:drop|migrate:undo:all|migrate:rollback --all|schema:drop|drop)\b/.test(joined)) return { subject: joined };
    const task = a.find((x) => DESTRUCTIVE_TASK_RE.test(x));
    return task ? { subject: task } : null;
  },
});

export const rules: Rule[] = [readOnly, projectTooling, destructiveTask];
