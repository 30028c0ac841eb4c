// The bench's sandbox: a throw-away HOME with a project inside it, the built-in policy loaded with no user,
// project or managed file (so the machine's own policy files never count), and one in-process gate over it.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolCall } from '../src/core/types.ts';
import type { Gate } from '../src/gate/gate.ts';
import { createGate, createRuleContext, loadPolicy, normalizeTool } from './lib.ts';
import type { EffectivePolicy } from '../src/policy/layers.ts';
import type { RuleContext } from '../src/policy/rule.ts';

export interface BenchEnv {
  root: string;
  home: string;
  /** The temp project directory every call runs in. */
  project: string;
  policy: EffectivePolicy;
  gate: Gate;
  /**
   * A fresh rule context for a call in the project (or another root), built as the gate builds one per call
   * (its path caches must not outlive the call), for calling classifyShell directly.
   */
  ctx(root?: string): RuleContext;
  /** Environment for child processes: HOME and XDG dirs point into the sandbox. */
  childEnv: NodeJS.ProcessEnv;
  /** A tool call as a Claude Code hook would send it, run in the project directory. */
  call(tool: string, input: Record<string, unknown>): ToolCall;
  dispose(): void;
}

/**
 * The sandbox is `bench/sandbox-*`, not under /tmp: paths in /tmp are classified `temp`, where removal is
 * allowed, so a HOME there would make `rm -rf ~/Documents` look harmless. Nor under bench/out: a directory
 * named like a build output (`out`, `build`, `tmp`…) above the project once made rules take the whole
 * project for build artefacts, and such a bug should not bend the figures. The project sits inside HOME, as
 * most real projects do, and holds an empty `.asimov/` so that a child `asimov check` takes it as the
 * project root instead of walking up into the repository.
 */
export function createBenchEnv(benchDir: string): BenchEnv {
  const root = mkdtempSync(join(benchDir, 'sandbox-'));
  const home = join(root, 'home');
  const project = join(home, 'project');
  mkdirSync(join(home, '.config'), { recursive: true });
  mkdirSync(join(project, '.asimov'), { recursive: true });
  const env: NodeJS.ProcessEnv = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: process.env.PATH ?? '' };
  const policy = loadPolicy({
    cwd: project,
    projectRoot: project,
    home,
    env,
    userPath: join(home, '.config', 'asimov', 'policy.yaml'),
    managedPath: join(root, 'managed', 'policy.yaml'),
    trustStorePath: join(home, '.config', 'asimov', 'trusted.json'),
  });
  const gate = createGate({ audit: false, policy, personAvailable: true, home, env });
  const call = (tool: string, input: Record<string, unknown>): ToolCall => {
    // As the Claude Code adapter does: a SlashCommand naming an MCP prompt is judged as that prompt request.
    const norm = normalizeTool(tool, input);
    return { tool: norm.tool, clientTool: tool, input: norm.input ?? input, cwd: project, projectRoot: project, agent: 'bench' };
  };
  const ctx = (at: string = project): RuleContext =>
    createRuleContext({
      cwd: at,
      projectRoot: at,
      home,
      allowedDomains: policy.allowedDomains,
      defaultBranches: policy.defaultBranches,
      protectedPaths: policy.protectedPaths,
    });
  return {
    root,
    home,
    project,
    policy,
    gate,
    ctx,
    childEnv: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
    call,
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}
