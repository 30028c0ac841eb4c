// Whether a process a test started (or its grandchild) is still running: for the tests that check a timeout,
// an abort or a shell's exit really ended every process of a group.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

/** True once the process is gone (no such pid, or a zombie waiting for a reaper that is not us). */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits up to 10 s for the process to be gone, then fails the test if it is not. */
export async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 500 && !gone(pid); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(gone(pid), `process ${pid} is still alive`);
}

/** Waits (up to 10 s) for a pid a command wrote to a file. Waits for the whole line: the shell creates the file
 *  (the redirection) before `echo` writes to it, so a file that merely exists may still be empty. */
export async function readPidFile(file: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (text.endsWith('\n')) return Number(text.trim());
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${file} never held a pid`);
}
