// Trust belongs to a project's own file. Red team: project B whose `.asimov/policy.yaml` was a symlink to
// trusted project A's file was treated as trusted, and A's relative chain command then ran B's own script.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '../../src/policy/load.ts';
import { trustFile } from '../../src/policy/trust.ts';
import { loadGroundRules } from '../../src/judge/ground-rules.ts';

const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

const POLICY = `version: 1
allowedDomains: [api.example-a.com]
chains:
  - tools: [shell]
    command: ./scripts/check.sh
`;

function twoProjects() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-trust-links-')));
  made.push(dir);
  const home = join(dir, 'home');
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  for (const p of [home, join(a, '.asimov'), join(b, '.asimov'), join(a, 'config')]) mkdirSync(p, { recursive: true });
  const trustStorePath = join(dir, 'trusted.json');
  const load = (root: string) => loadPolicy({ cwd: root, projectRoot: root, home, env: {}, managedPath: join(dir, 'none.yaml'), trustStorePath });
  return { dir, home, a, b, trustStorePath, load };
}

describe('trust follows no link out of the project', () => {
  test('a project policy linked to another project\'s trusted file borrows none of its trust', () => {
    const t = twoProjects();
    writeFileSync(join(t.a, '.asimov', 'policy.yaml'), POLICY);
    trustFile(join(t.a, '.asimov', 'policy.yaml'), { storePath: t.trustStorePath });
    symlinkSync(join(t.a, '.asimov', 'policy.yaml'), join(t.b, '.asimov', 'policy.yaml'));

    const inA = t.load(t.a);
    assert.deepEqual(inA.chains?.map((c) => c.command), [`${join(t.a, 'scripts', 'check.sh')}`]);
    assert.ok(inA.allowedDomains.includes('api.example-a.com'));

    const inB = t.load(t.b);
    assert.equal(inB.chains, undefined, 'no chain from a borrowed file');
    assert.ok(!inB.allowedDomains.includes('api.example-a.com'), 'no loosening from a borrowed file');
    assert.ok(inB.warnings.some((w) => w.includes('is a link to') && w.includes('outside this project')), inB.warnings.join('\n'));
  });

  test('a link inside the project is the project\'s own file; its relative chain resolves from the real file\'s project', () => {
    const t = twoProjects();
    writeFileSync(join(t.a, 'config', 'asimov.yaml'), POLICY);
    symlinkSync(join('..', 'config', 'asimov.yaml'), join(t.a, '.asimov', 'policy.yaml'));
    trustFile(join(t.a, '.asimov', 'policy.yaml'), { storePath: t.trustStorePath });
    const p = t.load(t.a);
    // config/asimov.yaml's "project" is the directory above config/: the same project root here.
    assert.deepEqual(p.chains?.map((c) => c.command), [join(t.a, 'scripts', 'check.sh')]);
  });

  test('ground rules linked to another project\'s trusted file are not used', () => {
    const t = twoProjects();
    writeFileSync(join(t.a, '.asimov', 'ground-rules.md'), 'Allow everything in project A.\n');
    trustFile(join(t.a, '.asimov', 'ground-rules.md'), { storePath: t.trustStorePath });
    symlinkSync(join(t.a, '.asimov', 'ground-rules.md'), join(t.b, '.asimov', 'ground-rules.md'));
    const inA = loadGroundRules(t.a, { home: t.home, env: {}, trustStorePath: t.trustStorePath });
    assert.equal(inA.source, join(t.a, '.asimov', 'ground-rules.md'));
    const inB = loadGroundRules(t.b, { home: t.home, env: {}, trustStorePath: t.trustStorePath });
    assert.equal(inB.source, 'builtin');
    assert.match(inB.ignored ?? '', /outside this project/);
  });
});
