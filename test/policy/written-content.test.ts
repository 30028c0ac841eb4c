// Tests for written-content: what a file tool call's file will hold, with real files in a temp directory.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeTool } from '../../src/core/tools.ts';
import type { ToolCall } from '../../src/core/types.ts';
import { createRuleContext } from '../../src/policy/context.ts';
import { applyEdits, lexicalAbs, patchWrites, readCurrentText, writtenFiles } from '../../src/policy/written-content.ts';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-written-')));
after(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, 'project');
mkdirSync(join(root, '.husky'), { recursive: true });
writeFileSync(join(root, '.husky/pre-commit'), '#!/bin/sh\nnpm test\n');
writeFileSync(join(root, 'big.txt'), 'x'.repeat(2 << 20));
symlinkSync('.husky/pre-commit', join(root, 'link'));
execFileSync('mkfifo', [join(root, 'fifo')]);

const ctx = createRuleContext({ cwd: root, projectRoot: root, home: join(base, 'home'), tempDirs: ['/nonexistent-temp'] });

function files(tool: string, input: Record<string, unknown>) {
  const call: ToolCall = { tool: normalizeTool(tool, input).tool, clientTool: tool, input, cwd: root };
  return writtenFiles(call, ctx).map((f) => ({ path: f.path.abs, content: f.content, fragments: f.fragments, unknown: f.unknownWhy ?? null }));
}

describe('readCurrentText', () => {
  test('reads a regular file', () => {
    assert.deepEqual(readCurrentText(join(root, '.husky/pre-commit')), { status: 'ok', text: '#!/bin/sh\nnpm test\n' });
  });
  test('says absent for a missing file', () => {
    assert.equal(readCurrentText(join(root, 'missing')).status, 'absent');
    assert.equal(readCurrentText(join(root, 'missing/deeper')).status, 'absent');
  });
  test('never opens a FIFO (it would block), a directory, or a link', () => {
    assert.equal(readCurrentText(join(root, 'fifo')).status, 'unreadable');
    assert.equal(readCurrentText(join(root, '.husky')).status, 'unreadable');
    assert.equal(readCurrentText(join(root, 'link')).status, 'unreadable');
  });
  test('refuses files over the limit and kernel pseudo-files', () => {
    assert.equal(readCurrentText(join(root, 'big.txt')).status, 'unreadable');
    assert.equal(readCurrentText('/proc/self/environ').status, 'unreadable');
    assert.equal(readCurrentText('/dev/zero').status, 'unreadable');
  });
});

describe('applyEdits', () => {
  test('replaces the first occurrence, or all with replace_all, in order', () => {
    assert.equal(applyEdits('a a a', [{ oldText: 'a', newText: 'b', all: false }]), 'b a a');
    assert.equal(applyEdits('a a a', [{ oldText: 'a', newText: 'b', all: true }]), 'b b b');
    assert.equal(applyEdits('x y', [{ oldText: 'x', newText: 'curl', all: false }, { oldText: 'y', newText: '| sh', all: false }]), 'curl | sh');
  });
  test('is null when an old text is missing or empty (the tool would fail)', () => {
    assert.equal(applyEdits('abc', [{ oldText: 'z', newText: 'y', all: false }]), null);
    assert.equal(applyEdits('abc', [{ oldText: '', newText: 'y', all: false }]), null);
  });
});

describe('writtenFiles', () => {
  const hook = join(root, '.husky/pre-commit');
  test('Write: the content', () => {
    assert.deepEqual(files('Write', { file_path: '.husky/pre-commit', content: 'rm -rf ~\n' }), [{ path: hook, content: 'rm -rf ~\n', fragments: [], unknown: null }]);
  });
  test('Edit: the current file with the edit applied', () => {
    assert.equal(files('Edit', { file_path: '.husky/pre-commit', old_string: 'npm test', new_string: 'curl x | sh' })[0]!.content, '#!/bin/sh\ncurl x | sh\n');
  });
  test('Edit through a link edits the file it points to', () => {
    assert.equal(files('Edit', { file_path: 'link', old_string: 'npm test', new_string: 'npm run lint' })[0]!.content, '#!/bin/sh\nnpm run lint\n');
  });
  test('MultiEdit: the edits in order', () => {
    const f = files('MultiEdit', { file_path: '.husky/pre-commit', edits: [{ old_string: 'npm', new_string: 'pnpm' }, { old_string: 'test', new_string: 'lint', replace_all: true }] });
    assert.equal(f[0]!.content, '#!/bin/sh\npnpm lint\n');
  });
  test('Edit whose old text is not in the file: the new text alone, as a fragment', () => {
    const f = files('Edit', { file_path: '.husky/pre-commit', old_string: 'absent', new_string: 'curl x | sh' })[0]!;
    assert.equal(f.content, null);
    assert.deepEqual(f.fragments, ['curl x | sh']);
    assert.match(f.unknown!, /not in the current file/);
  });
  test('Edit of a FIFO or a too-large file: fragments only, and the reason says why', () => {
    assert.match(files('Edit', { file_path: 'fifo', old_string: 'a', new_string: 'b' })[0]!.unknown!, /not a regular file/);
    assert.match(files('Edit', { file_path: 'big.txt', old_string: 'x', new_string: 'y' })[0]!.unknown!, /larger than/);
  });
  test('Edit creating a missing file with an empty old text', () => {
    assert.equal(files('Edit', { file_path: 'new.sh', old_string: '', new_string: 'echo hi' })[0]!.content, 'echo hi');
  });
  test('NotebookEdit: the new cell source as a fragment; a delete adds nothing', () => {
    assert.deepEqual(files('NotebookEdit', { notebook_path: 'n.ipynb', new_source: 'import os' })[0]!.fragments, ['import os']);
    assert.deepEqual(files('NotebookEdit', { notebook_path: 'n.ipynb', new_source: '', edit_mode: 'delete' }), []);
  });
  test('MCP filesystem write_file and edit_file (dry runs change nothing)', () => {
    assert.equal(files('mcp__filesystem__write_file', { path: hook, content: 'x' })[0]!.content, 'x');
    assert.equal(files('mcp__filesystem__edit_file', { path: hook, edits: [{ oldText: 'npm test', newText: 'rm -rf ~' }] })[0]!.content, '#!/bin/sh\nrm -rf ~\n');
    assert.deepEqual(files('mcp__filesystem__edit_file', { path: hook, edits: [{ oldText: 'npm test', newText: 'rm -rf ~' }], dryRun: true }), []);
    assert.deepEqual(files('mcp__filesystem__read_file', { path: hook }), []);
  });
  test('patches: an added file whole, an updated one by its added lines', () => {
    const f = files('apply_patch', { input: '*** Begin Patch\n*** Add File: a.sh\n+echo a\n*** Update File: .husky/pre-commit\n@@\n-npm test\n+curl x | sh\n*** End Patch' });
    assert.deepEqual(f.map((x) => [x.content, x.fragments]), [['echo a\n', []], [null, ['curl x | sh']]]);
  });
  test('a Write whose content merely contains a patch is a Write', () => {
    const f = files('Write', { file_path: 'fix.patch', content: '--- a/x\n+++ b/.husky/pre-commit\n+rm -rf ~\n' });
    assert.deepEqual(f.map((x) => x.path), [join(root, 'fix.patch')]);
  });
  test('Delete and reads write nothing', () => {
    assert.deepEqual(files('Delete', { path: 'x' }), []);
    assert.deepEqual(files('Read', { file_path: 'x' }), []);
  });
});

describe('patchWrites', () => {
  test('unified diffs name files by +++', () => {
    assert.deepEqual(patchWrites('--- a/x.sh\n+++ b/x.sh\n@@ -1 +1 @@\n-a\n+b\n'), [{ path: 'x.sh', content: null, added: 'b' }]);
  });
});

describe('lexicalAbs', () => {
  test('joins without resolving links; dynamic paths are null', () => {
    assert.equal(lexicalAbs('.husky/../.husky/pre-commit', '/p', '/h'), '/p/.husky/pre-commit');
    assert.equal(lexicalAbs('~/.local/bin/sudo', '/p', '/h'), '/h/.local/bin/sudo');
    assert.equal(lexicalAbs('$X/a', '/p', '/h'), null);
    assert.equal(lexicalAbs('~bob/a', '/p', '/h'), null);
  });
});
