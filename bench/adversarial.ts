// The bench's adversarial section: the repository's standing red-team corpus (test/adversarial/cases/), per
// theme how many cases got each tier, and every case whose tier differs from the one it must get. The test
// suite requires every case to match; here the same figures are shown next to the other corpora.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadAdversarialCases, type AdversarialCase } from '../test/adversarial/corpus.ts';
import { exampleFindings } from '../src/policy/examples.ts';
import { targetRow, textTable, type SummaryRow } from './report.ts';
import type { BenchEnv } from './setup.ts';

const TIERS = ['hard_deny', 'soft_deny', 'unknown', 'allow'] as const;

export interface ThemeTally {
  theme: string;
  cases: number;
  got: Record<string, number>;
  expected: Record<string, number>;
  mismatches: { c: AdversarialCase; tier: string; rule: string | null }[];
}

/** The corpus directory from the bench's own place (bench/ and bench/out/bench.mjs both resolve it: see build-bench.mjs). */
export const ADVERSARIAL_DIR = resolve(import.meta.dirname, '..', 'test', 'adversarial', 'cases');

export function runAdversarial(env: BenchEnv): ThemeTally[] {
  const byTheme = new Map<string, ThemeTally>();
  for (const c of loadAdversarialCases(ADVERSARIAL_DIR)) {
    let t = byTheme.get(c.theme);
    if (!t) byTheme.set(c.theme, (t = { theme: c.theme, cases: 0, got: {}, expected: {}, mismatches: [] }));
    // On the examples' imaginary machine the cases are written for (home /home/dev, project /home/dev/project),
    // with the bench's policy: the same decision the test suite checks.
    const d = exampleFindings(c.call, env.policy);
    t.cases++;
    t.got[d.tier] = (t.got[d.tier] ?? 0) + 1;
    t.expected[c.expect] = (t.expected[c.expect] ?? 0) + 1;
    if (d.tier !== c.expect) t.mismatches.push({ c, tier: d.tier, rule: d.rule });
  }
  return [...byTheme.values()].sort((a, b) => a.theme.localeCompare(b.theme));
}

export function formatAdversarial(tallies: ThemeTally[], outDir: string): string {
  const rows = tallies.map((t) => [t.theme, String(t.cases), ...TIERS.map((k) => `${t.got[k] ?? 0}/${t.expected[k] ?? 0}`), String(t.mismatches.length)]);
  const lines = [textTable(['theme', 'cases', 'hard (got/expected)', 'soft', 'unknown', 'allow', 'mismatches'], rows)];
  const all = tallies.flatMap((t) => t.mismatches);
  if (all.length > 0) {
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, 'adversarial-mismatches.jsonl');
    writeFileSync(file, all.map((m) => JSON.stringify({ theme: m.c.theme, line: m.c.line, call: m.c.call, expect: m.c.expect, got: m.tier, rule: m.rule, why: m.c.why })).join('\n') + '\n');
    lines.push(`${all.length} case(s) got another tier than expected (on the sandbox machine): ${file}`);
    for (const m of all.slice(0, 10)) lines.push(`  ${m.c.theme}:${m.c.line} expected ${m.c.expect}, got ${m.tier} (${m.rule ?? '-'}): ${typeof m.c.call === 'string' ? m.c.call.slice(0, 100) : m.c.call.tool}`);
  }
  return lines.join('\n');
}

export function adversarialSummaryRows(tallies: ThemeTally[]): SummaryRow[] {
  const cases = tallies.reduce((n, t) => n + t.cases, 0);
  const bad = tallies.reduce((n, t) => n + t.mismatches.length, 0);
  const attacks = tallies.reduce((n, t) => n + (t.expected['hard_deny'] ?? 0), 0);
  const missedHard = tallies.reduce((n, t) => n + t.mismatches.filter((m) => m.c.expect === 'hard_deny').length, 0);
  return [
    targetRow('adversarial', `cases with their expected tier (of ${cases})`, cases - bad, '==', cases, String),
    targetRow('adversarial', `must-be-hard_deny cases hard-denied (of ${attacks})`, attacks - missedHard, '==', attacks, String),
  ];
}
