// The double-enforcement guard's notes: written only for an allow, taken once, only for the identical call,
// only while fresh, only from an owner-only directory. Real files in a scratch HOME.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APPROVAL_TTL_MS, approvalKey, approvalsDir, ownToolOfClientName, recordApproval, takeApproval, type OwnToolCall,
} from '../../src/gate/hook-approvals.ts';
import type { Decision } from '../../src/core/types.ts';

function scratch() {
  const home = mkdtempSync(join(tmpdir(), 'asimov-approvals-'));
  return { home, env: { HOME: home }, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

const allow: Decision = { verdict: 'allow', tier: 'allow', rule: 'shell.readonly', reason: 'read-only', layer: 'static', ms: 0, findings: [], decisionId: 'd-1' };
const call = (command: string, cwd = '/work/p'): OwnToolCall => ({ tool: 'bash', input: { command }, cwd });

test('the client names of asimov\'s own tools, in Claude Code\'s and Gemini\'s forms; nothing else', () => {
  assert.equal(ownToolOfClientName('mcp__asimov__bash'), 'bash');
  assert.equal(ownToolOfClientName('mcp_asimov_write'), 'write');
  assert.equal(ownToolOfClientName('mcp__asimov__edit'), 'edit');
  for (const other of ['mcp__asimov__shell', 'mcp__other__bash', 'Bash', 'mcp__asimov__constructor', 'mcp__asimov__toString', undefined]) {
    assert.equal(ownToolOfClientName(other), null, String(other));
  }
});

test('an allowed call leaves one note; the identical call takes it once', () => {
  const s = scratch();
  try {
    assert.equal(recordApproval(call('ls -la'), allow, s), true);
    const taken = takeApproval(call('ls -la'), s);
    assert.ok(taken);
    assert.equal(taken.decisionId, 'd-1');
    assert.equal(takeApproval(call('ls -la'), s), null, 'a note lets one call run, not two');
    assert.deepEqual(readdirSync(approvalsDir(s)), [], 'nothing left behind');
  } finally {
    s.cleanup();
  }
});

test('no note for ask or deny', () => {
  const s = scratch();
  try {
    for (const verdict of ['ask', 'deny'] as const) {
      assert.equal(recordApproval(call('make'), { ...allow, verdict }, s), false);
      assert.equal(takeApproval(call('make'), s), null);
    }
  } finally {
    s.cleanup();
  }
});

test('another command, directory, tool or action argument finds no note', () => {
  const s = scratch();
  try {
    recordApproval(call('ls'), allow, s);
    assert.equal(takeApproval(call('ls '), s), null);
    assert.equal(takeApproval(call('ls', '/work/other'), s), null);
    assert.equal(takeApproval({ tool: 'read', input: { command: 'ls' }, cwd: '/work/p' }, s), null);
    assert.equal(takeApproval({ tool: 'bash', input: { command: 'ls', timeout_ms: 5 }, cwd: '/work/p' }, s), null);
    // Arguments the tool never acts on do not matter (the server drops them before acting).
    assert.ok(takeApproval({ tool: 'bash', input: { command: 'ls', description: 'anything' }, cwd: '/work/p/' }, s));
  } finally {
    s.cleanup();
  }
});

test('an expired note is refused and removed', () => {
  const s = scratch();
  try {
    let now = 1_000_000;
    recordApproval(call('ls'), allow, { ...s, now: () => now });
    now += APPROVAL_TTL_MS + 1;
    assert.equal(takeApproval(call('ls'), { ...s, now: () => now }), null);
    assert.deepEqual(readdirSync(approvalsDir(s)), []);
  } finally {
    s.cleanup();
  }
});

test('a directory others can write, or a symlink in its place, is not trusted', () => {
  const s = scratch();
  try {
    recordApproval(call('ls'), allow, s);
    const dir = approvalsDir(s);
    chmodSync(dir, 0o755);
    assert.equal(takeApproval(call('ls'), s), null);
    assert.equal(recordApproval(call('pwd'), allow, s), false);
    chmodSync(dir, 0o700);
    // The directory swapped for a link to one the attacker controls.
    const elsewhere = join(s.home, 'elsewhere');
    renameSync(dir, elsewhere);
    symlinkSync(elsewhere, dir);
    assert.equal(takeApproval(call('ls'), s), null);
  } finally {
    s.cleanup();
  }
});

test('a note file that is group-readable, not JSON, or without its fields is refused', () => {
  const s = scratch();
  try {
    const dir = approvalsDir(s);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, approvalKey(call('ls')));
    writeFileSync(file, JSON.stringify({ at: Date.now(), decisionId: 'x' }), { mode: 0o644 });
    chmodSync(file, 0o644);
    assert.equal(takeApproval(call('ls'), s), null);
    assert.ok(!existsSync(file), 'the bad note was consumed');
    writeFileSync(file, 'not json', { mode: 0o600 });
    assert.equal(takeApproval(call('ls'), s), null);
    writeFileSync(file, JSON.stringify({ decisionId: 'x' }), { mode: 0o600 });
    assert.equal(takeApproval(call('ls'), s), null);
  } finally {
    s.cleanup();
  }
});

test('XDG_CACHE_HOME moves the directory; a relative one is ignored', () => {
  assert.equal(approvalsDir({ env: { HOME: '/h', XDG_CACHE_HOME: '/c' } }), '/c/asimov/approvals');
  assert.equal(approvalsDir({ env: { HOME: '/h', XDG_CACHE_HOME: 'rel' } }), '/h/.cache/asimov/approvals');
});
