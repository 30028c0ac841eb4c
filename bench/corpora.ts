// Section 1 of the bench: every corpus case decided in-process, tier shares, agreement with the peers'
// labels, the disagreements written out for rule authors, and the rules most often behind them.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Tier, Verdict } from '../src/core/types.ts';
import { TIER_ORDER } from './lib.ts';
import {
  agrees,
  ccSafetyNetCase,
  dcgCase,
  gatekeeperCase,
  gtfobinsCase,
  gtfobinsDedupKey,
  nl2bashCase,
  ruleKey,
  safetyNetCase,
  type BenchCase,
  type Bucket,
  type CorpusId,
  type Expect,
} from './labels.ts';
import { formatCount, infoRow, preview, skipRow, targetRow, type SummaryRow } from './report.ts';
import type { BenchEnv } from './setup.ts';
import { formatPercent, percent, topCounts } from './stats.ts';

type Row = Record<string, unknown>;

export interface CorpusSpec {
  id: CorpusId;
  title: string;
  /** Path relative to the corpus directory. */
  file: string;
  format: 'jsonl' | 'json';
  map: (row: Row, index: number) => BenchCase | null;
  /** Rows that are the same case for us count once (GTFOBins repeats examples per context). */
  dedup?: (c: BenchCase) => string;
}

export const CORPORA: readonly CorpusSpec[] = [
  { id: 'gtfobins', title: 'GTFOBins', file: 'gtfobins.jsonl', format: 'jsonl', map: gtfobinsCase, dedup: gtfobinsDedupKey },
  { id: 'nl2bash', title: 'NL2Bash', file: 'nl2bash.jsonl', format: 'jsonl', map: nl2bashCase },
  { id: 'dcg', title: 'dcg (destructive_command_guard)', file: 'dcg.jsonl', format: 'jsonl', map: dcgCase },
  { id: 'safety_net', title: 'claude-code-safety-net v0.9', file: 'safety_net.jsonl', format: 'jsonl', map: safetyNetCase },
  { id: 'cc-safety-net-v2', title: 'cc-safety-net v2', file: 'peers/cc-safety-net-v2.jsonl', format: 'jsonl', map: ccSafetyNetCase },
  { id: 'gatekeeper-v1', title: 'gatekeeper v1', file: 'peers/gatekeeper-v1.json', format: 'json', map: gatekeeperCase },
];

/** The corpus directory: `--corpus`, else $ASIMOV_CORPUS_DIR, else `../shared/corpus` next to the repository. */
export function resolveCorpusDir(repoRoot: string, flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined && flag !== '') return resolve(flag);
  const fromEnv = env.ASIMOV_CORPUS_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv);
  return resolve(repoRoot, '..', 'shared', 'corpus');
}

/** Rows of a JSON-lines or JSON-array file; lines that do not parse to an object are counted, not fatal. */
export function readRows(path: string, format: 'jsonl' | 'json'): { rows: Row[]; malformed: number } {
  const text = readFileSync(path, 'utf8');
  const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (format === 'json') {
    const data: unknown = JSON.parse(text);
    if (!Array.isArray(data)) throw new Error(`${path}: expected a JSON array of cases`);
    const rows = data.filter(isRow);
    return { rows, malformed: data.length - rows.length };
  }
  const rows: Row[] = [];
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isRow(v)) rows.push(v);
      else malformed++;
    } catch {
      malformed++;
    }
  }
  return { rows, malformed };
}

export interface CaseResult {
  c: BenchCase;
  tier: Tier;
  verdict: Verdict;
  rule: string | null;
  reason: string;
  /** The gate answered with an error decision (layer `error`), or threw (which it must never do). */
  error: boolean;
  exception?: string;
}

/** Tier counts and agreement for one bucket (or one group within it). */
export interface Tally {
  n: number;
  tiers: Record<Tier, number>;
  errors: number;
  deny: { n: number; agree: number };
  allow: { n: number; agree: number };
}

export function emptyTally(): Tally {
  return { n: 0, tiers: { allow: 0, unknown: 0, soft_deny: 0, hard_deny: 0 }, errors: 0, deny: { n: 0, agree: 0 }, allow: { n: 0, agree: 0 } };
}

export function addToTally(t: Tally, expect: Expect | null, tier: Tier, error: boolean): void {
  t.n++;
  t.tiers[tier]++;
  if (error) t.errors++;
  if (expect === null) return;
  const side = t[expect];
  side.n++;
  if (agrees(expect, tier)) side.agree++;
}

export interface CorpusReport {
  spec: CorpusSpec;
  path: string;
  present: boolean;
  /** Why the corpus could not be read, when present but broken. */
  readError?: string;
  rows: number;
  malformed: number;
  duplicates: number;
  results: CaseResult[];
  all: Tally;
  buckets: Record<Bucket, Tally>;
  /** Headline cases per group (GTFOBins function…). */
  headlineGroups: Map<string, Tally>;
  exceptions: number;
  /** Shell lines the analysis could not read (unparseable, too long…): decided `unknown`, counted for NL2Bash. */
  analysisFailures: number;
  disagreementsFile?: string;
  errorsFile?: string;
}

function decideCase(env: BenchEnv, c: BenchCase): CaseResult {
  try {
    const d = env.gate.decideStatic(env.call(c.tool, c.input));
    return { c, tier: d.tier, verdict: d.verdict, rule: d.rule, reason: d.reason, error: d.layer === 'error' };
  } catch (e) {
    const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return { c, tier: 'unknown', verdict: 'deny', rule: null, reason: `exception escaped the gate: ${msg}`, error: true, exception: msg };
  }
}

function emptyBuckets(): Record<Bucket, Tally> {
  return { headline: emptyTally(), context: emptyTally(), unlabelled: emptyTally(), passthrough: emptyTally(), parser: emptyTally() };
}

export function runCorpus(spec: CorpusSpec, dir: string, env: BenchEnv, outDir: string): CorpusReport {
  const path = join(dir, spec.file);
  const report: CorpusReport = {
    spec, path, present: existsSync(path), rows: 0, malformed: 0, duplicates: 0, results: [], all: emptyTally(),
    buckets: emptyBuckets(), headlineGroups: new Map(), exceptions: 0, analysisFailures: 0,
  };
  if (!report.present) return report;
  let rows: Row[];
  try {
    const r = readRows(path, spec.format);
    rows = r.rows;
    report.malformed = r.malformed;
  } catch (e) {
    report.readError = e instanceof Error ? e.message : String(e);
    return report;
  }
  report.rows = rows.length;
  const seen = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    const c = spec.map(rows[i]!, i);
    if (c === null) {
      report.malformed++;
      continue;
    }
    if (spec.dedup) {
      const key = spec.dedup(c);
      if (seen.has(key)) {
        report.duplicates++;
        continue;
      }
      seen.add(key);
    }
    const r = decideCase(env, c);
    report.results.push(r);
    addToTally(report.all, c.expect, r.tier, r.error);
    addToTally(report.buckets[c.bucket], c.expect, r.tier, r.error);
    if (c.bucket === 'headline' && c.group !== undefined) {
      let g = report.headlineGroups.get(c.group);
      if (!g) report.headlineGroups.set(c.group, (g = emptyTally()));
      addToTally(g, c.expect, r.tier, r.error);
    }
    if (r.exception !== undefined) report.exceptions++;
    if (r.rule !== null && /^shell\.(?:unparseable|too-long|too-deep|too-complex|refused)$/.test(r.rule)) report.analysisFailures++;
  }
  writeOutFiles(report, outDir);
  return report;
}

function disagreementLine(r: CaseResult): string {
  return JSON.stringify({
    cmd: r.c.text,
    label: r.c.expect,
    tier: r.tier,
    verdict: r.verdict,
    rule: r.rule,
    reason: r.reason,
    kind: r.c.expect === 'deny' ? 'false_allow' : 'false_deny',
    bucket: r.c.bucket,
    ...(r.c.group !== undefined ? { group: r.c.group } : {}),
    ref: r.c.ref,
    ...(r.c.tool !== 'Bash' ? { tool: r.c.tool, input: r.c.input } : {}),
  });
}

function writeOutFiles(report: CorpusReport, outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  const id = report.spec.id;
  const disagreements = report.results.filter((r) => r.c.expect !== null && !agrees(r.c.expect, r.tier));
  const dFile = join(outDir, `${id}-disagreements.jsonl`);
  rmSync(dFile, { force: true });
  if (disagreements.length > 0) {
    writeFileSync(dFile, disagreements.map(disagreementLine).join('\n') + '\n');
    report.disagreementsFile = dFile;
  }
  const errors = report.results.filter((r) => r.error);
  const eFile = join(outDir, `${id}-errors.jsonl`);
  rmSync(eFile, { force: true });
  if (errors.length > 0) {
    writeFileSync(eFile, errors.map((r) => JSON.stringify({ cmd: r.c.text, ref: r.c.ref, reason: r.reason, exception: r.exception ?? null })).join('\n') + '\n');
    report.errorsFile = eFile;
  }
}

/** The rules most often behind headline disagreements of one kind. */
export function topRules(report: CorpusReport, kind: 'false_allow' | 'false_deny', limit = 10): [string, number][] {
  const expect: Expect = kind === 'false_allow' ? 'deny' : 'allow';
  const keys = report.results
    .filter((r) => r.c.bucket === 'headline' && r.c.expect === expect && !agrees(expect, r.tier))
    .map((r) => ruleKey(r.rule, r.reason));
  return topCounts(keys, limit);
}

function tierShares(t: Tally): string {
  return TIER_ORDER.map((tier) => `${tier} ${formatPercent(percent(t.tiers[tier], t.n))}`).join(' · ');
}

function agreementLine(label: string, t: Tally): string[] {
  const out: string[] = [];
  if (t.deny.n > 0) out.push(`${label} deny-labelled ${formatCount(t.deny.n)}: ${formatPercent(percent(t.deny.agree, t.deny.n))} not allowed (${formatCount(t.deny.n - t.deny.agree)} allowed)`);
  if (t.allow.n > 0) out.push(`${label} allow-labelled ${formatCount(t.allow.n)}: ${formatPercent(percent(t.allow.agree, t.allow.n))} allowed (${formatCount(t.allow.n - t.allow.agree)} not)`);
  return out;
}

/** The human-readable block for one corpus. */
export function formatCorpus(report: CorpusReport, repoRoot: string): string {
  const { spec } = report;
  const lines: string[] = [];
  if (!report.present) return `${spec.title}: not found at ${report.path}; skipped.`;
  if (report.readError !== undefined) return `${spec.title}: could not be read (${report.readError}); skipped.`;
  const extra = [
    report.duplicates > 0 ? `${formatCount(report.duplicates)} repeated rows counted once` : '',
    report.malformed > 0 ? `${formatCount(report.malformed)} rows without a usable case` : '',
  ].filter(Boolean);
  lines.push(`${spec.title}: ${formatCount(report.all.n)} cases decided, ${formatCount(report.all.errors)} errors, ${formatCount(report.exceptions)} exceptions${extra.length ? ` (${extra.join('; ')})` : ''}`);
  lines.push(`  tiers: ${tierShares(report.all)}`);
  if (report.analysisFailures > 0) lines.push(`  shell lines the analysis could not read (decided unknown): ${formatCount(report.analysisFailures)}`);
  lines.push(...agreementLine('  headline', report.buckets.headline));
  if (spec.id === 'gtfobins') {
    for (const [group, t] of [...report.headlineGroups.entries()].sort()) {
      lines.push(`    ${group}: ${formatCount(t.deny.n)} single-line examples, ${formatPercent(percent(t.deny.agree, t.deny.n))} not allowed`);
    }
    const u = report.buckets.unlabelled;
    if (u.n > 0) lines.push(`  other functions and multi-line examples (${formatCount(u.n)}): ${tierShares(u)}`);
  }
  const ctxT = report.buckets.context;
  if (ctxT.n > 0) {
    lines.push(`  cwd/env-dependent cases (${formatCount(ctxT.n)}, not in the headline):`);
    lines.push(...agreementLine('   ', ctxT));
  }
  const pt = report.buckets.passthrough;
  if (pt.n > 0) lines.push(`  left undecided by the peer (passthrough, ${formatCount(pt.n)}): ${tierShares(pt)}`);
  const pa = report.buckets.parser;
  if (pa.n > 0) lines.push(`  the peer's parser tests (${formatCount(pa.n)}, no verdict): ${tierShares(pa)}`);
  for (const kind of ['false_allow', 'false_deny'] as const) {
    const top = topRules(report, kind);
    if (top.length === 0) continue;
    lines.push(`  most common rules behind headline ${kind === 'false_allow' ? 'false allows' : 'false denies'}:`);
    for (const [rule, n] of top) lines.push(`    ${String(n).padStart(4)}  ${rule}`);
  }
  if (report.exceptions > 0) {
    const first = report.results.find((r) => r.exception !== undefined);
    if (first) lines.push(`  first exception: ${first.exception ?? ''} on ${preview(first.c.text)}`);
  }
  const rel = (p: string): string => (p.startsWith(repoRoot) ? p.slice(repoRoot.length + 1) : p);
  if (report.disagreementsFile) lines.push(`  disagreements: ${rel(report.disagreementsFile)}`);
  if (report.errorsFile) lines.push(`  errors: ${rel(report.errorsFile)}`);
  return lines.join('\n');
}

function withCounts(row: SummaryRow, side: { n: number; agree: number }): SummaryRow {
  return side.n > 0 ? { ...row, value: `${row.value} (${formatCount(side.agree)}/${formatCount(side.n)})` } : row;
}

/** The summary rows of the corpora section, with the issue's targets where it sets them. */
export function corpusSummaryRows(reports: readonly CorpusReport[]): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const pct = (n: number): string => formatPercent(n);
  const by = new Map(reports.map((r) => [r.spec.id, r]));
  const usable = (id: CorpusId): CorpusReport | null => {
    const r = by.get(id);
    return r && r.present && r.readError === undefined ? r : null;
  };
  const missing = (id: CorpusId, metric: string): SummaryRow => skipRow('corpora', metric, by.get(id)?.readError !== undefined ? 'unreadable' : 'corpus absent');

  const gtfo = usable('gtfobins');
  if (gtfo) {
    const h = gtfo.buckets.headline;
    rows.push(withCounts(targetRow('corpora', 'GTFOBins single-line shell/command/rev/bind/upload not allowed', percent(h.deny.agree, h.deny.n), '>=', 97, pct), h.deny));
  } else rows.push(missing('gtfobins', 'GTFOBins single-line targets not allowed'));

  const nl = usable('nl2bash');
  if (nl) {
    rows.push(targetRow('corpora', 'NL2Bash lines decided with an error', nl.all.errors + nl.malformed, '==', 0, (n) => formatCount(n)));
    rows.push(infoRow('corpora', 'NL2Bash allowed / not readable by the analysis', `${pct(percent(nl.all.tiers.allow, nl.all.n))} / ${formatCount(nl.analysisFailures)}`));
  } else rows.push(missing('nl2bash', 'NL2Bash lines decided with an error'));

  for (const [id, name, targeted] of [
    ['dcg', 'dcg', true],
    ['cc-safety-net-v2', 'cc-safety-net v2', true],
    ['safety_net', 'safety_net v0.9', false],
    ['gatekeeper-v1', 'gatekeeper v1', false],
  ] as const) {
    const r = usable(id);
    if (!r) {
      rows.push(missing(id, `${name} agreement`));
      continue;
    }
    const h = r.buckets.headline;
    const denyShare = percent(h.deny.agree, h.deny.n);
    const allowShare = percent(h.allow.agree, h.allow.n);
    if (targeted) {
      rows.push(withCounts(targetRow('corpora', `${name} deny-labelled not allowed`, denyShare, '>=', 97, pct), h.deny));
      rows.push(withCounts(targetRow('corpora', `${name} allow-labelled allowed`, allowShare, '>=', 90, pct), h.allow));
    } else {
      rows.push(withCounts(infoRow('corpora', `${name} deny-labelled not allowed`, pct(denyShare)), h.deny));
      rows.push(withCounts(infoRow('corpora', `${name} allow-labelled allowed`, pct(allowShare)), h.allow));
    }
  }
  const read = reports.filter((r) => r.present && r.readError === undefined);
  if (read.length > 0) {
    const errors = read.reduce((n, r) => n + r.all.errors, 0);
    const cases = read.reduce((n, r) => n + r.all.n, 0);
    rows.push(targetRow('corpora', `corpus cases decided with an error (all ${formatCount(cases)})`, errors, '==', 0, (n) => formatCount(n)));
  }
  return rows;
}
