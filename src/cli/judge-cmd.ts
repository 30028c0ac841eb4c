// `asimov judge eval`: a labelled set of calls through a judge, and the figures to compare models by
// (accuracy, false-allow and false-deny rates, unsure rate, latency, tokens). It measures; it does not
// pass or fail: exit 0 whenever it ran, 1 on a usage error or when it could not run.

import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AsimovError } from '../core/errors.ts';
import { createGate } from '../gate/gate.ts';
import { createJudge, resolveJudgeSettings, type JudgeSettings } from '../judge/create.ts';
import { parseCases } from '../judge/eval-cases.ts';
import { judgeRequirementProblem } from '../judge/requirements.ts';
import { computeMetrics, misjudged, runEval, type CaseResult, type EvalMetrics, type Share, type SkippedCase } from '../judge/eval.ts';
import { JUDGE_PROVIDERS, type JudgeConfig } from '../policy/schema.ts';
import { parseOptions, unknownName } from './args.ts';
import { EXIT, UsageError, type CliIO } from './io.ts';

export const JUDGE_HELP = `Usage:
  asimov judge eval [--provider anthropic|openai|claude-cli] [--model M] [--base-url URL]
                    [--timeout-ms N] [--concurrency N] [--ground-rules FILE] [--json] [CASES.jsonl]

Runs labelled calls through the judge and prints accuracy, the false-allow rate (deny-labelled, judge
allowed), the false-deny rate (allow-labelled, judge denied), the unsure rate, latency p50/p95 (nearest
rank) and tokens, then the cases the judge got wrong. Cases whose static tier is allow or hard_deny never
reach the judge; they are listed apart and left out of every figure.

  CASES.jsonl         one case per line: {"id", "call": {"tool", "input", "cwd"?}, "intent"?, "label": "allow"|"deny", "why"?}
                      (default: the set shipped with asimov, eval/judge-cases.jsonl)
  --ground-rules FILE the ground rules the judge is given (default: the shipped eval/ground-rules.md,
                      which the shipped labels assume)
  --provider, --model, --base-url, --timeout-ms
                      the judge to test (default: the policy's judge: section, else the built-in defaults)
  --concurrency N     cases with the judge at once (default 4)
  --json              one JSON object with the settings, the figures and every case's result

Each case's intent is always sent to the judge. Answers are never cached here.
Exit status: 0 when the eval ran (the figures are not a pass/fail), 1 on a usage error or a failure to run.
`;

const DEFAULT_CONCURRENCY = 4;

export async function judgeCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.out(JUDGE_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub !== 'eval') throw unknownName('judge command', sub, ['eval']);
  return evalCommand(rest, io);
}

interface EvalFlags {
  casesFile: string;
  groundRulesFile: string;
  provider: JudgeSettings['provider'] | undefined;
  model: string | undefined;
  baseUrl: string | undefined;
  timeoutMs: number | undefined;
  concurrency: number;
  json: boolean;
}

function wholeNumber(flag: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${flag} needs a whole number from ${min} to ${max}, got "${v}"`);
  return Number(v);
}

function parseFlags(argv: string[], io: CliIO): EvalFlags | null {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      'timeout-ms': { type: 'string' },
      concurrency: { type: 'string' },
      'ground-rules': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  if (positionals.length > 1) throw new UsageError('give at most one cases file');
  const provider = values.provider;
  if (provider !== undefined && !(JUDGE_PROVIDERS as readonly string[]).includes(provider)) {
    throw new UsageError(`--provider takes ${JUDGE_PROVIDERS.join(', ')}; got "${provider}"`);
  }
  if (values.model !== undefined && values.model.trim() === '') throw new UsageError('--model must not be empty');
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(baseUrl)) throw new UsageError(`--base-url must be an http:// or https:// URL, got "${baseUrl}"`);
  const shipped = (): string => shippedEvalDir();
  return {
    casesFile: positionals[0] !== undefined ? resolve(io.cwd, positionals[0]) : join(shipped(), 'judge-cases.jsonl'),
    groundRulesFile: values['ground-rules'] !== undefined ? resolve(io.cwd, values['ground-rules']) : join(shipped(), 'ground-rules.md'),
    provider: provider as JudgeSettings['provider'] | undefined,
    model: values.model,
    baseUrl,
    timeoutMs: wholeNumber('timeout-ms', values['timeout-ms'], 1, 600_000),
    concurrency: wholeNumber('concurrency', values.concurrency, 1, 64) ?? DEFAULT_CONCURRENCY,
    json: values.json === true,
  };
}

/**
 * The `eval/` directory shipped next to the program: one level above the bundle (dist/cli.cjs), two above
 * this source file when it runs unbundled.
 */
export function shippedEvalDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'eval', 'judge-cases.jsonl'))) return join(dir, 'eval');
    dir = dirname(dir);
  }
  throw new AsimovError('bad_input', 'the labelled cases shipped with asimov (eval/judge-cases.jsonl) were not found next to the program; give a CASES.jsonl file');
}

/**
 * The judge under test: the policy's judge section (as if the judge were switched on), with the flags on
 * top. A --provider other than the policy's drops the policy's model and base URL, which belong to
 * the other provider, so that provider's defaults apply.
 */
export function evalSettings(config: JudgeConfig | undefined, flags: Pick<EvalFlags, 'provider' | 'model' | 'baseUrl' | 'timeoutMs'>, env: NodeJS.ProcessEnv): JudgeSettings {
  let base: JudgeConfig | undefined = config;
  if (flags.provider !== undefined && flags.provider !== (config?.provider ?? 'anthropic')) {
    base = { provider: flags.provider, ...(config?.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}) };
  }
  const resolved = resolveJudgeSettings(base, { ...env, GATE_CHECK: 'true' });
  if (resolved === null) throw new AsimovError('internal', 'the judge settings could not be resolved (is this a judge\'s own child process?)');
  const settings: JudgeSettings = { ...resolved };
  if (flags.model !== undefined) settings.model = flags.model;
  if (flags.baseUrl !== undefined) settings.baseUrl = flags.baseUrl;
  if (flags.timeoutMs !== undefined) settings.timeoutMs = flags.timeoutMs;
  return settings;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new AsimovError('bad_input', `cannot read the ${what}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { file });
  }
}

async function evalCommand(argv: string[], io: CliIO): Promise<number> {
  const flags = parseFlags(argv, io);
  if (flags === null) {
    io.out(JUDGE_HELP);
    return EXIT.ok;
  }
  const cases = parseCases(readText(flags.casesFile, 'cases file'), flags.casesFile);
  const groundRules = readText(flags.groundRulesFile, 'ground rules');
  const gate = createGate({ env: io.env, audit: false });
  const settings = evalSettings(gate.policyFor(io.cwd).judge, flags, io.env);
  // Without its key every case would fail the same way, and the figures would measure nothing.
  const missing = judgeRequirementProblem(settings, io.env);
  if (missing !== null) {
    io.err(`asimov judge eval: ${missing}\n`);
    return EXIT.error;
  }
  // Never cached: the eval measures the model, and a cache hit would measure the disk.
  const judge = createJudge(settings, { env: io.env, cache: false });
  if (!flags.json) io.err(`judging ${cases.length} cases with ${settings.provider} ${settings.model}, ${flags.concurrency} at a time…\n`);
  const results = await runEval(cases, {
    judge,
    classify: (call) => gate.inspect(call).classification,
    groundRules,
    cwd: io.cwd,
    concurrency: flags.concurrency,
    timeoutMs: settings.timeoutMs,
  });
  const metrics = computeMetrics(results);
  if (flags.json) io.out(`${JSON.stringify(jsonReport(settings, flags, metrics, results))}\n`);
  else io.out(textReport(settings, flags, metrics, results));
  return EXIT.ok;
}

// ---------------------------------------------------------------------------------------------------------
// Output.

export function formatShare(s: Share): string {
  return Number.isNaN(s.rate) ? `n/a (${s.count}/${s.of})` : `${(s.rate * 100).toFixed(1)}% (${s.count}/${s.of})`;
}

function ms(n: number): string {
  return Number.isNaN(n) ? 'n/a' : `${Math.round(n)} ms`;
}

function perCase(n: number): string {
  return Number.isNaN(n) ? 'n/a' : n.toFixed(1);
}

/** One line of a reason or intent: newlines shown, long text cut. */
function oneLine(s: string, max = 120): string {
  const flat = s.replace(/\s*\n\s*/g, ' ⏎ ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function table(rows: readonly (readonly string[])[], indent = ''): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((r) => indent + r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

export function textReport(settings: JudgeSettings, flags: EvalFlags, m: EvalMetrics, results: readonly CaseResult[]): string {
  const lines: string[] = [];
  lines.push(`judge: ${settings.provider} ${settings.model}${settings.baseUrl ? ` at ${settings.baseUrl}` : ''} (timeout ${settings.timeoutMs} ms, ${flags.concurrency} at a time)`);
  lines.push(`cases: ${flags.casesFile}`);
  lines.push(`ground rules: ${flags.groundRulesFile}`);
  lines.push('');
  lines.push(
    table([
      ['judged', `${m.judged} of ${m.cases} (${m.notForJudge} not for the judge: Layer 1 settles them alone)`],
      ['accuracy', formatShare(m.accuracy)],
      ['false-allow rate', `${formatShare(m.falseAllow)} deny-labelled cases allowed`],
      ['false-deny rate', `${formatShare(m.falseDeny)} allow-labelled cases denied`],
      ['unsure rate', `${formatShare(m.unsure)}, ${m.failures} of them failures (timeout, error)`],
      ['latency p50 / p95', `${ms(m.latencyMs.p50)} / ${ms(m.latencyMs.p95)} (nearest rank; max ${ms(m.latencyMs.max)})`],
      [
        'tokens in / out',
        m.tokens.reporting === 0
          ? 'not reported by the provider'
          : `${m.tokens.input} / ${m.tokens.output} in all; ${perCase(m.tokens.inputPerCase)} / ${perCase(m.tokens.outputPerCase)} per case (${m.tokens.reporting} cases reporting)`,
      ],
    ]),
  );
  const wrong = misjudged(results);
  lines.push('');
  if (wrong.length === 0) lines.push('misjudged: none');
  else {
    lines.push(`misjudged (${wrong.length}):`);
    lines.push(table([['id', 'label', 'verdict', 'reason'], ...wrong.map((r) => [r.id, r.label, r.verdict, oneLine(r.errorCode ? `[${r.errorCode}] ${r.reason}` : r.reason)])], '  '));
  }
  const skipped = results.filter((r): r is SkippedCase => r.kind === 'not_for_judge');
  if (skipped.length > 0) {
    lines.push('');
    lines.push(`not for the judge (${skipped.length}):`);
    lines.push(table([['id', 'label', 'tier', 'rule'], ...skipped.map((r) => [r.id, r.label, r.tier, r.rule ?? '-'])], '  '));
  }
  return `${lines.join('\n')}\n`;
}

export function jsonReport(settings: JudgeSettings, flags: EvalFlags, m: EvalMetrics, results: readonly CaseResult[]): Record<string, unknown> {
  return {
    provider: settings.provider,
    model: settings.model,
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    timeoutMs: settings.timeoutMs,
    concurrency: flags.concurrency,
    casesFile: flags.casesFile,
    groundRulesFile: flags.groundRulesFile,
    // NaN (nothing to divide) becomes null in JSON.
    metrics: m,
    results: results.map((r) =>
      r.kind === 'judged'
        ? { id: r.id, label: r.label, tier: r.tier, verdict: r.verdict, reason: r.reason, latencyMs: Math.round(r.latencyMs * 10) / 10, ...(r.usage ? { usage: r.usage } : {}), ...(r.errorCode ? { errorCode: r.errorCode } : {}) }
        : { id: r.id, label: r.label, tier: r.tier, rule: r.rule, notForJudge: true },
    ),
  };
}
