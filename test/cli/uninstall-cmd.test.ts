// `asimov uninstall` as a person runs it: the built binary, a scratch HOME with the person's own settings for
// Claude Code (user scope, and project scope in a second project), Gemini CLI and Codex (whose trust record
// goes in the person's config.toml). Every file's bytes are snapshotted before `asimov wire`, and after
// `asimov uninstall` every file is back byte for byte and every file and directory wire created is gone.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { BIN, scratchDirs } from '../helpers/hook-tests.ts';

let root = '';
before(() => {
  assert.ok(existsSync(join(import.meta.dirname, '../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = scratchDirs('asimov-uninstall-').root;
});
after(() => rmSync(root, { recursive: true, force: true }));

interface Run { code: number | null; out: string; err: string }

function asimov(args: string[], o: { home: string; cwd: string; env?: Record<string, string> }): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: o.cwd, input: '', encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: o.home, ...o.env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Every file (with its bytes) and directory under `dir`, by relative path; `skip` leaves a subtree out. */
function snapshot(dir: string, skip: readonly string[] = []): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const rel = relative(dir, p);
      if (skip.includes(rel)) continue;
      if (lstatSync(p).isDirectory()) {
        out.set(`${rel}/`, null);
        walk(p);
      } else out.set(rel, readFileSync(p, 'latin1'));
    }
  };
  walk(dir);
  return out;
}

/** A fresh machine: HOME and two git projects beside it. */
function machine(name: string): { home: string; project: string; other: string } {
  const base = join(root, name);
  const home = join(base, 'home');
  const project = join(base, 'project');
  const other = join(base, 'other-project');
  for (const d of [home, join(project, '.git'), join(other, '.git')]) mkdirSync(d, { recursive: true });
  return { home, project, other };
}

const CLAUDE_OWN = '{\n    "model": "opus",\n    "hooks": {\n        "Stop": [ { "hooks": [ { "type": "command", "command": "echo bye" } ] } ]\n    }\n}\n';
const GEMINI_OWN = '{\n  // my settings\n  "theme": "GitHub",\n  "hooks": {\n    "AfterTool": [ { "matcher": "*", "hooks": [ { "type": "command", "command": "./log.sh" } ] } ]\n  }\n}\n';
const CODEX_OWN = '# my Codex config\nmodel = "o3"\n\n[projects."/work"]\ntrust_level = "trusted"\n';

describe('asimov uninstall', () => {
  test('every file wire touched is back byte for byte, every file and directory it created is gone, in every recorded place', () => {
    const m = machine('bytes');
    mkdirSync(join(m.home, '.claude'));
    writeFileSync(join(m.home, '.claude', 'settings.json'), CLAUDE_OWN, { mode: 0o640 });
    mkdirSync(join(m.home, '.gemini'));
    writeFileSync(join(m.home, '.gemini', 'settings.json'), GEMINI_OWN);
    mkdirSync(join(m.home, '.codex'));
    writeFileSync(join(m.home, '.codex', 'config.toml'), CODEX_OWN);
    const before = snapshot(join(root, 'bytes'));

    const here = { home: m.home, cwd: m.project };
    // Gemini's project settings file is created by its hook and shared with its gated tools (tier 2).
    for (const args of [['claude'], ['gemini'], ['codex'], ['gemini', '--scope', 'project'], ['gemini', '--tier', '2'], ['gemini', '--tier', '2', '--scope', 'project']]) {
      const r = asimov(['wire', ...args], here);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    }
    // The project scope of a second project, wired from there with its own options.
    assert.equal(asimov(['wire', 'claude', '--scope', 'project', '--deadline-ms', '5000'], { home: m.home, cwd: m.other }).code, 0);
    assert.match(readFileSync(join(m.home, '.codex', 'config.toml'), 'utf8'), /trusted_hash = "sha256:/);
    assert.ok(existsSync(join(m.other, '.claude', 'settings.json')));
    const record = JSON.parse(readFileSync(join(m.home, '.local', 'state', 'asimov', 'wired.json'), 'utf8')) as { places: { client: string; scope: string; projectRoot?: string; deadlineMs?: number }[] };
    assert.deepEqual(record.places.find((p) => p.projectRoot === m.other), {
      ...record.places.find((p) => p.projectRoot === m.other), client: 'claude', scope: 'project', deadlineMs: 5000,
    });

    // Run from HOME, outside both projects: the record leads it to each.
    const u = asimov(['uninstall'], { home: m.home, cwd: m.home });
    assert.equal(u.code, 0, u.err);
    assert.match(u.out, new RegExp(`Claude Code settings \\(project\\): ${join(m.other, '.claude', 'settings.json')}\\n {2}removed PreToolUse hook\\n {2}removed PermissionRequest hook\\n {2}deleted \\(asimov had created it, and nothing else was in it\\)\\n {2}removed the empty directory ${join(m.other, '.claude')}`));
    assert.match(u.out, /Codex CLI hooks \(user\): \S+hooks\.json\n {2}removed PreToolUse hook\n {2}deleted/);
    assert.match(u.out, /config\.toml:\n {2}removed the trust record of asimov's hook/);
    assert.match(u.out, /Daemon: none running/);
    assert.match(u.out, /npm uninstall -g asimov-firewall\n$/);
    assert.deepEqual(snapshot(join(root, 'bytes'), ['home/.local']), before);
    assert.equal(lstatSync(join(m.home, '.claude', 'settings.json')).mode & 0o777, 0o640, 'the file keeps its mode');

    // Nothing is left to do, and nothing is recorded any more.
    const again = asimov(['uninstall'], { home: m.home, cwd: m.project });
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /^No place with asimov wired is recorded or found here\.\n/);
  });

  test('a created file the person has added to since keeps their content; only asimov\'s entries go', () => {
    const m = machine('added');
    assert.equal(asimov(['wire', 'claude'], { home: m.home, cwd: m.project }).code, 0);
    const file = join(m.home, '.claude', 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, `${JSON.stringify({ model: 'sonnet', ...settings }, null, 2)}\n`);
    const u = asimov(['uninstall'], { home: m.home, cwd: m.project });
    assert.equal(u.code, 0, u.err);
    assert.doesNotMatch(u.out, /deleted/);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { model: 'sonnet' });
  });

  test('a place wired before the record (not recorded) is found as wire --list finds it, and unwired', () => {
    const m = machine('unrecorded');
    const old = buildHookCommand({ client: 'claude', nodePath: '/old/node', asimovPath: '/old/bin/asimov.cjs', watchdog: { kind: 'none' } }).command;
    const group = { matcher: '*', hooks: [{ type: 'command', command: old, timeout: 50 }] };
    mkdirSync(join(m.project, '.claude'));
    const file = join(m.project, '.claude', 'settings.local.json');
    writeFileSync(file, JSON.stringify({ env: { A: '1' }, hooks: { PreToolUse: [group], PermissionRequest: [group] } }));
    const dry = asimov(['uninstall', '--dry-run'], { home: m.home, cwd: m.project });
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /Claude Code settings \(local\): \S+settings\.local\.json\n {2}removed PreToolUse hook\n {2}removed PermissionRequest hook\n {2}dry run: nothing was written\n/);
    assert.match(dry.out, /dry run: nothing was changed/);
    assert.ok(readFileSync(file, 'utf8').includes('/old/node'));
    const u = asimov(['uninstall'], { home: m.home, cwd: m.project });
    assert.equal(u.code, 0, u.err);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { env: { A: '1' } });
  });

  test('--purge says what it removes; --dry-run and no --yes without a terminal remove nothing; --purge --yes removes the three directories', () => {
    const m = machine('purge');
    const env = { XDG_CACHE_HOME: join(m.home, 'xdg-cache') };
    const here = { home: m.home, cwd: m.project, env };
    assert.equal(asimov(['wire', 'claude'], here).code, 0);
    const config = join(m.home, '.config', 'asimov');
    const state = join(m.home, '.local', 'state', 'asimov');
    const cache = join(m.home, 'xdg-cache', 'asimov');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'policy.yaml'), 'rules: {}\n');
    writeFileSync(join(state, 'audit.jsonl'), 'x'.repeat(2048));
    mkdirSync(join(cache, 'judge'), { recursive: true });
    writeFileSync(join(cache, 'judge', 'v'), 'y');
    const settings = readFileSync(join(m.home, '.claude', 'settings.json'), 'utf8');

    const dry = asimov(['uninstall', '--purge', '--dry-run'], here);
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /^--purge removes these directories of asimov's, and everything in them:\n/);
    assert.match(dry.out, new RegExp(`\\n {2}config +${config} +10 B in 1 file\\n`));
    assert.match(dry.out, new RegExp(`\\n {2}state +${state} +2\\.\\d KiB in 2 files\\n`));
    assert.match(dry.out, new RegExp(`\\n {2}cache +${cache} +1 B in 1 file\\n`));
    assert.match(dry.out, /dry run: nothing was removed/);

    const unconfirmed = asimov(['uninstall', '--purge'], here);
    assert.equal(unconfirmed.code, 1);
    assert.match(unconfirmed.err, /add --yes to go ahead \(there is no terminal to ask\)\. Nothing was done\./);
    for (const d of [config, state, cache]) assert.ok(existsSync(d), d);
    assert.equal(readFileSync(join(m.home, '.claude', 'settings.json'), 'utf8'), settings, 'not even unwired');

    const u = asimov(['uninstall', '--purge', '--yes'], here);
    assert.equal(u.code, 0, u.err);
    for (const d of [config, state, cache]) {
      assert.ok(!existsSync(d), d);
      assert.match(u.out, new RegExp(`\\nremoved ${d}\\n`));
    }
    assert.ok(!existsSync(join(m.home, '.claude', 'settings.json')), 'the settings file wire created is gone too');
    assert.ok(existsSync(join(m.home, '.local', 'state')), 'nothing outside asimov\'s directories is removed');
    assert.ok(existsSync(join(m.home, 'xdg-cache')));
  });

  test('stops a running daemon', (t) => {
    const m = machine('daemon');
    const here = { home: m.home, cwd: m.project };
    t.after(() => asimov(['daemon', 'stop'], here));
    const started = asimov(['daemon', 'start', '--idle-minutes', '2'], here);
    assert.equal(started.code, 0, started.err);
    const u = asimov(['uninstall'], here);
    assert.equal(u.code, 0, u.err);
    assert.match(u.out, /\nDaemon: stopped \(pid \d+\)\n/);
    assert.equal(asimov(['daemon', 'status'], here).code, 1);
  });

  test('usage mistakes: exit 1 with a message, no stack trace', () => {
    const m = machine('usage');
    for (const [args, message] of [[['uninstall', 'claude'], /uninstall takes no arguments/], [['uninstall', '--yes'], /--yes goes with --purge/]] as const) {
      const r = asimov([...args], { home: m.home, cwd: m.project });
      assert.equal(r.code, 1);
      assert.match(r.err, message);
      assert.doesNotMatch(r.err, /\n\s+at .+:\d+:\d+/);
    }
  });
});
