// Which files run code later, and what they will run: the dispatcher over the per-kind extractors.
// Every extractor works on a whole file AND on a fragment (agents append: `printf '  - run: …' >> ci.yml`),
// never throws, and reads towards looking: what cannot be parsed is read as lines and reported partial.

import { ciDialectOf, hookManagerFlavorOf, type CiDialect } from './kind.ts';
import { replaceExpressions } from './ci-expr.ts';
import { DEVCONTAINER_WHEN, extractDevcontainer, extractVscodeTasks } from './editor.ts';
import { checkoutSignals, launderedSecrets, siteSignals } from './github-signals.ts';
import { extractJenkins } from './jenkins.ts';
import { extractMakefile } from './makefile.ts';
import { extractHookJson, extractPackageJson } from './package-json.ts';
import { extractScript } from './script.ts';
import { extractSetupPy } from './setup-py.ts';
import { extractCrontab, extractDesktop, extractLaunchd, extractSystemd } from './system.ts';
import type { DeferredContent, DeferredKind } from './types.ts';
import { Collector } from './util.ts';
import { yamlCommands, type YamlOptions } from './yaml-commands.ts';

export type { DeferredCommand, DeferredContent, DeferredKind, DeferredSignal } from './types.ts';
export { deferredKindOf, type DeferredPlace } from './kind.ts';

/** Content past this size is not read: the first 1 MiB is, and the result is partial. */
export const MAX_CONTENT = 1024 * 1024;

// Command-bearing keys per CI system; an unknown system (a pseudo path) gets all of them.
const CI_KEYS: Record<Exclude<CiDialect, 'jenkins' | null>, string[]> = {
  github: ['run'],
  circleci: ['run'],
  gitlab: ['script', 'before_script', 'after_script'],
  azure: ['script', 'bash', 'pwsh', 'powershell'],
  bitbucket: ['script', 'after-script'],
  buildkite: ['command', 'commands'],
  travis: ['before_install', 'install', 'before_script', 'script', 'after_success', 'after_failure', 'after_script', 'before_deploy', 'after_deploy', 'before_cache'],
  drone: ['commands'],
};
const ALL_CI_KEYS = [...new Set(Object.values(CI_KEYS).flat())];

const CI_LABEL: Record<string, string> = {
  github: 'GitHub Actions workflow',
  gitlab: 'GitLab CI pipeline',
  circleci: 'CircleCI config',
  azure: 'Azure Pipelines pipeline',
  bitbucket: 'Bitbucket Pipelines pipeline',
  buildkite: 'Buildkite pipeline',
  jenkins: 'Jenkinsfile',
  travis: 'Travis CI config',
  drone: 'Drone/Woodpecker pipeline',
};

/** Shells of a step that are not POSIX: the language the line is in. */
function langOf(shell: string | undefined, key: string): string | undefined {
  if (key === 'pwsh' || key === 'powershell') return 'powershell';
  if (!shell) return undefined;
  if (shell === 'pwsh' || shell === 'powershell') return 'powershell';
  if (/^python/.test(shell)) return 'python';
  if (shell === 'cmd') return 'cmd';
  if (/^(?:sh|bash|dash|zsh|ksh)$/.test(shell)) return undefined;
  return shell;
}

function yamlInto(text: string, o: YamlOptions, out: Collector, withSignals: boolean): void {
  const r = yamlCommands(text, o);
  if (r.partial) out.partial = true;
  const laundered = withSignals ? launderedSecrets(r.sites) : undefined;
  for (const s of r.sites) {
    if (withSignals) siteSignals(s, out, laundered);
    if (s.js) continue;
    const key = s.where.replace(/\[\d+\]$/, '').replace(/^.*[.: ]/, '');
    const lang = langOf(s.shell, key);
    out.command(replaceExpressions(s.text), lang ? `${s.where} (${lang})` : s.where, lang);
  }
  if (withSignals) for (const steps of r.stepLists) checkoutSignals(steps, r.trigger, out);
}

function base(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

function ci(text: string, path: string, out: Collector): string {
  const dialect = ciDialectOf(path);
  if (dialect === 'jenkins') {
    extractJenkins(text, out);
    return CI_LABEL.jenkins!;
  }
  if (path.includes('/.buildkite/') && !/\.ya?ml$/i.test(path) && !/\.json$/i.test(path)) {
    extractScript(text, out); // an agent hook (.buildkite/hooks/pre-command) is a script
    return 'Buildkite agent hook';
  }
  const keys = dialect ? CI_KEYS[dialect] : ALL_CI_KEYS;
  // GitHub's expressions and signals are read for an unknown system too: `${{ }}` is GitHub's (or Gitea's).
  const github = dialect === 'github' || dialect === null;
  yamlInto(text, { keys: new Set(keys), github, azure: dialect === 'azure' || dialect === null }, out, github);
  if (dialect === 'github' && /^action\.ya?ml$/.test(base(path))) return 'GitHub composite action';
  return dialect ? CI_LABEL[dialect]! : 'CI pipeline';
}

function hookManager(text: string, path: string, out: Collector): string {
  const flavor = hookManagerFlavorOf(path);
  switch (flavor) {
    case 'husky':
      extractScript(text, out, false, true); // husky v9 runs hooks as `sh -e <hook>`
      return `husky ${base(path)} hook`;
    case 'lefthook-script':
      extractScript(text, out);
      return `lefthook script ${path.slice(path.lastIndexOf('/.lefthook/') + 1)}`;
    case 'lefthook':
      yamlInto(text, { keys: new Set(['run']) }, out, false);
      return 'lefthook git hooks config';
    case 'pre-commit':
      yamlInto(text, { keys: new Set(['entry']), preCommit: true }, out, false);
      return 'pre-commit hooks config';
    case 'json':
      extractHookJson(text, out);
      return base(path).includes('husky') ? 'husky git hooks config' : 'simple-git-hooks config';
    default:
      // A pseudo path: JSON if it looks like it, else YAML keys of both managers, else a script.
      if (/^\s*\{/.test(text)) {
        extractHookJson(text, out);
        return 'git hooks config';
      }
      yamlInto(text, { keys: new Set(['run', 'entry']), preCommit: true }, out, false);
      if (out.commands.length === 0) extractScript(text, out);
      return 'git hook';
  }
}

function shellInitLabel(path: string): string {
  const b = base(path);
  if (path.startsWith('/etc/')) return `system shell startup file ${path} (runs in every login shell)`;
  if (/logout/.test(b)) return `shell logout file ~/${b} (runs when a login shell exits)`;
  if (/^\.x/.test(b)) return `X session file ~/${b} (runs at graphical login)`;
  return `shell startup file ${b.endsWith('.fish') ? path.slice(path.indexOf('.config/')) : '~/' + b} (runs in every new shell)`;
}

function systemdLabel(path: string, timerUnit: string | null): string {
  const scope = /\/\.config\/systemd\/|\/\.local\/share\/systemd\/user\/|\/systemd\/user\//.test(path) ? 'user' : 'system';
  const b = base(path);
  if (/\.timer$/.test(b)) return `systemd ${scope} timer (starts ${timerUnit ?? b.replace(/\.timer$/, '.service')} on a schedule; the command is in that unit)`;
  if (/\.path$/.test(b)) return `systemd ${scope} path unit (starts ${timerUnit ?? b.replace(/\.path$/, '.service')} when a file changes)`;
  return `systemd ${scope} unit`;
}

function run(kind: DeferredKind, text: string, path: string, out: Collector): string {
  switch (kind) {
    case 'ci':
      return ci(text, path, out);
    case 'git-hook':
      extractScript(text, out);
      return `git ${base(path)} hook`;
    case 'hook-manager':
      return hookManager(text, path, out);
    case 'editor-task':
      extractVscodeTasks(text, out);
      return 'VS Code task run on folder open';
    case 'devcontainer': {
      const keys = extractDevcontainer(text, out);
      if (keys.length === 1 && keys[0] === 'initializeCommand') return 'devcontainer initializeCommand (runs on the host before the container is created)';
      if (keys.length === 1) return `devcontainer ${keys[0]} (${DEVCONTAINER_WHEN[keys[0]!]})`;
      return 'devcontainer lifecycle commands (run when the container is created or started; initializeCommand on the host)';
    }
    case 'envrc':
      extractScript(text, out, false, true); // direnv sources it with bash
      return 'direnv .envrc (runs on cd)';
    case 'package-scripts': {
      const names = extractPackageJson(text, out);
      return names.length === 1 ? `package.json ${names[0]} script` : 'package.json lifecycle scripts (run by npm install/publish)';
    }
    case 'setup-py':
      extractSetupPy(text, out);
      return 'setup.py (runs on pip install)';
    case 'makefile':
      extractMakefile(text, out);
      return 'Makefile recipe';
    case 'shell-init':
      extractScript(text, out, path.endsWith('.fish'), true); // sourced by the shell that starts
      return shellInitLabel(path);
    case 'crontab': {
      if (/^\/etc\/cron\.(?:hourly|daily|weekly|monthly)\//.test(path)) {
        extractScript(text, out); // run-parts runs each file there as a program
        return `${path.split('/')[2]} script (runs ${path.split('/')[2]!.slice(5)})`;
      }
      extractCrontab(text, path === '/etc/crontab' || path.startsWith('/etc/cron.d/'), out);
      return path === '/etc/crontab' || path.startsWith('/etc/cron.d/') ? 'system crontab entry' : 'crontab entry';
    }
    case 'systemd-unit': {
      if (/-generators\/[^/]+$/.test(path)) {
        extractScript(text, out);
        return 'systemd generator (runs at boot and on every reload)';
      }
      const { timerUnit } = extractSystemd(text, out);
      return systemdLabel(path, timerUnit);
    }
    case 'autostart':
      extractDesktop(text, out);
      return 'desktop autostart entry (runs at login)';
    case 'launchd':
      extractLaunchd(text, out);
      return path.includes('/launchdaemons/') ? 'launchd daemon (runs at boot, as root)' : 'launchd agent (runs at login)';
    case 'path-program':
      extractScript(text, out);
      return `program on the PATH (${base(path)}: runs whenever that name is typed)`;
    default:
      extractScript(text, out);
      return String(kind);
  }
}

/** What a file of `kind` with this content will run. Never throws: unreadable structure falls back to lines. */
export function extractDeferred(kind: DeferredKind, content: string, absPath: string): DeferredContent {
  const out = new Collector();
  let text = content;
  if (text.length > MAX_CONTENT) {
    text = text.slice(0, MAX_CONTENT);
    out.partial = true;
  }
  // A BOM and CRLF/CR line ends are read as plain lines (a stray \r would hide a key or end a word).
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  let label: string;
  try {
    // Decisions by path are made in lower case, as kind detection does (case-insensitive file systems).
    label = run(kind, text, absPath.toLowerCase(), out);
  } catch {
    // A bug or an input no extractor foresaw: read the whole text as one script, partial (fail towards looking).
    out.partial = true;
    if (out.commands.length === 0) out.command(text, 'the whole file (could not be read as its kind)');
    label = String(kind);
  }
  const result: DeferredContent = { kind, label, commands: out.commands, signals: out.signals, partial: out.partial };
  if (out.interpreter !== undefined) result.interpreter = out.interpreter;
  return result;
}
