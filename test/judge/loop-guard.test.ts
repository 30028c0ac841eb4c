// The loop guard: 3 consecutive or 20 total judge denials in a session stop the judge for that session,
// counted on disk so that one-process-per-call hooks share the count.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { countDenials, createLoopGuard, LOOP_LIMITS } from '../../src/judge/loop-guard.ts';

const SRC = resolve(import.meta.dirname, '../../src/judge/loop-guard.ts');

function scratch(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'asimov-loop-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('counts: total denials, and denials since the last allow', () => {
  assert.deepEqual(countDenials(''), { consecutive: 0, total: 0 });
  assert.deepEqual(countDenials('D\nD\nA\nD\n'), { consecutive: 1, total: 3 });
  assert.deepEqual(countDenials('A\nD\nD\n'), { consecutive: 2, total: 2 });
});

test('three denials in a row trip the guard; an allow in between resets the run', () => {
  const s = scratch();
  try {
    const g = createLoopGuard({ stateDir: s.dir });
    g.record('sess', 'deny');
    g.record('sess', 'deny');
    g.record('sess', 'allow');
    g.record('sess', 'deny');
    g.record('sess', 'unsure'); // neither a denial nor an allow
    g.record('sess', 'deny');
    assert.deepEqual(g.check('sess'), { tripped: false, consecutive: 2, total: 4 });
    g.record('sess', 'deny');
    assert.deepEqual(g.check('sess'), { tripped: true, consecutive: 3, total: 5 });
    // Another session is counted apart.
    assert.equal(g.check('other').tripped, false);
  } finally {
    s.cleanup();
  }
});

test('twenty denials in a session trip it even with allows between them', () => {
  const s = scratch();
  try {
    const g = createLoopGuard({ stateDir: s.dir });
    for (let i = 0; i < LOOP_LIMITS.total - 1; i++) {
      g.record('long', 'deny');
      g.record('long', 'allow');
    }
    assert.equal(g.check('long').tripped, false);
    g.record('long', 'deny');
    assert.deepEqual(g.check('long'), { tripped: true, consecutive: 1, total: 20 });
  } finally {
    s.cleanup();
  }
});

test('calls without a session id share nothing', () => {
  const s = scratch();
  try {
    const g = createLoopGuard({ stateDir: s.dir });
    for (let i = 0; i < 5; i++) g.record(undefined, 'deny');
    assert.equal(g.check(undefined).tripped, false);
    assert.equal(g.check('').tripped, false);
  } finally {
    s.cleanup();
  }
});

test('the count is shared between processes', () => {
  const s = scratch();
  try {
    const child = join(s.dir, 'deny.mts');
    writeFileSync(child, `import { createLoopGuard } from ${JSON.stringify(SRC)};\ncreateLoopGuard({ stateDir: process.argv[2] }).record(process.argv[3], 'deny');\n`);
    for (let i = 0; i < 3; i++) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', child, s.dir, 'a session id with / and spaces'], { encoding: 'utf8', cwd: resolve(import.meta.dirname, '../..') });
      assert.equal(r.status, 0, r.stderr);
    }
    assert.equal(createLoopGuard({ stateDir: s.dir }).check('a session id with / and spaces').tripped, true);
  } finally {
    s.cleanup();
  }
});
