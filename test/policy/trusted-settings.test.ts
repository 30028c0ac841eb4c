// The policy keys `chains:`, `mcp:` and `tools:`: their schema and messages, their resolution (paths,
// defaults), and trust: they count only from the user, managed and trusted project files.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AsimovError } from '../../src/core/errors.ts';
import { loadPolicy } from '../../src/policy/load.ts';
import type { LoadOptions } from '../../src/policy/load.ts';
import { trustFile } from '../../src/policy/trust.ts';
import { CHAIN_KEYS, MCP_KEYS, TOOLS_KEYS, TOP_LEVEL_KEYS, schemas } from '../../src/policy/schema.ts';
import { resolveChainCommand, resolveRoots } from '../../src/policy/trusted-settings.ts';
import { STARTER_POLICY, starterPolicyWithExamples } from '../../src/policy/starter.ts';

const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

function fixture() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-settings-')));
  made.push(dir);
  const root = join(dir, 'project');
  const home = join(dir, 'home');
  mkdirSync(join(root, '.asimov'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const trustStorePath = join(dir, 'trusted.json');
  const files = {
    project: join(root, '.asimov', 'policy.yaml'),
    user: join(home, '.config', 'asimov', 'policy.yaml'),
    managed: join(dir, 'etc', 'asimov', 'policy.yaml'),
  };
  const write = (layer: keyof typeof files, text: string) => {
    mkdirSync(dirname(files[layer]), { recursive: true });
    writeFileSync(files[layer], text);
    return files[layer];
  };
  const load = (extra: Partial<LoadOptions> = {}) => loadPolicy({ cwd: root, home, managedPath: files.managed, trustStorePath, env: {}, ...extra });
  const trust = () => trustFile(files.project, { storePath: trustStorePath });
  return { dir, root, home, files, write, load, trust };
}

/** The error loading throws, as `file:line:col: key: message`. */
function loadError(load: () => unknown): string {
  try {
    load();
  } catch (e) {
    assert.ok(e instanceof AsimovError, String(e));
    assert.equal(e.code, 'policy_schema_error', String(e));
    return e.toString();
  }
  assert.fail('the policy loaded, but it should not have');
}

const FULL = `version: 1
chains:
  - tools: [shell]
    command: ./scripts/check-command.sh --strict
    timeoutMs: 2000
    optional: false
  - tools: write
    command: ~/bin/check-write
  - tools: [all]
    command: jq -e . > /dev/null
    optional: true
mcp:
  shellTools: [run_command_custom]
  roots: [~/shared-data, data, "file:///srv/corpus"]
tools:
  env: [GITHUB_TOKEN]
  roots: [~/other-repo]
  timeoutMs: 120000
  maxOutputBytes: 1048576
`;

describe('chains, mcp and tools: a valid file', () => {
  test('loads with defaults filled, ~ expanded and relative paths resolved', () => {
    const { write, load, home, root } = fixture();
    const f = write('user', FULL);
    const p = load();
    assert.deepEqual(p.chains, [
      { tools: ['shell'], command: `${root}/scripts/check-command.sh --strict`, timeoutMs: 2000, optional: false, source: f },
      { tools: ['write'], command: `${home}/bin/check-write`, timeoutMs: 5000, optional: false, source: f },
      { tools: ['all'], command: 'jq -e . > /dev/null', timeoutMs: 5000, optional: true, source: f },
    ]);
    assert.deepEqual(p.mcp, { shellTools: ['run_command_custom'], roots: [join(home, 'shared-data'), join(root, 'data'), '/srv/corpus'] });
    assert.deepEqual(p.gatedTools, { env: ['GITHUB_TOKEN'], roots: [join(home, 'other-repo')], timeoutMs: 120000, maxOutputBytes: 1048576, hookApprovals: true });
    assert.deepEqual(p.warnings, []);
  });

  test('absent keys leave the settings absent; a bare `tools:` section gets the defaults', () => {
    const { write, load } = fixture();
    write('user', 'version: 1\n');
    const p = load();
    assert.equal(p.chains, undefined);
    assert.equal(p.mcp, undefined);
    assert.equal(p.gatedTools, undefined);
    write('user', 'version: 1\ntools:\n  env: [GITHUB_TOKEN]\nmcp: {}\n');
    const q = load();
    assert.deepEqual(q.gatedTools, { env: ['GITHUB_TOKEN'], roots: [], timeoutMs: 120000, maxOutputBytes: 1048576, hookApprovals: true });
    assert.deepEqual(q.mcp, { shellTools: [], roots: [] });
  });

  test('a relative chain command is resolved against the declaring file\'s project; others are left as written', () => {
    const base = '/w/proj';
    assert.equal(resolveChainCommand('./check.sh', base, '/h'), '/w/proj/check.sh');
    assert.equal(resolveChainCommand('  scripts/check.sh  --a "b c"  ', base, '/h'), '/w/proj/scripts/check.sh  --a "b c"');
    assert.equal(resolveChainCommand('../shared/check', base, '/h'), '/w/shared/check');
    assert.equal(resolveChainCommand('~/bin/check', base, '/h'), '/h/bin/check');
    for (const kept of ['check-command', '/usr/local/bin/check', '"./quoted.sh"', 'FOO=1 ./x.sh', '~other/bin/x', 'jq -e .']) {
      assert.equal(resolveChainCommand(kept, base, '/h'), kept, kept);
    }
    // A path with characters the shell would read specially is quoted once made absolute.
    assert.equal(resolveChainCommand('./x.sh', "/w/it's", '/h'), `'/w/it'\\''s/x.sh'`);
    assert.deepEqual(resolveRoots(['~', '~/a', 'b', '/c/../d', pathToFileURL('/e f').href], base, '/h'), ['/h', '/h/a', '/w/proj/b', '/d', '/e f']);
  });

  test('the key lists used for suggestions are exactly the schema\'s keys', () => {
    const s = schemas();
    assert.deepEqual([...TOP_LEVEL_KEYS].sort(), Object.keys(s.policySchema.shape).sort());
    assert.deepEqual([...CHAIN_KEYS].sort(), Object.keys(s.chainSchema.shape).sort());
    assert.deepEqual([...MCP_KEYS].sort(), Object.keys(s.mcpSchema.shape).sort());
    assert.deepEqual([...TOOLS_KEYS].sort(), Object.keys(s.toolsSchema.shape).sort());
  });

  test('the starter policy explains the three keys, and its examples load', () => {
    for (const key of ['chains', 'mcp', 'tools']) assert.match(STARTER_POLICY, new RegExp(`^# ${key}: \\S`, 'm'), key);
    const { write, load, root } = fixture();
    write('user', starterPolicyWithExamples());
    const p = load();
    assert.equal(p.chains?.[0]?.command, `${root}/scripts/check-command.sh`);
    assert.ok(p.mcp && p.gatedTools);
  });
});

describe('chains, mcp and tools: errors name file, line, column and key', () => {
  test('a misspelt key, with did-you-mean, at every level', () => {
    const { write, load } = fixture();
    let f = write('user', 'version: 1\nchain:\n  - tools: [shell]\n    command: x\n');
    assert.equal(loadError(load), `${f}:2:1: chain: unknown key "chain" (did you mean "chains"?)`);
    f = write('user', 'version: 1\nchains:\n  - tools: [shell]\n    comand: ./x.sh\n');
    const e = loadError(load);
    assert.ok(e.includes(`${f}:4:5: chains[0].comand: unknown key "comand" (did you mean "command"?)`), e);
    f = write('user', 'version: 1\ntools:\n  evn: [GITHUB_TOKEN]\n');
    assert.equal(loadError(load), `${f}:3:3: tools.evn: unknown key "evn" (did you mean "env"?)`);
    f = write('user', 'version: 1\nmcp:\n  shell_tools: [x]\n');
    assert.equal(loadError(load), `${f}:3:3: mcp.shell_tools: unknown key "shell_tools" (did you mean "shellTools"?)`);
    f = write('user', 'version: 1\nchains:\n  - tools: [shel]\n    command: x\n');
    assert.match(loadError(load), new RegExp(`^${f}:3:13: chains\\[0\\]\\.tools\\[0\\]: the text "shel" is not one of shell, write, edit, read, fetch, search, mcp, all \\(did you mean "shell"\\?\\)`));
  });

  test('wrong types and values say what was expected, with line and column', () => {
    const { write, load } = fixture();
    let f = write('user', 'version: 1\nchains:\n  - tools: [shell]\n    command: x\n    timeoutMs: soon\n');
    assert.equal(loadError(load), `${f}:5:16: chains[0].timeoutMs: timeoutMs must be a whole number of milliseconds`);
    f = write('user', 'version: 1\nchains:\n  - tools: [shell]\n    command: x\n    timeoutMs: 90000\n');
    assert.equal(loadError(load), `${f}:5:16: chains[0].timeoutMs: timeoutMs must be at most 60000 (one minute)`);
    f = write('user', 'version: 1\nchains:\n  - tools: [shell]\n    command: x\n    optional: "yes"\n');
    assert.equal(loadError(load), `${f}:5:15: chains[0].optional: optional must be true or false`);
    f = write('user', 'version: 1\nchains:\n  - tools: [shell]\n    command: "  "\n');
    assert.equal(loadError(load), `${f}:4:14: chains[0].command: command must not be empty`);
    f = write('user', 'version: 1\nchains:\n  - command: ./x.sh\n');
    assert.equal(loadError(load), `${f}:3:5: chains[0].tools: missing required key "tools"`);
    f = write('user', 'version: 1\nchains:\n  tools: [shell]\n');
    assert.equal(loadError(load), `${f}:3:3: chains: expected a list, got a mapping`);
    f = write('user', 'version: 1\ntools:\n  env: [GITHUB_TOKEN, "1BAD"]\n');
    assert.equal(loadError(load), `${f}:3:23: tools.env[1]: an environment variable name is letters, digits and _, not starting with a digit`);
    f = write('user', 'version: 1\ntools:\n  maxOutputBytes: 104857600\n');
    assert.equal(loadError(load), `${f}:3:19: tools.maxOutputBytes: maxOutputBytes must be at most 4194304 (4 MiB)`);
    f = write('user', 'version: 1\ntools:\n  hookApprovals: "no"\n');
    assert.equal(loadError(load), `${f}:3:18: tools.hookApprovals: hookApprovals must be true or false`);
    f = write('user', 'version: 1\nmcp:\n  roots: ["https://example.com/x"]\n');
    assert.match(loadError(load), new RegExp(`^${f}:3:11: mcp\\.roots\\[0\\]: "https://example.com/x" is not a directory`));
    f = write('user', 'version: 1\nmcp:\n  roots: ["file://host/x"]\n');
    assert.match(loadError(load), /mcp\.roots\[0\]: "file:\/\/host\/x" is not a usable file:\/\/ URI/);
  });
});

describe('chains, mcp and tools: trust', () => {
  test('from an untrusted project file they are ignored, with a warning naming each', () => {
    const { write, load } = fixture();
    const f = write('project', FULL);
    const p = load();
    assert.equal(p.chains, undefined);
    assert.equal(p.mcp, undefined);
    assert.equal(p.gatedTools, undefined);
    const w = p.warnings.find((x) => x.startsWith(`${f}: this project policy is not trusted`));
    assert.ok(w, p.warnings.join('\n'));
    for (const piece of ['line 2: chains (3 commands to run)', 'line 12: mcp', 'line 15: tools', 'run `asimov trust`']) assert.ok(w.includes(piece), `${piece} in ${w}`);
  });

  test('a trusted project file is honoured, its relative paths taken from its own project', () => {
    const { write, load, trust, root } = fixture();
    const f = write('project', FULL);
    trust();
    const p = load();
    assert.equal(p.chains?.length, 3);
    assert.equal(p.chains?.[0]?.command, `${root}/scripts/check-command.sh --strict`);
    assert.equal(p.chains?.[0]?.source, f);
    assert.deepEqual(p.mcp?.shellTools, ['run_command_custom']);
    assert.equal(p.gatedTools?.env[0], 'GITHUB_TOKEN');
    assert.deepEqual(p.warnings, []);
  });

  test('layers accumulate: every chain runs (user, project, managed), lists merge, the managed file\'s numbers win', () => {
    const { write, load, trust } = fixture();
    const u = write('user', 'version: 1\nchains:\n  - { tools: [shell], command: user-check }\nmcp: { shellTools: [a] }\ntools: { env: [A], timeoutMs: 1000 }\n');
    const pr = write('project', 'version: 1\nchains:\n  - { tools: [shell], command: project-check }\nmcp: { shellTools: [b, a] }\ntools: { env: [B], timeoutMs: 2000, maxOutputBytes: 10 }\n');
    const m = write('managed', 'version: 1\nchains:\n  - { tools: [all], command: managed-check }\ntools: { timeoutMs: 3000 }\n');
    trust();
    const p = load();
    assert.deepEqual(p.chains?.map((c) => [c.command, c.source]), [['user-check', u], ['project-check', pr], ['managed-check', m]]);
    assert.deepEqual(p.mcp?.shellTools, ['a', 'b']);
    assert.deepEqual(p.gatedTools, { env: ['A', 'B'], roots: [], timeoutMs: 3000, maxOutputBytes: 10, hookApprovals: true });
  });

  test('an untrusted project cannot drop the user\'s or the managed file\'s chains', () => {
    const { write, load } = fixture();
    write('user', 'version: 1\nchains:\n  - { tools: [shell], command: user-check }\n');
    write('managed', 'version: 1\nchains:\n  - { tools: [shell], command: managed-check }\n');
    write('project', 'version: 1\nchains: []\n');
    assert.deepEqual(load().chains?.map((c) => c.command), ['user-check', 'managed-check']);
  });
});
