// asimov's own files are read without ever blocking: a FIFO or a device where a policy, the trust store or
// the ground rules belong is an error at once (red team: a FIFO froze the daemon for every project for 40 s).

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotRegularFileError, readRegularFile } from '../../src/core/read-regular.ts';
import { loadPolicy } from '../../src/policy/load.ts';
import { readTrustStore } from '../../src/policy/trust.ts';
import { loadGroundRules } from '../../src/judge/ground-rules.ts';
import { AsimovError } from '../../src/core/errors.ts';

const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

function scratch(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-read-')));
  made.push(d);
  return d;
}

function fifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

describe('readRegularFile', () => {
  test('reads a regular file; a missing one is undefined', () => {
    const d = scratch();
    writeFileSync(join(d, 'f'), 'hello');
    assert.equal(readRegularFile(join(d, 'f'), 100)?.toString(), 'hello');
    assert.equal(readRegularFile(join(d, 'nope'), 100), undefined);
    assert.equal(readRegularFile(join(d, 'f', 'below-a-file'), 100), undefined);
  });

  test('a FIFO, a device, a directory are refused at once', () => {
    const d = scratch();
    fifo(join(d, 'p'));
    symlinkSync('/dev/zero', join(d, 'z'));
    mkdirSync(join(d, 'dir'));
    for (const [name, kind] of [['p', /FIFO/], ['z', /device/], ['dir', /directory/]] as const) {
      assert.throws(() => readRegularFile(join(d, name), 100), (e: unknown) => e instanceof NotRegularFileError && kind.test(e.message));
    }
  });

  test('a file over the limit is refused', () => {
    const d = scratch();
    writeFileSync(join(d, 'big'), 'x'.repeat(101));
    assert.throws(() => readRegularFile(join(d, 'big'), 100), (e: unknown) => e instanceof NotRegularFileError && e.code === 'too_large');
    assert.equal(readRegularFile(join(d, 'big'), 101)?.length, 101);
  });
});

describe('policy, trust store and ground rules never wait on what is at their path', () => {
  test('a FIFO as the project policy is a policy error naming the file', () => {
    const d = scratch();
    mkdirSync(join(d, 'p', '.asimov'), { recursive: true });
    fifo(join(d, 'p', '.asimov', 'policy.yaml'));
    assert.throws(
      () => loadPolicy({ cwd: join(d, 'p'), projectRoot: join(d, 'p'), home: d, env: {}, managedPath: join(d, 'none'), trustStorePath: join(d, 't.json') }),
      (e: unknown) => e instanceof AsimovError && e.code === 'policy_io_error' && /FIFO/.test(e.message),
    );
  });

  test('/dev/zero linked as the user policy is refused, not read forever', () => {
    const d = scratch();
    mkdirSync(join(d, '.config', 'asimov'), { recursive: true });
    symlinkSync('/dev/zero', join(d, '.config', 'asimov', 'policy.yaml'));
    assert.throws(
      () => loadPolicy({ cwd: d, projectRoot: d, home: d, env: {}, managedPath: join(d, 'none'), trustStorePath: join(d, 't.json') }),
      (e: unknown) => e instanceof AsimovError && /device/.test(e.message),
    );
  });

  test('a FIFO as the trust store is an error, and as the ground rules too', () => {
    const d = scratch();
    fifo(join(d, 'trusted.json'));
    assert.throws(() => readTrustStore(join(d, 'trusted.json')), (e: unknown) => e instanceof AsimovError && /FIFO/.test(e.message));
    mkdirSync(join(d, 'p', '.asimov'), { recursive: true });
    fifo(join(d, 'p', '.asimov', 'ground-rules.md'));
    assert.throws(() => loadGroundRules(join(d, 'p'), { home: d, env: {}, trustStorePath: join(d, 'none.json') }), /FIFO/);
  });
});
