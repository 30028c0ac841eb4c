// Every command that takes --cwd refuses one that names no directory (src/cli/cwd-option.ts), and the
// helper itself resolves a relative one against the directory asimov runs in.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cwdOption } from '../../src/cli/cwd-option.ts';
import { UsageError } from '../../src/cli/io.ts';
import { cliScratch, noStackTrace } from '../helpers/asimov-cli.ts';

const s = cliScratch('asimov-cwd-');

describe('cwdOption', () => {
  test('resolves a relative directory and passes an absent one through', () => {
    assert.equal(cwdOption('project', s.home), s.project);
    assert.equal(cwdOption(undefined, '/no/such/base'), '/no/such/base');
  });

  test('throws a UsageError for a missing path and for a file', () => {
    assert.throws(() => cwdOption('nope', s.home), (e) => e instanceof UsageError && /--cwd nope: no such directory/.test(e.message));
    assert.throws(() => cwdOption('/dev/null', s.home), (e) => e instanceof UsageError && /not a directory/.test(e.message));
  });
});

describe('--cwd on every command that takes it', () => {
  for (const args of [['check', '--', 'ls'], ['explain', '--', 'ls'], ['policy'], ['rules'], ['test'], ['trust', '--list'], ['doctor'], ['init']]) {
    test(`asimov ${args[0]} --cwd /nonexistent exits 1 with a usage error`, () => {
      const missing = join(s.root, 'nonexistent');
      const r = s.run([args[0]!, '--cwd', missing, ...args.slice(1)]);
      assert.equal(r.code, 1, `${r.out}${r.err}`);
      assert.match(r.err, /--cwd .*no such directory/);
      noStackTrace(r);
      assert.equal(existsSync(missing), false, 'the directory was created');
    });
  }
});
