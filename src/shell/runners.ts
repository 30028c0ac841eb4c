// Tool runners: `npx cdk destroy --all`, `pnpm dlx prisma migrate reset`, `bunx …`, `yarn dlx|exec …`,
// `npm exec -- …`, `uvx --from aws-cdk cdk …`, `pipx run …`. The runner fetches (or finds) a package and runs one
// of its programs with the remaining words; the inner command is what acts, so it is handed to the rules as if
// typed directly (program = the package's bin name). The runner command itself stays, for the supply rules.
// (`uv run`, `poetry run`, `bundle exec`, `pdm run`, `hatch run` run a command by its own name: unwrap.ts's
// RUNNER_SUBCOMMANDS handle them.)

import { staticValue } from './program.ts';
import type { Word } from './types.ts';

/** Labels the unwrapper gives the inner command of a tool runner (SimpleCommand.via's last entry). */
export const TOOL_RUNNER_LABELS: ReadonlySet<string> = new Set([
  'npx', 'pnpx', 'bunx', 'bun x', 'pnpm dlx', 'pnpm exec', 'yarn dlx', 'yarn exec', 'npm exec', 'uvx', 'uv tool run', 'pipx run',
]);

/** Packages whose program has another name; any other package runs the program named like it (scope dropped). */
const BIN_OF: ReadonlyMap<string, string> = new Map([
  ['aws-cdk', 'cdk'], ['typescript', 'tsc'], ['sequelize-cli', 'sequelize'], ['firebase-tools', 'firebase'],
  ['netlify-cli', 'netlify'], ['@railway/cli', 'railway'], ['@prisma/cli', 'prisma'], ['@angular/cli', 'ng'],
  ['@nestjs/cli', 'nest'], ['@aws-amplify/cli', 'amplify'], ['@vue/cli', 'vue'], ['serverless', 'serverless'],
  ['@sst/cli', 'sst'], ['aws-sam-cli', 'sam'], ['awscli', 'aws'], ['azure-cli', 'az'], ['pscale', 'pscale'],
]);

export interface RunnerInner {
  /** The inner command's words, program first; or a shell string (`npx -c '…'`, `pnpm dlx -c`). */
  words: Word[];
  shell?: Word;
  label: string;
}

/** Options of the runners that take a value (`-p pkg`, `--from pkg`…); everything else is a flag. */
const NPX_VALUE = new Set(['-p', '--package', '-c', '--call', '--registry', '--cache', '--userconfig', '-w', '--workspace', '--prefix', '--shell', '--node-options']);
const PM_GLOBAL_VALUE = new Set(['-C', '--dir', '--filter', '-F', '--cwd', '--workspace-root', '--reporter', '--loglevel', '--prefix', '-w', '--workspace']);
const UV_VALUE = new Set(['--from', '--with', '--with-requirements', '--python', '-p', '--index', '--index-url', '--extra-index-url', '--spec', '--pip-args', '--with-editable', '--constraints', '--overrides', '--directory', '--project']);

/** The bin a package spec runs: `aws-cdk@2` -> `cdk`, `@scope/tool@1.2` -> `tool`. */
export function binOfPackage(spec: string): string {
  let name = spec;
  const at = name.indexOf('@', name.startsWith('@') ? 1 : 0);
  if (at > 0) name = name.slice(0, at);
  // Python specs: `black==24.1`, `ruff[extra]>=0.1`.
  name = name.replace(/[[=<>!~;].*$/, '');
  const mapped = BIN_OF.get(name.toLowerCase());
  if (mapped) return mapped;
  const slash = name.lastIndexOf('/');
  return slash >= 0 ? name.slice(slash + 1) : name;
}

/** Skip options; returns the index of the first operand and the values of the options named in `values`. */
function skip(words: readonly Word[], from: number, values: ReadonlySet<string>): { i: number; opts: Map<string, Word[]>; dashes: boolean } {
  const opts = new Map<string, Word[]>();
  let i = from;
  let dashes = false;
  for (; i < words.length; i++) {
    const v = words[i]!.value;
    if (v === '--') {
      i++;
      dashes = true;
      break;
    }
    if (!v.startsWith('-') || v === '-') break;
    const eq = v.indexOf('=');
    let key = v.startsWith('--') && eq > 0 ? v.slice(0, eq) : v;
    let value: Word | undefined;
    if (key !== v) value = { ...words[i]!, value: v.slice(eq + 1) };
    else if (values.has(key)) value = words[++i];
    else if (!v.startsWith('--') && v.length > 2) {
      // A short cluster: `-yp pkg` is `-y -p pkg`, `-ppkg` is `-p pkg` (the runners read options as nopt/clap do).
      for (let k = 1; k < v.length; k++) {
        if (!values.has(`-${v[k]}`)) continue;
        key = `-${v[k]}`;
        const attached = v.slice(k + 1).replace(/^=/, '');
        value = attached !== '' ? { ...words[i]!, value: attached } : words[++i];
        break;
      }
    }
    if (value) {
      const list = opts.get(key) ?? [];
      list.push(value);
      opts.set(key, list);
    }
  }
  return { i, opts, dashes };
}

function first(opts: Map<string, Word[]>, ...keys: string[]): Word | undefined {
  for (const k of keys) {
    const l = opts.get(k);
    if (l && l.length > 0) return l[0];
  }
  return undefined;
}

/** npx-style: `[opts] pkg args…`, or with `-p pkg`: `[opts] cmd args…`; `-c 'string'` runs a shell string. */
function npxStyle(words: readonly Word[], from: number, label: string, values = NPX_VALUE): RunnerInner | null {
  const s = skip(words, from, values);
  const call = first(s.opts, '-c', '--call', '--shell-mode');
  if (call) return { words: [], shell: call, label };
  const rest = words.slice(s.i);
  if (rest.length === 0) return null;
  const explicit = first(s.opts, '-p', '--package', '--from', '--spec');
  const head = rest[0]!;
  const v = staticValue(head);
  // With -p/--from the first word is already the command; without, it is a package spec naming its bin.
  const program = explicit || v === null ? head : { ...head, value: binOfPackage(v), raw: head.raw };
  return { words: [program, ...rest.slice(1)], label };
}

/** The inner command of a tool runner invocation, or null when `name rest…` runs no other program. */
export function toolRunnerInner(name: string, rest: readonly Word[]): RunnerInner | null {
  switch (name) {
    case 'npx':
    case 'pnpx':
    case 'bunx':
      return npxStyle(rest, 0, name);
    case 'npm': {
      const s = skip(rest, 0, PM_GLOBAL_VALUE);
      const sub = rest[s.i]?.value;
      if (sub !== 'exec' && sub !== 'x') return null;
      return npxStyle(rest, s.i + 1, 'npm exec');
    }
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      const s = skip(rest, 0, PM_GLOBAL_VALUE);
      const sub = rest[s.i]?.value;
      if (sub === 'dlx' || (name === 'bun' && sub === 'x')) return npxStyle(rest, s.i + 1, `${name} ${sub}`, new Set([...NPX_VALUE, '--shell-mode']));
      if (sub === 'exec' && name !== 'bun') {
        // `pnpm exec CMD` / `yarn exec CMD` run an installed program by its own name.
        const e = skip(rest, s.i + 1, new Set(['--filter', '-F', '-C', '--dir', '--workspace-concurrency', '--reporter']));
        const call = first(e.opts, '-c', '--shell-mode');
        if (call) return { words: [], shell: call, label: `${name} exec` };
        const words = rest.slice(e.i);
        return words.length > 0 ? { words, label: `${name} exec` } : null;
      }
      return null;
    }
    case 'uvx':
      return npxStyle(rest, 0, 'uvx', UV_VALUE);
    case 'uv': {
      if (staticValue(rest[0]) !== 'tool' || staticValue(rest[1]) !== 'run') return null;
      return npxStyle(rest, 2, 'uv tool run', UV_VALUE);
    }
    case 'pipx': {
      const s = skip(rest, 0, new Set());
      if (rest[s.i]?.value !== 'run') return null;
      return npxStyle(rest, s.i + 1, 'pipx run', UV_VALUE);
    }
    default:
      return null;
  }
}
