// docs/rules.md is generated from the rules; this fails when someone changes a rule and not the doc.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { recommended } from '../../src/policy/rules/index.ts';
import { rulesMarkdown } from '../../src/policy/rules-doc.ts';

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
