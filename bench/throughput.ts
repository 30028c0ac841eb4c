// Section 2b of the bench: `asimov check --batch` over every NL2Bash line as one whole process (spawn, feed
// every line as a Bash call, wait for exit): wall time per decision, start-up included, against `node -e 0`
// run alternately from the same small parent (bench/spawn-timer.cjs), so machine noise hits both alike.

import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatMs, formatUs, infoRow, skipRow, targetRow, type SummaryRow } from './report.ts';
import type { BenchEnv } from './setup.ts';
import { launcherPath, startupEnv } from './speed.ts';
import { median } from './stats.ts';

export interface BatchThroughput {
  decisions: number;
  rounds: number;
  /** Median wall milliseconds of the whole batch process, and of `node -e 0` in the same rounds. */
  batchMs: number;
  nodeMs: number;
  /** batchMs / decisions, in microseconds: the target. */
  usPerDecision: number;
  /** The batch's own summary line on stderr (decision-timing.ts), from the last round. */
  ownSummary?: string;
  problem?: string;
}

export interface ThroughputReport {
  batch?: BatchThroughput;
  skipped?: string;
}

interface Timed { ms: number; status: number | null; stderr: string }

export function runThroughput(env: BenchEnv, repoRoot: string, nl2bash: readonly string[] | null, rounds = 5): ThroughputReport {
  if (nl2bash === null || nl2bash.length === 0) return { skipped: 'NL2Bash corpus absent' };
  const bin = launcherPath(repoRoot);
  if (bin === null || !existsSync(bin) || !existsSync(join(repoRoot, 'dist'))) return { skipped: 'not built: run `npm run build`' };
  const input = nl2bash.map((command) => `${JSON.stringify({ tool_name: 'Bash', tool_input: { command }, cwd: env.project })}\n`).join('');
  const batch = { args: [bin, 'check', '--batch'], input };
  const node = { args: ['-e', '0'] };
  const runs: Array<{ args: string[]; input?: string }> = [];
  for (let i = 0; i < rounds; i++) runs.push(...(i % 2 === 0 ? [batch, node] : [node, batch]));
  const timer = join(import.meta.dirname, 'spawn-timer.cjs');
  // The env has no daemon socket to meet: --batch is never sent to the daemon anyway.
  const specFile = join(env.root, 'throughput-spec.json');
  writeFileSync(specFile, JSON.stringify({ runs, cwd: env.project, env: startupEnv(env.childEnv) }));
  const r = spawnSync(process.execPath, [timer, `@${specFile}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  rmSync(specFile, { force: true });
  if (r.status !== 0) return { skipped: `spawn-timer failed: ${(r.stderr ?? r.error?.message ?? '').trim().split('\n')[0] ?? ''}` };
  const timed = JSON.parse(r.stdout) as Timed[];
  const batchMs: number[] = [];
  const nodeMs: number[] = [];
  let problem: string | undefined;
  let ownSummary: string | undefined;
  timed.forEach((t, i) => {
    const isBatch = runs[i] === batch;
    (isBatch ? batchMs : nodeMs).push(t.ms);
    if (!isBatch) return;
    if (t.status !== 0 && problem === undefined) problem = t.stderr.trim().split('\n')[0] ?? `exit ${String(t.status)}`;
    const last = t.stderr.trim().split('\n').pop() ?? '';
    if (/decisions?: mean/.test(last)) ownSummary = last.replace(/^asimov check --batch: /, '');
  });
  const b = median(batchMs);
  const out: BatchThroughput = { decisions: nl2bash.length, rounds, batchMs: b, nodeMs: median(nodeMs), usPerDecision: (b * 1000) / nl2bash.length };
  if (ownSummary !== undefined) out.ownSummary = ownSummary;
  if (problem !== undefined) out.problem = problem;
  return { batch: out };
}

export function formatThroughput(r: ThroughputReport): string {
  if (!r.batch) return `check --batch over NL2Bash: skipped (${r.skipped ?? 'no input'})`;
  const b = r.batch;
  const lines = [
    `check --batch over NL2Bash as one process (${b.decisions.toLocaleString('en-US')} Bash lines): ${formatMs(b.batchMs)} wall → ${formatUs(b.usPerDecision)} per decision, start-up included (node -e 0: ${formatMs(b.nodeMs)}; medians of ${b.rounds} alternating rounds)`,
  ];
  if (b.ownSummary !== undefined) lines.push(`  the batch's own account, last round: ${b.ownSummary}`);
  if (b.problem !== undefined) lines.push(`  problem: ${b.problem}`);
  return lines.join('\n');
}

export function throughputSummaryRows(r: ThroughputReport): SummaryRow[] {
  if (!r.batch) return [skipRow('speed', 'check --batch over NL2Bash, per decision (whole process)', r.skipped ?? 'skipped')];
  const b = r.batch;
  const metric = 'check --batch over NL2Bash, per decision (whole process)';
  if (b.problem !== undefined) return [{ section: 'speed', metric, value: `error: ${b.problem}`.slice(0, 60), target: `≤ ${formatUs(80)}`, status: 'FAIL' }];
  const rows = [targetRow('speed', metric, b.usPerDecision, '<=', 80, formatUs)];
  if (b.ownSummary !== undefined) rows.push(infoRow('speed', 'check --batch, its own account per decision', b.ownSummary.replace(/^[\d,]+ decisions: /, '')));
  return rows;
}
