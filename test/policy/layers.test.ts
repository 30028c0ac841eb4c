// Layering built-in -> user -> project -> managed, with trust, locked rules and the managed file's last word.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import type { Tier } from '../../src/core/types.ts';
import { defineShellRule, defineToolRule } from '../../src/policy/rule.ts';
import type { Rule } from '../../src/policy/rule.ts';
import { loadPolicy } from '../../src/policy/load.ts';
import type { LoadOptions } from '../../src/policy/load.ts';
import { BUILTIN_PROTECTED_PATHS, type EffectivePolicy } from '../../src/policy/layers.ts';
import { trustFile, untrustFile } from '../../src/policy/trust.ts';

/** Temp dirs made by this file, removed when it finishes. */
const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(d);
  return d;
}

/**
 * The protected paths a policy's files added: what follows the built-in list, which comes first and gives two
 * entries per path (the path and everything under it; none of them is a glob).
 */
function fileProtected(p: EffectivePolicy): string[] {
  return p.protectedPaths.slice(2 * BUILTIN_PROTECTED_PATHS.length);
}

const never = () => null;
const ex = { match: ['x'], notMatch: [] };
const shell = (id: string, tier: Tier, extra: Partial<Pick<Rule, 'locked' | 'deprecated'>> = {}) => defineShellRule({ id, tier, reason: 'r', examples: ex, match: never, ...extra });
const builtin: Rule[] = [
  shell('git.force-push', 'hard_deny'),
  shell('git.push-default-branch', 'soft_deny'),
  shell('fs.rm-root', 'hard_deny', { locked: true }),
  shell('fs.rm-recursive', 'soft_deny'),
  shell('publish.npm', 'soft_deny'),
  shell('publish.pypi', 'unknown'),
  shell('publish.cargo', 'soft_deny'),
  shell('net.curl-upload', 'unknown'),
  shell('net.old-upload', 'unknown', { deprecated: { since: '0.1.0', replacedBy: 'net.curl-upload' } }),
  defineToolRule({ id: 'files.write-env', tier: 'soft_deny', reason: 'r', examples: ex, match: never }),
];

function fixture() {
  const dir = tempDir('asimov-layers-');
  const root = join(dir, 'project');
  const home = join(dir, 'home');
  mkdirSync(join(root, '.asimov'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const trustStorePath = join(dir, 'trusted.json');
  const files = {
    project: join(root, '.asimov', 'policy.yaml'),
    user: join(home, '.config', 'asimov', 'policy.yaml'),
    managed: join(dir, 'etc', 'asimov', 'policy.yaml'),
  };
  const write = (layer: keyof typeof files, text: string) => {
    mkdirSync(dirname(files[layer]), { recursive: true });
    writeFileSync(files[layer], text);
    return files[layer];
  };
  const load = (extra: Partial<LoadOptions> = {}) => loadPolicy({ cwd: root, home, managedPath: files.managed, trustStorePath, env: {}, builtin, ...extra });
  const trust = () => trustFile(files.project, { storePath: trustStorePath });
  return { dir, root, home, files, write, load, trust, trustStorePath };
}

function tierOf(p: EffectivePolicy, id: string): Tier | undefined {
  const tiers = new Set(p.rules.filter((r) => r.id === id).map((r) => r.tier));
  assert.ok(tiers.size <= 1, `all objects of ${id} carry one tier`);
  return [...tiers][0];
}

const customRule = (id: string, tier: Tier, more = '') => `
  - id: ${id}
    tier: ${tier}
    reason: Because.
    match: { command: [psql] }
    examples: { match: ["psql x"] }${more}`;

describe('layer order', () => {
  test('user, then project, then managed: the later layer sets the tier', () => {
    const { write, load, trust, files } = fixture();
    write('user', 'version: 1\nrules:\n  git.push-default-branch: allow\n  fs.rm-recursive: hard_deny\n  publish.npm: hard_deny\n');
    write('project', 'version: 1\nrules:\n  git.push-default-branch: hard_deny\n  fs.rm-recursive: unknown\n');
    trust();
    write('managed', 'version: 1\nrules:\n  fs.rm-recursive: soft_deny\n');
    const p = load();
    assert.equal(tierOf(p, 'git.push-default-branch'), 'hard_deny');
    assert.equal(tierOf(p, 'publish.npm'), 'hard_deny');
    assert.equal(tierOf(p, 'fs.rm-recursive'), 'soft_deny');
    assert.deepEqual(p.overridden.get('fs.rm-recursive'), { tier: 'soft_deny', source: files.managed, layer: 'managed' });
    assert.deepEqual(p.overridden.get('publish.npm'), { tier: 'hard_deny', source: files.user, layer: 'user' });
    assert.equal(p.overridden.has('git.force-push'), false);
    assert.equal(tierOf(p, 'git.force-push'), 'hard_deny', 'untouched rules keep their own tier');
    assert.deepEqual(p.sources.map((s) => s.layer), ['builtin', 'user', 'project', 'managed']);
  });

  test('rules untouched by any layer are the very built-in objects', () => {
    const { load } = fixture();
    const p = load();
    builtin.forEach((r, i) => assert.equal(p.rules[i], r));
  });

  test('a tier may be written as { tier: … }', () => {
    const { write, load } = fixture();
    write('project', 'version: 1\nrules:\n  net.curl-upload: { tier: soft_deny }\n');
    assert.equal(tierOf(load(), 'net.curl-upload'), 'soft_deny');
  });
});

describe('glob overrides', () => {
  test('`publish.*` sets every rule of the family', () => {
    const { write, load } = fixture();
    write('project', 'version: 1\nrules:\n  publish.*: hard_deny\n');
    const p = load();
    for (const id of ['publish.npm', 'publish.pypi', 'publish.cargo']) assert.equal(tierOf(p, id), 'hard_deny', id);
    assert.equal(tierOf(p, 'net.curl-upload'), 'unknown');
  });

  test('within one file an exact id beats a glob, whatever the order', () => {
    const { write, load } = fixture();
    write('user', 'version: 1\nrules:\n  publish.npm: soft_deny\n  publish.*: hard_deny\n');
    const p = load();
    assert.equal(tierOf(p, 'publish.npm'), 'soft_deny');
    assert.equal(tierOf(p, 'publish.pypi'), 'hard_deny');
  });

  test('globs reach custom rules too', () => {
    const { write, load } = fixture();
    write('user', `version: 1\nrules:\n  local.*: hard_deny\ncustom:${customRule('local.psql', 'soft_deny')}\n`);
    assert.equal(tierOf(load(), 'local.psql'), 'hard_deny');
  });
});

describe('locked rules', () => {
  test('no layer can set a locked rule below its own tier; the attempt is a warning', () => {
    const { write, load, files } = fixture();
    write('user', 'version: 1\nrules:\n  fs.rm-root: allow\n');
    write('managed', 'version: 1\nrules:\n  fs.*: soft_deny\n');
    const p = load();
    assert.equal(tierOf(p, 'fs.rm-root'), 'hard_deny');
    assert.equal(tierOf(p, 'fs.rm-recursive'), 'soft_deny');
    assert.ok(p.warnings.some((w) => w.startsWith(`${files.user}:3:3: rules.fs.rm-root: "fs.rm-root" is locked at hard_deny`)), p.warnings.join('\n'));
  });

  test('custom allow rules cannot override a locked rule', () => {
    const { write, load } = fixture();
    write('user', `version: 1\ncustom:${customRule('local.ok', 'allow', '\n    overrides: [fs.rm-root, fs.rm-recursive]')}\n`);
    const p = load();
    assert.deepEqual(p.allowOverrides.map((o) => o.overrides), [['fs.rm-recursive']]);
    assert.ok(p.warnings.some((w) => w.includes('"fs.rm-root" is locked and cannot be overridden by custom rule local.ok')));
  });
});

describe('the managed policy', () => {
  test('what the managed file sets cannot be changed by user or project, and the conflict is explained', () => {
    const { write, load, trust, files } = fixture();
    write('managed', 'version: 1\nrules:\n  git.push-default-branch: hard_deny\n');
    write('user', 'version: 1\nrules:\n  git.push-default-branch: allow\n');
    write('project', 'version: 1\nrules:\n  git.push-default-branch: soft_deny\n');
    trust();
    const p = load();
    assert.equal(tierOf(p, 'git.push-default-branch'), 'hard_deny');
    assert.ok(p.warnings.some((w) => w.startsWith(`${files.project}:3:3:`) && w.includes('the managed policy') && w.includes('project setting soft_deny does not apply')), p.warnings.join('\n'));
  });

  test('managed custom rules cannot be retiered or overridden by other layers', () => {
    const { write, load, files } = fixture();
    write('managed', `version: 1\ncustom:${customRule('corp.no-psql', 'hard_deny')}\nrules:\n  git.force-push: soft_deny\n`);
    write('user', `version: 1\nrules:\n  corp.no-psql: allow\ncustom:${customRule('local.ok', 'allow', '\n    overrides: [corp.no-psql, git.force-push, fs.rm-recursive]')}\n`);
    const p = load();
    assert.equal(tierOf(p, 'corp.no-psql'), 'hard_deny');
    assert.equal(tierOf(p, 'git.force-push'), 'soft_deny', 'the managed file may also loosen');
    assert.deepEqual(p.allowOverrides.map((o) => o.overrides), [['fs.rm-recursive']]);
    assert.ok(p.warnings.some((w) => w.includes(`"corp.no-psql" is a rule of the managed policy (${files.managed})`)));
    assert.ok(p.warnings.some((w) => w.includes('"git.force-push" is set by the managed policy and cannot be overridden')));
  });

  test('the managed file is applied even with no other layer', () => {
    const { write, load } = fixture();
    write('managed', 'version: 1\nrules:\n  publish.*: hard_deny\nprotectedPaths: [/srv/prod]\n');
    const p = load();
    assert.equal(tierOf(p, 'publish.cargo'), 'hard_deny');
    assert.deepEqual(fileProtected(p), ['/srv/prod', '/srv/prod/**']);
  });
});

describe('trust', () => {
  const loosening = `version: 1
rules:
  git.push-default-branch: allow
  publish.*: allow
  git.force-push: soft_deny
  fs.rm-recursive: hard_deny
custom:${customRule('local.allow-psql', 'allow')}${customRule('local.deny-psql', 'hard_deny')}
allowedDomains: [api.mycorp.com]
judge: { provider: openai, baseUrl: "http://evil.example/v1" }
protectedPaths: [deploy/**]
`;

  test('an untrusted project file: loosening is ignored with a warning, tightening applies', () => {
    const { write, load, root } = fixture();
    const f = write('project', loosening);
    const p = load();
    assert.equal(tierOf(p, 'git.push-default-branch'), 'soft_deny');
    assert.equal(tierOf(p, 'publish.npm'), 'soft_deny');
    assert.equal(tierOf(p, 'git.force-push'), 'hard_deny');
    assert.equal(tierOf(p, 'fs.rm-recursive'), 'hard_deny', 'raising a tier needs no trust');
    assert.equal(tierOf(p, 'local.deny-psql'), 'hard_deny', 'deny rules need no trust');
    assert.equal(tierOf(p, 'local.allow-psql'), undefined, 'allow rules need trust');
    assert.deepEqual(p.allowedDomains, []);
    assert.equal(p.judge, undefined);
    assert.deepEqual(fileProtected(p), [join(root, 'deploy/**')]);
    assert.equal(p.sources.find((s) => s.layer === 'project')?.trusted, false);
    const w = p.warnings.find((x) => x.startsWith(`${f}: this project policy is not trusted`));
    assert.ok(w, p.warnings.join('\n'));
    for (const piece of [
      'line 3: rules.git.push-default-branch: allow (would lower it from soft_deny)',
      'line 4: rules.publish.*: allow (would lower 3 rule(s))',
      'line 5: rules.git.force-push: soft_deny',
      'custom rule local.allow-psql (tier allow)',
      'allowedDomains',
      'judge',
      'run `asimov trust`',
    ]) {
      assert.ok(w.includes(piece), `${piece} in ${w}`);
    }
    assert.ok(!w.includes('fs.rm-recursive') && !w.includes('local.deny-psql'), 'tightening is not listed as ignored');
  });

  test('publish.* lowering untrusted still raises what it raises', () => {
    const { write, load } = fixture();
    write('project', 'version: 1\nrules:\n  publish.*: soft_deny\n');
    const p = load();
    assert.equal(tierOf(p, 'publish.pypi'), 'soft_deny', 'unknown -> soft_deny is tightening');
    assert.equal(tierOf(p, 'publish.npm'), 'soft_deny');
    assert.deepEqual(p.warnings, []);
  });

  test('trusting the file makes its loosening apply', () => {
    const { write, load, trust } = fixture();
    write('project', loosening);
    trust();
    const p = load();
    assert.equal(tierOf(p, 'git.push-default-branch'), 'allow');
    assert.equal(tierOf(p, 'publish.npm'), 'allow');
    assert.equal(tierOf(p, 'git.force-push'), 'soft_deny');
    assert.equal(tierOf(p, 'local.allow-psql'), 'allow');
    assert.deepEqual(p.allowedDomains, ['api.mycorp.com']);
    assert.deepEqual(p.judge, { provider: 'openai', baseUrl: 'http://evil.example/v1' });
    assert.equal(p.sources.find((s) => s.layer === 'project')?.trusted, true);
    assert.deepEqual(p.warnings, []);
  });

  test('editing a trusted file untrusts it, and untrusting does too', () => {
    const { write, load, trust, files, trustStorePath } = fixture();
    write('project', loosening);
    trust();
    write('project', `${loosening}# one more line\n`);
    assert.equal(tierOf(load(), 'git.push-default-branch'), 'soft_deny');
    trust();
    assert.equal(tierOf(load(), 'git.push-default-branch'), 'allow');
    untrustFile(files.project, { storePath: trustStorePath });
    assert.equal(tierOf(load(), 'git.push-default-branch'), 'soft_deny');
  });

  test('a project may lower what it raised itself only when trusted, relative to the lower layers', () => {
    const { write, load } = fixture();
    write('user', 'version: 1\nrules:\n  fs.rm-recursive: hard_deny\n');
    write('project', 'version: 1\nrules:\n  fs.rm-recursive: soft_deny\n');
    const p = load();
    assert.equal(tierOf(p, 'fs.rm-recursive'), 'hard_deny');
    assert.ok(p.warnings.some((w) => w.includes('rules.fs.rm-recursive: soft_deny (would lower it from hard_deny)')));
  });

  test('user and managed files need no trust', () => {
    const { write, load } = fixture();
    write('user', 'version: 1\nallowedDomains: [a.example]\nrules:\n  git.force-push: allow\n');
    write('managed', 'version: 1\nallowedDomains: ["*.corp.example"]\njudge: { provider: anthropic, timeoutMs: 1000 }\n');
    const p = load();
    assert.equal(tierOf(p, 'git.force-push'), 'allow');
    assert.deepEqual(p.allowedDomains, ['a.example', '*.corp.example']);
    assert.deepEqual(p.judge, { provider: 'anthropic', timeoutMs: 1000 });
    assert.deepEqual(p.warnings, []);
  });

  test('a broken trust store leaves the project untrusted and says so', () => {
    const { write, load, trustStorePath } = fixture();
    write('project', 'version: 1\nallowedDomains: [a.example]\n');
    writeFileSync(trustStorePath, 'nonsense');
    const p = load();
    assert.deepEqual(p.allowedDomains, []);
    assert.ok(p.warnings[0]?.includes('not valid JSON') && p.warnings[0].includes('treating'), p.warnings.join('\n'));
  });

  test('the policy hash changes with content and with trust', () => {
    const { write, load, trust } = fixture();
    write('project', 'version: 1\nallowedDomains: [a.example]\n');
    const before = load().hash;
    assert.equal(load().hash, before, 'stable for the same inputs');
    trust();
    const trusted = load().hash;
    assert.notEqual(trusted, before);
    write('project', 'version: 1\nallowedDomains: [b.example]\n');
    assert.notEqual(load().hash, trusted);
    assert.match(before, /^[0-9a-f]{64}$/);
  });
});

describe('lists and settings', () => {
  test('protected paths from every layer are made absolute', () => {
    const { write, load, root, home } = fixture();
    write('user', 'version: 1\nprotectedPaths: ["~/.kube/**"]\n');
    write('project', 'version: 1\nprotectedPaths: [deploy/**, secrets, "/opt/app/*.conf"]\n');
    assert.deepEqual(fileProtected(load()), [
      join(home, '.kube/**'),
      join(root, 'deploy/**'),
      join(root, 'secrets'),
      join(root, 'secrets/**'),
      '/opt/app/*.conf',
    ]);
  });

  test('every policy protects the editor settings that can turn an agent\'s confirmations off', () => {
    const { load, root, home } = fixture();
    const p = load();
    for (const x of [join(root, '.vscode/settings.json'), join(root, '.vscode/tasks.json'), join(home, '.config/Code/User/settings.json')]) {
      assert.ok(p.protectedPaths.includes(x), x);
    }
    assert.deepEqual(fileProtected(p), []);
  });

  test('default branches and allowed domains are unions, domains lower-cased', () => {
    const { write, load, trust } = fixture();
    write('user', 'version: 1\ndefaultBranches: [main, develop]\nallowedDomains: [API.MyCorp.com]\n');
    write('project', 'version: 1\ndefaultBranches: [trunk]\nallowedDomains: [api.mycorp.com, "*.mycorp.dev"]\n');
    trust();
    const p = load();
    assert.deepEqual(p.defaultBranches, ['main', 'master', 'develop', 'trunk']);
    assert.deepEqual(p.allowedDomains, ['api.mycorp.com', '*.mycorp.dev']);
  });

  test('judge settings merge field by field, later layers winning', () => {
    const { write, load } = fixture();
    write('user', 'version: 1\njudge: { provider: anthropic, model: claude-haiku-4-5, timeoutMs: 30000 }\n');
    write('managed', 'version: 1\njudge: { onUncertain: deny, timeoutMs: 10000 }\n');
    assert.deepEqual(load().judge, { provider: 'anthropic', model: 'claude-haiku-4-5', timeoutMs: 10000, onUncertain: 'deny' });
  });

  test('deprecated rules still take a tier, with a warning naming the replacement', () => {
    const { write, load } = fixture();
    write('user', 'version: 1\nrules:\n  net.old-upload: soft_deny\n');
    const p = load();
    assert.equal(tierOf(p, 'net.old-upload'), 'soft_deny');
    assert.ok(p.warnings.some((w) => w.includes('deprecated since 0.1.0; use "net.curl-upload"')));
  });
});

describe('custom rules across layers', () => {
  test('custom rules join the rule list with their source, and allow overrides are listed by rule object', () => {
    const { write, load, files } = fixture();
    write(
      'user',
      `version: 1
custom:
  - id: local.deploy
    tier: soft_deny
    reason: Deploy files are reviewed.
    match: { path: [deploy/**] }
    examples: { match: ["rm deploy/x"] }${customRule('local.clean', 'allow', '\n    overrides: ["fs.*"]')}
`,
    );
    const p = load();
    assert.deepEqual(p.rules.filter((r) => r.id === 'local.deploy').map((r) => r.kind), ['shell', 'tool']);
    assert.equal(p.origins.get('local.deploy'), files.user);
    assert.equal(p.origins.get('git.force-push'), 'builtin');
    const [o] = p.allowOverrides;
    assert.equal(o?.id, 'local.clean');
    assert.deepEqual(o?.overrides, ['fs.rm-recursive'], 'the glob is expanded; the locked fs.rm-root is left out');
    assert.ok(p.rules.includes(o!.rule), 'the override refers to the object in rules');
  });

  test('an allow rule raised above allow by a later layer no longer overrides anything', () => {
    const { write, load } = fixture();
    write('user', `version: 1\ncustom:${customRule('local.clean', 'allow', '\n    overrides: [fs.rm-recursive]')}\n`);
    write('managed', 'version: 1\nrules:\n  local.clean: soft_deny\n');
    const p = load();
    assert.equal(tierOf(p, 'local.clean'), 'soft_deny');
    assert.deepEqual(p.allowOverrides, []);
  });

  test('a custom id defined in two files is an error naming both places', () => {
    const { write, load, files } = fixture();
    write('user', `version: 1\ncustom:${customRule('local.psql', 'soft_deny')}\n`);
    write('project', `version: 1\ncustom:${customRule('local.psql', 'hard_deny')}\n`);
    assert.throws(
      () => load(),
      (e: unknown) =>
        e instanceof AsimovError &&
        e.code === 'policy_schema_error' &&
        e.toString().startsWith(`${files.project}:3:9: custom[0].id: custom rule id "local.psql" is already defined at ${files.user}:3;`),
    );
  });

  test('an untrusted project may name its own ignored allow rule in rules: without an error', () => {
    const { write, load } = fixture();
    write('project', `version: 1\nrules:\n  local.ok: allow\ncustom:${customRule('local.ok', 'allow')}\n`);
    const p = load();
    assert.equal(tierOf(p, 'local.ok'), undefined);
    assert.equal(p.warnings.length, 1);
  });
});
