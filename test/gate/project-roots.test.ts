// The project root remembered per directory must be the one a fresh walk finds, call after call: a marker
// made, removed or replaced counts at once. Real directories; the clock is set ahead so that the walks are
// remembered (a directory changed within a second is never trusted), which is what these tests prove safe.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/policy/load.ts';
import { createProjectRoots } from '../../src/gate/project-roots.ts';

function scratch(t: { after: (fn: () => void) => void }): { project: string; sub: string; deeper: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-roots-')));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const project = join(root, 'project');
  const sub = join(project, 'sub');
  const deeper = join(sub, 'deeper');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(deeper, { recursive: true });
  return { project, sub, deeper };
}

const later = (): number => Date.now() + 60_000;

test('a remembered root gives way to a marker made below it, and comes back when the marker is removed', (t) => {
  const { project, sub, deeper } = scratch(t);
  const roots = createProjectRoots({ now: later });
  assert.equal(roots.rootOf(deeper), project);
  assert.equal(roots.size, 1, 'the walk is remembered');
  assert.equal(roots.rootOf(deeper), project);
  mkdirSync(join(deeper, '.asimov'));
  assert.equal(roots.rootOf(deeper), deeper);
  rmSync(join(deeper, '.asimov'), { recursive: true });
  assert.equal(roots.rootOf(deeper), project);
  writeFileSync(join(sub, '.git'), 'gitdir: /elsewhere\n'); // a worktree's .git is a file, and a marker
  assert.equal(roots.rootOf(deeper), sub);
  rmSync(join(sub, '.git'));
  assert.equal(roots.rootOf(deeper), project);
});

test('a removed root marker is seen, and a .asimov that is a file is no marker', (t) => {
  const { project, deeper } = scratch(t);
  const roots = createProjectRoots({ now: later });
  assert.equal(roots.rootOf(deeper), project);
  writeFileSync(join(deeper, '.asimov'), 'not a directory');
  assert.equal(roots.rootOf(deeper), project);
  rmSync(join(project, '.git'), { recursive: true });
  assert.equal(roots.rootOf(deeper), findProjectRoot(deeper));
  assert.notEqual(roots.rootOf(deeper), project);
});

test('a marker that is a link is followed afresh every time, never remembered', (t) => {
  const { project, sub, deeper } = scratch(t);
  const target = join(project, 'target');
  mkdirSync(target);
  symlinkSync(target, join(sub, '.asimov'));
  const roots = createProjectRoots({ now: later });
  assert.equal(roots.rootOf(deeper), sub);
  assert.equal(roots.size, 0);
  // The link's directory does not change when its target goes: only a fresh walk sees that.
  rmSync(target, { recursive: true });
  assert.equal(roots.rootOf(deeper), project);
});

test('a walk through a directory changed within the last second is not remembered', (t) => {
  const { project, deeper } = scratch(t);
  const roots = createProjectRoots();
  assert.equal(roots.rootOf(deeper), project);
  assert.equal(roots.size, 0);
});

test('the oldest directory is forgotten beyond the limit', (t) => {
  const { project, sub, deeper } = scratch(t);
  const roots = createProjectRoots({ now: later, max: 2 });
  for (const d of [deeper, sub, project]) assert.equal(roots.rootOf(d), project);
  assert.equal(roots.size, 2);
});
