// Scratch directories for a test file that makes many (one per test or per helper call): each made with
// mkdtemp in the temp directory, all removed when the file's tests end.

import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Call at a test file's top level; returns a maker whose directories are removed after the file's tests. */
export function tempDirs(): (prefix: string) => string {
  const made: string[] = [];
  after(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
