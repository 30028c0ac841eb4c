// fs.rm-untracked: removing a file git does not have, that this session did not create, asks; files git holds,
// build output, the session's own files, links and projects without git stay allowed. A real git repository.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tier } from '../../../src/core/types.ts';
import { classify } from '../../../src/policy/classify.ts';
import { createRuleContext } from '../../../src/policy/context.ts';
import { recommended } from '../../../src/policy/rules/index.ts';
import { rules } from '../../../src/policy/rules/fs.ts';
import { testRuleExamples } from '../../helpers/rule-tester.ts';

testRuleExamples(rules.filter((r) => r.id === 'fs.rm-untracked'));

let root: string;
let home: string;
let proj: string;
let plain: string;
const created = new Set<string>();

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: proj, stdio: 'ignore' });
}

function decide(command: string, cwd = proj): { tier: Tier; rule: string | null } {
  const ctx = createRuleContext({ cwd, projectRoot: cwd, home, createdInSession: (abs) => created.has(abs) });
  const r = classify({ tool: 'shell', clientTool: 'Bash', input: { command }, cwd, projectRoot: cwd }, { rules: recommended }, ctx);
  return { tier: r.tier, rule: r.rule };
}

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-rm-untracked-')));
  home = join(root, 'home');
  proj = join(home, 'proj');
  plain = join(home, 'no-git');
  mkdirSync(join(proj, 'src'), { recursive: true });
  mkdirSync(join(proj, 'dist'), { recursive: true });
  mkdirSync(plain, { recursive: true });
  writeFileSync(join(proj, 'src', 'old.ts'), 'export const x = 1;\n');
  writeFileSync(join(proj, 'README.md'), '# p\n');
  execFileSync('git', ['init', '-q'], { cwd: proj });
  git('add', '.');
  git('commit', '-qm', 'init');
  writeFileSync(join(proj, 'notes-draft.md'), 'the user\'s uncommitted notes\n');
  writeFileSync(join(proj, 'repro.py'), 'print(1)\n');
  created.add(join(proj, 'repro.py'));
  writeFileSync(join(proj, 'dist', 'bundle.js'), 'x\n');
  writeFileSync(join(plain, 'a.txt'), 'x\n');
});

after(() => rmSync(root, { recursive: true, force: true }));

describe('files git cannot give back ask', () => {
  test('an untracked file the session did not create', () => {
    assert.deepEqual(decide('rm notes-draft.md'), { tier: 'soft_deny', rule: 'fs.rm-untracked' });
    assert.equal(decide('rm -f notes-draft.md').tier, 'soft_deny');
    assert.equal(decide('rm -rf notes-draft.md').tier, 'soft_deny');
    assert.equal(decide('cd src && rm ../notes-draft.md').tier, 'soft_deny');
  });
  test('a glob that matches one of them (as bash expands it)', () => {
    assert.equal(decide('rm notes-*.md').tier, 'soft_deny');
    assert.equal(decide('rm *.md').tier, 'soft_deny');
    assert.equal(decide('rm -f ./notes-dra?t.md').tier, 'soft_deny');
  });
  test('a tracked file changed since it was committed', () => {
    writeFileSync(join(proj, 'README.md'), '# p\n\nhours of edits\n');
    try {
      assert.equal(decide('rm README.md').tier, 'soft_deny');
    } finally {
      writeFileSync(join(proj, 'README.md'), '# p\n');
    }
  });
});

describe('nothing git cannot restore is lost', () => {
  test('a tracked, unchanged file', () => assert.deepEqual(decide('rm src/old.ts'), { tier: 'allow', rule: 'fs.rm-file' }));
  test('a file this session created', () => assert.equal(decide('rm repro.py').tier, 'allow'));
  test('build output', () => assert.equal(decide('rm dist/bundle.js').tier, 'allow'));
  test('a file that is not there', () => assert.equal(decide('rm missing.txt').tier, 'allow'));
  test('a glob over tracked files and the session\'s own only', () => {
    assert.equal(decide('rm src/*.ts').tier, 'allow');
    assert.equal(decide('rm repro.*').tier, 'allow');
    assert.equal(decide('rm *.nothing').tier, 'allow');
  });
  test('a link (only the link goes)', () => {
    symlinkSync(join(proj, 'notes-draft.md'), join(proj, 'draft-link'));
    assert.equal(decide('rm draft-link').tier, 'allow');
  });
  test('a project without git: asimov cannot tell, and does not ask for every removal', () => {
    assert.equal(decide('rm a.txt', plain).tier, 'allow');
  });
});
