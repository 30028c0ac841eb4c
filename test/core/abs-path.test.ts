import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { test } from 'node:test';
import { resolvePath } from '../../src/core/abs-path.ts';

test('resolvePath agrees with posix.resolve on clean, unclean and relative paths', () => {
  const cases = [
    '/', '//', '///', '/a', '/a/', '/a//b', '/a/./b', '/a/../b', '/a/b/..', '/a/b/.', '/.', '/..', '/...', '/a/...',
    '/a/.b', '/a/..b', '/a/b.', '/a/b..', '/.hidden/x', '/a/b/c d/e', '/tmp/x y', 'rel', './rel', '../rel', '',
    '/home/user/project', '/home/user/project/', '/home/user/project/./src', '/ü/ñ', '/a/\u0000b', '/a\n/', '/a/\n./b',
    '/a/.\n/b', '/a/..\n', '/\n', '/a/./\n',
  ];
  for (const p of cases) assert.equal(resolvePath(p), posix.resolve(p), JSON.stringify(p));
  const pairs = [
    ['/a', 'b'], ['/a', '/b'], ['/a', '../b'], ['/a/b', './c/'], ['/a', '/b/../c'], ['/', 'b/c'], ['/a', ''], ['/a', 'b//c'],
    ['/a', 'b/'], ['/a', '.'], ['/a', '..'], ['/a/', 'b'], ['/a/..', 'b'], ['a', 'b'], ['/a', 'b/.c'], ['/a', 'b/..c/d'],
  ] as const;
  for (const [a, b] of pairs) {
    assert.equal(resolvePath(a, b), posix.resolve(a, b), `${a} + ${b}`);
  }
});

test('a clean absolute path comes back as the very same string', () => {
  const p = ['/home', 'user', 'project'].join('/');
  assert.equal(resolvePath(p), p);
});
