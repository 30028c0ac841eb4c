// Stale per-session state files go; fresh ones, other kinds of file and a missing directory are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeStaleFiles } from '../../src/core/stale-files.ts';

test('files past the age with the suffix are removed; others stay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'asimov-stale-'));
  try {
    const old = join(dir, 'a.jsonl');
    const fresh = join(dir, 'b.jsonl');
    const other = join(dir, 'c.log');
    for (const f of [old, fresh, other]) writeFileSync(f, 'x');
    const longAgo = new Date(Date.now() - 10 * 24 * 3600 * 1000);
    utimesSync(old, longAgo, longAgo);
    utimesSync(other, longAgo, longAgo);
    mkdirSync(join(dir, 'sub.jsonl'));
    removeStaleFiles(dir, '.jsonl', 7 * 24 * 3600 * 1000, Date.now());
    assert.equal(existsSync(old), false);
    assert.equal(existsSync(fresh), true);
    assert.equal(existsSync(other), true, 'another suffix is not touched');
    removeStaleFiles(join(dir, 'missing'), '.jsonl', 1, Date.now());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
