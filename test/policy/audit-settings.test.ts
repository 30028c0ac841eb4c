// `audit:` in the policy files: where a machine's records go and how it finds its token. The user and managed
// files say it; a project's file never does (a repository must not collect a team's records).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '../../src/policy/load.ts';
import { resolveTeamToken } from '../../src/audit/team-token.ts';

function scratch(t: { after(fn: () => void): void }) {
  const home = mkdtempSync(join(tmpdir(), 'asimov-audit-settings-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, '.asimov'), { recursive: true });
  mkdirSync(join(home, '.config/asimov'), { recursive: true });
  const managed = join(home, 'managed.yaml');
  const load = () => loadPolicy({ cwd: project, home, env: { HOME: home }, managedPath: managed, trustStorePath: join(home, 'trust.json'), stateDir: false });
  return { home, project, managed, load, user: (y: string) => writeFileSync(join(home, '.config/asimov/policy.yaml'), y), proj: (y: string) => writeFileSync(join(project, '.asimov/policy.yaml'), y) };
}

test('the user file sets it; the managed file has the last word; a token_file is resolved from ~', (t) => {
  const s = scratch(t);
  s.user('version: 1\naudit:\n  remote: https://gate.example:7420/\n  token_file: ~/tok\n  otlp: { endpoint: http://127.0.0.1:4318 }\n');
  let a = s.load().audit!;
  assert.equal(a.remote, 'https://gate.example:7420');
  assert.equal(a.tokenFile, join(s.home, 'tok'));
  assert.equal(a.policy, true);
  assert.equal(a.otlp?.endpoint, 'http://127.0.0.1:4318');
  writeFileSync(s.managed, 'version: 1\naudit:\n  remote: https://corp.example\n  token_env: CORP_TOKEN\n  policy: false\n');
  a = s.load().audit!;
  assert.equal(a.remote, 'https://corp.example');
  assert.equal(a.tokenFile, undefined, "the managed file's way to the token replaces the user's");
  assert.equal(a.tokenEnv, 'CORP_TOKEN');
  assert.equal(a.policy, false);
  assert.equal(a.source, s.managed);
});

test("a project's audit: is ignored, and said", (t) => {
  const s = scratch(t);
  s.proj('version: 1\naudit:\n  remote: https://collector.evil.example\n  token: x\n');
  const p = s.load();
  assert.equal(p.audit, undefined);
  assert.ok(p.warnings.some((w) => /only the user and managed policy say where records go/.test(w)), p.warnings.join('\n'));
});

test('the token goes in clear text only to this machine: a plain http:// remote elsewhere is refused', (t) => {
  const s = scratch(t);
  s.user('version: 1\naudit:\n  remote: http://10.1.2.3:7420\n');
  assert.throws(() => s.load(), /audit\.remote: remote must be https:\/\//);
  s.user('version: 1\naudit:\n  remote: http://127.0.0.1:7420\n');
  assert.equal(s.load().audit?.remote, 'http://127.0.0.1:7420');
  s.user('version: 1\naudit:\n  remote: https://user:pw@gate.example\n');
  assert.throws(() => s.load(), /without credentials/);
});

test('resolveTeamToken: a literal, a file, a variable; each missing one says how to give it', (t) => {
  const s = scratch(t);
  const base = { tokenEnv: 'ASIMOV_TEAM_TOKEN', policy: true, source: '/p.yaml' };
  assert.deepEqual(resolveTeamToken({ ...base, token: ' asv_lit ' }, {}), { ok: true, token: 'asv_lit' });
  writeFileSync(join(s.home, 'tok'), 'asv_file\n');
  assert.deepEqual(resolveTeamToken({ ...base, tokenFile: join(s.home, 'tok') }, {}), { ok: true, token: 'asv_file' });
  assert.match((resolveTeamToken({ ...base, tokenFile: join(s.home, 'none') }, {}) as { reason: string }).reason, /does not exist/);
  writeFileSync(join(s.home, 'empty'), '\n');
  assert.match((resolveTeamToken({ ...base, tokenFile: join(s.home, 'empty') }, {}) as { reason: string }).reason, /is empty/);
  assert.deepEqual(resolveTeamToken(base, { ASIMOV_TEAM_TOKEN: 'asv_env' }), { ok: true, token: 'asv_env' });
  assert.match((resolveTeamToken(base, {}) as { reason: string }).reason, /set ASIMOV_TEAM_TOKEN, or audit.token_file in \/p.yaml/);
});
