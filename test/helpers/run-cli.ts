// Runs a real client CLI (Gemini, Codex, Copilot, OpenCode, the MCP Inspector) the way the e2e tests need it:
// stdin closed, in a process group of its own that is killed when the CLI exits or outlives its time limit, its
// output collected. Built on asimov's own process-group runner (src/core/run-group.ts) rather than a copy per test.

import { BoundedOutput, runGroup } from '../../src/core/run-group.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The CLI outlived `timeoutMs` and its process group was killed. */
  timedOut: boolean;
}

/** Far more than any scripted session writes: the tests parse whole JSON outputs. */
const KEEP_BYTES = 64 * 1024 * 1024;

/** Runs `file args…`; rejects only when the CLI cannot be started at all. */
export async function runCli(file: string, args: readonly string[], o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CliRun> {
  const r = await runGroup({
    file, args, cwd: o.cwd, env: o.env,
    stdout: new BoundedOutput(KEEP_BYTES), stderr: new BoundedOutput(KEEP_BYTES),
    timeoutMs: o.timeoutMs ?? 60_000, killGraceMs: 0,
  });
  if (r.spawnError) throw r.spawnError;
  return { code: r.exitCode, stdout: r.stdout.text(), stderr: r.stderr.text(), timedOut: r.timedOut };
}
