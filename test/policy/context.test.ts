// Tests for the rule context: its defaults, its classifiers, and the packages a project declares.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, utimesSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { createRuleContext, readDeclaredPackages } from '../../src/policy/context.ts';

let root: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'asimov-context-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}

describe('createRuleContext', () => {
  test('defaults the project root to cwd, home to the user home and default branches to main and master', () => {
    const ctx = createRuleContext({ cwd: '/w/p' });
    assert.equal(ctx.projectRoot, '/w/p');
    assert.equal(ctx.home, homedir());
    assert.deepEqual([...ctx.defaultBranches], ['main', 'master']);
    assert.deepEqual([...ctx.allowedDomains], []);
  });

  test('classifies paths and URLs with the options it was given', () => {
    const ctx = createRuleContext({ cwd: '/w/p', home: '/w', allowedDomains: ['x.example'], protectedPaths: ['db/**'] });
    assert.ok(ctx.path('src/a.ts').classes.has('project'));
    assert.ok(ctx.path('db/a.sql').classes.has('protected'));
    assert.ok(ctx.url('https://x.example/').classes.has('allowed'));
  });

  test('refuses a relative cwd with a bad_input error', () => {
    assert.throws(() => createRuleContext({ cwd: 'relative' }), (e: unknown) => e instanceof AsimovError && e.code === 'bad_input');
  });
});

describe('declared packages', () => {
  test('reads package.json dependencies of every kind, lower-cased', () => {
    const dir = project('node', {
      'package.json': JSON.stringify({
        name: 'me',
        dependencies: { React: '^18' },
        devDependencies: { '@types/node': '20' },
        peerDependencies: { vue: '3' },
        optionalDependencies: { fsevents: '2' },
      }),
    });
    assert.deepEqual([...(readDeclaredPackages(dir) ?? [])].sort(), ['@types/node', 'fsevents', 'react', 'vue']);
  });

  test('reads requirements files, pyproject (PEP 621 and Poetry) and Pipfile, with PEP 503 names', () => {
    const dir = project('py', {
      'requirements.txt': '# comment\nDjango>=4.2\nrequests[socks]==2.31 ; python_version > "3.8"\n-r other.txt\n-e git+https://x/y.git#egg=z\n',
      'requirements-dev.txt': 'pytest\nSome_Package.Name\n',
      'pyproject.toml': [
        '[project]',
        'name = "me"',
        'dependencies = [',
        '  "httpx>=0.27",',
        "  'rich',",
        ']',
        '[project.optional-dependencies]',
        'docs = ["mkdocs"]',
        '[tool.poetry.dependencies]',
        'python = "^3.11"',
        'numpy = "^1.26"',
        '[tool.poetry.group.dev.dependencies]',
        'black = "*"',
      ].join('\n'),
      Pipfile: '[packages]\nflask = "*"\n[dev-packages]\nmypy = "*"\n',
    });
    const got = readDeclaredPackages(dir);
    assert.ok(got);
    for (const n of ['django', 'requests', 'pytest', 'some_package.name', 'some-package-name', 'httpx', 'rich', 'mkdocs', 'numpy', 'black', 'flask', 'mypy']) {
      assert.ok(got.has(n), n);
    }
    assert.ok(!got.has('python'));
    assert.ok(!got.has('me'));
  });

  test('reads Cargo.toml, go.mod and Gemfile', () => {
    const dir = project('mixed', {
      'Cargo.toml': '[package]\nname = "me"\n[dependencies]\nserde = { version = "1" }\ntokio = "1"\n[dev-dependencies]\ninsta = "1"\n[dependencies.reqwest]\nversion = "0.12"\n[target.\'cfg(unix)\'.dependencies]\nnix = "0.29"\n',
      'go.mod': 'module example.com/me\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\nrequire (\n\tgolang.org/x/sys v0.20.0 // indirect\n\tgithub.com/Stretchr/testify v1.9.0\n)\n',
      Gemfile: "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\n  gem \"rspec\"\n",
    });
    const got = readDeclaredPackages(dir);
    assert.ok(got);
    for (const n of ['serde', 'tokio', 'insta', 'reqwest', 'nix', 'github.com/spf13/cobra', 'golang.org/x/sys', 'github.com/stretchr/testify', 'rails', 'rspec']) {
      assert.ok(got.has(n), n);
    }
    assert.ok(!got.has('me'));
  });

  test('reads uv.lock, poetry.lock and pdm.lock packages, requirements/*.txt and more pyproject tables', () => {
    const dir = project('locks', {
      'uv.lock': 'version = 1\n\n[[package]]\nname = "Anyio"\nversion = "4.4.0"\nsource = { registry = "https://pypi.org/simple" }\ndependencies = [\n    { name = "idna" },\n]\n\n[[package]]\nname = "idna"\nversion = "3.7"\n',
      'poetry.lock': '[[package]]\nname = "charset-normalizer"\nversion = "3.3.2"\n\n[package.dependencies]\nfoo = "*"\n\n[metadata]\nlock-version = "2.0"\n',
      'pdm.lock': '[[package]]\nname = "pdm-locked"\nversion = "1"\n',
      'pyproject.toml': [
        '[dependency-groups]',
        'dev = ["ruff>=0.5", { include-group = "lint-only" }]',
        '[tool.uv]',
        'dev-dependencies = ["pytest-cov"]',
        '[tool.pdm.dev-dependencies]',
        'test = ["hypothesis"]',
      ].join('\n'),
    });
    mkdirSync(join(dir, 'requirements'));
    writeFileSync(join(dir, 'requirements', 'dev.txt'), 'factory_boy\n');
    writeFileSync(join(dir, 'requirements', 'base.in'), 'celery\n');
    const got = readDeclaredPackages(dir);
    assert.ok(got);
    for (const n of ['anyio', 'idna', 'charset-normalizer', 'pdm-locked', 'ruff', 'pytest-cov', 'hypothesis', 'factory-boy', 'celery']) assert.ok(got.has(n), n);
    // A lock's sub-tables name a package's dependencies, not the locked package; a group include is no package.
    assert.ok(!got.has('foo'));
    assert.ok(!got.has('lint-only'));
  });

  test('reads the package.json of npm/yarn workspaces and pnpm-workspace.yaml packages, not through links', () => {
    const dir = project('mono', {
      'package.json': JSON.stringify({ private: true, workspaces: ['packages/*', 'apps/web', '../outside/*', '!packages/skip'] }),
      'pnpm-workspace.yaml': 'packages:\n  - "tools/*"\n',
    });
    const pkg = (rel: string, deps: Record<string, string>) => {
      mkdirSync(join(dir, rel), { recursive: true });
      writeFileSync(join(dir, rel, 'package.json'), JSON.stringify({ name: rel, devDependencies: deps }));
    };
    pkg('packages/ui', { vitest: '1' });
    pkg('apps/web', { next: '14' });
    pkg('tools/gen', { tsx: '4' });
    pkg('../outside/evil', { 'evil-dep': '1' });
    mkdirSync(join(root, 'elsewhere'), { recursive: true });
    writeFileSync(join(root, 'elsewhere', 'package.json'), JSON.stringify({ dependencies: { 'linked-dep': '1' } }));
    symlinkSync(join(root, 'elsewhere'), join(dir, 'packages', 'linked'));
    const got = readDeclaredPackages(dir);
    assert.ok(got);
    for (const n of ['vitest', 'next', 'tsx']) assert.ok(got.has(n), n);
    assert.ok(!got.has('evil-dep'), 'a pattern leading out of the project is not followed');
    assert.ok(!got.has('linked-dep'), 'a workspace that is a link is not followed');
  });

  test('workspace manifests are bounded', () => {
    const dir = project('many', { 'package.json': JSON.stringify({ workspaces: ['p/*'] }) });
    for (let i = 0; i < 60; i++) {
      mkdirSync(join(dir, 'p', `w${String(i).padStart(2, '0')}`), { recursive: true });
      writeFileSync(join(dir, 'p', `w${String(i).padStart(2, '0')}`, 'package.json'), JSON.stringify({ dependencies: { [`dep${i}`]: '1' } }));
    }
    const got = readDeclaredPackages(dir);
    assert.ok(got?.has('dep0'));
    assert.ok(!got?.has('dep59'));
  });

  test('is undefined when the project has no manifest, or only a broken one', () => {
    assert.equal(readDeclaredPackages(project('empty', {})), undefined);
    assert.equal(readDeclaredPackages(project('broken', { 'package.json': '{ not json' })), undefined);
    assert.equal(readDeclaredPackages(join(root, 'does-not-exist')), undefined);
  });

  test('is read lazily through the context and follows changes to the manifest', () => {
    const dir = project('live', { 'package.json': JSON.stringify({ dependencies: { a: '1' } }) });
    assert.ok(createRuleContext({ cwd: dir }).declaredPackages()?.has('a'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies: { a: '1', bb: '2' } }));
    const later = new Date(Date.now() + 5000);
    utimesSync(join(dir, 'package.json'), later, later);
    const ctx = createRuleContext({ cwd: dir });
    assert.ok(ctx.declaredPackages()?.has('bb'));
    assert.equal(ctx.declaredPackages(), ctx.declaredPackages());
  });
});
