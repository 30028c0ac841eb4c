// Built-in rules: infra family. Changing live infrastructure (terraform, pulumi, kubernetes, helm, cloud CLIs,
// docker state) reaches beyond the project: soft_deny so a person confirms, hard_deny where the change is
// unconfirmed and irreversible (destroy -auto-approve, deleting a whole namespace, force-removing a bucket).
// Read-only inspection of the same tools is allowed.

import { parseArgs, type ArgSpec, type ParsedArgs } from '../../shell/args.ts';
import { programName, staticValue } from '../../shell/program.ts';
import type { SimpleCommand, Word } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleContext, type RuleHit } from '../rule.ts';
import { has } from './writes.ts';

function values(words: readonly Word[]): string[] {
  return words.map((w) => staticValue(w) ?? w.value);
}

interface Parsed {
  ops: string[];
  flags: ParsedArgs['flags'];
  words: string[];
}

function parse(cmd: SimpleCommand, spec: ArgSpec): Parsed {
  const p = parseArgs(cmd, spec);
  return { ops: values(p.operands), flags: p.flags, words: values(cmd.argv.slice(1)) };
}

function flag(p: Parsed, ...names: string[]): boolean {
  for (const n of names) if (p.flags.has(n)) return true;
  return false;
}

const cache = new WeakMap<SimpleCommand, InfraVerdict | null>();

/** What one infra command does: the rule that owns it, and how severe it is. */
interface InfraVerdict {
  rule: string;
  tier: 'allow' | 'soft_deny' | 'hard_deny';
  reason: string;
}

function hit(v: InfraVerdict | null, rule: string): RuleHit | null {
  if (v === null || v.rule !== rule) return null;
  return { tier: v.tier, reason: v.reason };
}

const soft = (rule: string, reason: string): InfraVerdict => ({ rule, tier: 'soft_deny', reason });
const hard = (rule: string, reason: string): InfraVerdict => ({ rule, tier: 'hard_deny', reason });
const ok = (reason = 'Read-only inspection of infrastructure.'): InfraVerdict => ({ rule: 'infra.readonly', tier: 'allow', reason });

// ---------------------------------------------------------------------------------------------------------
// terraform / tofu / terragrunt

const TF_SPEC: ArgSpec = { singleDashLong: true, longWithValue: ['chdir', 'var', 'var-file', 'target', 'replace', 'state', 'state-out', 'backup', 'lock-timeout', 'parallelism', 'out', 'generate-config-out', 'plugin-dir', 'backend-config', 'from-module', 'test-directory', 'filter'] };
const TF_READ = new Set(['plan', 'validate', 'fmt', 'init', 'show', 'output', 'providers', 'version', 'graph', 'get', 'modules', 'metadata', 'console', 'login', 'logout', 'help', 'render-json', 'hclfmt', 'output-module-groups', 'graph-dependencies', 'validate-inputs', 'render', 'info', 'find', 'list']);
const TF_STATE_READ = new Set(['list', 'show', 'pull']);
const TF_WS_READ = new Set(['list', 'show', 'select', 'new']);

function terraform(cmd: SimpleCommand): InfraVerdict | null {
  const p = parse(cmd, TF_SPEC);
  let ops = p.ops;
  const name = programName(cmd) ?? 'terraform';
  if (name === 'terragrunt' && (ops[0] === 'run-all' || ops[0] === 'run' || ops[0] === 'stack')) ops = ops.slice(1);
  const [s, s2] = ops;
  if (s === undefined) return flag(p, 'version', 'help', 'v', 'h') ? ok() : null;
  const auto = flag(p, 'auto-approve', 'force', 'non-interactive') || p.words.some((w) => w === '-auto-approve' || w === '--auto-approve');
  const destroy = s === 'destroy' || (s === 'apply' && (flag(p, 'destroy') || p.words.includes('-destroy')));
  if (destroy) {
    return auto
      ? hard('infra.terraform', `\`${name} destroy -auto-approve\` deletes the managed infrastructure without confirmation; never do this from an agent.`)
      : soft('infra.terraform', `\`${name} destroy\` deletes the managed infrastructure; a person must confirm it.`);
  }
  if (s === 'apply' || s === 'import' || s === 'taint' || s === 'untaint' || s === 'refresh' || s === 'force-unlock') {
    return soft('infra.terraform', `\`${name} ${s}\` changes real infrastructure or its state; run \`plan\` and let a person apply.`);
  }
  if (s === 'state') {
    if (s2 !== undefined && TF_STATE_READ.has(s2)) return ok();
    return soft('infra.terraform', `\`${name} state ${s2 ?? ''}\` edits the state file; a person must confirm it.`);
  }
  if (s === 'workspace') {
    if (s2 !== undefined && TF_WS_READ.has(s2)) return ok();
    if (s2 === 'delete') return soft('infra.terraform', `\`${name} workspace delete\` drops a workspace and its state; a person must confirm it.`);
    return null;
  }
  if (TF_READ.has(s)) return ok();
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// pulumi

const PULUMI_SPEC: ArgSpec = { shortWithValue: 'sCcmt', longWithValue: ['stack', 'cwd', 'config', 'config-file', 'message', 'target', 'parallel', 'secrets-provider', 'color', 'exec-kind', 'tracing', 'plan'] };
const PULUMI_READ = new Set(['preview', 'whoami', 'version', 'about', 'logs', 'help', 'login', 'schema', 'policy']);

function pulumi(cmd: SimpleCommand): InfraVerdict | null {
  const p = parse(cmd, PULUMI_SPEC);
  const [s, s2] = p.ops;
  const yes = flag(p, 'yes', 'y', 'skip-preview', 'f', 'force');
  if (s === 'destroy' || s === 'down') {
    return yes ? hard('infra.pulumi', '`pulumi destroy --yes` deletes every resource of the stack without confirmation; never do this from an agent.') : soft('infra.pulumi', '`pulumi destroy` deletes every resource of the stack; a person must confirm it.');
  }
  if (s === 'up' || s === 'update' || s === 'refresh' || s === 'import' || s === 'cancel' || s === 'watch') {
    return soft('infra.pulumi', `\`pulumi ${s}\` changes real infrastructure; run \`pulumi preview\` and let a person apply.`);
  }
  if (s === 'stack') {
    if (s2 === 'rm' || s2 === 'remove' || s2 === 'change-secrets-provider' || s2 === 'rename' || s2 === 'import') return soft('infra.pulumi', `\`pulumi stack ${s2}\` changes the stack itself; a person must confirm it.`);
    return ok();
  }
  if (s === 'state') return soft('infra.pulumi', '`pulumi state` edits the stack state directly; a person must confirm it.');
  if (s === 'config') return s2 === undefined || s2 === 'get' || s2 === 'ls' ? ok() : null;
  if (s === 'plugin') return s2 === 'ls' ? ok() : null;
  if (s !== undefined && PULUMI_READ.has(s)) return ok();
  if (s === undefined && flag(p, 'version', 'help', 'h')) return ok();
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// kubectl / oc

const KUBE_SPEC: ArgSpec = {
  shortWithValue: 'nslcfokpLi',
  longWithValue: [
    'namespace', 'context', 'kubeconfig', 'cluster', 'user', 'server', 'token', 'as', 'as-group', 'as-uid',
    'request-timeout', 'selector', 'filename', 'output', 'container', 'field-selector', 'kustomize', 'patch',
    'type', 'image', 'replicas', 'timeout', 'grace-period', 'field-manager', 'template', 'sort-by', 'from-literal',
    'from-file', 'from-env-file', 'port', 'target-port', 'name', 'cache-dir', 'certificate-authority',
    'client-certificate', 'client-key', 'tls-server-name', 'v', 'since', 'tail', 'since-time', 'to-revision',
    'overrides', 'limits', 'requests', 'env', 'labels', 'cascade', 'max-unavailable', 'min-available', 'chunk-size',
    'subresource', 'profile', 'l',
  ],
  aliases: { namespace: 'n', selector: 'l', filename: 'f', output: 'o', 'all-namespaces': 'A' },
};
const KUBE_READ = new Set(['get', 'describe', 'logs', 'top', 'explain', 'api-resources', 'api-versions', 'version', 'cluster-info', 'diff', 'events', 'wait', 'kustomize', 'completion', 'options', 'help', 'whoami', 'status', 'projects', 'project', 'login']);
const KUBE_WRITE = new Set(['apply', 'create', 'delete', 'replace', 'patch', 'edit', 'scale', 'drain', 'cordon', 'uncordon', 'taint', 'label', 'annotate', 'set', 'expose', 'autoscale', 'run', 'exec', 'cp', 'port-forward', 'attach', 'debug', 'proxy', 'certificate', 'rollout', 'new-app', 'new-project', 'delete-project', 'start-build', 'adm', 'policy', 'import-image', 'tag']);
const CLUSTER_WIDE = /^(namespaces?|ns|nodes?|no|persistentvolumes?|pv|customresourcedefinitions?|crds?|clusterroles?|clusterrolebindings?|storageclass(es)?|sc|all|project|projects)$/i;

function kubectl(cmd: SimpleCommand): InfraVerdict | null {
  const name = programName(cmd) ?? 'kubectl';
  const p = parse(cmd, KUBE_SPEC);
  const [s, s2] = p.ops;
  if (s === undefined) return flag(p, 'version', 'help', 'h') ? ok() : null;
  if (s === 'config') {
    if (s2 === undefined || ['view', 'get-contexts', 'current-context', 'get-clusters', 'get-users'].includes(s2)) return ok();
    return null;
  }
  if (s === 'auth') return s2 === 'can-i' || s2 === 'whoami' ? ok() : null;
  if (s === 'rollout' && (s2 === 'status' || s2 === 'history')) return ok();
  if (s === 'plugin') return s2 === 'list' ? ok() : null;
  if (s === 'delete' || s === 'delete-project') {
    const types = (s2 ?? '').split(/[,/]/)[0] ?? '';
    const allNs = flag(p, 'A', 'all-namespaces');
    if (s === 'delete-project' || flag(p, 'all') || allNs || CLUSTER_WIDE.test(types) || (s2 ?? '').split(',').some((t) => CLUSTER_WIDE.test(t.split('/')[0] ?? ''))) {
      return hard('infra.kubectl', `\`${name} ${p.ops.join(' ')}\` deletes cluster-wide or all resources; never do this from an agent.`);
    }
    return soft('infra.kubectl', `\`${name} delete\` removes live cluster resources; a person must confirm it.`);
  }
  if (KUBE_WRITE.has(s)) return soft('infra.kubectl', `\`${name} ${s}\` changes or reaches into a live cluster; a person must confirm it.`);
  if (KUBE_READ.has(s)) return ok();
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// helm

const HELM_SPEC: ArgSpec = { shortWithValue: 'nfo', longWithValue: ['namespace', 'kube-context', 'kubeconfig', 'values', 'set', 'set-string', 'set-file', 'set-json', 'version', 'repo', 'timeout', 'output', 'post-renderer', 'description', 'username', 'password', 'ca-file', 'cert-file', 'key-file', 'registry-config', 'repository-config', 'repository-cache', 'revision', 'max'] };
const HELM_WRITE = new Set(['install', 'upgrade', 'uninstall', 'delete', 'del', 'un', 'rollback', 'test']);
const HELM_READ = new Set(['list', 'ls', 'status', 'template', 'lint', 'show', 'inspect', 'get', 'history', 'hist', 'search', 'version', 'package', 'env', 'verify', 'pull', 'fetch', 'create', 'completion', 'help', 'diff', 'dependency', 'dep', 'repo']);

function helm(cmd: SimpleCommand): InfraVerdict | null {
  const p = parse(cmd, HELM_SPEC);
  const [s, s2] = p.ops;
  if (s === undefined) return flag(p, 'version', 'help', 'h') ? ok() : null;
  if (HELM_WRITE.has(s)) {
    if (s === 'upgrade' || s === 'install') {
      if (flag(p, 'dry-run')) return ok();
    }
    return soft('infra.helm', `\`helm ${s}\` changes a release running in a cluster; a person must confirm it.`);
  }
  if (s === 'plugin') return s2 === 'list' || s2 === 'ls' ? ok() : soft('infra.helm', '`helm plugin install` runs code from elsewhere; a person must confirm it.');
  if (s === 'repo') return s2 === 'remove' || s2 === 'rm' ? null : ok();
  if (HELM_READ.has(s)) return ok();
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// aws

const AWS_SPEC: ArgSpec = { longWithValue: ['profile', 'region', 'output', 'endpoint-url', 'query', 'color', 'ca-bundle', 'cli-read-timeout', 'cli-connect-timeout', 'cli-binary-format', 'cli-auto-prompt'] };
const AWS_READ_VERBS = new Set(['describe', 'list', 'get', 'head', 'search', 'lookup', 'scan', 'query', 'select', 'batch-get', 'estimate', 'preview', 'validate', 'check', 'simulate', 'test', 'filter', 'receive', 'wait', 'help', 'detect', 'download', 'view', 'tail', 'verify', 'generate', 'decode', 'poll', 'discover', 'explain', 'count', 'summarize', 'start-query']);
const AWS_WRITE_VERBS = new Set(['delete', 'terminate', 'remove', 'deregister', 'purge', 'batch-delete', 'detach', 'disassociate', 'revoke', 'cancel', 'stop', 'disable', 'reset', 'put', 'update', 'modify', 'create', 'attach', 'associate', 'run', 'start', 'reboot', 'restore', 'replace', 'import', 'schedule', 'set', 'send', 'publish', 'invoke', 'change', 'add', 'tag', 'untag', 'enable', 'register', 'authorize', 'copy', 'execute', 'rotate', 'upload', 'deploy', 'promote', 'apply', 'accept', 'reject', 'allocate', 'release', 'assign', 'unassign', 'merge', 'move', 'rebuild', 'recover', 'resize', 'restart', 'resume', 'suspend', 'swap', 'sign', 'subscribe', 'unsubscribe', 'upgrade', 'flush', 'force', 'abort', 'complete', 'confirm', 'initiate', 'install', 'uninstall', 'link', 'unlink', 'lock', 'unlock', 'batch-write', 'batch-update', 'batch-put', 'batch-execute', 'transact', 'leave', 'close', 'reboot', 'failover', 'rollback', 'renew', 'request', 'deactivate', 'activate', 'archive', 'unarchive', 'retire', 'opt', 'admin', 'increase', 'decrease', 'adjust', 'cancel-key']);
/** Reads that hand out secrets or credentials: not allowed here (the secrets rules judge them). */
const AWS_SECRET_READS = /^(secretsmanager get-secret-value|ssm get-parameters?(-by-path)?|sts (get-session-token|assume-role.*|get-federation-token)|kms decrypt|ecr get-login-password|ecr get-authorization-token|iam (get-access-key-last-used|list-access-keys)|cognito-idp admin-initiate-auth|lightsail get-instance-access-details|ec2 get-password-data|rds generate-db-auth-token|codeartifact get-authorization-token|sso get-role-credentials|configure (get|export-credentials))$/;

function opVerb(op: string): string {
  const two = op.split('-').slice(0, 2).join('-');
  if (AWS_WRITE_VERBS.has(two) || AWS_READ_VERBS.has(two)) return two;
  return op.split('-')[0] ?? op;
}

function isBucketRoot(s: string | undefined): boolean {
  return s !== undefined && /^s3:\/\/[^/]+\/?$/.test(s);
}

function aws(cmd: SimpleCommand): InfraVerdict | null {
  const p = parse(cmd, AWS_SPEC);
  const [svc, op] = p.ops;
  if (svc === undefined) return flag(p, 'version', 'help') ? ok() : null;
  if (svc === 'help' || op === 'help' || op === undefined && flag(p, 'help')) return ok();
  if (svc === 's3') {
    const rest = p.ops.slice(2);
    switch (op) {
      case 'ls': case 'presign':
        return ok();
      case 'rb':
        return flag(p, 'force') ? hard('infra.aws', '`aws s3 rb --force` deletes the bucket and every object in it; never do this from an agent.') : soft('infra.aws', '`aws s3 rb` removes a bucket; a person must confirm it.');
      case 'rm':
        if (flag(p, 'recursive') && rest.some(isBucketRoot)) return hard('infra.aws', '`aws s3 rm --recursive` of a whole bucket deletes every object in it; never do this from an agent.');
        return soft('infra.aws', '`aws s3 rm` deletes objects from a bucket; a person must confirm it.');
      case 'mv':
        return soft('infra.aws', '`aws s3 mv` moves (and deletes) objects; a person must confirm it.');
      case 'sync':
      case 'cp': {
        const dest = rest[rest.length - 1] ?? '';
        if (flag(p, 'delete')) return soft('infra.aws', '`aws s3 sync --delete` deletes objects missing from the source; a person must confirm it.');
        if (dest.startsWith('s3://')) return soft('infra.aws', `\`aws s3 ${op}\` uploads data to a bucket; a person must confirm where it goes.`);
        return ok('Downloads from S3.');
      }
      case 'mb': case 'website':
        return soft('infra.aws', `\`aws s3 ${op}\` changes buckets; a person must confirm it.`);
      default:
        return null;
    }
  }
  if (op === undefined) return null;
  const key = `${svc} ${op}`;
  // SecureString parameters come back encrypted unless --with-decryption is given.
  if (svc === 'ssm' && /^get-parameters?(-by-path)?$/.test(op) && !p.words.some((w) => w === '--with-decryption')) {
    return ok('Reads SSM parameters; SecureString values stay encrypted without --with-decryption.');
  }
  if (AWS_SECRET_READS.test(key)) return null;
  if (svc === 'configure') return op === 'list' || op === 'list-profiles' ? ok() : op === 'set' ? soft('infra.aws', '`aws configure set` changes the AWS credentials or profile configuration; a person must confirm it.') : null;
  const v = opVerb(op);
  // Hard: unconfirmed, irreversible loss, or switching off the account's own security recording.
  if ((svc === 'rds' && /^delete-db-(instance|cluster)$/.test(op) && p.words.includes('--skip-final-snapshot')) ||
      (svc === 'cloudtrail' && (op === 'stop-logging' || op === 'delete-trail')) ||
      (svc === 'kms' && op === 'schedule-key-deletion') ||
      (svc === 'guardduty' && op === 'delete-detector') ||
      (svc === 'securityhub' && op === 'disable-security-hub') ||
      (svc === 'config' && (op === 'stop-configuration-recorder' || op === 'delete-configuration-recorder')) ||
      (svc === 'organizations' && (op === 'leave-organization' || op === 'delete-organization')) ||
      (svc === 's3api' && op === 'delete-bucket') ||
      (svc === 'iam' && /^attach-(user|role|group)-policy$/.test(op) && p.words.some((w) => /AdministratorAccess|policy\/\*$/.test(w)))) {
    return hard('infra.aws', `\`aws ${key}\` is irreversible or switches off the account's protection; never do this from an agent.`);
  }
  if (AWS_READ_VERBS.has(v)) return ok();
  if (AWS_WRITE_VERBS.has(v)) {
    const destructive = /^(delete|terminate|remove|deregister|purge|batch-delete|detach|disassociate|revoke|stop|disable|reset|cancel)/.test(op);
    return soft('infra.aws', destructive
      ? `\`aws ${key}\` deletes or stops cloud resources; a person must confirm it.`
      : `\`aws ${key}\` changes cloud resources; a person must confirm it.`);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// gcloud / gsutil

const GCLOUD_SPEC: ArgSpec = { longWithValue: ['project', 'account', 'configuration', 'format', 'verbosity', 'impersonate-service-account', 'billing-project', 'flags-file', 'flatten', 'trace-token', 'region', 'zone', 'filter', 'limit', 'sort-by', 'page-size', 'location', 'organization', 'folder'] };
const GCLOUD_READ = /^(list|describe|get|get-iam-policy|get-value|get-credentials|info|help|version|ls|cat|du|read|tail|search|print-settings|show|check|validate|lint|explain|list-.*|describe-.*|get-.*|show-.*|diff|logs|status|wait|query-plan)$/;
const GCLOUD_DESTROY = /^(delete|delete-.*|remove|remove-.*|rm|destroy|purge|undeploy|reset|abandon|disable|cancel|stop|untag|rb|set-iam-policy|deprovision|wipe)$/;
const GCLOUD_WRITE = /^(create|update|set|deploy|add-.*|patch|start|resize|import|export|move|cp|mv|rsync|enable|submit|run|ssh|scp|apply|execute|call|publish|restore|rollback|promote|migrate|attach|detach|upgrade|restart|suspend|resume|tag|register|approve|acknowledge|revoke|rotate|add|invoke|clone|copy|sync|replace|login|activate-service-account|configure-docker|compose|ack|modify-.*|recreate|simulate-maintenance-event)$/;
const GCLOUD_SECRET_READS = /(secrets versions access|auth print-access-token|auth print-identity-token|auth application-default print-access-token|sql generate-login-token|iam service-accounts keys create)/;

function gcloud(cmd: SimpleCommand): InfraVerdict | null {
  const name = programName(cmd);
  const p = parse(cmd, GCLOUD_SPEC);
  const ops = p.ops;
  if (name === 'gsutil') {
    const [s] = ops;
    const rest = ops.slice(1);
    const bucketRoot = rest.some((o) => /^gs:\/\/[^/]+\/?$/.test(o));
    const recursive = p.words.some((w) => /^-[a-zA-Z]*[rR]/.test(w));
    switch (s) {
      case 'ls': case 'cat': case 'du': case 'stat': case 'hash': case 'version': case 'help': case 'signurl':
        return ok();
      case 'rb':
        return hard('infra.gcloud', '`gsutil rb` removes a bucket; never do this from an agent.');
      case 'rm':
        return recursive && bucketRoot ? hard('infra.gcloud', '`gsutil rm -r` of a whole bucket deletes every object in it; never do this from an agent.') : soft('infra.gcloud', '`gsutil rm` deletes objects; a person must confirm it.');
      case 'cp': case 'mv': case 'rsync': {
        const dest = rest[rest.length - 1] ?? '';
        if (s === 'cp' && !dest.startsWith('gs://')) return ok('Downloads from Cloud Storage.');
        return soft('infra.gcloud', `\`gsutil ${s}\` writes to (or deletes from) a bucket; a person must confirm it.`);
      }
      default:
        return s === undefined ? null : /^(acl|iam|defacl|setmeta|retention|lifecycle|versioning|web|cors|label|mb|kms|notification|logging|requesterpays|rewrite|compose|defstorageclass|autoclass|pap|ubla|bucketpolicyonly)$/.test(s) ? soft('infra.gcloud', `\`gsutil ${s}\` changes bucket settings or objects; a person must confirm it.`) : null;
    }
  }
  if (ops.length === 0) return flag(p, 'version', 'help', 'h') ? ok() : null;
  const joined = ops.join(' ');
  if (GCLOUD_SECRET_READS.test(joined)) return null;
  if (ops[0] === 'config') return ops[1] === 'set' || ops[1] === 'list' || ops[1] === 'get-value' || ops[1] === 'get' || ops[1] === 'configurations' ? ok('Reads or sets the gcloud CLI\'s own configuration.') : null;
  if (ops[0] === 'help' || ops[0] === 'version' || ops[0] === 'info') return ok();
  if (flag(p, 'help', 'h')) return ok('Prints help.');
  // The verb is the first operand that is a known verb: `gcloud compute instances delete x`.
  const i = ops.findIndex((o) => GCLOUD_READ.test(o) || GCLOUD_DESTROY.test(o) || GCLOUD_WRITE.test(o));
  if (i < 0) return null;
  const verb = ops[i]!;
  const group = ops.slice(0, i).join(' ');
  if (group === 'projects' && verb === 'delete') return hard('infra.gcloud', '`gcloud projects delete` shuts down the whole project and everything in it; never do this from an agent.');
  if (group === 'storage' && verb === 'rm' && p.words.some((w) => w === '-r' || w === '--recursive') && ops.slice(i + 1).some((o) => /^gs:\/\/[^/]+\/?$/.test(o))) {
    return hard('infra.gcloud', '`gcloud storage rm -r` of a whole bucket deletes every object in it; never do this from an agent.');
  }
  if (group === 'storage buckets' && verb === 'delete') return hard('infra.gcloud', 'Deleting a bucket removes it and its data; never do this from an agent.');
  if (group === 'storage' && verb === 'cp') {
    const dest = ops[ops.length - 1] ?? '';
    if (!dest.startsWith('gs://')) return ok('Downloads from Cloud Storage.');
  }
  if (GCLOUD_READ.test(verb)) return ok();
  if (GCLOUD_DESTROY.test(verb)) return soft('infra.gcloud', `\`gcloud ${group} ${verb}\` deletes or stops cloud resources; a person must confirm it.`);
  return soft('infra.gcloud', `\`gcloud ${group} ${verb}\` changes cloud resources; a person must confirm it.`);
}

// ---------------------------------------------------------------------------------------------------------
// az

const AZ_SPEC: ArgSpec = { shortWithValue: 'gon', longWithValue: ['subscription', 'output', 'query', 'resource-group', 'name', 'location', 'ids', 'vault-name', 'account-name', 'container-name', 'image', 'scope', 'role', 'assignee'] };
const AZ_READ = /^(list|show|get-.*|list-.*|show-.*|version|find|wait|exists|check-.*|query|download|download-batch|url|tail|logs|browse|help)$/;
const AZ_DESTROY = /^(delete|purge|remove|untag|stop|deallocate|reset|revoke|disable|delete-.*|remove-.*|purge-.*|undelete)$/;
const AZ_WRITE = /^(create|update|set|deploy|add|start|restart|scale|import|upload|assign|invoke|run-command|attach|detach|generalize|redeploy|reimage|resize|restore|rotate|enable|swap|sync|publish|login|grant|renew|regenerate-.*|set-.*|add-.*|config|up)$/;
const AZ_SECRET_READS = /^keyvault (secret (show|download)|key download|certificate download)|^account get-access-token|^storage account keys list|^acr login|^aks get-credentials.*--admin/;

function az(cmd: SimpleCommand): InfraVerdict | null {
  const p = parse(cmd, AZ_SPEC);
  const ops = p.ops;
  if (ops.length === 0) return flag(p, 'version', 'help', 'h') ? ok() : null;
  const joined = ops.join(' ');
  if (AZ_SECRET_READS.test(joined + (p.words.includes('--admin') ? ' --admin' : ''))) return null;
  if (ops[0] === 'account' && ops[1] === 'set') return ok('Selects the az CLI\'s default subscription.');
  if (ops[0] === 'login' || ops[0] === 'logout') return null;
  const i = ops.findIndex((o) => AZ_READ.test(o) || AZ_DESTROY.test(o) || AZ_WRITE.test(o));
  if (i < 0) return null;
  const verb = ops[i]!;
  const group = ops.slice(0, i).join(' ');
  if (group === 'group' && verb === 'delete') return hard('infra.az', '`az group delete` deletes every resource in the resource group; never do this from an agent.');
  if (verb === 'purge' || (group === 'keyvault' && verb === 'delete' && p.words.includes('--purge'))) return hard('infra.az', `\`az ${group} purge\` deletes for good, with no soft-delete recovery; never do this from an agent.`);
  if (AZ_READ.test(verb)) return ok();
  if (AZ_DESTROY.test(verb)) return soft('infra.az', `\`az ${group} ${verb}\` deletes or stops cloud resources; a person must confirm it.`);
  return soft('infra.az', `\`az ${group} ${verb}\` changes cloud resources; a person must confirm it.`);
}

// ---------------------------------------------------------------------------------------------------------
// docker / podman / nerdctl / docker-compose

const DOCKER_SPEC: ArgSpec = {
  shortWithValue: 'Hcltfpe',
  longWithValue: ['host', 'context', 'config', 'log-level', 'tlscacert', 'tlscert', 'tlskey', 'file', 'project-name', 'profile', 'env-file', 'project-directory', 'tag', 'filter', 'format', 'platform', 'build-arg', 'target', 'name', 'network', 'label', 'since', 'until', 'tail', 'timeout', 'signal'],
  aliases: { force: 'f', volumes: 'v', all: 'a' },
};
const DOCKER_MGMT = new Set(['container', 'image', 'volume', 'network', 'system', 'builder', 'buildx', 'compose', 'context', 'manifest', 'plugin', 'node', 'service', 'stack', 'swarm', 'secret', 'config', 'trust', 'machine', 'pod']);
const DOCKER_READ = new Set(['ps', 'images', 'logs', 'inspect', 'version', 'info', 'build', 'pull', 'stats', 'top', 'port', 'diff', 'history', 'events', 'search', 'tag', 'ls', 'df', 'save', 'help', 'create', 'start', 'wait', 'bake', 'use', 'show', 'du']);
const COMPOSE_READ = new Set(['ps', 'logs', 'config', 'build', 'up', 'down', 'pull', 'start', 'stop', 'restart', 'ls', 'images', 'top', 'port', 'version', 'create', 'events', 'wait', 'watch', 'stats']);

function docker(cmd: SimpleCommand): InfraVerdict | null {
  const name = programName(cmd) ?? 'docker';
  const p = parse(cmd, DOCKER_SPEC);
  let ops = p.ops;
  if (name === 'docker-compose' || name === 'podman-compose') ops = ['compose', ...ops];
  const [a, b] = ops;
  if (a === undefined) return flag(p, 'version', 'help', 'v', 'h') ? ok() : null;
  const force = flag(p, 'f');
  const mgmt = DOCKER_MGMT.has(a) ? a : null;
  const verb = mgmt ? b : a;
  const what = mgmt ? `${a} ${b ?? ''}`.trim() : a;
  if (verb === 'prune') return soft('infra.docker', `\`${name} ${what}\` deletes every unused ${mgmt === 'volume' ? 'volume and its data' : 'object of that kind'}, not only yours; remove the specific ones.`);
  if (a === 'volume' && (b === 'rm' || b === 'remove')) return soft('infra.docker', 'Removing a volume deletes the data in it; a person must confirm it.');
  if (a === 'network' && (b === 'rm' || b === 'remove')) return soft('infra.docker', 'Removing networks can cut running containers off; a person must confirm it.');
  if ((verb === 'rm' || verb === 'rmi' || verb === 'remove') && force) return soft('infra.docker', `\`${name} ${what} -f\` kills and removes containers or images in use; stop them first and remove without -f.`);
  if (a === 'compose' && b === 'down' && (flag(p, 'v', 'rmi') || p.words.includes('--volumes'))) return soft('infra.docker', '`compose down -v` deletes the project\'s volumes and their data; a person must confirm it.');
  if (a === 'compose' && (b === 'rm') && force) return soft('infra.docker', '`compose rm -f` removes the project\'s containers without asking.');
  if (a === 'compose') return b !== undefined && COMPOSE_READ.has(b) ? ok('Runs the project\'s own compose setup.') : null;
  if (a === 'system' && (b === 'df' || b === 'info' || b === 'events')) return ok();
  if (verb === 'rm' || verb === 'rmi') return ok('Removes a container or image that is not in use.');
  if (a === 'buildx' && (b === 'build' || b === 'bake') && !p.words.includes('--push')) return ok('Builds an image locally.');
  if (verb !== undefined && DOCKER_READ.has(verb)) return ok('Inspects or builds local containers and images.');
  return null;
}

/** `docker run` / `create` options that hand the container the host: root mounts, privileges, host namespaces. */
function dockerPrivileged(cmd: SimpleCommand, ctx: RuleContext): RuleHit | null {
  const words = values(cmd.argv.slice(1));
  const i = words.findIndex((w) => !w.startsWith('-'));
  if (i < 0 || !['run', 'create'].includes(words[i]!) && !(words[i] === 'container' && ['run', 'create'].includes(words[i + 1] ?? ''))) return null;
  let soft: RuleHit | null = null;
  for (let j = i + 1; j < words.length; j++) {
    const w = words[j]!;
    let mount: string | null = null;
    if (w === '-v' || w === '--volume' || w === '--mount') mount = words[++j] ?? null;
    else if (w.startsWith('--volume=') || w.startsWith('--mount=')) mount = w.slice(w.indexOf('=') + 1);
    else if (/^-v./.test(w)) mount = w.slice(2);
    if (mount !== null) {
      const src = mount.includes('source=') || mount.includes('src=') ? (/(?:source|src)=([^,]+)/.exec(mount)?.[1] ?? '') : mount.split(':')[0] ?? '';
      const info = ctx.path(src);
      if (src === '/' || has(info, 'root') || /^\/(etc|root|boot|usr|var\/lib|proc|sys)\/?$/.test(src)) {
        return { reason: `Mounting ${src} of the host into a container gives it root over the host; never do this from an agent.`, subject: mount };
      }
      if (/docker\.sock|podman\.sock|containerd\.sock/.test(src)) soft = { tier: 'soft_deny', reason: 'Mounting the container runtime socket gives the container control of the host; a person must confirm it.', subject: mount };
      else if (has(info, 'credentials', 'home-root')) soft = { tier: 'soft_deny', reason: `Mounting ${src} exposes the user's credentials or home to the container; a person must confirm it.`, subject: mount };
      continue;
    }
    if (w === '--privileged' || w === '--privileged=true' || /^--(pid|ipc|userns|uts|cgroupns)(=|$)/.test(w) && (w.endsWith('=host') || words[j + 1] === 'host') ||
        /^--cap-add(=|$)/.test(w) && /(ALL|SYS_ADMIN|SYS_PTRACE|SYS_MODULE|DAC_READ_SEARCH)/i.test(w.includes('=') ? w : words[j + 1] ?? '') ||
        /^--security-opt(=|$)/.test(w) && /unconfined/.test(w.includes('=') ? w : words[j + 1] ?? '') || /^--device(=|$)/.test(w)) {
      soft ??= { tier: 'soft_deny', reason: `\`${w}\` gives the container access to the host; a person must confirm it.`, subject: w };
    }
  }
  return soft;
}

// ---------------------------------------------------------------------------------------------------------
// Other infrastructure CLIs: read-only verbs allowed, destructive verbs soft.

const GENERIC_READ = /^(list|ls|lsd|lsl|get|describe|show|status|info|help|version|whoami|logs|log|inspect|validate|diff|tail|view|search|find|check|health|healthcheck|ping|stats|top|explain|cat|print|preview|plan|lint|history|events|verify|doctor|size|snapshots|dump|convert|diagnostic|metrics|stat|env|config|cluster_status|list_queues|report|list_exchanges|list_users|list_vhosts|list_connections|environment_variables|dev|head|du|lookup|browse|jobs|url|evaluate|query)$|^(get|list|describe|show)[-_:]/;
const GENERIC_DESTROY = /^(delete|del|rm|remove|destroy|purge|prune|drop|uninstall|reset|force_reset|force-reset|wipe|erase|clear|truncate|flush|kill|terminate|archive|unregister|deregister|forget|break-lock|cleanup|dedupe|deletefile|yank|rollback|undeploy|revoke|roll|compact|recreate|delete_vhost|forget_cluster_node|clean|unpublish|disconnect|reset-offsets)$|^(delete|remove|purge|destroy)[-_:]/;

interface GenericSpec {
  /** Extra verbs treated as destructive for this tool (rclone sync deletes at the destination). */
  destroy?: RegExp;
  /** Operand lists (joined by spaces) never allowed here: reads that return secrets. */
  noRead?: RegExp;
  /** Options after which the verb is an option rather than a word (kafka-topics --delete). */
  optionVerbs?: boolean;
  /** Extra verbs that only read for this tool (`nats sub`). */
  read?: RegExp;
  /**
   * Its read-only uses are judged by subcommand in dev.read-only (read-only-clis.ts), not by a read verb found
   * anywhere among the words: for the forges that test allowed `gh issue comment 5 --body show` and
   * `gh pr create --title list`, which publish.
   */
  readElsewhere?: boolean;
}

const GENERIC: Readonly<Record<string, GenericSpec>> = {
  wrangler: { destroy: /^(delete|rollback)$/ },
  fastly: { destroy: /^(activate)$/ },
  flyctl: { destroy: /^(destroy)$/ }, fly: { destroy: /^(destroy)$/ },
  vercel: {}, netlify: {}, heroku: { destroy: /^(apps:destroy|destroy|pg:reset|pg:kill|addons:destroy|ps:kill)$/ },
  doctl: {}, 'linode-cli': {}, hcloud: {}, scw: {}, oci: {}, ibmcloud: {}, aliyun: {}, 'vultr-cli': {},
  apigeecli: {}, deck: { destroy: /^(reset|sync)$/ }, kong: {}, borg: {}, rclone: { destroy: /^(sync|move|moveto|bisync)$/ },
  restic: { destroy: /^(unlock)$/ }, velero: {}, circleci: { destroy: /^(remove-secret)$/ }, 'gitlab-runner': {},
  glab: { readElsewhere: true }, gh: { readElsewhere: true }, promtool: {}, 'datadog-ci': {}, newrelic: {}, pd: {}, splunk: {}, stripe: {}, square: {},
  algolia: {}, flipt: {}, ldcli: {}, unleash: {}, nats: { read: /^(sub|subscribe)$/ }, rabbitmqadmin: {}, rabbitmqctl: {}, rpk: {},
  minikube: {}, kind: {}, k3d: {}, eksctl: {}, kops: {}, skaffold: {}, tilt: {}, argocd: {}, flux: {}, istioctl: {},
  linkerd: {}, consul: {}, nomad: {}, etcdctl: {}, mc: { destroy: /^(rb|mirror)$/ }, sentry: {}, 'sentry-cli': {},
  'kafka-topics': { optionVerbs: true }, 'kafka-consumer-groups': { optionVerbs: true }, 'kafka-configs': { optionVerbs: true },
  'kafka-acls': { optionVerbs: true }, 'kafka-delete-records': {}, 'kafka-console-consumer': {}, 'kafka-broker-api-versions': {},
  'grafana-cli': {}, stern: {}, k9s: {}, kubectx: {}, kubens: {}, ansible: {},
  vault: { noRead: /^(read|kv get|kv-get|get|token create|write|unwrap|print token)\b|^kv (get|metadata get)/ },
  doppler: { noRead: /^(secrets|run|configs tokens)\b/ },
  op: { noRead: /^(read|inject|run)\b|^(item|document|connect token|service-account) (get|create)\b/ },
  azcopy: { destroy: /^(remove|rm|sync)$/ },
  nginx: {}, haproxy: {}, traefik: {}, caddy: {},
};

/** `java -jar jenkins-cli.jar … delete-job x`: the Jenkins CLI's destructive commands. */
function jenkins(cmd: SimpleCommand): InfraVerdict | null {
  const words = values(cmd.argv.slice(1));
  const j = words.indexOf('-jar');
  if (programName(cmd) === 'java' && (j < 0 || !/jenkins-cli[^/]*\.jar$/.test(words[j + 1] ?? ''))) return null;
  const verb = words.find((w) => /^(delete|disconnect|remove|clear|safe-restart|restart|shutdown|safe-shutdown|offline|uninstall|quiet-down|reload)(-|$)/.test(w));
  if (verb) return soft('infra.cli-destructive', `Jenkins \`${verb}\` deletes or stops things on the Jenkins server; a person must confirm it.`);
  // The Jenkins CLI's command is the first word after the jar and its options (`-s URL`, `-auth`, `-i key`…).
  const rest = j >= 0 ? words.slice(j + 2) : words;
  let command: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (/^-(s|auth|i|p|user|bearer|logger|strictHostKey)$/.test(w)) { i++; continue; }
    if (w.startsWith('-')) continue;
    command = w;
    break;
  }
  // Reading jobs, nodes and views changes nothing; get-credentials-* hands out secrets and stays with a person.
  if (command !== undefined && /^(list-[a-z-]+|get-(job|node|view|gradle)|who-am-i|version|help|session-id)$/.test(command)) return ok();
  return null;
}

function generic(cmd: SimpleCommand): InfraVerdict | null {
  const name = programName(cmd);
  if (name === null) return null;
  if (name === 'java' || name === 'jenkins-cli') return jenkins(cmd);
  const spec = GENERIC[name];
  if (!spec) return null;
  const words = values(cmd.argv.slice(1));
  if (name === 'kafka-delete-records') return soft('infra.cli-destructive', '`kafka-delete-records` deletes messages from topics; a person must confirm it.');
  if (name === 'nginx' || name === 'haproxy') {
    const s = words.indexOf('-s');
    if (s >= 0) return words[s + 1] === 'stop' || words[s + 1] === 'quit' ? soft('infra.cli-destructive', `\`${name} -s ${words[s + 1]}\` stops the server; a person must confirm it.`) : ok();
    if (words.some((w) => /^-(sf|st)$/.test(w))) return soft('infra.cli-destructive', `\`${name}\` with -sf/-st replaces the running server; a person must confirm it.`);
    return words.length > 0 && words.every((w) => /^-(t|T|v|V|vv|c|q|f|h)$/.test(w) || !w.startsWith('-')) ? ok('Checks or prints the server configuration.') : null;
  }
  if (spec.optionVerbs) {
    if (words.some((w) => /^--(delete|alter|remove|reset-offsets|add|create)$/.test(w))) return soft('infra.cli-destructive', `\`${name}\` with ${words.find((w) => /^--(delete|alter|remove|reset-offsets|add|create)$/.test(w))} changes the cluster; a person must confirm it.`);
    return words.some((w) => /^--(list|describe|version|help)$/.test(w)) ? ok() : null;
  }
  if (name === 'kafka-console-consumer' || name === 'kafka-broker-api-versions') return ok();
  const ops = words.filter((w) => !w.startsWith('-')).map((w) => w.toLowerCase());
  const dryRun = words.some((w) => w === '--dry-run' || w === '--dry-run=true' || (w === '-n' && name === 'rclone'));
  // A destructive verb anywhere wins over a read verb before it (`fastly service version activate`).
  const d = ops.findIndex((v) => (spec.destroy !== undefined && spec.destroy.test(v)) || GENERIC_DESTROY.test(v));
  if (d >= 0) {
    if (dryRun) return ok('A dry run changes nothing.');
    return soft('infra.cli-destructive', `\`${name} ${ops.slice(0, d + 1).join(' ')}\` deletes or resets live resources; a person must confirm it.`);
  }
  // `circleci local execute` runs the project's own CI job in a local container, like its build tooling.
  if (name === 'circleci' && ops[0] === 'local' && ops[1] === 'execute') return ok('Runs the project\'s CI job locally in a container.');
  if (spec.readElsewhere) return null;
  if (ops.some((v) => GENERIC_READ.test(v) || (spec.read !== undefined && spec.read.test(v)))) {
    if (spec.noRead && spec.noRead.test(ops.join(' '))) return null;
    return ok();
  }
  if (ops.length === 0 && words.some((w) => /^(--version|-v|--help|-h|version|help)$/.test(w))) return ok();
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Deployments

const DEPLOYERS = ['vercel', 'netlify', 'fly', 'flyctl', 'firebase', 'wrangler', 'serverless', 'sls', 'cdk', 'sam', 'amplify', 'eb', 'heroku', 'railway', 'kamal', 'cap', 'ansible-playbook', 'gcloud', 'az', 'fastly', 'surge', 'now', 'dokku', 'copilot', 'sst', 'zappa', 'chalice'] as const;

function deploy(cmd: SimpleCommand): InfraVerdict | null {
  const name = programName(cmd);
  const words = values(cmd.argv.slice(1));
  const ops = words.filter((w) => !w.startsWith('-'));
  const [a, b] = ops;
  const d = (what: string): InfraVerdict => soft('infra.deploy', `\`${what}\` deploys to a live environment; a person must confirm it.`);
  switch (name) {
    case 'vercel':
    case 'now':
      return a === undefined && words.every((w) => !/^--(version|help)$/.test(w)) || a === 'deploy' || a === 'promote' || a === 'rollback' || a === 'remove' || a === 'rm' ? d(`${name} ${a ?? ''}`.trim()) : null;
    case 'netlify':
      return a === 'deploy' && !words.includes('--dry-run') ? d('netlify deploy') : null;
    case 'fly':
    case 'flyctl':
      return a === 'deploy' || a === 'launch' || (a === 'scale' && b !== 'show') || a === 'secrets' && (b === 'set' || b === 'unset') ? d(`${name} ${a}`) : null;
    case 'firebase':
      return a === 'deploy' || a === 'hosting:disable' || a?.endsWith(':delete') ? d(`firebase ${a}`) : null;
    case 'wrangler':
      return a === 'deploy' || a === 'publish' || (a === 'versions' && b === 'deploy') || (a === 'pages' && b === 'deploy') || (a === 'secret' && (b === 'put' || b === 'delete')) ? d(`wrangler ${a}`) : null;
    case 'serverless':
    case 'sls':
      return a === 'deploy' || a === 'remove' || a === 'rollback' ? d(`${name} ${a}`) : null;
    case 'cdk':
      return a === 'deploy' || a === 'destroy' || a === 'bootstrap' ? (a === 'destroy' && (words.includes('--force') || words.includes('-f')) ? { rule: 'infra.deploy', tier: 'hard_deny', reason: '`cdk destroy --force` deletes the stacks without confirmation; never do this from an agent.' } : d(`cdk ${a}`)) : null;
    case 'sam':
      return a === 'deploy' || a === 'delete' || a === 'sync' ? d(`sam ${a}`) : null;
    case 'amplify':
      return a === 'publish' || a === 'push' || a === 'delete' ? d(`amplify ${a}`) : null;
    case 'eb':
      return a === 'deploy' || a === 'terminate' || a === 'create' || a === 'swap' || a === 'scale' ? d(`eb ${a}`) : null;
    case 'heroku':
      return a !== undefined && /^(container:(push|release)|releases:rollback|ps:(scale|restart|stop)|config:(set|unset)|maintenance:on|deploy.*)$/.test(a) ? d(`heroku ${a}`) : null;
    case 'railway':
      return a === 'up' || a === 'deploy' || a === 'redeploy' || a === 'down' ? d(`railway ${a}`) : null;
    case 'kamal':
    case 'cap':
    case 'dokku':
      return a !== undefined && /deploy|rollback|remove|destroy|setup|^(production|staging)$/.test(a) ? d(`${name} ${ops.slice(0, 2).join(' ')}`) : null;
    case 'ansible-playbook':
      return words.includes('--check') || words.includes('-C') || words.includes('--syntax-check') || words.includes('--list-hosts') || words.includes('--list-tasks') ? null : d('ansible-playbook');
    case 'gcloud':
      return (a === 'app' && b === 'deploy') || (ops.includes('deploy') && (a === 'run' || a === 'functions')) ? d(`gcloud ${ops.slice(0, 3).join(' ')}`) : null;
    case 'az':
      return ops.some((o) => o === 'deploy' || o === 'up') && (a === 'webapp' || a === 'functionapp' || a === 'deployment' || a === 'containerapp' || a === 'staticwebapp') ? d(`az ${ops.slice(0, 3).join(' ')}`) : null;
    case 'fastly':
      return a === 'compute' && (b === 'deploy' || b === 'publish') ? d('fastly compute deploy') : null;
    case 'surge':
    case 'copilot':
    case 'sst':
    case 'zappa':
    case 'chalice':
      return a === undefined && name === 'surge' || a === 'deploy' || a === 'remove' || a === 'update' || a === 'delete' || a === 'undeploy' ? d(`${name} ${a ?? ''}`.trim()) : null;
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------------

const DISPATCH: Readonly<Record<string, (cmd: SimpleCommand) => InfraVerdict | null>> = {
  terraform, tofu: terraform, terragrunt: terraform, opentofu: terraform,
  pulumi,
  kubectl, oc: kubectl, kubecolor: kubectl,
  helm,
  aws,
  gcloud, gsutil: gcloud,
  az,
  docker, podman: docker, nerdctl: docker, 'docker-compose': docker, 'podman-compose': docker,
};

function verdict(cmd: SimpleCommand): InfraVerdict | null {
  if (cache.has(cmd)) return cache.get(cmd) ?? null;
  const name = programName(cmd);
  const f = name === null ? undefined : DISPATCH[name];
  const v = f ? f(cmd) : generic(cmd);
  cache.set(cmd, v);
  return v;
}

const TF = ['terraform', 'tofu', 'terragrunt', 'opentofu'] as const;
const KUBE = ['kubectl', 'oc', 'kubecolor'] as const;
const DOCKERS = ['docker', 'podman', 'nerdctl', 'docker-compose', 'podman-compose'] as const;

export const rules: Rule[] = [
  // Soft (hard for unconfirmed destroy): terraform changes real infrastructure; plan is the agent's job, apply a person's.
  defineShellRule({
    id: 'infra.terraform',
    tier: 'hard_deny',
    programs: TF,
    reason: 'This changes real infrastructure or its state; run `terraform plan` and let a person apply.',
    examples: {
      match: ['terraform apply', 'terraform apply -auto-approve', 'terraform destroy -auto-approve', 'tofu destroy', 'terraform state rm aws_instance.x', 'terraform import aws_s3_bucket.b b', 'terragrunt run-all apply', 'terraform -chdir=infra apply', 'terraform apply -destroy -auto-approve', 'terraform destroy -target=cloudflare_record.main'],
      notMatch: ['terraform plan', 'terraform validate', 'terraform fmt -recursive', 'terraform init', 'terraform state list', 'terraform output -json'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.terraform'),
  }),
  // Soft (hard for destroy --yes): as for terraform, preview is the agent's job and apply a person's.
  defineShellRule({
    id: 'infra.pulumi',
    tier: 'hard_deny',
    programs: ['pulumi'],
    reason: 'This changes real infrastructure; run `pulumi preview` and let a person apply.',
    examples: {
      match: ['pulumi up', 'pulumi up --yes', 'pulumi destroy', 'pulumi destroy --yes', 'pulumi refresh -y', 'pulumi stack rm dev', 'pulumi state delete urn'],
      notMatch: ['pulumi preview', 'pulumi stack ls', 'pulumi whoami', 'pulumi config get x'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.pulumi'),
  }),
  // Soft (hard for cluster-wide deletes): live clusters serve users; deleting a namespace removes everything in it.
  defineShellRule({
    id: 'infra.kubectl',
    tier: 'hard_deny',
    programs: KUBE,
    reason: 'This changes or reaches into a live Kubernetes cluster; a person must confirm it.',
    examples: {
      match: ['kubectl apply -f deploy.yaml', 'kubectl delete pod web-1', 'kubectl delete namespace prod', 'kubectl delete pods --all', 'kubectl -n prod scale deploy web --replicas=0', 'kubectl rollout restart deploy/web', 'kubectl exec -it web -- sh', 'kubectl drain node-1', 'kubectl delete ns/staging', 'oc delete project x', 'kubectl --context prod delete deploy x'],
      notMatch: ['kubectl get pods -A', 'kubectl describe pod web-1', 'kubectl logs -f web-1', 'kubectl rollout status deploy/web', 'kubectl config get-contexts', 'kubectl diff -f x.yaml'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.kubectl'),
  }),
  // Soft: a release upgrade or uninstall changes what runs in a live cluster.
  defineShellRule({
    id: 'infra.helm',
    tier: 'soft_deny',
    programs: ['helm'],
    reason: 'This changes a release running in a cluster; a person must confirm it.',
    examples: {
      match: ['helm install web ./chart', 'helm upgrade --install web ./chart -n prod', 'helm uninstall web', 'helm rollback web 3', 'helm delete web', 'helm plugin install https://x.example/p'],
      notMatch: ['helm list -A', 'helm template ./chart', 'helm lint ./chart', 'helm status web', 'helm repo update', 'helm upgrade web ./chart --dry-run'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.helm'),
  }),
  // Soft (hard for unrecoverable deletes and switching off audit trails): cloud resources are shared and billed.
  defineShellRule({
    id: 'infra.aws',
    tier: 'hard_deny',
    programs: ['aws'],
    reason: 'This changes or deletes AWS resources; a person must confirm it.',
    examples: {
      match: ['aws ec2 terminate-instances --instance-ids i-1', 'aws s3 rm s3://bucket/key', 'aws s3 rb s3://bucket --force', 'aws s3 rm s3://bucket --recursive', 'aws s3 sync . s3://bucket --delete', 'aws iam attach-user-policy --user-name x --policy-arn arn:aws:iam::aws:policy/AdministratorAccess', 'aws --profile prod rds delete-db-instance --db-instance-identifier db --skip-final-snapshot', 'aws lambda update-function-code --function-name f --zip-file fileb://f.zip', 'aws cloudtrail stop-logging --name t', 'aws s3 cp secrets.tar s3://other-bucket/'],
      notMatch: ['aws s3 ls', 'aws ec2 describe-instances', 'aws sts get-caller-identity', 'aws --region us-west-2 elbv2 describe-target-health --target-group-arn x', 'aws s3 cp s3://bucket/file .', 'aws logs tail /aws/lambda/f'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.aws'),
  }),
  // Soft (hard for deleting a project or a whole bucket): cloud resources are shared, billed and often irreplaceable.
  defineShellRule({
    id: 'infra.gcloud',
    tier: 'hard_deny',
    programs: ['gcloud', 'gsutil'],
    reason: 'This changes or deletes Google Cloud resources; a person must confirm it.',
    examples: {
      match: ['gcloud compute instances delete vm-1', 'gcloud projects delete my-proj', 'gsutil rm -r gs://bucket', 'gsutil rb gs://bucket', 'gcloud sql instances delete db', 'gcloud apigee apis delete my-api --organization=o', 'gcloud storage rm -r gs://bucket/'],
      notMatch: ['gcloud compute instances list', 'gcloud config list', 'gsutil ls gs://bucket', 'gcloud apigee apis describe my-api', 'gcloud projects describe p'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.gcloud'),
  }),
  // Soft (hard for deleting a resource group or purging): as for gcloud.
  defineShellRule({
    id: 'infra.az',
    tier: 'hard_deny',
    programs: ['az'],
    reason: 'This changes or deletes Azure resources; a person must confirm it.',
    examples: {
      match: ['az group delete --name rg --yes', 'az vm delete -g rg -n vm', 'az acr repository delete --name r --image x:1', 'az keyvault purge --name kv', 'az storage blob delete-batch -s c --account-name a', 'az vm create -g rg -n vm --image Ubuntu2204'],
      notMatch: ['az vm list', 'az account show', 'az group show -n rg', 'az version'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.az'),
  }),
  // Soft: pruning and forced removal delete containers, images and volumes that may not be the agent's own.
  defineShellRule({
    id: 'infra.docker',
    tier: 'soft_deny',
    programs: DOCKERS,
    reason: 'This deletes containers, images or volumes beyond the ones you created; remove the specific ones instead.',
    examples: {
      match: ['docker system prune -af', 'docker volume prune', 'docker volume rm pgdata', 'docker rm -f web', 'docker rmi -f app:latest', 'docker compose down -v', 'docker-compose down --volumes', 'podman image prune -a', 'docker network rm n'],
      notMatch: ['docker ps -a', 'docker rm web', 'docker rmi app:old', 'docker compose down', 'docker build -t app .', 'docker logs web'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.docker'),
  }),
  // Hard for mounting the host's root into a container (root on the host); soft for privileges and host namespaces.
  defineShellRule({
    id: 'infra.docker-privileged',
    tier: 'hard_deny',
    programs: ['docker', 'podman', 'nerdctl'],
    reason: 'This container gets access to the host itself; a person must confirm it.',
    examples: {
      match: ['docker run -v /:/host -it alpine chroot /host sh', 'docker run --rm -v /etc:/mnt alpine ls', 'docker run --privileged -it ubuntu', 'docker run -v /var/run/docker.sock:/var/run/docker.sock x', 'docker run --pid=host x', 'podman run --cap-add=SYS_ADMIN x'],
      notMatch: ['docker run --rm node:20 node -v', 'docker run -v "$PWD":/app -w /app node:20 npm test', 'docker ps'],
    },
    match: (cmd, ctx) => dockerPrivileged(cmd, ctx),
  }),
  // Soft: deploys reach users at once.
  defineShellRule({
    id: 'infra.deploy',
    tier: 'hard_deny',
    programs: DEPLOYERS,
    reason: 'This deploys to a live environment; a person must confirm it.',
    examples: {
      match: ['vercel --prod', 'netlify deploy --prod', 'fly deploy', 'firebase deploy', 'wrangler deploy', 'serverless deploy', 'cdk deploy', 'sam deploy', 'gcloud app deploy', 'ansible-playbook site.yml'],
      notMatch: ['vercel --version', 'netlify deploy --dry-run', 'cdk synth', 'wrangler dev', 'ansible-playbook site.yml --check'],
    },
    match: (cmd) => {
      const d = deploy(cmd);
      return d ? { tier: d.tier, reason: d.reason } : null;
    },
  }),
  // Soft: destructive verbs of other infrastructure CLIs (feature flags, queues, CDNs, backups, secret stores).
  defineShellRule({
    id: 'infra.cli-destructive',
    tier: 'soft_deny',
    programs: [...Object.keys(GENERIC), 'java', 'jenkins-cli'],
    reason: 'This deletes or resets live resources through an infrastructure CLI; a person must confirm it.',
    examples: {
      match: ['wrangler d1 delete my-db', 'java -jar jenkins-cli.jar -s http://j/ delete-job x', 'fastly service version activate --version 5', 'rclone purge remote:bucket', 'restic forget --keep-last 3 --prune', 'nats stream purge ORDERS', 'kafka-topics --bootstrap-server localhost:9092 --delete --topic x', 'rabbitmqctl reset', 'vault kv delete secret/x', 'op item delete "DB"', 'velero backup delete nightly', 'rclone sync src: dest:'],
      notMatch: ['wrangler whoami', 'rclone ls remote:bucket', 'restic snapshots', 'rclone sync src: dest: --dry-run', 'nats stream ls', 'java -jar app.jar delete-job', 'java -jar jenkins-cli.jar -s http://j/ list-jobs'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.cli-destructive'),
  }),
  // Allow: looking at infrastructure changes nothing.
  defineShellRule({
    id: 'infra.readonly',
    tier: 'allow',
    programs: [...TF, 'pulumi', ...KUBE, 'helm', 'aws', 'gcloud', 'gsutil', 'az', ...DOCKERS, ...Object.keys(GENERIC), 'java', 'jenkins-cli'],
    reason: 'Read-only inspection of infrastructure.',
    examples: {
      match: ['terraform plan', 'kubectl get pods', 'helm list', 'aws ec2 describe-instances', 'aws s3 ls s3://bucket', 'gcloud compute instances list', 'az vm list', 'docker ps', 'docker build -t app .', 'wrangler whoami', 'fastly service list', 'kafka-topics --bootstrap-server x:9092 --list', 'nginx -t'],
      notMatch: ['terraform apply', 'kubectl delete pod x', 'aws secretsmanager get-secret-value --secret-id x', 'vault kv get secret/x', 'gcloud secrets versions access latest --secret x', 'docker system prune'],
    },
    match: (cmd) => hit(verdict(cmd), 'infra.readonly'),
  }),
];
