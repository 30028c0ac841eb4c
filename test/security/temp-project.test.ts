// Red team: a project that lies under a temp directory (/tmp/work/repo: scratch clones, CI checkouts, sandboxes)
// was both `project` and `temp` to the path rules, and fs.rm-temp won: removing its history or the whole
// project was "removing temporary files". Fixed (the deepest root wins); a regression test. Decided through
// the gate only: nothing here runs a shell.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate } from '../../src/gate/gate.ts';

test(
  'FINDING: in a project under /tmp, `rm -rf .git`, `rm -rf .` and `rm -rf src` are allowed as temp files',
  async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-rt-tmpproj-')));
    try {
      const home = join(root, 'home');
      const project = join(root, 'work', 'repo');
      mkdirSync(join(project, '.git'), { recursive: true });
      mkdirSync(home, { recursive: true });
      const gate = createGate({
        home, env: { HOME: home }, audit: false,
        managedPolicyPath: join(root, 'm.yaml'), userPolicyPath: join(root, 'u.yaml'), trustStorePath: join(root, 't.json'),
      });
      const allowed: string[] = [];
      for (const command of ['rm -rf .git', 'rm -rf .', 'rm -rf src', `rm -rf ${project}`]) {
        const d = await gate.decide({ tool: 'shell', clientTool: 'Bash', input: { command }, cwd: project }, { personAvailable: true });
        if (d.verdict === 'allow') allowed.push(`${command} [${d.rule}]`);
      }
      assert.deepEqual(allowed, [], allowed.join('\n'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);
