// Custom rules: compiling `custom:` entries into shell and tool rules, matching real inputs, and
// checking each rule's own examples.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ToolCall } from '../../src/core/types.ts';
import { AsimovError } from '../../src/core/errors.ts';
import type { Redirect, SimpleCommand, Word } from '../../src/shell/types.ts';
import type { Rule, RuleContext, RuleExample, ShellRule, ToolRule } from '../../src/policy/rule.ts';
import type { PathClass } from '../../src/policy/paths.ts';
import type { CustomRuleDef } from '../../src/policy/schema.ts';
import { schemas } from '../../src/policy/schema.ts';
import { unboundClassifyLine } from '../../src/policy/context.ts';
import { checkCustomExamples, compileCustomRule, globToRegExp, resolvePathGlobs } from '../../src/policy/custom.ts';
import type { ExampleRunner } from '../../src/policy/custom.ts';

/** Temp dirs made by this file, removed when it finishes. */
const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(d);
  return d;
}

const tmp = tempDir('asimov-custom-');
const root = join(tmp, 'project');
const home = join(tmp, 'home');
mkdirSync(join(root, 'deploy'), { recursive: true });
mkdirSync(home, { recursive: true });

function word(value: string, literal = true): Word {
  return { raw: value, value, literal, glob: false, vars: literal ? [] : ['X'], substitutions: [], substitutionKinds: [] };
}

/** A simple command built by hand: words split on spaces, `>file` / `<file` become redirects; `$x` words are dynamic. */
function cmd(line: string): SimpleCommand {
  const argv: Word[] = [];
  const redirects: Redirect[] = [];
  for (const part of line.split(' ').filter(Boolean)) {
    if (part.startsWith('>')) redirects.push({ op: '>', target: word(part.slice(1)), access: 'write' });
    else if (part.startsWith('<')) redirects.push({ op: '<', target: word(part.slice(1)), access: 'read' });
    else argv.push(word(part, !part.includes('$')));
  }
  return { id: 0, argv, assignments: [], redirects, stdin: { kind: 'tty' }, pipeTo: [], inSubstitution: false, inFunction: false, depth: 0, via: [], text: line };
}

function ctx(cwd = root): RuleContext {
  return {
    cwd,
    projectRoot: root,
    home,
    path: (p) => {
      if (p.includes('$')) return { input: p, abs: null, classes: new Set<PathClass>(['dynamic']) };
      const expanded = p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p;
      return { input: p, abs: resolve(cwd, expanded), classes: new Set<PathClass>() };
    },
    url: (u) => ({ input: u, host: null, scheme: null, classes: new Set() }),
    allowedDomains: [],
    defaultBranches: ['main'],
    declaredPackages: () => undefined,
    classifyLine: unboundClassifyLine,
    createdInSession: () => false,
  };
}

const analysis = { status: 'ok' as const, commands: [], functions: [], aliases: [], problems: [] };

function call(tool: string, input: Record<string, unknown>, clientTool?: string): ToolCall {
  return { tool, input, cwd: root, ...(clientTool ? { clientTool } : {}) };
}

/** The example runner the tests use: the compiled rule's own `match` on a hand-built command or call. */
const runner: ExampleRunner = (ex: RuleExample, rule: Rule) => {
  if (rule.kind === 'shell') return typeof ex === 'string' && !!rule.match(cmd(ex), ctx(), analysis);
  return typeof ex !== 'string' && !!rule.match(call(ex.tool, ex.input, ex.tool), ctx());
};

function def(partial: Record<string, unknown>): CustomRuleDef {
  return schemas().customRuleSchema.parse({ id: 'local.t', tier: 'hard_deny', reason: 'Because.', examples: { match: ['x'] }, ...partial });
}

const locate = (path: readonly (string | number)[]) => ({ file: '/policy.yaml', line: 7, key: path.join('.') });

function compile(partial: Record<string, unknown>) {
  return compileCustomRule(def(partial), '/policy.yaml', 0, locate);
}

function shellSide(partial: Record<string, unknown>): ShellRule {
  const r = compile(partial).rules.find((x) => x.kind === 'shell');
  assert.ok(r, 'expected a shell side');
  return r as ShellRule;
}

function toolSide(partial: Record<string, unknown>): ToolRule {
  const r = compile(partial).rules.find((x) => x.kind === 'tool');
  assert.ok(r, 'expected a tool side');
  return r as ToolRule;
}

const hits = (r: ShellRule, line: string, c = ctx()) => !!r.match(cmd(line), c, analysis);

describe('custom rule compilation', () => {
  test('a command prefix matches argv words by glob, program by name or basename', () => {
    const r = shellSide({ match: { command: ['psql', '*prod*'] } });
    assert.equal(hits(r, 'psql -h'), false);
    assert.equal(hits(r, 'psql prod-db.internal'), true);
    assert.equal(hits(r, '/usr/bin/psql prod-db'), true);
    assert.equal(hits(r, 'psql localhost'), false);
    assert.equal(hits(r, 'psql'), false, 'shorter than the prefix');
    assert.deepEqual(r.programs, ['psql']);
  });

  test('a dynamic word only matches the `*` glob', () => {
    const r = shellSide({ match: { command: ['psql', '*prod*'] } });
    assert.equal(hits(r, 'psql $prod'), false);
    const any = shellSide({ match: { command: ['psql', '*'] } });
    assert.equal(hits(any, 'psql $HOST'), true);
  });

  test('a glob in the program name leaves the rule called for every program', () => {
    const r = shellSide({ match: { command: ['kube*'] } });
    assert.equal(r.programs, undefined);
    assert.equal(hits(r, 'kubectl get pods'), true);
  });

  test('a pattern is a regex over the words joined by single spaces', () => {
    const r = shellSide({ match: { pattern: '--context[= ]prod' } });
    assert.equal(hits(r, 'kubectl --context prod get pods'), true);
    assert.equal(hits(r, 'kubectl --context=prod get pods'), true);
    assert.equal(hits(r, 'kubectl --context=dev get pods'), false);
  });

  test('all given matchers must match', () => {
    const r = shellSide({ match: { command: ['kubectl'], pattern: 'delete' } });
    assert.equal(hits(r, 'kubectl delete pod x'), true);
    assert.equal(hits(r, 'kubectl get pod x'), false);
    assert.equal(hits(r, 'helm delete x'), false);
  });

  test('a path glob matches path arguments, --opt=value paths and redirect targets against the project root', () => {
    const r = shellSide({ match: { path: ['deploy/**'] } });
    assert.equal(hits(r, 'rm deploy/app.yaml'), true);
    assert.equal(hits(r, 'rm -rf deploy'), true, 'the directory itself is covered');
    assert.equal(hits(r, 'echo hi >deploy/x'), true);
    assert.equal(hits(r, 'cat <deploy/x'), true);
    assert.equal(hits(r, 'kubectl apply --filename=deploy/x.yaml'), true);
    assert.equal(hits(r, 'rm src/app.ts'), false);
    assert.equal(hits(r, 'rm app.yaml', ctx(join(root, 'deploy'))), true, 'relative to cwd');
    assert.equal(hits(r, 'rm $DIR/app.yaml'), false, 'a dynamic path cannot be matched');
  });

  test('a path glob with ~ is matched in the home directory', () => {
    const r = shellSide({ match: { path: ['~/.kube/**'] } });
    assert.equal(hits(r, 'cat ~/.kube/config'), true);
    assert.equal(hits(r, `cat ${home}/.kube/config`), true);
    assert.equal(hits(r, 'cat .kube/config'), false);
  });

  test('a path glob matches a path reached through a symlinked directory', () => {
    const link = join(tmp, 'link-to-project');
    symlinkSync(root, link);
    const r = shellSide({ match: { path: [`${link}/deploy/**`] } });
    // The classifier resolves symlinks; the lexical spelling still matches the glob as written.
    const realCtx = { ...ctx(), path: (p: string) => ({ input: p, abs: realpathSync(resolve(root, p)), classes: new Set<PathClass>() }) };
    assert.equal(hits(r, `rm ${link}/deploy`, realCtx), true);
  });

  test('a url matcher finds URLs in shell arguments by host glob and by URL glob', () => {
    const r = shellSide({ match: { url: ['*.corp.example.com', 'https://paste.*/**'] } });
    assert.equal(hits(r, 'curl https://wiki.corp.example.com/page'), true);
    assert.equal(hits(r, 'curl https://corp.example.com'), true, '`*.x` also covers x itself');
    assert.equal(hits(r, 'curl --url=https://paste.ee/raw/1'), true);
    assert.equal(hits(r, 'curl https://paste.ee'), true);
    assert.equal(hits(r, 'curl https://example.com/paste.ee'), false);
    assert.equal(hits(r, 'curl wiki.corp.example.com'), false, 'only words that are URLs count');
  });

  test('the tool side matches file paths, URLs, tool kinds and raw tool names', () => {
    const paths = toolSide({ match: { path: 'deploy/**', tools: ['write', 'edit'] } });
    assert.deepEqual(paths.tools, ['write', 'edit']);
    assert.ok(paths.match(call('write', { file_path: 'deploy/app.yaml' }), ctx()));
    assert.ok(paths.match(call('edit', { file_path: join(root, 'deploy/x') }), ctx()));
    assert.ok(!paths.match(call('read', { file_path: 'deploy/app.yaml' }), ctx()));
    assert.ok(!paths.match(call('write', { file_path: 'src/app.ts' }), ctx()));
    assert.ok(paths.match(call('Write', { file_path: 'deploy/a' }, 'Write'), ctx()), 'kinds compare case-insensitively');

    const urls = toolSide({ match: { url: ['*.corp.example.com'] } });
    assert.ok(urls.match(call('fetch', { url: 'https://a.corp.example.com/x' }), ctx()));
    assert.ok(!urls.match(call('fetch', { url: 'https://example.com/' }), ctx()));
    assert.ok(!urls.match(call('fetch', {}), ctx()));

    const mcp = toolSide({ match: { tool: 'mcp__github__get_*' } });
    assert.equal(mcp.tools, undefined);
    assert.ok(mcp.match(call('mcp', {}, 'mcp__github__get_issue'), ctx()));
    assert.ok(!mcp.match(call('mcp', {}, 'mcp__github__create_issue'), ctx()));
  });

  test('which sides a rule gets follows its matchers', () => {
    const kinds = (m: Record<string, unknown>) => compile({ match: m }).rules.map((r) => r.kind);
    assert.deepEqual(kinds({ command: ['psql'] }), ['shell']);
    assert.deepEqual(kinds({ pattern: 'x' }), ['shell']);
    assert.deepEqual(kinds({ path: ['deploy/**'] }), ['shell', 'tool']);
    assert.deepEqual(kinds({ url: ['x.com'] }), ['shell', 'tool']);
    assert.deepEqual(kinds({ tools: ['write'] }), ['tool']);
    assert.deepEqual(kinds({ tools: ['shell'] }), ['shell']);
    assert.deepEqual(kinds({ tools: ['shell', 'write'] }), ['shell', 'tool']);
    assert.deepEqual(kinds({ tool: 'mcp__*' }), ['tool']);
  });

  test('a rule whose matchers exclude every side is an error naming its line', () => {
    assert.throws(
      () => compile({ match: { tool: 'Bash', tools: ['shell'] } }),
      (e: unknown) => e instanceof AsimovError && e.code === 'policy_schema_error' && /can never match/.test(e.message) && e.location?.line === 7,
    );
  });

  test('compiled rules carry id, tier, reason and the examples of their side', () => {
    const c = compile({
      tier: 'soft_deny',
      match: { path: ['deploy/**'] },
      examples: { match: ['rm deploy/x', { tool: 'write', input: { file_path: 'deploy/y' } }], notMatch: ['rm src/x'] },
    });
    const [shell, tool] = c.rules;
    assert.equal(shell?.id, 'local.t');
    assert.equal(shell?.tier, 'soft_deny');
    assert.equal(shell?.reason, 'Because.');
    assert.deepEqual(shell?.examples, { match: ['rm deploy/x'], notMatch: ['rm src/x'] });
    assert.deepEqual(tool?.examples, { match: [{ tool: 'write', input: { file_path: 'deploy/y' } }], notMatch: [] });
  });
});

describe('custom rule examples', () => {
  test('examples that agree with the rule pass', () => {
    const c = compile({
      match: { command: ['psql', '*prod*'] },
      examples: { match: ['psql prod-db.internal'], notMatch: ['psql localhost'] },
    });
    assert.doesNotThrow(() => checkCustomExamples(c, runner, locate));
  });

  test('a match example that does not trigger the rule fails with the example and its line', () => {
    const c = compile({ match: { command: ['psql', '*prod*'] }, examples: { match: ['psql -h prod-db'] } });
    assert.throws(
      () => checkCustomExamples(c, runner, locate),
      (e: unknown) =>
        e instanceof AsimovError &&
        e.code === 'policy_example_failed' &&
        e.message.includes('"psql -h prod-db"') &&
        e.message.includes('does not trigger') &&
        e.location?.key === 'custom.0.examples.match.0',
    );
  });

  test('a notMatch example that triggers the rule fails', () => {
    const c = compile({ match: { command: ['psql'] }, examples: { match: ['psql a'], notMatch: ['psql localhost'] } });
    assert.throws(
      () => checkCustomExamples(c, runner, locate),
      (e: unknown) => e instanceof AsimovError && e.code === 'policy_example_failed' && /notMatch example "psql localhost" triggers it/.test(e.message),
    );
  });

  test('a shell example for a tool-only rule cannot match, and says why', () => {
    const c = compile({ match: { tools: ['write'] }, examples: { match: ['echo x > a'] } });
    assert.throws(
      () => checkCustomExamples(c, runner, locate),
      (e: unknown) => e instanceof AsimovError && /only matches non-shell tool calls/.test(e.message),
    );
  });

  test('a runner that throws is reported as an example failure, not a crash', () => {
    const c = compile({ match: { command: ['psql'] }, examples: { match: ['psql a'] } });
    assert.throws(
      () => checkCustomExamples(c, () => { throw new Error('parser exploded'); }, locate),
      (e: unknown) => e instanceof AsimovError && e.code === 'policy_example_failed' && /could not be run: parser exploded/.test(e.message),
    );
  });
});

describe('globs', () => {
  test('word globs: * crosses anything, ? is one character, [] a class, \\ escapes', () => {
    assert.ok(globToRegExp('*prod*').test('postgres://prod/x'));
    assert.ok(globToRegExp('v?').test('v1'));
    assert.ok(!globToRegExp('v?').test('v10'));
    assert.ok(globToRegExp('[abc]x').test('bx'));
    assert.ok(globToRegExp('[!abc]x').test('dx'));
    assert.ok(!globToRegExp('[!abc]x').test('ax'));
    assert.ok(globToRegExp('a\\*').test('a*'));
    assert.ok(!globToRegExp('a\\*').test('ab'));
    assert.ok(globToRegExp('a.b').test('a.b') && !globToRegExp('a.b').test('axb'));
  });

  test('url globs: * stays within a path segment, ** crosses them', () => {
    assert.ok(!globToRegExp('https://x.com/*', 'url').test('https://x.com/a/b'));
    assert.ok(globToRegExp('https://x.com/**', 'url').test('https://x.com/a/b'));
    assert.ok(globToRegExp('https://x.com/**', 'url').test('https://x.com'));
  });

  test('path globs become absolute; plain paths also cover what is under them', () => {
    assert.deepEqual(resolvePathGlobs(['deploy/**'], '/h', '/p'), ['/p/deploy/**']);
    assert.deepEqual(resolvePathGlobs(['~/.kube/**'], '/h', '/p'), ['/h/.kube/**']);
    assert.deepEqual(resolvePathGlobs(['secrets'], '/h', '/p'), ['/p/secrets', '/p/secrets/**']);
    assert.deepEqual(resolvePathGlobs(['build/'], '/h', '/p'), ['/p/build/**']);
    assert.deepEqual(resolvePathGlobs(['/etc//nginx/*.conf'], '/h', '/p'), ['/etc/nginx/*.conf']);
    assert.deepEqual(resolvePathGlobs(['~'], '/h', '/p'), ['/h', '/h/**']);
  });
});
