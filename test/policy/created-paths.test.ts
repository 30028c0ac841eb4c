// What a call would create inside the project, as the gate records it for the session: only paths that do not
// exist yet, the topmost missing directory of a deep path, nothing outside the project, nothing run-time.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathsCreatedBy, topmostMissing } from '../../src/policy/created-paths.ts';
import { createRuleContext } from '../../src/policy/context.ts';
import type { ToolCall } from '../../src/core/types.ts';

function scratch() {
  const root = mkdtempSync(join(tmpdir(), 'asimov-created-'));
  const home = join(root, 'home');
  const project = join(home, 'project');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'src', 'main.py'), 'print(1)\n');
  const ctx = () => createRuleContext({ cwd: project, projectRoot: project, home, tmpdir: join(root, 'tmp') });
  return { root, home, project, ctx, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

const sh = (command: string, cwd: string): ToolCall => ({ tool: 'shell', input: { command }, cwd });
const paths = (call: ToolCall, s: ReturnType<typeof scratch>) => pathsCreatedBy(call, s.ctx()).map((c) => `${c.path.slice(s.project.length + 1)}${c.dir ? '/' : ''}`).sort();

describe('pathsCreatedBy', () => {
  test('redirections, here-doc scripts, mkdir -p, touch, cp and mv destinations, a clone', () => {
    const s = scratch();
    try {
      assert.deepEqual(paths(sh("cat > repro.py <<'EOF'\nprint(1)\nEOF\npython repro.py", s.project), s), ['repro.py']);
      assert.deepEqual(paths(sh('mkdir -p out/a/b && touch notes.md', s.project), s), ['notes.md', 'out/']);
      assert.deepEqual(paths(sh('cp src/main.py backup.py; mv backup.py moved.py', s.project), s), ['backup.py', 'moved.py']);
      assert.deepEqual(paths(sh('git clone https://github.com/x/y.git vendor/y', s.project), s), ['vendor/']);
      assert.deepEqual(paths(sh('cd src && echo x > gen/out.txt', s.project), s), ['src/gen/']);
    } finally {
      s.cleanup();
    }
  });

  test('a Write of a new file, and of a file under new directories', () => {
    const s = scratch();
    try {
      const w = (file_path: string): ToolCall => ({ tool: 'write', input: { file_path, content: 'x' }, cwd: s.project });
      assert.deepEqual(paths(w(join(s.project, 'repro.py')), s), ['repro.py']);
      assert.deepEqual(paths(w(join(s.project, 'repro_app/models/user.py')), s), ['repro_app/']);
      assert.deepEqual(paths(w(join(s.project, 'src/main.py')), s), [], 'an existing file is not created');
    } finally {
      s.cleanup();
    }
  });

  test('nothing that exists, nothing outside the project, nothing known only at run time, nothing removed', () => {
    const s = scratch();
    try {
      assert.deepEqual(paths(sh('mkdir -p src && echo 1 > src/main.py', s.project), s), []);
      assert.deepEqual(paths(sh('mkdir ~/elsewhere ../sibling /tmp/x', s.project), s), []);
      assert.deepEqual(paths(sh('mkdir "$DIR" && echo > $(date +%s).log', s.project), s), []);
      assert.deepEqual(paths(sh('rm -rf gone', s.project), s), []);
      assert.deepEqual(paths(sh('mkdir .', s.project), s), [], 'the project root is never the session\'s');
      assert.deepEqual(paths({ tool: 'read', input: { file_path: join(s.project, 'new.txt') }, cwd: s.project }, s), []);
    } finally {
      s.cleanup();
    }
  });

  test('through a link out of the project, the real place is outside: not recorded', () => {
    const s = scratch();
    try {
      mkdirSync(join(s.home, 'Documents'));
      symlinkSync(join(s.home, 'Documents'), join(s.project, 'docs'));
      assert.deepEqual(paths(sh('mkdir docs/new', s.project), s), []);
    } finally {
      s.cleanup();
    }
  });

  test('topmostMissing stops at the first existing directory and never leaves the root', () => {
    const s = scratch();
    try {
      assert.equal(topmostMissing(join(s.project, 'a/b/c.txt'), s.project), join(s.project, 'a'));
      assert.equal(topmostMissing(join(s.project, 'src/x/y'), s.project), join(s.project, 'src/x'));
      assert.equal(topmostMissing(join(s.project, 'src'), s.project), null);
      assert.equal(topmostMissing(join(s.home, 'outside'), s.project), null);
    } finally {
      s.cleanup();
    }
  });
});
