// src/cli/args.ts: node's parseArgs errors said as asimov's usage errors, with the nearest option.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { parseError, parseOptions, unknownName } from '../../src/cli/args.ts';
import { UsageError } from '../../src/cli/io.ts';

const options = { json: { type: 'boolean' }, cwd: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

function messageOf(args: string[]): string {
  try {
    parseOptions({ args, options });
  } catch (e) {
    assert.ok(e instanceof UsageError, String(e));
    return e.message;
  }
  assert.fail('no error');
}

describe('parseOptions', () => {
  test('an unknown option names the nearest one, without node\'s advice about --', () => {
    assert.equal(messageOf(['--jsn']), 'unknown option --jsn (did you mean --json?)');
    assert.equal(messageOf(['--cdw=x']), 'unknown option --cdw (did you mean --cwd?)');
    assert.equal(messageOf(['--frobnicate']), 'unknown option --frobnicate');
  });

  test('a missing value, a value given to a flag and a stray argument', () => {
    assert.equal(messageOf(['--cwd']), '--cwd needs a value');
    assert.equal(messageOf(['--json=yes']), '--json takes no value');
    assert.equal(messageOf(['stray']), "unexpected argument 'stray': this command takes options only");
  });

  test('passes what parses', () => {
    assert.deepEqual({ ...parseOptions({ args: ['--json', '--cwd', 'x'], options }).values }, { json: true, cwd: 'x' });
  });
});

describe('parseError and unknownName', () => {
  test('without the options, only the wording changes; other errors are not parse errors', () => {
    let caught: unknown;
    try {
      parseArgs({ args: ['--jsn'], options });
    } catch (e) {
      caught = e;
    }
    assert.equal(parseError(caught)?.message, 'unknown option --jsn');
    assert.equal(parseError(new Error('boom')), null);
  });

  test('a mistyped name gets the nearest, a far one the list', () => {
    assert.equal(unknownName('audit command', 'tial', ['tail', 'stats', 'verify']).message, "unknown audit command 'tial' (did you mean 'tail'?)");
    assert.equal(unknownName('audit command', 'zzzzz', ['tail', 'stats', 'verify']).message, "unknown audit command 'zzzzz' (tail, stats, verify)");
  });
});
