// Running a gated command: real bash, real process groups, real pipes. Every command runs in a scratch dir.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoundedOutput, runCommand, runCommandSplit } from '../../src/exec/run-command.ts';
import { gone, readPidFile, waitGone } from '../helpers/processes.ts';

let dir = '';
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent-home' };

before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-run-')));
});
after(() => rmSync(dir, { recursive: true, force: true }));


test('output, exit code, cwd and stdin', async () => {
  const r = await runCommand({ command: 'pwd; echo err >&2; read x || echo "stdin: eof"; exit 3', cwd: dir, env: ENV, timeoutMs: 30_000 });
  assert.equal(r.exitCode, 3);
  assert.equal(r.signal, null);
  assert.equal(r.timedOut, false);
  assert.match(r.output, new RegExp(`^${dir}\\n`));
  assert.match(r.output, /err\n/);
  assert.match(r.output, /stdin: eof/);
  assert.equal(r.droppedBytes, 0);
});

test('split: stdout and stderr apart, stdin written then closed', async () => {
  const r = await runCommandSplit({ command: 'cat; echo err >&2; read x || echo "stdin: eof" >&2; exit 4', cwd: dir, env: ENV, timeoutMs: 30_000, stdin: 'line one\nline two\n' });
  assert.equal(r.exitCode, 4);
  assert.equal(r.stdout, 'line one\nline two\n');
  assert.equal(r.stderr, 'err\nstdin: eof\n');
  assert.equal(r.stdoutBytes, 18);
  assert.equal(r.droppedBytes, 0);
});

test('split: each stream is bounded on its own', async () => {
  const r = await runCommandSplit({ command: 'head -c 5000 /dev/zero | tr "\\0" a; echo short >&2', cwd: dir, env: ENV, timeoutMs: 30_000, maxOutputBytes: 1000 });
  assert.equal(r.stdoutBytes, 5000);
  assert.equal(r.droppedBytes, 4000);
  assert.match(r.stdout, /^a{500}\n\[… 4000 bytes of output dropped …\]\na{500}$/);
  assert.equal(r.stderr, 'short\n');
});

test('the child gets only the environment it is given', async () => {
  const r = await runCommand({ command: 'echo "[${SECRET_X-unset}] [$HOME]"', cwd: dir, env: ENV, timeoutMs: 30_000 });
  assert.equal(r.output, '[unset] [/nonexistent-home]\n');
});

test('a timeout kills the whole process group, the grandchild included', async () => {
  const pidFile = join(dir, 'grandchild.pid');
  // bash -> subshell -> sleep: the sleep is the shell's grandchild, and ignores nothing.
  const run = runCommand({ command: `(sleep 300 & echo $! > ${pidFile}; wait)`, cwd: dir, env: ENV, timeoutMs: 1500, killGraceMs: 500 });
  const grandchild = await readPidFile(pidFile);
  assert.ok(grandchild > 0 && !gone(grandchild), 'the grandchild did not start');
  const r = await run;
  assert.equal(r.timedOut, true);
  assert.equal(r.exitCode, null);
  assert.ok(r.signal === 'SIGTERM' || r.signal === 'SIGKILL', String(r.signal));
  await waitGone(grandchild);
});

test('control: killing only the shell leaves that grandchild running (what the group kill is for)', async () => {
  const pidFile = join(dir, 'control.pid');
  const child = spawn('/bin/bash', ['-c', `(sleep 300 & echo $! > ${pidFile}; wait)`], { env: ENV, stdio: 'ignore', detached: true });
  const grandchild = await readPidFile(pidFile);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  try {
    assert.equal(gone(grandchild), false, 'the grandchild died with the shell: the timeout test would prove nothing');
  } finally {
    process.kill(-child.pid!, 'SIGKILL');
  }
  await waitGone(grandchild);
});

test('a group that ignores SIGTERM is killed with SIGKILL after the grace period', async () => {
  const pidFile = join(dir, 'stubborn.pid');
  const run = runCommand({ command: `trap '' TERM; (trap '' TERM; sleep 300 & echo $! > ${pidFile}; wait)`, cwd: dir, env: ENV, timeoutMs: 1000, killGraceMs: 300 });
  const grandchild = await readPidFile(pidFile);
  const r = await run;
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, 'SIGKILL');
  await waitGone(grandchild);
});

test('what a finished command left running in its group is stopped', async () => {
  const pidFile = join(dir, 'background.pid');
  const r = await runCommand({ command: `sleep 300 > /dev/null 2>&1 & echo $! > ${pidFile}; echo started`, cwd: dir, env: ENV, timeoutMs: 30_000, killGraceMs: 300 });
  assert.equal(r.exitCode, 0);
  assert.equal(r.timedOut, false);
  await waitGone(Number(readFileSync(pidFile, 'utf8')));
});

test('a background process holding the output open does not hold the call', async () => {
  const pidFile = join(dir, 'holder.pid');
  const r = await runCommand({ command: `sleep 300 & echo $! > ${pidFile}; echo done`, cwd: dir, env: ENV, timeoutMs: 60_000, killGraceMs: 300 });
  assert.equal(r.exitCode, 0);
  assert.equal(r.output, 'done\n');
  await waitGone(Number(readFileSync(pidFile, 'utf8')));
});

test('cancelling stops the group', async () => {
  const ac = new AbortController();
  const pidFile = join(dir, 'cancel.pid');
  const run = runCommand({ command: `sleep 300 & echo $! > ${pidFile}; wait`, cwd: dir, env: ENV, timeoutMs: 60_000, killGraceMs: 300, signal: ac.signal });
  const pid = await readPidFile(pidFile);
  ac.abort();
  const r = await run;
  assert.equal(r.aborted, true);
  assert.equal(r.timedOut, false);
  await waitGone(pid);
});

test('100 MB of output: read to the end, 1 MiB kept, the rest counted, memory stays small', async () => {
  const total = 100 * 1024 * 1024;
  const before = process.memoryUsage();
  const r = await runCommand({ command: `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${total}; echo tail-marker >&2`, cwd: dir, env: ENV, timeoutMs: 120_000 });
  const afterMem = process.memoryUsage();
  assert.equal(r.exitCode, 0);
  assert.equal(r.outputBytes, total + 'tail-marker\n'.length);
  assert.equal(r.droppedBytes, r.outputBytes - 1024 * 1024);
  assert.ok(r.output.startsWith('0123456789abcdefghijklmnopqrstuvwxyz\n'));
  assert.ok(r.output.endsWith('tail-marker\n'), 'the end of the output is kept');
  assert.match(r.output, new RegExp(`\\[… ${r.droppedBytes} bytes of output dropped …\\]`));
  assert.ok(r.output.length < 1024 * 1024 + 200);
  // Holding the output would take 100 MB; what remains is the kept MiB and the pipe's chunks not yet collected
  // (Node frees them lazily: tens of MB come and go).
  const grown = afterMem.rss - before.rss;
  assert.ok(grown < 80 * 1024 * 1024, `rss grew by ${grown} bytes`);
});

test('a command that cannot start is an exec_failed error', async () => {
  await assert.rejects(runCommand({ command: 'true', cwd: join(dir, 'no-such-dir'), env: ENV, timeoutMs: 1000 }), { code: 'exec_failed' });
});

test('BoundedOutput keeps head and tail exactly', () => {
  const b = new BoundedOutput(10);
  for (const s of ['abc', 'defgh', 'ijklmnop', 'qrstuvwxyz']) b.push(Buffer.from(s));
  assert.equal(b.total, 26);
  assert.equal(b.kept, 10);
  assert.equal(b.dropped, 16);
  assert.equal(b.text(), 'abcde\n[… 16 bytes of output dropped …]\nvwxyz');
  const small = new BoundedOutput(10);
  small.push(Buffer.from('0123456789'));
  assert.equal(small.text(), '0123456789');
});

test('the kept output is independent of how the pipe chunks it', async () => {
  writeFileSync(join(dir, 'n.txt'), Array.from({ length: 50_000 }, (_, i) => `${i}`).join('\n') + '\n');
  const r = await runCommand({ command: 'cat n.txt', cwd: dir, env: ENV, timeoutMs: 30_000, maxOutputBytes: 64 });
  assert.ok(r.output.startsWith('0\n1\n2\n'));
  assert.ok(r.output.endsWith('49998\n49999\n'));
  assert.equal(r.outputBytes - r.droppedBytes, 64);
});
