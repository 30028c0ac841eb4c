// `asimov check` as a person or a script runs it (the built binary): --batch keeps one output line per
// input line and says it is Layer 1 only; --tool without --input and a --cwd that is no directory are
// usage errors, not decisions.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cliScratch, noStackTrace } from '../helpers/asimov-cli.ts';

const s = cliScratch('asimov-check-');

interface Line { verdict: string; tier: string; rule: string | null; reason: string }

describe('asimov check --batch', () => {
  test('a blank line gets a deny line of its own, so output line N answers input line N', () => {
    const call = (command: string): string => JSON.stringify({ tool_name: 'Bash', tool_input: { command } });
    const input = [call('git status'), '', call('rm -rf ~'), '   ', '\r', call('ls'), ''].join('\n');
    const r = s.run(['check', '--batch'], { input });
    assert.equal(r.code, 0, r.err);
    const out = r.out.split('\n').slice(0, -1).map((l) => JSON.parse(l) as Line);
    // Seven lines in: the last is empty only because the input ends with a newline, so six lines.
    assert.deepEqual(out.map((o) => o.verdict), ['allow', 'deny', 'deny', 'deny', 'deny', 'allow']);
    for (const i of [1, 3, 4]) assert.match(out[i]!.reason, /empty/);
    assert.equal(out[2]!.tier, 'hard_deny');
  });

  test('says on stderr, once, that it decides by the static policy alone, and at the end the mean time per decision', () => {
    const line = `${JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'ls' } })}\n`;
    const r = s.run(['check', '--batch'], { input: line.repeat(3) });
    assert.equal(r.code, 0);
    const err = r.err.trim().split('\n');
    assert.equal(err.length, 2, r.err);
    assert.match(err[0]!, /Layer 1 only/);
    assert.match(err[0]!, /judge/);
    assert.match(err[1]!, /^asimov check --batch: 3 decisions: mean [\d.]+ [µm]s, median [\d.]+ [µm]s, p99 /);
    assert.equal(r.out.trim().split('\n').length, 3);
  });

});

describe('asimov check usage errors', () => {
  test('--tool Write (or Read, Edit, Bash) without --input is a usage error naming --input', () => {
    for (const tool of ['Write', 'Read', 'Edit', 'Bash', 'WebFetch']) {
      const r = s.run(['check', '--tool', tool]);
      assert.equal(r.code, 1, `${tool}: ${r.out}${r.err}`);
      assert.equal(r.out, '');
      assert.match(r.err, new RegExp(`--tool ${tool} needs --input`));
      assert.doesNotMatch(r.err, /no rule for/);
      noStackTrace(r);
    }
  });

  test('a tool that needs no arguments may go without --input', () => {
    assert.equal(s.run(['check', '--tool', 'TodoWrite']).code, 0);
  });

  test('--cwd that is not a directory is a usage error, with --batch too', () => {
    for (const args of [['check', '--cwd', '/nonexistent/asimov', '--', 'ls'], ['check', '--cwd', join(s.project, 'nope'), '--batch'], ['check', '--cwd', '/dev/null', '--', 'ls']]) {
      const r = s.run(args, { input: '{"tool_name":"Bash","tool_input":{"command":"ls"}}\n' });
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.out}${r.err}`);
      assert.equal(r.out, '');
      assert.match(r.err, /--cwd .*(no such directory|not a directory)/);
      noStackTrace(r);
    }
  });

  test('--cwd naming a directory is used', () => {
    assert.equal(s.run(['check', '--cwd', s.home, '--', 'git status']).code, 0);
  });
});
