// The policy schema: what a valid file is, and the messages for what is not.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { didYouMean, formatKeyPath, levenshtein, validatePolicyData } from '../../src/policy/schema.ts';
import type { SchemaProblem } from '../../src/policy/schema.ts';

function problems(data: unknown): SchemaProblem[] {
  const r = validatePolicyData(data);
  assert.equal(r.ok, false, 'expected the data to be invalid');
  return r.ok ? [] : r.problems;
}

function only(data: unknown): { key: string; message: string; at: string } {
  const ps = problems(data);
  assert.equal(ps.length, 1, `expected one problem, got ${JSON.stringify(ps)}`);
  const p = ps[0]!;
  return { key: formatKeyPath(p.path), message: p.message, at: p.at };
}

const rule = {
  id: 'local.no-prod-psql',
  tier: 'hard_deny',
  reason: 'Never touch production.',
  match: { command: ['psql', '*prod*'] },
  examples: { match: ['psql -h prod'], notMatch: ['psql -h localhost'] },
};

describe('policy schema', () => {
  test('a full document validates and short forms become lists', () => {
    const r = validatePolicyData({
      version: 1,
      rules: { 'git.push-default-branch': 'allow', 'publish.*': 'hard_deny', 'net.curl-upload': { tier: 'soft_deny' } },
      custom: [{ ...rule, match: { path: 'deploy/**', tools: 'write' } }],
      protectedPaths: 'deploy/**',
      allowedDomains: ['api.mycorp.com', '*.mycorp.dev'],
      defaultBranches: ['main', 'trunk'],
      judge: { provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: 'https://api.anthropic.com', timeoutMs: 30000, onUncertain: 'ask' },
      tests: [{ command: 'rm -rf /', expect: 'hard_deny', rule: 'fs.rm-root' }, { tool: 'write', input: { file_path: '.env' }, expect: 'deny' }],
    });
    assert.ok(r.ok);
    assert.deepEqual(r.doc.custom?.[0]?.match, { path: ['deploy/**'], tools: ['write'] });
    assert.deepEqual(r.doc.protectedPaths, ['deploy/**']);
  });

  test('empty sections are allowed', () => {
    assert.ok(validatePolicyData({ version: 1, rules: null, custom: null, tests: null }).ok);
  });

  test('an empty file and a non-mapping are explained', () => {
    assert.match(only(null).message, /empty; it needs at least `version: 1`/);
    assert.match(only('hello').message, /must be a mapping of keys starting with `version: 1`/);
  });

  test('version is required and must be 1', () => {
    assert.deepEqual(only({}), { key: 'version', at: 'key', message: 'missing required key "version" (add `version: 1`)' });
    assert.match(only({ version: 2 }).message, /version must be 1/);
  });

  test('unknown keys are named, with a suggestion from the keys known at that place', () => {
    assert.deepEqual(only({ version: 1, rulez: {} }), { key: 'rulez', at: 'key', message: 'unknown key "rulez" (did you mean "rules"?)' });
    assert.match(only({ version: 1, protected_paths: [] }).message, /did you mean "protectedPaths"/);
    const p = only({ version: 1, custom: [{ ...rule, match: { comand: ['x'] } }] });
    assert.equal(p.key, 'custom[0].match.comand');
    assert.match(p.message, /did you mean "command"/);
    const far = only({ version: 1, judge: { colour: 'red' } });
    assert.match(far.message, /unknown key "colour"; known keys: provider, model, baseUrl, timeoutMs, onUncertain/);
  });

  test('a bad tier name is named with the valid ones and a suggestion', () => {
    const p = only({ version: 1, rules: { 'git.force-push': 'hard-deny' } });
    assert.equal(p.key, 'rules.git.force-push');
    assert.match(p.message, /"hard-deny" is not one of hard_deny, soft_deny, unknown, allow \(did you mean "hard_deny"\?\)/);
    assert.match(only({ version: 1, rules: { x: { tier: 'alow' } } }).message, /did you mean "allow"/);
    assert.match(only({ version: 1, rules: { x: 3 } }).message, /expected a tier .* or \{ tier: … \}/);
    assert.equal(only({ version: 1, rules: { x: { tier: 'allow', extra: 1 } } }).key, 'rules.x.extra');
  });

  test('wrong types say what was expected and what was found', () => {
    assert.equal(only({ version: 1, defaultBranches: 3 }).message, 'expected a list, got the number 3');
    assert.equal(only({ version: 1, custom: {} }).message, 'expected a list, got a mapping');
    assert.match(only({ version: 1, custom: [{ ...rule, match: { command: 'psql prod' } }] }).message, /command is an argv prefix: a list/);
    assert.match(only({ version: 1, judge: { timeoutMs: 'soon' } }).message, /whole number of milliseconds/);
  });

  test('custom rules: id form, empty reason, invalid regex, no matcher, overrides only for allow', () => {
    assert.match(only({ version: 1, custom: [{ ...rule, id: 'NoDots' }] }).message, /dotted lower-case words/);
    assert.match(only({ version: 1, custom: [{ ...rule, reason: '   ' }] }).message, /reason must not be empty/);
    const re = only({ version: 1, custom: [{ ...rule, match: { pattern: '(' } }] });
    assert.equal(re.key, 'custom[0].match.pattern');
    assert.match(re.message, /invalid regular expression/);
    assert.match(only({ version: 1, custom: [{ ...rule, match: {} }] }).message, /at least one matcher/);
    const ov = only({ version: 1, custom: [{ ...rule, overrides: ['fs.rm-recursive'] }] });
    assert.equal(ov.key, 'custom[0].overrides');
    assert.match(ov.message, /only for rules with tier allow/);
    assert.match(only({ version: 1, custom: [{ ...rule, examples: { match: [] } }] }).message, /at least one `match` example/);
    assert.match(only({ version: 1, custom: [{ ...rule, match: { command: ['x'], tools: ['write'] } }] }).message, /could never match/);
  });

  test('examples are strings or { tool, input }', () => {
    const p = only({ version: 1, custom: [{ ...rule, examples: { match: [42] } }] });
    assert.equal(p.key, 'custom[0].examples.match[0]');
    assert.match(p.message, /a shell command \(a string\) or a tool call \{ tool, input \}/);
    assert.equal(only({ version: 1, custom: [{ ...rule, examples: { match: [{ tool: 'write' }] } }] }).message, 'missing required key "input"');
  });

  test('allowed domains are hosts, not URLs', () => {
    assert.match(only({ version: 1, allowedDomains: ['https://api.x.com'] }).message, /is a URL; give the host only/);
    assert.match(only({ version: 1, allowedDomains: ['a b'] }).message, /not a host name/);
  });

  test('judge settings are checked and cannot fail open', () => {
    assert.match(only({ version: 1, judge: { provider: 'antropic' } }).message, /did you mean "anthropic"/);
    assert.match(only({ version: 1, judge: { onUncertain: 'allow' } }).message, /not one of ask, deny/);
    assert.match(only({ version: 1, judge: { baseUrl: 'ftp://x' } }).message, /http:\/\/ or https:\/\//);
  });

  test('tests need exactly one of command or tool+input, and a known expectation', () => {
    assert.match(only({ version: 1, tests: [{ expect: 'allow' }] }).message, /exactly one of `command`/);
    assert.match(only({ version: 1, tests: [{ command: 'ls', tool: 'x', input: {}, expect: 'allow' }] }).message, /exactly one of `command`/);
    assert.match(only({ version: 1, tests: [{ tool: 'write', expect: 'allow' }] }).message, /needs `input`/);
    assert.match(only({ version: 1, tests: [{ command: 'ls', expect: 'dny' }] }).message, /did you mean "deny"/);
  });

  test('every problem is reported, not just the first', () => {
    assert.equal(problems({ version: 1, rulez: 1, judge: { model: '' }, tests: 'x' }).length, 3);
  });
});

describe('suggestions', () => {
  test('edit distance counts insertions, deletions and substitutions', () => {
    assert.equal(levenshtein('kitten', 'sitting'), 3);
    assert.equal(levenshtein('', 'abc'), 3);
    assert.equal(levenshtein('same', 'same'), 0);
  });

  test('did-you-mean picks the closest within distance 2, ignoring case, _ and -', () => {
    assert.equal(didYouMean('git.forse-push', ['git.force-push', 'fs.rm-root']), 'git.force-push');
    assert.equal(didYouMean('ProtectedPaths', ['protectedPaths', 'rules']), 'protectedPaths');
    assert.equal(didYouMean('zzz', ['rules']), undefined);
  });

  test('key paths read like the file', () => {
    assert.equal(formatKeyPath(['custom', 0, 'examples', 'match', 2]), 'custom[0].examples.match[2]');
    assert.equal(formatKeyPath([]), '');
  });
});

test('the key lists used for suggestions are exactly the schema\'s keys', async () => {
  const { schemas, TOP_LEVEL_KEYS, JUDGE_KEYS } = await import('../../src/policy/schema.ts');
  assert.deepEqual([...TOP_LEVEL_KEYS].sort(), Object.keys(schemas().policySchema.shape).sort());
  assert.deepEqual([...JUDGE_KEYS].sort(), Object.keys(schemas().judgeSchema.shape).sort());
});
