// The gate pipeline: tiers resolve to verdicts as DESIGN §2 says, and every failure on the way is a deny.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditSink } from '../../src/gate/gate.ts';
import { defineShellRule } from '../../src/policy/rule.ts';
import { recommended } from '../../src/policy/rules/index.ts';
import { verifyLog } from '../../src/audit/verify.ts';
import type { ToolCall } from '../../src/core/types.ts';
import { gateScratch, scratchGate } from '../helpers/gate-scratch.ts';

const scratch = () => gateScratch('asimov-gate-');

function shell(command: string, cwd: string): ToolCall {
  return { tool: 'shell', clientTool: 'Bash', input: { command }, cwd };
}

const gateFor = scratchGate;

describe('resolution of tiers into verdicts', () => {
  test('hard_deny is deny, allow is allow, unknown asks a person', async () => {
    const s = scratch();
    try {
      const gate = gateFor(s);
      const hard = await gate.decide(shell('rm -rf ~', s.project));
      assert.equal(hard.verdict, 'deny');
      assert.equal(hard.tier, 'hard_deny');
      assert.equal(hard.layer, 'static');
      assert.ok(hard.rule);
      assert.equal((await gate.decide(shell('git status', s.project))).verdict, 'allow');
      const unknown = await gate.decide(shell('frobnicate --all', s.project));
      assert.equal(unknown.tier, 'unknown');
      assert.equal(unknown.verdict, 'ask');
    } finally {
      s.cleanup();
    }
  });

  test('where no person can answer, soft_deny and unknown become deny and the reason says why', async () => {
    const s = scratch();
    try {
      const gate = gateFor(s, { personAvailable: false });
      const d = await gate.decide(shell('frobnicate --all', s.project));
      assert.equal(d.verdict, 'deny');
      assert.equal(d.tier, 'unknown');
      assert.match(d.reason, /No person can answer/);
      assert.equal((await gate.decide(shell('git status', s.project))).verdict, 'allow');
    } finally {
      s.cleanup();
    }
  });

  test('every finding is kept, the most severe first', async () => {
    const s = scratch();
    try {
      const d = await gateFor(s).decide(shell('ls && rm -rf /', s.project));
      assert.equal(d.tier, 'hard_deny');
      assert.ok(d.findings.length >= 2);
      assert.equal(d.findings[0]!.tier, 'hard_deny');
    } finally {
      s.cleanup();
    }
  });
});

describe('fail closed', () => {
  test('a broken project policy denies every call, naming file, line and key', async () => {
    const s = scratch();
    try {
      mkdirSync(join(s.project, '.asimov'));
      writeFileSync(join(s.project, '.asimov', 'policy.yaml'), 'version: 1\nrules:\n  git.force-pusj: allow\n');
      const d = await gateFor(s).decide(shell('git status', s.project));
      assert.equal(d.verdict, 'deny');
      assert.equal(d.layer, 'error');
      assert.match(d.reason, /policy\.yaml:3/);
      assert.match(d.reason, /git\.force-pusj/);
      assert.match(d.reason, /did you mean "git\.force-push"/);
    } finally {
      s.cleanup();
    }
  });

  test('a rule that throws turns the call into a deny with the error, not an exception', async () => {
    const s = scratch();
    try {
      const boom = defineShellRule({
        id: 'test.boom', tier: 'allow', reason: 'x', examples: { match: ['x'], notMatch: ['y'] },
        match: () => { throw new Error('rule exploded'); },
      });
      const policy = { ...gateFor(s).policyFor(s.project), rules: [...recommended, boom] };
      const d = await gateFor(s, { policy }).decide(shell('git status', s.project));
      assert.equal(d.verdict, 'deny');
      assert.equal(d.layer, 'error');
      assert.match(d.reason, /rule exploded/);
    } finally {
      s.cleanup();
    }
  });

  test('a call whose input has no command string is not allowed', async () => {
    const s = scratch();
    try {
      const d = await gateFor(s).decide({ tool: 'shell', input: { description: "list files" }, cwd: s.project });
      assert.notEqual(d.verdict, 'allow');
    } finally {
      s.cleanup();
    }
  });

  test('an unknown tool is unknown, never allow', async () => {
    const s = scratch();
    try {
      const d = await gateFor(s).decide({ tool: 'TeleportFiles', clientTool: 'TeleportFiles', input: {}, cwd: s.project });
      assert.equal(d.tier, 'unknown');
      assert.notEqual(d.verdict, 'allow');
    } finally {
      s.cleanup();
    }
  });

  test('an audit log that cannot be written turns an allow into a deny', async () => {
    const s = scratch();
    try {
      const broken: AuditSink = { append: () => { throw new Error('disk full'); } };
      const d = await gateFor(s, { audit: broken }).decide(shell('git status', s.project));
      assert.equal(d.verdict, 'deny');
      assert.equal(d.errorCode, 'audit_io_error');
      assert.match(d.reason, /disk full/);
    } finally {
      s.cleanup();
    }
  });

  test('programs and arguments named like Object.prototype members are decided, not crashed on', async () => {
    const s = scratch();
    try {
      const gate = gateFor(s);
      for (const name of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'prototype']) {
        for (const line of [`${name} -e x`, `git ${name}`, `npm ${name}`, `docker ${name} -f`, `sudo ${name}`, `kubectl ${name}`, `${name}=1 ls`]) {
          const d = await gate.decide(shell(line, s.project));
          assert.notEqual(d.layer, 'error', `${line}: ${d.reason}`);
        }
      }
    } finally {
      s.cleanup();
    }
  });

  test('an unparseable command is unknown and never allowed', async () => {
    const s = scratch();
    try {
      const d = await gateFor(s, { personAvailable: false }).decide(shell('echo "unterminated', s.project));
      assert.equal(d.tier, 'unknown');
      assert.equal(d.verdict, 'deny');
    } finally {
      s.cleanup();
    }
  });

  test('a 1 MB command and 500 levels of nesting are decided, not crashed on', async () => {
    const s = scratch();
    try {
      const gate = gateFor(s);
      const big = await gate.decide(shell(`echo ${'a'.repeat(1 << 20)}`, s.project));
      assert.equal(big.tier, 'unknown');
      const deep = await gate.decide(shell(`${'$('.repeat(500)}ls${')'.repeat(500)}`, s.project));
      assert.notEqual(deep.verdict, 'allow');
    } finally {
      s.cleanup();
    }
  });
});

describe('audit', () => {
  test('decisions are appended to a hash-chained log with secrets redacted', async () => {
    const s = scratch();
    try {
      const log = join(s.root, 'audit.jsonl');
      const gate = gateFor(s, { audit: log });
      await gate.decide({ ...shell('GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 gh pr list', s.project), sessionId: 's1', callId: 'toolu_1', agent: 'test' });
      await gate.decide(shell('rm -rf ~', s.project));
      const text = readFileSync(log, 'utf8');
      const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.equal(lines.length, 2);
      assert.ok(!text.includes('ghp_abcdefghijklmnopqrstuvwxyz0123456789'), 'token written to the log');
      assert.equal(lines[0]!.session, 's1');
      assert.equal(lines[0]!.call_id, 'toolu_1');
      assert.equal(lines[1]!.verdict, 'deny');
      assert.equal(verifyLog(log).ok, true);
    } finally {
      s.cleanup();
    }
  });
});

describe('what the analysis could not resolve', () => {
  test('a line with an unresolved part is never allowed, even when every command is', async () => {
    const s = scratch();
    try {
      const d = await gateFor(s).decide(shell('shopt -s expand_aliases; ls', s.project));
      assert.notEqual(d.verdict, 'allow', d.reason);
    } finally {
      s.cleanup();
    }
  });
});

describe('a shell call that names its own directory is judged there, under its client\'s key only', () => {
  test('Codex and OpenCode workdir, Gemini dir_path, Qwen dir_path or directory: absolute or relative to the client\'s directory', () => {
    const s = scratch();
    try {
      mkdirSync(join(s.home, 'notes'), { recursive: true });
      mkdirSync(join(s.project, 'build'), { recursive: true });
      const gate = gateFor(s);
      const at = (agent: string, input: Record<string, unknown>, clientTool = 'shell') => gate.decideStatic({ tool: 'shell', clientTool, agent, input, cwd: s.project });
      // In the project, removing its own build directory is everyday work.
      assert.equal(at('codex', { command: 'rm -rf build' }).verdict, 'allow');
      for (const [agent, key] of [['codex', 'workdir'], ['opencode', 'workdir'], ['gemini', 'dir_path'], ['qwen', 'dir_path'], ['qwen', 'directory']] as const) {
        const away = at(agent, { command: 'rm -rf notes', [key]: s.home });
        assert.equal(away.rule, 'fs.rm-outside-project', `${agent} ${key}`);
      }
      assert.equal(at('opencode', { command: 'rm -rf notes', workdir: '..' }).rule, 'fs.rm-outside-project');
      // Codex's exec_command: {cmd, workdir}.
      assert.equal(at('codex', { cmd: 'rm -rf notes', workdir: s.home }, 'exec_command').rule, 'fs.rm-outside-project');
      // A workdir inside the project changes nothing; an empty one is none.
      assert.equal(at('codex', { command: 'rm -rf .', workdir: 'build' }).verdict, 'allow');
      assert.equal(at('codex', { command: 'rm -rf build', workdir: '' }).verdict, 'allow');
      // Not a string, or two of the client's keys that disagree: a malformed call, refused.
      const bad = at('codex', { command: 'ls', workdir: 7 });
      assert.equal(bad.verdict, 'deny');
      assert.match(bad.reason, /"workdir" is not a string/);
      assert.match(at('qwen', { command: 'ls', dir_path: s.home, directory: s.project }).reason, /names two directories/);
      // Other tools' arguments of those names are not a working directory.
      assert.equal(gate.decideStatic({ tool: 'read', agent: 'codex', input: { file_path: 'README.md', workdir: '/etc' }, cwd: s.project }).verdict, 'allow');
    } finally {
      s.cleanup();
    }
  });

  test('a directory key the sending client does not use moves nothing (Gemini runs in dir_path whatever workdir says)', () => {
    const s = scratch();
    try {
      const tmp = mkdtempSync(join(tmpdir(), 'asimov-elsewhere-'));
      try {
        mkdirSync(join(s.project, 'src'), { recursive: true });
        const gate = gateFor(s);
        const at = (agent: string, input: Record<string, unknown>, clientTool = 'run_shell_command') => gate.decideStatic({ tool: 'shell', clientTool, agent, input, cwd: s.project });
        // Judged in the project, where the client runs it: removing src/ is not waved through as a temp clean-up.
        for (const [agent, input] of [
          ['gemini', { command: 'rm -rf src', workdir: tmp }],
          ['gemini', { command: 'rm -rf src', cwd: tmp, dir_path: '.' }],
          ['opencode', { command: 'rm -rf src', cwd: tmp }],
          ['codex', { command: 'rm -rf src', dir_path: tmp }],
          ['claude-code', { command: 'rm -rf src', workdir: tmp }],
          ['copilot', { command: 'rm -rf src', directory: tmp }],
        ] as const) {
          const d = at(agent, input);
          assert.notEqual(d.rule, 'fs.rm-temp', `${agent} ${JSON.stringify(input)}`);
          assert.equal(d.verdict === 'allow' && d.rule !== 'fs.rm-build-artifacts', false, `${agent} ${JSON.stringify(input)}: ${d.verdict} ${d.rule}`);
        }
        // asimov's own gated bash runs in its server's directory: no key moves it either.
        const own = at('codex', { command: 'rm -rf src', workdir: tmp }, 'mcp__asimov__bash');
        assert.notEqual(own.rule, 'fs.rm-temp');
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    } finally {
      s.cleanup();
    }
  });
});
