// `asimov judge eval` end to end: the built binary in a real process, the real SDK client inside it, and a
// scripted model server on 127.0.0.1 whose answer to each case is known, so every printed figure is checked
// exactly. Scratch HOME and project; nothing the cases describe is ever run.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startAnthropicServer, type AnthropicServer, type CapturedRequest, type ScriptReply } from '../helpers/anthropic-server.ts';
import { startOpenAIServer } from '../helpers/openai-server.ts';

const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/asimov.cjs');
let root = '';
let home = '';
let project = '';

interface Run { code: number | null; out: string; err: string }

/** Asynchronous on purpose: the scripted server lives in this process and must keep answering meanwhile. */
function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_STATE_HOME: join(home, '.state'),
        ASIMOV_AUDIT_LOG: 'off',
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out, err }));
  });
}

function verdictReply(verdict: string, inputTokens: number): ScriptReply {
  return {
    kind: 'message',
    content: [{ type: 'tool_use', id: `toolu_${verdict}`, name: 'record_verdict', input: { verdict, reason: `scripted ${verdict}` } }],
    usage: { input_tokens: inputTokens, output_tokens: 8 },
  };
}

/**
 * The server's answer is keyed by a marker word in the call: ALLOWME → allow (120 tokens in), DENYME → deny
 * (300 in), PROSEME → prose instead of a verdict (20 in), UNSUREME → a valid unsure (80 in), FAILME → HTTP
 * 500 (no usage), INTENTCHECK → allow when the user's request reached the model, else deny. Output is 8 tokens
 * for every answer.
 */
function answer(req: CapturedRequest): ScriptReply {
  const body = JSON.stringify(req.body);
  if (body.includes('FAILME')) return { kind: 'raw', status: 500, headers: { 'content-type': 'application/json', 'retry-after': '0' }, body: '{"type":"error","error":{"type":"api_error","message":"scripted"}}' };
  if (body.includes('PROSEME')) return { kind: 'message', content: [{ type: 'text', text: 'This looks fine to me, I would allow it.' }], usage: { input_tokens: 20, output_tokens: 8 } };
  if (body.includes('UNSUREME')) return verdictReply('unsure', 80);
  if (body.includes('INTENTCHECK')) return body.includes('please frobnicate the widgets') ? verdictReply('allow', 120) : verdictReply('deny', 300);
  if (body.includes('DENYME')) return verdictReply('deny', 300);
  if (body.includes('ALLOWME')) return verdictReply('allow', 120);
  return { kind: 'raw', status: 400, body: 'no marker' };
}

const bash = (command: string) => ({ tool: 'Bash', input: { command } });
const CASES = [
  { id: 'c-allow-right', call: bash('frobnicate ALLOWME'), label: 'allow', why: 'w' },
  { id: 'c-deny-right', call: bash('frobnicate DENYME'), label: 'deny' },
  { id: 'c-false-allow', call: bash('frobnicate ALLOWME --again'), label: 'deny' },
  { id: 'c-false-deny', call: bash('frobnicate DENYME --again'), label: 'allow' },
  { id: 'c-prose', call: bash('frobnicate PROSEME'), label: 'deny' },
  { id: 'c-500', call: bash('frobnicate FAILME'), label: 'allow' },
  { id: 'c-hard', call: bash('git push --force origin main'), label: 'deny' },
  { id: 'c-read', call: { tool: 'Read', input: { file_path: 'README.md' } }, label: 'allow' },
  { id: 'c-intent', call: bash('frobnicate INTENTCHECK'), intent: 'please frobnicate the widgets', label: 'allow' },
  { id: 'c-mcp', call: { tool: 'mcp__acme__do_thing', input: { note: 'ALLOWME' } }, label: 'allow' },
  { id: 'c-unsure', call: { tool: 'frobnicate_tool', input: { x: 'UNSUREME' }, cwd: 'sub' }, label: 'allow' },
];

let server: AnthropicServer;
let casesFile = '';
let rulesFile = '';

before(async () => {
  assert.ok(existsSync(join(REPO, 'dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = mkdtempSync(join(tmpdir(), 'asimov-judge-eval-'));
  home = join(root, 'home');
  project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  casesFile = join(root, 'cases.jsonl');
  writeFileSync(casesFile, `${CASES.map((c) => JSON.stringify(c)).join('\n')}\n`);
  rulesFile = join(root, 'rules.md');
  writeFileSync(rulesFile, '# Rules\n\n- GROUND-RULES-MARKER: never frobnicate on Fridays.\n');
  server = await startAnthropicServer({ onRequest: answer });
});

after(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('asimov judge eval against a scripted Anthropic server', () => {
  let text: Run;
  let requests: CapturedRequest[] = [];

  before(async () => {
    const first = server.requests.length;
    text = await run(['judge', 'eval', '--base-url', server.url, '--model', 'claude-scripted', '--ground-rules', rulesFile, '--concurrency', '3', casesFile]);
    requests = server.requests.slice(first);
  });

  test('exits 0 and names the judge, the cases and the ground rules', () => {
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, new RegExp(`^judge: anthropic claude-scripted at ${server.url.replace(/\./g, '\\.')} \\(timeout 30000 ms, 3 at a time\\)$`, 'm'));
    assert.ok(text.out.includes(`cases: ${casesFile}\n`));
    assert.ok(text.out.includes(`ground rules: ${rulesFile}\n`));
  });

  test('prints every figure exactly', () => {
    const row = (name: string): string => {
      const m = new RegExp(`^${name} +(.*)$`, 'm').exec(text.out);
      assert.ok(m, `no "${name}" row in:\n${text.out}`);
      return m[1]!;
    };
    // 11 cases; c-hard (hard_deny) and c-read (allow) never reach the judge. Of the 9 judged: allow-labelled
    // 6 (3 allowed, 1 denied, 2 unsure), deny-labelled 3 (1 denied, 1 allowed, 1 unsure).
    assert.equal(row('judged'), '9 of 11 (2 not for the judge: Layer 1 settles them alone)');
    assert.equal(row('accuracy'), '44.4% (4/9)');
    assert.equal(row('false-allow rate'), '33.3% (1/3) deny-labelled cases allowed');
    assert.equal(row('false-deny rate'), '16.7% (1/6) allow-labelled cases denied');
    assert.equal(row('unsure rate'), '33.3% (3/9), 2 of them failures (timeout, error)');
    assert.match(row('latency p50 / p95'), /^\d+ ms \/ \d+ ms \(nearest rank; max \d+ ms\)$/);
    // 120+300+120+300+20+120+120+80 = 1180 in, 8 × 8 = 64 out, over the 8 answers that carried usage.
    assert.equal(row('tokens in / out'), '1180 / 64 in all; 147.5 / 8.0 per case (8 cases reporting)');
  });

  test('lists the misjudged cases with label, verdict and reason, then the ones not for the judge', () => {
    const misjudged = /^misjudged \((\d+)\):\n((?: {2}.*\n)+)/m.exec(text.out);
    assert.ok(misjudged, text.out);
    assert.equal(misjudged[1], '5');
    const rows = misjudged[2]!.trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));
    assert.deepEqual(rows[0], ['id', 'label', 'verdict', 'reason']);
    assert.deepEqual(rows.slice(1).map((r) => r.slice(0, 3)), [
      ['c-false-allow', 'deny', 'allow'],
      ['c-false-deny', 'allow', 'deny'],
      ['c-prose', 'deny', 'unsure'],
      ['c-500', 'allow', 'unsure'],
      ['c-unsure', 'allow', 'unsure'],
    ]);
    assert.equal(rows[1]![3], 'scripted allow');
    assert.match(rows[3]![3]!, /^\[judge_malformed\] /);
    assert.match(rows[4]![3]!, /^\[judge_http_500\] /);
    const skipped = /^not for the judge \(2\):\n((?: {2}.*\n)+)/m.exec(text.out);
    assert.ok(skipped, text.out);
    const srows = skipped[1]!.trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));
    assert.deepEqual(srows.slice(1).map((r) => r.slice(0, 3)), [['c-hard', 'deny', 'hard_deny'], ['c-read', 'allow', 'allow']]);
  });

  test('the server saw each judged call once (the 500 twice: one retry), never the statically settled ones', () => {
    assert.equal(requests.length, 10);
    const bodies = requests.map((r) => JSON.stringify(r.body));
    assert.equal(bodies.filter((b) => b.includes('FAILME')).length, 2);
    assert.ok(!bodies.some((b) => b.includes('git push --force origin main')));
    assert.ok(!bodies.some((b) => b.includes('README.md')));
    for (const r of requests) assert.equal(r.body.model, 'claude-scripted');
  });

  test('the given ground rules and the case\'s intent reach the model', () => {
    assert.ok(requests.every((r) => JSON.stringify(r.body).includes('GROUND-RULES-MARKER')));
    const intent = requests.find((r) => JSON.stringify(r.body).includes('INTENTCHECK'));
    assert.ok(intent && JSON.stringify(intent.body).includes('please frobnicate the widgets'));
    // Only that case has an intent.
    assert.equal(requests.filter((r) => JSON.stringify(r.body).includes('please frobnicate')).length, 1);
  });
});

describe('asimov judge eval --json', () => {
  test('reports the same figures and every case, as one JSON object', async () => {
    const r = await run(['judge', 'eval', '--json', '--base-url', server.url, '--ground-rules', rulesFile, casesFile]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    const j = JSON.parse(r.out);
    assert.equal(j.provider, 'anthropic');
    assert.equal(j.model, 'claude-haiku-4-5');
    assert.equal(j.concurrency, 4);
    const m = j.metrics;
    assert.deepEqual([m.cases, m.notForJudge, m.judged], [11, 2, 9]);
    assert.deepEqual(m.byLabel, { allow: { allow: 3, deny: 1, unsure: 2 }, deny: { allow: 1, deny: 1, unsure: 1 } });
    assert.deepEqual(m.accuracy, { count: 4, of: 9, rate: 4 / 9 });
    assert.deepEqual(m.falseAllow, { count: 1, of: 3, rate: 1 / 3 });
    assert.deepEqual(m.falseDeny, { count: 1, of: 6, rate: 1 / 6 });
    assert.deepEqual(m.unsure, { count: 3, of: 9, rate: 1 / 3 });
    assert.equal(m.failures, 2);
    assert.deepEqual(m.tokens, { reporting: 8, input: 1180, output: 64, inputPerCase: 147.5, outputPerCase: 8 });
    assert.ok(m.latencyMs.p50 <= m.latencyMs.p95 && m.latencyMs.p95 <= m.latencyMs.max);
    assert.deepEqual(
      j.results.map((x: { id: string; verdict?: string; notForJudge?: boolean }) => [x.id, x.verdict ?? (x.notForJudge ? 'static' : '?')]),
      [['c-allow-right', 'allow'], ['c-deny-right', 'deny'], ['c-false-allow', 'allow'], ['c-false-deny', 'deny'], ['c-prose', 'unsure'], ['c-500', 'unsure'],
        ['c-hard', 'static'], ['c-read', 'static'], ['c-intent', 'allow'], ['c-mcp', 'allow'], ['c-unsure', 'unsure']],
    );
    const c500 = j.results.find((x: { id: string }) => x.id === 'c-500');
    assert.equal(c500.errorCode, 'judge_http_500');
    assert.equal(c500.usage, undefined);
    assert.deepEqual(j.results.find((x: { id: string }) => x.id === 'c-deny-right').usage, { inputTokens: 300, outputTokens: 8 });
  });
});

describe('asimov judge eval defaults', () => {
  test('the shipped cases and ground rules, and the judge from the user policy', async () => {
    const userPolicy = join(home, '.config', 'asimov', 'policy.yaml');
    mkdirSync(join(home, '.config', 'asimov'), { recursive: true });
    writeFileSync(userPolicy, `version: 1\njudge:\n  provider: anthropic\n  model: claude-from-policy\n  baseUrl: ${server.url}\n  timeoutMs: 20000\n`);
    const first = server.requests.length;
    let r: Run;
    try {
      // A server that allows everything: accuracy is then the share of allow-labelled cases.
      r = await run(['judge', 'eval', '--json', '--concurrency', '8'], { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' });
    } finally {
      rmSync(userPolicy);
    }
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.model, 'claude-from-policy');
    assert.equal(j.baseUrl, server.url);
    assert.equal(j.timeoutMs, 20000);
    assert.equal(j.casesFile, join(REPO, 'eval', 'judge-cases.jsonl'));
    assert.equal(j.groundRulesFile, join(REPO, 'eval', 'ground-rules.md'));
    const shipped = readFileSync(join(REPO, 'eval', 'judge-cases.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { label: string });
    const allowLabelled = shipped.filter((c) => c.label === 'allow').length;
    // The shipped cases are all soft_deny/unknown, and none carries a marker: the server answers 400 to each.
    assert.equal(j.metrics.cases, shipped.length);
    assert.equal(j.metrics.judged, shipped.length);
    assert.equal(j.metrics.unsure.count, shipped.length);
    assert.equal(j.metrics.failures, shipped.length);
    assert.ok(j.results.every((x: { errorCode?: string }) => x.errorCode === 'judge_http_400'), JSON.stringify(j.results[0]));
    assert.ok(allowLabelled > 0);
    const seen = server.requests.slice(first);
    assert.equal(seen.length, shipped.length);
    assert.ok(readFileSync(join(REPO, 'eval', 'ground-rules.md'), 'utf8').includes('Secrets stay on this machine'));
    assert.ok(seen.every((s) => JSON.stringify(s.body).includes('Secrets stay on this machine')));
  });
});

describe('asimov judge eval --provider openai', () => {
  test('runs against an OpenAI-compatible server, with that provider\'s default model rather than the policy\'s', async () => {
    const openai = await startOpenAIServer({
      onRequest: (req) => {
        const body = JSON.stringify(req.body);
        const verdict = body.includes('DENYME') ? 'deny' : body.includes('ALLOWME') ? 'allow' : 'unsure';
        return { kind: 'message', content: JSON.stringify({ verdict, reason: `openai ${verdict}` }), usage: { prompt_tokens: 50, completion_tokens: 5 } };
      },
    });
    const userPolicy = join(home, '.config', 'asimov', 'policy.yaml');
    mkdirSync(join(home, '.config', 'asimov'), { recursive: true });
    writeFileSync(userPolicy, `version: 1\njudge:\n  provider: anthropic\n  model: claude-from-policy\n  baseUrl: ${server.url}\n`);
    const cases = join(root, 'openai-cases.jsonl');
    writeFileSync(cases, [
      { id: 'o1', call: bash('frobnicate ALLOWME'), label: 'allow' },
      { id: 'o2', call: bash('frobnicate DENYME'), label: 'allow' },
      { id: 'o3', call: bash('frobnicate NOTHING'), label: 'deny' },
      { id: 'o4', call: bash('git push --force origin main'), label: 'deny' },
    ].map((c) => JSON.stringify(c)).join('\n'));
    const firstAnthropic = server.requests.length;
    let r: Run;
    try {
      r = await run(['judge', 'eval', '--provider', 'openai', '--base-url', openai.baseUrl, '--ground-rules', rulesFile, cases]);
    } finally {
      rmSync(userPolicy);
      await openai.close();
    }
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^judge: openai gpt-4\.1-mini at http:\/\/127\.0\.0\.1:\d+\/v1 /m);
    assert.match(r.out, /^judged +3 of 4 \(1 not for the judge/m);
    assert.match(r.out, /^accuracy +33\.3% \(1\/3\)$/m);
    assert.match(r.out, /^false-allow rate +0\.0% \(0\/1\) deny-labelled cases allowed$/m);
    assert.match(r.out, /^false-deny rate +50\.0% \(1\/2\) allow-labelled cases denied$/m);
    assert.match(r.out, /^unsure rate +33\.3% \(1\/3\), 0 of them failures/m);
    assert.match(r.out, /^tokens in \/ out +150 \/ 15 in all; 50\.0 \/ 5\.0 per case \(3 cases reporting\)$/m);
    assert.equal(openai.requests.length, 3);
    assert.ok(openai.requests.every((q) => q.body.model === 'gpt-4.1-mini'));
    assert.equal(server.requests.length, firstAnthropic, 'the policy\'s Anthropic server was not asked');
  });
});

describe('asimov judge eval errors', () => {
  test('a malformed case names the file, line and key; nothing is sent', async () => {
    const bad = join(root, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(CASES[0])}\n${JSON.stringify({ id: 'x', call: bash('ls'), lable: 'deny' })}\n`);
    const first = server.requests.length;
    const r = await run(['judge', 'eval', '--base-url', server.url, bad]);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.ok(r.err.includes(`${bad}:2: lable: unknown key`), r.err);
    assert.equal(server.requests.length, first);
  });

  test('a missing cases or ground-rules file, bad flags and an unknown subcommand exit 1 without a stack trace', async () => {
    for (const args of [
      ['judge', 'eval', join(root, 'absent.jsonl')],
      ['judge', 'eval', '--ground-rules', join(root, 'absent.md'), casesFile],
      ['judge', 'eval', '--provider', 'bogus', casesFile],
      ['judge', 'eval', '--concurrency', '0', casesFile],
      ['judge', 'eval', '--timeout-ms', 'soon', casesFile],
      ['judge', 'eval', '--base-url', 'ftp://x', casesFile],
      ['judge', 'eval', casesFile, casesFile],
      ['judge', 'frobnicate'],
      ['judge'],
    ]) {
      const r = await run(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.out}${r.err}`);
      assert.ok(r.err.length > 0 || args.length === 1, `${args.join(' ')} printed no error`);
      assert.doesNotMatch(r.out + r.err, /\n\s+at .+:\d+:\d+\)?\n/, `${args.join(' ')}: a stack trace was printed`);
    }
    const missing = await run(['judge', 'eval', join(root, 'absent.jsonl')]);
    assert.match(missing.err, /absent\.jsonl: cannot read the cases file: no such file/);
  });

  test('a judge without its key or binary fails at once, naming what to set, and asks nothing', async () => {
    const first = server.requests.length;
    const cases: { args: string[]; env: Record<string, string>; names: RegExp }[] = [
      { args: ['judge', 'eval', '--base-url', server.url, casesFile], env: { ANTHROPIC_API_KEY: '' }, names: /ANTHROPIC_API_KEY/ },
      { args: ['judge', 'eval', '--provider', 'openai', casesFile], env: { OPENAI_API_KEY: '' }, names: /OPENAI_API_KEY/ },
      { args: ['judge', 'eval', '--provider', 'claude-cli', casesFile], env: { PATH: join(root, 'no-such-dir') }, names: /`claude`/ },
    ];
    for (const c of cases) {
      const r = await run(c.args, c.env);
      assert.equal(r.code, 1, `${c.args.join(' ')}: ${r.out}${r.err}`);
      assert.equal(r.out, '');
      assert.match(r.err, c.names);
      assert.doesNotMatch(r.err, /judging \d+ cases/);
    }
    assert.equal(server.requests.length, first);
  });

  test('--help exits 0', async () => {
    const r = await run(['judge', 'eval', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, /false-allow rate/);
  });
});
