// The option tables that tell a program's operands (the files it reads or writes) from its options' values,
// checked against the real tools installed here: every short option listed as taking a value must make the tool
// ask for one. A flag listed by mistake swallows the file after it, and the read or write goes unseen
// (`tail -F .env` and `xxd -C notes.txt ~/.bashrc` were allowed that way). A tool that is not installed is skipped.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VALUE_OPTS } from '../../src/policy/rules/reads.ts';
import { GNU_WRITE_SPECS } from '../../src/policy/rules/writes.ts';

/** Tools whose "needs an argument" message is reliable (GNU coreutils, diffutils, sed, patch, util-linux…). */
const CHECKED = new Set([
  'head', 'tail', 'cut', 'fold', 'fmt', 'column', 'od', 'hexdump', 'hd', 'split', 'sort', 'uniq', 'diff', 'nl', 'shuf',
  'iconv', 'strings', 'base64', 'base32', 'basenc', 'pr', 'join', 'tac', 'gzip', 'xz', 'cp', 'install', 'ln', 'sed',
  'mkdir', 'patch', 'truncate', 'touch', 'shred', 'mkfifo', 'csplit',
]);
const NEEDS_VALUE = /requires an argument|option requires|missing argument|needs an argument|argument expected/i;

// A scratch directory as cwd and HOME: a tool given one option and no operand writes nothing, but if one did,
// it would be here.
const scratch = mkdtempSync(join(tmpdir(), 'asimov-option-tables-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function installed(prog: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${prog}`], { stdio: 'ignore' }).status === 0;
}

function asksForValue(prog: string, letter: string): { ok: boolean; said: string } {
  const r = spawnSync(prog, [`-${letter}`], { cwd: scratch, env: { PATH: process.env.PATH ?? '', HOME: scratch, LC_ALL: 'C' }, input: '', timeout: 5000, encoding: 'utf8' });
  const said = `${r.stderr ?? ''}${r.stdout ?? ''}`.split('\n').slice(0, 2).join(' ');
  return { ok: NEEDS_VALUE.test(said), said };
}

const tables: [string, string][] = [
  ...Object.entries(VALUE_OPTS).map(([p, letters]): [string, string] => [p, letters]),
  ...Object.entries(GNU_WRITE_SPECS).map(([p, spec]): [string, string] => [p, spec.shortWithValue ?? '']),
];

describe('every short option listed as taking a value takes one (checked against the installed tool)', () => {
  for (const [prog, letters] of tables) {
    if (!CHECKED.has(prog) || letters === '') continue;
    test(`${prog} -[${letters}]`, (t) => {
      if (!installed(prog)) {
        t.skip(`${prog} is not installed`);
        return;
      }
      const wrong = [...new Set(letters)].flatMap((l) => {
        const r = asksForValue(prog, l);
        return r.ok ? [] : [`-${l} (${r.said.slice(0, 80)})`];
      });
      assert.deepEqual(wrong, [], `${prog}: these take no value, so listing them hides the next operand`);
    });
  }
});
