// asimov serve under load (issue 16): POST /v1/decide from a loopback load generator (autocannon, in this
// process) against the built CLI's `asimov serve` in its own process, as an operator runs it. Two phases:
// a fixed 1,000 requests/s (latency p50/p99 at that rate, corrected for coordinated omission), then as many
// as 2 cores take for the whole duration (sustained maximum). Afterwards the audit log must hold exactly one
// record per answered request, and the server's resident memory is sampled each second to show it is stable.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { formatCount, infoRow, targetRow, type SummaryRow } from './report.ts';

export const TARGET_SUSTAINED_RPS = 2000;
const FIXED_RATE = 1000;

export interface ServeBenchReport {
  skipped?: string;
  fixed?: { rate: number; seconds: number; p50Ms: number; p99Ms: number; requests: number; errors: number; non2xx: number };
  max?: { seconds: number; meanRps: number; minSecondRps: number; p50Ms: number; p99Ms: number; requests: number; errors: number; non2xx: number };
  /** A last phase of a fixed number of requests: the records it added to the log, and its answered requests. */
  audit?: { answered: number; records: number };
  memory?: { startMb: number; endMb: number; maxMb: number; secondHalfGrowthMb: number };
}

/** The calls the load cycles through: everyday ones and one refused. */
function calls(project: string): string[] {
  return ['git status', 'ls -la src', 'npm test', 'rm -rf /', 'cat package.json | head -5', 'grep -rn TODO src']
    .map((command) => JSON.stringify({ tool: 'shell', input: { command }, cwd: project, agent: 'bench' }));
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** `asimov serve` (the built CLI) in its own process on a free loopback port, no rate limit; its URL once it listens. */
export async function startServeProcess(bin: string, env: NodeJS.ProcessEnv, cwd: string, args: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0', '--rate-limit', '0', ...args], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    const t = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return { url, child };
}

export async function runServeBench(repoRoot: string, seconds: number): Promise<ServeBenchReport> {
  const bin = join(repoRoot, 'bin', 'asimov.cjs');
  if (!existsSync(join(repoRoot, 'dist', 'cmd-serve.cjs'))) return { skipped: 'dist/ is not built' };
  const root = mkdtempSync(join(tmpdir(), 'asimov-bench-serve-'));
  const home = join(root, 'home');
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const auditLog = join(root, 'audit.jsonl');
  const env = {
    PATH: process.env.PATH ?? '', HOME: home, XDG_STATE_HOME: join(home, '.state'), XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'), ASIMOV_AUDIT_LOG: auditLog, ASIMOV_JUDGE: 'off', ASIMOV_DAEMON: 'off', NO_COLOR: '1',
  };
  let child: ChildProcess | undefined;
  try {
    const made = spawnSync(process.execPath, [bin, 'serve', 'token', 'create', '--name', 'bench', '--scopes', 'decide'], { env, encoding: 'utf8', cwd: project });
    if (made.status !== 0) return { skipped: `token create failed: ${made.stderr.trim()}` };
    const token = made.stdout.trim();
    const started = await startServeProcess(bin, env, project);
    child = started.child;
    const url = started.url;
    const base: autocannon.Options = {
      url: `${url}/v1/decide`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      requests: calls(project).map((body) => ({ body })),
    };
    const answered = (r: autocannon.Result) => r.requests.total - r.non2xx - r.errors;
    let total = 0;
    // Warm-up: JIT, the policy load, the audit log's first appends.
    const warm = await run({ ...base, connections: 10, duration: 3 });
    total += answered(warm);

    const fixed = await run({ ...base, connections: 20, duration: Math.max(5, Math.round(seconds / 3)), overallRate: FIXED_RATE });
    total += answered(fixed);

    const pid = child.pid!;
    const rss: number[] = [rssMb(pid)];
    const sampler = setInterval(() => rss.push(rssMb(pid)), 1000);
    const max = await run({ ...base, connections: 32, duration: seconds });
    clearInterval(sampler);
    rss.push(rssMb(pid));
    total += answered(max);

    // Every answered request is one record in the log (the answer waits for its record). A phase cut off by
    // its duration leaves requests in flight that the server still answers and records, so the exact count
    // is taken over a last phase of a fixed number of requests, each of which completes.
    const count = () => readFileSync(auditLog, 'utf8').split('\n').filter((l) => l.includes('"principal":"bench"')).length;
    await new Promise((r) => setTimeout(r, 500));
    const before = count();
    const exact = await run({ ...base, connections: 16, amount: 4000 });
    const records = count() - before;
    total = answered(exact);
    const half = rss.slice(Math.floor(rss.length / 2));
    return {
      fixed: { rate: FIXED_RATE, seconds: fixed.duration, p50Ms: fixed.latency.p50, p99Ms: fixed.latency.p99, requests: fixed.requests.total, errors: fixed.errors, non2xx: fixed.non2xx },
      max: {
        seconds: max.duration, meanRps: max.requests.average, minSecondRps: max.requests.min, p50Ms: max.latency.p50, p99Ms: max.latency.p99,
        requests: max.requests.total, errors: max.errors, non2xx: max.non2xx,
      },
      audit: { answered: total, records },
      memory: { startMb: rss[0]!, endMb: rss[rss.length - 1]!, maxMb: Math.max(...rss), secondHalfGrowthMb: half[half.length - 1]! - half[0]! },
    };
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatServeBench(r: ServeBenchReport): string {
  if (r.skipped) return `skipped: ${r.skipped}`;
  const f = r.fixed!;
  const m = r.max!;
  const mem = r.memory!;
  return [
    `POST /v1/decide from autocannon on loopback, asimov serve (built CLI) in its own process, judge off.`,
    `at ${f.rate} req/s for ${f.seconds.toFixed(0)} s: p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms; ${formatCount(f.requests)} requests, ${f.errors} errors, ${f.non2xx} non-2xx`,
    `as fast as it goes for ${m.seconds.toFixed(0)} s (32 connections): mean ${m.meanRps.toFixed(0)} req/s, slowest second ${m.minSecondRps} req/s; p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms; ${m.errors} errors, ${m.non2xx} non-2xx`,
    `audit: ${formatCount(r.audit!.records)} records for ${formatCount(r.audit!.answered)} answered requests of a fixed-size phase`,
    `server RSS: ${mem.startMb.toFixed(0)} MB at the start of the max phase, ${mem.endMb.toFixed(0)} MB at its end (max ${mem.maxMb.toFixed(0)} MB; ${mem.secondHalfGrowthMb >= 0 ? '+' : ''}${mem.secondHalfGrowthMb.toFixed(1)} MB over its second half)`,
  ].join('\n');
}

export function serveBenchRows(r: ServeBenchReport): SummaryRow[] {
  if (r.skipped) return [{ section: 'serve', metric: 'asimov serve load', value: r.skipped, target: '—', status: 'SKIP' }];
  const f = r.fixed!;
  const m = r.max!;
  return [
    infoRow('serve', `/v1/decide latency at ${f.rate} req/s (p50 / p99)`, `${f.p50Ms} ms / ${f.p99Ms} ms`),
    targetRow('serve', `/v1/decide sustained for ${m.seconds.toFixed(0)} s (mean req/s)`, m.meanRps, '>=', TARGET_SUSTAINED_RPS, (n) => n.toFixed(0)),
    targetRow('serve', 'errors and non-2xx answers under load', f.errors + f.non2xx + m.errors + m.non2xx, '==', 0, (n) => String(n)),
    targetRow('serve', 'audit records minus answered requests', r.audit!.records - r.audit!.answered, '==', 0, (n) => String(n)),
    infoRow('serve', 'server RSS during the max phase (start → end)', `${r.memory!.startMb.toFixed(0)} → ${r.memory!.endMb.toFixed(0)} MB`),
  ];
}
