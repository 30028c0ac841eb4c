// Shared by the red-team tests (test/security/*): a scratch machine under the OS temp dir (a HOME, a project
// with a .git inside it, and a "decoy" directory outside both, which the policy counts as temp), and a gate
// that sees only it. The project lies inside HOME on purpose: a project directly under /tmp is "temp" to the
// path rules (see temp-project.test.ts), which would hide the findings here. Every command these tests let a real shell run has its effect inside this scratch tree.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type Gate } from '../../src/gate/gate.ts';
import { normalizeTool } from '../../src/core/tools.ts';
import type { Decision } from '../../src/core/types.ts';
import { stopDaemonFor } from '../helpers/daemon.ts';

export interface Scratch {
  root: string;
  home: string;
  project: string;
  /** A directory outside HOME and the project, under the temp dir: where "temp" rules apply. */
  decoy: string;
  cleanup: () => void;
}

export function scratch(prefix: string): Scratch {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, 'home');
  const project = join(home, 'project');
  const decoy = join(root, 'decoy');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'src', 'keep.txt'), 'precious\n');
  mkdirSync(home, { recursive: true });
  mkdirSync(decoy, { recursive: true });
  return { root, home, project, decoy, cleanup: () => {
      stopDaemonFor(home);
      rmSync(root, { recursive: true, force: true });
    } };
}

export function scratchGate(s: Scratch, env: Record<string, string> = {}): Gate {
  return createGate({
    home: s.home,
    env: { HOME: s.home, ...env },
    audit: false,
    managedPolicyPath: join(s.root, 'managed.yaml'),
    userPolicyPath: join(s.root, 'user.yaml'),
    trustStorePath: join(s.root, 'trusted.json'),
  });
}

/** Decides a call as a hook would: the client's tool name normalized, a person available. */
export function decideAs(gate: Gate, clientTool: string, input: Record<string, unknown>, cwd: string, agent = 'redteam'): Promise<Decision> {
  const n = normalizeTool(clientTool, input);
  return gate.decide({ tool: n.tool, clientTool, input, cwd, agent }, { personAvailable: true });
}
