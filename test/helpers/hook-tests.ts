// What the hook adapters' tests share: a Decision to feed a protocol's reply(), a scratch project in which to
// run the built `asimov hook <client>` through the real gate, and the whole-run tests the clients share.

import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Decision, Tier, Verdict } from '../../src/core/types.ts';
import { stopDaemonFor } from './daemon.ts';

export const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');

export function decision(verdict: Verdict, tier: Tier, rule: string | null = 'x.rule', layer: Decision['layer'] = 'static'): Decision {
  return { verdict, tier, rule, reason: 'because', layer, ms: 0, findings: [], decisionId: 'd1' };
}

export interface HookScratch {
  root: string;
  home: string;
  /** A project (with .git) the hook runs in. */
  project: string;
  /** Runs `asimov hook <client>` in the project with the judge off and the audit log in the scratch dir. */
  hook(input: string): SpawnSyncReturns<string>;
  cleanup(): void;
}

/** A scratch directory holding an empty HOME and a project (with .git) beside it; `prefix` names it in the temp dir. */
export function scratchDirs(prefix: string): { root: string; home: string; project: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  return { root, home, project };
}

export function hookScratch(client: string): HookScratch {
  const { root, home, project } = scratchDirs(`asimov-${client}-hook-`);
  return {
    root, home, project,
    hook: (input) => spawnSync(process.execPath, [BIN, 'hook', client], {
      cwd: project, input, encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: home, GATE_CHECK: 'false', ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl') },
    }),
    cleanup: () => {
      stopDaemonFor(home);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The whole-run tests every client whose only blocking reply is exit 2 shares (Goose, Kimi, OpenCode,
 * Windsurf): through the built hook and the real gate, a catastrophic shell command is refused with exit 2,
 * an empty stdout and its rule on stderr; an everyday one passes with exit 0 and nothing on stdout; input
 * that is not a payload blocks. `shellPayload` builds the client's payload for a command run in the project.
 */
export function exitTwoWholeRunTests(client: string, scratch: HookScratch, shellPayload: (command: string) => unknown, everyday: string): void {
  shellRunTest('a catastrophic command is refused with exit 2 and its rule; an everyday one passes silently', scratch, shellPayload, everyday, (stdout) => {
    assert.equal(stdout, '');
  });
  notAPayloadTest(client, scratch);
}

/**
 * The whole-run tests of the clients that refuse with exit 2 but approve with Claude's hookSpecificOutput
 * (Droid, Qwen Code): as exitTwoWholeRunTests, except that the everyday command's reply is an explicit
 * allow. Call it inside the client's describe: it also checks that the bundle the bin loads is built.
 */
export function approvingWholeRunTests(client: string, scratch: HookScratch, shellPayload: (command: string) => unknown, everyday: string): void {
  before(() => assert.ok(existsSync(resolve(import.meta.dirname, '../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `node scripts/build.mjs`'));
  shellRunTest('a catastrophic command is blocked with exit 2 and its rule; an everyday one is approved', scratch, shellPayload, everyday, (stdout) => {
    assert.equal((JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision, 'allow');
  });
  notAPayloadTest(client, scratch);
}

/** A catastrophic shell command is refused with exit 2, nothing on stdout and its rule on stderr; an everyday one passes with exit 0 and `allowed` as its reply. */
function shellRunTest(title: string, { hook }: HookScratch, shellPayload: (command: string) => unknown, everyday: string, allowed: (stdout: string) => void): void {
  test(title, () => {
    assert.ok(existsSync(BIN));
    const denied = hook(JSON.stringify(shellPayload('rm -rf ~')));
    assert.equal(denied.status, 2, denied.stdout);
    assert.equal(denied.stdout, '');
    assert.match(denied.stderr, /^asimov \[fs\./);
    const ok = hook(JSON.stringify(shellPayload(everyday)));
    assert.equal(ok.status, 0, ok.stderr);
    allowed(ok.stdout);
  });
}

/** Every client: input that is not a payload blocks with exit 2, nothing on stdout, and says whose payload it could not read. */
export function notAPayloadTest(client: string, { hook }: HookScratch): void {
  test('input that is not a payload blocks with exit 2', () => {
    const r = hook('not json');
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`could not read the ${client} hook payload`));
  });
}
