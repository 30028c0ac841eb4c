// Dangers of a GitHub Actions workflow that lie in its structure rather than in one command line: secrets
// handed to a network tool, outsider-written text spliced into a script, and a pull_request_target job that
// checks out and runs the pull request's code. The commands themselves (curl | sh …) are judged by the policy
// through the shell engine; nothing here repeats that.

import { dumpsAllSecrets, expressionsOf, onlyGithubToken, readsSecret, untrustedContext } from './ci-expr.ts';
import type { Collector } from './util.ts';

/** A place a workflow runs code: a `run:` line, or a github-script `script:` (JavaScript: signals only). */
export interface RunSite {
  where: string;
  /** The text as written, expressions intact. */
  text: string;
  /** Variables in scope (workflow, job and step `env:`), name -> value as written. */
  env: ReadonlyMap<string, string>;
  /** The step's shell when it is not the default (`pwsh`, `python`, `cmd`, …). */
  shell?: string;
  /** github-script's `script:`: JavaScript, checked for spliced input but not returned as a shell line. */
  js?: boolean;
}

// Programs that send data over the network, as words in a line (a simple scan: the shell engine judges the
// command itself; this only decides whether a secret in the line reaches a network sink).
const NETWORK_TOOL = new RegExp(
  '(?:^|[\\s;&|`(\'"/])(?:' + [
    'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'http', 'https', 'xh', 'httpie', 'aria2c', 'ssh', 'scp', 'sftp',
    'rsync', 'ftp', 'tftp', 'telnet', 'openssl', 'dig', 'nslookup', 'host', 'drill', 'ping',
    'Invoke-WebRequest', 'Invoke-RestMethod', 'iwr', 'irm', 'Net\\.WebClient', 'certutil', 'bitsadmin',
  ].join('|') + ')(?=$|[\\s;&|`)\'"])' +
  // interpreters' network libraries, and bash's own sockets
  '|/dev/(?:tcp|udp)/|\\burllib\\b|\\brequests\\.(?:get|post|put)|\\bhttp\\.client\\b|\\bsocket\\.|\\bfetch\\(|\\bNet::HTTP\\b|\\bLWP::|\\bIO::Socket|\\bfsockopen\\b|\\bhttps?\\.request\\(',
  'i',
);

/** Commands that print the whole environment (a secret mapped into `env:` leaves with it). */
const ENV_DUMP = /(?:^|[\s;&|`($])(?:env|printenv|export\s+-p|declare\s+-[a-z]*[xp]|set)(?=$|[\s;&|`)])|\/proc\/[^/\s]+\/environ|\bos\.environ\b|\bprocess\.env\b(?!\.)|\bENV\.to_h\b|%ENV\b/;

const GITHUB_HOSTS = /^(?:[\w-]+\.)*(?:github\.com|githubusercontent\.com|ghcr\.io)$/i;

/** The hosts of every URL in the line (and of user@host / bare host words next to network tools). */
function urlHosts(text: string): string[] {
  return [...text.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/(?:[^\s/@'"]*@)?([^\s/:'"?#]+)/gi)].map((m) => m[1]!);
}

function mentionsVar(text: string, name: string): boolean {
  return new RegExp(`\\$(?:${name}\\b|\\{${name}\\b)|\\benv\\.${name}\\b|\\$env:${name}\\b|%${name}%|\\benv\\[['"]${name}['"]\\]|ENV\\[['"]${name}['"]\\]`).test(text);
}

/** Signals of one run site. */
export function siteSignals(site: RunSite, out: Collector): void {
  const exprs = expressionsOf(site.text);
  // Outsider text pasted into the script: the expression's value becomes code (an issue title of `"; curl … | sh #`).
  for (const e of exprs) {
    const ctx = untrustedContext(e.body);
    if (ctx) out.signal({ kind: 'untrusted-input', where: site.where, detail: `${e.text} pastes ${ctx} (text anyone who opens an issue or pull request chooses) into the ${site.js ? 'github-script code' : 'script'}; pass it through env: and use "$VAR" instead` });
    const env = /^env\.([A-Za-z_][\w]*)$/.exec(e.body);
    const v = env ? site.env.get(env[1]!) : undefined;
    if (v !== undefined) {
      for (const inner of expressionsOf(v)) {
        const c = untrustedContext(inner.body);
        if (c) out.signal({ kind: 'untrusted-input', where: site.where, detail: `${e.text} pastes env ${env![1]} (= ${c}, outsider-written text) into the script; use "$${env![1]}" instead` });
      }
    }
  }
  if (site.js) return;

  // Every secret, or the whole environment, serialised: a signal wherever it goes.
  let dumped = false;
  for (const e of exprs) {
    const all = dumpsAllSecrets(e.body);
    if (all) dumped = true;
    if (all) out.signal({ kind: 'secrets-to-network', where: site.where, detail: `${e.text} puts ${all === 'toJSON(env)' ? 'the whole environment' : 'every repository secret'} into the script` });
  }

  // env: entries that serialise every secret or the whole environment: a signal once, wherever they are used.
  for (const [name, value] of site.env) {
    for (const inner of expressionsOf(value)) {
      const all = dumpsAllSecrets(inner.body);
      if (all && !out.reported.has(`env:${name}=${value}`)) {
        out.reported.add(`env:${name}=${value}`);
        out.signal({ kind: 'secrets-to-network', where: site.where, detail: `env ${name}: ${inner.text} puts ${all === 'toJSON(env)' ? 'the whole environment' : 'every repository secret'} into a variable this step sees` });
      }
    }
  }

  // A secret reaches the line directly, or through a variable that env: maps a secret into.
  const secretRefs: string[] = [];
  let githubTokenOnly = true;
  for (const e of exprs) {
    if (readsSecret(e.body)) {
      secretRefs.push(e.text);
      if (!onlyGithubToken(e.body)) githubTokenOnly = false;
    }
  }
  const dumpsEnv = ENV_DUMP.test(site.text);
  for (const [name, value] of site.env) {
    const inner = expressionsOf(value).filter((x) => readsSecret(x.body));
    if (inner.length === 0) continue;
    if (mentionsVar(site.text, name) || dumpsEnv) {
      secretRefs.push(`$${name} (= ${inner.map((x) => x.text).join(' ')})`);
      if (!inner.every((x) => onlyGithubToken(x.body))) githubTokenOnly = false;
    }
  }
  if (dumped || secretRefs.length === 0 || !NETWORK_TOOL.test(site.text)) return;
  // Chosen exemption, deliberately narrow: only the runner's own GITHUB_TOKEN sent to GitHub's hosts (the API
  // calls every workflow makes). Any other secret to any host is a signal; the policy side weighs it.
  const hosts = urlHosts(site.text);
  if (githubTokenOnly && hosts.length > 0 && hosts.every((h) => GITHUB_HOSTS.test(h))) return;
  out.signal({ kind: 'secrets-to-network', where: site.where, detail: `${secretRefs.slice(0, 3).join(', ')} reaches a network tool in the same line${hosts.length ? ` (${hosts.slice(0, 3).join(', ')})` : ''}` });
}

// The refs that are the pull request's own code (its head, its merge commit, the fork's repository).
const PR_HEAD_REF = /github\.event\.pull_request\.(?:head\.(?:sha|ref)|merge_commit_sha|number)|github\.event\.number|github\.head_ref|refs\/pull\/|github\.event\.workflow_run\.(?:head_sha|head_branch|head_repository)|head\.repo\.full_name|github\.event\.pull_request\.head\.repo/;
// Refs that exist only under workflow_run: dangerous even in a fragment whose trigger is not visible.
const WORKFLOW_RUN_REF = /github\.event\.workflow_run\./;

export interface Step {
  where: string;
  uses?: string;
  run?: boolean;
  /** checkout's with.ref / with.repository, as written. */
  ref?: string;
}

/**
 * pull_request_target / workflow_run jobs run with the base repository's secrets; checking out the pull
 * request's code and then running anything of it (a run step: npm install runs its scripts; a local action)
 * hands those secrets to the fork's author. `trigger` is the workflow's `on:` (null: not in the text).
 */
export function checkoutSignals(steps: readonly Step[], trigger: string[] | null, out: Collector): void {
  const privileged = trigger?.find((t) => t === 'pull_request_target' || t === 'workflow_run');
  let checkout: Step | null = null;
  for (const s of steps) {
    if (s.uses && /(?:^|\/)checkout@|^actions\/checkout\b/.test(s.uses) && s.ref !== undefined && PR_HEAD_REF.test(s.ref)) {
      if (privileged || WORKFLOW_RUN_REF.test(s.ref)) checkout = s;
      continue;
    }
    if (checkout && (s.run || (s.uses && s.uses.startsWith('./')))) {
      out.signal({
        kind: 'pr-head-checkout',
        where: s.where,
        detail: `${privileged ? `on: ${privileged}` : 'a workflow_run job'} checks out the pull request's code (${checkout.ref!.trim()}) at ${checkout.where} and then runs it here, with the repository's secrets`,
      });
      return;
    }
  }
}

/** The event names of an `on:` value (a string, a list, or a mapping of event -> filters). */
export function triggerNames(on: unknown): string[] {
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.filter((x): x is string => typeof x === 'string');
  if (on && typeof on === 'object') return Object.keys(on);
  return [];
}
