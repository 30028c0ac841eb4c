// Unit tests of the shared pieces: CI expressions, the YAML line scan, shebangs, quoting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replaceExpressions, untrustedContext, variableFor } from '../../../src/content/deferred/ci-expr.ts';
import { scanYamlLines } from '../../../src/content/deferred/yaml-scan.ts';
import { argvLine, readShebang, shQuote } from '../../../src/content/deferred/util.ts';

test('expressions become shell variables', () => {
  assert.equal(variableFor('secrets.NPM_TOKEN'), 'NPM_TOKEN');
  assert.equal(variableFor(' github.event.issue.title '), 'GITHUB_EVENT_ISSUE_TITLE');
  assert.equal(variableFor("secrets['my-key']"), 'MY_KEY');
  assert.equal(variableFor('1 + 2'), '_1_2');
  assert.equal(replaceExpressions('echo ${{ a.b }} ${{ c }}d'), 'echo $A_B ${C}d');
  assert.equal(replaceExpressions('echo $(Build.SourceBranch) $(date) $[[ inputs.x ]]'), 'echo $BUILD_SOURCEBRANCH $(date) $INPUTS_X');
  assert.equal(replaceExpressions('echo ${{ unterminated'), 'echo ${{ unterminated');
});

test('untrusted contexts, spelled with brackets and wildcards', () => {
  assert.ok(untrustedContext("github.event['pull_request']['body']"));
  assert.ok(untrustedContext('github.event.commits[0].author.name'));
  assert.ok(untrustedContext('contains(github.event.comment.body, \'/deploy\') && github.event.comment.body'));
  assert.equal(untrustedContext('github.event.pull_request.head.sha'), null);
  assert.equal(untrustedContext('github.event.comment.id'), null);
});

test('line scan: block scalars with indicators, flow sequences, plain continuation, comments', () => {
  const text = [
    'a:',
    '  run: |2-',
    '      indented',
    '    two',
    'b:',
    '  script: [ "x, y", \'z\' , w ]',
    'c:',
    '  run: echo one',
    '    two # comment',
    '  script:',
    '  - first',
    '  - >',
    '    folded',
    '    text',
    '  - key: not-a-script-item',
    'd: {run: "flow", other: 1}',
  ].join('\n');
  assert.deepEqual(scanYamlLines(text, new Set(['run', 'script'])).map((h) => h.value), ['  indented\ntwo', 'x, y', 'z', 'w', 'echo one two', 'first', 'folded text', 'flow']);
});

test('shebangs: env -S, versions, a bare #!', () => {
  assert.equal(readShebang('#!/usr/bin/env -S python3.12 -u\n')?.interpreter, 'python');
  assert.equal(readShebang('#!/usr/bin/env VAR=1 node\n')?.interpreter, 'node');
  assert.equal(readShebang('#!/bin/dash\n')?.interpreter, 'sh');
  assert.equal(readShebang('#!\n')?.interpreter, 'sh');
  assert.equal(readShebang('#!/usr/bin/perl -w\n')?.interpreter, 'perl');
  assert.equal(readShebang('echo hi\n'), null);
});

test('quoting keeps words', () => {
  assert.equal(shQuote('plain-word_1.0'), 'plain-word_1.0');
  assert.equal(shQuote(''), "''");
  assert.equal(shQuote("it's"), `'it'\\''s'`);
  assert.equal(argvLine(['sh', '-c', 'a; b']), `sh -c 'a; b'`);
});
