// Roots passed upstream: only local file:// roots inside the project or a directory the policy names,
// decided on real paths (a symlink inside the project that leads out is outside) and component by component.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { allowedRootDirs, canonicalPath, filterRoots, rootPath } from '../../../src/adapters/mcp/roots.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-roots-')));
const project = join(root, 'proj');
const evil = join(root, 'proj-evil');
const shared = join(root, 'shared');
mkdirSync(join(project, 'sub'), { recursive: true });
mkdirSync(evil);
mkdirSync(shared);
symlinkSync(evil, join(project, 'link-out'));
after(() => rmSync(root, { recursive: true, force: true }));

const uri = (p: string) => pathToFileURL(p).href;

test('only roots inside the allowed directories pass, by real path and whole components', () => {
  const allowed = allowedRootDirs(project, [shared, 'relative/ignored', uri(join(root, 'not-there'))]);
  assert.deepEqual(allowed, [project, shared, join(root, 'not-there')]);
  const roots = [
    { uri: uri(project), name: 'project' },
    { uri: uri(join(project, 'sub')) },
    { uri: uri(join(project, 'new-dir')) },
    { uri: uri(evil), name: 'sibling with the same prefix' },
    { uri: uri(join(project, 'link-out')), name: 'a symlink leading out' },
    { uri: uri(join(project, 'sub/../..')) },
    { uri: uri(shared) },
    { uri: 'https://example.com/repo' },
    { uri: 'file://remote-host/share' },
    { name: 'no uri' },
  ];
  const { result, dropped } = filterRoots({ roots, extra: 1 }, allowed);
  assert.deepEqual(result, { extra: 1, roots: [roots[0], roots[1], roots[2], roots[6]] });
  assert.equal(dropped.length, 6);
});

test('helpers: canonical paths of things that do not exist yet, and what counts as a root URI', () => {
  assert.equal(canonicalPath(join(project, 'link-out', 'a', 'b')), join(evil, 'a', 'b'));
  assert.equal(rootPath('file:///tmp/x'), '/tmp/x');
  assert.equal(rootPath('/tmp/x'), null);
  assert.equal(rootPath(42), null);
  assert.deepEqual(filterRoots({}, [project]).result, { roots: [] });
});
