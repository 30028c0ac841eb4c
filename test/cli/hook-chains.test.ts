// A user-policy chain through `asimov hook claude`: the built binary in a real process, as Claude Code runs
// it. The chain's block (exit 2, reason on stderr) must reach Claude Code's reply; a pass leaves it alone.
// `asimov policy` must show the chain.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');
let root = '';
let home = '';
let project = '';
let auditLog = '';

before(() => {
  assert.ok(existsSync(resolve(import.meta.dirname, '../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-hook-chains-')));
  home = join(root, 'home');
  project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(home, '.config', 'asimov'), { recursive: true });
  auditLog = join(root, 'audit.jsonl');
  // The check: reads the payload, refuses any command mentioning "prod", passes the rest.
  const check = join(home, 'no-prod.sh');
  writeFileSync(check, `#!/bin/sh\ninput=$(cat)\nprintf '%s' "$input" > "${join(root, 'seen.json')}"\ncase "$input" in\n  *prod*) echo "Production is off limits for agents; use staging." >&2; exit 2;;\nesac\nexit 0\n`);
  chmodSync(check, 0o755);
  writeFileSync(join(home, '.config', 'asimov', 'policy.yaml'), `version: 1\nchains:\n  - tools: [shell]\n    command: ~/no-prod.sh\n`);
});
after(() => rmSync(root, { recursive: true, force: true }));

function hook(command: string): { permissionDecision: string; permissionDecisionReason: string } {
  const payload = JSON.stringify({
    session_id: 'sess-chain', transcript_path: join(root, 't.jsonl'), cwd: project, permission_mode: 'default',
    hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_chain',
  });
  const r = spawnSync(process.execPath, [BIN, 'hook', 'claude'], {
    cwd: project,
    input: payload,
    env: { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: auditLog },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
}

describe('asimov hook claude with a chain in the user policy', () => {
  test('the chain blocks a call the static policy allows, and its reason reaches the reply and the audit', () => {
    const d = hook('git log --oneline prod-branch');
    assert.equal(d.permissionDecision, 'deny');
    assert.ok(d.permissionDecisionReason.startsWith(`asimov [chain:${home}/no-prod.sh]: Production is off limits for agents; use staging.`), d.permissionDecisionReason);
    const seen = JSON.parse(readFileSync(join(root, 'seen.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual([seen['hook_event_name'], seen['tool_name'], seen['session_id'], seen['tool_use_id']], ['PreToolUse', 'Bash', 'sess-chain', 'toolu_chain']);
    const last = JSON.parse(readFileSync(auditLog, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
    assert.deepEqual([last['verdict'], last['layer'], last['rule'], last['call_id']], ['deny', 'chain', `chain:${home}/no-prod.sh`, 'toolu_chain']);
  });

  test('a call the chain passes keeps the static verdict', () => {
    assert.equal(hook('git log --oneline').permissionDecision, 'allow');
  });

  test('asimov policy lists the chain, so a person can see what runs', () => {
    const r = spawnSync(process.execPath, [BIN, 'policy'], { cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Chains \(.*in the order they run\)\n {2}TOOLS +TIMEOUT +FROM +COMMAND\n {2}shell +5000 ms +~\/\.config\/asimov\/policy\.yaml +(.+)$/m);
    assert.ok(r.stdout.includes(`~/.config/asimov/policy.yaml  ${home}/no-prod.sh\n`), r.stdout);
  });
});
