// The trust store: trusting pins a file's exact content; editing, untrusting or a broken store untrusts.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import {
  asimovConfigDir,
  defaultTrustStorePath,
  isTrusted,
  isTrustedHash,
  listTrusted,
  readTrustStore,
  sha256,
  trustFile,
  untrustFile,
} from '../../src/policy/trust.ts';

/** Temp dirs made by this file, removed when it finishes. */
const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(d);
  return d;
}

function setup() {
  const dir = tempDir('asimov-trust-');
  const file = join(dir, 'project', '.asimov', 'policy.yaml');
  mkdirSync(join(dir, 'project', '.asimov'), { recursive: true });
  writeFileSync(file, 'version: 1\nallowedDomains: [a.example]\n');
  const storePath = join(dir, 'config', 'asimov', 'trusted.json');
  return { dir, file, storePath, opts: { storePath } };
}

describe('trust store', () => {
  test('a file is untrusted until trusted, then trusted with exactly that content', () => {
    const { file, opts } = setup();
    const content = readFileSync(file);
    assert.equal(isTrusted(file, content, opts), false);
    const r = trustFile(file, opts);
    assert.equal(r.path, file);
    assert.equal(r.sha256, sha256(content));
    assert.equal(isTrusted(file, content, opts), true);
    assert.equal(isTrustedHash(file, sha256(content), opts), true);
  });

  test('editing the file untrusts it', () => {
    const { file, opts } = setup();
    trustFile(file, opts);
    writeFileSync(file, 'version: 1\nallowedDomains: [evil.example]\n');
    assert.equal(isTrusted(file, readFileSync(file), opts), false);
    assert.deepEqual(listTrusted(opts).map((e) => e.status), ['changed']);
  });

  test('the store is a JSON object of absolute path to sha256, readable only by the user', () => {
    const { file, storePath, opts } = setup();
    trustFile(file, opts);
    const data = JSON.parse(readFileSync(storePath, 'utf8'));
    assert.deepEqual(data, { [file]: sha256(readFileSync(file)) });
    assert.equal(statSync(storePath).mode & 0o077, 0);
  });

  test('untrusting removes the entry and reports whether there was one', () => {
    const { file, opts } = setup();
    trustFile(file, opts);
    assert.equal(untrustFile(file, opts), true);
    assert.equal(isTrusted(file, readFileSync(file), opts), false);
    assert.equal(untrustFile(file, opts), false);
  });

  test('a deleted file can still be untrusted and is listed as missing', () => {
    const { file, opts } = setup();
    trustFile(file, opts);
    rmSync(file);
    assert.deepEqual(listTrusted(opts).map((e) => [e.path, e.status]), [[file, 'missing']]);
    assert.equal(untrustFile(file, opts), true);
    assert.deepEqual(listTrusted(opts), []);
  });

  test('a file reached through a symlinked directory is the same trusted file', () => {
    const { dir, file, opts } = setup();
    const link = join(dir, 'link');
    symlinkSync(join(dir, 'project'), link);
    trustFile(join(link, '.asimov', 'policy.yaml'), opts);
    assert.equal(isTrusted(file, readFileSync(file), opts), true);
  });

  test('trusting a file that does not exist is a clear error', () => {
    const { dir, opts } = setup();
    assert.throws(
      () => trustFile(join(dir, 'nope.yaml'), opts),
      (e: unknown) => e instanceof AsimovError && e.code === 'policy_io_error' && /cannot read the policy file to trust/.test(e.message),
    );
  });

  test('a broken store is an error, never read as trusting anything', () => {
    const { file, storePath, opts } = setup();
    mkdirSync(join(storePath, '..'), { recursive: true });
    writeFileSync(storePath, '{ not json');
    assert.throws(() => isTrusted(file, readFileSync(file), opts), (e: unknown) => e instanceof AsimovError && /not valid JSON/.test(e.message));
    assert.throws(() => trustFile(file, opts), AsimovError, 'trusting does not overwrite a store it cannot read');
    writeFileSync(storePath, JSON.stringify({ [file]: 'yes' }));
    assert.throws(() => readTrustStore(storePath), (e: unknown) => e instanceof AsimovError && /not a sha256/.test(e.message));
    writeFileSync(storePath, '[]');
    assert.throws(() => readTrustStore(storePath), (e: unknown) => e instanceof AsimovError && /must be a JSON object/.test(e.message));
  });

  test('the default store lives in the asimov config dir, honouring an absolute XDG_CONFIG_HOME', () => {
    assert.equal(asimovConfigDir('/home/u', {}), '/home/u/.config/asimov');
    assert.equal(asimovConfigDir('/home/u', { XDG_CONFIG_HOME: '/x/cfg' }), '/x/cfg/asimov');
    assert.equal(asimovConfigDir('/home/u', { XDG_CONFIG_HOME: 'relative' }), '/home/u/.config/asimov');
    assert.equal(defaultTrustStorePath('/home/u', {}), '/home/u/.config/asimov/trusted.json');
  });

  test('home and env select the default store when no path is given', () => {
    const { dir, file } = setup();
    const env = { XDG_CONFIG_HOME: join(dir, 'xdg') };
    trustFile(file, { env });
    assert.ok(JSON.parse(readFileSync(join(dir, 'xdg', 'asimov', 'trusted.json'), 'utf8'))[file]);
    assert.equal(isTrusted(file, readFileSync(file), { env }), true);
  });
});
