// `asimov hook claude` as Claude Code runs it: the built binary in a real process, a payload on stdin, and
// a reply that must block on every failure (Claude Code runs the tool on exit 1 or unparseable output).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');
let root = '';
let home = '';
let project = '';
let auditLog = '';

before(() => {
  assert.ok(existsSync(resolve(import.meta.dirname, '../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = mkdtempSync(join(tmpdir(), 'asimov-hook-'));
  home = join(root, 'home');
  project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  auditLog = join(root, 'audit.jsonl');
});
after(() => rmSync(root, { recursive: true, force: true }));

interface Run { code: number | null; out: string; err: string }

function hook(input: string | Buffer, args: string[] = [], env: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [BIN, 'hook', 'claude', ...args], {
    cwd: project,
    input,
    env: { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: auditLog, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function payload(over: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: 'sess-42', transcript_path: join(root, 't.jsonl'), cwd: project, permission_mode: 'default',
    hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_abc', ...over,
  });
}

function preToolUse(r: Run): { permissionDecision: string; permissionDecisionReason: string } {
  assert.equal(r.code, 0, r.err);
  const o = JSON.parse(r.out) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(o.hookSpecificOutput.hookEventName, 'PreToolUse');
  return o.hookSpecificOutput;
}

function noStackTrace(r: Run): void {
  assert.doesNotMatch(r.out + r.err, /\n\s+at .+:\d+:\d+\)?\n/, 'a stack trace was printed');
}

describe('asimov hook claude: decisions', () => {
  test('a dangerous command is denied with the rule and the reason for the model', () => {
    const d = preToolUse(hook(payload({ tool_input: { command: 'rm -rf ~' } })));
    assert.equal(d.permissionDecision, 'deny');
    assert.match(d.permissionDecisionReason, /^asimov \[fs\.[a-z-]+\]: /);
  });

  test('an everyday command is allowed (approve mode skips the prompt); passthrough mode says nothing', () => {
    assert.equal(preToolUse(hook(payload({ tool_input: { command: 'git status' } }))).permissionDecision, 'allow');
    const r = hook(payload({ tool_input: { command: 'git status' } }), ['--on-allow', 'passthrough']);
    assert.deepEqual([r.code, r.out], [0, '']);
  });

  test('soft_deny and unknown become ask, never a silent pass', () => {
    assert.equal(preToolUse(hook(payload({ tool_input: { command: 'frobnicate --all' } }), ['--on-allow', 'passthrough'])).permissionDecision, 'ask');
    assert.equal(preToolUse(hook(payload({ tool_name: 'Write', tool_input: { file_path: join(project, '.env'), content: 'A=1' } }))).permissionDecision, 'ask');
  });

  test('file, fetch and MCP tools are decided too', () => {
    assert.equal(preToolUse(hook(payload({ tool_name: 'Edit', tool_input: { file_path: join(project, '.claude/settings.json'), old_string: 'a', new_string: 'b' } }))).permissionDecision, 'deny');
    assert.equal(preToolUse(hook(payload({ tool_name: 'Write', tool_input: { file_path: join(project, 'src/a.ts'), content: 'x' } }))).permissionDecision, 'allow');
    assert.equal(preToolUse(hook(payload({ tool_name: 'WebFetch', tool_input: { url: 'https://pastebin.com/raw/x', prompt: 'p' } }))).permissionDecision, 'ask');
    assert.equal(preToolUse(hook(payload({ tool_name: 'mcp__srv__delete_repository', tool_input: { name: 'x' } }))).permissionDecision, 'ask');
  });

  test('PermissionRequest: deny refuses, ask leaves the prompt to the person, allow approves', () => {
    const perm = (command: string) => hook(payload({ hook_event_name: 'PermissionRequest', tool_use_id: undefined, tool_input: { command } }));
    const denied = perm('rm -rf ~');
    assert.equal(denied.code, 0);
    assert.equal((JSON.parse(denied.out) as { hookSpecificOutput: { decision: { behavior: string } } }).hookSpecificOutput.decision.behavior, 'deny');
    assert.deepEqual([perm('frobnicate').code, perm('frobnicate').out], [0, '']);
    assert.deepEqual(JSON.parse(perm('git status').out), { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  });

  test("every decision is audited with Claude Code's session id, tool name and tool_use_id", () => {
    hook(payload({ session_id: 'sess-audit', tool_use_id: 'toolu_audit', tool_name: 'Bash', tool_input: { command: 'echo hi' } }));
    const last = JSON.parse(readFileSync(auditLog, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
    assert.equal(last['agent'], 'claude-code');
    assert.equal(last['session'], 'sess-audit');
    assert.equal(last['call_id'], 'toolu_audit');
    assert.equal(last['client_tool'], 'Bash');
    assert.equal(last['verdict'], 'allow');
  });
});

describe('asimov hook claude: it cannot fail open', () => {
  test('invalid JSON, empty stdin, invalid UTF-8 and a non-object payload exit 2 with the reason on stderr', () => {
    const cases: Array<[string | Buffer, RegExp]> = [
      ['{"hook_event_name": "PreToolUse", ', /not valid JSON/],
      ['', /empty/],
      [Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), /UTF-8/],
      ['[1,2,3]', /not a JSON object/],
    ];
    for (const [input, re] of cases) {
      const r = hook(input);
      assert.equal(r.code, 2, String(input));
      assert.match(r.err, re);
      assert.equal(r.out, '');
      noStackTrace(r);
    }
  });

  test('an unknown event or a malformed field exits 2 with the reason on stderr', () => {
    const unknown = hook(payload({ hook_event_name: 'PostToolUse' }));
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /PostToolUse/);
    assert.equal(hook(payload({ tool_input: 'rm -rf /' })).code, 2);
  });

  test('an unknown tool name is denied', () => {
    const d = preToolUse(hook(payload({ tool_name: 'TotallyNewTool', tool_input: { x: 1 } })));
    assert.equal(d.permissionDecision, 'deny');
    assert.match(d.permissionDecisionReason, /TotallyNewTool/);
  });

  test('a payload over 16 MiB is refused unread; a 1 MB command is decided and not allowed', () => {
    const huge = hook(payload({ tool_input: { command: 'x'.repeat(17 * 1024 * 1024) } }));
    assert.equal(huge.code, 2);
    assert.match(huge.err, /larger than/);
    const big = preToolUse(hook(payload({ tool_input: { command: `echo ${'a'.repeat(1024 * 1024)}` } })));
    assert.notEqual(big.permissionDecision, 'allow');
  });

  test('a broken policy file denies every call and names the file and line', () => {
    const dir = join(home, '.config', 'asimov');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'policy.yaml'), 'version: 1\nrulez:\n  fs.rm-root: allow\n');
    try {
      const d = preToolUse(hook(payload({ tool_input: { command: 'git status' } })));
      assert.equal(d.permissionDecision, 'deny');
      assert.match(d.permissionDecisionReason, /policy\.yaml:2/);
      assert.match(d.permissionDecisionReason, /rulez/);
    } finally {
      rmSync(join(dir, 'policy.yaml'));
    }
  });

  test('an audit log that cannot be written denies the call', () => {
    const d = preToolUse(hook(payload({ tool_input: { command: 'git status' } }), [], { ASIMOV_AUDIT_LOG: project }));
    assert.equal(d.permissionDecision, 'deny');
    assert.match(d.permissionDecisionReason, /audit/);
  });

  test('stdin that never closes is answered with a block at the deadline, and the process exits', async () => {
    const child = spawn(process.execPath, [BIN, 'hook', 'claude', '--deadline-ms', '1500'], {
      cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: auditLog }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.write('{"hook_event_name": "PreToolUse"');
    let err = '';
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    clearTimeout(killer);
    child.stdin.destroy();
    assert.equal(code, 2);
    assert.match(err, /deadline/);
  });

  test('an unknown client or bad options block too (exit 2 or a non-zero exit the installed line turns into 2)', () => {
    const r = spawnSync(process.execPath, [BIN, 'hook', 'nosuchclient'], { input: payload(), encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home } });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown client 'nosuchclient'/);
    assert.notEqual(hook(payload(), ['--on-allow', 'sometimes']).code, 0);
  });
});

// A shell pipe or a named pipe is read from fd 0 without a stream (src/cli/fd-io.ts): the same replies and the
// same limits as through a stream, and a pipe that never closes still ends at the deadline.
describe('hook claude with its payload on a pipe (read from the file descriptor)', () => {
  const viaPipe = (file: string, args: string[] = []) =>
    spawnSync('sh', ['-c', 'cat "$PAYLOAD" | "$NODE" "$BIN" hook claude "$@"', 'sh', ...args], {
      cwd: project, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: auditLog, PAYLOAD: file, NODE: process.execPath, BIN },
    });

  test('a payload piped by a shell is decided as through a stream', () => {
    const file = join(root, 'pipe-payload.json');
    writeFileSync(file, payload({ tool_input: { command: 'rm -rf /' } }));
    const denied = viaPipe(file);
    assert.equal(preToolUse({ code: denied.status, out: denied.stdout, err: denied.stderr }).permissionDecision, 'deny');
    writeFileSync(file, payload({ tool_input: { command: 'git status' } }));
    const allowed = viaPipe(file);
    assert.equal(allowed.status, 0);
    assert.equal(preToolUse({ code: allowed.status, out: allowed.stdout, err: allowed.stderr }).permissionDecision, 'allow');
  });

  test('a piped payload over 16 MiB is refused', () => {
    const file = join(root, 'pipe-big.json');
    writeFileSync(file, payload({ tool_input: { command: `echo ${'a'.repeat(17 * 1024 * 1024)}` } }));
    const r = viaPipe(file);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /larger than 16777216 bytes/);
  });

  test('a named pipe whose writer never closes is answered with a block at the deadline, and the process exits', async (t) => {
    const fifo = join(root, 'stdin.fifo');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) return t.skip('mkfifo is not available');
    // Opened read-write: a writer that stays open (this process) without waiting for a reader.
    const fd = openSync(fifo, constants.O_RDWR);
    t.after(() => closeSync(fd));
    writeSync(fd, '{"hook_event_name": "PreToolUse"');
    const startedAt = Date.now();
    const child = spawn(process.execPath, [BIN, 'hook', 'claude', '--deadline-ms', '1500'], {
      cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: auditLog, ASIMOV_DAEMON: 'off' }, stdio: [fd, 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (b: Buffer) => { err += b.toString(); });
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    clearTimeout(killer);
    assert.equal(code, 2);
    assert.match(err, /deadline/);
    assert.ok(Date.now() - startedAt < 15_000, 'the process ended near its deadline, not when killed');
  });
});
