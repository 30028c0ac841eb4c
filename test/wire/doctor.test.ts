// `asimov doctor` on real settings files written by the real `asimov wire claude`, with the installed command
// line run through a real shell: each way protection silently disappears must turn the verdict.

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { doctorClaude, type DoctorReport } from '../../src/wire/doctor.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');
let root = '';
let home = '';
let project = '';
let userSettings = '';

function asimov(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: project, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl'), ASIMOV_DAEMON: 'manual' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function doctor(loadPolicy: () => string = () => 'built-in rules only'): Promise<DoctorReport> {
  return doctorClaude({
    home, cwd: project, projectRoot: project, env: { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl'), ASIMOV_DAEMON: 'manual' }, loadPolicy,
    own: { nodePath: process.execPath, asimovPath: BIN },
  });
}

function failures(r: DoctorReport): string[] {
  return r.checks.filter((c) => c.status === 'fail').map((c) => c.title);
}

before(() => {
  assert.ok(existsSync(resolve(import.meta.dirname, '../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = mkdtempSync(join(tmpdir(), 'asimov-doctor-'));
  home = join(root, 'home');
  project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  userSettings = join(home, '.claude', 'settings.json');
});
after(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  rmSync(join(home, '.claude'), { recursive: true, force: true });
  rmSync(join(project, '.claude'), { recursive: true, force: true });
});

describe('asimov doctor for Claude Code', () => {
  test('nothing installed: NOT PROTECTED, and the fix is to run wire', async () => {
    const r = await doctor();
    assert.equal(r.protected, false);
    assert.match(failures(r).join('\n'), /no asimov PreToolUse hook/);
    assert.match(r.checks.find((c) => c.status === 'fail')?.fix ?? '', /asimov wire claude/);
  });

  test('wired by `asimov wire claude`: PROTECTED, having run the command line on a dangerous and an everyday call', async () => {
    assert.equal(asimov(['wire', 'claude']).code, 0);
    const r = await doctor();
    assert.deepEqual(failures(r), []);
    assert.equal(r.protected, true);
    const titles = r.checks.map((c) => c.title).join('\n');
    assert.match(titles, /runs and blocks a dangerous call/);
    assert.match(titles, /everyday call passes/);
    assert.match(titles, /PermissionRequest hook installed/);
  });

  test('the CLI prints the verdict and exits 0 when protected, 1 when not', () => {
    const not = asimov(['doctor']);
    assert.equal(not.code, 1);
    assert.match(not.out, /NOT PROTECTED/);
    asimov(['wire', 'claude']);
    const ok = asimov(['doctor']);
    assert.equal(ok.code, 0, ok.out + ok.err);
    assert.match(ok.out, /^PROTECTED/m);
    const json = JSON.parse(asimov(['doctor', '--json']).out) as DoctorReport;
    assert.equal(json.protected, true);
  });

  test('"disableAllHooks" in any settings file turns the verdict', async () => {
    asimov(['wire', 'claude']);
    mkdirSync(join(project, '.claude'), { recursive: true });
    writeFileSync(join(project, '.claude', 'settings.local.json'), '{ "disableAllHooks": true }\n');
    assert.match(failures(await doctor()).join('\n'), /disableAllHooks/);
  });

  test('a matcher that covers only some tools is not protection', async () => {
    asimov(['wire', 'claude']);
    const s = JSON.parse(readFileSync(userSettings, 'utf8')) as { hooks: Record<string, Array<{ matcher: string }>> };
    s.hooks['PreToolUse']![0]!.matcher = 'Bash';
    writeFileSync(userSettings, JSON.stringify(s));
    assert.match(failures(await doctor()).join('\n'), /matches only "Bash"/);
  });

  test('a client timeout shorter than asimov\'s deadline is reported', async () => {
    asimov(['wire', 'claude']);
    writeFileSync(userSettings, readFileSync(userSettings, 'utf8').replaceAll('"timeout": 50', '"timeout": 30'));
    assert.match(failures(await doctor()).join('\n'), /timeout \(30 s\) does not exceed/);
  });

  test('a command line naming a node that is gone is not run; doctor says why and names `asimov wire --refresh` for a recorded place', async () => {
    asimov(['wire', 'claude']);
    writeFileSync(userSettings, readFileSync(userSettings, 'utf8').split(process.execPath).join('/nonexistent/node'));
    const r = await doctor();
    assert.equal(r.protected, false);
    const moved = r.checks.find((c) => c.status === 'fail')!;
    assert.equal(moved.title, 'the hook runs /nonexistent/node, which does not exist: every tool call is blocked until rewired');
    assert.match(moved.fix ?? '', /^run `asimov wire --refresh` \(it rewires every place wire recorded/);
    // And the fix it names does fix it.
    assert.equal(asimov(['wire', '--refresh']).code, 0);
    assert.equal((await doctor()).protected, true);
  });

  test('a hook naming a missing node that wire never recorded: the fix names the client and the scope', async () => {
    const old = buildHookCommand({ client: 'claude', nodePath: '/old/node', asimovPath: BIN, watchdog: { kind: 'none' } }).command;
    const settings = (command: string) => JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command, timeout: 50 }] }] } });
    mkdirSync(join(project, '.claude'), { recursive: true });
    writeFileSync(join(project, '.claude', 'settings.json'), settings(old));
    const r = await doctor();
    const moved = r.checks.find((c) => c.status === 'fail')!;
    assert.equal(moved.title, 'the hook runs /old/node, which does not exist: every tool call is blocked until rewired');
    assert.match(moved.fix ?? '', /^run `asimov wire claude --scope project` \(wire recorded no such place/);
    // Another node that exists: another install decides, which is said too.
    writeFileSync(join(project, '.claude', 'settings.json'), settings(old.replace("/old/node", '/bin/sh')));
    const other = (await doctor()).checks.find((c) => c.status === 'fail')!;
    assert.equal(other.title, `the hook runs node /bin/sh, not this install's ${process.execPath}: another or an older asimov decides Claude Code's calls`);
  });

  test('a project settings file with a planted hook line is never run', async () => {
    asimov(['wire', 'claude']);
    const pwned = join(project, 'PWNED');
    mkdirSync(join(project, '.claude'), { recursive: true });
    writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify({
      hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `touch ${pwned} # asimov-hook:claude`, timeout: 60 }] }] },
    }));
    const r = await doctor();
    assert.ok(!existsSync(pwned), 'doctor ran the planted line');
    // The project's entry is the one Claude Code's order puts first: doctor names it as not asimov's own.
    assert.equal(r.protected, false);
    assert.match(failures(r).join('\n'), /did not run the installed command line: it is not the one this asimov installs/);
  });

  test('a settings file that does not parse, and a policy that does not load, are failures', async () => {
    asimov(['wire', 'claude']);
    mkdirSync(join(project, '.claude'), { recursive: true });
    writeFileSync(join(project, '.claude', 'settings.json'), '{ "hooks": ');
    const r = await doctor(() => { throw new Error('policy.yaml:3:1: unknown key "rulez"'); });
    const f = failures(r).join('\n');
    assert.match(f, /cannot be parsed/);
    assert.match(f, /policy does not load/);
  });
});
