// `asimov doctor`'s line on which path an installed hook line's calls take, against real lines (as wire
// builds them), a real socket directory and a real daemon.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { callPathCheck } from '../../src/cli/doctor-call-path.ts';
import { socketPathFor } from '../../src/cli/daemon/socket-path.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');
let home = '';
let env: NodeJS.ProcessEnv = {};
before(() => {
  home = mkdtempSync(join(tmpdir(), 'asimov-callpath-'));
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ASIMOV_JUDGE: 'off', ASIMOV_AUDIT_LOG: 'off' };
});
after(() => {
  spawnSync(process.execPath, [BIN, 'daemon', 'stop'], { env, encoding: 'utf8' });
  rmSync(home, { recursive: true, force: true });
});

const line = (o: Partial<Parameters<typeof buildHookCommand>[0]> = {}): string =>
  buildHookCommand({ client: 'claude', nodePath: process.execPath, asimovPath: BIN, watchdog: { kind: 'first-stage', path: '/usr/bin/perl' }, ...o }).command;

test('the line says off, or has no first stage', async () => {
  const off = await callPathCheck(line({ watchdog: { kind: 'timeout', path: '/usr/bin/timeout' }, daemon: 'off' }), env);
  assert.match(off.title, /each starts node and decides in its own process \(the line says ASIMOV_DAEMON=off\)/);
  const old = await callPathCheck(line({ watchdog: { kind: 'timeout', path: '/usr/bin/timeout' } }), env);
  assert.match(old.title, /each starts node first \(the line has no first stage\)/);
});

test('no daemon: auto says the next call starts one; manual says to start one', async () => {
  const auto = await callPathCheck(line(), env);
  assert.equal(auto.status, 'info');
  assert.match(auto.title, /no daemon runs now; the next call is decided in its own process and starts one/);
  const manual = await callPathCheck(line({ daemon: 'manual' }), env);
  assert.match(manual.title, /until a daemon runs/);
  assert.match(manual.fix ?? '', /asimov daemon start/);
});

test('a socket directory others can enter is a warning with its fix', async () => {
  const dir = dirname(socketPathFor(env));
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  try {
    const r = await callPathCheck(line(), env);
    assert.equal(r.status, 'warn');
    assert.match(r.title, /not a private directory/);
  } finally {
    chmodSync(dir, 0o700);
  }
});

test('a daemon that runs: the calls go to it', async () => {
  const started = spawnSync(process.execPath, [BIN, 'daemon', 'start'], { env, encoding: 'utf8' });
  assert.equal(started.status, 0, started.stderr);
  const r = await callPathCheck(line(), env);
  assert.equal(r.status, 'ok');
  assert.match(r.title, /the first stage hands them to the daemon, without starting node \(pid \d+, 0 served\)/);
});
