// Tests for the engine's per-command pre-checks (ShellRule.needs): the traits themselves, that the engine
// skips a rule exactly when its pre-check fails, and that no built-in pre-check hides a hit of its rule.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyShell } from '../../src/policy/classify.ts';
import { createRuleContext } from '../../src/policy/context.ts';
import { defineShellRule, type RuleContext, type ShellRule } from '../../src/policy/rule.ts';
import { recommended } from '../../src/policy/rules/index.ts';
import { commandTraits, traitMask, type CommandTrait } from '../../src/policy/traits.ts';
import { programName } from '../../src/shell/program.ts';
import { analyzeShell } from '../../src/shell/unwrap.ts';

let root: string;
let ctx: () => RuleContext;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'asimov-traits-'));
  const home = join(root, 'home');
  const project = join(home, 'project');
  mkdirSync(join(project, '.git', 'hooks'), { recursive: true });
  ctx = () => createRuleContext({ cwd: project, projectRoot: project, home, protectedPaths: ['migrations/**'] });
});
after(() => rmSync(root, { recursive: true, force: true }));

function traitsOf(line: string, index = 0): CommandTrait[] {
  const a = analyzeShell(line);
  assert.equal(a.status, 'ok', line);
  const m = commandTraits(a.commands[index]!, a);
  return (['assignment', 'path-targets', 'odd-name', 'expansion', 'functions'] as const).filter((t) => (m & traitMask([t])) !== 0);
}

describe('commandTraits', () => {
  test('a plain command has none', () => {
    assert.deepEqual(traitsOf('ls -la src'), []);
    assert.deepEqual(traitsOf('grep -r TODO .'), []);
  });
  test('each trait is seen', () => {
    assert.deepEqual(traitsOf('X=1 ls'), ['assignment']);
    assert.deepEqual(traitsOf('echo hi > out.txt'), ['path-targets']);
    assert.deepEqual(traitsOf('cp a b'), ['path-targets']);
    assert.deepEqual(traitsOf('"$CMD" x'), ['odd-name', 'expansion']);
    assert.deepEqual(traitsOf('l\\s'), ['odd-name']);
    assert.deepEqual(traitsOf("'ls' x"), ['odd-name']);
    assert.deepEqual(traitsOf('/usr/bin/l? x'), ['odd-name']);
    assert.deepEqual(traitsOf('echo $HOME'), ['expansion']);
    assert.deepEqual(traitsOf('f() { :; }; f', 1), ['functions']);
  });
  test('a read redirect is not a path target', () => {
    assert.deepEqual(traitsOf('wc -l < in.txt'), []);
  });
});

describe('the engine and needs', () => {
  const probe = (calls: string[], needs: ShellRule['needs']): ShellRule =>
    defineShellRule({
      id: 'test.probe',
      tier: 'soft_deny',
      reason: 'probe',
      ...(needs ? { needs } : {}),
      examples: { match: [], notMatch: [] },
      match: (cmd) => {
        calls.push(cmd.text);
        return true;
      },
    });

  test('a rule is called only for commands with a trait or a program it needs', () => {
    const calls: string[] = [];
    const policy = { rules: [probe(calls, { traits: ['assignment'], programs: ['Export'] })] };
    classifyShell('ls; X=1 ls; export A=b; echo x > f', policy, ctx());
    assert.deepEqual(calls, ['X=1 ls', 'export A=b']);
  });

  test('a skipped command is judged as if the rule had not matched', () => {
    const policy = { rules: [probe([], { traits: ['path-targets'] })] };
    assert.equal(classifyShell('ls', policy, ctx()).classification.tier, 'unknown');
    assert.equal(classifyShell('echo x > f', policy, ctx()).classification.tier, 'soft_deny');
  });

  test('without needs a rule runs for every command', () => {
    const calls: string[] = [];
    classifyShell('ls; pwd', { rules: [probe(calls, undefined)] }, ctx());
    assert.deepEqual(calls, ['ls', 'pwd']);
  });
});

describe('built-in pre-checks', () => {
  // Every shell example of every built-in rule, and lines that exercise the traits, as the commands to try.
  const lines = new Set<string>([
    'HISTFILE=/dev/null ls', 'export HISTFILE=/dev/null', 'unset HISTFILE', 'IFS=/ read a b', 'echo ${IFS}',
    'ASIMOV_DISABLE=1 claude', 'env ASIMOV_POLICY=x npm test', 'git -c core.hooksPath=/tmp/h commit', 'GIT_DIR=x git status',
    'alias ls=rm', 'enable -n echo', 'hash -p /tmp/x ls', 'ls() { rm -rf x; }; ls', ':(){ :|:& };:', '$(echo rm) -rf x',
    "r''m -rf x", '/bin/r? x', 'visudo', 'crontab -e', 'systemctl enable x', 'setenforce 0', 'history -c',
    'rm ~/.bash_history', 'echo x > .git/hooks/pre-commit', 'echo x >> ~/.bashrc', 'cp k ~/.ssh/authorized_keys',
    'echo "rules: {}" > .asimov/policy.yaml', 'echo x > .claude/settings.json', 'echo x > /etc/hosts', 'echo x > $OUT',
  ]);
  for (const r of recommended) {
    for (const e of [...r.examples.match, ...r.examples.notMatch]) if (typeof e === 'string') lines.add(e);
  }
  const checked = recommended.filter((r): r is ShellRule => r.kind === 'shell' && r.needs !== undefined);

  test('some rules have them', () => {
    assert.ok(checked.length >= 20, `only ${checked.length} rules have a pre-check`);
  });

  test('no rule matches a command its pre-check would skip', () => {
    let hits = 0;
    for (const line of lines) {
      const analysis = analyzeShell(line);
      if (analysis.status !== 'ok') continue;
      const c = ctx();
      for (const cmd of analysis.commands) {
        const traits = commandTraits(cmd, analysis);
        const prog = programName(cmd);
        for (const rule of checked) {
          if (!rule.match(cmd, c, analysis)) continue;
          hits++;
          const byTrait = (traitMask(rule.needs!.traits ?? []) & traits) !== 0;
          const byProgram = prog !== null && (rule.needs!.programs ?? []).includes(prog);
          assert.ok(byTrait || byProgram, `${rule.id} matches \`${cmd.text}\` (in \`${line}\`), which its pre-check skips`);
        }
      }
    }
    // The examples must actually exercise the rules, or the test proves nothing.
    assert.ok(hits > 100, `only ${hits} hits`);
  });
});
