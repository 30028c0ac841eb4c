// Editor and container configuration that runs commands by itself (JSONC files):
// - devcontainer.json lifecycle commands. initializeCommand runs on the HOST before the container exists; the
//   others run inside it on create/start/attach. Each is a string (run by a shell), an array (an argv, no
//   shell) or an object of name -> string|array (run in parallel).
// - .vscode/tasks.json tasks with runOptions.runOn "folderOpen" (run when the folder is opened, once the
//   workspace is trusted), with the tasks they depend on. Tasks run on request are not returned.

import { lenientJson, scanJsonStrings } from './package-json.ts';
import { argvLine, shQuote, type Collector } from './util.ts';

export const DEVCONTAINER_KEYS = ['initializeCommand', 'onCreateCommand', 'updateContentCommand', 'postCreateCommand', 'postStartCommand', 'postAttachCommand'];

export const DEVCONTAINER_WHEN: Record<string, string> = {
  initializeCommand: 'runs on the HOST, before the container is created',
  onCreateCommand: 'runs when the container is created',
  updateContentCommand: 'runs when the container is created or its content updated',
  postCreateCommand: 'runs when the container is created',
  postStartCommand: 'runs each time the container starts',
  postAttachCommand: 'runs each time an editor attaches',
};

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function commandOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return argvLine(v as string[]);
  return null;
}

/** Returns the lifecycle keys seen, for the label. */
export function extractDevcontainer(text: string, out: Collector): string[] {
  const { value, clean } = lenientJson(text);
  const root = obj(value);
  const seen: string[] = [];
  if (root) {
    for (const key of DEVCONTAINER_KEYS) {
      const v = root[key];
      if (v === undefined) continue;
      seen.push(key);
      const direct = commandOf(v);
      if (direct !== null) out.command(direct, `${key} (${DEVCONTAINER_WHEN[key]})`);
      else for (const [name, sub] of Object.entries(obj(v) ?? {})) {
        const c = commandOf(sub);
        if (c !== null) out.command(c, `${key}.${name} (${DEVCONTAINER_WHEN[key]})`);
      }
    }
  }
  if (!clean) {
    out.partial = true;
    const have = new Set(out.commands.map((c) => c.line));
    for (const [key, cmd] of scanJsonStrings(text, new Set(DEVCONTAINER_KEYS))) {
      if (!have.has(cmd)) out.command(cmd, `${key} (${DEVCONTAINER_WHEN[key]}; read from text that is not valid JSON)`);
      if (!seen.includes(key)) seen.push(key);
    }
  }
  return seen;
}

interface Task {
  label?: unknown;
  type?: unknown;
  command?: unknown;
  args?: unknown;
  runOptions?: unknown;
  dependsOn?: unknown;
  linux?: unknown;
  osx?: unknown;
}

/** One argument of a VS Code task: a string, or {value, quoting: escape|strong|weak}. */
function taskArg(a: unknown, shell: boolean): string | null {
  if (typeof a === 'string') return shell ? (/\s/.test(a) ? shQuote(a) : a) : shQuote(a);
  const o = obj(a);
  if (o && typeof o['value'] === 'string') return shQuote(o['value']);
  return null;
}

function taskLine(t: Record<string, unknown>, inherit: Record<string, unknown>): string | null {
  // An npm task names a package.json script: it runs `npm run <script>` (the script itself is in package.json).
  if ((t['type'] ?? inherit['type']) === 'npm' && typeof (t['script'] ?? inherit['script']) === 'string') {
    return `npm run ${shQuote((t['script'] ?? inherit['script']) as string)}`;
  }
  const command = t['command'] ?? inherit['command'];
  const cmd = typeof command === 'string' ? command : obj(command) && typeof obj(command)!['value'] === 'string' ? (obj(command)!['value'] as string) : null;
  if (cmd === null) return null;
  const type = (t['type'] ?? inherit['type'] ?? 'process') as string;
  const shell = type === 'shell' || type === 'npm' || type === 'typescript' ? true : false;
  const args = (Array.isArray(t['args']) ? t['args'] : Array.isArray(inherit['args']) ? inherit['args'] : []) as unknown[];
  const words = args.map((a) => taskArg(a, shell)).filter((x): x is string => x !== null);
  // A 'shell' task's command line goes to the shell as written; a 'process' task's command is one program.
  return [shell ? cmd : shQuote(cmd), ...words].join(' ');
}

export function extractVscodeTasks(text: string, out: Collector): void {
  const { value, clean } = lenientJson(text);
  if (!clean) out.partial = true;
  const root = obj(value);
  const tasks = (Array.isArray(root?.['tasks']) ? root!['tasks'] : Array.isArray(value) ? value : []) as unknown[];
  const byLabel = new Map<string, Record<string, unknown>>();
  for (const t of tasks) {
    const o = obj(t);
    if (o && typeof o['label'] === 'string') byLabel.set(o['label'], o);
  }
  const done = new Set<Record<string, unknown>>();
  const run = (t: Record<string, unknown>, why: string, depth: number): void => {
    if (done.has(t) || depth > 20) return;
    done.add(t);
    const name = typeof t['label'] === 'string' ? t['label'] : '(unnamed)';
    // The platform overrides replace the base command on that platform: all are what may run.
    for (const [variant, over] of [['', t], ['linux', obj((t as Task).linux)], ['osx', obj((t as Task).osx)]] as const) {
      if (!over) continue;
      const line = taskLine(over, t);
      if (line !== null && (variant === '' || over['command'] !== undefined || over['args'] !== undefined)) {
        out.command(line, `task "${name}"${variant ? ` (${variant})` : ''} ${why}`);
      }
    }
    const deps = t['dependsOn'];
    for (const d of typeof deps === 'string' ? [deps] : Array.isArray(deps) ? deps : []) {
      const dep = typeof d === 'string' ? byLabel.get(d) : null;
      if (dep) run(dep, `(a dependency of "${name}", run on folder open)`, depth + 1);
    }
  };
  for (const t of tasks) {
    const o = obj(t);
    if (!o) continue;
    if (obj(o['runOptions'])?.['runOn'] === 'folderOpen') run(o, '(runOptions.runOn folderOpen: runs when the folder is opened)', 0);
  }
  if (!clean && out.commands.length === 0 && /folderOpen/.test(text)) {
    // Unreadable and asks to run on open: return the command strings it holds, partial.
    for (const m of text.matchAll(/"command"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) {
      let v = m[1]!;
      try {
        v = JSON.parse(`"${v}"`) as string;
      } catch {
        // keep the raw text
      }
      out.command(v, 'a task "command" (read from text that is not valid JSON; the file asks for folderOpen)');
    }
  }
}
