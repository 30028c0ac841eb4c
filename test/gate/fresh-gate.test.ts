// A long-lived process's gate never decides with a policy older than its files. These tests use real files and
// the real gate; the "racy" rule is held off by signing with a clock that says the files were written long ago,
// so what is proven here is the stat signature itself.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, unlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type GateOptions } from '../../src/gate/gate.ts';
import { freshGate } from '../../src/gate/fresh-gate.ts';
import { policyInputPaths, RACY_MS, signatureOf } from '../../src/gate/policy-freshness.ts';
import type { ToolCall } from '../../src/core/types.ts';
function scratch(): { root: string; home: string; project: string; env: NodeJS.ProcessEnv; done: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'asimov-gcache-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(home, '.config', 'asimov'), { recursive: true });
  return { root, home, project, env: { HOME: home, PATH: '/usr/bin' }, done: () => rmSync(root, { recursive: true, force: true }) };
}

/** Writes a file and dates it well in the past, so that its signature is not racy. */
function writeOld(file: string, text: string, ageS = 100): void {
  writeFileSync(file, text);
  const t = Date.now() / 1000 - ageS;
  utimesSync(file, t, t);
}

test('the policy inputs are the user, project and managed files, the trust store and the team policy\'s cached copy', () => {
  const paths = policyInputPaths({ projectRoot: '/p', home: '/h', env: {} });
  assert.deepEqual(paths, [
    '/h/.config/asimov/policy.yaml', '/p/.asimov/policy.yaml', '/etc/asimov/policy.yaml', '/h/.config/asimov/trusted.json',
    '/h/.local/state/asimov/team/meta.json', '/h/.local/state/asimov/team/policy.yaml', '/h/.local/state/asimov/team/ground-rules.md',
  ]);
  assert.deepEqual(policyInputPaths({ projectRoot: '/p', home: '/h', env: { XDG_CONFIG_HOME: '/x' } })[0], '/x/asimov/policy.yaml');
});

test('a signature changes on edit, create and delete, and is racy just after a write', () => {
  const s = scratch();
  try {
    const file = join(s.home, 'f.yaml');
    const later = Date.now() + 10 * RACY_MS;
    const absent = signatureOf([file], later);
    writeOld(file, 'a: 1\n');
    const created = signatureOf([file], later);
    assert.notEqual(created.text, absent.text);
    assert.equal(created.racy, false);
    writeOld(file, 'a: 2\n', 50); // same size, another time
    assert.notEqual(signatureOf([file], later).text, created.text);
    writeFileSync(file, 'a: 3\n');
    assert.equal(signatureOf([file]).racy, true);
    unlinkSync(file);
    assert.equal(signatureOf([file], later).text, absent.text);
  } finally {
    s.done();
  }
});

test('a fresh gate sees edits, new files and deletions on the next call, and reuses the policy otherwise', () => {
  const s = scratch();
  try {
    let made = 0;
    const make = (o: GateOptions) => {
      made++;
      return createGate(o);
    };
    const gate = freshGate({ env: s.env, audit: false }, make);
    const call: ToolCall = { tool: 'shell', input: { command: 'ls' }, cwd: s.project, agent: 'test' };
    const verdict = () => gate.decideStatic(call).verdict;
    assert.equal(verdict(), 'allow');
    assert.equal(verdict(), 'allow');
    assert.equal(made, 1, 'an unchanged policy is kept');
    const projectPolicy = join(s.project, '.asimov', 'policy.yaml');
    mkdirSync(join(s.project, '.asimov'));
    writeOld(projectPolicy, 'version: 1\nrules:\n  dev.read-only: soft_deny\n');
    assert.equal(verdict(), 'ask');
    writeOld(join(s.home, '.config', 'asimov', 'policy.yaml'), 'version: 1\nrules:\n  dev.read-only: hard_deny\n');
    assert.equal(verdict(), 'deny');
    unlinkSync(join(s.home, '.config', 'asimov', 'policy.yaml'));
    unlinkSync(projectPolicy);
    assert.equal(verdict(), 'allow');
    const before = made;
    assert.equal(verdict(), 'allow');
    assert.equal(made, before);
  } finally {
    s.done();
  }
});
