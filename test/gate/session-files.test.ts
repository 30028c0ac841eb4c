// What the agent made, it may clean up: the gate records what an allowed call creates in the project, and a
// later `rm -rf` of exactly that (and nothing older moved into it) is allowed; everything else still asks.
// Real files, real directories, real links, a real gate with the recommended policy.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gateScratch, scratchGate, type GateScratch } from '../helpers/gate-scratch.ts';
import { createSessionFiles, parseRecord } from '../../src/gate/session-files.ts';
import type { ToolCall } from '../../src/core/types.ts';

type Scratch = GateScratch & { state: string };

function scratch(): Scratch {
  const s = gateScratch('asimov-session-');
  return { ...s, state: join(s.root, 'state') };
}

const gateFor = (s: Scratch) => scratchGate(s, { sessionState: s.state });

const shell = (command: string, cwd: string, sessionId?: string): ToolCall => ({ tool: 'shell', clientTool: 'Bash', input: { command }, cwd, ...(sessionId ? { sessionId } : {}) });
const write = (file_path: string, cwd: string, sessionId: string): ToolCall => ({ tool: 'write', clientTool: 'Write', input: { file_path, content: 'print(1)\n' }, cwd, sessionId });

/** Decide a call and, when allowed, do what it says (the client would), so the next call sees its effects. */
async function run(gate: ReturnType<typeof gateFor>, call: ToolCall, effect: () => void): Promise<string> {
  const d = await gate.decide(call);
  if (d.verdict === 'allow') effect();
  return d.verdict;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('session provenance: the agent removes what it made', () => {
  test('a directory made by an allowed mkdir, and one made by a Write under it, may be removed by the same session', async () => {
    const s = scratch();
    try {
      const gate = gateFor(s);
      assert.equal(await run(gate, shell('mkdir repro_app', s.project, 'S1'), () => mkdirSync(join(s.project, 'repro_app'))), 'allow');
      assert.equal(await run(gate, write(join(s.project, 'repro_proj/pkg/main.py'), s.project, 'S1'), () => {
        mkdirSync(join(s.project, 'repro_proj/pkg'), { recursive: true });
        writeFileSync(join(s.project, 'repro_proj/pkg/main.py'), 'print(1)\n');
      }), 'allow');
      const rm = await gate.decide(shell('rm -rf repro_app repro_proj', s.project, 'S1'));
      assert.equal(rm.verdict, 'allow', rm.reason);
      assert.equal(rm.rule, 'fs.rm-created');
      // A path inside a created directory is the session's too.
      assert.equal((await gate.decide(shell('rm -rf repro_proj/pkg', s.project, 'S1'))).verdict, 'allow');
    } finally {
      s.cleanup();
    }
  });

  test('another session, no session, and the user\'s own directory still ask', async () => {
    const s = scratch();
    try {
      mkdirSync(join(s.project, 'notes'));
      const gate = gateFor(s);
      await run(gate, shell('mkdir -p scratch/a/b', s.project, 'S1'), () => mkdirSync(join(s.project, 'scratch/a/b'), { recursive: true }));
      assert.equal((await gate.decide(shell('rm -rf scratch', s.project, 'S2'))).tier, 'soft_deny');
      assert.equal((await gate.decide(shell('rm -rf scratch', s.project))).tier, 'soft_deny');
      // notes existed before: mkdir -p of it creates nothing, so it is never recorded.
      await run(gate, shell('mkdir -p notes', s.project, 'S1'), () => undefined);
      const notes = await gate.decide(shell('rm -rf notes', s.project, 'S1'));
      assert.equal(notes.tier, 'soft_deny');
      assert.equal(notes.rule, 'fs.rm-recursive');
    } finally {
      s.cleanup();
    }
  });

  test('the user\'s older work moved or hard-linked into a created directory makes its removal ask', async () => {
    const s = scratch();
    try {
      mkdirSync(join(s.project, 'drafts'));
      writeFileSync(join(s.project, 'drafts/chapter1.md'), 'months of work\n');
      writeFileSync(join(s.project, 'ideas.txt'), 'more work\n');
      await wait(300); // past the record's slack for coarse file-system clocks
      const gate = gateFor(s);
      await run(gate, shell('mkdir made', s.project, 'S1'), () => mkdirSync(join(s.project, 'made')));
      await run(gate, shell('mkdir made2', s.project, 'S1'), () => mkdirSync(join(s.project, 'made2')));
      assert.equal((await gate.decide(shell('rm -rf made', s.project, 'S1'))).verdict, 'allow');
      // A move keeps the inode's birth time: older than the record. (A copy would be a new file: fine.)
      renameSync(join(s.project, 'drafts'), join(s.project, 'made/drafts'));
      assert.equal((await gate.decide(shell('rm -rf made', s.project, 'S1'))).tier, 'soft_deny');
      linkSync(join(s.project, 'ideas.txt'), join(s.project, 'made2/ideas.txt'));
      assert.equal((await gate.decide(shell('rm -rf made2', s.project, 'S1'))).tier, 'soft_deny');
    } finally {
      s.cleanup();
    }
  });

  test('a link inside a created directory does not make its target the agent\'s, and outside the project nothing counts', async () => {
    const s = scratch();
    try {
      mkdirSync(join(s.home, 'Documents'));
      const gate = gateFor(s);
      await run(gate, shell('mkdir tmpwork', s.project, 'S1'), () => mkdirSync(join(s.project, 'tmpwork')));
      symlinkSync(join(s.home, 'Documents'), join(s.project, 'tmpwork/docs'));
      const through = await gate.decide(shell('rm -rf tmpwork/docs/', s.project, 'S1'));
      assert.notEqual(through.verdict, 'allow', through.reason);
      // Created outside the project (in the home): never recorded, never allowed by provenance.
      await run(gate, shell('mkdir ~/scratch-out', s.project, 'S1'), () => mkdirSync(join(s.home, 'scratch-out')));
      assert.notEqual((await gate.decide(shell('rm -rf ~/scratch-out', s.project, 'S1'))).verdict, 'allow');
    } finally {
      s.cleanup();
    }
  });

  test('a call that is not allowed records nothing', async () => {
    const s = scratch();
    try {
      const gate = gateFor(s);
      // Asks (an unknown program), so the directory it would make is not recorded.
      const d = await gate.decide(shell('frobnicate && mkdir later', s.project, 'S1'));
      assert.notEqual(d.verdict, 'allow');
      mkdirSync(join(s.project, 'later'));
      assert.equal((await gate.decide(shell('rm -rf later', s.project, 'S1'))).tier, 'soft_deny');
    } finally {
      s.cleanup();
    }
  });
});

describe('the session record on disk', () => {
  test('is owner-only, hashed by session id, and read back', () => {
    const s = scratch();
    try {
      const files = createSessionFiles({ stateDir: s.state });
      const dir = join(s.project, 'x');
      files.record('session/../../odd id', [dir]);
      const names = readdirSync(join(s.state, 'sessions'));
      assert.equal(names.length, 1);
      assert.match(names[0]!, /^[0-9a-f]{40}\.jsonl$/);
      const text = readFileSync(join(s.state, 'sessions', names[0]!), 'utf8');
      assert.ok(parseRecord(text).has(dir));
      mkdirSync(dir);
      assert.equal(files.created('session/../../odd id', dir), true);
      assert.equal(files.created('other', dir), false);
    } finally {
      s.cleanup();
    }
  });

  test('a record another user could write, or one swapped for a link, counts for nothing', () => {
    const s = scratch();
    try {
      const files = createSessionFiles({ stateDir: s.state });
      const dir = join(s.project, 'y');
      files.record('S', [dir]);
      mkdirSync(dir);
      assert.equal(files.created('S', dir), true);
      const sessions = join(s.state, 'sessions');
      const [name] = readdirSync(sessions);
      chmodSync(join(sessions, name!), 0o666);
      assert.equal(files.created('S', dir), false, 'group/other-writable record');
      chmodSync(join(sessions, name!), 0o600);
      chmodSync(sessions, 0o755);
      assert.equal(files.created('S', dir), false, 'record directory not private');
      chmodSync(sessions, 0o700);
      const fake = join(s.root, 'fake.jsonl');
      writeFileSync(fake, `${JSON.stringify({ p: s.project, at: Date.now() })}\n`, { mode: 0o600 });
      rmSync(join(sessions, name!));
      symlinkSync(fake, join(sessions, name!));
      assert.equal(files.created('S', dir), false, 'a link where the record should be');
    } finally {
      s.cleanup();
    }
  });

  test('torn lines, foreign lines and relative paths are skipped', () => {
    const m = parseRecord('{"p":"/a/b","at":5}\n{"p":"rel","at":1}\n{"p":"/","at":1}\nnot json\n{"p":"/a/b","at":3}\n{"p":"/c"');
    assert.deepEqual([...m], [['/a/b', 3]]);
  });
});
