// The process-level output path (src/cli/io.ts processIO): a reader that goes away ends asimov's output
// quietly with status 0, for every command, instead of an unhandled EPIPE stack trace and status 1.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { BIN, cliScratch, noStackTrace, type Run } from '../helpers/asimov-cli.ts';

const s = cliScratch('asimov-io-');

/** Runs asimov with its stdout a pipe whose reading end is closed before asimov writes anything. */
function runIntoClosedPipe(args: string[], input = ''): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: s.project, env: s.baseEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdin.on('error', () => undefined).end(input);
    child.on('error', fail);
    child.on('close', (code) => done({ code, out: '', err }));
  });
}

describe('a closed standard output', () => {
  for (const args of [['rules'], ['rules', '--markdown'], ['wire', '--list'], ['--help'], ['policy']]) {
    test(`asimov ${args.join(' ')} into a closed pipe exits 0 without a stack trace`, async () => {
      const r = await runIntoClosedPipe(args);
      noStackTrace(r);
      assert.equal(r.err, '');
      assert.equal(r.code, 0);
    });
  }

  test('audit tail into a closed pipe exits 0', async () => {
    for (const c of ['git status', 'rm -rf ~', 'ls']) s.run(['check', '--audit', '--', c]);
    const r = await runIntoClosedPipe(['audit', 'tail']);
    noStackTrace(r);
    assert.equal(r.code, 0, r.err);
  });

  test('check --batch into a closed pipe exits 0', async () => {
    const line = `${JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'git status' } })}\n`;
    const r = await runIntoClosedPipe(['check', '--batch'], line.repeat(200));
    noStackTrace(r);
    assert.equal(r.code, 0, r.err);
  });

  test('a check keeps its decision\'s exit status when nobody reads its output', async () => {
    const r = await runIntoClosedPipe(['check', '--', 'rm -rf /']);
    noStackTrace(r);
    assert.equal(r.code, 2);
  });

  test('`asimov rules --markdown | head -c 1`: head reads one chunk and exits, asimov exits 0', () => {
    // More than a pipe's buffer, so asimov is still writing when head has gone.
    const r = spawnSync('bash', ['-c', '"$0" "$1" rules --markdown | head -c 1 >/dev/null; echo "asimov exited ${PIPESTATUS[0]}" >&2', process.execPath, BIN], {
      cwd: s.project, env: s.baseEnv(), encoding: 'utf8',
    });
    const run: Run = { code: r.status, out: r.stdout, err: r.stderr };
    noStackTrace(run);
    assert.equal(r.stderr, 'asimov exited 0\n');
  });
});
