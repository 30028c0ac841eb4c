// A policy's `tests:`: collected from the files with their lines, run against a classifier, reported.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCall } from '../../src/core/types.ts';
import { defineShellRule } from '../../src/policy/rule.ts';
import { loadPolicy } from '../../src/policy/load.ts';
import { collectTests, runPolicyTests, testCall } from '../../src/policy/policy-tests.ts';
import type { PolicyTestOutcome } from '../../src/policy/policy-tests.ts';

/** Temp dirs made by this file, removed when it finishes. */
const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(d);
  return d;
}

const builtin = [
  defineShellRule({ id: 'fs.rm-root', tier: 'hard_deny', reason: 'r', examples: { match: ['rm -rf /'], notMatch: [] }, match: () => null }),
];

function loadWith(text: string) {
  const dir = tempDir('asimov-ptests-');
  const root = join(dir, 'project');
  mkdirSync(join(root, '.asimov'), { recursive: true });
  const file = join(root, '.asimov', 'policy.yaml');
  writeFileSync(file, text);
  const policy = loadPolicy({ cwd: root, home: join(dir, 'home'), managedPath: join(dir, 'none.yaml'), trustStorePath: join(dir, 't.json'), env: {}, builtin });
  return { root, file, policy };
}

const text = `version: 1
tests:
  - command: "rm -rf /"
    expect: hard_deny
    rule: fs.rm-root
  - tool: write
    input: { file_path: .env }
    expect: ask
  - command: ls
    cwd: /tmp
    expect: allow
`;

/** A stand-in classifier with fixed answers: what is under test here is the runner, not classification. */
function classifier(answers: Record<string, PolicyTestOutcome>) {
  const seen: ToolCall[] = [];
  const classify = (call: ToolCall): PolicyTestOutcome => {
    seen.push(call);
    const key = call.tool === 'shell' ? String(call.input.command) : call.tool;
    const a = answers[key];
    if (!a) throw new Error(`no answer for ${key}`);
    return a;
  };
  return { classify, seen };
}

describe('policy tests', () => {
  test('collectTests returns the loaded tests in file order with lines', () => {
    const { policy, file } = loadWith(text);
    assert.deepEqual(collectTests(policy).map((t) => [t.file, t.line]), [[file, 3], [file, 6], [file, 9]]);
  });

  test('each test becomes the call the gate would see', () => {
    const { policy, root } = loadWith(text);
    const [a, b, c] = collectTests(policy).map(testCall);
    assert.deepEqual(a, { tool: 'shell', input: { command: 'rm -rf /' }, cwd: root, projectRoot: root, agent: 'policy-test' });
    assert.deepEqual(b, { tool: 'write', input: { file_path: '.env' }, cwd: root, projectRoot: root, agent: 'policy-test' });
    assert.equal(c?.cwd, '/tmp');
  });

  test('passing tests pass: tier, verdict and rule all checked', () => {
    const { policy } = loadWith(text);
    const { classify, seen } = classifier({
      'rm -rf /': { tier: 'hard_deny', verdict: 'deny', rule: 'fs.rm-root' },
      write: { tier: 'soft_deny', verdict: 'ask', rule: 'files.env' },
      ls: { tier: 'allow', verdict: 'allow', rule: null },
    });
    const results = runPolicyTests(collectTests(policy), classify);
    assert.deepEqual(results.map((r) => r.pass), [true, true, true]);
    assert.equal(seen.length, 3);
    assert.match(results[0]!.message, /policy\.yaml:3: tests\[0\]: ok: hard_deny \(rule fs\.rm-root\)$/);
  });

  test('a wrong tier, verdict or rule fails with file:line, what was expected and what came', () => {
    const { policy, file } = loadWith(text);
    const { classify } = classifier({
      'rm -rf /': { tier: 'hard_deny', verdict: 'deny', rule: 'fs.rm-recursive' },
      write: { tier: 'soft_deny', verdict: 'deny', rule: 'files.env' },
      ls: { tier: 'unknown', verdict: 'ask', rule: null },
    });
    const results = runPolicyTests(collectTests(policy), classify);
    assert.deepEqual(results.map((r) => r.pass), [false, false, false]);
    assert.equal(results[0]!.where, `${file}:3`);
    assert.equal(results[0]!.message, `${file}:3: tests[0]: expected hard_deny (rule fs.rm-root), got hard_deny, verdict deny (rule fs.rm-recursive)`);
    assert.equal(results[1]!.message, `${file}:6: tests[1]: expected verdict ask, got soft_deny, verdict deny (rule files.env)`);
    assert.equal(results[2]!.message, `${file}:9: tests[2]: expected allow, got unknown, verdict ask (no rule)`);
    assert.deepEqual(results[2]!.got, { tier: 'unknown', verdict: 'ask', rule: null });
  });

  test('a classifier that throws fails that test only', () => {
    const { policy, file } = loadWith(text);
    const { classify } = classifier({ 'rm -rf /': { tier: 'hard_deny', verdict: 'deny', rule: 'fs.rm-root' }, ls: { tier: 'allow', verdict: 'allow', rule: null } });
    const results = runPolicyTests(collectTests(policy), classify);
    assert.deepEqual(results.map((r) => r.pass), [true, false, true]);
    assert.equal(results[1]!.got, undefined);
    assert.equal(results[1]!.message, `${file}:6: tests[1]: expected verdict ask, but classifying failed: Error: no answer for write`);
  });
});
