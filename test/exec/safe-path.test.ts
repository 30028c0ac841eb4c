// The path check of the gated file tools, on a real scratch tree with real symlinks.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalRoots, checkPath } from '../../src/exec/safe-path.ts';

let base = '';
let proj = '';
let other = '';
let roots: string[] = [];

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-safe-path-')));
  proj = join(base, 'proj');
  other = join(base, 'other');
  for (const d of ['proj/sub', 'proj-evil', 'proj2', 'outside', 'other']) mkdirSync(join(base, d), { recursive: true });
  writeFileSync(join(proj, 'sub/file.txt'), 'inside');
  writeFileSync(join(base, 'proj-evil/x.txt'), 'evil');
  writeFileSync(join(base, 'outside/secret.txt'), 'secret');
  symlinkSync(join(base, 'outside'), join(proj, 'link-out'));
  symlinkSync(join(proj, 'sub'), join(proj, 'link-in'));
  symlinkSync(join(base, 'outside/secret.txt'), join(proj, 'leaf-out'));
  symlinkSync(join(proj, 'sub/file.txt'), join(proj, 'leaf-in'));
  symlinkSync(join(base, 'nowhere'), join(proj, 'dangling'));
  symlinkSync(other, join(proj, 'to-other'));
  symlinkSync(proj, join(base, 'proj-link'));
  roots = canonicalRoots([proj], proj);
});
after(() => rmSync(base, { recursive: true, force: true }));

const check = (p: string, r: string[] = roots) => checkPath(p, { cwd: proj, roots: r });
const refused = (p: string, re: RegExp, r?: string[]) => assert.throws(() => check(p, r), (e: { code?: string; message?: string }) => {
  assert.equal(e.code, 'path_refused', `${p}: ${e.message}`);
  assert.match(e.message!, re);
  return true;
});

test('a file inside the root: its canonical path and identity', () => {
  const c = check('sub/file.txt');
  assert.equal(c.real, join(proj, 'sub/file.txt'));
  assert.equal(c.root, proj);
  assert.equal(c.dir, join(proj, 'sub'));
  assert.equal(c.leaf?.kind, 'file');
  assert.deepEqual(c.missing, []);
});

test('a new file under directories that do not exist yet', () => {
  const c = check(join(proj, 'new/deeper/f.txt'));
  assert.equal(c.leaf, null);
  assert.equal(c.dir, proj);
  assert.deepEqual(c.missing, ['new', 'deeper']);
  assert.equal(c.real, join(proj, 'new/deeper/f.txt'));
});

test('sibling-prefix roots: /proj never admits /proj-evil or /proj2', () => {
  refused('../proj-evil/x.txt', /outside the directories/);
  refused(join(base, 'proj-evil/x.txt'), /outside the directories/);
  refused(join(base, 'proj2/new.txt'), /outside the directories/);
  refused(`${proj}-evil/x.txt`, /outside the directories/);
});

test('.. is normalised before the check: escapes are refused, detours that stay inside are not', () => {
  refused('../outside/secret.txt', /outside/);
  refused('sub/../../outside/secret.txt', /outside/);
  refused(join(proj, 'sub/../../outside/new.txt'), /outside/);
  assert.equal(check('sub/../top.txt').real, join(proj, 'top.txt'));
  // Lexical, as the path is then opened: link-out/.. is the project itself, not the link target's parent.
  assert.equal(check('link-out/../sub/file.txt').real, join(proj, 'sub/file.txt'));
});

test('symlinked parents are resolved, then checked against the roots', () => {
  refused('link-out/secret.txt', /resolves to .*outside\/secret\.txt/);
  refused('link-out/new-file.txt', /resolves to .*outside\/new-file\.txt/);
  refused('link-out/new-dir/new-file.txt', /outside/);
  const c = check('link-in/file.txt');
  assert.equal(c.real, join(proj, 'sub/file.txt'));
  assert.equal(c.leaf?.kind, 'file');
  // A link into another allowed root is fine.
  assert.equal(check('to-other/x.txt', canonicalRoots([proj, other], proj)).real, join(other, 'x.txt'));
  refused('to-other/x.txt', /outside/);
});

test('a symlink leaf is refused, wherever it points', () => {
  refused('leaf-out', /symbolic link/);
  refused('leaf-in', /symbolic link/);
  refused('link-in/../leaf-in', /symbolic link/);
});

test('a dangling link or a file on the way is refused', () => {
  refused('dangling/x.txt', /symbolic link to nothing|not a directory/);
  refused('sub/file.txt/x', /not a directory/);
});

test('roots are canonical: a root given through a link admits the real paths', () => {
  const r = canonicalRoots([join(base, 'proj-link')], base);
  assert.deepEqual(r, [proj]);
  assert.equal(checkPath(join(base, 'proj-link/sub/file.txt'), { cwd: base, roots: r }).real, join(proj, 'sub/file.txt'));
  assert.throws(() => canonicalRoots([join(base, 'missing')], base), { code: 'path_refused' });
  assert.throws(() => canonicalRoots([join(proj, 'sub/file.txt')], base), { code: 'path_refused' });
});

test('bad input: empty, NUL, ~, no roots', () => {
  assert.throws(() => check(''), { code: 'bad_input' });
  assert.throws(() => check('a\0b'), { code: 'bad_input' });
  assert.throws(() => check('~/x'), { code: 'bad_input' });
  assert.throws(() => check('/'), { code: 'path_refused' });
  assert.throws(() => check('sub/file.txt', []), { code: 'path_refused' });
});
