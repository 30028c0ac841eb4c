import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { readTextFile, resolveTarget, writeFileAtomic } from '../../src/wire/write-file.ts';

let root = '';
before(() => { root = mkdtempSync(join(tmpdir(), 'asimov-writefile-')); });
after(() => rmSync(root, { recursive: true, force: true }));

const fresh = (name: string) => {
  const d = join(root, name);
  mkdirSync(d);
  return d;
};

describe('writeFileAtomic', () => {
  test('creates missing directories with the given mode and the file with 0600 by default', () => {
    const d = fresh('create');
    const f = join(d, 'a', '.claude', 'settings.json');
    assert.deepEqual(writeFileAtomic(f, '{}\n'), { realPath: f, viaSymlink: false });
    assert.equal(readFileSync(f, 'utf8'), '{}\n');
    assert.equal(statSync(f).mode & 0o777, 0o600);
    assert.equal(statSync(join(d, 'a', '.claude')).mode & 0o777, 0o700);
    writeFileAtomic(join(d, 'b', 'x.json'), '{}', { fileMode: 0o644, dirMode: 0o755 });
    assert.equal(statSync(join(d, 'b', 'x.json')).mode & 0o777, 0o644);
  });
  test('replaces the content, keeps the mode, leaves no temporary file behind', () => {
    const d = fresh('replace');
    const f = join(d, 's.json');
    writeFileSync(f, 'old', { mode: 0o640 });
    writeFileAtomic(f, 'new');
    assert.equal(readFileSync(f, 'utf8'), 'new');
    assert.equal(statSync(f).mode & 0o777, 0o640);
    assert.deepEqual(readdirSync(d), ['s.json']);
  });
  test('writes through a chain of symlinks, also to a target not yet there', () => {
    const d = fresh('links');
    const real = join(d, 'real', 'claude.json');
    mkdirSync(join(d, 'real'));
    symlinkSync('real/claude.json', join(d, 'middle'));
    symlinkSync(join(d, 'middle'), join(d, 'settings.json'));
    assert.deepEqual(resolveTarget(join(d, 'settings.json')), { realPath: real, viaSymlink: true });
    assert.deepEqual(writeFileAtomic(join(d, 'settings.json'), '{"a":1}'), { realPath: real, viaSymlink: true });
    assert.equal(readFileSync(real, 'utf8'), '{"a":1}');
    assert.ok(lstatSync(join(d, 'settings.json')).isSymbolicLink());
    assert.ok(lstatSync(join(d, 'middle')).isSymbolicLink());
  });
  test('a symlink loop is an error, not a hang', () => {
    const d = fresh('loop');
    symlinkSync(join(d, 'b'), join(d, 'a'));
    symlinkSync(join(d, 'a'), join(d, 'b'));
    assert.throws(() => writeFileAtomic(join(d, 'a'), '{}'), (e: AsimovError) => e.code === 'wire_io_error' && /symbolic links/.test(e.message));
  });
  test('refuses to replace something that is not a regular file', () => {
    const d = fresh('dir');
    mkdirSync(join(d, 'settings.json'));
    assert.throws(() => writeFileAtomic(join(d, 'settings.json'), '{}'), (e: AsimovError) => e.code === 'wire_io_error' && /not a regular file/.test(e.message));
    assert.ok(statSync(join(d, 'settings.json')).isDirectory());
  });
});

describe('readTextFile', () => {
  test('null for a missing file, the text otherwise', () => {
    const d = fresh('read');
    assert.equal(readTextFile(join(d, 'none.json')), null);
    writeFileSync(join(d, 'a.json'), '{"é": 1}');
    assert.equal(readTextFile(join(d, 'a.json')), '{"é": 1}');
  });
  test('bytes that are not UTF-8 are refused', () => {
    const d = fresh('latin1');
    writeFileSync(join(d, 'a.json'), Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    assert.throws(() => readTextFile(join(d, 'a.json')), (e: AsimovError) => e.code === 'wire_settings_invalid' && /not UTF-8/.test(e.message));
  });
});
