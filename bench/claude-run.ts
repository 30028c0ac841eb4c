// What asimov's hook adds to a real Claude Code session: a scripted two-turn run (one Bash tool call, then
// text) with the hook installed against the same run without it, alternating run by run in one process so
// machine noise hits both alike. Uses the real CLI from node_modules (a dev dependency) and a scripted
// model server on 127.0.0.1; skipped, with the reason, when the CLI is not installed.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAnthropicServer } from '../test/helpers/anthropic-server.ts';
import { targetRow, skipRow, type SummaryRow } from './report.ts';
import { median } from './stats.ts';

export interface ClaudeRunReport {
  skipped?: string;
  rounds: number;
  withHookMs?: number;
  withoutHookMs?: number;
  /** Median of the per-round differences (hooked − plain); one tool call per run, so this is per call. */
  addedPerCallMs?: number;
  failures: string[];
}

function runOnce(bin: string, home: string, cwd: string, baseUrl: string): Promise<{ ms: number; code: number | null }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: home, SHELL: '/bin/bash', ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1',
    ASIMOV_AUDIT_LOG: join(home, 'audit.jsonl'),
  };
  if (process.getuid?.() === 0) env['IS_SANDBOX'] = '1';
  return new Promise((resolveRun) => {
    const t0 = performance.now();
    const child = spawn(bin, ['-p', 'list the files', '--output-format', 'json', '--allowedTools', 'Bash'], { cwd, env, stdio: ['ignore', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ ms: performance.now() - t0, code });
    });
  });
}

export async function runClaudeBench(repoRoot: string, benchDir: string, rounds: number): Promise<ClaudeRunReport> {
  const link = join(repoRoot, 'node_modules', '.bin', 'claude');
  if (!existsSync(link)) return { skipped: 'the Claude Code CLI is not installed (npm ci installs it as a dev dependency)', rounds: 0, failures: [] };
  const bin = realpathSync(link);
  const root = mkdtempSync(join(benchDir, 'claude-'));
  const failures: string[] = [];
  try {
    const project = join(root, 'project');
    const plain = join(root, 'home-plain');
    const hooked = join(root, 'home-hooked');
    for (const d of [project, join(project, '.asimov'), plain, hooked]) mkdirSync(d, { recursive: true });
    writeFileSync(join(project, 'README.md'), 'bench\n');
    const wired = spawnSync(process.execPath, [join(repoRoot, 'bin', 'asimov.cjs'), 'wire', 'claude'], {
      cwd: project, env: { PATH: process.env.PATH ?? '', HOME: hooked }, encoding: 'utf8',
    });
    if (wired.status !== 0) return { skipped: `asimov wire claude failed: ${wired.stderr.trim().split('\n')[0]}`, rounds: 0, failures };
    const server = await startAnthropicServer({ script: [{ tools: [{ name: 'Bash', input: { command: 'ls', description: 'list' } }] }, { text: 'done' }] });
    try {
      const a: number[] = [];
      const b: number[] = [];
      const diff: number[] = [];
      await runOnce(bin, plain, project, server.url);
      await runOnce(bin, hooked, project, server.url);
      for (let i = 0; i < rounds; i++) {
        const order = i % 2 === 0 ? [hooked, plain] : [plain, hooked];
        const times = new Map<string, number>();
        for (const home of order) {
          const r = await runOnce(bin, home, project, server.url);
          if (r.code !== 0) failures.push(`${home === hooked ? 'hooked' : 'plain'} run exited ${r.code}`);
          times.set(home, r.ms);
        }
        a.push(times.get(hooked)!);
        b.push(times.get(plain)!);
        diff.push(times.get(hooked)! - times.get(plain)!);
      }
      return { rounds, withHookMs: median(a), withoutHookMs: median(b), addedPerCallMs: median(diff), failures };
    } finally {
      await server.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatClaudeBench(r: ClaudeRunReport): string {
  if (r.skipped !== undefined) return `Claude Code two-turn run: skipped (${r.skipped})`;
  const lines = [
    `Claude Code two-turn run (one Bash call), ${r.rounds} alternating rounds: with asimov's hook ${r.withHookMs!.toFixed(0)} ms, without ${r.withoutHookMs!.toFixed(0)} ms (medians)`,
    `  added per tool call (median of per-round differences): ${r.addedPerCallMs!.toFixed(1)} ms`,
  ];
  for (const f of r.failures.slice(0, 5)) lines.push(`  problem: ${f}`);
  return lines.join('\n');
}

export function claudeBenchRows(r: ClaudeRunReport): SummaryRow[] {
  const metric = 'Claude Code run: time added per tool call by the hook';
  if (r.skipped !== undefined) return [skipRow('speed', metric, r.skipped.slice(0, 60))];
  if (r.failures.length > 0) return [{ section: 'speed', metric, value: `error: ${r.failures[0]}`.slice(0, 60), target: '< 100 ms', status: 'FAIL' }];
  return [targetRow('speed', metric, r.addedPerCallMs!, '<=', 100, (n) => `${n.toFixed(1)} ms`)];
}
