// The process-group runner: real shells, real pipes, real process groups. Every command runs in a scratch dir.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoundedOutput, runGroup, type GroupRunOptions } from '../../src/core/run-group.ts';
import { gone, waitGone } from '../helpers/processes.ts';

let dir = '';
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent-home' };

before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-run-group-')));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** `/bin/sh -c line` in the scratch dir, each stream in its own sink, generous limits unless overridden. */
function sh(line: string, o: Partial<GroupRunOptions> = {}) {
  return runGroup({
    file: '/bin/sh', args: ['-c', line], cwd: dir, env: ENV,
    stdout: new BoundedOutput(64 * 1024), stderr: new BoundedOutput(64 * 1024),
    timeoutMs: 60_000, killGraceMs: 0, ...o,
  });
}


/** The pid a command line wrote to `file` (the line waits for the file itself, so it is there once the run ends). */
function pidIn(file: string): number {
  const pid = Number(readFileSync(file, 'utf8').trim());
  assert.ok(pid > 0, `no pid in ${file}`);
  return pid;
}

/** Starts `sleep 300` as a grandchild of the shell (in a subshell), writes its pid to `file`, and waits for the file. */
const grandchild = (file: string) => `( sleep 300 & echo $! > ${file}; wait ) & while [ ! -s ${file} ]; do sleep 0.05; done`;

describe('what the shell gets and gives', () => {
  test('stdin is delivered; stdout and stderr arrive apart; exit code, cwd and environment', async () => {
    const r = await sh('read line; echo "got $line in $(pwd) home=$HOME"; echo oops >&2; exit 3', { stdin: 'hello\n' });
    assert.equal(r.spawnError, null);
    assert.deepEqual([r.exitCode, r.signal, r.timedOut, r.aborted], [3, null, false, false]);
    assert.equal(r.stdout.text(), `got hello in ${dir} home=/nonexistent-home\n`);
    assert.equal(r.stderr.text(), 'oops\n');
    assert.ok(r.pid > 0);
  });

  test('without stdin the shell reads end of file at once', async () => {
    const r = await sh('if read x; then echo "read $x"; else echo eof; fi');
    assert.equal(r.stdout.text(), 'eof\n');
  });

  test('a line that does not read its input still ends normally', async () => {
    const r = await sh('exit 0', { stdin: 'x'.repeat(1024 * 1024) });
    assert.deepEqual([r.exitCode, r.spawnError], [0, null]);
  });

  test('one sink for both streams gets both', async () => {
    const out = new BoundedOutput(1024);
    const r = await sh('echo one; echo two >&2', { stdout: out, stderr: out });
    assert.equal(r.stdout, r.stderr);
    assert.deepEqual(out.text().split('\n').sort(), ['', 'one', 'two']);
    assert.equal(out.total, 8);
  });
});

describe('bounded output', () => {
  test('merged: head and tail kept, the middle counted as dropped', async () => {
    const out = new BoundedOutput(64);
    const total = 1024 * 1024;
    const r = await sh(`yes 0123456789 | head -c ${total}; echo the-end; echo err >&2`, { stdout: out, stderr: out });
    assert.equal(r.exitCode, 0);
    assert.equal(out.total, total + 'the-end\n'.length + 'err\n'.length);
    assert.equal(out.kept, 64);
    assert.equal(out.dropped, out.total - 64);
    const text = out.text();
    assert.ok(text.startsWith('0123456789\n0123456789\n'), text);
    // The two pipes are read in whatever order they become readable: stderr's line may come before the end of stdout.
    assert.match(text.slice(-32), /the-end\n/);
    assert.match(text, new RegExp(`\\n\\[… ${out.dropped} bytes of output dropped …\\]\\n`));
  });

  test('separate: each stream has its own bound; a head-only one is the plain prefix', async () => {
    const stdout = new BoundedOutput(100, 'head');
    const stderr = new BoundedOutput(20);
    const r = await sh('yes abcdefghi | head -c 100000; yes 0123456789 | head -c 50000 >&2; echo last >&2', { stdout, stderr });
    assert.equal(r.exitCode, 0);
    assert.deepEqual([stdout.total, stdout.kept, stdout.dropped], [100_000, 100, 99_900]);
    assert.equal(stdout.text(), 'abcdefghi\n'.repeat(10), 'no marker in a head-only output');
    assert.deepEqual([stderr.total, stderr.kept], [50_005, 20]);
    assert.ok(stderr.text().startsWith('0123456789'));
    assert.ok(stderr.text().endsWith('\n[… 49985 bytes of output dropped …]\n01234last\n'), stderr.text());
  });

  test('head-only BoundedOutput counts what it drops and never keeps more than its bound', () => {
    const b = new BoundedOutput(5, 'head');
    for (const s of ['ab', 'cdef', 'ghij']) b.push(Buffer.from(s));
    assert.deepEqual([b.total, b.kept, b.dropped, b.text()], [10, 5, 5, 'abcde']);
  });
});

describe('nothing the line starts outlives the run', () => {
  test('a background grandchild holding the output is killed when the shell exits, and the run ends', async () => {
    const pidFile = join(dir, 'exit.pid');
    const r = await sh(`${grandchild(pidFile)}; echo done`);
    assert.deepEqual([r.exitCode, r.timedOut], [0, false]);
    assert.equal(r.stdout.text(), 'done\n');
    await waitGone(pidIn(pidFile));
  });

  test('the same with a kill grace: SIGTERM reaches the group after the exit', async () => {
    const pidFile = join(dir, 'exit-grace.pid');
    const r = await sh(`${grandchild(pidFile)}; echo done`, { killGraceMs: 300 });
    assert.deepEqual([r.exitCode, r.stdout.text()], [0, 'done\n']);
    await waitGone(pidIn(pidFile));
  });

  test('a timeout kills the whole group, the grandchild included', async () => {
    const pidFile = join(dir, 'timeout.pid');
    const r = await sh(`${grandchild(pidFile)}; wait`, { timeoutMs: 1000 });
    assert.equal(r.timedOut, true);
    assert.equal(r.aborted, false);
    await waitGone(pidIn(pidFile));
  });

  test('a group that ignores SIGTERM is killed with SIGKILL after the grace', async () => {
    const pidFile = join(dir, 'stubborn.pid');
    const r = await sh(`trap '' TERM; ( trap '' TERM; sleep 300 & echo $! > ${pidFile}; wait ) & while [ ! -s ${pidFile} ]; do sleep 0.05; done; wait`, { timeoutMs: 1000, killGraceMs: 300 });
    assert.equal(r.timedOut, true);
    assert.equal(r.signal, 'SIGKILL');
    await waitGone(pidIn(pidFile));
  });

  test('abort kills the group and ends the run', async () => {
    const ac = new AbortController();
    const pidFile = join(dir, 'abort.pid');
    const run = sh(`${grandchild(pidFile)}; echo started; wait`, { signal: ac.signal });
    const written = () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n');
    for (let i = 0; i < 500 && !written(); i++) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    const r = await run;
    assert.deepEqual([r.aborted, r.timedOut], [true, false]);
    await waitGone(pidIn(pidFile));
  });

  test('an already aborted signal starts nothing', async () => {
    const marker = join(dir, 'never-ran');
    const r = await sh(`touch ${marker}`, { signal: AbortSignal.abort() });
    assert.deepEqual([r.aborted, r.pid, r.spawnError], [true, -1, null]);
    assert.equal(existsSync(marker), false);
  });

  test('a process that left the group and holds the output open does not hold the run', { skip: !existsSync('/usr/bin/setsid') && 'no setsid' }, async () => {
    const pidFile = join(dir, 'escaped.pid');
    const r = await sh(`setsid sh -c 'echo $$ > ${pidFile}; exec sleep 300' & while [ ! -s ${pidFile} ]; do sleep 0.05; done; echo done`);
    const escaped = pidIn(pidFile);
    try {
      assert.deepEqual([r.exitCode, r.timedOut, r.stdout.text()], [0, false, 'done\n']);
      assert.equal(gone(escaped), false, 'it left the group, so the group kill did not reach it');
    } finally {
      process.kill(escaped, 'SIGKILL');
    }
    await waitGone(escaped);
  });
});

describe('a shell that cannot start is reported, not thrown', () => {
  test('a missing shell', async () => {
    const r = await runGroup({
      file: join(dir, 'no-such-shell'), args: ['-c', 'true'], cwd: dir, env: ENV, stdin: 'x',
      stdout: new BoundedOutput(16), stderr: new BoundedOutput(16), timeoutMs: 10_000, killGraceMs: 0,
    });
    assert.equal(r.spawnError?.code, 'ENOENT');
    assert.equal(r.pid, -1);
    assert.equal(r.exitCode, null);
  });

  test('a missing working directory', async () => {
    const r = await sh('true', { cwd: join(dir, 'no-such-dir') });
    assert.equal(r.spawnError?.code, 'ENOENT');
  });

  test('an argument spawn refuses outright (a NUL byte)', async () => {
    const r = await sh('echo a\0b');
    assert.equal(r.spawnError?.code, 'ERR_INVALID_ARG_VALUE');
    assert.equal(r.pid, -1);
  });
});
