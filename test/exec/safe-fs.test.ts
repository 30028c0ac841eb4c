// Link-safe file access of the gated tools: real files, real symlinks, and real races. Deterministic
// races use the afterCheck seam (between the path check and the first open); the loop tests race a
// separate process that swaps links in and out while the tools work. Both ways of opening are tested: through
// /proc/self/fd (Linux) and the portable fallback.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync,
  statSync, symlinkSync, unlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { safeEdit, safeRead, safeWrite, type SafeFsOptions } from '../../src/exec/safe-fs.ts';
import { canonicalRoots, type CheckedPath } from '../../src/exec/safe-path.ts';

const SECRET = 'outside secret: must never be written or read through the tools\n';

interface Scratch {
  base: string;
  proj: string;
  outside: string;
  secret: string;
  opts: (extra?: Partial<SafeFsOptions>) => SafeFsOptions;
  cleanup: () => void;
}

function scratch(procFd: boolean): Scratch {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-safe-fs-')));
  const proj = join(base, 'proj');
  const outside = join(base, 'outside');
  mkdirSync(proj);
  mkdirSync(outside);
  const secret = join(outside, 'secret.txt');
  writeFileSync(secret, SECRET);
  const roots = canonicalRoots([proj], proj);
  return {
    base, proj, outside, secret,
    opts: (extra = {}) => ({ cwd: proj, roots, procFd, ...extra }),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

function assertOutsideUntouched(s: Scratch, entries: string[] = ['secret.txt']): void {
  assert.equal(readFileSync(s.secret, 'utf8'), SECRET, 'the file outside was written');
  assert.deepEqual(readdirSync(s.outside).sort(), entries.sort(), 'something was created outside');
}

const changed = { code: 'path_changed' };

describe('read, write and edit', () => {
  test('write creates parent directories, replaces in place of the old file, keeps its permissions', () => {
    const s = scratch(true);
    try {
      const w = safeWrite('a/b/c.txt', 'one\n', s.opts());
      assert.deepEqual(w, { path: join(s.proj, 'a/b/c.txt'), created: true, bytes: 4 });
      assert.equal(readFileSync(join(s.proj, 'a/b/c.txt'), 'utf8'), 'one\n');
      chmodSync(join(s.proj, 'a/b/c.txt'), 0o640);
      const again = safeWrite(join(s.proj, 'a/b/c.txt'), 'two\n', s.opts());
      assert.equal(again.created, false);
      assert.equal(readFileSync(join(s.proj, 'a/b/c.txt'), 'utf8'), 'two\n');
      assert.equal(statSync(join(s.proj, 'a/b/c.txt')).mode & 0o777, 0o640);
      // No temp file is left behind.
      assert.deepEqual(readdirSync(join(s.proj, 'a/b')), ['c.txt']);
    } finally {
      s.cleanup();
    }
  });

  test('read: lines by offset and limit, the total, a byte cap, empty and missing files', () => {
    const s = scratch(true);
    try {
      writeFileSync(join(s.proj, 'f.txt'), 'l1\nl2\nl3\nl4\nl5');
      const all = safeRead('f.txt', s.opts());
      assert.equal(all.text, 'l1\nl2\nl3\nl4\nl5');
      assert.equal(all.totalLines, 5);
      assert.equal(all.more, false);
      const mid = safeRead('f.txt', { ...s.opts(), offset: 2, limit: 2 });
      assert.deepEqual([mid.text, mid.firstLine, mid.lastLine, mid.more], ['l2\nl3\n', 2, 3, true]);
      const past = safeRead('f.txt', { ...s.opts(), offset: 9 });
      assert.equal(past.text, '');
      assert.equal(past.lastLine < past.firstLine, true);
      const cut = safeRead('f.txt', { ...s.opts(), maxBytes: 4 });
      assert.deepEqual([cut.text, cut.cut], ['l1\nl', true]);
      writeFileSync(join(s.proj, 'empty.txt'), '');
      assert.equal(safeRead('empty.txt', s.opts()).size, 0);
      assert.throws(() => safeRead('nope.txt', s.opts()), { code: 'bad_input' });
      assert.throws(() => safeRead('f.txt', { ...s.opts(), offset: 0 }), { code: 'bad_input' });
    } finally {
      s.cleanup();
    }
  });

  test('read streams a large file: only the asked lines are kept', () => {
    const s = scratch(true);
    try {
      const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i + 1}`);
      writeFileSync(join(s.proj, 'big.txt'), lines.join('\n') + '\n');
      const r = safeRead('big.txt', { ...s.opts(), offset: 150_000, limit: 3 });
      assert.equal(r.text, 'line 150000\nline 150001\nline 150002\n');
      assert.equal(r.more, true);
      const tail = safeRead('big.txt', { ...s.opts(), offset: 199_999, limit: 10 });
      assert.equal(tail.text, 'line 199999\nline 200000\n');
      assert.equal(tail.totalLines, 200_000);
    } finally {
      s.cleanup();
    }
  });

  test('binary files, directories, FIFOs and devices are not read (and a FIFO never blocks)', () => {
    const s = scratch(true);
    try {
      writeFileSync(join(s.proj, 'bin.dat'), Buffer.from([1, 2, 0, 3]));
      assert.throws(() => safeRead('bin.dat', s.opts()), /binary/);
      mkdirSync(join(s.proj, 'd'));
      assert.throws(() => safeRead('d', s.opts()), /directory/);
      assert.throws(() => safeWrite('d', 'x', s.opts()), /directory/);
      const mk = spawnSync('mkfifo', [join(s.proj, 'fifo')]);
      assert.equal(mk.status, 0, 'mkfifo failed');
      assert.throws(() => safeRead('fifo', s.opts()), { code: 'path_refused' });
      assert.throws(() => safeWrite('fifo', 'x', s.opts()), { code: 'path_refused' });
    } finally {
      s.cleanup();
    }
  });

  test('edit: exactly one occurrence, or all with replace_all; clear errors otherwise, file untouched', () => {
    const s = scratch(true);
    try {
      const f = join(s.proj, 'e.txt');
      writeFileSync(f, 'alpha beta\nalpha gamma\n');
      assert.throws(() => safeEdit('e.txt', { oldString: 'alpha', newString: 'A' }, s.opts()), /occurs 2 times.*replace_all/);
      assert.throws(() => safeEdit('e.txt', { oldString: 'delta', newString: 'D' }, s.opts()), /not found/);
      assert.throws(() => safeEdit('e.txt', { oldString: 'beta', newString: 'beta' }, s.opts()), /same/);
      assert.throws(() => safeEdit('e.txt', { oldString: '', newString: 'x' }, s.opts()), /empty/);
      assert.equal(readFileSync(f, 'utf8'), 'alpha beta\nalpha gamma\n');
      // The replacement is literal: no `$&` patterns.
      assert.deepEqual(safeEdit('e.txt', { oldString: 'alpha beta', newString: '$& $1' }, s.opts()).replacements, 1);
      assert.equal(readFileSync(f, 'utf8'), '$& $1\nalpha gamma\n');
      assert.equal(safeEdit('e.txt', { oldString: 'a', newString: 'o', replaceAll: true }, s.opts()).replacements, 4);
      assert.equal(readFileSync(f, 'utf8'), '$& $1\nolpho gommo\n');
      writeFileSync(join(s.proj, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      assert.throws(() => safeEdit('latin1.txt', { oldString: 'caf', newString: 'x' }, s.opts()), /not UTF-8/);
    } finally {
      s.cleanup();
    }
  });

  test('a hard link to a file outside: write and edit replace the name, the outside file keeps its content', () => {
    const s = scratch(true);
    try {
      linkSync(s.secret, join(s.proj, 'hard.txt'));
      safeWrite('hard.txt', 'new content\n', s.opts());
      assert.equal(readFileSync(join(s.proj, 'hard.txt'), 'utf8'), 'new content\n');
      assertOutsideUntouched(s);
      linkSync(s.secret, join(s.proj, 'hard2.txt'));
      safeEdit('hard2.txt', { oldString: 'outside secret', newString: 'edited' }, s.opts());
      assert.match(readFileSync(join(s.proj, 'hard2.txt'), 'utf8'), /^edited/);
      assertOutsideUntouched(s);
    } finally {
      s.cleanup();
    }
  });

  test('symlinks at the leaf and symlinked parents pointing outside are refused before anything is opened', () => {
    const s = scratch(true);
    try {
      symlinkSync(s.secret, join(s.proj, 'leaf'));
      symlinkSync(s.outside, join(s.proj, 'out'));
      assert.throws(() => safeWrite('leaf', 'x', s.opts()), { code: 'path_refused' });
      assert.throws(() => safeEdit('leaf', { oldString: 'outside', newString: 'x' }, s.opts()), { code: 'path_refused' });
      assert.throws(() => safeRead('leaf', s.opts()), { code: 'path_refused' });
      assert.throws(() => safeWrite('out/new.txt', 'x', s.opts()), { code: 'path_refused' });
      assert.throws(() => safeRead('out/secret.txt', s.opts()), { code: 'path_refused' });
      assert.throws(() => safeWrite('../outside/new.txt', 'x', s.opts()), { code: 'path_refused' });
      assertOutsideUntouched(s);
    } finally {
      s.cleanup();
    }
  });
});

for (const procFd of [true, false]) {
  describe(`a swap between check and open (${procFd ? '/proc/self/fd' : 'portable fallback'})`, () => {
    /** Runs `op` with `swap` executed right after the path check. */
    const raced = (s: Scratch, swap: (c: CheckedPath) => void) => s.opts({ afterCheck: swap });

    test('write: the existing file becomes a symlink to a file outside', () => {
      const s = scratch(procFd);
      try {
        const f = join(s.proj, 'f.txt');
        writeFileSync(f, 'original\n');
        assert.throws(() => safeWrite('f.txt', 'attacker-chosen\n', raced(s, () => {
          unlinkSync(f);
          symlinkSync(s.secret, f);
        })), changed);
        assertOutsideUntouched(s);
        assert.ok(lstatSync(f).isSymbolicLink());
        assert.deepEqual(readdirSync(s.proj), ['f.txt'], 'a temp file was left behind');
      } finally {
        s.cleanup();
      }
    });

    test('write: a symlink appears where a new file was to be created', () => {
      const s = scratch(procFd);
      try {
        const f = join(s.proj, 'new.txt');
        assert.throws(() => safeWrite('new.txt', 'x', raced(s, () => symlinkSync(s.secret, f))), changed);
        assertOutsideUntouched(s);
      } finally {
        s.cleanup();
      }
    });

    test('read: the file becomes a symlink, or another file, before it is opened', () => {
      const s = scratch(procFd);
      try {
        const f = join(s.proj, 'f.txt');
        writeFileSync(f, 'original\n');
        assert.throws(() => safeRead('f.txt', raced(s, () => {
          unlinkSync(f);
          symlinkSync(s.secret, f);
        })), changed);
        unlinkSync(f);
        writeFileSync(f, 'original\n');
        writeFileSync(join(s.proj, 'other.txt'), 'another file\n');
        assert.throws(() => safeRead('f.txt', raced(s, () => renameSync(join(s.proj, 'other.txt'), f))), changed);
      } finally {
        s.cleanup();
      }
    });

    test('edit: the file becomes a symlink to a file outside', () => {
      const s = scratch(procFd);
      try {
        const f = join(s.proj, 'f.txt');
        writeFileSync(f, 'outside secret\n');
        assert.throws(() => safeEdit('f.txt', { oldString: 'outside secret', newString: 'pwned' }, raced(s, () => {
          unlinkSync(f);
          symlinkSync(s.secret, f);
        })), changed);
        assertOutsideUntouched(s);
      } finally {
        s.cleanup();
      }
    });

    test('write: the parent directory is replaced by a symlink to a directory outside', () => {
      const s = scratch(procFd);
      try {
        mkdirSync(join(s.proj, 'sub'));
        assert.throws(() => safeWrite('sub/f.txt', 'x', raced(s, () => {
          renameSync(join(s.proj, 'sub'), join(s.proj, 'sub.away'));
          symlinkSync(s.outside, join(s.proj, 'sub'));
        })), changed);
        assertOutsideUntouched(s);
      } finally {
        s.cleanup();
      }
    });

    test('write: a grandparent is replaced by a symlink to an outside tree of the same shape', () => {
      const s = scratch(procFd);
      try {
        mkdirSync(join(s.proj, 'a/b'), { recursive: true });
        mkdirSync(join(s.outside, 'b'));
        assert.throws(() => safeWrite('a/b/f.txt', 'x', raced(s, () => {
          renameSync(join(s.proj, 'a'), join(s.proj, 'a.away'));
          symlinkSync(s.outside, join(s.proj, 'a'));
        })), changed);
        assertOutsideUntouched(s, ['secret.txt', 'b']);
        assert.deepEqual(readdirSync(join(s.outside, 'b')), []);
      } finally {
        s.cleanup();
      }
    });

    test('write: a directory still to be created appears as a symlink to outside', () => {
      const s = scratch(procFd);
      try {
        assert.throws(() => safeWrite('new/deeper/f.txt', 'x', raced(s, () => symlinkSync(s.outside, join(s.proj, 'new')))), changed);
        assertOutsideUntouched(s);
      } finally {
        s.cleanup();
      }
    });
  });
}

/** A separate process that swaps `target` between a regular file and a symlink to `secret` until told to stop. */
const LEAF_SWAPPER = `
import { renameSync, symlinkSync, writeFileSync, existsSync, unlinkSync } from 'node:fs';
const [target, secret, stop, ready] = process.argv.slice(2);
let n = 0;
for (;;) {
  try { unlinkSync(target + '.l'); } catch {}
  symlinkSync(secret, target + '.l');
  renameSync(target + '.l', target);
  writeFileSync(target + '.r', 'target-line\\n');
  renameSync(target + '.r', target);
  if (++n === 10) writeFileSync(ready, 'x');
  if (n % 16 === 0 && existsSync(stop)) break;
}
process.stdout.write(String(n));
`;

/**
 * Swaps directory `dir` out for a symlink to `outside` and back, until told to stop. The tools may recreate `dir`
 * (a write creates missing parents) while it is away: whatever is in the way is removed.
 */
const DIR_SWAPPER = `
import { renameSync, rmSync, symlinkSync, writeFileSync, existsSync, unlinkSync } from 'node:fs';
const [dir, outside, stop, ready] = process.argv.slice(2);
const forced = (f) => {
  for (;;) {
    try { return f(); } catch { try { rmSync(dir, { recursive: true, force: true }); } catch {} }
  }
};
let n = 0;
for (;;) {
  renameSync(dir, dir + '.away');
  forced(() => symlinkSync(outside, dir));
  unlinkSync(dir);
  forced(() => renameSync(dir + '.away', dir));
  if (++n === 10) writeFileSync(ready, 'x');
  if (n % 16 === 0 && existsSync(stop)) break;
}
process.stdout.write(String(n));
`;

async function withSwapper(s: Scratch, script: string, args: string[], body: () => void): Promise<number> {
  const file = join(s.base, 'swapper.mjs');
  writeFileSync(file, script);
  const stop = join(s.base, 'stop');
  const ready = join(s.base, 'ready');
  const child = spawn(process.execPath, [file, ...args, stop, ready], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 5));
  try {
    body();
  } finally {
    writeFileSync(stop, '');
    assert.equal(await exited, 0, 'the swapper failed');
  }
  return Number(out);
}

const ALLOWED_FAILURES = new Set(['path_changed', 'path_refused', 'bad_input']);

for (const procFd of [true, false]) {
  test(`while a link is swapped in and out ${procFd ? '' : '(portable fallback) '}hundreds of times, nothing outside is written or read`, async (t) => {
    const s = scratch(procFd);
    try {
      const target = join(s.proj, 'f.txt');
      writeFileSync(target, 'target-line\n');
      const outcomes: Record<string, number> = {};
      const count = (k: string) => (outcomes[k] = (outcomes[k] ?? 0) + 1);
      const swaps = await withSwapper(s, LEAF_SWAPPER, [target, s.secret], () => {
        for (let i = 0; i < 300; i++) {
          for (const op of ['write', 'edit', 'read'] as const) {
            try {
              if (op === 'write') safeWrite('f.txt', `written ${i}\n`, s.opts());
              else if (op === 'edit') safeEdit('f.txt', { oldString: 'target-line', newString: 'edited-line' }, s.opts());
              else assert.notEqual(safeRead('f.txt', s.opts()).text, SECRET, 'the secret was read through the link');
              count(`${op}:ok`);
            } catch (e) {
              const code = (e as { code?: string }).code ?? String(e);
              assert.ok(ALLOWED_FAILURES.has(code), `${op} failed unexpectedly: ${String(e)}`);
              count(`${op}:${code}`);
            }
          }
          assert.equal(readFileSync(s.secret, 'utf8'), SECRET, 'the file outside was written');
        }
      });
      assert.ok(swaps >= 10);
      assertOutsideUntouched(s);
      t.diagnostic(`swaps ${swaps}; ${JSON.stringify(outcomes)}`);
    } finally {
      s.cleanup();
    }
  });
}

test('while the parent directory is swapped for a link to outside, nothing is created or written outside', async (t) => {
  const s = scratch(true);
  try {
    const dir = join(s.proj, 'd');
    mkdirSync(dir);
    writeFileSync(join(s.outside, 'f.txt'), SECRET);
    const outcomes: Record<string, number> = {};
    const swaps = await withSwapper(s, DIR_SWAPPER, [dir, s.outside], () => {
      for (let i = 0; i < 500; i++) {
        let k = 'ok';
        try {
          safeWrite('d/f.txt', `written ${i}\n`, s.opts());
        } catch (e) {
          k = (e as { code?: string }).code ?? String(e);
          assert.ok(ALLOWED_FAILURES.has(k), `write failed unexpectedly: ${String(e)}`);
        }
        outcomes[k] = (outcomes[k] ?? 0) + 1;
      }
    });
    assert.ok(swaps >= 10);
    t.diagnostic(`swaps ${swaps}; ${JSON.stringify(outcomes)}`);
    assert.equal(readFileSync(join(s.outside, 'f.txt'), 'utf8'), SECRET);
    assertOutsideUntouched(s, ['secret.txt', 'f.txt']);
  } finally {
    s.cleanup();
  }
});
