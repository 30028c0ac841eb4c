// The real Gemini CLI (node_modules/.bin/gemini) run headless against a scripted Gemini API on 127.0.0.1:
// one session of scripted tool calls, in a scratch HOME, killed with its whole process group if it hangs.
//
// Gemini runs in --yolo mode with a fixed model (with the default "auto" it first asks a routing classifier
// for JSON, and retries with back-off for over a minute on the scripted text); so its own confirmations
// approve everything: only asimov stands in the way.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from './run-cli.ts';
import { startGeminiServer, type GeminiFunctionResponse, type GeminiScriptStep } from './gemini-server.ts';
import { stopDaemonFor } from './daemon.ts';

export const GEMINI_BIN = realpathSync(resolve(import.meta.dirname, '../../node_modules/.bin/gemini'));
const RUN_TIMEOUT_MS = 60_000;

export interface GeminiRun { code: number | null; stdout: string; stderr: string }

export interface GeminiSessionOptions {
  home: string;
  project: string;
  env?: Record<string, string>;
}

/** One headless session against a server already started. */
export async function runGemini(baseUrl: string, o: GeminiSessionOptions): Promise<GeminiRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.home,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TMPDIR: join(o.home, '.tmp'),
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_API_KEY: 'dummy',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...o.env,
  };
  mkdirSync(env.TMPDIR!, { recursive: true });
  const r = await runCli(process.execPath, [GEMINI_BIN, '-p', 'do the task', '--yolo', '--output-format', 'json', '-m', 'gemini-2.5-flash'], {
    cwd: o.project, env, timeoutMs: RUN_TIMEOUT_MS,
  });
  return { code: r.code, stdout: r.stdout, stderr: r.timedOut ? `${r.stderr}\n[test] timed out; killed the process group\n` : r.stderr };
}

/** Runs a script of tool calls (then "done"); returns the run, the tool results in order, and the tools offered. */
export async function geminiSession(steps: GeminiScriptStep[], o: GeminiSessionOptions): Promise<{ run: GeminiRun; results: GeminiFunctionResponse[]; offered: string[] }> {
  const server = await startGeminiServer({ script: [...steps, { text: 'done' }] });
  try {
    const run = await runGemini(server.url, o);
    const first = server.requests.find((r) => r.main);
    const tools = (first?.body?.tools ?? []) as Array<{ functionDeclarations?: Array<{ name: string }> }>;
    return { run, results: server.functionResponses(), offered: tools.flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)) };
  } finally {
    await server.close();
  }
}

export const geminiRunInfo = (run: GeminiRun) => `exit ${run.code}; stderr: ${run.stderr.slice(-1500)}`;
export const responseText = (r: GeminiFunctionResponse | undefined) => JSON.stringify(r?.response ?? null);

/** What a person using Gemini CLI with an API key has in ~/.gemini/settings.json (with a comment, as people write it). */
export const GEMINI_OWN_SETTINGS = '{\n  // the person\'s own settings\n  "security": { "auth": { "selectedType": "gemini-api-key" } }\n}\n';

export interface GeminiScratch { root: string; home: string; project: string; auditLog: string; cleanup(): void }

/**
 * A scratch HOME with the person's own Gemini settings and the project folder trusted (in an untrusted folder
 * Gemini refuses headless runs, and runs no hooks at all), a git project, and ~/notes/keep.txt for the
 * destructive calls to aim at.
 */
export function geminiScratch(prefix: string): GeminiScratch {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  mkdirSync(join(home, 'notes'), { recursive: true });
  mkdirSync(join(project, '.git'), { recursive: true });
  writeFileSync(join(home, 'notes', 'keep.txt'), 'precious');
  writeFileSync(join(home, '.gemini', 'settings.json'), GEMINI_OWN_SETTINGS);
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));
  return {
    root, home, project, auditLog: join(root, 'audit.jsonl'),
    cleanup: () => {
      stopDaemonFor(home);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
