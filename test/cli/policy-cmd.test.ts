// `asimov policy`: readable by default (the layers as a table, sections with headings, the judge, chains
// and hook approvals), and --json with the same facts for machines.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliScratch } from '../helpers/asimov-cli.ts';

const s = cliScratch('asimov-policy-');

/** A user policy with a judge, a tier and a chain, and an untrusted project policy. */
function policies(): string {
  const user = join(s.home, '.config', 'asimov');
  mkdirSync(user, { recursive: true });
  writeFileSync(join(user, 'policy.yaml'), 'version: 1\njudge:\n  provider: openai\n  model: gpt-test\nrules:\n  git.push-default-branch: hard_deny\nchains:\n  - command: "true"\n    tools: [shell]\ntools:\n  hookApprovals: false\n');
  const project = join(s.home, 'with-policy');
  mkdirSync(join(project, '.asimov'), { recursive: true });
  mkdirSync(join(project, '.git'));
  writeFileSync(join(project, '.asimov', 'policy.yaml'), 'version: 1\nrules:\n  net.pipe-to-shell: hard_deny\n');
  return project;
}

describe('asimov policy', () => {
  test('with no policy file: the built-in layer, the judge off and why, hook approvals on', () => {
    const r = s.run(['policy']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Layers \(lowest first\)\n {2}KIND +PATH +TRUSTED +CHANGES\n {2}builtin +builtin:recommended +yes +\d+ built-in rules$/m);
    assert.match(r.out, /^Judge .*\n {2}off\n {2}why: the policy has no judge: section/m);
    assert.match(r.out, /^Chains .*\n {2}none$/m);
    assert.match(r.out, /^Hook approvals .*\n {2}on: the default/m);
    assert.doesNotMatch(r.out, /\{"/, 'JSON in the readable output');
    assert.doesNotMatch(r.out, /\x1b\[/, 'colour into a pipe');
  });

  test('each layer with its trust and what it changes; the judge on with provider, model and why; the chains', () => {
    const dir = policies();
    const r = s.run(['policy'], { cwd: dir });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^ {2}user +~\/\.config\/asimov\/policy\.yaml +yes +1 tier set, 1 chain$/m);
    assert.match(r.out, /^ {2}project +~\/with-policy\/\.asimov\/policy\.yaml +no +1 tier set, its loosening is ignored until `asimov trust`$/m);
    assert.match(r.out, /^ {4}git\.push-default-branch +hard_deny +user ~\/\.config\/asimov\/policy\.yaml$/m);
    assert.match(r.out, /^ {2}on: openai gpt-test; when unsure: ask\n {2}why: the policy's judge: section$/m);
    assert.match(r.out, /^ {2}shell +5000 ms +~\/\.config\/asimov\/policy\.yaml +true$/m);
    assert.match(r.out, /^ {2}off: tools\.hookApprovals: false/m);
    const off = s.run(['policy'], { cwd: dir, env: { GATE_CHECK: 'false' } });
    assert.match(off.out, /^ {2}off\n {2}why: GATE_CHECK=false \(over the policy's judge: section\)$/m);
  });

  test('colour when asked for (FORCE_COLOR), none with NO_COLOR', () => {
    assert.match(s.run(['policy'], { env: { FORCE_COLOR: '1' } }).out, /\x1b\[1mLayers/);
    assert.doesNotMatch(s.run(['policy'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } }).out, /\x1b\[/);
  });

  test('--json carries the same facts', () => {
    const dir = join(s.home, 'with-policy');
    const r = s.run(['policy', '--json'], { cwd: dir });
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as {
      judgeOn: boolean; judgeState: { provider: string; model: string; why: string };
      layers: { layer: string; trusted: boolean; changes: string[] }[]; hookApprovals: { on: boolean }; chains: unknown[];
    };
    assert.equal(j.judgeOn, true);
    assert.equal(j.judgeState.provider, 'openai');
    assert.equal(j.judgeState.model, 'gpt-test');
    assert.deepEqual(j.layers.map((l) => [l.layer, l.trusted]), [['builtin', true], ['user', true], ['project', false]]);
    assert.deepEqual(j.layers[1]!.changes, ['1 tier set', '1 chain']);
    assert.equal(j.hookApprovals.on, false);
    assert.equal(j.chains.length, 1);
    assert.equal(JSON.parse(s.run(['policy', '--json'], { cwd: dir, env: { GATE_CHECK: 'off' } }).out).judgeOn, false);
  });
});
