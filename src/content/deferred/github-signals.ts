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

/** Names of the variables a line reads: `$X`, `${X}`, `env.X`, `$env:X`, `%X%`, `env['X']`. */
function variablesRead(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\$\{?([A-Za-z_]\w*)|\benv\.([A-Za-z_]\w*)|\$env:([A-Za-z_]\w*)|%([A-Za-z_]\w*)%|\b(?:env|ENV)\[['"]([A-Za-z_]\w*)['"]\]/g)) {
    out.add(m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5]!);
  }
  return out;
}

/** The env entries that hold a secret, computed once per scope (scopes are shared by the steps in them). */
const secretEntries = new WeakMap<ReadonlyMap<string, string>, Array<[string, string[], boolean]>>();
function secretsOf(env: ReadonlyMap<string, string>): Array<[string, string[], boolean]> {
  let s = secretEntries.get(env);
  if (!s) {
    s = [];
    for (const [name, value] of env) {
      if (!value.includes('${{')) continue;
      const inner = expressionsOf(value).filter((x) => readsSecret(x.body) || dumpsAllSecrets(x.body));
      if (inner.length > 0) s.push([name, inner.map((x) => x.text), inner.every((x) => onlyGithubToken(x.body))]);
    }
    secretEntries.set(env, s);
  }
  return s;
}

/**
 * Secrets a workflow passes on between steps: `echo "T=${{ secrets.K }}" >> $GITHUB_ENV` puts T in the env
 * of every later step; `… >> $GITHUB_OUTPUT` makes `steps.<id>.outputs.<name>` carry it.
 */
export interface Laundered {
  env: Map<string, string>;
  outputs: Set<string>;
}

export function launderedSecrets(sites: readonly RunSite[]): Laundered {
  const env = new Map<string, string>();
  const outputs = new Set<string>();
  for (const site of sites) {
    if (!site.text.includes('GITHUB_')) continue;
    for (const m of site.text.matchAll(/([A-Za-z_][\w-]*)=([^\n]*?)>>\s*["']?\$\{?(GITHUB_ENV|GITHUB_OUTPUT)\b/g)) {
      const value = m[2]!;
      const read = variablesRead(value);
      const viaEnv = [...site.env].some(([k, v]) => read.has(k) && expressionsOf(v).some((x) => readsSecret(x.body)));
      if (!expressionsOf(value).some((x) => readsSecret(x.body)) && !viaEnv) continue;
      if (m[3] === 'GITHUB_ENV') env.set(m[1]!, '${{ secrets.(passed on through GITHUB_ENV) }}');
      else outputs.add(m[1]!);
    }
  }
  return { env, outputs };
}

/** The line without the shell's no-op spellings of a word: `c''url`, `c""url`, `c\\url` are curl. */
function unobfuscate(text: string): string {
  return text.replace(/''|""/g, '').replace(/\\(?=[A-Za-z])/g, '');
}

/** Signals of one run site. */
export function siteSignals(site: RunSite, out: Collector, laundered?: Laundered): void {
  if (laundered && laundered.env.size > 0) site = { ...site, env: new Map([...site.env, ...laundered.env]) };
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

  // Every secret, or the whole environment, serialised: a signal wherever it goes.
  let dumped = false;
  for (const e of exprs) {
    const all = dumpsAllSecrets(e.body);
    if (all) dumped = true;
    if (all) out.signal({ kind: 'secrets-to-network', where: site.where, detail: `${e.text} puts ${all === 'toJSON(env)' ? 'the whole environment' : 'every repository secret'} into the script` });
  }

  // env: entries that serialise every secret or the whole environment: a signal once, wherever they are used.
  for (const [name, texts] of secretsOf(site.env)) {
    for (const t of texts) {
      const all = dumpsAllSecrets(t);
      if (all && !out.reported.has(`env:${name}=${t}`)) {
        out.reported.add(`env:${name}=${t}`);
        out.signal({ kind: 'secrets-to-network', where: site.where, detail: `env ${name}: ${t} puts ${all === 'toJSON(env)' ? 'the whole environment' : 'every repository secret'} into a variable this step sees` });
      }
    }
  }

  // A secret reaches the line directly, or through a variable that env: maps a secret into.
  const secretRefs: string[] = [];
  let githubTokenOnly = true;
  for (const e of exprs) {
    const output = /\bsteps\.[\w-]+\.outputs\.([\w-]+)/.exec(e.body);
    if (readsSecret(e.body) || (output && laundered?.outputs.has(output[1]!))) {
      secretRefs.push(e.text);
      if (!onlyGithubToken(e.body)) githubTokenOnly = false;
    }
  }
  const secrets = secretsOf(site.env);
  if (secrets.length > 0) {
    const dumpsEnv = ENV_DUMP.test(site.text);
    const read = variablesRead(site.text);
    for (const [name, texts, tokenOnly] of secrets) {
      if (!dumpsEnv && !read.has(name)) continue;
      secretRefs.push(`$${name} (= ${texts.join(' ')})`);
      if (!tokenOnly) githubTokenOnly = false;
      if (secretRefs.length > 5) break;
    }
  }
  if (dumped || secretRefs.length === 0 || !NETWORK_TOOL.test(site.text) && !NETWORK_TOOL.test(unobfuscate(site.text))) return;
  // Chosen exemption, deliberately narrow: only the runner's own GITHUB_TOKEN sent to GitHub's hosts (the API
  // calls every workflow makes). Any other secret to any host is a signal; the policy side weighs it.
  const hosts = urlHosts(site.text);
  if (githubTokenOnly && hosts.length > 0 && hosts.every((h) => GITHUB_HOSTS.test(h))) return;
  out.signal({ kind: 'secrets-to-network', where: site.where, detail: `${secretRefs.slice(0, 3).join(', ')} reaches a network tool in the same line${hosts.length ? ` (${hosts.slice(0, 3).join(', ')})` : ''}` });
}

// The refs that are the pull request's own code (its head, its merge commit, the fork's repository).
const PR_HEAD_REF = /github\.event\.pull_request\.(?:head\.(?:sha|ref)|merge_commit_sha|number)|github\.event\.number|github\.head_ref|refs\/pull\/|github\.event\.workflow_run\.(?:head_sha|head_branch|head_repository)|head\.repo\.full_name|github\.event\.pull_request\.head\.repo/;
// Run lines that fetch or check out the pull request's code.
const PR_CHECKOUT_CMD = /\bgh\s+pr\s+checkout\b[^\n;&|]*|\bgit\s+(?:fetch|pull|checkout|switch)\b[^\n;&|]*(?:pull\/|refs\/pull|head_ref|pull_request\.head|HEAD_REF|PULL_REQUEST_HEAD)[^\n;&|]*/;
// Refs that exist only under workflow_run: dangerous even in a fragment whose trigger is not visible.
const WORKFLOW_RUN_REF = /github\.event\.workflow_run\./;

export interface Step {
  where: string;
  uses?: string;
  run?: boolean;
  /** A run step's text, when known (a run line can check out the PR too: gh pr checkout, git fetch pull/N/head). */
  text?: string;
  /** checkout's with.ref / with.repository, as written. */
  ref?: string;
}

/**
 * pull_request_target / workflow_run jobs run with the base repository's secrets; checking out the pull
 * request's code and then running anything of it (a run step: npm install runs its scripts; a local action)
 * hands those secrets to the fork's author. `trigger` is the workflow's `on:` (null: not in the text).
 */
export function checkoutSignals(steps: readonly Step[], trigger: string[] | null, out: Collector): void {
  // Triggers that run in the base repository with its secrets while a pull request (or a comment on one)
  // comes from anyone: pull_request_target, workflow_run, issue_comment.
  const privileged = trigger?.find((t) => t === 'pull_request_target' || t === 'workflow_run' || t === 'issue_comment');
  let checkout: { where: string; what: string } | null = null;
  for (const s of steps) {
    if (s.uses && /(?:^|\/)checkout@|^actions\/checkout\b/.test(s.uses) && s.ref !== undefined && PR_HEAD_REF.test(s.ref)) {
      if (privileged || WORKFLOW_RUN_REF.test(s.ref)) checkout = { where: s.where, what: s.ref.trim() };
      continue;
    }
    const byRun = s.run && s.text !== undefined ? PR_CHECKOUT_CMD.exec(s.text) : null;
    if (byRun && privileged) {
      const rest = s.text!.slice(byRun.index + byRun[0].length);
      checkout = { where: s.where, what: byRun[0].trim() };
      // The same step goes on after the checkout: it runs the PR's code itself.
      if (!/[;&|\n]\s*\S/.test(rest)) continue;
    }
    if (checkout && (s.run || (s.uses && s.uses.startsWith('./')))) {
      out.signal({
        kind: 'pr-head-checkout',
        where: s.where,
        detail: `${privileged ? `on: ${privileged}` : 'a workflow_run job'} checks out the pull request's code (${checkout.what}) at ${checkout.where} and then runs it here, with the repository's secrets`,
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
