// Red-team helper: decide each line of standard input on the example machine and print tier, rule, call.
// A line that is a JSON object {"tool","input"} (or a corpus case with "call") is a tool call; any other line is shell.
//   node --import tsx test/adversarial/try.ts < list.txt
//   node --import tsx test/adversarial/try.ts test/adversarial/cases/*.jsonl   (prints mismatches only)

import { readFileSync } from 'node:fs';
import { exampleFindings } from '../../src/policy/examples.ts';
import { recommended } from '../../src/policy/rules/index.ts';
import type { RuleExample } from '../../src/policy/rule.ts';

const POLICY = { rules: recommended };
const files = process.argv.slice(2);
const text = files.length > 0 ? files.map((f) => readFileSync(f, 'utf8')).join('\n') : readFileSync(0, 'utf8');
let bad = 0;
for (const raw of text.split('\n')) {
  const line = raw.trim();
  if (line === '' || line.startsWith('//') || line.startsWith('#')) continue;
  let call: RuleExample = line;
  let expect: string | undefined;
  if (line.startsWith('{')) {
    try {
      const o = JSON.parse(line) as { call?: RuleExample; expect?: string; tool?: string; input?: Record<string, unknown> };
      if (o.call !== undefined) {
        call = o.call;
        expect = o.expect;
      } else if (typeof o.tool === 'string') call = { tool: o.tool, input: o.input ?? {} };
    } catch {
      // not JSON: a shell line that starts with a brace group
    }
  }
  const r = exampleFindings(call, POLICY);
  const shown = typeof call === 'string' ? call : JSON.stringify(call);
  if (expect !== undefined) {
    if (r.tier !== expect) {
      bad++;
      console.log(`MISMATCH expected ${expect} got ${r.tier} ${r.rule ?? '-'}\t${shown}`);
    }
  } else console.log(`${r.tier.padEnd(9)} ${(r.rule ?? '-').padEnd(28)} ${shown}`);
}
if (files.length > 0) console.log(`${bad} mismatches`);
