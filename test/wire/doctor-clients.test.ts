// `asimov doctor <client>` for the clients besides Claude Code, on config files written by the real
// `asimov wire <client>` into a scratch HOME and project, with the installed command line run through a real
// shell with the client's own payload: each way protection silently disappears must turn the verdict.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { doctorHookClient } from '../../src/wire/doctor-hooks.ts';
import type { DoctorReport } from '../../src/wire/doctor.ts';
import type { OwnInstall } from '../../src/wire/hook-command.ts';
import { doctorCommand } from '../../src/cli/doctor-cmd.ts';
import type { CliIO } from '../../src/cli/io.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');
const roots: string[] = [];
after(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });

interface Scratch {
  root: string;
  home: string;
  project: string;
  env: NodeJS.ProcessEnv;
  wire(...args: string[]): void;
  doctor(client: string, env?: NodeJS.ProcessEnv, own?: OwnInstall | null): Promise<DoctorReport>;
  /** Records the audit log holds for doctor's own runs of a client's hook. */
  doctorRecords(agent: string): Array<{ verdict: string; tool: string }>;
}

function scratch(): Scratch {
  assert.ok(existsSync(resolve(import.meta.dirname, '../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-doctor-clients-')));
  roots.push(root);
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  const audit = join(root, 'audit.jsonl');
  // manual: the installed line doctor runs would start a daemon in each scratch HOME (auto); the first stage
  // and the daemon have tests of their own (test/bin/hook-first-stage.test.ts).
  const env = { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: audit, GATE_CHECK: 'false', ASIMOV_DAEMON: 'manual' };
  return {
    root, home, project, env,
    wire(...args) {
      const r = spawnSync(process.execPath, [BIN, 'wire', ...args], { cwd: project, encoding: 'utf8', env });
      assert.equal(r.status, 0, `asimov wire ${args.join(' ')}: ${r.stdout}${r.stderr}`);
    },
    doctor: (client, extra = {}, own = { nodePath: process.execPath, asimovPath: BIN }) => doctorHookClient(client, {
      home, cwd: project, projectRoot: project, env: { ...env, ...extra }, loadPolicy: () => 'built-in rules only', own,
    }),
    doctorRecords: (agent) => (existsSync(audit) ? readFileSync(audit, 'utf8').trim().split('\n') : [])
      .map((l) => JSON.parse(l) as { agent: string; session: string; verdict: string; tool: string })
      .filter((r) => r.agent === agent && r.session === 'asimov-doctor'),
  };
}

function failures(r: DoctorReport): string[] {
  return r.checks.filter((c) => c.status === 'fail').map((c) => c.title);
}

function fixes(r: DoctorReport): string {
  return r.checks.filter((c) => c.status === 'fail').map((c) => c.fix ?? '').join('\n');
}

function trustGemini(s: Scratch, rules: Record<string, string> = { [s.project]: 'TRUST_FOLDER' }): void {
  mkdirSync(join(s.home, '.gemini'), { recursive: true });
  writeFileSync(join(s.home, '.gemini', 'trustedFolders.json'), JSON.stringify(rules));
}

/** Points every asimov command line in a file at an asimov entry point that is not there. */
function moveAsimov(file: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(BIN), `${file} does not name ${BIN}`);
  // The whole bin directory moved: the entry point and the first stage beside it.
  writeFileSync(file, text.split(dirname(BIN)).join(dirname(MOVED)));
}

const MOVED = '/nonexistent/asimov/bin/asimov.cjs';

describe('asimov doctor <client>, wired by `asimov wire <client>`', () => {
  for (const client of ['gemini', 'codex', 'copilot', 'opencode', 'cursor', 'kimi', 'goose', 'windsurf', 'qwen', 'droid']) {
    test(`${client}: PROTECTED, with the installed command line run on a dangerous and an everyday call`, async () => {
      const s = scratch();
      s.wire(client);
      if (client === 'gemini') trustGemini(s);
      const r = await s.doctor(client);
      assert.deepEqual(failures(r), []);
      assert.equal(r.protected, true);
      assert.equal(r.client, client);
      assert.match(r.verdict, /^PROTECTED/);
      const titles = r.checks.map((c) => c.title).join('\n');
      assert.match(titles, /asimov's hook is in .* \(user\)/);
      assert.match(titles, /runs and blocks a dangerous call/);
      assert.match(titles, /an everyday call passes \(allow/);
      // The hook really ran, as that client: asimov recorded both decisions under the client's name.
      const records = s.doctorRecords(client);
      assert.ok(records.some((x) => x.verdict === 'deny' && x.tool === 'shell'), JSON.stringify(records));
      assert.ok(records.some((x) => x.verdict === 'allow' && x.tool === 'shell'), JSON.stringify(records));
    });
  }

  test('`asimov wire <client>` ends by naming `asimov doctor <client>`', () => {
    const s = scratch();
    const r = spawnSync(process.execPath, [BIN, 'wire', 'codex'], { cwd: s.project, encoding: 'utf8', env: s.env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /check it: `asimov doctor codex` runs the installed hook here/);
  });

  test('uninstalled: NOT PROTECTED, and the fix is to run wire', async () => {
    const s = scratch();
    s.wire('copilot');
    s.wire('copilot', '--uninstall');
    const r = await s.doctor('copilot');
    assert.equal(r.protected, false);
    assert.match(failures(r).join('\n'), /asimov is not wired into GitHub Copilot CLI/);
    assert.match(fixes(r), /asimov wire copilot/);
    assert.match(r.verdict, /^NOT PROTECTED/);
  });

  test('a command line whose asimov no longer exists blocks everything, and doctor says so', async () => {
    const s = scratch();
    const files: Record<string, string> = {
      copilot: join(s.home, '.copilot', 'hooks', 'asimov.json'),
      opencode: join(s.home, '.config', 'opencode', 'plugins', 'asimov.js'),
      kimi: join(s.home, '.kimi', 'config.toml'),
      cursor: join(s.home, '.cursor', 'hooks.json'),
    };
    for (const [client, file] of Object.entries(files)) {
      s.wire(client);
      moveAsimov(file);
      // The asimov that wired it is gone from where the line names it (the line is still that asimov's own).
      const r = await s.doctor(client, {}, { nodePath: process.execPath, asimovPath: MOVED });
      assert.equal(r.protected, false, client);
      assert.match(failures(r).join('\n'), /the installed command line fails, so .* blocks every tool call/, client);
      assert.match(fixes(r), new RegExp(`asimov wire ${client}`), client);
    }
  });

  // A project's config is anyone's to edit (a cloned repository's): a line that carries asimov's marker but is
  // not asimov's own must never be run by doctor, or checking a repository would run its code.
  test('a planted line that only carries asimov\'s marker is never run; doctor says to wire asimov', async () => {
    const s = scratch();
    trustGemini(s);
    const pwned = join(s.project, 'PWNED');
    mkdirSync(join(s.project, '.gemini'), { recursive: true });
    const planted = `touch ${pwned} # asimov-hook:gemini`;
    writeFileSync(join(s.project, '.gemini', 'settings.json'), JSON.stringify({
      hooks: { BeforeTool: [{ matcher: '.*', hooks: [{ type: 'command', command: planted, timeout: 60 }] }] },
    }));
    const r = await s.doctor('gemini');
    assert.ok(!existsSync(pwned), 'doctor ran the planted command line');
    assert.equal(r.protected, false);
    assert.match(failures(r).join('\n'), /did not run the installed command line: it is not the one this asimov installs/);
    assert.match(fixes(r), /asimov wire gemini/);
    // Nor a line of asimov's shape with something appended, nor asimov's shape naming another node.
    s.wire('gemini', '--scope', 'project');
    const file = join(s.project, '.gemini', 'settings.json');
    const own = readFileSync(file, 'utf8');
    for (const [edit, said] of [
      [(t: string) => t.replace(' || {', ` ; touch ${pwned} || {`), /not the one this asimov installs/],
      [(t: string) => t.split(JSON.stringify(process.execPath).slice(1, -1)).join('/tmp/evil-node'), /the hook runs \/tmp\/evil-node, which does not exist/],
    ] as const) {
      writeFileSync(file, edit(own));
      const again = await s.doctor('gemini');
      assert.ok(!existsSync(pwned), 'doctor ran an edited command line');
      assert.match(failures(again).join('\n'), said);
    }
    // An asimov that cannot find its own entry point runs no line at all.
    writeFileSync(file, own);
    assert.match(failures(await s.doctor('gemini', {}, null)).join('\n'), /not the one this asimov installs/);
  });

  test('a config file that no longer parses is a failure, not a pass', async () => {
    const s = scratch();
    s.wire('cursor');
    const file = join(s.home, '.cursor', 'hooks.json');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, text.length - 4));
    const r = await s.doctor('cursor');
    assert.equal(r.protected, false);
    assert.match(failures(r).join('\n'), /hooks\.json cannot be parsed/);
  });
});

describe('Gemini CLI folder trust and switches', () => {
  test('a folder Gemini does not trust: NOT PROTECTED, with the way to trust it', async () => {
    const s = scratch();
    s.wire('gemini');
    let r = await s.doctor('gemini');
    assert.equal(r.protected, false);
    assert.match(failures(r).join('\n'), /has not been told to trust .*, so it runs no hooks here/);
    assert.match(fixes(r), /\/permissions trust/);
    // The hook itself still works: only the trust is missing.
    assert.match(r.checks.map((c) => c.title).join('\n'), /runs and blocks a dangerous call/);

    trustGemini(s, { [s.root]: 'TRUST_FOLDER', [s.project]: 'DO_NOT_TRUST' });
    r = await s.doctor('gemini');
    assert.match(failures(r).join('\n'), /distrusts .* \(DO_NOT_TRUST/);

    // TRUST_PARENT on a folder inside the project trusts the project (Gemini's longest-match rule).
    trustGemini(s, { [join(s.project, 'src')]: 'TRUST_PARENT' });
    r = await s.doctor('gemini');
    assert.deepEqual(failures(r), []);

    trustGemini(s, {});
    assert.equal((await s.doctor('gemini', { GEMINI_CLI_TRUST_WORKSPACE: 'true' })).protected, true);
    trustGemini(s, { [s.project]: 'TRUST_FOLDER' });
    assert.equal((await s.doctor('gemini', { GEMINI_CLI_TRUST_WORKSPACE: 'false' })).protected, false);
  });

  test('folder trust switched off in the user settings: hooks run everywhere', async () => {
    const s = scratch();
    s.wire('gemini');
    const file = join(s.home, '.gemini', 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...settings, security: { folderTrust: { enabled: false } } }));
    const r = await s.doctor('gemini');
    assert.deepEqual(failures(r), []);
    assert.match(r.checks.map((c) => c.title).join('\n'), /folder trust is off/);
  });

  test('a broken trusted folders file keeps Gemini from starting, and doctor says so', async () => {
    const s = scratch();
    s.wire('gemini');
    trustGemini(s, { [s.project]: 'TRUST_ME' });
    assert.match(failures(await s.doctor('gemini')).join('\n'), /trust level "TRUST_ME"/);
  });

  test('hooksConfig in another settings file switching hooks off is a failure', async () => {
    const s = scratch();
    s.wire('gemini');
    trustGemini(s);
    mkdirSync(join(s.project, '.gemini'), { recursive: true });
    writeFileSync(join(s.project, '.gemini', 'settings.json'), '// the project\'s\n{ "hooksConfig": { "enabled": false, "disabled": ["asimov"] } }\n');
    const f = failures(await s.doctor('gemini')).join('\n');
    assert.match(f, /"enabled": false\} in .*project.*settings\.json switches every Gemini CLI hook off/);
    assert.match(f, /hooksConfig\.disabled in .* lists "asimov"/);
  });

  test('wired at tier 2 as well: an untrusted folder is a warning, and the tier 2 wiring an info line', async () => {
    const s = scratch();
    s.wire('gemini');
    s.wire('gemini', '--tier', '2');
    const r = await s.doctor('gemini');
    assert.deepEqual(failures(r), []);
    assert.ok(r.checks.some((c) => c.status === 'warn' && /tier 2 wiring still holds/.test(c.title)));
    assert.ok(r.checks.some((c) => c.status === 'info' && /wired at tier 2 in .*settings\.json \(user\)/.test(c.title)));
  });
});

describe('Codex, Qwen Code and Grok CLI', () => {
  test("Codex without the hook's trust record: NOT PROTECTED", async () => {
    const s = scratch();
    s.wire('codex');
    assert.match((await s.doctor('codex')).checks.map((c) => c.title).join('\n'), /trust record for asimov's hook/);
    writeFileSync(join(s.home, '.codex', 'config.toml'), '# the person\'s own settings\nmodel = "o4"\n');
    const r = await s.doctor('codex');
    assert.equal(r.protected, false);
    assert.match(failures(r).join('\n'), /does not trust asimov's hook in .*hooks\.json as it is now, so Codex skips it/);
    assert.match(fixes(r), /asimov wire codex/);
  });

  test('Qwen Code with disableAllHooks in a settings file: NOT PROTECTED', async () => {
    const s = scratch();
    s.wire('qwen');
    mkdirSync(join(s.project, '.qwen'), { recursive: true });
    writeFileSync(join(s.project, '.qwen', 'settings.json'), '{ "disableAllHooks": true }\n');
    assert.match(failures(await s.doctor('qwen')).join('\n'), /"disableAllHooks": true in .* switches every Qwen Code hook off/);
  });

  test('Factory Droid with a hooks.json that lacks asimov: NOT PROTECTED until wire adds it there too', async () => {
    const s = scratch();
    s.wire('droid');
    writeFileSync(join(s.home, '.factory', 'hooks.json'), '{ "hooks": {} }\n');
    const r = await s.doctor('droid');
    assert.match(failures(r).join('\n'), /hooks\.json exists without asimov's hook/);
    s.wire('droid');
    assert.deepEqual(failures(await s.doctor('droid')), []);
  });

  test('Grok CLI wired (tier 3) is reported with its tier, and is not protection', async () => {
    const s = scratch();
    s.wire('grok');
    const r = await s.doctor('grok');
    assert.equal(r.protected, false);
    assert.ok(r.checks.some((c) => c.status === 'info' && /wired at tier 3/.test(c.title)));
    assert.match(failures(r).join('\n'), /tier 3 only: advisory/);
  });
});

describe('the doctor command', () => {
  function run(s: Scratch, argv: string[], env: NodeJS.ProcessEnv = s.env): Promise<{ code: number; out: string }> {
    let out = '';
    const io: CliIO = {
      out: (x) => { out += x; }, err: (x) => { out += x; },
      stdin: async function* () { /* nothing */ }, cwd: s.project, env,
    };
    return doctorCommand(argv, io).then((code) => ({ code, out }));
  }

  test('with no client: one section per wired client, and the exit status of the wired ones', async () => {
    const s = scratch();
    s.wire('copilot');
    s.wire('cursor');
    // No client executables on PATH: the clients here are the ones whose config directories exist.
    const bin = join(s.root, 'bin');
    mkdirSync(bin);
    const env = { ...s.env, PATH: bin };
    let r = await run(s, [], env);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^asimov doctor: GitHub Copilot CLI in /m);
    assert.match(r.out, /^asimov doctor: Cursor in /m);
    assert.equal(r.out.match(/^PROTECTED/gm)?.length, 2, r.out);

    const json = await run(s, ['--json'], env);
    const reports = json.out.trim().split('\n').map((l) => JSON.parse(l) as DoctorReport);
    assert.deepEqual(reports.map((x) => x.client), ['copilot', 'cursor']);

    moveAsimov(join(s.home, '.cursor', 'hooks.json'));
    r = await run(s, [], env);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /^NOT PROTECTED: .* until then Cursor/m);
  });

  test('with no client: installed but unwired clients are named, and checked only when nothing is wired', async () => {
    const s = scratch();
    // A stand-in `gemini` on PATH is how `wire --list` detects an installed Gemini CLI; it is never run.
    const bin = join(s.root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'gemini'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const env = { ...s.env, PATH: bin };
    let r = await run(s, [], env);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /^asimov doctor: Gemini CLI in /);
    assert.match(r.out, /asimov is not wired into Gemini CLI/);

    s.wire('copilot');
    r = await run(s, [], env);
    assert.equal(r.code, 0, r.out);
    assert.doesNotMatch(r.out, /^asimov doctor: Gemini CLI/m);
    assert.match(r.out, /Also installed here, not wired, so not checked: Gemini CLI \(gemini\)/);
    const json = await run(s, ['--json'], env);
    assert.equal((JSON.parse(json.out) as DoctorReport).client, 'copilot');
  });

  test('a named client, and one doctor does not know', async () => {
    const s = scratch();
    s.wire('copilot');
    const ok = await run(s, ['copilot']);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /^asimov doctor: GitHub Copilot CLI in /);
    const not = await run(s, ['gemini']);
    assert.equal(not.code, 1);
    assert.match(not.out, /asimov wire gemini/);
    await assert.rejects(run(s, ['cline']), /'cline' is not one of them/);
  });
});
