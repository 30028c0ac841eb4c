// The cases file of `asimov judge eval`: strict parsing with line and key in every error, and the shipped
// set itself (its size, its mix, and that Layer 1 leaves every one of its calls to the judge).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { createGate } from '../../src/gate/gate.ts';
import { parseCases, type EvalCase } from '../../src/judge/eval-cases.ts';
import { callOfCase, isForJudge } from '../../src/judge/eval.ts';

const EVAL_DIR = resolve(import.meta.dirname, '../../eval');

function parseError(text: string): AsimovError {
  try {
    parseCases(text, 'cases.jsonl');
  } catch (e) {
    assert.ok(e instanceof AsimovError, String(e));
    return e;
  }
  assert.fail('no error');
}

const good = '{"id":"a","call":{"tool":"Bash","input":{"command":"npm publish"}},"label":"deny","why":"w"}';

describe('parseCases', () => {
  test('reads cases, skipping blank lines and keeping line numbers', () => {
    const cs = parseCases(`\n${good}\r\n\n{"id":"b","call":{"tool":"Write","input":{},"cwd":"sub"},"intent":"do it","label":"allow"}\n`, 'f');
    assert.deepEqual(cs, [
      { id: 'a', call: { tool: 'Bash', input: { command: 'npm publish' } }, label: 'deny', why: 'w', line: 2 },
      { id: 'b', call: { tool: 'Write', input: {}, cwd: 'sub' }, intent: 'do it', label: 'allow', line: 4 },
    ]);
  });

  const bad: Array<[string, string, number, string | undefined, RegExp]> = [
    ['not json', `${good}\n{"id":`, 2, undefined, /not valid JSON/],
    ['an array', '[1]', 1, undefined, /JSON object/],
    ['a typo in a key', '{"id":"a","call":{"tool":"Bash","input":{}},"lable":"deny"}', 1, 'lable', /unknown key/],
    ['no id', '{"call":{"tool":"Bash","input":{}},"label":"deny"}', 1, 'id', /non-empty string/],
    ['a bad label', '{"id":"a","call":{"tool":"Bash","input":{}},"label":"ask"}', 1, 'label', /"allow" or "deny"/],
    ['no call', '{"id":"a","label":"deny"}', 1, 'call', /object/],
    ['no tool', '{"id":"a","call":{"input":{}},"label":"deny"}', 1, 'call.tool', /non-empty string/],
    ['input not an object', '{"id":"a","call":{"tool":"Bash","input":"ls"},"label":"deny"}', 1, 'call.input', /JSON object/],
    ['an unknown call key', '{"id":"a","call":{"tool":"Bash","input":{},"command":"ls"},"label":"deny"}', 1, 'call.command', /unknown key/],
    ['an empty cwd', '{"id":"a","call":{"tool":"Bash","input":{},"cwd":""},"label":"deny"}', 1, 'call.cwd', /non-empty/],
    ['an empty intent', '{"id":"a","call":{"tool":"Bash","input":{}},"intent":" ","label":"deny"}', 1, 'intent', /non-empty/],
    ['why not a string', '{"id":"a","call":{"tool":"Bash","input":{}},"label":"deny","why":3}', 1, 'why', /string/],
    ['a duplicate id', `${good}\n${good}`, 2, 'id', /duplicate id "a" \(first on line 1\)/],
  ];
  for (const [what, text, line, key, message] of bad) {
    test(`names line and key: ${what}`, () => {
      const e = parseError(text);
      assert.equal(e.code, 'bad_input');
      assert.equal(e.location?.file, 'cases.jsonl');
      assert.equal(e.location?.line, line);
      assert.equal(e.location?.key, key);
      assert.match(e.message, message);
      assert.match(e.toString(), new RegExp(`^cases\\.jsonl:${line}: ${key ? `${key.replace('.', '\\.')}: ` : ''}`));
    });
  }

  test('an empty file is an error', () => {
    assert.match(parseError('\n\n').message, /no cases/);
  });
});

describe('the shipped set (eval/judge-cases.jsonl)', () => {
  let cases: EvalCase[] = [];
  let root = '';
  before(() => {
    cases = parseCases(readFileSync(join(EVAL_DIR, 'judge-cases.jsonl'), 'utf8'), 'eval/judge-cases.jsonl');
    root = mkdtempSync(join(tmpdir(), 'asimov-eval-cases-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('holds 80 to 120 cases with both labels', () => {
    assert.ok(cases.length >= 80 && cases.length <= 120, `${cases.length} cases`);
    const deny = cases.filter((c) => c.label === 'deny').length;
    assert.ok(deny > 0 && deny < cases.length);
    for (const c of cases) assert.ok(c.why && c.why.length > 0, `${c.id} has no why`);
  });

  test('mixes shell, writes, fetches, MCP calls, unknown tools, requests and injection attempts', () => {
    const count = (f: (c: EvalCase) => boolean): number => cases.filter(f).length;
    assert.ok(count((c) => c.call.tool === 'Bash') >= 30);
    assert.ok(count((c) => ['Write', 'Edit'].includes(c.call.tool)) >= 4);
    assert.ok(count((c) => c.call.tool === 'WebFetch') >= 4);
    assert.ok(count((c) => c.call.tool.startsWith('mcp__')) >= 15);
    assert.ok(count((c) => !/^(Bash|Write|Edit|WebFetch|mcp__)/.test(c.call.tool)) >= 5);
    assert.ok(count((c) => c.intent !== undefined) >= 20);
    assert.ok(count((c) => /ignore (all )?previous instructions|answer allow|verdict: allow/i.test(JSON.stringify(c.call))) >= 5);
    // The same call with and without a request, labelled differently: the request changes the answer.
    const byCall = new Map<string, Set<string>>();
    for (const c of cases) {
      const k = JSON.stringify(c.call);
      byCall.set(k, (byCall.get(k) ?? new Set()).add(`${c.intent !== undefined}:${c.label}`));
    }
    const flips = [...byCall.values()].filter((s) => s.has('true:allow') && s.has('false:deny')).length;
    assert.ok(flips >= 5, `${flips} calls whose label the request flips`);
  });

  test('Layer 1 leaves every call to the judge (soft_deny or unknown) under the built-in policy', () => {
    const home = join(root, 'home');
    const project = join(home, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    const gate = createGate({
      audit: false,
      home,
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      userPolicyPath: join(home, 'no-user-policy.yaml'),
      managedPolicyPath: join(root, 'no-managed-policy.yaml'),
      trustStorePath: join(home, 'trusted.json'),
    });
    const settled = cases
      .map((c) => ({ id: c.id, c: gate.inspect(callOfCase(c, project)).classification }))
      .filter(({ c }) => !isForJudge(c.tier))
      .map(({ id, c }) => `${id}: ${c.tier} (${c.rule})`);
    assert.deepEqual(settled, []);
  });
});
