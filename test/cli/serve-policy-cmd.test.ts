// `asimov serve policy publish|show` as a person runs it, and what a team machine then shows: publishing to
// the database with no server running, a broken file refused with its own file, line and key, publishing to
// a running server with --server and an admin token; then a real hook call fetching the policy, and
// `asimov policy` and `asimov doctor` saying which team policy applies (or that only local layers do).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, cliScratch, noStackTrace, type Run } from '../helpers/asimov-cli.ts';
import { startTestServer, type TestServer } from '../helpers/serve.ts';

const s = cliScratch('asimov-serve-policy-');
let srv: TestServer;
let admin: string;
let laptop: string;
before(async () => {
  srv = await startTestServer();
  admin = await srv.token(['admin'], 'ops');
  laptop = await srv.token(['report'], 'laptop');
});
after(() => srv?.close());

/** s.run without blocking this process, which hosts the server the command talks to. */
function run(args: string[], o: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: s.project, env: { ...s.baseEnv(), ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(o.input ?? '');
  });
}

const TEAM = 'version: 1\nrules:\n  git.push-default-branch: hard_deny\n';

function files(): { good: string; bad: string; rules: string; dataDir: string } {
  const dir = join(s.root, 'files');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'team.yaml'), TEAM);
  writeFileSync(join(dir, 'broken.yaml'), 'version: 1\nrules:\n  git.push-defualt-branch: hard_deny\n');
  writeFileSync(join(dir, 'rules.md'), 'Nothing leaves the VPN.\n');
  return { good: join(dir, 'team.yaml'), bad: join(dir, 'broken.yaml'), rules: join(dir, 'rules.md'), dataDir: join(s.root, 'serve') };
}

test('publish and show on this machine\'s database, with no server running; a broken file is refused with its line and key', () => {
  const f = files();
  const bad = s.run(['serve', 'policy', 'publish', f.bad, '--data-dir', f.dataDir]);
  assert.equal(bad.code, 1);
  assert.equal(bad.err, `asimov serve policy: not published: ${f.bad}:3:3: rules.git.push-defualt-branch: unknown rule id "git.push-defualt-branch" (did you mean "git.push-default-branch"?)\n`);
  noStackTrace(bad);

  const none = s.run(['serve', 'policy', 'show', '--data-dir', f.dataDir]);
  assert.equal(none.code, 1);
  assert.match(none.out, /^No team policy published: machines use their local layers only/);

  const ok = s.run(['serve', 'policy', 'publish', f.good, '--ground-rules', f.rules, '--data-dir', f.dataDir]);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /^Published team policy version 1 \("[0-9a-f]{32}"\)\./);
  const again = s.run(['serve', 'policy', 'publish', f.good, '--ground-rules', f.rules, '--data-dir', f.dataDir]);
  assert.match(again.out, /^Version 1 is already this policy with these ground rules; nothing changed\./);

  const shown = s.run(['serve', 'policy', 'show', '--data-dir', f.dataDir]);
  assert.equal(shown.code, 0, shown.err);
  assert.match(shown.out, /^version +1\npublished +\S+ \S+ UTC by local\n/);
  assert.ok(shown.out.includes(`\n\n${TEAM}`), shown.out);
  assert.match(shown.out, /Ground rules\nNothing leaves the VPN\.\n$/);
  const json = JSON.parse(s.run(['serve', 'policy', 'show', '--json', '--data-dir', f.dataDir]).out);
  assert.equal(json.policy, TEAM);

  const usage = s.run(['serve', 'policy', 'publish', '--data-dir', f.dataDir]);
  assert.equal(usage.code, 1);
  assert.match(usage.err, /publish takes one policy file/);
  noStackTrace(usage);
});

test('publish to a running server with --server and a token; a hook call fetches it; policy and doctor show it', async () => {
  const f = files();
  const refused = await run(['serve', 'policy', 'publish', f.good, '--server', srv.url, '--token', laptop]);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /lacks the 'admin' scope/);
  noStackTrace(refused);
  const pub = await run(['serve', 'policy', 'publish', f.good, '--server', srv.url], { env: { ASIMOV_TEAM_TOKEN: admin } });
  assert.equal(pub.code, 0, pub.err);
  const version = /version (\d+)/.exec(pub.out)![1];
  // On the server's own machine, through its local socket (no token): the same policy.
  const local = await run(['serve', 'policy', 'show', '--data-dir', join(srv.root, 'serve')]);
  assert.equal(local.code, 0, local.err);
  assert.match(local.out, new RegExp(`^version +${version}\n.*by ops\n`));

  const user = join(s.home, '.config', 'asimov');
  mkdirSync(user, { recursive: true });
  writeFileSync(join(user, 'policy.yaml'), `version: 1\naudit:\n  remote: ${srv.url}\nrules:\n  git.push-default-branch: allow\n`);
  const env = { ASIMOV_TEAM_TOKEN: laptop };

  const before = await run(['policy'], { env });
  assert.equal(before.code, 0, before.err);
  assert.match(before.out, new RegExp(`^Team policy .*\\n  no team policy cached yet from ${srv.url}: only local layers apply$`, 'm'));

  const payload = JSON.stringify({
    session_id: 's1', transcript_path: join(s.root, 't.jsonl'), cwd: s.project, permission_mode: 'default',
    hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git push origin main' }, tool_use_id: 'toolu_1',
  });
  const hook = await run(['hook', 'claude'], { input: payload, env });
  assert.equal(hook.code, 0, hook.err);
  const reply = JSON.parse(hook.out).hookSpecificOutput;
  assert.equal(reply.permissionDecision, 'deny', reply.permissionDecisionReason);

  const after = await run(['policy'], { env });
  assert.match(after.out, new RegExp(`^Team policy .*\\n  team policy from ${srv.url} version ${version}, fetched \\d+ s ago, checked \\d+ s ago$`, 'm'));
  assert.match(after.out, /^ {2}managed +~\/\.state\/asimov\/team\/policy\.yaml +yes +1 tier set$/m);
  const json = JSON.parse((await run(['policy', '--json'], { env })).out);
  assert.equal(json.team.applied, true);
  assert.equal(json.team.version, Number(version));

  const doctor = await run(['doctor', 'claude', '--json'], { env });
  const check = JSON.parse(doctor.out.trim().split('\n')[0]!).checks.find((c: { title: string }) => c.title === 'the policy loads');
  assert.match(check.detail, new RegExp(`\\nteam policy from ${srv.url} version ${version}, fetched`));
});
