// docs/rules.md is generated from the rules; this fails when someone changes a rule and not the doc.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { recommended } from '../../src/policy/rules/index.ts';
import { rulesMarkdown } from '../../src/policy/rules-doc.ts';
import { parsePolicyText } from '../../src/policy/load.ts';

test('docs/rules.md matches the built-in rules (regenerate with `asimov rules --markdown > docs/rules.md`)', () => {
  const doc = readFileSync(new URL('../../docs/rules.md', import.meta.url), 'utf8');
  assert.equal(doc, rulesMarkdown(recommended));
});

test('every built-in rule id is unique', () => {
  const ids = recommended.map((r) => r.id);
  const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
  assert.deepEqual(dupes, []);
});

test('every document the README links to exists', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const m of readme.matchAll(/\]\((docs\/[^)#]+)/g)) {
    assert.doesNotThrow(() => readFileSync(new URL(`../../${m[1]}`, import.meta.url)), `missing ${m[1]}`);
  }
});

test('every rule family has a test file that runs its examples through the whole pipeline', () => {
  const families = new Set(recommended.map((r) => r.id.split('.')[0]!));
  const dir = new URL('../../test/policy/rules/', import.meta.url);
  const texts = readdirSync(dir).filter((f) => f.endsWith('.test.ts')).map((f) => readFileSync(new URL(f, dir), 'utf8'));
  assert.ok(texts.every((t) => t.includes('testRuleExamples(')), 'a rules test file does not call testRuleExamples');
  // Each rule is exported by exactly one family module, and each module's rules are tested by its test file.
  const srcDir = new URL('../../src/policy/rules/', import.meta.url);
  const modules = readdirSync(srcDir).filter((f) => f.endsWith('.ts') && readFileSync(new URL(f, srcDir), 'utf8').includes('export const rules'));
  for (const m of modules) {
    if (m === 'index.ts') continue;
    const base = m.replace(/\.ts$/, '');
    assert.ok(readdirSync(dir).includes(`${base}.test.ts`) || texts.some((t) => t.includes(`rules/${base}.ts`)), `no test for src/policy/rules/${m}`);
  }
  assert.ok(families.size > 10);
});

test("the README's policy file example is a valid policy file", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Policy files'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(yaml, 'no yaml block under "## Policy files"');
  assert.doesNotThrow(() => parsePolicyText(yaml, 'README.md'));
});
