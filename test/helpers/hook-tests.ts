// What the hook adapters' tests share: a Decision to feed a protocol's reply(), a scratch project in which to
// run the built `asimov hook <client>` through the real gate, and the whole-run tests of the exit-2 clients.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Decision, Tier, Verdict } from '../../src/core/types.ts';

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

export function hookScratch(client: string): HookScratch {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `asimov-${client}-hook-`)));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  return {
    root, home, project,
    hook: (input) => spawnSync(process.execPath, [BIN, 'hook', client], {
      cwd: project, input, encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: home, GATE_CHECK: 'false', ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl') },
    }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * The whole-run tests every client whose only blocking reply is exit 2 shares (Goose, Kimi, OpenCode,
 * Windsurf): through the built hook and the real gate, a catastrophic shell command is refused with exit 2,
 * an empty stdout and its rule on stderr; an everyday one passes with exit 0 and nothing on stdout; input
 * that is not a payload blocks. `shellPayload` builds the client's payload for a command run in the project.
 */
export function exitTwoWholeRunTests(client: string, scratch: HookScratch, shellPayload: (command: string) => unknown, everyday: string): void {
  const { hook } = scratch;
  test('a catastrophic command is refused with exit 2 and its rule; an everyday one passes silently', () => {
    assert.ok(existsSync(BIN));
    const denied = hook(JSON.stringify(shellPayload('rm -rf ~')));
    assert.equal(denied.status, 2, denied.stdout);
    assert.equal(denied.stdout, '');
    assert.match(denied.stderr, /^asimov \[fs\./);
    const allowed = hook(JSON.stringify(shellPayload(everyday)));
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.equal(allowed.stdout, '');
  });

  test('input that is not a payload blocks with exit 2', () => {
    const r = hook('not json');
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`could not read the ${client} hook payload`));
  });
}
