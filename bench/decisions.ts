// Every decision over every corpus, dumped one line per case, and a diff of two dumps: how an engine change
// is checked for "no loss elsewhere" (each changed decision is a catch or is explained in the docs).
//   node --import tsx bench/decisions.ts dump FILE [--corpus DIR]   every case: corpus, ref, tier, rule
//   node --import tsx bench/decisions.ts diff OLD NEW               changed tiers, counted by corpus and move
// Reads the corpora in place (../shared/corpus or --corpus/$ASIMOV_CORPUS_DIR), agent-traffic.jsonl with
// {{PROJECT}}/{{HOME}} mapped onto the bench sandbox, and the repository's adversarial corpus.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CORPORA, readRows, resolveCorpusDir } from './corpora.ts';
import { createBenchEnv, type BenchEnv } from './setup.ts';
import { loadAdversarialCases } from '../test/adversarial/corpus.ts';
import { exampleFindings } from '../src/policy/examples.ts';
import { trafficCall } from './traffic.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');

interface Dumped {
  corpus: string;
  ref: string;
  text: string;
  tier: string;
  rule: string | null;
}

function decide(env: BenchEnv, tool: string, input: Record<string, unknown>): { tier: string; rule: string | null } {
  try {
    const d = env.gate.decideStatic(env.call(tool, input));
    return { tier: d.tier, rule: d.rule ?? null };
  } catch (e) {
    return { tier: 'exception', rule: e instanceof Error ? e.message : String(e) };
  }
}

function preview(env: BenchEnv, tool: string, input: Record<string, unknown>): string {
  // The sandbox's paths are new each run: put the corpus's placeholders back, so dumps of two runs compare.
  const s = (tool === 'Bash' && typeof input['command'] === 'string' ? input['command'] : `${tool} ${JSON.stringify(input)}`)
    .replaceAll(env.project, '{{PROJECT}}')
    .replaceAll(env.home, '{{HOME}}');
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

export function dumpDecisions(corpusDir: string): Dumped[] {
  mkdirSync(join(REPO_ROOT, 'bench', 'out'), { recursive: true });
  const env = createBenchEnv(join(REPO_ROOT, 'bench'));
  const out: Dumped[] = [];
  try {
    for (const spec of CORPORA) {
      const path = join(corpusDir, spec.file);
      if (!existsSync(path)) continue;
      readRows(path, spec.format).rows.forEach((row, i) => {
        const c = spec.map(row, i);
        if (c === null) return;
        out.push({ corpus: spec.id, ref: c.ref, text: preview(env, c.tool, c.input), ...decide(env, c.tool, c.input) });
      });
    }
    const traffic = join(corpusDir, 'agent-traffic.jsonl');
    if (existsSync(traffic)) {
      readRows(traffic, 'jsonl').rows.forEach((row, i) => {
        const call = trafficCall(row, env);
        if (call === null) return;
        out.push({ corpus: 'agent-traffic', ref: `line ${i + 1}`, text: preview(env, call.tool, call.input), ...decide(env, call.tool, call.input) });
      });
    }
    for (const c of loadAdversarialCases(resolve(REPO_ROOT, 'test', 'adversarial', 'cases'))) {
      const tool = typeof c.call === 'string' ? 'Bash' : c.call.tool;
      const input = typeof c.call === 'string' ? { command: c.call } : c.call.input;
      // On the examples' machine, which the cases are written for.
      const d = exampleFindings(c.call, env.policy);
      out.push({ corpus: `adversarial/${c.theme}`, ref: `line ${c.line}`, text: preview(env, tool, input), tier: d.tier, rule: d.rule });
    }
  } finally {
    env.dispose();
  }
  return out;
}

function readDump(file: string): Map<string, Dumped> {
  const m = new Map<string, Dumped>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const d = JSON.parse(line) as Dumped;
    m.set(`${d.corpus}\u0000${d.ref}\u0000${d.text}`, d);
  }
  return m;
}

function diff(oldFile: string, newFile: string): void {
  const a = readDump(oldFile);
  const b = readDump(newFile);
  const moves = new Map<string, number>();
  const lines: string[] = [];
  for (const [k, nd] of b) {
    const od = a.get(k);
    if (!od) continue;
    if (od.tier === nd.tier) continue;
    const key = `${nd.corpus}: ${od.tier} -> ${nd.tier}`;
    moves.set(key, (moves.get(key) ?? 0) + 1);
    lines.push(`${nd.corpus}\t${nd.ref}\t${od.tier}(${od.rule ?? '-'}) -> ${nd.tier}(${nd.rule ?? '-'})\t${nd.text.replace(/\s+/g, ' ').slice(0, 200)}`);
  }
  const onlyNew = [...b.keys()].filter((k) => !a.has(k)).length;
  const onlyOld = [...a.keys()].filter((k) => !b.has(k)).length;
  for (const [k, n] of [...moves].sort()) console.log(`${String(n).padStart(6)}  ${k}`);
  console.log(`${lines.length} changed of ${b.size}; ${onlyNew} cases only in the new dump, ${onlyOld} only in the old`);
  const file = join(REPO_ROOT, 'bench', 'out', 'decisions-diff.tsv');
  writeFileSync(file, lines.join('\n') + '\n');
  console.log(`every change: ${file}`);
}

function main(argv: string[]): number {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { corpus: { type: 'string' } } });
  const [cmd, x, y] = positionals;
  if (cmd === 'dump' && x) {
    const dir = resolveCorpusDir(REPO_ROOT, values.corpus, process.env);
    if (!existsSync(dir)) console.error(`decisions: no corpus directory at ${dir}; only the adversarial corpus is dumped`);
    const rows = dumpDecisions(dir);
    writeFileSync(x, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    console.log(`${rows.length} decisions written to ${x}`);
    return 0;
  }
  if (cmd === 'diff' && x && y) {
    diff(x, y);
    return 0;
  }
  console.error('usage: decisions.ts dump FILE [--corpus DIR] | diff OLD NEW');
  return 1;
}

process.exitCode = main(process.argv.slice(2));
