// bin/daemon-client.cjs: the plain-JavaScript copies it keeps (socket path, directory check, the hook
// deadline's default) must agree with the TypeScript they copy, and it must pick only the calls it may forward.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_DEADLINE_MS } from '../../src/wire/hook-command.ts';
import { isPrivateDir, socketPathFor } from '../../src/cli/daemon/socket-path.ts';
import { PROTOCOL_VERSION } from '../../src/cli/daemon/protocol.ts';

interface Client {
  eligible(argv: string[], env: NodeJS.ProcessEnv): boolean;
  socketPathFor(env: NodeJS.ProcessEnv, uid: number): string;
  isPrivateDir(dir: string, uid: number): boolean;
  buildIdOf(file: string): string | null;
  deadlineMsOf(argv: string[]): number;
  DEFAULT_DEADLINE_MS: number;
  PROTOCOL_VERSION: number;
}
const ROOT = resolve(import.meta.dirname, '../..');
const client = createRequire(import.meta.url)(join(ROOT, 'bin', 'daemon-client.cjs')) as Client;
const uid = process.getuid!();

test('constants agree with the TypeScript side', () => {
  assert.equal(client.DEFAULT_DEADLINE_MS, DEFAULT_DEADLINE_MS);
  assert.equal(client.PROTOCOL_VERSION, PROTOCOL_VERSION);
});

test('the socket path and the private-directory check agree with src/cli/daemon/socket-path.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'asimov-dclient-'));
  try {
    const mine = join(dir, 'run');
    mkdirSync(mine, { mode: 0o700 });
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o755);
    const link = join(dir, 'link');
    symlinkSync(mine, link);
    const envs: NodeJS.ProcessEnv[] = [
      { HOME: '/home/someone', XDG_RUNTIME_DIR: mine },
      { HOME: '/home/someone', XDG_RUNTIME_DIR: join(dir, 'missing') },
      { HOME: '/home/someone', XDG_RUNTIME_DIR: 'relative/dir' },
      { HOME: '/home/someone' },
      { HOME: `/home/${'x'.repeat(120)}` },
      { XDG_RUNTIME_DIR: '/' },
    ];
    for (const env of envs) assert.equal(client.socketPathFor(env, uid), socketPathFor(env, uid), JSON.stringify(env));
    assert.equal(client.socketPathFor(envs[0]!, uid), join(mine, 'asimov', 'd.sock'));
    assert.equal(client.socketPathFor(envs[3]!, uid), '/home/someone/.cache/asimov/run/d.sock');
    assert.equal(client.socketPathFor(envs[4]!, uid), `/tmp/asimov-${uid}/d.sock`);
    for (const [d, want] of [[mine, true], [open, false], [link, false], [join(dir, 'missing'), false]] as const) {
      assert.equal(client.isPrivateDir(d, uid), want, d);
      assert.equal(isPrivateDir(d, uid), want, d);
    }
    // Another owner is refused however tight the mode.
    assert.equal(client.isPrivateDir(mine, uid + 1), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('only hook and check (not --batch) go to the daemon, and ASIMOV_DAEMON=off|0 turns it off', () => {
  const yes: string[][] = [['hook', 'claude'], ['check', '--', 'ls'], ['check', '--json', '--', 'echo', '--batch']];
  const no: string[][] = [['check', '--batch'], ['check', '--batch=true'], ['explain', '--', 'ls'], ['daemon', 'start'], [], ['trust']];
  for (const a of yes) assert.equal(client.eligible(a, {}), true, a.join(' '));
  for (const a of no) assert.equal(client.eligible(a, {}), false, a.join(' '));
  assert.equal(client.eligible(['hook', 'claude'], { ASIMOV_DAEMON: 'off' }), false);
  assert.equal(client.eligible(['hook', 'claude'], { ASIMOV_DAEMON: '0' }), false);
  assert.equal(client.eligible(['hook', 'claude'], { ASIMOV_DAEMON: 'on' }), true);
});

test('the hook deadline is read as the hook command reads it', () => {
  assert.equal(client.deadlineMsOf(['hook', 'claude']), DEFAULT_DEADLINE_MS);
  assert.equal(client.deadlineMsOf(['hook', 'claude', '--deadline-ms', '5000']), 5000);
  assert.equal(client.deadlineMsOf(['hook', 'claude', '--deadline-ms=700']), 700);
  assert.equal(client.deadlineMsOf(['hook', 'claude', '--deadline-ms', 'soon']), DEFAULT_DEADLINE_MS);
});

test('the build id comes from the first bytes of dist/cli.cjs, as bin/load-cli.cjs reads it', () => {
  const loader = createRequire(import.meta.url)(join(ROOT, 'bin', 'load-cli.cjs')) as { buildId(s: string): string | null; CLI: string };
  const id = client.buildIdOf(loader.CLI);
  assert.ok(id !== null);
  assert.equal(id, loader.buildId(readFileSync(loader.CLI, 'utf8')));
  assert.equal(client.buildIdOf(join(ROOT, 'package.json')), null);
  assert.equal(client.buildIdOf(join(ROOT, 'no-such-file')), null);
});
