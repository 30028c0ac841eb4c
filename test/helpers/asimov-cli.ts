// The built `asimov` binary run as a person runs it, for the CLI tests: a scratch HOME holding a project
// (a .git directory), the audit log inside the scratch, and the real exit code and output. The scratch is
// removed by the test file's `after`.

import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { shipperPid } from '../../src/audit/ship-state.ts';
import { processAlive } from '../../src/core/pid-lock.ts';

export const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');

export interface Run { code: number | null; out: string; err: string }

export interface RunOptions { input?: string | Buffer; cwd?: string; env?: Record<string, string> }

export interface CliScratch {
  /** The scratch directory (removed after the file's tests). */
  readonly root: string;
  readonly home: string;
  /** A project directory in HOME, with a .git directory; the default working directory. */
  readonly project: string;
  /** The environment every run gets (PATH, HOME, XDG dirs and the audit log in the scratch), before `env`. */
  baseEnv(): Record<string, string>;
  run(args: string[], o?: RunOptions): Run;
}

/** Registers before/after hooks that make and remove the scratch; call at a test file's top level. */
export function cliScratch(prefix = 'asimov-cli-'): CliScratch {
  const s = {
    root: '', home: '', project: '',
    baseEnv(): Record<string, string> {
      return {
        PATH: process.env.PATH ?? '',
        HOME: s.home,
        XDG_CONFIG_HOME: join(s.home, '.config'),
        XDG_CACHE_HOME: join(s.home, '.cache'),
        XDG_STATE_HOME: join(s.home, '.state'),
        ASIMOV_AUDIT_LOG: join(s.root, 'audit.jsonl'),
        ASIMOV_DAEMON: 'off',
      };
    },
    run(args: string[], o: RunOptions = {}): Run {
      const r = spawnSync(process.execPath, [BIN, ...args], {
        cwd: o.cwd ?? s.project,
        input: o.input ?? '',
        env: { ...s.baseEnv(), ...o.env },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: r.status, out: r.stdout, err: r.stderr };
    },
  };
  before(() => {
    assert.ok(existsSync(resolve(import.meta.dirname, '../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
    s.root = mkdtempSync(join(tmpdir(), prefix));
    s.home = join(s.root, 'home');
    s.project = join(s.home, 'project');
    mkdirSync(join(s.project, '.git'), { recursive: true });
  });
  after(async () => {
    // A hook run with `audit.remote` (or `audit.otlp`) set starts a background shipper that writes beside the
    // scratch's log: it is stopped before the scratch goes, or it races the removal.
    await stopShipper(join(s.root, 'audit.jsonl'));
    rmSync(s.root, { recursive: true, force: true });
  });
  return s;
}

/** Stops the background shipper of a log, if one runs, and waits (up to 5 s) until it has exited. */
export async function stopShipper(log: string): Promise<void> {
  const pid = shipperPid(log);
  if (pid === null) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
}

/** Fails when a run printed a stack trace. */
export function noStackTrace(r: Run): void {
  assert.doesNotMatch(r.out + r.err, /\n\s+at .+:\d+:\d+\)?\n/, 'a stack trace was printed');
  assert.doesNotMatch(r.err, /Unhandled 'error' event|EPIPE/);
}
