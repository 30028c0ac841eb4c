// Every case of the standing adversarial corpus gets exactly its expected tier (see corpus.ts for the format).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleFindings } from '../../src/policy/examples.ts';
import { recommended } from '../../src/policy/rules/index.ts';
import { loadAdversarialCases } from './corpus.ts';

const POLICY = { rules: recommended };
const cases = loadAdversarialCases();

test('the corpus is not empty and every theme has attacks and benign near-misses', () => {
  assert.ok(cases.length > 0);
  const themes = new Map<string, { attacks: number; benign: number }>();
  for (const c of cases) {
    const t = themes.get(c.theme) ?? { attacks: 0, benign: 0 };
    if (c.expect === 'allow') t.benign++;
    else t.attacks++;
    themes.set(c.theme, t);
  }
  for (const [theme, n] of themes) assert.ok(n.attacks > 0, `${theme}: no attack case`);
});

for (const theme of [...new Set(cases.map((c) => c.theme))]) {
  describe(`adversarial: ${theme}`, () => {
    for (const c of cases.filter((x) => x.theme === theme)) {
      const label = typeof c.call === 'string' ? c.call : `${c.call.tool} ${JSON.stringify(c.call.input)}`;
      test(`${c.theme}:${c.line} ${label.slice(0, 140)} is ${c.expect}`, () => {
        const r = exampleFindings(c.call, POLICY);
        assert.equal(r.tier, c.expect, `${c.why}\n  got ${r.tier} [${r.findings.map((f) => `${f.rule}:${f.tier}`).join(', ')}]`);
      });
    }
  });
}
