// `asimov explain` says that it shows Layer 1 only, and whether the judge that `asimov check` would
// consult is on; a --cwd that is not a directory is a usage error.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliScratch, noStackTrace } from '../helpers/asimov-cli.ts';

const s = cliScratch('asimov-explain-');

describe('asimov explain', () => {
  test('says it is Layer 1 only, with the judge off', () => {
    const r = s.run(['explain', '--', 'frobnicate --all']);
    assert.equal(r.code, 3);
    assert.match(r.out, /^Layer 1 only: the judge \(off here\) is not consulted by explain; `asimov check` applies it\.$/m);
  });

  test('says the judge is on, and would review this call, when GATE_CHECK turns it on', () => {
    const r = s.run(['explain', '--', 'frobnicate --all'], { env: { GATE_CHECK: 'true' } });
    assert.match(r.out, /^Layer 1 only: the judge \(on here, and it would review this call\)/m);
  });

  test('--cwd that is not a directory, and --tool without --input, are usage errors', () => {
    for (const args of [['explain', '--cwd', '/nonexistent/asimov', '--', 'ls'], ['explain', '--tool', 'Write']]) {
      const r = s.run(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.out}${r.err}`);
      assert.equal(r.out, '');
      noStackTrace(r);
    }
  });
});
