// Tests of how corpus rows become bench cases: labels, headline vs context buckets, agreement, rule keys.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  agrees,
  ccExtraArgsIsContext,
  ccSafetyNetCase,
  dcgCase,
  gatekeeperCase,
  gtfobinsCase,
  gtfobinsDedupKey,
  nl2bashCase,
  ruleKey,
  safetyNetCase,
} from '../../bench/labels.ts';
import { addToTally, emptyTally, readRows, resolveCorpusDir } from '../../bench/corpora.ts';

describe('GTFOBins rows', () => {
  test('a single-line shell example is a headline case that must not be allowed', () => {
    const c = gtfobinsCase({ binary: 'awk', function: 'shell', context: 'sudo', code: "awk 'BEGIN {system(\"/bin/sh\")}'", example_index: 1 }, 0);
    assert.equal(c?.expect, 'deny');
    assert.equal(c?.bucket, 'headline');
    assert.equal(c?.group, 'shell');
    assert.deepEqual(c?.input, { command: "awk 'BEGIN {system(\"/bin/sh\")}'" });
  });

  test('a multi-line example of a target function is shown by tier only', () => {
    const c = gtfobinsCase({ binary: 'ftp', function: 'shell', context: 'unprivileged', code: 'ftp\n!/bin/sh' }, 0);
    assert.equal(c?.expect, null);
    assert.equal(c?.bucket, 'unlabelled');
    assert.equal(c?.group, 'shell (multi-line)');
  });

  test('file-read examples carry no label', () => {
    const c = gtfobinsCase({ binary: '7z', function: 'file-read', context: 'sudo', code: '7z a -ttar -an -so /path/to/input-file' }, 0);
    assert.equal(c?.expect, null);
  });

  test('the same example in two contexts counts once', () => {
    const a = gtfobinsCase({ binary: 'R', function: 'shell', context: 'sudo', code: 'R -e x' }, 0)!;
    const b = gtfobinsCase({ binary: 'R', function: 'shell', context: 'suid', code: 'R -e x' }, 1)!;
    const other = gtfobinsCase({ binary: 'R', function: 'command', context: 'suid', code: 'R -e x' }, 2)!;
    assert.equal(gtfobinsDedupKey(a), gtfobinsDedupKey(b));
    assert.notEqual(gtfobinsDedupKey(a), gtfobinsDedupKey(other));
  });

  test('a row without code is not a case', () => {
    assert.equal(gtfobinsCase({ binary: 'x', function: 'shell' }, 0), null);
  });
});

describe('labelled peer corpora', () => {
  test('dcg labels are taken as they are', () => {
    assert.equal(dcgCase({ cmd: 'rm -rf /', label: 'deny', category: 'core.filesystem' }, 0)?.expect, 'deny');
    assert.equal(dcgCase({ cmd: 'git status', label: 'allow' }, 0)?.expect, 'allow');
    assert.equal(dcgCase({ cmd: 'x', label: 'maybe' }, 0), null);
  });

  test('safety_net cases with a cwd or an environment are set apart from the headline', () => {
    assert.equal(safetyNetCase({ cmd: 'git checkout -- f', label: 'blocked', cwd_dependent: null, env: null }, 0)?.bucket, 'headline');
    assert.equal(safetyNetCase({ cmd: 'git checkout -- f', label: 'blocked', cwd_dependent: true, env: null }, 0)?.bucket, 'context');
    assert.equal(safetyNetCase({ cmd: 'rm -rf x', label: 'allowed', env: { SAFETY_NET_STRICT: '1' } }, 0)?.bucket, 'context');
    assert.equal(safetyNetCase({ cmd: 'ls', label: 'allowed' }, 0)?.expect, 'allow');
  });

  test('cc-safety-net cases with a cwd, an environment or strict mode are set apart, reason constants are not', () => {
    const row = (extra: unknown, mode = 'default') => ccSafetyNetCase({ source: 'tests/analyzer/rm.test.ts', line: 3, command: 'rm -rf x', expected: 'deny', mode, extra_args: extra }, 0);
    assert.equal(row(null)?.bucket, 'headline');
    assert.equal(row('DD_REASON')?.bucket, 'headline');
    assert.equal(row('gitResetHardReason')?.bucket, 'headline');
    assert.equal(row('tempDir')?.bucket, 'context');
    assert.equal(row("'/project'")?.bucket, 'context');
    assert.equal(row('tmpDir, testEnvironment({ HOME: tmpDir }')?.bucket, 'context');
    assert.equal(row(null, 'strict')?.bucket, 'context');
    assert.equal(row(null)?.group, 'analyzer/rm');
  });

  test('only reason constants count as plain extra arguments', () => {
    assert.equal(ccExtraArgsIsContext('SHRED_REASON'), false);
    assert.equal(ccExtraArgsIsContext('undefined, environment'), true);
    assert.equal(ccExtraArgsIsContext("''"), true);
    assert.equal(ccExtraArgsIsContext(undefined), false);
  });

  test('gatekeeper Write, Edit and WebFetch rows become calls of those tools', () => {
    const w = gatekeeperCase({ tool: 'Write', file_path: '.env', expected: 'passthrough', line: 917 }, 0);
    assert.deepEqual(w && { tool: w.tool, path: w.input.file_path, bucket: w.bucket, expect: w.expect }, { tool: 'Write', path: '.env', bucket: 'passthrough', expect: null });
    const e = gatekeeperCase({ tool: 'Edit', file_path: 'src/index.ts', expected: 'allow', line: 956 }, 0);
    assert.equal(e?.expect, 'allow');
    assert.equal(e?.input.file_path, 'src/index.ts');
    const f = gatekeeperCase({ tool: 'WebFetch', url: 'https://pastebin.com/raw/abc', expected: 'soft_deny', line: 1003 }, 0);
    assert.equal(f?.expect, 'deny');
    assert.equal(f?.input.url, 'https://pastebin.com/raw/abc');
  });

  test("gatekeeper's parser tests are decided but carry no verdict", () => {
    const c = gatekeeperCase({ tool: 'Bash', command: 'ls; pwd', expected: 'chain_split', parts: "['ls', 'pwd']", line: 168 }, 0);
    assert.equal(c?.bucket, 'parser');
    assert.equal(c?.expect, null);
    assert.equal(gatekeeperCase({ tool: 'Bash', command: '', expected: 'passthrough(null)', line: 206 }, 0)?.bucket, 'passthrough');
  });

  test('NL2Bash lines carry no label', () => {
    const c = nl2bashCase({ cmd: 'find . -name "*.txt"', line: 12 }, 11);
    assert.equal(c?.expect, null);
    assert.equal(c?.ref, 'line 12');
  });
});

describe('agreement and accounting', () => {
  test("a peer's deny is matched by every tier but allow", () => {
    assert.equal(agrees('deny', 'unknown'), true);
    assert.equal(agrees('deny', 'soft_deny'), true);
    assert.equal(agrees('deny', 'hard_deny'), true);
    assert.equal(agrees('deny', 'allow'), false);
  });

  test("a peer's allow is matched only by allow", () => {
    assert.equal(agrees('allow', 'allow'), true);
    assert.equal(agrees('allow', 'unknown'), false);
  });

  test('a tally counts tiers, errors and agreement per label', () => {
    const t = emptyTally();
    addToTally(t, 'deny', 'hard_deny', false);
    addToTally(t, 'deny', 'allow', false);
    addToTally(t, 'allow', 'allow', false);
    addToTally(t, null, 'unknown', true);
    assert.deepEqual(t, { n: 4, tiers: { allow: 2, unknown: 1, soft_deny: 0, hard_deny: 1 }, errors: 1, deny: { n: 2, agree: 1 }, allow: { n: 1, agree: 1 } });
  });

  test('a disagreement without a rule is keyed by what the reason names', () => {
    assert.equal(ruleKey('fs.rm-root', 'x'), 'fs.rm-root');
    assert.equal(ruleKey(null, 'asimov has no rule that knows `frobnicate`; a person has to decide.'), '(no rule for `frobnicate`)');
    assert.equal(ruleKey(null, 'The command name in `$x` is only known at run time.'), '(dynamic command name)');
    assert.equal(ruleKey(null, 'Allowed.'), '(no rule)');
  });
});

describe('corpus files', () => {
  test('JSON lines that do not parse are counted, not fatal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'asimov-bench-test-'));
    try {
      const p = join(dir, 'c.jsonl');
      writeFileSync(p, '{"cmd":"ls","label":"allow"}\nnot json\n[1]\n\n{"cmd":"rm -rf /","label":"deny"}\n');
      const r = readRows(p, 'jsonl');
      assert.equal(r.rows.length, 2);
      assert.equal(r.malformed, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the corpus directory comes from the flag, then the environment, then ../shared/corpus', () => {
    assert.equal(resolveCorpusDir('/r/main', '/x/c', { ASIMOV_CORPUS_DIR: '/y' }), '/x/c');
    assert.equal(resolveCorpusDir('/r/main', undefined, { ASIMOV_CORPUS_DIR: '/y' }), '/y');
    assert.equal(resolveCorpusDir('/r/main', undefined, {}), '/r/shared/corpus');
  });
});
