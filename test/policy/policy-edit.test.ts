// Adding a custom rule to a policy file a person keeps: the rest of the file stays byte for byte, a rule
// with the same id is replaced in place, odd shapes still come out right, and a file the check refuses is
// never written.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { commitPolicyText, customRuleIn, upsertCustomRule } from '../../src/policy/policy-edit.ts';

const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-policy-edit-')));
  made.push(d);
  return d;
}

const RULE = { id: 'mcp-allow.s', tier: 'allow', reason: 'r', match: { tool: ['mcp__s__a'] }, examples: { match: [{ tool: 'mcp__s__a', input: {} }] } };
const HEADER = '# header\n';

const COMMENTED = `# my policy, by hand
version: 1   # the only version

rules:
  git.push-default-branch: hard_deny # never

custom:
  # the prod rule
  - id: local.no-prod
    tier: hard_deny
    reason: "no prod"   # quoted on purpose
    match: { command: [psql, "*prod*"] }
    examples:
      match: ["psql prod"]
  # a comment after the list

# protected, see wiki
protectedPaths: ['deploy/**']
`;

describe('upsertCustomRule', () => {
  test('a new file gets the header, version 1 and the rule', () => {
    const out = upsertCustomRule(null, RULE, HEADER);
    assert.ok(out.startsWith(HEADER));
    assert.deepEqual(parse(out), { version: 1, custom: [RULE] });
  });

  test('appends to an existing list: everything that was there stays byte for byte', () => {
    const out = upsertCustomRule(COMMENTED, RULE, HEADER);
    const at = out.indexOf('  - id: mcp-allow.s');
    assert.ok(at > 0);
    const added = out.slice(at, at + (out.length - COMMENTED.length));
    assert.equal(out.slice(0, at) + out.slice(at + added.length), COMMENTED);
    assert.deepEqual(parse(out).custom, [parse(COMMENTED).custom[0], RULE]);
  });

  test('adds a custom: list at the end when the file has none, also without a final newline', () => {
    const text = '# mine\nversion: 1\nprotectedPaths: [x] # keep';
    const out = upsertCustomRule(text, RULE, HEADER);
    assert.ok(out.startsWith(text));
    assert.deepEqual(parse(out), { version: 1, protectedPaths: ['x'], custom: [RULE] });
  });

  test('replaces the rule with the same id in place, leaving the other rules and comments alone', () => {
    const once = upsertCustomRule(COMMENTED, RULE, HEADER);
    const changed = { ...RULE, match: { tool: ['mcp__s__a', 'mcp__s__b'] } };
    const twice = upsertCustomRule(once, changed, HEADER);
    assert.deepEqual(parse(twice).custom, [parse(COMMENTED).custom[0], changed]);
    assert.ok(twice.startsWith(once.slice(0, once.indexOf('  - id: mcp-allow.s'))));
    assert.ok(twice.endsWith(once.slice(once.indexOf('  # a comment after the list'))));
    assert.equal(upsertCustomRule(twice, changed, HEADER), twice, 'the same rule again changes nothing');
  });

  test('a list indented at the key\'s own column, and the last item without a final newline', () => {
    const text = 'version: 1\ncustom:\n- id: local.a\n  tier: hard_deny\n  reason: x\n  match: { tool: "x" }\n  examples: { match: [{ tool: x, input: {} }] }';
    const out = upsertCustomRule(text, RULE, HEADER);
    assert.ok(out.startsWith(text));
    assert.equal(parse(out).custom.length, 2);
    const replaced = upsertCustomRule(out, { ...RULE, reason: 'again' }, HEADER);
    assert.equal(parse(replaced).custom[1].reason, 'again');
  });

  test('a flow list or an empty custom: still comes out right, with the comments kept', () => {
    for (const text of ['# keep me\nversion: 1\ncustom: []\n', '# keep me\nversion: 1\ncustom:\n']) {
      const out = upsertCustomRule(text, RULE, HEADER);
      assert.deepEqual(parse(out), { version: 1, custom: [RULE] });
      assert.match(out, /# keep me/);
    }
  });

  test('customRuleIn finds a rule by id', () => {
    assert.equal((customRuleIn(COMMENTED, 'local.no-prod') as { tier: string }).tier, 'hard_deny');
    assert.equal(customRuleIn(COMMENTED, 'mcp-allow.s'), undefined);
  });
});

describe('commitPolicyText', () => {
  test('writes only after the check, creating the directory', () => {
    const dir = tempDir();
    const file = join(dir, 'asimov', 'policy.yaml');
    let seen = '';
    commitPolicyText(file, 'version: 1\n', (scratch) => { seen = readFileSync(scratch, 'utf8'); });
    assert.equal(seen, 'version: 1\n');
    assert.equal(readFileSync(file, 'utf8'), 'version: 1\n');
    assert.deepEqual(readdirSync(join(dir, 'asimov')), ['policy.yaml'], 'no scratch file is left');
  });

  test('a refused check leaves the old file as it was and no scratch file behind', () => {
    const dir = tempDir();
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, 'version: 1 # old\n');
    assert.throws(() => commitPolicyText(file, 'broken', () => { throw new Error('does not load'); }), /does not load/);
    assert.equal(readFileSync(file, 'utf8'), 'version: 1 # old\n');
    assert.deepEqual(readdirSync(dir), ['policy.yaml']);
  });

  test('a symlinked policy file is written where it points, and stays a link', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'dotfiles'));
    const real = join(dir, 'dotfiles', 'policy.yaml');
    writeFileSync(real, 'version: 1\n');
    const link = join(dir, 'policy.yaml');
    symlinkSync(real, link);
    commitPolicyText(link, 'version: 1 # new\n', () => {});
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(real, 'utf8'), 'version: 1 # new\n');
    assert.ok(existsSync(link));
  });
});
