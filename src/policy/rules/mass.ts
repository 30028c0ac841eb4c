// Built-in rules: mass and production destruction. A destructive cloud, Kubernetes, IaC or database command is
// soft_deny on its own (infra.ts, db.ts: a person confirms one deletion). It is hard_deny when it cannot be one
// deletion a person can weigh: its targets come from a listing in the same line (`describe-instances | xargs
// terminate-instances`, `while read u; do aws iam delete-user …`, `for r in $(describe-regions)`), it names every
// stack (`cdk destroy --all`), or it names production (policy `protectedNames`; built in: prod, production, prd,
// live, as whole words of resource names, namespaces, contexts, profiles, hosts, stacks, workspaces, directories,
// and variables such as DATABASE_URL=$PROD). Tool runners (`npx cdk …`) are unwrapped by the shell analysis, so
// the same rules see `npx cdk destroy --all` as `cdk destroy --all`.

import picomatch from 'picomatch';
import { parseArgs, type ArgSpec } from '../../shell/args.ts';
import { programName, staticValue } from '../../shell/program.ts';
import { TOOL_RUNNER_LABELS } from '../../shell/runners.ts';
import type { Analysis, SimpleCommand, Word } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleContext, type RuleHit } from '../rule.ts';
import { dbDestruction } from './db.ts';

/** Resource-name words treated as production when the policy adds none (DECIDED: `prd` is a common short form; `stage`/`staging` are not). */
export const DEFAULT_PROTECTED_NAMES: readonly string[] = ['prod', 'production', 'prd', 'live'];

function v(w: Word | undefined): string {
  return w === undefined ? '' : (staticValue(w) ?? w.value);
}

const SPECS: Readonly<Record<string, ArgSpec>> = {
  aws: { longWithValue: ['profile', 'region', 'output', 'endpoint-url', 'query', 'color', 'ca-bundle', 'cli-read-timeout', 'cli-connect-timeout'] },
  gcloud: { longWithValue: ['project', 'account', 'configuration', 'format', 'verbosity', 'impersonate-service-account', 'region', 'zone', 'filter', 'limit', 'location'] },
  az: { shortWithValue: 'gon', longWithValue: ['subscription', 'output', 'query', 'resource-group', 'name', 'location'] },
  kube: { shortWithValue: 'nslcfoL', longWithValue: ['namespace', 'context', 'kubeconfig', 'cluster', 'user', 'selector', 'filename', 'output', 'server', 'token', 'as'], aliases: { namespace: 'n', selector: 'l', filename: 'f', output: 'o', 'all-namespaces': 'A' } },
  helm: { shortWithValue: 'nfo', longWithValue: ['namespace', 'kube-context', 'kubeconfig', 'output', 'values', 'set', 'timeout'] },
  tf: { singleDashLong: true, longWithValue: ['chdir', 'var', 'var-file', 'target', 'state', 'lock-timeout', 'parallelism', 'out'] },
  pulumi: { shortWithValue: 'sCc', longWithValue: ['stack', 'cwd', 'config', 'config-file', 'target'] },
  plain: {},
};

function ops(cmd: SimpleCommand, spec: ArgSpec): string[] {
  return parseArgs(cmd, spec).operands.map(v);
}

const AWS_DESTROY = /^(delete|terminate|remove|deregister|purge|batch-delete|reset|stop|disable|release|revoke|detach|cancel)(-|$)/;
const GCLOUD_DESTROY = /^(delete|delete-.*|remove|remove-.*|rm|destroy|purge|reset|abandon|stop|undeploy|wipe|rb)$/;
const AZ_DESTROY = /^(delete|purge|remove|deallocate|stop|delete-.*|remove-.*|purge-.*)$/;

/** What a destructive infrastructure or database command destroys (a short description), or null. */
export function destruction(cmd: SimpleCommand, analysis: Analysis): string | null {
  const name = programName(cmd);
  switch (name) {
    case 'aws': {
      const [svc, op, ...rest] = ops(cmd, SPECS['aws']!);
      if (svc === 's3') {
        if (op === 'rm' || op === 'rb' || op === 'mv') return `aws s3 ${op}`;
        if (op === 'sync' && cmd.argv.some((w) => w.value === '--delete')) return 'aws s3 sync --delete';
        return null;
      }
      void rest;
      return op !== undefined && AWS_DESTROY.test(op) ? `aws ${svc} ${op}` : null;
    }
    case 'gcloud': {
      const o = ops(cmd, SPECS['gcloud']!);
      const i = o.findIndex((x) => GCLOUD_DESTROY.test(x));
      return i > 0 ? `gcloud ${o.slice(0, i + 1).join(' ')}` : null;
    }
    case 'gsutil': {
      const [s] = ops(cmd, SPECS['plain']!);
      return s === 'rm' || s === 'rb' ? `gsutil ${s}` : null;
    }
    case 'az': {
      const o = ops(cmd, SPECS['az']!);
      const i = o.findIndex((x) => AZ_DESTROY.test(x));
      return i > 0 ? `az ${o.slice(0, i + 1).join(' ')}` : null;
    }
    case 'kubectl': case 'oc': case 'kubecolor': {
      const [s] = ops(cmd, SPECS['kube']!);
      return s === 'delete' || s === 'drain' || s === 'delete-project' ? `${name} ${s}` : null;
    }
    case 'helm': {
      const [s] = ops(cmd, SPECS['helm']!);
      return s === 'uninstall' || s === 'delete' || s === 'del' || s === 'un' ? `helm ${s}` : null;
    }
    case 'terraform': case 'tofu': case 'terragrunt': case 'opentofu': {
      let o = ops(cmd, SPECS['tf']!);
      if (name === 'terragrunt' && (o[0] === 'run-all' || o[0] === 'run')) o = o.slice(1);
      const words = cmd.argv.map(v);
      if (o[0] === 'destroy' || (o[0] === 'apply' && words.some((w) => w === '-destroy' || w === '--destroy'))) return `${name} destroy`;
      if (o[0] === 'state' && o[1] === 'rm') return `${name} state rm`;
      if (o[0] === 'workspace' && o[1] === 'delete') return `${name} workspace delete`;
      return null;
    }
    case 'pulumi': {
      const [s, s2] = ops(cmd, SPECS['pulumi']!);
      if (s === 'destroy' || s === 'down') return 'pulumi destroy';
      return s === 'stack' && (s2 === 'rm' || s2 === 'remove') ? 'pulumi stack rm' : null;
    }
    case 'cdk':
      return ops(cmd, SPECS['plain']!)[0] === 'destroy' ? 'cdk destroy' : null;
    case 'serverless': case 'sls': case 'sst': case 'copilot': case 'zappa': case 'chalice': {
      const s = ops(cmd, SPECS['plain']!)[0];
      return s === 'remove' || s === 'delete' || s === 'undeploy' || s === 'destroy' ? `${name} ${s}` : null;
    }
    case 'sam': case 'amplify':
      return ops(cmd, SPECS['plain']!)[0] === 'delete' ? `${name} delete` : null;
    case 'eb':
      return ops(cmd, SPECS['plain']!)[0] === 'terminate' ? 'eb terminate' : null;
    case 'prisma': {
      const o = ops(cmd, SPECS['plain']!);
      const words = cmd.argv.map(v);
      if (o[0] === 'migrate' && o[1] === 'reset') return 'prisma migrate reset';
      return o[0] === 'db' && o[1] === 'push' && words.includes('--force-reset') ? 'prisma db push --force-reset' : null;
    }
    case 'sequelize': case 'sequelize-cli': {
      const s = ops(cmd, SPECS['plain']!)[0];
      return s === 'db:drop' || s === 'db:migrate:undo:all' ? `sequelize ${s}` : null;
    }
    case 'typeorm': case 'typeorm-ts-node-commonjs': case 'typeorm-ts-node-esm': {
      const s = ops(cmd, SPECS['plain']!)[0];
      return s === 'schema:drop' || s === 'migration:revert' ? `typeorm ${s}` : null;
    }
    case 'knex': {
      const words = cmd.argv.map(v);
      return words.includes('migrate:rollback') && words.includes('--all') ? 'knex migrate:rollback --all' : null;
    }
    case 'drizzle-kit':
      return ops(cmd, SPECS['plain']!)[0] === 'drop' ? 'drizzle-kit drop' : null;
    case 'rails':
    case 'rake': {
      const s = ops(cmd, SPECS['plain']!)[0];
      return s === 'db:drop' || s === 'db:reset' || s === 'db:schema:load' ? `${name} ${s}` : null;
    }
    default: {
      if (name !== null && DB_PROGRAMS.has(name)) return dbDestruction(cmd, analysis);
      return null;
    }
  }
}

const DB_PROGRAMS: ReadonlySet<string> = new Set([
  'psql', 'pgcli', 'mysql', 'mariadb', 'mycli', 'sqlite3', 'clickhouse-client', 'cockroach', 'usql', 'sqlcmd', 'snowsql', 'cqlsh', 'bq',
  'redis-cli', 'valkey-cli', 'keydb-cli', 'mongosh', 'mongo', 'dropdb', 'mysqladmin',
]);

export const DESTRUCTIVE_PROGRAMS: readonly string[] = [
  'aws', 'gcloud', 'gsutil', 'az', 'kubectl', 'oc', 'kubecolor', 'helm', 'terraform', 'tofu', 'terragrunt', 'opentofu', 'pulumi',
  'cdk', 'serverless', 'sls', 'sst', 'copilot', 'zappa', 'chalice', 'sam', 'amplify', 'eb', 'prisma', 'sequelize', 'sequelize-cli',
  'typeorm', 'typeorm-ts-node-commonjs', 'typeorm-ts-node-esm', 'knex', 'drizzle-kit', 'rails', 'rake', ...DB_PROGRAMS,
];

// ---------------------------------------------------------------------------------------------------------
// Targets from a listing

/** True for a command that lists cloud, cluster or IaC resources (its output can name many of them). */
export function isListing(cmd: SimpleCommand): boolean {
  const name = programName(cmd);
  switch (name) {
    case 'aws': {
      const [svc, op] = ops(cmd, SPECS['aws']!);
      if (svc === 's3') return op === 'ls';
      return op !== undefined && /^(describe|list|get)-/.test(op);
    }
    case 'gcloud': return ops(cmd, SPECS['gcloud']!).some((o) => o === 'list');
    case 'gsutil': return ops(cmd, SPECS['plain']!)[0] === 'ls';
    case 'az': return ops(cmd, SPECS['az']!).some((o) => o === 'list');
    case 'kubectl': case 'oc': case 'kubecolor': return ops(cmd, SPECS['kube']!)[0] === 'get';
    case 'helm': { const s = ops(cmd, SPECS['helm']!)[0]; return s === 'list' || s === 'ls'; }
    case 'terraform': case 'tofu': { const o = ops(cmd, SPECS['tf']!); return (o[0] === 'state' && o[1] === 'list') || o[0] === 'output' || (o[0] === 'workspace' && o[1] === 'list'); }
    case 'pulumi': { const o = ops(cmd, SPECS['pulumi']!); return o[0] === 'stack' && (o[1] === 'ls' || o[1] === 'output'); }
    case 'psql': return cmd.argv.some((w) => w.value === '-l' || w.value === '--list' || /^-[A-Za-z]*l[A-Za-z]*$/.test(w.value) && w.value.includes('t'));
    default: return false;
  }
}

/** The command's own words are run-time data (a variable, a substitution, xargs or find input). */
function hasDynamicArg(cmd: SimpleCommand): boolean {
  for (let i = 1; i < cmd.argv.length; i++) if (!cmd.argv[i]!.literal && (cmd.argv[i]!.vars.length > 0 || cmd.argv[i]!.substitutions.length > 0)) return true;
  return false;
}

/** The listing whose output names this command's targets: piped into it (or its xargs), or substituted into the line. */
function listingFeeding(cmd: SimpleCommand, analysis: Analysis): SimpleCommand | null {
  if (!hasDynamicArg(cmd)) return null;
  const cmds = analysis.commands;
  // Piped: walk back from this command (and the wrappers it came from) through the pipes that feed it.
  const seen = new Set<number>();
  const queue: number[] = [];
  const pushSources = (c: SimpleCommand): void => {
    if (c.stdin.kind === 'pipe') queue.push(...c.stdin.from);
  };
  for (let c: SimpleCommand | undefined = cmd, g = 0; c !== undefined && g < 16; c = c.wrappedBy === undefined ? undefined : cmds[c.wrappedBy], g++) pushSources(c);
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const s = cmds[id];
    if (!s) continue;
    if (isListing(s)) return s;
    pushSources(s);
  }
  // Substituted: `for r in $(… describe-regions …)`, `--instance-ids $(… describe-instances …)`, `$(helm list -q)`.
  for (const c of cmds) if (c.inSubstitution && c !== cmd && isListing(c)) return c;
  return null;
}

/** `cdk destroy --all` / `cdk destroy '*'`: every stack of the app. */
function everything(cmd: SimpleCommand): string | null {
  const name = programName(cmd);
  if (name !== 'cdk') return null;
  const words = cmd.argv.slice(1).map(v);
  return words.includes('--all') || words.includes('*') ? 'every stack of the app (--all)' : null;
}

// ---------------------------------------------------------------------------------------------------------
// Protected names

const matchers = new Map<string, (s: string) => boolean>();

function matcherFor(ctx: RuleContext): (s: string) => boolean {
  const extra = ctx.protectedNames ?? [];
  const key = extra.join('\n');
  let m = matchers.get(key);
  if (!m) {
    if (matchers.size > 32) matchers.clear();
    const globs = [...DEFAULT_PROTECTED_NAMES, ...extra.map((g) => g.toLowerCase())];
    m = picomatch(globs, { nocase: true, dot: true });
    matchers.set(key, m);
  }
  return m;
}

/**
 * The words of a value a protected name is looked for in: every alphanumeric run, split at camelCase humps
 * (`ProdStack` -> prod, stack; `prod-db.internal` -> prod, db, internal; `$PROD_DATABASE_URL` -> prod, database,
 * url), and the whole value and its `/`, `=`, `:`, `.`, `@`, `,` separated pieces (for globs such as `acme-prod-*`).
 */
export function nameWords(value: string): string[] {
  const out = new Set<string>();
  for (const piece of value.split(/[\s/=:,@.]+/)) if (piece) out.add(piece.toLowerCase());
  for (const run of value.split(/[^A-Za-z0-9]+/)) {
    if (!run) continue;
    for (const w of run.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)) if (w) out.add(w.toLowerCase());
    out.add(run.toLowerCase());
  }
  return [...out];
}

/** Commands that select where later commands act (a workspace, a context, a stack, a project, a subscription). */
function selects(cmd: SimpleCommand): boolean {
  const name = programName(cmd);
  const o = cmd.argv.slice(1).map(v).filter((w) => !w.startsWith('-'));
  switch (name) {
    case 'terraform': case 'tofu': case 'terragrunt': return o[0] === 'workspace' && (o[1] === 'select' || o[1] === 'new');
    case 'kubectl': case 'oc': return o[0] === 'config' && (o[1] === 'use-context' || o[1] === 'set-context' || o[1] === 'use');
    case 'kubectx': case 'kubens': return true;
    case 'pulumi': return o[0] === 'stack' && o[1] === 'select';
    case 'gcloud': return o[0] === 'config' && o[1] === 'set';
    case 'az': return o[0] === 'account' && o[1] === 'set';
    default: return false;
  }
}

/** The first protected name this destructive command is pointed at, with where it was found, or null. */
function protectedTarget(cmd: SimpleCommand, ctx: RuleContext, analysis: Analysis): string | null {
  const is = matcherFor(ctx);
  const check = (value: string, where: string): string | null => {
    for (const w of nameWords(value)) if (is(w)) return `${where} \`${value.length > 80 ? value.slice(0, 77) + '…' : value}\``;
    return null;
  };
  const cmds = analysis.commands;
  // Its own words and those of the wrappers it runs under (`kubectl exec -n production db-0 -- psql …`).
  for (let c: SimpleCommand | undefined = cmd, g = 0; c !== undefined && g < 16; c = c.wrappedBy === undefined ? undefined : cmds[c.wrappedBy], g++) {
    for (let i = 1; i < c.argv.length; i++) {
      const hit = check(c.argv[i]!.value, 'its target');
      if (hit) return hit;
    }
    for (const a of c.assignments) {
      const hit = check(a.value.value, `${a.name}=`);
      if (hit) return hit;
    }
  }
  // Where it runs (`cd infra/production && terraform destroy`).
  if (cmd.cwd?.dir) {
    const hit = check(cmd.cwd.dir, 'the directory');
    if (hit) return hit;
  }
  // What the line set up before it: assignments and exports (`export AWS_PROFILE=production`), and selections
  // (`terraform workspace select prod`, `kubectl config use-context prod`).
  const here = order(cmd, cmds);
  for (const c of cmds) {
    if (c === cmd || !before(order(c, cmds), here)) continue;
    if (c.argv.length === 0) {
      for (const a of c.assignments) {
        const hit = check(a.value.value, `${a.name}=`);
        if (hit) return hit;
      }
      continue;
    }
    const p = programName(c);
    if (p === 'export' || p === 'declare' || p === 'typeset' || p === 'set' || p === 'setenv') {
      for (const w of c.argv.slice(1)) {
        const eq = w.value.indexOf('=');
        if (eq <= 0) continue;
        const hit = check(w.value.slice(eq + 1), `${w.value.slice(0, eq)}=`);
        if (hit) return hit;
      }
    } else if (selects(c)) {
      for (const w of c.argv.slice(1)) {
        const hit = check(w.value, `\`${c.text}\` selects`);
        if (hit) return hit;
      }
    }
  }
  return null;
}

/** A command's place in the line: the ids from its outermost wrapper down to itself (unwrapped commands are appended). */
function order(cmd: SimpleCommand, cmds: readonly SimpleCommand[]): number[] {
  const chain = [cmd.id];
  for (let w = cmd.wrappedBy, g = 0; w !== undefined && g < 64; w = cmds[w]?.wrappedBy, g++) chain.unshift(w);
  return chain;
}

function before(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return a.length < b.length;
}

// ---------------------------------------------------------------------------------------------------------

export const rules: Rule[] = [
  // Hard: a listing decides the targets, so the command deletes everything the listing returns (every instance,
  // user, bucket, release, region), or names every stack; nobody can weigh one deletion when there is no one.
  defineShellRule({
    id: 'infra.mass-destroy',
    tier: 'hard_deny',
    programs: DESTRUCTIVE_PROGRAMS,
    reason: 'This deletes cloud, cluster or database resources chosen by a listing in the same line (or every one of them); never do this from an agent. Delete the specific resources you mean, by name.',
    examples: {
      match: [
        "aws ec2 describe-instances --query 'Reservations[].Instances[].InstanceId' --output text | xargs aws ec2 terminate-instances --instance-ids",
        'aws iam list-users --output text | while read u; do aws iam delete-user --user-name "$u"; done',
        'for r in $(aws ec2 describe-regions --output text); do aws ec2 terminate-instances --region $r --instance-ids i-1; done',
        'kubectl get pods -o name | xargs kubectl delete',
        'helm uninstall $(helm list -q)',
        'cdk destroy --all',
        'npx cdk destroy --all',
      ],
      notMatch: [
        'aws ec2 terminate-instances --instance-ids i-123',
        'aws ec2 describe-instances | jq -r .Reservations',
        'for r in us-east-1 us-west-2; do aws ec2 describe-instances --region $r; done',
        'kubectl delete pod my-pod -n dev',
        'cdk destroy DevStack',
        'kubectl get pods -o name | xargs kubectl describe',
      ],
    },
    match: (cmd, _ctx, analysis): RuleHit | null => {
      const what = destruction(cmd, analysis);
      if (what === null) return null;
      const all = everything(cmd);
      if (all !== null) return { reason: `\`${what}\` of ${all} deletes everything the app has deployed; never do this from an agent. Destroy the one stack you mean, by name.`, subject: cmd.text };
      const from = listingFeeding(cmd, analysis);
      if (from === null) return null;
      return { reason: `\`${what}\` here deletes whatever \`${from.text.length > 80 ? from.text.slice(0, 77) + '…' : from.text}\` lists, not resources a person named; never do this from an agent. Delete the specific resources you mean, by name.`, subject: cmd.text };
    },
  }),
  // Hard: the command destroys something named as production (a namespace, context, profile, stack, workspace,
  // database host or variable). A person may do that; an agent must not, however it is asked.
  defineShellRule({
    id: 'infra.protected-destroy',
    tier: 'hard_deny',
    programs: DESTRUCTIVE_PROGRAMS,
    reason: 'This deletes resources named as production (policy protectedNames: prod, production, prd, live…); never do this from an agent.',
    examples: {
      match: [
        'kubectl --context prod-cluster delete deployment api',
        'kubectl --namespace production delete pod api-1',
        'helm uninstall api -n production',
        'terraform workspace select prod && terraform destroy',
        'terraform -chdir=envs/prod destroy',
        'cdk destroy ProdStack',
        'DATABASE_URL=$PROD npx prisma migrate reset --force',
        'export AWS_PROFILE=production; aws ec2 terminate-instances --instance-ids i-1',
        "psql -h prod-db.internal -c 'DROP TABLE users'",
        'aws s3 rm s3://prod-backups/daily --recursive',
      ],
      notMatch: [
        'kubectl delete pod products-api-1 -n dev',
        'terraform workspace select dev && terraform destroy',
        'kubectl logs -n production api-0',
        'kubectl apply -f k8s/prod.yaml',
        'helm uninstall my-release -n staging',
        "psql -h localhost -c 'DROP TABLE users'",
      ],
    },
    match: (cmd, ctx, analysis): RuleHit | null => {
      const what = destruction(cmd, analysis);
      if (what === null) return null;
      const where = protectedTarget(cmd, ctx, analysis);
      if (where === null) return null;
      return { reason: `\`${what}\` is pointed at production (${where} is a protected name); never do this from an agent. Ask the user to do it.`, subject: cmd.text };
    },
  }),
  // Allow: the program a tool runner (`npx`, `pnpm dlx`, `uvx`…) runs. Whether the package may be fetched and run
  // at all is the runner command's own rule (supply.npx-unknown); the inner command is judged by the rules for what
  // it does (infra, db, files…), and only counts as unknown for the runner, not a second time for itself.
  defineShellRule({
    id: 'dev.runner-inner',
    tier: 'allow',
    reason: 'The program a tool runner runs; the runner command itself is judged for the package it fetches.',
    examples: {
      match: ['npx cowsay hi', 'pnpm exec vitest run', 'npx tsc -p tsconfig.json'],
      notMatch: ['cowsay hi', 'npx --version', 'sudo cowsay'],
    },
    match: (cmd): boolean => {
      const via = cmd.via;
      return via.length > 0 && TOOL_RUNNER_LABELS.has(via[via.length - 1]!);
    },
  }),
];
