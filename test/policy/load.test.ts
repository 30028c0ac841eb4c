// Loading policy files from disk: discovery, every kind of error with file:line:key, and the starter.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import type { Redirect, SimpleCommand, Word } from '../../src/shell/types.ts';
import { defineShellRule, defineToolRule } from '../../src/policy/rule.ts';
import type { Rule, RuleContext, RuleExample } from '../../src/policy/rule.ts';
import type { PathClass } from '../../src/policy/paths.ts';
import type { ExampleRunner } from '../../src/policy/custom.ts';
import { unboundClassifyLine } from '../../src/policy/context.ts';
import { findProjectRoot, loadPolicy, parsePolicyText } from '../../src/policy/load.ts';
import type { LoadOptions } from '../../src/policy/load.ts';
import { recommended } from '../../src/policy/rules/index.ts';
import { STARTER_GROUND_RULES, STARTER_POLICY, starterPolicyWithExamples } from '../../src/policy/starter.ts';
import { runExample } from '../../src/policy/examples.ts';

/** Temp dirs made by this file, removed when it finishes. */
const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(d);
  return d;
}

const never = () => null;
const ex = { match: ['x'], notMatch: [] };
const builtin: Rule[] = [
  defineShellRule({ id: 'git.force-push', tier: 'hard_deny', reason: 'r', examples: ex, match: never }),
  defineShellRule({ id: 'git.push-default-branch', tier: 'soft_deny', reason: 'r', examples: ex, match: never }),
  defineShellRule({ id: 'fs.rm-root', tier: 'hard_deny', locked: true, reason: 'r', examples: ex, match: never }),
  defineShellRule({ id: 'fs.rm-recursive', tier: 'soft_deny', reason: 'r', examples: ex, match: never }),
  defineShellRule({ id: 'publish.npm', tier: 'soft_deny', reason: 'r', examples: ex, match: never }),
  defineShellRule({ id: 'net.curl-upload', tier: 'unknown', reason: 'r', examples: ex, match: never }),
  defineToolRule({ id: 'files.write-env', tier: 'soft_deny', reason: 'r', examples: ex, match: never }),
];

function word(value: string): Word {
  const literal = !value.includes('$');
  return { raw: value, value, literal, glob: false, vars: [], substitutions: [], substitutionKinds: [] };
}

function cmd(line: string): SimpleCommand {
  const argv: Word[] = [];
  const redirects: Redirect[] = [];
  for (const part of line.split(' ').filter(Boolean)) {
    if (part.startsWith('>')) redirects.push({ op: '>', target: word(part.slice(1)), access: 'write' });
    else argv.push(word(part));
  }
  return { id: 0, argv, assignments: [], redirects, stdin: { kind: 'tty' }, pipeTo: [], inSubstitution: false, inFunction: false, depth: 0, via: [], text: line };
}

const exampleCtx: RuleContext = {
  cwd: '/w/p',
  projectRoot: '/w/p',
  home: '/w',
  path: (p) => ({ input: p, abs: p.startsWith('/') ? p : `/w/p/${p}`, classes: new Set<PathClass>() }),
  url: (u) => ({ input: u, host: null, scheme: null, classes: new Set() }),
  allowedDomains: [],
  defaultBranches: [],
  declaredPackages: () => undefined,
  classifyLine: unboundClassifyLine,
  createdInSession: () => false,
};

/** Runs an example through the compiled rule's own `match`, on a command split by spaces. */
const runner: ExampleRunner = (example: RuleExample, rule: Rule) => {
  if (rule.kind === 'shell') return typeof example === 'string' && !!rule.match(cmd(example), exampleCtx, { status: 'ok', commands: [], functions: [], aliases: [], problems: [] });
  return typeof example !== 'string' && !!rule.match({ tool: example.tool, clientTool: example.tool, input: example.input, cwd: '/w/p' }, exampleCtx);
};

function fixture() {
  const dir = tempDir('asimov-load-');
  const root = join(dir, 'project');
  const home = join(dir, 'home');
  mkdirSync(join(root, '.asimov'), { recursive: true });
  mkdirSync(home, { recursive: true });
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
  const load = (extra: Partial<LoadOptions> = {}) =>
    loadPolicy({ cwd: root, home, managedPath: files.managed, trustStorePath: join(dir, 'trusted.json'), env: {}, builtin, exampleRunner: runner, ...extra });
  return { dir, root, home, files, write, load };
}

/** Asserts that loading throws an AsimovError of `code` whose `file:line[:col]: key: …` text contains every piece. */
function assertLoadError(fn: () => unknown, code: string, ...pieces: (string | RegExp)[]): AsimovError {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof AsimovError, `expected an AsimovError, got ${String(err)}`);
  assert.equal(err.code, code, String(err));
  const text = err.toString();
  for (const p of pieces) {
    if (typeof p === 'string') assert.ok(text.includes(p), `expected ${JSON.stringify(p)} in:\n${text}`);
    else assert.match(text, p);
  }
  return err;
}

describe('finding the policy files', () => {
  test('the project root is the nearest directory with .asimov/ or .git', () => {
    const { dir, root } = fixture();
    const deep = join(root, 'src', 'lib');
    mkdirSync(deep, { recursive: true });
    assert.equal(findProjectRoot(deep), root);
    const gitRepo = join(dir, 'repo');
    mkdirSync(join(gitRepo, '.git', 'objects'), { recursive: true });
    mkdirSync(join(gitRepo, 'a'), { recursive: true });
    assert.equal(findProjectRoot(join(gitRepo, 'a')), gitRepo);
    const worktree = join(dir, 'wt');
    mkdirSync(worktree);
    writeFileSync(join(worktree, '.git'), 'gitdir: /elsewhere\n');
    assert.equal(findProjectRoot(worktree), worktree, 'a .git file (worktree) counts');
  });

  test('without any marker the cwd is the project root', () => {
    const lone = tempDir('asimov-lone-');
    const root = findProjectRoot(lone);
    // Some ancestor of the temp dir may itself be a repository; if none is, the cwd is the root.
    assert.ok(root === lone || lone.startsWith(`${root}/`));
  });

  test('missing files are absent layers: only the built-in pack applies', () => {
    const { load, root } = fixture();
    const p = load();
    assert.deepEqual(p.sources.map((s) => s.layer), ['builtin']);
    assert.deepEqual(p.rules.map((r) => r.id), builtin.map((r) => r.id));
    assert.deepEqual(p.defaultBranches, ['main', 'master']);
    assert.equal(p.projectRoot, root);
    assert.deepEqual(p.warnings, []);
  });

  test('the project file is found from a subdirectory, the user file under the home config dir', () => {
    const { root, write, load } = fixture();
    write('project', 'version: 1\ndefaultBranches: [trunk]\n');
    write('user', 'version: 1\ndefaultBranches: [develop]\n');
    const sub = join(root, 'src');
    mkdirSync(sub);
    const p = load({ cwd: sub });
    assert.deepEqual(p.sources.map((s) => s.layer), ['builtin', 'user', 'project']);
    assert.deepEqual(p.defaultBranches, ['main', 'master', 'develop', 'trunk']);
  });

  test('XDG_CONFIG_HOME moves the user policy', () => {
    const { dir, load } = fixture();
    const xdg = join(dir, 'xdg');
    mkdirSync(join(xdg, 'asimov'), { recursive: true });
    writeFileSync(join(xdg, 'asimov', 'policy.yaml'), 'version: 1\ndefaultBranches: [xdg]\n');
    assert.ok(load({ env: { XDG_CONFIG_HOME: xdg } }).defaultBranches.includes('xdg'));
    assert.ok(!load().defaultBranches.includes('xdg'));
  });

  test('the default built-in pack is `recommended`, every rule of it present', () => {
    const { load } = fixture();
    const p = load({ builtin: undefined });
    const ids = new Set(p.rules.map((r) => r.id));
    for (const r of recommended) assert.ok(ids.has(r.id), r.id);
  });

  test('a policy path that cannot be read is an error naming the file', () => {
    const { files, load } = fixture();
    mkdirSync(files.project); // a directory where the file should be
    assertLoadError(load, 'policy_io_error', files.project, /cannot read the policy file: .* is a directory, not a regular file/);
  });
});

describe('errors name file, line, column and key', () => {
  test('a YAML syntax error', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\nrules:\n  git.force-push: [hard_deny\n');
    assertLoadError(load, 'policy_parse_error', `${f}:4:`, 'YAML syntax error');
  });

  test('a duplicate key', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\nrules:\n  git.force-push: hard_deny\n  git.force-push: soft_deny\n');
    assertLoadError(load, 'policy_parse_error', `${f}:4:3: rules.git.force-push: duplicate key "git.force-push"`);
  });

  test('an unknown key, with did-you-mean', () => {
    const { write, load } = fixture();
    const f = write('user', 'version: 1\nprotectedPath: [deploy]\n');
    assertLoadError(load, 'policy_schema_error', `${f}:2:1: protectedPath: unknown key "protectedPath" (did you mean "protectedPaths"?)`);
  });

  test('a wrong type', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\ndefaultBranches:\n  main: true\n');
    assertLoadError(load, 'policy_schema_error', `${f}:3:3: defaultBranches: expected a list, got a mapping`);
  });

  test('a bad tier name, with did-you-mean', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\nrules:\n  git.force-push: hard-deny\n');
    assertLoadError(load, 'policy_schema_error', `${f}:3:19: rules.git.force-push: the text "hard-deny" is not one of`, 'did you mean "hard_deny"?');
  });

  test('a missing version points at the top of the file', () => {
    const { write, load } = fixture();
    const f = write('managed', 'rules: {}\n');
    assertLoadError(load, 'policy_schema_error', `${f}:1:1: version: missing required key "version" (add \`version: 1\`)`);
  });

  test('an empty file', () => {
    const { write, load } = fixture();
    const f = write('project', '# nothing yet\n');
    assertLoadError(load, 'policy_schema_error', `${f}:1:1: the policy file is empty`);
  });

  test('an unknown rule id in rules:, with did-you-mean', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\nrules:\n  git.forse-push: hard_deny\n');
    assertLoadError(load, 'policy_schema_error', `${f}:3:3: rules.git.forse-push: unknown rule id "git.forse-push" (did you mean "git.force-push"?)`);
  });

  test('a family name where a glob was meant', () => {
    const { write, load } = fixture();
    write('project', 'version: 1\nrules:\n  publish: hard_deny\n');
    assertLoadError(load, 'policy_schema_error', '"publish" is a rule family, not a rule id (did you mean "publish.*"?)');
  });

  test('a glob that matches no rule id', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\nrules:\n  pubish.*: hard_deny\n');
    assertLoadError(load, 'policy_schema_error', `${f}:3:3: rules.pubish.*: "pubish.*" matches no rule id (did you mean "publish.*"?)`);
  });

  test('an unknown rule id in overrides:', () => {
    const { write, load } = fixture();
    const f = write(
      'user',
      `version: 1
custom:
  - id: local.clean
    tier: allow
    reason: Routine.
    match: { command: [rm, -rf, dist] }
    overrides: [fs.rm-recursve]
    examples: { match: ["rm -rf dist"] }
`,
    );
    assertLoadError(load, 'policy_schema_error', `${f}:7:17: custom[0].overrides[0]: unknown rule id "fs.rm-recursve" (did you mean "fs.rm-recursive"?)`);
  });

  test('an unknown rule id in a test', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\ntests:\n  - command: rm -rf /\n    expect: hard_deny\n    rule: fs.rm-rot\n');
    assertLoadError(load, 'policy_schema_error', `${f}:5:11: tests[0].rule: unknown rule id "fs.rm-rot" (did you mean "fs.rm-root"?)`);
  });

  test('an invalid regex and an empty reason are both reported', () => {
    const { write, load } = fixture();
    const f = write(
      'project',
      `version: 1
custom:
  - id: local.x
    tier: soft_deny
    reason: ""
    match: { pattern: "([a-z]" }
    examples: { match: ["x"] }
`,
    );
    const e = assertLoadError(load, 'policy_schema_error', `${f}:5:13: custom[0].reason: reason must not be empty`);
    assert.match(e.message, new RegExp(`also ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6:23: custom\\[0\\]\\.match\\.pattern: invalid regular expression`));
  });

  test('a custom rule id that is a built-in id', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\ncustom:\n  - id: git.force-push\n    tier: hard_deny\n    reason: r\n    match: { command: [git] }\n    examples: { match: ["git push"] }\n');
    assertLoadError(load, 'policy_schema_error', `${f}:3:9: custom[0].id: custom rule id "git.force-push" is a built-in rule id`);
  });

  test('a custom rule whose match example does not trigger it (policy_example_failed)', () => {
    const { write, load } = fixture();
    const f = write(
      'project',
      `version: 1
custom:
  - id: local.no-prod-psql
    tier: hard_deny
    reason: Never touch production.
    match: { command: [psql, "*prod*"] }
    examples:
      match: ["psql -h prod-db", "psql prod-db"]
`,
    );
    assertLoadError(load, 'policy_example_failed', `${f}:8:15: custom[0].examples.match[0]: custom rule "local.no-prod-psql": the match example "psql -h prod-db" does not trigger it`);
  });

  test('a custom rule whose notMatch example triggers it (policy_example_failed)', () => {
    const { write, load } = fixture();
    const f = write(
      'project',
      `version: 1
custom:
  - id: local.no-prod-psql
    tier: hard_deny
    reason: Never touch production.
    match: { command: [psql] }
    examples:
      match: ["psql prod-db"]
      notMatch:
        - psql localhost
`,
    );
    assertLoadError(load, 'policy_example_failed', `${f}:10:11: custom[0].examples.notMatch[0]:`, 'the notMatch example "psql localhost" triggers it');
  });

  test('an unquoted *.domain (a YAML alias) is pointed at with the fix', () => {
    const { write, load } = fixture();
    const f = write('project', 'version: 1\nallowedDomains:\n  - *.mycorp.dev\n');
    assertLoadError(load, 'policy_parse_error', `${f}:3:5: allowedDomains[0]: YAML error:`, 'a value starting with * must be quoted');
  });

  test('errors in text parsed directly carry the label given', () => {
    assert.throws(
      () => parsePolicyText('version: 1\nrules: [\n', '<stdin>'),
      (e: unknown) => e instanceof AsimovError && e.code === 'policy_parse_error' && e.toString().startsWith('<stdin>:'),
    );
  });
});

describe('tests: in policy files', () => {
  test('tests are collected from every layer with file and line', () => {
    const { root, write, load } = fixture();
    const user = write('user', 'version: 1\ntests:\n  - command: git push -f\n    expect: hard_deny\n');
    const project = write(
      'project',
      `version: 1
tests:
  - command: rm -rf /
    expect: hard_deny
    rule: fs.rm-root

  - tool: write
    input: { file_path: .env }
    cwd: src
    expect: deny
`,
    );
    const p = load();
    assert.deepEqual(
      p.tests.map((t) => [t.file, t.line, t.key, t.layer]),
      [
        [user, 3, 'tests[0]', 'user'],
        [project, 3, 'tests[0]', 'project'],
        [project, 7, 'tests[1]', 'project'],
      ],
    );
    const [, first, second] = p.tests;
    assert.deepEqual(first?.expect, { kind: 'tier', tier: 'hard_deny' });
    assert.equal(first?.rule, 'fs.rm-root');
    assert.equal(first?.cwd, root);
    assert.deepEqual(second?.call, { tool: 'write', input: { file_path: '.env' } });
    assert.deepEqual(second?.expect, { kind: 'verdict', verdict: 'deny' });
    assert.equal(second?.cwd, join(root, 'src'), 'a relative cwd is taken from the project root');
  });
});

describe('the starter files', () => {
  test('the starter policy loads as written', () => {
    const { write, load } = fixture();
    write('project', STARTER_POLICY);
    const p = load();
    assert.equal(p.sources.length, 2);
    assert.deepEqual(p.warnings, []);
  });

  test('the starter policy shows every top-level key, each with an explanation', () => {
    for (const key of ['version', 'rules', 'custom', 'protectedPaths', 'allowedDomains', 'defaultBranches', 'judge', 'tests']) {
      assert.match(STARTER_POLICY, new RegExp(`^# ${key}: \\S`, 'm'), `explanation for ${key}`);
    }
    for (const key of ['command', 'pattern', 'path', 'tools', 'tool', 'url', 'overrides', 'notMatch', 'onUncertain', 'timeoutMs', 'baseUrl']) {
      assert.match(STARTER_POLICY, new RegExp(`^#\\s+(- )?${key}:`, 'm'), `example for ${key}`);
    }
  });

  test('every commented example in the starter is valid, with its custom rules passing their own examples', () => {
    const { write, load, files } = fixture();
    write('user', starterPolicyWithExamples());
    // The real built-in pack and the real example runner: the starter must hold against what ships.
    const p = load({ builtin: recommended, exampleRunner: runExample });
    const ids = p.rules.map((r) => r.id);
    for (const id of ['local.no-prod-psql', 'local.kube-prod', 'local.deploy-files', 'local.no-corp-paste', 'local.github-reads', 'local.clean-build']) {
      assert.ok(ids.includes(id), id);
    }
    assert.equal(p.overridden.get('publish.npm')?.tier, 'hard_deny');
    assert.equal(p.judge?.provider, 'anthropic');
    assert.equal(p.tests.length, 3);
    assert.deepEqual(p.allowOverrides.map((o) => [o.id, o.overrides]), [['local.clean-build', ['fs.rm-recursive']]]);
    assert.deepEqual(p.warnings, []);
    assert.equal(p.sources[1]?.path, files.user);
  });

  test('the ground rules are short natural-language rules', () => {
    assert.match(STARTER_GROUND_RULES, /^# Ground rules/);
    assert.match(STARTER_GROUND_RULES, /Never send secrets off this machine/);
    assert.ok(STARTER_GROUND_RULES.split('\n').filter((l) => l.startsWith('- ')).length >= 5);
  });
});
