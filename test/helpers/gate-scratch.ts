// A scratch machine for gate tests: a HOME with a project (holding .git) inside it, and a gate over it whose
// policy files, trust store and (by default) state all live in the scratch directory, never the user's.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type GateOptions } from '../../src/gate/gate.ts';
import { stopDaemonFor } from './daemon.ts';

export interface GateScratch {
  root: string;
  home: string;
  project: string;
  cleanup: () => void;
}

export function gateScratch(prefix: string): GateScratch {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  return { root, home, project, cleanup: () => {
      stopDaemonFor(home);
      rmSync(root, { recursive: true, force: true });
    } };
}

export function scratchGate(s: GateScratch, extra: GateOptions = {}) {
  return createGate({
    home: s.home,
    env: { HOME: s.home },
    audit: false,
    managedPolicyPath: join(s.root, 'managed.yaml'),
    userPolicyPath: join(s.root, 'user.yaml'),
    trustStorePath: join(s.root, 'trusted.json'),
    ...extra,
  });
}
