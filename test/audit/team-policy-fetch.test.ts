// The team policy from a real `asimov serve` to real client HOMEs: the fetch (200, then 304 with the ETag),
// the cache on disk, the copy applied as a managed layer the user's policy cannot loosen, the copy kept when
// the server is gone or serves a policy this asimov cannot load, local layers only (and saying so) before a
// first fetch, a published change reaching the next decision after the refresh interval, and another
// server's copy never applied.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/serve.ts';
import { refreshTeamPolicy } from '../../src/audit/team-policy-fetch.ts';
import { createGate } from '../../src/gate/gate.ts';
import { loadPolicy } from '../../src/policy/load.ts';
import { describeTeamPolicy, readTeamMeta, teamCachePaths } from '../../src/policy/team-cache.ts';
import type { AuditSettings } from '../../src/policy/layers.ts';

let s: TestServer;
let admin: string;
let laptop: string;
const scratch = mkdtempSync(join(tmpdir(), 'asimov-team-client-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

before(async () => {
  s = await startTestServer();
  admin = await s.token(['admin'], 'ops');
  laptop = await s.token(['report'], 'laptop');
});
after(() => s?.close());

const TEAM = 'version: 1\nrules:\n  git.push-default-branch: hard_deny\n';
const PUSH = 'git push origin main';

/** A client machine: its own HOME with a project, a user policy naming `remote`, and the state dir. */
function client(name: string, remote: string, userRules = '  git.push-default-branch: allow\n') {
  const home = join(scratch, name);
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(home, '.config', 'asimov'), { recursive: true });
  writeFileSync(join(home, '.config', 'asimov', 'policy.yaml'), `version: 1\naudit:\n  remote: ${remote}\n  token_env: TEAM_TOKEN\nrules:\n${userRules}`);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state'), TEAM_TOKEN: laptop, ASIMOV_JUDGE: 'off' };
  const stateDir = join(home, '.state', 'asimov');
  const managedPath = join(home, 'no-etc-policy.yaml');
  const settings: AuditSettings = { remote, tokenEnv: 'TEAM_TOKEN', policy: true, source: 'test' };
  const gate = (intervalMs: number) =>
    createGate({ env, home, audit: false, sessionState: false, managedPolicyPath: managedPath, teamRefresh: { intervalMs, timeoutMs: 1500 } });
  const policy = () => loadPolicy({ cwd: project, env, home, managedPath });
  return { home, project, env, stateDir, settings, gate, policy };
}

async function publish(policy: string, groundRules?: string): Promise<{ version: number; etag: string }> {
  const r = await s.call('PUT', '/v1/team/policy', { token: admin, body: { policy, ...(groundRules ? { groundRules } : {}) } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

test('a first fetch writes the cache (owner-only); the next sends the ETag and gets 304', async () => {
  const pub = await publish(TEAM, 'Never deploy on Fridays.\n');
  const c = client('fetch', s.url);
  const first = await refreshTeamPolicy(c.settings, { env: c.env, stateDir: c.stateDir });
  assert.deepEqual(first, { status: 'updated', version: pub.version, etag: pub.etag });
  const p = teamCachePaths(c.stateDir);
  assert.equal(readFileSync(p.policy, 'utf8'), TEAM);
  assert.equal(readFileSync(p.groundRules, 'utf8'), 'Never deploy on Fridays.\n');
  assert.equal(statSync(p.dir).mode & 0o777, 0o700);
  for (const f of [p.policy, p.groundRules, p.meta]) assert.equal(statSync(f).mode & 0o777, 0o600, f);
  const meta = readTeamMeta(c.stateDir)!;
  assert.equal(meta.server, s.url);
  assert.equal(meta.etag, pub.etag);
  assert.equal(meta.version, pub.version);
  assert.ok(meta.fetchedAt && meta.checkedAt);

  const second = await refreshTeamPolicy(c.settings, { env: c.env, stateDir: c.stateDir });
  assert.deepEqual(second, { status: 'unchanged', version: pub.version });
  assert.equal(readTeamMeta(c.stateDir)!.fetchedAt, meta.fetchedAt, 'a 304 touches only checkedAt');
});

test('the team policy applies as managed: the user\'s policy cannot loosen a rule the team sets to hard_deny', async () => {
  const pub = await publish(TEAM, 'Never deploy on Fridays.\n');
  const c = client('managed', s.url);
  // Before any fetch the user's own allow applies, and the policy says only local layers apply.
  const before = c.policy();
  assert.equal(before.team?.applied, false);
  assert.ok(before.warnings.includes(`no team policy cached yet from ${s.url}: only local layers apply`), before.warnings.join('\n'));

  const d = await c.gate(0).decide({ tool: 'shell', input: { command: PUSH }, cwd: c.project });
  assert.equal(d.verdict, 'deny', d.reason);
  assert.equal(d.tier, 'hard_deny');
  assert.equal(d.rule, 'git.push-default-branch');

  const after = c.policy();
  assert.equal(after.team?.applied, true);
  assert.equal(after.team?.version, pub.version);
  assert.equal(after.team?.groundRules, 'Never deploy on Fridays.\n');
  const team = after.sources.filter((x) => x.layer === 'managed');
  assert.deepEqual(team.map((x) => x.path), [teamCachePaths(c.stateDir).policy]);
  assert.equal(after.overridden.get('git.push-default-branch')?.tier, 'hard_deny');
  assert.match(describeTeamPolicy(after.team!), new RegExp(`^team policy from ${s.url} version ${pub.version}, fetched \\d+ s ago, checked \\d+ s ago$`));
});

test('a server that names no team policy at all, or `audit.policy: false`, adds no layer', async () => {
  const c = client('off', s.url);
  writeFileSync(join(c.home, '.config', 'asimov', 'policy.yaml'), `version: 1\naudit:\n  remote: ${s.url}\n  policy: false\n`);
  const r = await refreshTeamPolicy({ ...c.settings, policy: false }, { env: c.env, stateDir: c.stateDir });
  assert.equal(r.status, 'skipped');
  const p = c.policy();
  assert.equal(p.team, undefined);
  assert.deepEqual(p.sources.map((x) => x.layer), ['builtin', 'user']);
});

test('a policy this asimov cannot load is not written over the copy held', async () => {
  await publish(TEAM);
  const c = client('unloadable', s.url);
  assert.equal((await refreshTeamPolicy(c.settings, { env: c.env, stateDir: c.stateDir })).status, 'updated');
  // As a newer server might serve a key this asimov does not know (the route itself would refuse it).
  await s.server.db.query("INSERT INTO team_policy (policy, ground_rules, etag, published_by) VALUES ($1, NULL, '\"future\"', 'ops')", ['version: 1\nfutureKey: true\n']);
  const r = await refreshTeamPolicy(c.settings, { env: c.env, stateDir: c.stateDir });
  assert.equal(r.status, 'failed');
  assert.match((r as { reason: string }).reason, /does not load on this asimov, so the copy held stays: .*futureKey/);
  assert.equal(readFileSync(teamCachePaths(c.stateDir).policy, 'utf8'), TEAM);
  const p = c.policy();
  assert.equal(p.team?.applied, true);
  assert.equal(p.overridden.get('git.push-default-branch')?.tier, 'hard_deny');
  await publish(TEAM); // the newest row is a loadable one again, for the tests after this one
});

test('a change published reaches the next decision once the refresh interval has passed', async () => {
  await publish(TEAM);
  const c = client('change', s.url);
  const gate = c.gate(200);
  const call = { tool: 'shell', input: { command: 'git push origin release' }, cwd: c.project };
  assert.equal((await gate.decide(call)).verdict, 'allow', 'a push to another branch is allowed');
  const v2 = 'version: 1\nrules:\n  git.push-default-branch: hard_deny\ncustom:\n  - id: team.no-release-push\n    tier: hard_deny\n    reason: Releases are pushed by CI only.\n    match:\n      pattern: \'git push \\S+ release\'\n    examples:\n      match: ["git push origin release"]\n      notMatch: ["git push origin feature"]\n';
  await publish(v2);
  // Within the interval the copy held still decides.
  assert.equal((await gate.decide(call)).verdict, 'allow');
  await new Promise((r) => setTimeout(r, 250));
  const d = await gate.decide(call);
  assert.equal(d.verdict, 'deny', d.reason);
  assert.equal(d.rule, 'team.no-release-push');
  await publish(TEAM);
});

test('another server\'s copy is not applied', async () => {
  await publish(TEAM);
  const c = client('switched', s.url);
  assert.equal((await refreshTeamPolicy(c.settings, { env: c.env, stateDir: c.stateDir })).status, 'updated');
  // The user now names another server (down): the copy on disk is the first server's.
  writeFileSync(join(c.home, '.config', 'asimov', 'policy.yaml'), 'version: 1\naudit:\n  remote: http://127.0.0.1:9\n  token_env: TEAM_TOKEN\nrules:\n  git.push-default-branch: allow\n');
  const p = c.policy();
  assert.equal(p.team?.applied, false);
  assert.equal(p.team?.otherServer, s.url);
  assert.equal(p.overridden.get('git.push-default-branch')?.tier, 'allow');
  assert.ok(p.warnings.some((w) => w.includes(`the cached copy is ${s.url}'s, which does not apply`)), p.warnings.join('\n'));
});

test('with the server stopped the cached copy applies; a machine that never fetched one uses its local layers and says so', async () => {
  await publish(TEAM);
  const cached = client('offline-cached', s.url);
  assert.equal((await refreshTeamPolicy(cached.settings, { env: cached.env, stateDir: cached.stateDir })).status, 'updated');
  const never = client('offline-never', s.url);
  const url = s.url;
  await s.close();

  const started = Date.now();
  const d = await cached.gate(0).decide({ tool: 'shell', input: { command: PUSH }, cwd: cached.project });
  assert.ok(Date.now() - started < 5000, 'a dead server costs at most the fetch timeout');
  assert.equal(d.verdict, 'deny');
  assert.equal(d.tier, 'hard_deny');
  const p = cached.policy();
  assert.equal(p.team?.applied, true);
  assert.match(p.team?.error ?? '', /unreachable/);
  assert.match(describeTeamPolicy(p.team!), /server unreachable since .*, the cached copy \(version \d+\) applies$/);

  const d2 = await never.gate(0).decide({ tool: 'shell', input: { command: PUSH }, cwd: never.project });
  assert.equal(d2.verdict, 'allow', 'only the local layers: the user allows it');
  const q = never.policy();
  assert.equal(q.team?.applied, false);
  assert.ok(q.warnings.some((w) => w.startsWith(`no team policy cached yet from ${url}: only local layers apply; the server is unreachable since`)), q.warnings.join('\n'));
  // The failed check was noted, so the next call within the interval does not ask the dead server again.
  const meta = readTeamMeta(never.stateDir)!;
  assert.ok(meta.checkedAt && meta.failingSince && meta.error);
});
