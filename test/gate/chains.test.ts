// External hook chains in the gate: real scripts in scratch directories, run through createGate().decide
// with a real user policy file, as every adapter runs them.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGate, type AuditSink } from '../../src/gate/gate.ts';
import { chainsForCall, cleanReason, MAX_CHAIN_REASON_CHARS } from '../../src/gate/chains.ts';
import type { ChainSpec } from '../../src/policy/layers.ts';
import type { ToolCall } from '../../src/core/types.ts';
import type { AuditEventDraft } from '../../src/audit/event.ts';

const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

interface ChainDef { tools: string[]; command: string; timeoutMs?: number; optional?: boolean }

function scratch() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-chains-')));
  made.push(root);
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const events: AuditEventDraft[] = [];
  const sink: AuditSink = { append: (e) => events.push(e) };
  /** A script in the project, executable; `body` is sh. */
  const script = (name: string, body: string) => {
    const p = join(project, name);
    writeFileSync(p, `#!/bin/sh\n${body}\n`);
    chmodSync(p, 0o755);
    return p;
  };
  /** A gate whose user policy declares these chains (JSON is YAML). */
  const gate = (chains: ChainDef[], extra: Parameters<typeof createGate>[0] = {}) => {
    const userPolicyPath = join(home, 'policy.yaml');
    writeFileSync(userPolicyPath, JSON.stringify({ version: 1, chains }));
    return createGate({
      home,
      env: { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      audit: sink,
      userPolicyPath,
      managedPolicyPath: join(root, 'managed.yaml'),
      trustStorePath: join(root, 'trusted.json'),
      ...extra,
    });
  };
  const marker = (name: string) => join(root, name);
  return { root, home, project, events, script, gate, marker };
}

const bash = (command: string, cwd: string, extra: Partial<ToolCall> = {}): ToolCall => ({ tool: 'shell', clientTool: 'Bash', input: { command }, cwd, ...extra });

/** Whether a process still runs (a zombie waiting to be reaped does not). */
function running(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
  return state !== 'Z' && state !== 'X';
}

/** Waits for an event that must happen (a killed process going away, a file appearing); fails if it never does. */
async function eventually(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await sleep(20);
  }
  assert.fail(`never happened: ${what}`);
}

describe('a chain passes or blocks', () => {
  test('exit 0 passes: the static verdict stands', async () => {
    const s = scratch();
    s.script('ok.sh', 'cat > /dev/null; exit 0');
    const d = await s.gate([{ tools: ['shell'], command: './ok.sh' }]).decide(bash('git status', s.project));
    assert.equal(d.verdict, 'allow');
    assert.equal(d.layer, 'static');
    assert.doesNotMatch(d.rule ?? '', /^chain:/);
    assert.equal(s.events.at(-1)?.layer, 'static');
  });

  test('exit 2 blocks with stderr as the reason; the decision and the audit name the chain', async () => {
    const s = scratch();
    const path = s.script('check.sh', 'echo "  Use the staging database, not production.  " >&2\nexit 2');
    const d = await s.gate([{ tools: ['shell'], command: './check.sh --strict' }]).decide(bash('git status', s.project));
    assert.equal(d.verdict, 'deny');
    assert.equal(d.layer, 'chain');
    assert.equal(d.rule, `chain:${path} --strict`, 'the relative command was resolved against the project root');
    assert.match(d.reason, /^Use the staging database, not production\. \(blocked by the policy chain `.*check\.sh --strict` from .*policy\.yaml\)$/);
    assert.equal(d.errorCode, undefined);
    assert.equal(d.tier, 'allow', 'the tier stays Layer 1\'s');
    const e = s.events.at(-1)!;
    assert.deepEqual([e.verdict, e.layer, e.rule], ['deny', 'chain', `chain:${path} --strict`]);
    assert.match(e.reason, /Use the staging database/);
  });

  test('a block without stderr still says which chain blocked', async () => {
    const s = scratch();
    s.script('quiet.sh', 'exit 2');
    const d = await s.gate([{ tools: ['all'], command: './quiet.sh' }]).decide(bash('ls', s.project));
    assert.equal(d.verdict, 'deny');
    assert.match(d.reason, /^Blocked by the policy chain `.*quiet\.sh` from .*, which gave no reason\.$/);
  });

  test('a long, noisy stderr is trimmed and bounded', async () => {
    const s = scratch();
    s.script('loud.sh', 'printf "\\033[31mred\\033[0m " >&2; head -c 200000 /dev/zero | tr "\\0" x >&2; exit 2');
    const d = await s.gate([{ tools: ['shell'], command: './loud.sh' }]).decide(bash('ls', s.project));
    assert.equal(d.verdict, 'deny');
    assert.ok(d.reason.startsWith('[31mred[0m x'), d.reason.slice(0, 40));
    assert.ok(d.reason.length < MAX_CHAIN_REASON_CHARS + 200, `reason of ${d.reason.length} characters`);
    assert.equal(cleanReason(`  a\u0007b\n c \u0000`), 'ab\n c');
  });

  test("Claude Code's JSON answer on exit 0: deny blocks, ask asks (deny with nobody to ask), allow adds nothing", async () => {
    const s = scratch();
    const answer = (o: unknown) => `cat > /dev/null; echo '${JSON.stringify(o)}'; exit 0`;
    s.script('deny.sh', answer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not on Fridays' } }));
    s.script('block.sh', answer({ decision: 'block', reason: 'legacy block' }));
    s.script('ask.sh', answer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'check with ops' } }));
    s.script('allow.sh', answer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }));
    const deny = await s.gate([{ tools: ['shell'], command: './deny.sh' }]).decide(bash('ls', s.project));
    assert.deepEqual([deny.verdict, deny.layer], ['deny', 'chain']);
    assert.match(deny.reason, /^not on Fridays \(blocked by/);
    assert.match((await s.gate([{ tools: ['shell'], command: './block.sh' }]).decide(bash('ls', s.project))).reason, /^legacy block/);
    const ask = await s.gate([{ tools: ['shell'], command: './ask.sh' }]).decide(bash('ls', s.project));
    assert.deepEqual([ask.verdict, ask.layer], ['ask', 'chain']);
    assert.match(ask.reason, /check with ops/);
    const headless = await s.gate([{ tools: ['shell'], command: './ask.sh' }]).decide(bash('ls', s.project), { personAvailable: false });
    assert.equal(headless.verdict, 'deny');
    assert.match(headless.reason, /No person can answer here/);
    const allow = await s.gate([{ tools: ['shell'], command: './allow.sh' }]).decide(bash('frobnicate', s.project));
    assert.deepEqual([allow.verdict, allow.layer], ['ask', 'static'], 'a chain cannot loosen');
  });
});

describe('a chain that cannot answer denies, unless optional', () => {
  test('a missing command denies (exit 127), and names the chain', async () => {
    const s = scratch();
    const d = await s.gate([{ tools: ['shell'], command: './no-such-check.sh' }]).decide(bash('ls', s.project));
    assert.equal(d.verdict, 'deny');
    assert.equal(d.layer, 'chain');
    assert.equal(d.errorCode, 'chain_missing');
    assert.match(d.reason, /no-such-check\.sh` from .* could not decide: its command was not found \(exit 127\).*not marked optional/);
  });

  test('a command that is not executable denies', async () => {
    const s = scratch();
    const p = s.script('noexec.sh', 'exit 0');
    chmodSync(p, 0o644);
    const d = await s.gate([{ tools: ['shell'], command: './noexec.sh' }]).decide(bash('ls', s.project));
    assert.deepEqual([d.verdict, d.errorCode], ['deny', 'chain_missing']);
  });

  test('an exit code other than 0 and 2 denies (fail closed); a crash by signal too', async () => {
    const s = scratch();
    s.script('one.sh', 'echo "oops" >&2; exit 1');
    const one = await s.gate([{ tools: ['shell'], command: './one.sh' }]).decide(bash('ls', s.project));
    assert.deepEqual([one.verdict, one.layer, one.errorCode], ['deny', 'chain', 'chain_failed']);
    assert.match(one.reason, /exited with 1, which is neither 0 \(pass\) nor 2 \(block\): oops/);
    // The chain's own shell killed by a signal (a script it runs would show as exit 128+n instead).
    const killed = await s.gate([{ tools: ['shell'], command: 'kill -TERM $$' }]).decide(bash('ls', s.project));
    assert.deepEqual([killed.verdict, killed.errorCode], ['deny', 'chain_failed']);
    assert.match(killed.reason, /killed by SIGTERM/);
  });

  test('a timeout denies, and the chain\'s whole process group is killed', async () => {
    const s = scratch();
    s.script('slow.sh', `sleep 60 &\necho $! > "${s.marker('bg.pid')}"\necho $$ > "${s.marker('sh.pid')}"\nwait`);
    const d = await s.gate([{ tools: ['shell'], command: './slow.sh', timeoutMs: 1500 }]).decide(bash('ls', s.project));
    assert.deepEqual([d.verdict, d.layer, d.errorCode], ['deny', 'chain', 'chain_timeout']);
    assert.match(d.reason, /did not answer within 1500 ms/);
    for (const f of ['sh.pid', 'bg.pid']) {
      const pid = Number(readFileSync(s.marker(f), 'utf8'));
      await eventually(`${f} (${pid}) killed`, () => !running(pid));
    }
  });

  test('processes a chain leaves behind are killed when it exits', async () => {
    const s = scratch();
    s.script('leaves.sh', `sleep 60 &\necho $! > "${s.marker('left.pid')}"\nexit 0`);
    const d = await s.gate([{ tools: ['shell'], command: './leaves.sh' }]).decide(bash('ls', s.project));
    assert.equal(d.verdict, 'allow');
    const pid = Number(readFileSync(s.marker('left.pid'), 'utf8'));
    await eventually(`left-behind sleep (${pid}) killed`, () => !running(pid));
  });

  test('an optional chain that is missing, times out or fails passes; an optional chain that blocks still blocks', async () => {
    const s = scratch();
    s.script('slow.sh', 'sleep 60');
    s.script('one.sh', 'exit 1');
    s.script('no.sh', 'echo "still no" >&2; exit 2');
    const missing = await s.gate([{ tools: ['shell'], command: './gone.sh', optional: true }]).decide(bash('ls', s.project));
    assert.deepEqual([missing.verdict, missing.layer], ['allow', 'static']);
    const slow = await s.gate([{ tools: ['shell'], command: './slow.sh', timeoutMs: 300, optional: true }]).decide(bash('ls', s.project));
    assert.deepEqual([slow.verdict, slow.layer], ['allow', 'static']);
    const one = await s.gate([{ tools: ['shell'], command: './one.sh', optional: true }]).decide(bash('ls', s.project));
    assert.equal(one.verdict, 'allow');
    const no = await s.gate([{ tools: ['shell'], command: './no.sh', optional: true }]).decide(bash('ls', s.project));
    assert.deepEqual([no.verdict, no.layer], ['deny', 'chain']);
  });

  test('a passed deadline denies without running the chain, optional or not', async () => {
    const s = scratch();
    s.script('mark.sh', `touch "${s.marker('ran')}"`);
    const d = await s.gate([{ tools: ['shell'], command: './mark.sh' }]).decide(bash('ls', s.project), { deadline: Date.now() - 1 });
    assert.deepEqual([d.verdict, d.errorCode], ['deny', 'chain_timeout']);
    assert.match(d.reason, /before the decision was due/);
    assert.equal(existsSync(s.marker('ran')), false);
  });

  test('an abandoned decision (abort) kills the chain and denies, even an optional one', async () => {
    const s = scratch();
    s.script('wait.sh', `echo $$ > "${s.marker('w.pid')}"\nsleep 60`);
    const ac = new AbortController();
    const pending = s.gate([{ tools: ['shell'], command: './wait.sh', optional: true, timeoutMs: 60_000 }]).decide(bash('ls', s.project), { signal: ac.signal });
    await eventually('the chain started', () => existsSync(s.marker('w.pid')) && readFileSync(s.marker('w.pid'), 'utf8').endsWith('\n'));
    ac.abort();
    const d = await pending;
    assert.deepEqual([d.verdict, d.errorCode], ['deny', 'chain_aborted']);
    const pid = Number(readFileSync(s.marker('w.pid'), 'utf8'));
    await eventually('the aborted chain killed', () => !running(pid));
  });
});

describe('what a chain sees', () => {
  test("stdin is a Claude Code PreToolUse payload; it runs in the call's cwd with CLAUDE_PROJECT_DIR set", async () => {
    const s = scratch();
    const sub = join(s.project, 'src');
    mkdirSync(sub);
    s.script('record.sh', `cat > "${s.marker('payload.json')}"\npwd > "${s.marker('pwd')}"\necho "$CLAUDE_PROJECT_DIR" > "${s.marker('dir')}"`);
    const gate = s.gate([{ tools: ['all'], command: './record.sh' }]);
    const input = { command: 'git status', description: 'status' };
    await gate.decide({ tool: 'shell', clientTool: 'Bash', input, cwd: sub, sessionId: 'sess-1', callId: 'toolu_1', agent: 'claude-code', intentSource: { kind: 'claude-transcript', path: '/t/x.jsonl' } });
    assert.deepEqual(JSON.parse(readFileSync(s.marker('payload.json'), 'utf8')), {
      session_id: 'sess-1',
      transcript_path: '/t/x.jsonl',
      cwd: sub,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: input,
      tool_use_id: 'toolu_1',
    });
    assert.equal(readFileSync(s.marker('pwd'), 'utf8').trim(), sub);
    assert.equal(readFileSync(s.marker('dir'), 'utf8').trim(), s.project);

    // A call without a client name or ids: the kind, and the decision's own id (which the audit line carries).
    const d = await gate.decide({ tool: 'mcp', input: { q: 1 }, cwd: s.project });
    const p = JSON.parse(readFileSync(s.marker('payload.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual([p['tool_name'], p['session_id'], p['tool_use_id']], ['mcp', '', d.decisionId]);
    assert.equal('transcript_path' in p, false);
  });
});

describe('which chains run', () => {
  test('in order: the first block wins and later chains do not run', async () => {
    const s = scratch();
    s.script('a.sh', `touch "${s.marker('a')}"`);
    s.script('b.sh', `touch "${s.marker('b')}"\necho "b says no" >&2\nexit 2`);
    s.script('c.sh', `touch "${s.marker('c')}"\necho "c says no" >&2\nexit 2`);
    const d = await s.gate([
      { tools: ['shell'], command: './a.sh' },
      { tools: ['shell'], command: './b.sh' },
      { tools: ['shell'], command: './c.sh' },
    ]).decide(bash('ls', s.project));
    assert.match(d.reason, /^b says no/);
    assert.match(d.rule ?? '', /b\.sh$/);
    assert.deepEqual(['a', 'b', 'c'].map((m) => existsSync(s.marker(m))), [true, true, false]);
  });

  test('only chains for the call\'s tool class run; `all` covers every call, unknown tools included', async () => {
    const s = scratch();
    for (const k of ['shell', 'write', 'mcp', 'all']) s.script(`${k}.sh`, `echo ${k} >> "${s.marker('ran')}"`);
    const gate = s.gate([
      { tools: ['write', 'edit'], command: './write.sh' },
      { tools: ['shell'], command: './shell.sh' },
      { tools: ['mcp'], command: './mcp.sh' },
      { tools: ['all'], command: './all.sh' },
    ]);
    const ran = async (call: ToolCall) => {
      rmSync(s.marker('ran'), { force: true });
      await gate.decide(call);
      return existsSync(s.marker('ran')) ? readFileSync(s.marker('ran'), 'utf8').trim().split('\n') : [];
    };
    assert.deepEqual(await ran(bash('ls', s.project)), ['shell', 'all']);
    assert.deepEqual(await ran({ tool: 'write', clientTool: 'Write', input: { file_path: 'a.txt', content: 'x' }, cwd: s.project }), ['write', 'all']);
    assert.deepEqual(await ran({ tool: 'mcp', clientTool: 'mcp__gh__get_issue', input: {}, cwd: s.project }), ['mcp', 'all']);
    assert.deepEqual(await ran({ tool: 'Frobnicator', clientTool: 'Frobnicator', input: {}, cwd: s.project }), ['all']);
    assert.deepEqual(chainsForCall({ tool: 'read' }, [{ tools: ['write'], command: 'x', timeoutMs: 1, optional: false, source: 's' }] as ChainSpec[]), []);
  });

  test('hard_deny never reaches a chain; ask does, and stays ask when it passes', async () => {
    const s = scratch();
    s.script('mark.sh', `touch "${s.marker('ran')}"`);
    const gate = s.gate([{ tools: ['shell'], command: './mark.sh' }]);
    const hard = await gate.decide(bash('rm -rf ~', s.project));
    assert.deepEqual([hard.verdict, hard.layer], ['deny', 'static']);
    assert.equal(existsSync(s.marker('ran')), false);
    const ask = await gate.decide(bash('frobnicate --all', s.project));
    assert.deepEqual([ask.verdict, ask.layer], ['ask', 'static']);
    assert.equal(existsSync(s.marker('ran')), true);
  });

  test('a call already denied for want of a person does not run chains; decideStatic never runs them', async () => {
    const s = scratch();
    s.script('mark.sh', `touch "${s.marker('ran')}"`);
    const gate = s.gate([{ tools: ['shell'], command: './mark.sh' }]);
    assert.equal((await gate.decide(bash('frobnicate', s.project), { personAvailable: false })).verdict, 'deny');
    assert.equal(gate.decideStatic(bash('ls', s.project)).verdict, 'allow');
    assert.equal(existsSync(s.marker('ran')), false);
  });
});
