// The supply family: undeclared installs, custom indexes, npx-style runs and global installs, checked
// against a real project's manifests.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rules } from '../../../src/policy/rules/supply.ts';
import { recommended } from '../../../src/policy/rules/index.ts';
import { exampleFindings } from '../../../src/policy/examples.ts';
import { expectNoRule, tierTable, testRuleExamples } from '../../helpers/rule-tester.ts';

testRuleExamples(rules);

tierTable('installs and runs from registries ask a person', [
  ['npm i lodahs', 'soft_deny'],
  ['npm install --save-dev eslint-plugin-foo', 'soft_deny'],
  ['pip install "reqeusts==2.0"', 'soft_deny'],
  ['pip3 install -U numpy pandas', 'soft_deny'],
  ['sudo pip install requests', 'soft_deny'],
  ['uv pip install httpx', 'soft_deny'],
  ['cargo add tokio --features full', 'soft_deny'],
  ['go get github.com/evil/module@latest', 'soft_deny'],
  ['gem install bundler-audit', 'soft_deny'],
  ['brew install --cask some-app', 'soft_deny'],
  ['sudo apt-get install -y netcat', 'soft_deny'],
  ['npx -y some-cli@latest init', 'soft_deny'],
  ['npm exec -- some-cli', 'soft_deny'],
  ['yarn create next-app web', 'soft_deny'],
  ['pip install --extra-index-url https://pypi.example.net/simple internal-lib', 'soft_deny'],
  ['npm i -g npm@latest', 'soft_deny'],
  ['GOFLAGS=-insecure go get example.com/x', 'soft_deny'],
]);

tierTable('installing what the project declares is allowed', [
  ['npm install', 'allow'],
  ['npm ci --ignore-scripts', 'allow'],
  ['yarn install --frozen-lockfile', 'allow'],
  ['pnpm install', 'allow'],
  ['pip install -r requirements-dev.txt', 'allow'],
  ['python -m pip install -e .', 'allow'],
  ['poetry install --no-root', 'allow'],
  ['uv sync', 'allow'],
  ['bundle install', 'allow'],
  ['go mod download', 'allow'],
]);

describe('declared packages come from the project\'s manifests', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-supply-')));
  const project = join(root, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ dependencies: { react: '^18.0.0' }, devDependencies: { typescript: '^5.0.0', vitest: '^1.0.0', '@playwright/test': '^1.40.0' } }));
  writeFileSync(join(project, 'requirements.txt'), 'Flask_Cors>=4\nrequests==2.31.0\n');
  after(() => rmSync(root, { recursive: true, force: true }));
  const run = (line: string) => exampleFindings(line, { rules: recommended }, { cwd: project, projectRoot: project, home: root });
  const ids = (line: string) => run(line).findings.map((f) => f.rule);

  test('a declared npm package installs without a finding', () => {
    assert.ok(!ids('npm install react@18.2.0').includes('supply.install-undeclared'));
    assert.equal(run('npm install react@18.2.0').tier, 'allow');
  });
  test('an undeclared one next to it is still flagged', () => assert.ok(ids('npm install react left-pad').includes('supply.install-undeclared')));
  test('python names match in PEP 503 form', () => assert.equal(run('pip install flask-cors requests').tier, 'allow'));
  test('npx of a declared tool (by its bin name) is project tooling', () => {
    assert.equal(run('npx tsc --noEmit').tier, 'allow');
    assert.equal(run('npx playwright test').tier, 'allow');
    assert.equal(run('npx vitest run').tier, 'allow');
  });
  test('npx of anything else is not', () => assert.ok(ids('npx -y cowsay hi').includes('supply.npx-unknown')));
  test('options after the package belong to the program: `npx tsc -p tsconfig.json` runs typescript', () => {
    assert.equal(run('npx tsc -p tsconfig.json').tier, 'allow');
    assert.equal(run('npx tsc --noEmit -p apps/web/tsconfig.json').tier, 'allow');
    assert.equal(run('pnpm dlx tsc -p .').tier, 'allow');
    assert.equal(run('npm exec -- tsc -p tsconfig.json').tier, 'allow');
  });
  test('a declared name after the package does not launder an undeclared one', () => {
    assert.ok(ids('npx evil-pkg -p typescript').includes('supply.npx-unknown'));
    assert.ok(ids('npx evil-pkg --package=typescript').includes('supply.npx-unknown'));
  });
  test('every --package counts, not the last one', () => {
    assert.ok(ids('npx -p evil-pkg -p typescript tsc').includes('supply.npx-unknown'));
    assert.ok(ids('npx --package evil-pkg --package typescript tsc').includes('supply.npx-unknown'));
  });
  test('a short cluster is read as npx reads it', () => {
    assert.ok(ids('npx -yp evil-pkg tsc').includes('supply.npx-unknown'));
    assert.ok(ids('npx -pevil-pkg tsc').includes('supply.npx-unknown'));
    assert.equal(run('npx -yp typescript tsc --noEmit').tier, 'allow');
    assert.equal(run('npx -yp typescript rm -rf /').tier, 'hard_deny');
  });
  test('npm exec reads its options anywhere before --', () => assert.ok(ids('npm exec tsc --package=evil-pkg').includes('supply.npx-unknown')));
  test('a global install of a declared package is still global', () => assert.ok(ids('npm i -g typescript').includes('supply.global-install')));
});

describe('the supply rules stay quiet on near-misses', () => {
  test('pytorch\'s official index is not a custom index', () => expectNoRule('pip install torch --index-url https://download.pytorch.org/whl/cpu', 'supply.custom-index'));
  test('an apt dry run installs nothing', () => expectNoRule('apt-get install --dry-run nginx', 'supply.install-undeclared'));
  test('go run of a local package fetches nothing', () => expectNoRule('go run ./cmd/api', 'supply.npx-unknown'));
  test('a local path install adds nothing from outside', () => expectNoRule('pip install ./vendor/lib', 'supply.install-undeclared'));
});
