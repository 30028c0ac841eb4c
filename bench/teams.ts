// Teams (issue 17): what shipping costs and how fast the team server takes it.
// 1. Ingest: three machines' logs (N records each, sealed like the gate seals them) shipped at once by three
//    `asimov audit ship --once` processes to `asimov serve` (built CLI, its own process) on PostgreSQL when
//    ASIMOV_BENCH_DATABASE_URL names one, else on the embedded database. Records per second, wall time.
// 2. The added latency of a decision with shipping on: a gate whose user policy sets `audit.remote` (plus the
//    hook's check that a shipper runs) against one without, measured alternately in one run.
// 3. A team policy change reaching a machine: published with PUT /v1/team/policy while a machine's gate decides
//    every 100 ms with the default refresh interval; the time until its decisions follow the new policy.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createGate } from './lib.ts';
import { kickShipper } from '../src/cli/ship-kick.ts';
import { GENESIS_HASH, sealEvent, type AuditEventDraft } from '../src/audit/event.ts';
import { formatCount, infoRow, targetRow, type SummaryRow } from './report.ts';
import { startServeProcess } from './serve.ts';

export const TARGET_INGEST_RPS = 5000;

export interface TeamsBenchReport {
  skipped?: string;
  database?: string;
  ingest?: { machines: number; records: number; seconds: number; recordsPerSecond: number };
  latency?: { n: number; withoutMedianUs: number; withMedianUs: number; withPolicyMedianUs: number; withoutMeanUs: number; withMeanUs: number; withPolicyMeanUs: number; medianRatio: number; meanRatio: number };
  policy?: { seconds: number | null; intervalSec: number };
}

/** A log of n records shaped like the gate's (a shell call, its verdict, the policy hash), chained. */
function writeLog(path: string, n: number): void {
  const verdicts = [['allow', 'allow', 'fs.read'], ['deny', 'hard_deny', 'fs.rm-catastrophic'], ['ask', 'soft_deny', 'git.push-force']] as const;
  let prev = GENESIS_HASH;
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const [verdict, tier, rule] = verdicts[i % 7 === 0 ? 1 : i % 5 === 0 ? 2 : 0]!;
    const draft = {
      v: 1, decision_id: randomUUID(), ts: new Date(Date.now() - (n - i) * 1000).toISOString(), agent: 'claude-code', session: 'bench', call_id: `toolu_${i}`,
      tool: 'shell', client_tool: 'Bash', cwd: '/home/dev/project', verdict, tier, rule, reason: `bench record ${i}`, layer: 'static', findings: [],
      ms: 0.21, policy_hash: 'ab'.repeat(32), input: { command: `git status && ls -la src/module-${i} | head -20` }, erased: [],
    } as unknown as AuditEventDraft;
    const e = sealEvent(draft, prev);
    prev = e.hash;
    lines.push(JSON.stringify(e));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

function machineEnv(root: string, name: string, remote: string, token: string, policy = false): { home: string; env: NodeJS.ProcessEnv; log: string } {
  const home = join(root, name);
  mkdirSync(join(home, '.config/asimov'), { recursive: true });
  mkdirSync(join(home, 'project/.git'), { recursive: true });
  writeFileSync(join(home, 'token'), token, { mode: 0o600 });
  writeFileSync(join(home, '.config/asimov/policy.yaml'), `version: 1\naudit:\n  remote: ${remote}\n  token_file: ~/token\n  policy: ${policy}\n`);
  const log = join(home, 'audit.jsonl');
  return {
    home, log,
    env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state'), XDG_CACHE_HOME: join(home, '.cache'), ASIMOV_AUDIT_LOG: log, ASIMOV_JUDGE: 'off', ASIMOV_DAEMON: 'off' },
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function runTeamsBench(repoRoot: string, recordsPerMachine = 20_000): Promise<TeamsBenchReport> {
  const bin = join(repoRoot, 'bin', 'asimov.cjs');
  const dbUrl = process.env.ASIMOV_BENCH_DATABASE_URL?.trim() || undefined;
  const root = mkdtempSync(join(tmpdir(), 'asimov-bench-teams-'));
  const srvHome = join(root, 'server');
  mkdirSync(srvHome, { recursive: true });
  const srvEnv = { PATH: process.env.PATH ?? '', HOME: srvHome, XDG_STATE_HOME: join(srvHome, '.state'), XDG_CONFIG_HOME: join(srvHome, '.config'), ASIMOV_AUDIT_LOG: join(srvHome, 'audit.jsonl'), ASIMOV_JUDGE: 'off', ASIMOV_DAEMON: 'off', NO_COLOR: '1' };
  const dbArgs = dbUrl ? ['--database', dbUrl] : [];
  const report: TeamsBenchReport = { database: dbUrl ? 'PostgreSQL (ASIMOV_BENCH_DATABASE_URL)' : 'embedded (PGlite); set ASIMOV_BENCH_DATABASE_URL for PostgreSQL' };
  let serve: { url: string; stop(): void } | undefined;
  try {
    const token = (name: string, scopes: string) => {
      const r = spawnSync(process.execPath, [bin, 'serve', 'token', 'create', '--name', name, '--scopes', scopes, ...dbArgs], { env: srvEnv, cwd: srvHome, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`token create failed: ${r.stderr}`);
      return r.stdout.trim();
    };
    const machineTokens = [1, 2, 3].map((i) => token(`bench-laptop-${i}-${randomUUID().slice(0, 8)}`, 'report'));
    const admin = token(`bench-admin-${randomUUID().slice(0, 8)}`, 'admin,report');
    const started = await startServeProcess(bin, srvEnv, srvHome, dbArgs);
    serve = { url: started.url, stop: () => started.child.kill('SIGTERM') };

    // 1. Ingest.
    const machines = machineTokens.map((t, i) => machineEnv(root, `m${i}`, serve!.url, t));
    for (const m of machines) writeLog(m.log, recordsPerMachine);
    const t0 = performance.now();
    await Promise.all(
      machines.map(
        (m) =>
          new Promise<void>((resolve, reject) => {
            const c = spawn(process.execPath, [bin, 'audit', 'ship', '--once'], { env: m.env, cwd: m.home, stdio: ['ignore', 'ignore', 'pipe'] });
            let err = '';
            c.stderr!.on('data', (d: Buffer) => (err += d.toString()));
            c.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`audit ship --once exited ${code}: ${err}`))));
          }),
      ),
    );
    const seconds = (performance.now() - t0) / 1000;
    const records = recordsPerMachine * machines.length;
    report.ingest = { machines: machines.length, records, seconds, recordsPerSecond: records / seconds };

    // 2. Added latency on the call's path: no team server; shipping only (audit.remote, policy: false); shipping
    // and the team policy (its freshness check before each decision). Alternated call by call.
    const plain = machineEnv(root, 'plain', serve.url, machineTokens[0]!);
    writeFileSync(join(plain.home, '.config/asimov/policy.yaml'), 'version: 1\n');
    const shipOnly = machineEnv(root, 'ship-only', serve.url, admin, false);
    const shipping = machineEnv(root, 'shipping', serve.url, admin, true);
    for (const m of [shipOnly, shipping]) {
      // A shipper "runs" for the log (this process holds its lock), as it does between calls.
      mkdirSync(`${m.log}.ship`, { recursive: true });
      writeFileSync(`${m.log}.ship/shipper.pid`, `${process.pid}\n`);
    }
    const gates = [plain, shipOnly, shipping].map((m) => ({ m, gate: createGate({ home: m.home, env: m.env, audit: m.log }) }));
    const call = (home: string, i: number) => ({ tool: 'shell', input: { command: `ls -la src/${i % 50}` }, cwd: join(home, 'project'), agent: 'bench' }) as never;
    const times: [number[], number[], number[]] = [[], [], []];
    const n = 2000;
    for (let i = 0; i < n + 200; i++) {
      for (let k = 0; k < 3; k++) {
        const which = (i + k) % 3;
        const { m, gate } = gates[which]!;
        const s = performance.now();
        const d = await gate.decide(call(m.home, i));
        if (which > 0) kickShipper(gate.policyFor(join(m.home, 'project')).audit, m.env);
        const us = (performance.now() - s) * 1000;
        if (d.verdict !== 'allow') throw new Error(`unexpected ${d.verdict}`);
        if (i >= 200) times[which]!.push(us);
      }
    }
    report.latency = {
      n,
      withoutMedianUs: median(times[0]), withMedianUs: median(times[1]), withPolicyMedianUs: median(times[2]),
      withoutMeanUs: mean(times[0]), withMeanUs: mean(times[1]), withPolicyMeanUs: mean(times[2]),
      medianRatio: median(times[1]) / median(times[0]), meanRatio: mean(times[1]) / mean(times[0]),
    };

    // 3. A team policy change reaching a machine (the gate's default refresh interval).
    const put = (policy: string) =>
      fetch(`${serve!.url}/v1/team/policy`, { method: 'PUT', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ policy }) }).then(async (r) => {
        if (!r.ok) throw new Error(`publish: ${r.status} ${await r.text()}`);
      });
    await put('version: 1\n');
    const member = createGate({ home: shipping.home, env: shipping.env, audit: false });
    const probe = { tool: 'shell', input: { command: 'npm publish' }, cwd: join(shipping.home, 'project'), agent: 'bench' } as never;
    await member.decide(probe);
    await put(
      'version: 1\ncustom:\n  - id: team.no-npm-publish\n    tier: hard_deny\n    reason: releases go through CI\n    match: { command: [npm, publish] }\n' +
        '    examples: { match: ["npm publish"], notMatch: ["npm test"] }\n',
    );
    const published = performance.now();
    let reached: number | null = null;
    while (performance.now() - published < 90_000) {
      if ((await member.decide(probe)).verdict === 'deny') {
        reached = (performance.now() - published) / 1000;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    report.policy = { seconds: reached, intervalSec: 30 };
    return report;
  } catch (e) {
    return { ...report, skipped: (e as Error).message };
  } finally {
    serve?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatTeamsBench(r: TeamsBenchReport): string {
  const out = [`database: ${r.database}`];
  if (r.skipped) out.push(`stopped: ${r.skipped}`);
  if (r.ingest) {
    const i = r.ingest;
    out.push(`ingest: ${formatCount(i.records)} records from ${i.machines} machines (\`audit ship --once\` each, at once) in ${i.seconds.toFixed(2)} s: ${i.recordsPerSecond.toFixed(0)} records/s`);
  }
  if (r.latency) {
    const l = r.latency;
    out.push(
      `decision (gate + audit append, in process; ${l.n} each, alternated) with shipping on vs off, the hook's shipper check included: ` +
        `median ${l.withMedianUs.toFixed(0)} vs ${l.withoutMedianUs.toFixed(0)} µs (×${l.medianRatio.toFixed(2)}), mean ${l.withMeanUs.toFixed(0)} vs ${l.withoutMeanUs.toFixed(0)} µs (×${l.meanRatio.toFixed(2)})`,
      `  with the team policy too (its freshness check each call, a conditional GET at most every 30 s): median ${l.withPolicyMedianUs.toFixed(0)} µs, mean ${l.withPolicyMeanUs.toFixed(0)} µs`,
    );
  }
  if (r.policy) out.push(`team policy change → a machine's next decisions: ${r.policy.seconds === null ? 'not within 90 s' : `${r.policy.seconds.toFixed(1)} s`} (refresh interval ${r.policy.intervalSec} s)`);
  return out.join('\n');
}

export function teamsBenchRows(r: TeamsBenchReport): SummaryRow[] {
  const rows: SummaryRow[] = [];
  if (r.ingest) rows.push(targetRow('teams', `audit ingest on 2 cores, ${r.database?.startsWith('PostgreSQL') ? 'PostgreSQL' : 'embedded'} (records/s)`, r.ingest.recordsPerSecond, '>=', TARGET_INGEST_RPS, (n) => n.toFixed(0)));
  if (r.latency) {
    rows.push(infoRow('teams', 'decision median, shipping on / off', `${r.latency.withMedianUs.toFixed(0)} / ${r.latency.withoutMedianUs.toFixed(0)} µs (×${r.latency.medianRatio.toFixed(2)})`));
    rows.push(infoRow('teams', 'decision median, shipping + team policy', `${r.latency.withPolicyMedianUs.toFixed(0)} µs`));
  }
  if (r.policy) rows.push(targetRow('teams', 'team policy change reaches a machine (s)', r.policy.seconds ?? 999, '<=', 60, (n) => n.toFixed(1)));
  if (r.skipped && rows.length === 0) rows.push({ section: 'teams', metric: 'teams', value: r.skipped, target: '—', status: 'SKIP' });
  return rows;
}
