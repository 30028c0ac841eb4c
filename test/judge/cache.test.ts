// The verdict cache: on disk, keyed by everything the verdict depends on, shared between processes,
// expiring, and deaf to files that are not valid entries.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createJudgeCache, defaultCacheDir, judgeCacheKey, type CacheKeyParts } from '../../src/judge/cache.ts';

const SRC = resolve(import.meta.dirname, '../../src/judge/cache.ts');

function scratch(): { dir: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'asimov-judge-cache-'));
  return { dir: join(root, 'cache'), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

const parts: CacheKeyParts = {
  groundRules: '- never push',
  call: { tool: 'shell', input: { command: 'git push' }, cwd: '/p', projectRoot: '/p' },
  classification: { tier: 'soft_deny', rule: 'git.push-default-branch', reason: 'r', findings: [] },
  provider: 'anthropic',
  model: 'claude-haiku-4-5',
};

test('the key changes with the rules, the call, the intent and the model, not with who asked', () => {
  const k = judgeCacheKey(parts);
  assert.match(k, /^[0-9a-f]{64}$/);
  assert.equal(judgeCacheKey({ ...parts, call: { ...parts.call, sessionId: 'other', callId: 'x', agent: 'cli' } }), k);
  assert.equal(judgeCacheKey({ ...parts, call: { ...parts.call, input: { command: 'git push' } } }), k);
  assert.notEqual(judgeCacheKey({ ...parts, groundRules: '- never push!' }), k);
  assert.notEqual(judgeCacheKey({ ...parts, call: { ...parts.call, input: { command: 'git push -f' } } }), k);
  assert.notEqual(judgeCacheKey({ ...parts, call: { ...parts.call, cwd: '/q' } }), k);
  assert.notEqual(judgeCacheKey({ ...parts, intent: 'push it' }), k);
  assert.notEqual(judgeCacheKey({ ...parts, model: 'claude-sonnet-4-5' }), k);
  assert.notEqual(judgeCacheKey({ ...parts, provider: 'openai' }), k);
});

test('an entry written by one process is read by another', () => {
  const s = scratch();
  try {
    const key = judgeCacheKey(parts);
    const child = join(s.dir, '..', 'writer.mts');
    writeFileSync(
      child,
      `import { createJudgeCache } from ${JSON.stringify(SRC)};\n` +
        `createJudgeCache({ dir: process.argv[2] }).set(process.argv[3], { verdict: 'deny', reason: 'from the child' });\n`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', child, s.dir, key], { encoding: 'utf8', cwd: resolve(import.meta.dirname, '../..') });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(createJudgeCache({ dir: s.dir }).get(key), { verdict: 'deny', reason: 'from the child' });
    // Written whole and renamed: no temporary files are left behind.
    assert.deepEqual(readdirSync(s.dir), [`${key}.json`]);
  } finally {
    s.cleanup();
  }
});

test('entries expire after the TTL, and one from the future is not trusted', () => {
  const s = scratch();
  try {
    let t = 1_000_000;
    const key = judgeCacheKey(parts);
    createJudgeCache({ dir: s.dir, now: () => t }).set(key, { verdict: 'allow', reason: 'ok' });
    const reader = createJudgeCache({ dir: s.dir, ttlMs: 10_000, now: () => t });
    assert.deepEqual(reader.get(key), { verdict: 'allow', reason: 'ok' });
    t += 9_999;
    assert.ok(reader.get(key));
    t += 1;
    assert.equal(reader.get(key), undefined);
    t = 0;
    assert.equal(reader.get(key), undefined);
  } finally {
    s.cleanup();
  }
});

test('corrupted, foreign and misfiled entries are ignored', () => {
  const s = scratch();
  try {
    const cache = createJudgeCache({ dir: s.dir });
    const key = judgeCacheKey(parts);
    const other = judgeCacheKey({ ...parts, model: 'm2' });
    mkdirSync(s.dir, { recursive: true });
    const put = (k: string, text: string) => writeFileSync(join(s.dir, `${k}.json`), text);
    for (const text of [
      '{"v":1,"key":"',
      'null',
      '[]',
      JSON.stringify({ v: 1, key, verdict: 'unsure', reason: 'x', at: Date.now() }),
      JSON.stringify({ v: 1, key, verdict: 'allow', reason: '', at: Date.now() }),
      JSON.stringify({ v: 1, key, verdict: 'allow', reason: 'x', at: 'now' }),
      JSON.stringify({ v: 2, key, verdict: 'allow', reason: 'x', at: Date.now() }),
      // A valid entry for another key, copied under this one's name.
      JSON.stringify({ v: 1, key: other, verdict: 'allow', reason: 'x', at: Date.now() }),
    ]) {
      put(key, text);
      assert.equal(cache.get(key), undefined, text);
    }
    assert.equal(cache.get('../../etc/passwd'), undefined);
  } finally {
    s.cleanup();
  }
});

test('a cache that cannot be written costs nothing but a miss', () => {
  const s = scratch();
  try {
    mkdirSync(join(s.dir, '..'), { recursive: true });
    writeFileSync(s.dir, 'a file where the directory should be');
    const cache = createJudgeCache({ dir: s.dir });
    const key = judgeCacheKey(parts);
    cache.set(key, { verdict: 'deny', reason: 'x' });
    assert.equal(cache.get(key), undefined);
  } finally {
    s.cleanup();
  }
});

test('the default directory follows XDG_CACHE_HOME when absolute', () => {
  assert.equal(defaultCacheDir({ XDG_CACHE_HOME: '/c' }, '/h'), '/c/asimov/judge');
  assert.equal(defaultCacheDir({ XDG_CACHE_HOME: 'rel' }, '/h'), '/h/.cache/asimov/judge');
  assert.equal(defaultCacheDir({}, '/h'), '/h/.cache/asimov/judge');
});
