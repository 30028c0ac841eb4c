// asimov in front of the real Codex CLI (node_modules/.bin/codex, 0.169.0): the hook and its trust record
// installed by `asimov wire codex` into a scratch HOME, a scripted Responses API model on 127.0.0.1
// proposing shell commands, and checks on what actually happened on disk and on what the model was told.
//
// Codex runs with its own approvals and sandbox switched off, so only asimov stands in the way. Every
// scripted command is chosen so that, were asimov to fail, its effect stays inside the scratch dirs.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { makeScratch } from '../helpers/claude-cli.ts';
import { startCodexModelServer, type CodexStep } from '../helpers/codex-model-server.ts';

const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/asimov.cjs');
const CODEX_BIN = realpathSync(join(REPO, 'node_modules/.bin/codex'));
const RUN_TIMEOUT_MS = 90_000;

let s: ReturnType<typeof makeScratch>;
let auditLog = '';

function baseEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: s.home,
    LANG: 'C.UTF-8',
    TMPDIR: join(s.home, '.tmp'),
    NO_PROXY: '127.0.0.1,localhost,::1',
    ASIMOV_AUDIT_LOG: auditLog,
  };
}

interface CodexRun { code: number | null; stdout: string; stderr: string }

/** `codex exec` headless in the scratch project, against the scripted model at `baseUrl`. */
function runCodex(baseUrl: string): Promise<CodexRun> {
  const args = [
    'exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox',
    '-c', `model_providers.scripted.base_url="${baseUrl}"`, 'do the task',
  ];
  // stdin closed (runCli's default): `codex exec` otherwise waits to read more of the prompt from it.
  return runCli(CODEX_BIN, args, { cwd: s.project, env: baseEnv(), timeoutMs: RUN_TIMEOUT_MS });
}

/** One scripted session; returns the run and what each scripted call's output was, by step. */
async function session(steps: CodexStep[]) {
  const server = await startCodexModelServer({ script: steps });
  try {
    const run = await runCodex(server.baseUrl);
    const outputs = server.toolOutputs();
    const byStep = (i: number) => {
      const out = outputs.get(`call_${i}_0`);
      assert.ok(out !== undefined, `no output for step ${i}; exit ${run.code}, stderr ${run.stderr.slice(-600)}`);
      return out;
    };
    return { run, byStep };
  } finally {
    await server.close();
  }
}

before(() => {
  s = makeScratch('asimov-e2e-codex-');
  mkdirSync(join(s.project, '.git'));
  mkdirSync(join(s.home, '.tmp'));
  mkdirSync(join(s.home, 'notes'));
  mkdirSync(join(s.home, '.codex'));
  writeFileSync(join(s.home, 'notes', 'keep.txt'), 'precious');
  writeFileSync(
    join(s.project, 'package.json'),
    JSON.stringify({ name: 'scratch', version: '1.0.0', scripts: { build: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'built\')"' } }, null, 2),
  );
  auditLog = join(s.root, 'audit.jsonl');
  // The person's own Codex config: a model provider (its address is set per run with -c).
  writeFileSync(
    join(s.home, '.codex', 'config.toml'),
    'model = "scripted-model"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "scripted"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n',
  );
  const wired = spawnSync(process.execPath, [BIN, 'wire', 'codex'], { cwd: s.project, env: baseEnv(), encoding: 'utf8' });
  assert.equal(wired.status, 0, wired.stderr);
  assert.match(wired.stdout, /trusted asimov's hook/);
});

after(() => s?.cleanup());

describe('Codex CLI with asimov wired in', () => {
  test('dangerous commands are blocked, their effects do not happen, and the reason reaches the model', async () => {
    const { byStep } = await session([
      { calls: [{ name: 'exec_command', arguments: { cmd: 'rm -rf ~/notes' } }] },
      { calls: [{ name: 'exec_command', arguments: { cmd: 'echo pwned >> ~/.bashrc' } }] },
    ]);
    assert.equal(readFileSync(join(s.home, 'notes', 'keep.txt'), 'utf8'), 'precious');
    assert.ok(!existsSync(join(s.home, '.bashrc')), '~/.bashrc was written');
    assert.match(byStep(0), /blocked by PreToolUse hook: asimov \[fs\.rm-outside-project\]/);
    assert.match(byStep(1), /blocked by PreToolUse hook: asimov \[sec\.shell-init\]/);
  });

  test('an everyday command runs, and the audit log records it as a Codex call', async () => {
    const { run, byStep } = await session([{ calls: [{ name: 'exec_command', arguments: { cmd: 'npm run build' } }] }]);
    assert.equal(run.code, 0, run.stderr.slice(-600));
    assert.equal(readFileSync(join(s.project, 'built.txt'), 'utf8'), 'built');
    assert.doesNotMatch(byStep(0), /blocked/);
    const audit = readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const build = audit.find((e) => (e['input'] as { command?: string }).command === 'npm run build');
    assert.ok(build, 'the build call is not in the audit log');
    assert.equal(build['verdict'], 'allow');
    assert.equal(build['agent'], 'codex');
    assert.equal(build['client_tool'], 'Bash');
    assert.equal(build['call_id'], 'call_0_0');
  });
});
