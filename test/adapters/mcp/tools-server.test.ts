// `asimov mcp tools` end to end: the official SDK client spawns `node bin/asimov.cjs mcp tools` (the built CLI)
// in a scratch project with a scratch HOME, and every claim is checked on what really happened: files on
// disk, processes, the server's memory. A second part runs the server in-process (the SDK's in-memory
// transport) where a test needs a seam: a policy object, a race between check and open, a failing gate.
//
// Every command used here is chosen so that, were asimov to fail, its effect stays inside the scratch dirs.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createGate, type Gate } from '../../../src/gate/gate.ts';
import { createToolsServer, type ToolsServerOptions } from '../../../src/adapters/mcp/tools-server.ts';
import { recordApproval } from '../../../src/gate/hook-approvals.ts';
import type { Decision } from '../../../src/core/types.ts';
import { inspectTool, isBlocking, type ToolDef } from '../../../src/adapters/mcp/poison.ts';
import { makeScratch, runClaude } from '../../helpers/claude-cli.ts';
import { startAnthropicServer, stepToolResult } from '../../helpers/anthropic-server.ts';
import { gone } from '../../helpers/processes.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/asimov.cjs');
const SECRET = 'outside secret\n';

interface Reply {
  texts: string[];
  isError: boolean;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Reply> {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  const content = (r.content ?? []) as Array<{ type: string; text?: string }>;
  return { texts: content.map((c) => c.text ?? ''), isError: r.isError === true };
}


async function waitPid(file: string): Promise<number> {
  // The shell creates the file (the redirection) before echo writes the pid into it: wait for the number.
  const read = (): number => (existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) || 0 : 0);
  for (let i = 0; i < 1000 && read() === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const pid = read();
  assert.ok(pid > 0 && !gone(pid), `no live process in ${file}`);
  return pid;
}

async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 500 && !gone(pid); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(gone(pid), `process ${pid} is still alive`);
}

/** Peak resident memory of a process, from /proc (kB). */
function peakRssKb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(m, 'no VmHWM in /proc status');
  return Number(m[1]);
}

function scratchProject(prefix: string) {
  const s = makeScratch(prefix);
  mkdirSync(join(s.project, '.git'));
  mkdirSync(join(s.home, 'notes'));
  writeFileSync(join(s.home, 'notes', 'keep.txt'), 'precious\n');
  mkdirSync(join(s.root, 'outside'));
  writeFileSync(join(s.root, 'outside', 'secret.txt'), SECRET);
  mkdirSync(join(s.root, 'project-evil'));
  mkdirSync(join(s.root, 'extra'));
  return s;
}

/** Makes the scratch project a git repository with every file committed (the project's own scripts). */
function commitAll(dir: string): void {
  for (const args of [['init', '-q'], ['add', '-A'], ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'scripts']]) {
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  }
}

async function spawnServer(s: ReturnType<typeof makeScratch>, args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', 'tools', ...args],
    cwd: s.project,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: s.home, ASIMOV_AUDIT_LOG: join(s.root, 'audit.jsonl'), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c) => (stderr += c));
  const client = new Client({ name: 'asimov-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

describe('asimov mcp tools over stdio (the built CLI, the official SDK client)', () => {
  let s: ReturnType<typeof scratchProject>;
  let server: Awaited<ReturnType<typeof spawnServer>>;

  before(async () => {
    assert.ok(existsSync(join(REPO, 'dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
    s = scratchProject('asimov-mcp-tools-');
    writeFileSync(
      join(s.project, 'show-env.sh'),
      'printf "[%s] [%s] [%s] [%s]\\n" "${SECRET_TOKEN-unset}" "${LD_PRELOAD-unset}" "${NODE_OPTIONS-unset}" "$HOME"\n',
    );
    // The probe is the project's own, committed script: a new one would be read first (exec.read-script) and,
    // printing a secret-named variable, refused before it could show the variable is not there.
    commitAll(s.project);
    symlinkSync(join(s.root, 'outside'), join(s.project, 'link-out'));
    symlinkSync(join(s.root, 'outside', 'secret.txt'), join(s.project, 'leaf-out'));
    server = await spawnServer(s, ['--root', join(s.root, 'extra'), '--timeout-ms', '60000'], {
      SECRET_TOKEN: 'tok-should-never-be-seen',
      // The server itself runs with these; a child must not. (A missing preload library only makes ld.so warn.)
      LD_PRELOAD: '/nonexistent/asimov-test-preload.so',
      NODE_OPTIONS: '--no-warnings',
    });
  });

  after(async () => {
    await server?.client.close();
    s?.cleanup();
  });

  test('says on stderr at start which policy layers, judge, approvals and audit log are active', () => {
    const banner = server.stderr();
    assert.match(banner, /asimov mcp tools: policy: built-in/);
    assert.match(banner, /asimov mcp tools: judge: off \(the policy has no judge: section/);
    assert.match(banner, /asimov mcp tools: approvals: none/);
    assert.ok(banner.includes(`asimov mcp tools: audit: ${join(s.root, 'audit.jsonl')}`), banner);
  });

  test('offers bash, read, write and edit', async () => {
    const { tools } = await server.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['bash', 'edit', 'read', 'write']);
    const bash = tools.find((t) => t.name === 'bash')!;
    assert.deepEqual(bash.inputSchema.required, ['command']);
    assert.equal(server.client.getServerVersion()?.name, 'asimov-tools');
  });

  test('an allowed command runs in the project and reports its exit code', async () => {
    const r = await call(server.client, 'bash', { command: 'pwd; touch made-by-bash.txt' });
    assert.equal(r.isError, false, r.texts.join('\n'));
    assert.equal(r.texts[0], `${s.project}\n`);
    assert.equal(r.texts[1], 'Exit code 0.');
    assert.ok(existsSync(join(s.project, 'made-by-bash.txt')));
  });

  test('a secret in the server\'s environment and its loader variables are invisible to the command', async () => {
    const r = await call(server.client, 'bash', { command: 'sh show-env.sh' });
    assert.equal(r.isError, false, r.texts.join('\n'));
    assert.equal(r.texts[0], `[unset] [unset] [unset] [${s.home}]\n`);
  });

  test('a dangerous command is refused with the reason, and its effect is absent', async () => {
    const rm = await call(server.client, 'bash', { command: 'rm -rf ~/notes' });
    assert.equal(rm.isError, true);
    assert.match(rm.texts[0]!, /^asimov \[fs\.[a-z-]+\]: .*No person can answer here/);
    const overwrite = await call(server.client, 'bash', { command: 'echo pwned > ~/notes/keep.txt' });
    assert.equal(overwrite.isError, true);
    assert.equal(readFileSync(join(s.home, 'notes', 'keep.txt'), 'utf8'), 'precious\n');
  });

  test('write, read and edit inside the project', async () => {
    const w = await call(server.client, 'write', { path: 'src/new.txt', content: 'hello\nworld\n' });
    assert.equal(w.isError, false, w.texts.join('\n'));
    assert.equal(readFileSync(join(s.project, 'src/new.txt'), 'utf8'), 'hello\nworld\n');
    const e = await call(server.client, 'edit', { path: join(s.project, 'src/new.txt'), old_string: 'world', new_string: 'there' });
    assert.equal(e.isError, false, e.texts.join('\n'));
    const r = await call(server.client, 'read', { path: 'src/new.txt' });
    assert.deepEqual(r, { texts: ['hello\nthere\n'], isError: false });
    const part = await call(server.client, 'read', { path: 'src/new.txt', offset: 2, limit: 1 });
    assert.equal(part.texts[0], 'there\n');
    const twice = await call(server.client, 'edit', { path: 'src/new.txt', old_string: 'e', new_string: 'E' });
    assert.equal(twice.isError, true);
    assert.match(twice.texts[0]!, /occurs 3 times/);
  });

  test('.. out of the project and a sibling with the same prefix are refused; --root adds a directory', async () => {
    for (const path of ['../outside/new.txt', 'src/../../outside/new.txt', '../project-evil/x.txt', `${s.project}-evil/x.txt`]) {
      const r = await call(server.client, 'write', { path, content: 'x' });
      assert.equal(r.isError, true, path);
      assert.match(r.texts[0]!, /outside the directories the tools may touch/);
    }
    assert.ok(!existsSync(join(s.root, 'outside', 'new.txt')));
    assert.ok(!existsSync(join(s.root, 'project-evil', 'x.txt')));
    const extra = await call(server.client, 'write', { path: '../extra/ok.txt', content: 'fine\n' });
    assert.equal(extra.isError, false, extra.texts.join('\n'));
    assert.equal(readFileSync(join(s.root, 'extra', 'ok.txt'), 'utf8'), 'fine\n');
  });

  test('symlinked parents and symlink leaves that lead outside are refused', async () => {
    const viaParent = await call(server.client, 'write', { path: 'link-out/planted.txt', content: 'x' });
    assert.equal(viaParent.isError, true);
    assert.match(viaParent.texts[0]!, /resolves to .*outside\/planted\.txt/);
    const readParent = await call(server.client, 'read', { path: 'link-out/secret.txt' });
    assert.equal(readParent.isError, true);
    const readLeaf = await call(server.client, 'read', { path: 'leaf-out' });
    assert.equal(readLeaf.isError, true);
    assert.match(readLeaf.texts[0]!, /symbolic link/);
    const writeLeaf = await call(server.client, 'write', { path: 'leaf-out', content: 'pwned' });
    assert.equal(writeLeaf.isError, true);
    assert.equal(readFileSync(join(s.root, 'outside', 'secret.txt'), 'utf8'), SECRET);
    assert.ok(!existsSync(join(s.root, 'outside', 'planted.txt')));
  });

  test('a timeout kills the whole process group: the grandchild is gone', async () => {
    const r = await call(server.client, 'bash', { command: '(sleep 300 & echo $! > grandchild.pid; wait)', timeout_ms: 1500 });
    assert.equal(r.isError, true);
    assert.match(r.texts[1]!, /Timed out after 1500 ms/);
    const pid = Number(readFileSync(join(s.project, 'grandchild.pid'), 'utf8'));
    assert.ok(pid > 0);
    await waitGone(pid);
  });

  test('a call the client cancels stops its command\'s process group', async () => {
    const ac = new AbortController();
    const pidFile = join(s.project, 'cancel.pid');
    const pending = server.client.callTool({ name: 'bash', arguments: { command: 'sleep 300 & echo $! > cancel.pid; wait' } }, undefined, { signal: ac.signal, timeout: 120_000 });
    pending.catch(() => undefined);
    const pid = await waitPid(pidFile);
    ac.abort();
    await assert.rejects(pending);
    await waitGone(pid);
  });

  test('100 MB of output: the result is bounded and says how much was dropped; the server stays small', async () => {
    const pid = server.transport.pid!;
    const before = peakRssKb(pid);
    const total = 100 * 1024 * 1024;
    const r = await call(server.client, 'bash', { command: `yes 0123456789abcdef | head -c ${total}` });
    assert.equal(r.isError, false, r.texts[1]);
    const kept = 1024 * 1024;
    assert.ok(r.texts[0]!.length < kept + 200, `${r.texts[0]!.length} characters came back`);
    assert.match(r.texts[1]!, new RegExp(`Output: ${total} bytes, of which ${total - kept} were dropped`));
    // Node frees the pipe's 64 KiB chunks lazily, so 30-45 MB of garbage come and go (measured); holding the
    // output would add its 100 MB on top, and its copies as text and JSON.
    const grownMb = (peakRssKb(pid) - before) / 1024;
    assert.ok(grownMb < 80, `the server's peak memory grew by ${grownMb.toFixed(1)} MB`);
  });

  test('every decision is in the audit log, as agent mcp-tools', () => {
    const lines = readFileSync(join(s.root, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const denied = lines.find((l) => (l['input'] as { command?: string }).command === 'rm -rf ~/notes');
    assert.ok(denied, 'the refused call is not in the audit log');
    assert.equal(denied['verdict'], 'deny');
    assert.equal(denied['agent'], 'mcp-tools');
    assert.equal(denied['client_tool'], 'bash');
  });
});

test('when the client hangs up, the server stops the commands still running and exits', async () => {
  const s = scratchProject('asimov-mcp-tools-hangup-');
  try {
    const server = await spawnServer(s, []);
    const serverPid = server.transport.pid!;
    const pending = server.client.callTool({ name: 'bash', arguments: { command: 'sleep 300 & echo $! > running.pid; wait' } }, undefined, { timeout: 120_000 });
    pending.catch(() => undefined);
    let pid = 0;
    try {
      pid = await waitPid(join(s.project, 'running.pid'));
      await server.client.close();
      await waitGone(pid);
      await waitGone(serverPid);
    } finally {
      // Whatever failed above, nothing of this test may outlive it (a live server keeps the test file running).
      await server.client.close().catch(() => undefined);
      for (const p of [pid, serverPid]) if (p > 0 && !gone(p)) try { process.kill(p, 'SIGKILL'); } catch { /* gone meanwhile */ }
    }
  } finally {
    s.cleanup();
  }
});

describe('a broken policy refuses every call (spawned CLI)', () => {
  let s: ReturnType<typeof scratchProject>;
  let server: Awaited<ReturnType<typeof spawnServer>>;

  before(async () => {
    s = scratchProject('asimov-mcp-tools-broken-');
    mkdirSync(join(s.project, '.asimov'));
    writeFileSync(join(s.project, '.asimov', 'policy.yaml'), 'rules: [\n  - this is: not: valid\n');
    writeFileSync(join(s.project, 'f.txt'), 'original\n');
    server = await spawnServer(s, []);
  });
  after(async () => {
    await server?.client.close();
    s?.cleanup();
  });

  test('bash, read, write and edit are all refused, naming the broken file; nothing happened', async () => {
    const replies = [
      await call(server.client, 'bash', { command: 'touch made-by-bash.txt' }),
      await call(server.client, 'read', { path: 'f.txt' }),
      await call(server.client, 'write', { path: 'new.txt', content: 'x' }),
      await call(server.client, 'edit', { path: 'f.txt', old_string: 'original', new_string: 'changed' }),
    ];
    for (const r of replies) {
      assert.equal(r.isError, true);
      assert.match(r.texts.join('\n'), /policy is broken.*policy\.yaml/s);
      assert.doesNotMatch(r.texts.join('\n'), /original/);
    }
    assert.ok(!existsSync(join(s.project, 'made-by-bash.txt')));
    assert.ok(!existsSync(join(s.project, 'new.txt')));
    assert.equal(readFileSync(join(s.project, 'f.txt'), 'utf8'), 'original\n');
  });
});

describe('the tools section of a policy file (spawned CLI, a user policy in the scratch HOME)', () => {
  let s: ReturnType<typeof scratchProject>;
  let server: Awaited<ReturnType<typeof spawnServer>>;

  before(async () => {
    s = scratchProject('asimov-mcp-tools-policy-');
    mkdirSync(join(s.home, '.config', 'asimov'), { recursive: true });
    writeFileSync(
      join(s.home, '.config', 'asimov', 'policy.yaml'),
      `version: 1\ntools:\n  env: [SECRET_TOKEN, LD_PRELOAD]\n  roots: [${join(s.root, 'extra')}]\n  timeoutMs: 1000\n  maxOutputBytes: 100\n`,
    );
    // A script, so the gate does not see (and refuse) the printing of a secret.
    writeFileSync(join(s.project, 'env-probe.sh'), 'echo "[${SECRET_TOKEN-unset}] [${LD_PRELOAD-unset}] [${OTHER_SECRET-unset}]"\n');
    commitAll(s.project);
    server = await spawnServer(s, [], { SECRET_TOKEN: 'tok-listed', LD_PRELOAD: '/nonexistent/asimov-test-preload.so', OTHER_SECRET: 'never' });
  });
  after(async () => {
    await server?.client.close();
    s?.cleanup();
  });

  test('listed variables pass, never LD_PRELOAD; its roots and limits apply', async () => {
    const env = await call(server.client, 'bash', { command: 'sh env-probe.sh' });
    assert.equal(env.texts[0], '[tok-listed] [unset] [unset]\n', env.texts.join('\n'));
    const w = await call(server.client, 'write', { path: join(s.root, 'extra', 'p.txt'), content: 'ok' });
    assert.equal(w.isError, false, w.texts.join('\n'));
    assert.equal(readFileSync(join(s.root, 'extra', 'p.txt'), 'utf8'), 'ok');
    // The call asks for a minute; the policy caps it at a second.
    const slow = await call(server.client, 'bash', { command: 'sleep 30', timeout_ms: 60_000 });
    assert.equal(slow.isError, true);
    assert.match(slow.texts[1]!, /Timed out after 1000 ms/);
    const big = await call(server.client, 'bash', { command: 'yes | head -c 5000' });
    assert.ok(big.texts[0]!.length < 200);
    assert.match(big.texts[1]!, /of which 4900 were dropped/);
  });
});

describe('the server in-process: command-line limits, a raced write, a failing gate', () => {
  let s: ReturnType<typeof scratchProject>;
  const ENV = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: s.home, SECRET_TOKEN: 'tok-listed', LD_PRELOAD: '/nonexistent/x.so', OTHER_SECRET: 'never' });

  before(() => {
    s = scratchProject('asimov-mcp-tools-inproc-');
  });
  after(() => s?.cleanup());

  async function connect(o: Partial<ToolsServerOptions> & { gate: Gate }) {
    const tools = createToolsServer({ cwd: s.project, env: ENV(), ...o });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'asimov-test', version: '1.0.0' });
    await Promise.all([tools.server.connect(a), client.connect(b)]);
    return { client, close: async () => { await client.close(); await tools.close(); } };
  }

  function policyGate(gatedTools: { env: string[]; roots: string[]; timeoutMs: number; maxOutputBytes: number; hookApprovals?: boolean }): Gate {
    const base = createGate({ audit: false, env: ENV() }).policyFor(s.project);
    return createGate({ audit: false, env: ENV(), policy: { ...base, gatedTools: { hookApprovals: true, ...gatedTools } } });
  }

  test('its own tool definitions pass asimov\'s poisoning check (a proxy in front would not hide them)', async () => {
    const c = await connect({ gate: createGate({ audit: false, env: ENV() }) });
    try {
      const { tools } = await c.client.listTools();
      assert.equal(tools.length, 4);
      for (const t of tools) assert.equal(isBlocking(inspectTool(t as ToolDef)), false, t.name);
    } finally {
      await c.close();
    }
  });

  test('command-line limits replace the policy\'s', async () => {
    const gate = policyGate({ env: [], roots: [], timeoutMs: 1000, maxOutputBytes: 100 });
    const c = await connect({ gate, maxOutputBytes: 1000 });
    try {
      const big = await call(c.client, 'bash', { command: 'yes | head -c 5000' });
      assert.match(big.texts[1]!, /of which 4000 were dropped/);
    } finally {
      await c.close();
    }
  });

  test('a symlink swapped in between the check and the write: refused, the file outside untouched', async () => {
    const f = join(s.project, 'raced.txt');
    writeFileSync(f, 'original\n');
    const c = await connect({
      gate: createGate({ audit: false, env: ENV() }),
      fs: {
        afterCheck: () => {
          unlinkSync(f);
          symlinkSync(join(s.root, 'outside', 'secret.txt'), f);
        },
      },
    });
    try {
      const r = await call(c.client, 'write', { path: 'raced.txt', content: 'pwned\n' });
      assert.equal(r.isError, true);
      assert.match(r.texts[0]!, /changed while the call was running/);
      assert.equal(readFileSync(join(s.root, 'outside', 'secret.txt'), 'utf8'), SECRET);
      assert.ok(lstatSync(f).isSymbolicLink());
    } finally {
      await c.close();
      unlinkSync(f);
    }
  });

  test('a note from the client\'s hook skips the second decision once; tools.hookApprovals: false always decides', async () => {
    for (const hookApprovals of [true, false]) {
      const base = policyGate({ env: [], roots: [], timeoutMs: 5_000, maxOutputBytes: 65_536, hookApprovals });
      let decided = 0;
      const gate: Gate = { ...base, decide: async (c, o) => { decided++; return base.decide(c, o); } };
      const c = await connect({ gate });
      try {
        const input = { command: `echo noted-${hookApprovals} > noted-${hookApprovals}.txt` };
        const allowed: Decision = { verdict: 'allow', tier: 'allow', rule: 'dev.read-only', reason: 'r', layer: 'static', ms: 0, findings: [], decisionId: 'hook-1' };
        assert.equal(recordApproval({ tool: 'bash', input, cwd: s.project }, allowed, { env: ENV() }), true);
        const first = await call(c.client, 'bash', input);
        assert.equal(first.isError, false, first.texts.join('\n'));
        assert.equal(decided, hookApprovals ? 0 : 1, `hookApprovals ${hookApprovals}`);
        // The note is single-use (or, when ignored, still there for nobody); the same call again is decided.
        await call(c.client, 'bash', input);
        assert.equal(decided, hookApprovals ? 1 : 2);
        assert.equal(readFileSync(join(s.project, `noted-${hookApprovals}.txt`), 'utf8'), `noted-${hookApprovals}\n`);
      } finally {
        await c.close();
      }
    }
  });

  test('nothing acts unless the verdict is allow: ask, deny and a gate that throws all refuse', async () => {
    const target = join(s.project, 'should-not-exist.txt');
    const verdicts = ['ask', 'deny', 'throw'] as const;
    for (const v of verdicts) {
      const gate: Gate = {
        ...createGate({ audit: false, env: ENV() }),
        decide: async () => {
          if (v === 'throw') throw new Error('gate exploded');
          return { verdict: v, tier: 'soft_deny', rule: 'test.rule', reason: `scripted ${v}`, layer: 'static', ms: 0, findings: [], decisionId: 'x' };
        },
      };
      const c = await connect({ gate });
      try {
        const w = await call(c.client, 'write', { path: target, content: 'x' });
        const b = await call(c.client, 'bash', { command: `touch ${target}` });
        for (const r of [w, b]) {
          assert.equal(r.isError, true, v);
          assert.match(r.texts[0]!, v === 'throw' ? /could not be checked.*gate exploded/ : new RegExp(`\\[test\\.rule\\]: scripted ${v}`));
        }
        assert.ok(!existsSync(target), `${v}: the call acted`);
      } finally {
        await c.close();
      }
    }
  });
});

test('command-line errors: a missing directory, limits out of range, stray arguments; --help', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'mcp', 'tools', ...args], { encoding: 'utf8', input: '' });
  const help = run('--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /Usage: asimov mcp tools/);
  for (const args of [['--cwd', '/nonexistent/asimov-dir'], ['--root', '/nonexistent/asimov-dir'], ['--max-output', '0'], ['--max-output', '99999999'], ['--timeout-ms', 'soon'], ['extra']]) {
    const r = run(...args);
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', 'nothing but the protocol may reach stdout');
    assert.match(r.stderr, /asimov mcp/);
  }
});

test('the real Claude Code CLI, its own tools switched off, works through the gated tools', async () => {
  const s = scratchProject('asimov-mcp-tools-claude-');
  const model = await startAnthropicServer({
    script: [
      { tools: [{ name: 'mcp__asimov__bash', input: { command: 'echo gated-hello; touch via-claude.txt' } }] },
      { tools: [{ name: 'mcp__asimov__bash', input: { command: 'rm -rf ~/notes' } }] },
      { tools: [{ name: 'mcp__asimov__write', input: { path: 'src/w.txt', content: 'from claude\n' } }] },
      { tools: [{ name: 'mcp__asimov__write', input: { path: '../outside/planted.txt', content: 'x' } }] },
      { text: 'done' },
    ],
  });
  try {
    const config = join(s.root, 'mcp.json');
    writeFileSync(config, JSON.stringify({
      mcpServers: { asimov: { command: process.execPath, args: [BIN, 'mcp', 'tools', '--cwd', s.project], env: { ASIMOV_AUDIT_LOG: join(s.root, 'audit.jsonl') } } },
    }));
    const run = await runClaude({
      home: s.home, cwd: s.project, baseUrl: model.url, prompt: 'do the task',
      allowedTools: ['mcp__asimov__bash', 'mcp__asimov__read', 'mcp__asimov__write', 'mcp__asimov__edit'],
      args: ['--mcp-config', config, '--strict-mcp-config', '--disallowedTools', 'Bash,Write,Edit,Read'],
    });
    assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr.slice(0, 400)}`);
    const results = model.allToolResults();
    const step = (i: number) => stepToolResult(results, i, JSON.stringify(results));
    // Claude Code's own shell and file tools were not offered. (2.1.330 defers MCP tools behind its ToolSearch
    // tool rather than listing them; a call to one works all the same.)
    const offered = (model.mainRequests()[0]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    for (const own of ['Bash', 'Write', 'Edit', 'Read']) assert.ok(!offered.includes(own), offered.join(', '));

    assert.equal(step(0).is_error, false, step(0).text);
    assert.match(step(0).text, /gated-hello[\s\S]*Exit code 0\./);
    assert.ok(existsSync(join(s.project, 'via-claude.txt')));
    assert.equal(step(1).is_error, true);
    assert.match(step(1).text, /asimov \[fs\.rm-outside-project\]/);
    assert.equal(readFileSync(join(s.home, 'notes', 'keep.txt'), 'utf8'), 'precious\n');
    assert.equal(step(2).is_error, false, step(2).text);
    assert.equal(readFileSync(join(s.project, 'src', 'w.txt'), 'utf8'), 'from claude\n');
    assert.equal(step(3).is_error, true);
    assert.match(step(3).text, /outside the directories the tools may touch/);
    assert.ok(!existsSync(join(s.root, 'outside', 'planted.txt')));
  } finally {
    await model.close();
    s.cleanup();
  }
});

test('the real Claude Code CLI with asimov\'s hook AND the gated tools: the hook judges mcp__asimov__bash as the shell command it is, and the tools do not decide a second time', async () => {
  const s = scratchProject('asimov-mcp-tools-hooked-');
  const model = await startAnthropicServer({
    script: [
      { tools: [{ name: 'mcp__asimov__bash', input: { command: 'echo twice-guarded > guarded.txt' } }] },
      { tools: [{ name: 'mcp__asimov__bash', input: { command: 'rm -rf ~/notes' } }] },
      { text: 'done' },
    ],
  });
  try {
    const audit = join(s.root, 'audit.jsonl');
    const wired = spawnSync(process.execPath, [BIN, 'wire', 'claude'], {
      cwd: s.project, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: s.home },
    });
    assert.equal(wired.status, 0, wired.stderr);
    const config = join(s.root, 'mcp.json');
    writeFileSync(config, JSON.stringify({
      mcpServers: { asimov: { command: process.execPath, args: [BIN, 'mcp', 'tools', '--cwd', s.project] } },
    }));
    const run = await runClaude({
      home: s.home, cwd: s.project, baseUrl: model.url, prompt: 'do the task',
      env: { ASIMOV_AUDIT_LOG: audit },
      args: ['--mcp-config', config, '--strict-mcp-config', '--disallowedTools', 'Bash,Write,Edit,Read'],
    });
    assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr.slice(0, 400)}`);
    const results = model.allToolResults();
    const step = (i: number) => stepToolResult(results, i, JSON.stringify(results));
    // The everyday command: allowed by the hook (so Claude Code did not even ask), run by the tools.
    assert.equal(step(0).is_error, false, step(0).text);
    assert.equal(readFileSync(join(s.project, 'guarded.txt'), 'utf8'), 'twice-guarded\n');
    // The dangerous one: the hook judged it as the shell command it is, and its ask is a refusal in claude -p.
    assert.equal(step(1).is_error, true);
    assert.match(step(1).text, /asimov \[fs\.rm-outside-project\]/);
    assert.equal(readFileSync(join(s.home, 'notes', 'keep.txt'), 'utf8'), 'precious\n');

    const events = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { agent?: string; verdict?: string; tool?: string; client_tool?: string });
    const byHook = events.filter((e) => e.agent === 'claude-code' && e.client_tool?.startsWith('mcp__asimov__'));
    assert.deepEqual(byHook.map((e) => [e.tool, e.verdict]), [['shell', 'allow'], ['shell', 'ask']], JSON.stringify(events));
    // The allowed call was decided once, by the hook: the tools took its note instead of deciding again.
    assert.deepEqual(events.filter((e) => e.agent === 'mcp-tools'), [], JSON.stringify(events));
    assert.deepEqual(readdirSync(join(s.home, '.cache', 'asimov', 'approvals')), []);
  } finally {
    await model.close();
    s.cleanup();
  }
});
