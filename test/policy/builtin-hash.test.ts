// The built-in pack's hash: the value the build defines in the bundle (scripts/builtin-hash.mjs) is the one
// the policy loader computes from source, and a prebuilt hash is used only for the recommended pack.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinPackHash, prebuiltRecommendedHash } from '../../src/policy/builtin-hash.ts';
import { loadPolicy } from '../../src/policy/load.ts';
import { recommended } from '../../src/policy/rules/index.ts';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { recommendedHash } from '../../scripts/builtin-hash.mjs';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-builtin-hash-')));
after(() => rmSync(dir, { recursive: true, force: true }));

function loadBare(builtin?: typeof recommended) {
  return loadPolicy({
    cwd: dir, projectRoot: dir, home: dir, env: {}, stateDir: false,
    userPath: join(dir, 'none-user.yaml'), managedPath: join(dir, 'none-managed.yaml'), trustStorePath: join(dir, 'trusted.json'),
    ...(builtin ? { builtin } : {}),
  });
}

test('the hash the build defines is the one the loader computes from source', async () => {
  assert.equal(prebuiltRecommendedHash(), undefined, 'from source there is no build constant');
  const built = (await recommendedHash()) as string;
  assert.match(built, /^[0-9a-f]{64}$/);
  assert.equal(built, builtinPackHash(recommended));
  const source = loadBare().sources.find((s) => s.layer === 'builtin');
  assert.equal(source?.sha256, built);
});

test('another built-in pack is hashed for what it is', () => {
  const fewer = recommended.slice(1);
  const source = loadBare(fewer).sources.find((s) => s.layer === 'builtin');
  assert.equal(source?.sha256, builtinPackHash(fewer));
  assert.notEqual(source?.sha256, builtinPackHash(recommended));
});
