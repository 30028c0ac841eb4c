// The environment of gated commands: an allowlist, extendable by policy, never a loader variable.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { childEnv, isLoaderVariable } from '../../src/exec/env.ts';

const SERVER_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/u',
  USER: 'u',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TERM: 'xterm',
  TZ: 'UTC',
  ANTHROPIC_API_KEY: 'sk-ant-secret',
  GITHUB_TOKEN: 'ghp_secret',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  LD_PRELOAD: '/tmp/evil.so',
  LD_LIBRARY_PATH: '/tmp/lib',
  LD_AUDIT: '/tmp/audit.so',
  DYLD_INSERT_LIBRARIES: '/tmp/evil.dylib',
  NODE_OPTIONS: '--require /tmp/evil.js',
  NODE_PATH: '/tmp/mods',
  PYTHONPATH: '/tmp/py',
  PYTHONSTARTUP: '/tmp/start.py',
  PERL5OPT: '-Mevil',
  PERL5LIB: '/tmp/perl',
  RUBYOPT: '-revil',
  BASH_ENV: '/tmp/bashenv',
  ENV: '/tmp/shenv',
  PROMPT_COMMAND: 'evil',
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'core.pager',
  GIT_CONFIG_VALUE_0: 'evil',
  GIT_SSH_COMMAND: 'evil',
  'BASH_FUNC_ls%%': '() { evil; }',
  NPM_CONFIG_REGISTRY: 'http://registry.local',
  MY_TOOL_HOME: '/opt/tool',
};

test('only allowlisted variables pass: secrets stay with the server', () => {
  const env = childEnv(SERVER_ENV);
  assert.deepEqual(Object.keys(env).sort(), ['HOME', 'LANG', 'LC_ALL', 'PATH', 'TERM', 'TZ', 'USER']);
  assert.equal(env.PATH, '/usr/bin:/bin');
});

test('the policy extends the allowlist by exact names', () => {
  const env = childEnv(SERVER_ENV, ['MY_TOOL_HOME', 'NPM_CONFIG_*']);
  assert.equal(env.MY_TOOL_HOME, '/opt/tool');
  assert.equal(env.NPM_CONFIG_REGISTRY, undefined);
  assert.equal(env.GITHUB_TOKEN, undefined);
});

test('loader and injection variables are never forwarded, even when the policy lists them', () => {
  const all = Object.keys(SERVER_ENV);
  const env = childEnv(SERVER_ENV, all);
  for (const name of [
    'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES', 'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH',
    'PYTHONSTARTUP', 'PERL5OPT', 'PERL5LIB', 'RUBYOPT', 'BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'GIT_CONFIG_COUNT',
    'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0', 'GIT_SSH_COMMAND', 'BASH_FUNC_ls%%',
  ]) {
    assert.equal(env[name], undefined, `${name} was forwarded`);
    assert.ok(isLoaderVariable(name), `${name} is not known as a loader variable`);
  }
  // Listed and harmless: forwarded.
  assert.equal(env.ANTHROPIC_API_KEY, 'sk-ant-secret');
});

test('a name no shell could set and a value with a NUL byte are dropped', () => {
  const env = childEnv({ PATH: '/bin', 'A-B': 'x', HOME: 'a\0b' }, ['A-B']);
  assert.deepEqual(env, { PATH: '/bin' });
});

test('a real child sees exactly the cleared environment', () => {
  const env = childEnv({ ...SERVER_ENV, PATH: process.env.PATH ?? '/usr/bin:/bin' });
  const r = spawnSync('/bin/sh', ['-c', 'env'], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const names = r.stdout.split('\n').filter(Boolean).map((l) => l.slice(0, l.indexOf('=')));
  for (const n of names) assert.ok(!/SECRET|TOKEN|API_KEY|^LD_|NODE_OPTIONS/.test(n), `the child saw ${n}`);
  assert.ok(names.includes('HOME'));
});
