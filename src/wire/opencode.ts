// OpenCode and asimov's guard plugin, verified with OpenCode 1.18.33 (test/e2e/opencode-hooks.test.ts runs
// the real CLI). OpenCode has no command hooks. It loads every `*.ts`/`*.js` file in `plugin/` and `plugins/`
// of its config directories (both names load; 1.18.33 ran a file from each): user
// `$XDG_CONFIG_HOME/opencode/plugins/` (default ~/.config), project `<project>/.opencode/plugins/`. A plugin's
// `tool.execute.before(input, output)` runs before every tool, MCP tools included; a throw stops the call and
// its message, word for word, is the tool result the model reads. A project plugin of the same id does not
// displace the user's. `opencode --pure` (or OPENCODE_PURE=1) loads no file plugin at all, asimov's included.
//
// So the "config" asimov wires is one whole file, asimov.js, that asimov owns: install writes it, a
// reinstall rewrites it when the command line changed, uninstall deletes it (plan text null). A file of that
// name that is not asimov's is never overwritten or deleted.
//
// The plugin fails closed: a spawn error, a non-zero exit, a timeout or anything thrown on the way blocks the
// call. Export shape: the default export `{id, server}`, which 1.18.33 loads, and nothing else (a named
// export beside it did no harm in 1.18.33; by public notes, older loaders called every export as a plugin).
// The plugin context's `directory` is the directory OpenCode runs in. It imports only node:child_process:
// OpenCode installs @opencode-ai/plugin into each config directory with plugins in the background, from the
// npm registry, and goes on without it when that fails (offline), so the plugin must not need it.

import { join } from 'node:path';
import { AsimovError } from '../core/errors.ts';
import { HOOK_MARKER, isAsimovHookCommand } from './hook-command.ts';
import type { PlanOptions, TargetContext, WireTarget } from './targets.ts';

export const OPENCODE_PLUGIN_FILE = 'asimov.js';

export function opencodePluginPath(scope: string, ctx: TargetContext): string {
  if (scope === 'user') return join(ctx.env.XDG_CONFIG_HOME || join(ctx.home, '.config'), 'opencode', 'plugins', OPENCODE_PLUGIN_FILE);
  if (scope === 'project') return join(ctx.projectRoot, '.opencode', 'plugins', OPENCODE_PLUGIN_FILE);
  throw new RangeError(`unknown OpenCode plugin scope '${scope}'`);
}

/** The plugin's whole text. The command is a JSON string literal, so its marker and paths read as written. */
export function opencodePluginSource(command: string, timeoutSec: number): string {
  const timeoutMs = Math.max(1, Math.ceil(timeoutSec)) * 1000;
  return `// asimov's guard for OpenCode, written by \`asimov wire opencode\` (${HOOK_MARKER}opencode).
// Every tool call goes to \`asimov hook opencode\` first and runs only when it exits 0; anything else
// (a refusal, a failure to start, a timeout) throws, which stops the call. Do not edit: running
// \`asimov wire opencode\` again rewrites this file and \`--uninstall\` deletes it.
import { spawn } from 'node:child_process';

const COMMAND = ${JSON.stringify(command)};
const TIMEOUT_MS = ${timeoutMs};
const MAX_REASON = 65536;

function runHook(payload) {
  return new Promise((resolve) => {
    let settled = false;
    let stderr = '';
    let child;
    let timer;
    const finish = (reason) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reason);
    };
    try {
      child = spawn('/bin/sh', ['-c', COMMAND], { stdio: ['pipe', 'ignore', 'pipe'] });
    } catch (e) {
      finish(\`asimov: could not start its hook (\${e && e.message}), so this call is blocked.\`);
      return;
    }
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(\`asimov: its hook did not answer within \${TIMEOUT_MS / 1000} s, so this call is blocked.\`);
    }, TIMEOUT_MS);
    child.on('error', (e) => finish(\`asimov: could not run its hook (\${e && e.message}), so this call is blocked.\`));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => { if (stderr.length < MAX_REASON) stderr += d; });
    child.on('close', (code, signal) => {
      if (code === 0) finish(null);
      else finish(stderr.trim() || \`asimov: its hook ended with \${code ?? signal}, so this call is blocked.\`);
    });
    // The hook may exit before reading (a broken install); its exit status decides, not the pipe.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

async function server(ctx) {
  const directory = ctx && typeof ctx.directory === 'string' && ctx.directory !== '' ? ctx.directory : process.cwd();
  return {
    'tool.execute.before': async (input, output) => {
      let reason;
      try {
        reason = await runHook({
          tool: input && input.tool, sessionID: input && input.sessionID, callID: input && input.callID,
          args: output && output.args, cwd: directory,
        });
      } catch (e) {
        reason = \`asimov: its hook failed (\${e && e.message}), so this call is blocked.\`;
      }
      if (reason !== null) throw new Error(reason);
    },
  };
}

export default { id: 'asimov', server };
`;
}

/** The command line in an asimov plugin file, or null when the text is not one (someone else's asimov.js). */
export function opencodePluginCommand(text: string): string | null {
  const m = /^const COMMAND = (".*");$/m.exec(text);
  if (!m) return null;
  try {
    const command: unknown = JSON.parse(m[1]!);
    return isAsimovHookCommand(command, 'opencode') ? (command as string) : null;
  } catch {
    return null;
  }
}

/** Writes, rewrites or deletes (text null) asimov's plugin file. */
export function planOpenCodePlugin(text: string | null, o: PlanOptions): { text: string | null; changes: string[] } {
  const ours = text !== null && opencodePluginCommand(text) !== null;
  if (o.uninstall) return ours ? { text: null, changes: ['removed asimov\'s plugin file'] } : { text, changes: [] };
  if (text !== null && !ours) {
    throw new AsimovError('wire_settings_invalid', 'this file is not asimov\'s OpenCode plugin; asimov does not overwrite it (move it away, then run this again)', { file: o.file });
  }
  const want = opencodePluginSource(o.command, o.timeoutSec);
  if (text === want) return { text, changes: [] };
  return { text: want, changes: [text === null ? 'added asimov\'s plugin (tool.execute.before)' : 'updated asimov\'s plugin (tool.execute.before)'] };
}

export const opencodeTarget: WireTarget = {
  client: 'opencode',
  label: 'OpenCode plugin',
  scopes: ['user', 'project'],
  configPath: opencodePluginPath,
  modes: (scope) => (scope === 'project' ? { fileMode: 0o644, dirMode: 0o755 } : { fileMode: 0o600, dirMode: 0o700 }),
  plan: planOpenCodePlugin,
  notes: () => [
    'Verified with OpenCode 1.18.33: the plugin runs before every tool call and a refusal stops the call.',
    'OpenCode sessions already running need a restart to load the plugin; `opencode --pure` (or OPENCODE_PURE=1) loads no plugins, asimov\'s included.',
  ],
};
