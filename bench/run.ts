// Entry of `npm run bench`: corpora agreement, decision speed and process start, and the fuzz run, printed
// from one run with a final summary table. It reports; it is not a test: a missed target still exits 0, and
// only a crash of the bench itself exits 1.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fuzzInput } from './mutate.ts';
import { summaryTable, type SummaryRow } from './report.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const OUT_DIR = join(REPO_ROOT, 'bench', 'out');
const SECTIONS = ['corpora', 'adversarial', 'traffic', 'speed', 'fuzz', 'judge', 'claude', 'mcp', 'serve', 'teams'] as const;
type Section = (typeof SECTIONS)[number];

const HELP = `Usage: npm run bench -- [options]      (or: node --import tsx bench/run.ts [options])

  --corpus DIR      corpus directory (default: $ASIMOV_CORPUS_DIR, else ../shared/corpus next to the repository)
  --only LIST       run only these sections, comma-separated: corpora, adversarial, traffic, speed, fuzz,
                    judge, claude, mcp, serve, teams
  --serve-seconds N duration of the sustained-load phase of the serve section (default 60)
  --fuzz N          number of fuzz inputs (default 100000)
  --seed N          fuzz seed (default: random, printed)
  --rounds N        rounds of the alternating process-start measurement (default 25)
  --judge-rounds N  rounds of the alternating judge-overhead measurement (default 200)
  --claude-rounds N rounds of the alternating Claude Code run with and without the hook (default 10)
  --replay I        rebuild fuzz input number I of --seed, decide it, print it, and stop
  -h, --help        this text

Writes bench/out/<corpus>-disagreements.jsonl, bench/out/traffic-not-allowed.jsonl,
bench/out/adversarial-mismatches.jsonl, bench/out/summary.json and bench/out/summary.md.
`;

interface Options {
  corpus: string | undefined;
  only: Set<Section>;
  fuzz: number;
  seed: number;
  rounds: number;
  judgeRounds: number;
  claudeRounds: number;
  serveSeconds: number;
  replay: number | undefined;
}

class UsageError extends Error {}

function intFlag(name: string, v: string | undefined, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`--${name} needs a whole number of at least ${min}, got "${v}"`);
  return Number(v);
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      corpus: { type: 'string' },
      only: { type: 'string' },
      fuzz: { type: 'string' },
      seed: { type: 'string' },
      rounds: { type: 'string' },
      'judge-rounds': { type: 'string' },
      'claude-rounds': { type: 'string' },
      'serve-seconds': { type: 'string' },
      replay: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const only = new Set<Section>();
  for (const part of (values.only ?? SECTIONS.join(',')).split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!(SECTIONS as readonly string[]).includes(part)) throw new UsageError(`--only takes ${SECTIONS.join(', ')}; got "${part}"`);
    only.add(part as Section);
  }
  return {
    corpus: values.corpus,
    only,
    fuzz: intFlag('fuzz', values.fuzz, 100_000, 0),
    seed: intFlag('seed', values.seed, Math.floor(Math.random() * 0xffffffff), 0) >>> 0,
    rounds: intFlag('rounds', values.rounds, 25, 1),
    judgeRounds: intFlag('judge-rounds', values['judge-rounds'], 200, 1),
    claudeRounds: intFlag('claude-rounds', values['claude-rounds'], 10, 1),
    serveSeconds: intFlag('serve-seconds', values['serve-seconds'], 60, 5),
    replay: values.replay === undefined ? undefined : intFlag('replay', values.replay, 0, 0),
  };
}

/** The commit measured, and whether the working tree had changes on top of it (read-only git commands). */
function revision(): string {
  const git = (args: string[]): string | null => {
    const r = spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  const head = git(['rev-parse', '--short', 'HEAD']);
  if (head === null) return 'unknown revision';
  const dirty = git(['status', '--porcelain', '--untracked-files=no']);
  return dirty ? `${head} + uncommitted changes` : head;
}

function heading(title: string): void {
  console.log(`\n== ${title} ${'='.repeat(Math.max(0, 74 - title.length))}`);
}

async function main(argv: string[]): Promise<number> {
  let opts: Options | null;
  try {
    opts = parseOptions(argv);
  } catch (e) {
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}\n\n${HELP}`);
    return 1;
  }
  if (opts === null) {
    console.log(HELP);
    return 0;
  }
  // Loaded here, not at the top, so a missing piece of the pipeline is reported as such, not as a stack trace.
  const { createBenchEnv } = await import('./setup.ts');
  const corpora = await import('./corpora.ts');
  const { runSpeed, formatSpeed, speedSummaryRows } = await import('./speed.ts');
  const fuzz = await import('./fuzz.ts');
  const judge = await import('./judge.ts');

  const dir = corpora.resolveCorpusDir(REPO_ROOT, opts.corpus, process.env);
  const env = createBenchEnv(join(REPO_ROOT, 'bench'));
  try {
    // Every shell line of every corpus present: the speed set (NL2Bash) and the fuzz seeds (all of them).
    const shellLines = new Map<string, string[]>();
    const loadLines = (): void => {
      for (const spec of corpora.CORPORA) {
        try {
          const { rows } = corpora.readRows(join(dir, spec.file), spec.format);
          shellLines.set(spec.id, rows.map((r, i) => spec.map(r, i)).flatMap((c) => (c && c.tool === 'Bash' ? [c.text] : [])));
        } catch {
          // Absent or unreadable: the corpora section says so; here it only means fewer seeds.
        }
      }
    };
    loadLines();
    const seedLines = [...shellLines.values()].flat();
    const fuzzSeeds = seedLines.length > 0 ? seedLines : [...fuzz.BUILTIN_SEEDS];

    if (opts.replay !== undefined) {
      const { text, origin } = fuzzInput(opts.seed, opts.replay, fuzzSeeds);
      const { classifyShell } = await import('../src/policy/classify.ts');
      const sc = classifyShell(text, env.policy, env.ctx());
      const d = env.gate.decideStatic(env.call('Bash', { command: text }));
      console.log(JSON.stringify({ seed: opts.seed, index: opts.replay, origin, input: text, status: sc.analysis.status, message: sc.analysis.message, verdict: d.verdict, tier: d.tier, rule: d.rule, reason: d.reason, layer: d.layer, ms: d.ms }, null, 2));
      return 0;
    }

    const rev = revision();
    const machine = `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1) ?? '?'}`;
    console.log(`asimov bench · ${rev} · node ${process.version} · ${process.platform}/${process.arch} · ${machine} · corpus dir ${dir}`);
    const summary: SummaryRow[] = [];
    const json: Record<string, unknown> = { date: new Date().toISOString(), revision: rev, node: process.version, machine, corpusDir: dir };

    if (opts.only.has('corpora')) {
      heading('1. Corpora');
      if (shellLines.size === 0) console.log(`No corpus found in ${dir}; the corpora section is skipped. Pass --corpus DIR or set ASIMOV_CORPUS_DIR.`);
      const reports = [];
      for (const spec of corpora.CORPORA) {
        const r = corpora.runCorpus(spec, dir, env, OUT_DIR);
        reports.push(r);
        console.log(corpora.formatCorpus(r, REPO_ROOT));
      }
      summary.push(...corpora.corpusSummaryRows(reports));
      json.corpora = reports.map((r) => ({
        id: r.spec.id, present: r.present, readError: r.readError, cases: r.all.n, errors: r.all.errors, exceptions: r.exceptions,
        duplicates: r.duplicates, malformed: r.malformed, analysisFailures: r.analysisFailures, tiers: r.all.tiers, buckets: r.buckets,
        headlineGroups: Object.fromEntries(r.headlineGroups), topFalseAllows: corpora.topRules(r, 'false_allow'), topFalseDenies: corpora.topRules(r, 'false_deny'),
      }));
    }

    if (opts.only.has('adversarial')) {
      heading('1b. Adversarial corpus (test/adversarial/cases)');
      const { runAdversarial, formatAdversarial, adversarialSummaryRows } = await import('./adversarial.ts');
      const a = runAdversarial(env);
      console.log(formatAdversarial(a, OUT_DIR));
      summary.push(...adversarialSummaryRows(a));
      json.adversarial = a.map((t) => ({ theme: t.theme, cases: t.cases, got: t.got, expected: t.expected, mismatches: t.mismatches.length }));
    }

    if (opts.only.has('traffic')) {
      heading('1c. Real agent traffic (agent-traffic.jsonl)');
      const { runTraffic, formatTraffic, trafficSummaryRows } = await import('./traffic.ts');
      const t = runTraffic(env, dir, OUT_DIR);
      console.log(formatTraffic(t));
      summary.push(...trafficSummaryRows(t));
      json.traffic = trafficSummaryRows(t);
    }

    if (opts.only.has('speed')) {
      heading('2. Speed');
      const nl = shellLines.get('nl2bash') ?? null;
      const s = runSpeed(env, REPO_ROOT, nl, opts.rounds);
      console.log(formatSpeed(s));
      summary.push(...speedSummaryRows(s));
      json.speed = s;
      // Throughput (bench/throughput.ts): a stream of decisions in one process, start-up included.
      const { runThroughput, formatThroughput, throughputSummaryRows } = await import('./throughput.ts');
      const tp = runThroughput(env, REPO_ROOT, nl);
      console.log(formatThroughput(tp));
      summary.push(...throughputSummaryRows(tp));
      json.throughput = tp;
    }

    if (opts.only.has('fuzz')) {
      heading('3. Robustness');
      if (seedLines.length === 0) console.log('No corpus lines to mutate: using the built-in seed lines.');
      else console.log(`mutating ${seedLines.length.toLocaleString('en-US')} shell lines of the corpora`);
      console.log(`fuzz seed ${opts.seed} (replay one input with --seed ${opts.seed} --replay <#>)`);
      const f = fuzz.runFuzz(env, opts.fuzz, opts.seed, fuzzSeeds);
      const x = fuzz.runExtremes(env);
      console.log(fuzz.formatFuzz(f, x));
      summary.push(...fuzz.fuzzSummaryRows(f, x, 100_000));
      json.fuzz = { ...f, statuses: Object.fromEntries(f.statuses), slowest: f.slowest.map((s) => ({ ...s, input: s.input.slice(0, 2000) })) };
      json.extremes = x;
    }

    if (opts.only.has('judge')) {
      heading('4. Judge');
      const settled = judge.measureSettled(env, dir);
      console.log(judge.formatSettled(settled));
      summary.push(...judge.settledSummaryRows(settled));
      const overhead = await judge.measureOverhead(env, opts.judgeRounds);
      console.log(judge.formatOverhead(overhead));
      summary.push(...judge.overheadSummaryRows(overhead));
      json.judge = { settled, overhead };
    }

    if (opts.only.has('claude')) {
      heading('5. Claude Code with the hook');
      const { runClaudeBench, formatClaudeBench, claudeBenchRows } = await import('./claude-run.ts');
      const c = await runClaudeBench(REPO_ROOT, join(REPO_ROOT, 'bench'), opts.claudeRounds);
      console.log(formatClaudeBench(c));
      summary.push(...claudeBenchRows(c));
      json.claude = c;
    }

    if (opts.only.has('mcp')) {
      heading('6. MCP proxy');
      const { runMcpBench, formatMcpBench, mcpBenchRows } = await import('./mcp.ts');
      const m = await runMcpBench(REPO_ROOT, join(REPO_ROOT, 'bench'));
      console.log(formatMcpBench(m));
      summary.push(...mcpBenchRows(m));
      json.mcp = m;
    }

    if (opts.only.has('serve')) {
      heading('7. asimov serve under load');
      const { runServeBench, formatServeBench, serveBenchRows } = await import('./serve.ts');
      const r = await runServeBench(REPO_ROOT, opts.serveSeconds);
      console.log(formatServeBench(r));
      summary.push(...serveBenchRows(r));
      json.serve = r;
    }

    if (opts.only.has('teams')) {
      heading('8. Teams: audit ingest, shipping on the call path, team policy propagation');
      const { runTeamsBench, formatTeamsBench, teamsBenchRows } = await import('./teams.ts');
      const r = await runTeamsBench(REPO_ROOT);
      console.log(formatTeamsBench(r));
      summary.push(...teamsBenchRows(r));
      json.teams = r;
    }

    json.loadAverageAtEnd = loadavg()[0];
    heading('Summary');
    console.log(summaryTable(summary));
    const failed = summary.filter((r) => r.status === 'FAIL').length;
    console.log(`\n${failed === 0 ? 'All measured targets met.' : `${failed} target(s) missed.`} Details in bench/out/.`);
    mkdirSync(OUT_DIR, { recursive: true });
    json.summary = summary;
    writeFileSync(join(OUT_DIR, 'summary.json'), `${JSON.stringify(json, null, 2)}\n`);
    writeFileSync(join(OUT_DIR, 'summary.md'), `${summaryTable(summary, true)}\n`);
    return 0;
  } finally {
    env.dispose();
  }
}

// Output piped into `head` may close early: keep running (and clean up the sandbox) instead of dying on EPIPE.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const err = e as { code?: string; message?: string; stack?: string };
    if (err?.code === 'ERR_MODULE_NOT_FOUND') {
      console.error(`bench: a module of the pipeline is missing, so nothing can be measured yet:\n  ${err.message ?? String(e)}`);
    } else {
      console.error(`bench: crashed: ${err?.stack ?? String(e)}`);
    }
    process.exitCode = 1;
  },
);
