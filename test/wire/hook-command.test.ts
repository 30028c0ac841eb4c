// The installed hook command line: its words, and what a real shell makes of it when asimov answers,
// fails, is missing or hangs. Claude Code runs a tool when a hook exits 1 or is not found, so every
// failure must come out as exit 2 with a reason on stderr.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  buildHookCommand, detectWatchdog, hookDaemonMode, hookHasFirstStage, isAsimovHookCommand, isOwnHookCommand, DEFAULT_DEADLINE_MS, FIRST_STAGE_FILE, type Watchdog,
} from '../../src/wire/hook-command.ts';
import { findExecutable } from '../../src/core/executables.ts';
import { shellQuote } from '../../src/core/tools.ts';

let root = '';
let dir = '';
before(() => {
  root = mkdtempSync(join(tmpdir(), 'asimov-hookcmd-'));
  // Spaces and a single quote in the path, as in a home directory called "Jo's Mac".
  dir = join(root, "Jo's scripts dir");
  mkdirSync(dir);
  // The first stage sits beside asimov's entry point; here the entry points are the scripts below.
  copyFileSync(resolve(import.meta.dirname, '../../bin', FIRST_STAGE_FILE), join(dir, FIRST_STAGE_FILE));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('shellQuote', () => {
  test('plain words stay as they are, others are single-quoted', () => {
    assert.equal(shellQuote('/usr/bin/node'), '/usr/bin/node');
    assert.equal(shellQuote('--deadline-ms'), '--deadline-ms');
    assert.equal(shellQuote('/a b/c'), "'/a b/c'");
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote('$HOME;`x`'), "'$HOME;`x`'");
  });
});

describe('buildHookCommand', () => {
  const base = { client: 'claude', nodePath: '/n/node', asimovPath: '/a/bin/asimov.cjs' };
  test('the words, the failure branch and the marker, without a watchdog', () => {
    const r = buildHookCommand({ ...base, watchdog: { kind: 'none' }, deadlineMs: 5000, args: ['--on-allow', 'passthrough'] });
    assert.equal(r.command,
      `/n/node /a/bin/asimov.cjs hook claude --deadline-ms 5000 --on-allow passthrough || { s=$?; [ $s -eq 2 ] || echo "asimov: the claude hook failed (exit $s), so this call is blocked. Run 'asimov doctor'." >&2; exit 2; } # asimov-hook:claude`);
    assert.equal(r.deadlineMs, 5000);
    assert.equal(r.clientTimeoutSec, 7 + 8);
  });
  test('watchdog variants kill a little after the deadline', () => {
    const t = buildHookCommand({ ...base, watchdog: { kind: 'timeout', path: '/usr/bin/timeout' } });
    assert.ok(t.command.startsWith(`/usr/bin/timeout -s KILL 42 /n/node /a/bin/asimov.cjs hook claude --deadline-ms ${DEFAULT_DEADLINE_MS} || `), t.command);
    const p = buildHookCommand({ ...base, watchdog: { kind: 'perl', path: '/usr/bin/perl' } });
    assert.ok(p.command.startsWith(`/usr/bin/perl -e 'alarm shift; exec @ARGV or exit 127' 42 /n/node `), p.command);
    const f = buildHookCommand({ ...base, watchdog: { kind: 'first-stage', path: '/usr/bin/perl' } });
    assert.ok(f.command.startsWith(`[ -r /a/bin/hook-first-stage.pl ] && /usr/bin/perl /a/bin/hook-first-stage.pl 42 /n/node /a/bin/asimov.cjs hook claude --deadline-ms ${DEFAULT_DEADLINE_MS} || `), f.command);
    assert.ok(t.clientTimeoutSec * 1000 > DEFAULT_DEADLINE_MS + 2000, 'the client must outlast the watchdog');
  });
  test('the daemon mode: auto writes nothing, manual and off an assignment in front; anything else is refused', () => {
    const fs = { kind: 'first-stage', path: '/usr/bin/perl' } as const;
    const auto = buildHookCommand({ ...base, watchdog: fs, daemon: 'auto' }).command;
    assert.equal(auto, buildHookCommand({ ...base, watchdog: fs }).command);
    assert.equal(hookDaemonMode(auto), 'auto');
    assert.ok(hookHasFirstStage(auto));
    const manual = buildHookCommand({ ...base, watchdog: fs, daemon: 'manual' }).command;
    assert.ok(manual.startsWith('[ -r /a/bin/hook-first-stage.pl ] && ASIMOV_DAEMON=manual /usr/bin/perl /a/bin/hook-first-stage.pl 42 '), manual);
    assert.equal(hookDaemonMode(manual), 'manual');
    assert.ok(hookHasFirstStage(manual));
    const off = buildHookCommand({ ...base, watchdog: { kind: 'timeout', path: '/usr/bin/timeout' }, daemon: 'off' }).command;
    assert.ok(off.startsWith('ASIMOV_DAEMON=off /usr/bin/timeout -s KILL 42 /n/node '), off);
    assert.equal(hookDaemonMode(off), 'off');
    assert.ok(!hookHasFirstStage(off));
    assert.throws(() => buildHookCommand({ ...base, watchdog: fs, daemon: 'sometimes' as never }), /daemon mode/);
  });
  test('paths with spaces and quotes are quoted', () => {
    const r = buildHookCommand({ client: 'claude', nodePath: "/x y/it's/node", asimovPath: '/a b/asimov.cjs', watchdog: { kind: 'none' } });
    assert.ok(r.command.startsWith(`'/x y/it'\\''s/node' '/a b/asimov.cjs' hook claude`), r.command);
  });
  test('refuses relative paths and deadlines out of range', () => {
    assert.throws(() => buildHookCommand({ ...base, nodePath: 'node', watchdog: { kind: 'none' } }), /must be absolute/);
    assert.throws(() => buildHookCommand({ ...base, asimovPath: 'bin/asimov.cjs', watchdog: { kind: 'none' } }), /must be absolute/);
    for (const d of [99, 600_001, 1.5]) assert.throws(() => buildHookCommand({ ...base, deadlineMs: d, watchdog: { kind: 'none' } }), /deadline/);
  });
});

describe('isAsimovHookCommand', () => {
  const cmd = buildHookCommand({ client: 'claude', nodePath: '/n', asimovPath: '/a', watchdog: { kind: 'none' } }).command;
  test('recognises the marker of a client, or of any client', () => {
    assert.ok(isAsimovHookCommand(cmd, 'claude'));
    assert.ok(isAsimovHookCommand(cmd));
    assert.ok(!isAsimovHookCommand(cmd, 'gemini'));
    assert.ok(isAsimovHookCommand('x # asimov-hook:gemini', 'gemini'));
  });
  test('not a hook of asimov\'s', () => {
    for (const c of ['echo asimov-hook:claude', 'x # asimov-hook:', 'x # asimov-hook:claudex', '', 42, null, undefined]) {
      assert.ok(!isAsimovHookCommand(c, 'claude'), String(c));
    }
  });
});

describe('isOwnHookCommand (the only lines asimov doctor runs)', () => {
  const own = { nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs" };
  const line = (o: Partial<Parameters<typeof buildHookCommand>[0]> = {}) =>
    buildHookCommand({ client: 'gemini', ...own, watchdog: { kind: 'none' }, ...o }).command;

  test('a line asimov writes with this node and asimov, at any deadline, with --on-allow, with a system watchdog', () => {
    assert.ok(isOwnHookCommand(line(), 'gemini', own));
    assert.ok(isOwnHookCommand(line({ deadlineMs: 5000 }), 'gemini', own));
    assert.ok(isOwnHookCommand(line({ client: 'claude', args: ['--on-allow', 'passthrough'] }), 'claude', own));
    assert.ok(isOwnHookCommand(line({ watchdog: { kind: 'timeout', path: '/usr/bin/timeout' } }), 'gemini', own));
    assert.ok(isOwnHookCommand(line({ watchdog: { kind: 'perl', path: '/bin/perl' } }), 'gemini', own));
    assert.ok(isOwnHookCommand(line({ watchdog: { kind: 'first-stage', path: '/usr/bin/perl' } }), 'gemini', own));
    assert.ok(isOwnHookCommand(line({ watchdog: { kind: 'first-stage', path: '/usr/bin/perl' }, daemon: 'manual' }), 'gemini', own));
    assert.ok(isOwnHookCommand(line({ watchdog: { kind: 'timeout', path: '/usr/bin/timeout' }, daemon: 'off' }), 'gemini', own));
    const w = detectWatchdog();
    assert.ok(isOwnHookCommand(line({ watchdog: w }), 'gemini', own), 'the watchdog this machine offers');
  });

  test('anything else is not: the marker alone, an edit, another node, asimov, watchdog or client', () => {
    const ok = line({ watchdog: { kind: 'timeout', path: '/usr/bin/timeout' } });
    const not = [
      'touch /tmp/x # asimov-hook:gemini',
      ok.replace(' || {', ' ; touch /tmp/x || {'),
      `${ok.slice(0, ok.lastIndexOf(' # '))}; touch /tmp/x # asimov-hook:gemini`,
      ok.replace('/opt/node/bin/node', '/tmp/node'),
      ok.replace('asimov.cjs', 'evil.cjs'),
      ok.replace('/usr/bin/timeout', '/tmp/timeout'),
      line({ watchdog: { kind: 'timeout', path: '/home/u/bin/timeout' } }),
      line({ args: ['--verbose'] }),
      `ASIMOV_DAEMON=on ${ok}`,
      `LD_PRELOAD=/tmp/x.so ${ok}`,
      line({ watchdog: { kind: 'first-stage', path: '/usr/bin/perl' } }).replace('/opt/asi mov/it\'\\\'\'s/bin/hook-first-stage.pl', '/tmp/hook-first-stage.pl'),
      line({ watchdog: { kind: 'first-stage', path: '/tmp/perl' } }),
    ];
    for (const l of not) assert.equal(isOwnHookCommand(l, 'gemini', own), false, l);
    assert.equal(isOwnHookCommand(ok, 'claude', own), false, 'another client');
  });
});

describe('findExecutable and detectWatchdog', () => {
  function binDir(names: string[]): string {
    const d = mkdtempSync(join(root, 'bin-'));
    for (const n of names) {
      writeFileSync(join(d, n), '#!/bin/sh\nexit 0\n');
      chmodSync(join(d, n), 0o755);
    }
    return d;
  }
  test('prefers the first stage under perl; with the daemon off, coreutils timeout, then perl, else none', () => {
    const both = binDir(['timeout', 'perl']);
    assert.deepEqual(detectWatchdog({ PATH: both }), { kind: 'first-stage', path: join(both, 'perl') });
    assert.deepEqual(detectWatchdog({ PATH: both }, 'manual'), { kind: 'first-stage', path: join(both, 'perl') });
    assert.deepEqual(detectWatchdog({ PATH: both }, 'off'), { kind: 'timeout', path: join(both, 'timeout') });
    const perl = binDir(['perl']);
    assert.deepEqual(detectWatchdog({ PATH: `${binDir([])}:${perl}` }, 'off'), { kind: 'perl', path: join(perl, 'perl') });
    const timeout = binDir(['timeout']);
    assert.deepEqual(detectWatchdog({ PATH: timeout }), { kind: 'timeout', path: join(timeout, 'timeout') }, 'no perl: no first stage');
    assert.deepEqual(detectWatchdog({ PATH: binDir([]) }), { kind: 'none' });
    assert.deepEqual(detectWatchdog({}), { kind: 'none' });
  });
  test('skips relative PATH entries and files that are not executable', () => {
    const d = binDir([]);
    writeFileSync(join(d, 'timeout'), 'not executable');
    assert.equal(findExecutable('timeout', { PATH: `.:bin:${d}` }), null);
  });
});

describe('the command line in a real shell', () => {
  /** Watchdogs to try: none, and each that this machine has. */
  const watchdogs: Watchdog[] = [{ kind: 'none' }];
  const t = findExecutable('timeout');
  if (t) watchdogs.push({ kind: 'timeout', path: t });
  const p = findExecutable('perl');
  if (p) watchdogs.push({ kind: 'perl', path: p }, { kind: 'first-stage', path: p });

  function script(name: string, body: string): string {
    const f = join(dir, name);
    writeFileSync(f, body);
    return f;
  }
  function runLine(command: string, input = '{"tool_name":"Bash"}') {
    // The outer timeout only keeps a broken watchdog from hanging the suite; nothing asserts on time.
    // HOME in the scratch: the first stage finds no daemon there (and no build beside these scripts), so it
    // becomes the node the line names, as it must whenever the daemon cannot answer.
    const r = spawnSync('/bin/sh', ['-c', command], { cwd: root, input, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: root }, timeout: 60_000 });
    return { code: r.status, out: r.stdout, err: r.stderr, signal: r.signal };
  }

  for (const w of watchdogs) {
    test(`asimov answers: exit 0, stdout intact, arguments as built (watchdog ${w.kind})`, () => {
      const asimov = script('answer.cjs', `
        let input = '';
        process.stdin.on('data', (d) => { input += d; });
        process.stdin.on('end', () => {
          process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), input }) + '\\n');
        });
      `);
      const { command } = buildHookCommand({ client: 'claude', nodePath: process.execPath, asimovPath: asimov, deadlineMs: 1000, args: ['--on-allow', 'passthrough'], watchdog: w });
      const r = runLine(command);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(JSON.parse(r.out), {
        argv: ['hook', 'claude', '--deadline-ms', '1000', '--on-allow', 'passthrough'],
        input: '{"tool_name":"Bash"}',
      });
      assert.equal(r.err, '');
    });

    test(`node missing: exit 2 with the reason on stderr (watchdog ${w.kind})`, () => {
      const { command } = buildHookCommand({ client: 'claude', nodePath: join(dir, 'no such node'), asimovPath: join(dir, 'x.cjs'), watchdog: w });
      const r = runLine(command);
      assert.equal(r.code, 2);
      assert.match(r.err, /asimov: the claude hook failed \(exit 127\), so this call is blocked\. Run 'asimov doctor'\./);
      assert.equal(r.out, '');
    });

    test(`asimov exits 1: exit 2 (watchdog ${w.kind})`, () => {
      const asimov = script('fail.cjs', `process.stderr.write('boom\\n'); process.exit(1);`);
      const r = runLine(buildHookCommand({ client: 'claude', nodePath: process.execPath, asimovPath: asimov, watchdog: w }).command);
      assert.equal(r.code, 2);
      assert.match(r.err, /boom\n/);
      assert.match(r.err, /the claude hook failed \(exit 1\)/);
    });

    test(`asimov blocks with exit 2 itself: exit 2, its own reason only (watchdog ${w.kind})`, () => {
      const asimov = script('deny.cjs', `process.stderr.write('asimov: denied, because\\n'); process.exit(2);`);
      const r = runLine(buildHookCommand({ client: 'claude', nodePath: process.execPath, asimovPath: asimov, watchdog: w }).command);
      assert.equal(r.code, 2);
      assert.equal(r.err, 'asimov: denied, because\n');
    });

    test(`asimov script missing: exit 2 (watchdog ${w.kind})`, () => {
      const r = runLine(buildHookCommand({ client: 'claude', nodePath: process.execPath, asimovPath: join(dir, 'gone.cjs'), watchdog: w }).command);
      assert.equal(r.code, 2);
      assert.match(r.err, /the claude hook failed \(exit 1\)/);
    });
  }

  for (const w of watchdogs.filter((x) => x.kind !== 'none')) {
    test(`asimov hangs past its deadline: the ${w.kind} watchdog kills it, exit 2`, () => {
      const asimov = script('hang.cjs', 'setInterval(() => {}, 1000);');
      const r = runLine(buildHookCommand({ client: 'claude', nodePath: process.execPath, asimovPath: asimov, deadlineMs: 100, watchdog: w }).command);
      assert.equal(r.signal, null, 'the line itself must end, not the test\'s safety timeout');
      assert.equal(r.code, 2);
      assert.match(r.err, /the claude hook failed \(exit (137|142)\)/);
    });
  }
});
