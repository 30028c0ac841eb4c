// Wrapper unwrapping: finds the command a wrapper really runs (`sudo X`, `timeout 5 X`, `bash -c 'X'`,
// `find -exec X`, `ssh host X`…) and adds it to the analysis as a command of its own, recursively, so that
// rules see `rm -rf /` whether it was written plainly or inside three wrappers.

import { assignWorkDirs } from './cwd.ts';
import { parseShell } from './parse.ts';
import { toolRunnerInner } from './runners.ts';
import { basename, interpreterFamily, staticValue, withSlots } from './program.ts';
import type { Analysis, Assignment, SimpleCommand, Word } from './types.ts';
import { arithmeticPayloads, PAYLOAD_PROGRAMS, sinkPayloads, xargsCommands, type Payload } from './payload-sinks.ts';
import { asScript, ifsChanged, staticStdin, staticText } from './static-output.ts';

/**
 * A word standing for data only known at run time (xargs input, find's `{}`). Its value is written as a
 * parameter expansion so that every consumer (rules, path classification) treats it as dynamic.
 */
function placeholder(raw: string, what: string): Word {
  return { raw, value: `\${${what}}`, literal: false, glob: false, vars: [what], substitutions: [], substitutionKinds: [] };
}

/** How many times a string may be parsed again inside another (`bash -c "eval '…'"`) before we give up. */
export const MAX_REPARSE_DEPTH = 8;

const ASSIGNMENT_RE = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * How to skip a wrapper's own options: which take a value. `operands` is how many non-option words belong
 * to the wrapper before the inner command starts (`timeout DURATION cmd` has 1).
 */
interface WrapperSpec {
  shortWithValue?: string;
  longWithValue?: readonly string[];
  operands?: number;
  /** Options that mean "no inner command" (`command -v x` only looks x up). */
  noExec?: readonly string[];
  /** `NAME=value` words before the command are environment assignments (env, sudo). */
  assignments?: boolean;
  /** `-10` is an option (nice's old form), not the start of the command. */
  numericOption?: boolean;
}

const SIMPLE_WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: { shortWithValue: 'ugpChrtTUD', longWithValue: ['user', 'group', 'prompt', 'close-from', 'host', 'role', 'type', 'other-user', 'chdir', 'chroot'], assignments: true, noExec: ['l', 'list', 'v', 'validate', 'k', 'K', 'reset-timestamp', 'remove-timestamp', 'V', 'version', 'h', 'help', 'e', 'edit'] },
  doas: { shortWithValue: 'uC', noExec: ['C'] },
  pkexec: { longWithValue: ['user'] },
  run0: { shortWithValue: 'u', longWithValue: ['user', 'unit', 'property', 'description', 'slice', 'chdir', 'setenv', 'nice', 'background'] },
  env: { shortWithValue: 'uCS', longWithValue: ['unset', 'chdir', 'split-string', 'block-signal', 'default-signal', 'ignore-signal'], assignments: true },
  command: { noExec: ['v', 'V'] },
  builtin: {},
  exec: { shortWithValue: 'a' },
  nohup: {},
  nice: { shortWithValue: 'n', longWithValue: ['adjustment'], numericOption: true },
  timeout: { shortWithValue: 'sk', longWithValue: ['signal', 'kill-after'], operands: 1 },
  time: { shortWithValue: 'fo', longWithValue: ['format', 'output'] },
  stdbuf: { shortWithValue: 'ioe', longWithValue: ['input', 'output', 'error'] },
  ionice: { shortWithValue: 'cnpPu', longWithValue: ['class', 'classdata', 'pid', 'pgid', 'uid'] },
  chrt: { operands: 1 },
  taskset: { shortWithValue: '', operands: 1 },
  setsid: {},
  setarch: { operands: 1 },
  linux32: {},
  linux64: {},
  chroot: { longWithValue: ['userspec', 'groups'], operands: 1 },
  unshare: { shortWithValue: 'S', longWithValue: ['setuid', 'setgid', 'root', 'wd', 'propagation', 'setgroups'] },
  nsenter: { shortWithValue: 'tSGrw', longWithValue: ['target', 'setuid', 'setgid', 'root', 'wd'] },
  strace: { shortWithValue: 'aebEIoOpPsSuUX', longWithValue: ['output', 'trace', 'signal', 'user', 'attach'] },
  ltrace: { shortWithValue: 'aeEoOpsunx', longWithValue: ['output'] },
  flock: { shortWithValue: 'wEc', longWithValue: ['timeout', 'conflict-exit-code', 'command'], operands: 1 },
  busybox: {},
  catchsegv: {},
  unbuffer: {},
  caffeinate: { shortWithValue: 'tw' },
  'xvfb-run': { shortWithValue: 'nsfeap', longWithValue: ['server-num', 'server-args', 'auth-file', 'error-file', 'xauth-protocol'] },
  'dbus-run-session': { longWithValue: ['config-file', 'dbus-daemon'] },
  proxychains: { shortWithValue: 'f' },
  proxychains4: { shortWithValue: 'f' },
  torsocks: { shortWithValue: 'uapP' },
  firejail: {},
  sg: { operands: 1 },
  'start-stop-daemon': {},
  valgrind: {},
  'ld.so': {},
};

// The options of wrappers that have a handler of their own.
const XARGS_OPTIONS: WrapperSpec = {
  // -i, -e and -l take their value only attached (-i{}), and so do their long forms --replace[=R], --eof[=E],
  // --max-lines[=N]: none of them is listed as taking one (`xargs --replace bash -c …` runs bash; listing
  // --replace made `bash` its value and the command `-c …`).
  shortWithValue: 'IELnPsda',
  longWithValue: ['max-args', 'max-procs', 'max-chars', 'delimiter', 'arg-file', 'process-slot-var'],
};
const WATCH_OPTIONS: WrapperSpec = { shortWithValue: 'nq', longWithValue: ['interval', 'differences', 'equexit'] };
const SSH_OPTIONS: WrapperSpec = { shortWithValue: 'bcDEeFIiJLlmOopQRSWwB' };
const CONTAINER_EXEC_OPTIONS: WrapperSpec = { shortWithValue: 'euw', longWithValue: ['env', 'env-file', 'user', 'workdir', 'detach-keys'] };
const CONTAINER_RUN_OPTIONS: WrapperSpec = {
  shortWithValue: 'aceghlmpuvw',
  longWithValue: ['add-host', 'attach', 'cap-add', 'cap-drop', 'cgroup-parent', 'cidfile', 'cpus', 'cpu-shares', 'device', 'dns', 'entrypoint', 'env', 'env-file', 'expose', 'gpus', 'group-add', 'health-cmd', 'hostname', 'ip', 'ipc', 'label', 'label-file', 'link', 'log-driver', 'log-opt', 'memory', 'mount', 'name', 'network', 'net', 'pid', 'platform', 'publish', 'pull', 'restart', 'runtime', 'security-opt', 'shm-size', 'stop-signal', 'tmpfs', 'ulimit', 'user', 'userns', 'uts', 'volume', 'volumes-from', 'workdir'],
};
const COMPOSE_OPTIONS: WrapperSpec = { shortWithValue: 'fp', longWithValue: ['file', 'project-name', 'project-directory', 'profile', 'env-file', 'ansi', 'progress', 'parallel'] };
const COMPOSE_EXEC_OPTIONS: WrapperSpec = { shortWithValue: 'euw', longWithValue: ['env', 'user', 'workdir', 'index'] };
const COMPOSE_RUN_OPTIONS: WrapperSpec = { shortWithValue: 'eluvpw', longWithValue: ['env', 'env-from-file', 'label', 'user', 'volume', 'publish', 'workdir', 'name', 'entrypoint', 'cap-add', 'cap-drop', 'pull'] };
const TMUX_OPTIONS: WrapperSpec = { shortWithValue: 'cetnsxyFlpPLSTwfa' };
const PARALLEL_OPTIONS: WrapperSpec = { shortWithValue: 'jSdEIaP', longWithValue: ['jobs', 'sshlogin', 'delimiter', 'joblog', 'results', 'timeout'] };

/** `tool run X` forms: the words after these subcommands are the inner command. */
const RUNNER_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  uv: ['run'],
  poetry: ['run'],
  pipenv: ['run'],
  pdm: ['run'],
  rye: ['run'],
  hatch: ['run'],
  conda: ['run'],
  mamba: ['run'],
  bundle: ['exec'],
  mise: ['exec', 'x'],
  asdf: ['exec'],
  direnv: ['exec'],
  nvm: ['exec', 'run'],
  fnm: ['exec'],
  volta: ['run'],
};

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash']);

/** Options of git subcommands whose value is a command git runs through a shell (see unwrapGitSubcommand). */
const GIT_RUN_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['rebase', ['--exec', '-x']],
  ['clone', ['--upload-pack', '-u']],
  ['fetch', ['--upload-pack']],
  ['pull', ['--upload-pack']],
  ['ls-remote', ['--upload-pack', '--exec']],
  ['push', ['--receive-pack', '--exec']],
  ['send-pack', ['--receive-pack', '--exec']],
  ['fetch-pack', ['--upload-pack', '--exec']],
  ['archive', ['--exec']],
]);

/** The dynamic loader run as a program (`/lib64/ld-linux-x86-64.so.2 /bin/rm …`). */
const LOADER_RE = /^ld-linux.*\.so|^ld-musl/;

type WrapperHandler = (u: Unwrapper, cmd: SimpleCommand, rest: Word[], name: string) => void;

/** True when some command was unwrapped directly from command `id` (every inner one needs such a parent); no allocation. */
export function wrapsDirectly(id: number, analysis: Analysis): boolean {
  const cs = analysis.commands;
  for (let i = 0; i < cs.length; i++) if (cs[i]!.wrappedBy === id) return true;
  return false;
}

/** Analyse a shell line fully: parse, then unwrap every wrapper recursively. Never throws. */
export function analyzeShell(src: string): Analysis {
  return unwrapAnalysis(parseShell(src, { depth: 0 }));
}

/**
 * The analysis with its wrappers unwrapped. Takes the analysis over: its arrays become the result's
 * (copying them cost every decision an allocation each, for an analysis nobody else keeps).
 */
export function unwrapAnalysis(analysis: Analysis): Analysis {
  if (analysis.status !== 'ok') return analysis;
  const u = new Unwrapper(analysis);
  return u.run();
}

class Unwrapper {
  private readonly out: SimpleCommand[];
  private status: Analysis['status'] = 'ok';
  private message: string | undefined;
  private readonly functions: string[];
  private readonly aliases: string[];
  private readonly problems: string[];
  private arithmetic: boolean;
  /** Subshell scope ids for strings parsed again and wrapped commands (SimpleCommand.scope), above the parser's own. */
  private nextScope = 1 << 20;
  private loops: Analysis['loops'];

  constructor(base: Analysis) {
    this.out = base.commands;
    this.functions = base.functions;
    this.aliases = base.aliases;
    this.problems = base.problems;
    this.arithmetic = base.arithmetic === true;
    this.loops = base.loops;
  }

  run(): Analysis {
    // Commands appended while unwrapping are themselves visited (a wrapper inside a wrapper).
    let i = 0;
    for (; i < this.out.length && this.status === 'ok'; i++) this.visit(this.out[i]!);
    // Arithmetic running `$(…)` from subscripts of strings built in the line (payload-sinks.ts).
    if (this.status === 'ok') for (const p of arithmeticPayloads(this.out, this.arithmetic)) this.addPayload(p);
    for (; i < this.out.length && this.status === 'ok'; i++) this.visit(this.out[i]!);
    // Last, when every command is known: where each runs (cwd.ts), decoded payloads included.
    if (this.status === 'ok') assignWorkDirs({ status: 'ok', commands: this.out, functions: this.functions, aliases: this.aliases, problems: this.problems });
    const result: Analysis = {
      status: this.status,
      commands: this.out,
      functions: this.functions,
      aliases: this.aliases,
      problems: this.problems,
    };
    if (this.arithmetic) result.arithmetic = true;
    if (this.loops) result.loops = this.loops;
    if (this.message !== undefined) result.message = this.message;
    return result;
  }

  /**
   * What to do for each wrapper, by program name. Looked up once per command: most commands wrap
   * nothing, and one Map lookup tells (a chain of comparisons, own-property checks and a copy of the
   * words did before). Versioned shells (`bash5.2`) and loaders (`ld-linux-x86-64.so.2`) are matched
   * by pattern in visit, after this table. A Map holds only its own keys: a program named
   * `constructor` or `__proto__` is not a wrapper.
   */
  private static readonly BY_NAME: ReadonlyMap<string, WrapperHandler> = new Map<string, WrapperHandler>([
    ...[...SHELLS].map((sh): [string, WrapperHandler] => [sh, (u, cmd, rest, name) => u.unwrapShell(cmd, rest, name)]),
    ...Object.entries(RUNNER_SUBCOMMANDS).map(([runner, subs]): [string, WrapperHandler] =>
      [runner, (u, cmd, rest, name) => u.unwrapRunner(cmd, rest, name, subs)]),
    ...Object.entries(SIMPLE_WRAPPERS).map(([wrapper, spec]): [string, WrapperHandler] =>
      [wrapper, (u, cmd, rest, name) => u.unwrapSimple(cmd, rest, name, spec)]),
    // `busybox sh …` is a shell; `busybox other …` a simple wrapper.
    ['busybox', (u, cmd, rest, name) => isShellWord(rest[0])
      ? u.unwrapShell(cmd, rest.slice(1), name)
      : u.unwrapSimple(cmd, rest, name, SIMPLE_WRAPPERS['busybox']!)],
    // Tool runners (shell/runners.ts): `npx cdk destroy`, `pnpm dlx …`, `uvx …`; `uv run` keeps its runner handler.
    ...['npx', 'pnpx', 'bunx', 'npm', 'pnpm', 'yarn', 'bun', 'uvx', 'pipx'].map((r): [string, WrapperHandler] =>
      [r, (u, cmd, rest, name) => u.unwrapToolRunner(cmd, rest, name)]),
    ['uv', (u, cmd, rest, name) => {
      if (!u.unwrapToolRunner(cmd, rest, name)) u.unwrapRunner(cmd, rest, name, RUNNER_SUBCOMMANDS['uv']!);
    }],
    ['eval', (u, cmd, rest) => u.unwrapString(cmd, rest, 'eval')],
    ['su', (u, cmd, rest, name) => u.unwrapSu(cmd, rest, name)],
    ['runuser', (u, cmd, rest, name) => u.unwrapSu(cmd, rest, name)],
    ['xargs', (u, cmd, rest) => u.unwrapXargs(cmd, rest)],
    ['find', (u, cmd, rest) => u.unwrapFind(cmd, rest)],
    ['watch', (u, cmd, rest) => u.unwrapWatch(cmd, rest)],
    ['ssh', (u, cmd, rest) => u.unwrapSsh(cmd, rest)],
    ['docker', (u, cmd, rest, name) => u.unwrapContainer(cmd, rest, name)],
    ['docker-compose', (u, cmd, rest, name) => u.unwrapContainer(cmd, rest, name)],
    ['podman-compose', (u, cmd, rest, name) => u.unwrapContainer(cmd, rest, name)],
    ['podman', (u, cmd, rest, name) => u.unwrapContainer(cmd, rest, name)],
    ['nerdctl', (u, cmd, rest, name) => u.unwrapContainer(cmd, rest, name)],
    ['kubectl', (u, cmd, rest, name) => u.unwrapKubectl(cmd, rest, name)],
    ['oc', (u, cmd, rest, name) => u.unwrapKubectl(cmd, rest, name)],
    ['git', (u, cmd, rest) => u.unwrapGit(cmd, rest)],
    ['trap', (u, cmd, rest) => {
      const s = rest[0];
      if (s && !s.value.startsWith('-')) u.unwrapString(cmd, [s], 'trap');
    }],
    ['script', (u, cmd, rest) => {
      const i = rest.findIndex((w) => w.value === '-c' || w.value === '--command');
      if (i >= 0 && rest[i + 1]) u.unwrapString(cmd, [rest[i + 1]!], 'script -c');
    }],
    ['tmux', (u, cmd, rest) => u.unwrapTmux(cmd, rest)],
    ['parallel', (u, cmd, rest) => u.unwrapParallel(cmd, rest)],
    ['nix-shell', (u, cmd, rest) => {
      const i = rest.findIndex((w) => w.value === '--run' || w.value === '--command');
      if (i >= 0 && rest[i + 1]) u.unwrapString(cmd, [rest[i + 1]!], 'nix-shell --run');
    }],
  ]);

  private visit(cmd: SimpleCommand): void {
    const v0 = staticValue(cmd.argv[0]);
    const name = v0 === null ? null : basename(v0).toLowerCase();
    // Programs that run a payload they are given (make -f -, sed e, awk system, git ext::, source <(…)), and a
    // command name that is a `$(…)` of known output.
    if ((name === null && cmd.argv.length > 0) || (name !== null && (PAYLOAD_PROGRAMS.has(name) || !cmd.argv[0]!.literal))) {
      for (const p of sinkPayloads(cmd, name, this.out)) this.addPayload(p);
    }
    if (name === null) return;
    const handler = Unwrapper.BY_NAME.get(name);
    if (handler !== undefined) return handler(this, cmd, cmd.argv.slice(1), name);
    if (SHELLS.has(interpreterFamily(name))) return this.unwrapShell(cmd, cmd.argv.slice(1), name);
    if (LOADER_RE.test(name)) return this.addInner(cmd, skipOptions(cmd.argv.slice(1), {}).words, name, []);
  }

  /** `npx pkg args`, `pnpm dlx …`, `npm exec -- …`…: the package's program with the rest (shell/runners.ts). */
  private unwrapToolRunner(cmd: SimpleCommand, rest: Word[], name: string): boolean {
    const inner = toolRunnerInner(name, rest);
    if (inner === null) return false;
    if (inner.shell) this.unwrapString(cmd, [inner.shell], `${inner.label} -c`);
    else this.addInner(cmd, inner.words, inner.label, []);
    return true;
  }

  /** `uv run X`, `bundle exec X`…: the words after the subcommand and its options. */
  private unwrapRunner(cmd: SimpleCommand, rest: Word[], name: string, subcommands: readonly string[]): void {
    const sub = rest.findIndex((w) => !w.value.startsWith('-'));
    if (sub >= 0 && subcommands.includes(rest[sub]!.value)) {
      let start = sub + 1;
      while (start < rest.length && rest[start]!.value.startsWith('-')) {
        if (rest[start]!.value === '--') { start++; break; }
        start++;
      }
      this.addInner(cmd, rest.slice(start), `${name} ${rest[sub]!.value}`, []);
    }
  }

  private unwrapSimple(cmd: SimpleCommand, rest: Word[], name: string, spec: WrapperSpec): void {
    const skipped = skipOptions(rest, spec);
    if (skipped.noExec) return;
    let words = skipped.words;
    const assignments: Assignment[] = [];
    if (spec.assignments) {
      while (words.length > 0 && ASSIGNMENT_RE.test(words[0]!.value)) {
        const w = words[0]!;
        const eq = w.value.indexOf('=');
        assignments.push({ name: w.value.slice(0, eq), value: { ...w, raw: w.raw, value: w.value.slice(eq + 1) }, append: false });
        words = words.slice(1);
      }
    }
    // `env -S 'cmd args'` splits its string into words, which is a shell-like parse of its own.
    if (name === 'env' && skipped.splitString !== undefined) {
      return this.unwrapString(cmd, [skipped.splitString, ...words], 'env -S');
    }
    let label = name;
    if (name === 'busybox' && words[0]) label = 'busybox';
    this.addInner(cmd, words, label, assignments);
  }

  private unwrapShell(cmd: SimpleCommand, rest: Word[], name: string): void {
    // Shell options come first; -c takes the command string as the first operand after the options.
    let hasC = false;
    let readsStdin = false;
    let i = 0;
    for (; i < rest.length; i++) {
      const v = rest[i]!.value;
      if (v === '--' || v === '-') { i++; break; }
      if ((v.startsWith('-') || v.startsWith('+')) && v.length > 1) {
        if (v === '-o' || v === '+o' || v === '-O' || v === '+O' || v === '--rcfile' || v === '--init-file') { i++; continue; }
        if (v.startsWith('--')) continue;
        if (v.includes('c')) hasC = true;
        if (v.includes('s')) readsStdin = true;
        continue;
      }
      break;
    }
    const operands = rest.slice(i);
    if (hasC) {
      const script = operands[0];
      if (!script) return;
      return this.unwrapString(cmd, [script], `${name} -c`);
    }
    if (operands.length > 0 && !readsStdin) return; // runs a script file: its content is not visible here
    // No script operand: the shell reads its program from standard input.
    // The commands read from standard input do not read it again (`bash <<EOF … bash -i … EOF`).
    const stdin = cmd.stdin;
    if (stdin.kind === 'heredoc') return this.reparse(cmd, stdin.body, `${name} <<`, false, undefined, true);
    if (stdin.kind === 'herestring') return this.unwrapString(cmd, [stdin.word], `${name} <<<`, false, true);
    if (stdin.kind === 'pipe' || stdin.kind === 'file') {
      // `echo 'rm -rf /' | sh`, `echo … | base64 -d | sh`: the piped text is known when it comes from
      // producers of literals through known decoders (static-output.ts).
      const k = staticStdin(this.out, cmd);
      const text = k === null ? null : asScript(k);
      if (k !== null && text !== null) return this.reparse(cmd, text, k.decoded.length > 0 ? `${k.decoded.join(' | ')} | ${name}` : `| ${name}`, false, joinSteps(k.decoded), true);
    }
  }

  private unwrapSu(cmd: SimpleCommand, rest: Word[], name: string): void {
    for (let i = 0; i < rest.length; i++) {
      const v = rest[i]!.value;
      if (v === '-c' || v === '--command' || v === '--session-command') {
        const s = rest[i + 1];
        if (s) this.unwrapString(cmd, [s], `${name} -c`);
        return;
      }
      if (v.startsWith('--command=')) {
        this.unwrapString(cmd, [{ ...rest[i]!, value: v.slice('--command='.length) }], `${name} -c`);
        return;
      }
    }
    if (name === 'runuser') {
      const dd = rest.findIndex((w) => w.value === '--');
      if (dd >= 0) this.addInner(cmd, rest.slice(dd + 1), 'runuser', []);
    }
  }

  private unwrapXargs(cmd: SimpleCommand, rest: Word[]): void {
    const skipped = skipOptions(rest, XARGS_OPTIONS);
    let replace: string | undefined;
    for (let i = 0; i < rest.length; i++) {
      const v = rest[i]!.value;
      if (v === '-I' && rest[i + 1]) replace = rest[i + 1]!.value;
      else if (v.startsWith('-I') && v.length > 2) replace = v.slice(2);
      else if (v === '-i' || v === '--replace') replace = '{}';
      else if (v.startsWith('-i') && !v.startsWith('-i-')) replace = v.slice(2);
      else if (v.startsWith('--replace=')) replace = v.slice('--replace='.length);
    }
    // An empty replace string is not one asimov can place: read it as the default `{}` (the stricter reading).
    if (replace === '') replace = '{}';
    const words = skipped.words.length > 0 ? skipped.words : [literalWord('echo')];
    // Input known statically (`echo … | base64 -d | xargs -0 sh -c`): the commands it makes (payload-sinks.ts).
    const known = cmd.stdin.kind === 'tty' ? null : xargsCommands(this.out, cmd, rest, words, replace);
    if (known !== null) {
      for (const argv of known.commands) this.addPayload({ owner: cmd, argv, label: 'xargs', decoded: known.decoded });
      return;
    }
    // xargs appends its input to the command, or puts it where the replace string stands.
    const inner = replace
      ? words.map((w) => (w.value.includes(replace!) ? placeholder(w.raw, 'xargs_input') : w))
      : [...words, placeholder('{xargs input}', 'xargs_input')];
    this.addInner(cmd, inner, 'xargs', []);
  }

  private unwrapFind(cmd: SimpleCommand, rest: Word[]): void {
    for (let i = 0; i < rest.length; i++) {
      const v = rest[i]!.value;
      if (v !== '-exec' && v !== '-execdir' && v !== '-ok' && v !== '-okdir') continue;
      const start = i + 1;
      let end = start;
      while (end < rest.length && rest[end]!.value !== ';' && rest[end]!.value !== '+') end++;
      const words = rest.slice(start, end).map((w) => (w.value.includes('{}') ? placeholder(w.raw, 'find_path') : w));
      this.addInner(cmd, words, `find ${v}`, []);
      i = end;
    }
  }

  private unwrapWatch(cmd: SimpleCommand, rest: Word[]): void {
    const skipped = skipOptions(rest, WATCH_OPTIONS);
    const direct = rest.some((w) => w.value === '-x' || w.value === '--exec');
    if (direct) return this.addInner(cmd, skipped.words, 'watch -x', []);
    // watch hands its words, joined by spaces, to `sh -c`.
    this.unwrapString(cmd, skipped.words, 'watch');
  }

  private unwrapSsh(cmd: SimpleCommand, rest: Word[]): void {
    const skipped = skipOptions(rest, SSH_OPTIONS);
    const words = skipped.words;
    if (words.length < 2) return; // only a host: an interactive session
    // The remote side runs the words, joined by spaces, through the user's shell.
    this.unwrapString(cmd, words.slice(1), 'ssh', true);
  }

  private unwrapContainer(cmd: SimpleCommand, rest: Word[], name: string): void {
    if (rest[0]?.value === 'compose' || name === 'docker-compose' || name === 'podman-compose') {
      return this.unwrapCompose(cmd, rest[0]?.value === 'compose' ? rest.slice(1) : rest, name);
    }
    const sub = rest[0]?.value;
    if (sub === 'exec') {
      const skipped = skipOptions(rest.slice(1), CONTAINER_EXEC_OPTIONS);
      this.addInner(cmd, skipped.words.slice(1), `${name} exec`, [], true);
    } else if (sub === 'run') {
      const skipped = skipOptions(rest.slice(1), CONTAINER_RUN_OPTIONS);
      if (skipped.words.length > 1) this.addInner(cmd, skipped.words.slice(1), `${name} run`, [], true);
    }
  }

  /** `docker compose exec|run [opts] SERVICE CMD…`: CMD runs in the service's container. */
  private unwrapCompose(cmd: SimpleCommand, rest: Word[], name: string): void {
    const top = skipOptions(rest, COMPOSE_OPTIONS);
    const sub = top.words[0]?.value;
    if (sub !== 'exec' && sub !== 'run') return;
    const skipped = skipOptions(top.words.slice(1), sub === 'exec' ? COMPOSE_EXEC_OPTIONS : COMPOSE_RUN_OPTIONS);
    if (skipped.words.length > 1) this.addInner(cmd, skipped.words.slice(1), `${name === 'docker' || name === 'podman' ? `${name} compose` : name} ${sub}`, [], true);
  }

  private unwrapKubectl(cmd: SimpleCommand, rest: Word[], name: string): void {
    if (!rest.some((w) => w.value === 'exec')) return;
    const dd = rest.findIndex((w) => w.value === '--');
    if (dd >= 0) this.addInner(cmd, rest.slice(dd + 1), `${name} exec`, [], true);
  }

  private unwrapGit(cmd: SimpleCommand, rest: Word[]): void {
    // `git -c alias.x='!sh -c …' x` and `git -c core.pager='…' log` run shell strings.
    const configs = new Map<string, Word>();
    let i = 0;
    for (; i < rest.length; i++) {
      const v = rest[i]!.value;
      if ((v === '-c' && rest[i + 1]) || (v.startsWith('-c') && v.length > 2)) {
        // `-c key=value` or the attached `-ckey=value`
        const kv = v === '-c' ? rest[++i]! : { ...rest[i]!, value: v.slice(2) };
        const eq = kv.value.indexOf('=');
        if (eq > 0) configs.set(kv.value.slice(0, eq).toLowerCase(), { ...kv, value: kv.value.slice(eq + 1) });
        continue;
      }
      if (v === '-C' || v === '--git-dir' || v === '--work-tree' || v === '--namespace' || v === '--exec-path') { i++; continue; }
      if (v.startsWith('-')) continue;
      break;
    }
    const sub = rest[i]?.value.toLowerCase();
    if (sub !== undefined) {
      const alias = configs.get(`alias.${sub}`);
      if (alias && alias.value.startsWith('!')) {
        this.unwrapString(cmd, [{ ...alias, value: alias.value.slice(1) }], 'git alias');
      }
    }
    for (const key of ['core.pager', 'core.editor', 'core.sshcommand', 'sequence.editor', 'core.fsmonitor', 'diff.external']) {
      const w = configs.get(key);
      if (w) this.unwrapString(cmd, [w], `git -c ${key}`);
    }
    if (sub !== undefined) this.unwrapGitSubcommand(cmd, sub, rest.slice(i + 1));
  }

  /**
   * Subcommands that run a command they are given: `rebase --exec CMD` and `submodule foreach CMD` (shell
   * strings), `bisect run CMD ARGS…` (a command), and the transport programs `--upload-pack`, `--receive-pack`
   * and `--exec` of clone, fetch, pull, ls-remote, push and archive, which git runs through a shell.
   */
  private unwrapGitSubcommand(cmd: SimpleCommand, sub: string, args: Word[]): void {
    if (sub === 'bisect') {
      const run = args.findIndex((w) => w.value === 'run');
      if (run >= 0 && run + 1 < args.length) this.addInner(cmd, args.slice(run + 1), 'git bisect run', []);
      return;
    }
    if (sub === 'submodule') {
      const each = args.findIndex((w) => w.value === 'foreach');
      if (each >= 0) {
        const words = args.slice(each + 1).filter((w) => w.value !== '--recursive' && w.value !== '-q' && w.value !== '--quiet');
        if (words.length > 0) this.unwrapString(cmd, words, 'git submodule foreach');
      }
      return;
    }
    const options = GIT_RUN_OPTIONS.get(sub);
    if (!options) return;
    for (let j = 0; j < args.length; j++) {
      const w = args[j]!;
      const v = w.value;
      if (v === '--') break;
      for (const o of options) {
        let value: Word | undefined;
        if (v === o) value = args[++j];
        else if (o.startsWith('--') && v.startsWith(`${o}=`)) value = { ...w, value: v.slice(o.length + 1) };
        else if (!o.startsWith('--') && v.startsWith(o) && v.length > o.length) value = { ...w, value: v.slice(o.length) };
        if (value) {
          this.unwrapString(cmd, [value], `git ${sub} ${o}`);
          break;
        }
      }
    }
  }

  private unwrapTmux(cmd: SimpleCommand, rest: Word[]): void {
    const sub = rest.findIndex((w) => !w.value.startsWith('-'));
    const name = rest[sub]?.value;
    if (!name || !['new-session', 'new', 'new-window', 'neww', 'split-window', 'splitw', 'respawn-pane', 'respawnp', 'run-shell', 'run'].includes(name)) return;
    const skipped = skipOptions(rest.slice(sub + 1), TMUX_OPTIONS);
    if (skipped.words.length > 0) this.unwrapString(cmd, skipped.words, `tmux ${name}`);
  }

  private unwrapParallel(cmd: SimpleCommand, rest: Word[]): void {
    const sep = rest.findIndex((w) => w.value === ':::' || w.value === '::::' || w.value === ':::+');
    const words = skipOptions(sep >= 0 ? rest.slice(0, sep) : rest, PARALLEL_OPTIONS).words;
    if (words.length === 0) return;
    // parallel runs its words, joined by spaces, through a shell, with each input where a replacement
    // string ({}, {.}, {1}…) stands, or appended when there is none. The input is only known at run time.
    const parts: string[] = [];
    let replaced = false;
    for (const w of words) {
      const v = staticValue(w);
      if (v === null) {
        this.problems.push(`parallel: the command is only known at run time (${w.raw})`);
        return;
      }
      const r = v.replace(/\{[^{}\s]*\}/g, '${parallel_input}');
      if (r !== v) replaced = true;
      parts.push(r);
    }
    if (!replaced) parts.push('${parallel_input}');
    this.reparse(cmd, parts.join(' '), 'parallel');
  }

  /**
   * Words joined by spaces, run as a shell string (`eval`, `bash -c`, `ssh host …`, `watch …`). A word that is
   * a `$(…)` of known output or a variable set earlier in the line (static-output.ts) counts as known.
   */
  private unwrapString(cmd: SimpleCommand, words: Word[], label: string, remote = false, stdinConsumed = false): void {
    if (words.length === 0) return;
    const parts: string[] = [];
    const steps: string[] = [];
    for (const w of words) {
      let v = staticValue(w);
      if (v === null && (w.substitutions.length > 0 || w.vars.length > 0)) {
        const k = staticText(this.out, cmd, w);
        const text = k === null ? null : asScript(k);
        // Unquoted, the output is split into words (and joined again by spaces here).
        if (k !== null && text !== null && (w.raw.startsWith('"') || (!/[*?[]/.test(text) && !ifsChanged(this.out)))) {
          v = text;
          if (!w.raw.startsWith('"')) v = v.split(/[ \t\n]+/).filter((x) => x !== '').join(' ');
          steps.push(...k.decoded);
        }
      }
      if (v === null) {
        // Not known until run time: the obfuscation rules see the wrapper with its dynamic string.
        this.problems.push(`${label}: the command string is only known at run time (${w.raw})`);
        return;
      }
      parts.push(v);
    }
    this.reparse(cmd, parts.join(' '), steps.length > 0 ? `${steps.join(' | ')} | ${label}` : label, remote, joinSteps(steps), stdinConsumed);
  }

  /** A payload found by payload-sinks.ts: shell text parsed again, or words run as one command. */
  private addPayload(p: Payload): void {
    if (p.text !== undefined) this.reparse(p.owner, p.text, p.label, false, p.decoded, true);
    else if (p.argv !== undefined) {
      const before = this.out.length;
      this.addInner(p.owner, p.argv, p.label, []);
      const added = this.out[before];
      if (added && p.decoded !== undefined) added.decoded = p.decoded;
    }
  }

  /**
   * Parse `text` and append its commands `via` the wrapper. `decoded` marks them as computed from hidden data
   * (SimpleCommand.decoded); `stdinConsumed`: the text was the wrapper's standard input or a payload, so its
   * commands do not read the wrapper's input again (a shell among them would parse it forever).
   */
  private reparse(cmd: SimpleCommand, text: string, label: string, remote = false, decoded?: string, stdinConsumed = false): void {
    const depth = cmd.depth + 1;
    // A decoded payload we cannot follow (too deep, or not shell syntax) is left out: the rules then see its
    // sink as running unknown decoded data (hard). Failing the whole line would make it merely unknown.
    if (decoded !== undefined && depth > MAX_REPARSE_DEPTH) {
      this.problems.push(`${label}: decoded payloads nested too deep to follow`);
      return;
    }
    if (depth > MAX_REPARSE_DEPTH) {
      this.fail('too_deep', `more than ${MAX_REPARSE_DEPTH} levels of nested shell strings (${label})`);
      return;
    }
    const inner = parseShell(text, { depth });
    if (inner.status !== 'ok' && decoded !== undefined) {
      this.problems.push(`${label}: the decoded payload is not shell syntax the analysis can read (${inner.message ?? inner.status})`);
      return;
    }
    if (inner.status !== 'ok') {
      this.fail(inner.status, `${label}: ${inner.message ?? inner.status}`);
      return;
    }
    const offset = this.out.length;
    const shift = (id: number): number => id + offset;
    // The string runs in a shell of its own: its scopes sit under the wrapper's, renumbered apart from every other's.
    const scopeBase = this.nextScope;
    this.nextScope += 1 << 20;
    const outer = [...(cmd.scope ?? []), scopeBase];
    for (const c of inner.commands) {
      const moved: SimpleCommand = withSlots({
        ...c,
        id: shift(c.id),
        argv: c.argv.map((w) => shiftWord(w, shift)),
        assignments: c.assignments.map((a) => ({ ...a, value: shiftWord(a.value, shift) })),
        redirects: c.redirects.map((r) => ({ ...r, target: shiftWord(r.target, shift) })),
        stdin: stdinConsumed && c.stdin.kind === 'tty' ? CONSUMED : shiftStdin(c.stdin, shift, cmd),
        pipeTo: c.pipeTo.map(shift),
        inSubstitution: c.inSubstitution || cmd.inSubstitution,
        inFunction: c.inFunction || cmd.inFunction,
        via: [...cmd.via, label, ...c.via],
        wrappedBy: c.wrappedBy === undefined ? cmd.id : shift(c.wrappedBy),
        remote: remote || cmd.remote === true || c.remote === true,
        scope: c.scope ? [...outer, ...c.scope.map((x) => x + scopeBase)] : outer,
      });
      if (decoded !== undefined || cmd.decoded !== undefined) moved.decoded = decoded ?? cmd.decoded;
      this.out.push(moved);
    }
    this.functions.push(...inner.functions);
    this.aliases.push(...inner.aliases);
    this.problems.push(...inner.problems);
    if (inner.arithmetic) this.arithmetic = true;
    if (inner.loops) (this.loops ??= []).push(...inner.loops.map((l) => ({ name: l.name, words: l.words.map((w) => shiftWord(w, shift)) })));
  }

  private addInner(cmd: SimpleCommand, words: Word[], label: string, assignments: Assignment[], remote = false): void {
    if (words.length === 0) return;
    this.out.push(withSlots({
      id: this.out.length,
      argv: words,
      assignments,
      redirects: [],
      stdin: cmd.stdin,
      pipeTo: cmd.pipeTo,
      inSubstitution: cmd.inSubstitution,
      inFunction: cmd.inFunction,
      depth: cmd.depth,
      via: [...cmd.via, label],
      wrappedBy: cmd.id,
      remote: remote || cmd.remote === true,
      text: rawText(words),
      // Another process, except under `builtin`/`command`, which run a builtin such as cd in this shell.
      ...(label === 'builtin' || label === 'command' ? (cmd.scope ? { scope: cmd.scope } : {}) : { scope: [...(cmd.scope ?? []), this.nextScope++] }),
    }));
  }

  private fail(status: Analysis['status'], message: string): void {
    this.status = status;
    this.message = message;
  }
}

function shiftWord(w: Word, shift: (id: number) => number): Word {
  return w.substitutions.length === 0 ? w : { ...w, substitutions: w.substitutions.map(shift) };
}

function shiftStdin(s: SimpleCommand['stdin'], shift: (id: number) => number, outer: SimpleCommand): SimpleCommand['stdin'] {
  if (s.kind === 'pipe') return { kind: 'pipe', from: s.from.map(shift) };
  if (s.kind === 'herestring') return { kind: 'herestring', word: shiftWord(s.word, shift) };
  if (s.kind === 'file') return { kind: 'file', path: shiftWord(s.path, shift) };
  // A command string's own commands read the wrapper's standard input unless redirected.
  return s.kind === 'tty' ? outer.stdin : s;
}

/** The words as written, joined by spaces. */
function rawText(words: readonly Word[]): string {
  let out = words[0]!.raw;
  for (let i = 1; i < words.length; i++) out += ' ' + words[i]!.raw;
  return out;
}

function literalWord(v: string): Word {
  return { raw: v, value: v, literal: true, glob: false, vars: [], substitutions: [], substitutionKinds: [] };
}

function isShellWord(w: Word | undefined): boolean {
  const v = staticValue(w);
  return v !== null && SHELLS.has(basename(v));
}

/** The standard input of commands read from a wrapper's input: already read, known to be nothing more. */
const CONSUMED: SimpleCommand['stdin'] = { kind: 'pipe', from: [] };

function joinSteps(steps: readonly string[]): string | undefined {
  return steps.length === 0 ? undefined : steps.join(' | ');
}

const NONE: readonly string[] = [];

interface Skipped {
  words: Word[];
  noExec: boolean;
  splitString?: Word;
}

/** Skip a wrapper's options and its own operands; what is left is the inner command. */
function skipOptions(rest: Word[], spec: WrapperSpec): Skipped {
  const shortWithValue = spec.shortWithValue ?? '';
  // The lists are short: a linear search costs less than building a Set on every call.
  const longWithValue = spec.longWithValue ?? NONE;
  const noExec = spec.noExec ?? NONE;
  let operandsLeft = spec.operands ?? 0;
  let splitString: Word | undefined;
  let i = 0;
  for (; i < rest.length; i++) {
    const w = rest[i]!;
    const v = w.value;
    if (v === '--') { i++; break; }
    if (v.startsWith('--') && v.length > 2) {
      const body = v.slice(2);
      const eq = body.indexOf('=');
      const key = eq >= 0 ? body.slice(0, eq) : body;
      if (noExec.includes(key)) return { words: [], noExec: true };
      if (key === 'split-string') {
        splitString = eq >= 0 ? { ...w, value: body.slice(eq + 1) } : rest[i + 1];
        if (eq < 0) i++;
        continue;
      }
      if (eq < 0 && longWithValue.includes(key)) i++;
      continue;
    }
    if (v.startsWith('-') && v.length > 1 && !(spec.numericOption && /^-\d+$/.test(v))) {
      for (let j = 1; j < v.length; j++) {
        const ch = v[j]!;
        if (noExec.includes(ch)) return { words: [], noExec: true };
        if (shortWithValue.includes(ch)) {
          const attached = v.slice(j + 1);
          const value = attached.length > 0 ? { ...w, value: attached } : rest[++i];
          if (ch === 'S' && spec.assignments) splitString = value;
          break;
        }
      }
      continue;
    }
    if (spec.numericOption && /^-\d+$/.test(v)) continue; // `nice -10 cmd`
    if (operandsLeft > 0) { operandsLeft--; continue; }
    break;
  }
  const out: Skipped = { words: rest.slice(i), noExec: false };
  if (splitString !== undefined) out.splitString = splitString;
  return out;
}
