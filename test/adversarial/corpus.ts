// The standing adversarial corpus: red-team spellings per theme, each with the tier it must get, kept in
// test/adversarial/cases/<theme>.jsonl. Read by the test suite (corpus.test.ts) and by `npm run bench`.
//
// One JSON object a line: {"call": <shell line> | {"tool": <client tool name>, "input": {...}}, "expect": <tier>,
// "why": <one line: what the attack does, or why the benign near-miss must stay as it is>}. Lines starting
// with `//` are comments. Calls run on the example machine (src/policy/examples.ts): nothing needs to exist.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tier } from '../../src/core/types.ts';
import type { RuleExample } from '../../src/policy/rule.ts';

export const CASES_DIR = join(import.meta.dirname, 'cases');

export interface AdversarialCase {
  theme: string;
  line: number;
  call: RuleExample;
  expect: Tier;
  why: string;
}

const TIERS: ReadonlySet<string> = new Set(['hard_deny', 'soft_deny', 'unknown', 'allow']);

/** Every case of every theme file; throws naming the file and line on a malformed case. */
export function loadAdversarialCases(dir = CASES_DIR): AdversarialCase[] {
  const out: AdversarialCase[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort()) {
    const theme = name.slice(0, -'.jsonl'.length);
    const lines = readFileSync(join(dir, name), 'utf8').split('\n');
    lines.forEach((text, i) => {
      const t = text.trim();
      if (t === '' || t.startsWith('//')) return;
      const where = `${name}:${i + 1}`;
      let v: unknown;
      try {
        v = JSON.parse(t);
      } catch (e) {
        throw new Error(`${where}: not JSON: ${(e as Error).message}`);
      }
      const o = v as { call?: unknown; expect?: unknown; why?: unknown };
      if (typeof o.expect !== 'string' || !TIERS.has(o.expect)) throw new Error(`${where}: "expect" must be one of ${[...TIERS].join(', ')}`);
      if (typeof o.why !== 'string' || o.why.trim() === '') throw new Error(`${where}: "why" must say what the case is`);
      const call = o.call;
      const ok = typeof call === 'string' || (typeof call === 'object' && call !== null && typeof (call as { tool?: unknown }).tool === 'string' && typeof (call as { input?: unknown }).input === 'object');
      if (!ok) throw new Error(`${where}: "call" must be a shell line or {"tool", "input"}`);
      out.push({ theme, line: i + 1, call: call as RuleExample, expect: o.expect as Tier, why: o.why });
    });
  }
  return out;
}
