// What the hook adapters' tests share: a Decision to feed a protocol's reply(), and a scratch project in
// which to run the built `asimov hook <client>` through the real gate.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
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
