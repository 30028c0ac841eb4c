// `asimov wire` as a person runs it: the built binary in a real process, a scratch HOME and project,
// real settings files.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildHookCommand, isAsimovHookCommand } from '../../src/wire/hook-command.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');
let root = '';

before(() => {
  assert.ok(existsSync(resolve(import.meta.dirname, '../../dist/cli.cjs')), 'dist/cli.cjs is missing: run `npm run build` (npm test does)');
  root = mkdtempSync(join(tmpdir(), 'asimov-wire-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

interface Run { code: number | null; out: string; err: string }

/** A fresh HOME with a git project inside it. */
function scratch(name: string): { home: string; project: string; settings: string } {
  const home = join(root, name);
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  return { home, project, settings: join(home, '.claude', 'settings.json') };
}

function run(args: string[], o: { home: string; cwd: string; env?: Record<string, string> }): Run {
  const r = spawnSync(process.execPath, [BIN, 'wire', ...args], {
    cwd: o.cwd,
    input: '',
    env: { PATH: process.env.PATH ?? '', HOME: o.home, ...o.env },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function noStackTrace(r: Run): void {
  assert.doesNotMatch(r.out + r.err, /\n\s+at .+:\d+:\d+\)?\n/, 'a stack trace was printed');
}

interface Settings { hooks: Record<string, { matcher: string; hooks: { type: string; command: string; timeout: number }[] }[]>; [k: string]: unknown }
const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Settings;

describe('asimov wire claude', () => {
  test('installs both hooks in ~/.claude/settings.json, naming this asimov by absolute path', () => {
    const s = scratch('install');
    const r = run(['claude'], { home: s.home, cwd: s.project });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`^Claude Code settings \\(user\\): ${s.settings}\n`));
    assert.match(r.out, /added PreToolUse hook \(matcher \*\)\n {2}added PermissionRequest hook \(matcher \*\)\n/);
    const j = read(s.settings);
    for (const event of ['PreToolUse', 'PermissionRequest']) {
      const [g] = j.hooks[event]!;
      assert.equal(g!.matcher, '*');
      const h = g!.hooks[0]!;
      assert.equal(h.type, 'command');
      assert.ok(isAsimovHookCommand(h.command, 'claude'));
      assert.ok(h.command.includes(`${process.execPath} ${BIN} hook claude --deadline-ms 40000`), h.command);
      assert.ok(h.timeout > 42);
    }
    assert.equal(statSync(s.settings).mode & 0o777, 0o600);
    assert.equal(statSync(join(s.home, '.claude')).mode & 0o777, 0o700);
  });

  test('a second run changes nothing, byte for byte', () => {
    const s = scratch('twice');
    assert.equal(run(['claude'], { home: s.home, cwd: s.project }).code, 0);
    const first = readFileSync(s.settings);
    const r = run(['claude'], { home: s.home, cwd: s.project });
    assert.equal(r.code, 0);
    assert.match(r.out, /nothing to change: asimov's hooks are installed and current/);
    assert.deepEqual(readFileSync(s.settings), first);
  });

  test('keeps other settings, and uninstall gives back the original bytes', () => {
    const s = scratch('keep');
    mkdirSync(join(s.home, '.claude'));
    const original = '{\n    "model": "opus",\n    "hooks": {\n        "Stop": [ { "hooks": [ { "type": "command", "command": "echo bye" } ] } ]\n    }\n}\n';
    writeFileSync(s.settings, original, { mode: 0o640 });
    assert.equal(run(['claude'], { home: s.home, cwd: s.project }).code, 0);
    const j = read(s.settings);
    assert.equal(j.model, 'opus');
    assert.equal(j.hooks['Stop']![0]!.hooks[0]!.command, 'echo bye');
    assert.equal(statSync(s.settings).mode & 0o777, 0o640, 'the file keeps its mode');
    const u = run(['claude', '--uninstall'], { home: s.home, cwd: s.project });
    assert.equal(u.code, 0, u.err);
    assert.match(u.out, /removed PreToolUse hook\n {2}removed PermissionRequest hook\n/);
    assert.equal(readFileSync(s.settings, 'utf8'), original);
    const again = run(['claude', '--uninstall'], { home: s.home, cwd: s.project });
    assert.equal(again.code, 0);
    assert.match(again.out, /nothing to change: no asimov hooks in this file/);
  });

  test('--dry-run prints the changes and a diff, and writes nothing', () => {
    const s = scratch('dry');
    const r = run(['claude', '--dry-run'], { home: s.home, cwd: s.project });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /added PreToolUse hook/);
    assert.match(r.out, /^\+ {5}"PreToolUse": \[$/m);
    assert.match(r.out, /dry run: nothing was written\n/);
    assert.ok(!existsSync(join(s.home, '.claude')), 'nothing may be created');

    assert.equal(run(['claude'], { home: s.home, cwd: s.project }).code, 0);
    const installed = readFileSync(s.settings);
    const u = run(['claude', '--uninstall', '--dry-run'], { home: s.home, cwd: s.project });
    assert.match(u.out, /removed PreToolUse hook/);
    assert.match(u.out, /^- {5}"PreToolUse": \[$/m);
    assert.deepEqual(readFileSync(s.settings), installed);
  });

  test('refuses a settings file it cannot parse, names line and column, leaves it alone', () => {
    const s = scratch('broken');
    mkdirSync(join(s.home, '.claude'));
    const broken = '{\n  "model": "opus"\n  "hooks": {}\n}\n';
    writeFileSync(s.settings, broken);
    for (const args of [['claude'], ['claude', '--uninstall']]) {
      const r = run(args, { home: s.home, cwd: s.project });
      assert.equal(r.code, 1);
      assert.match(r.err, new RegExp(`${s.settings}:3:3: not valid JSON: a ',' was expected\nThe file was not changed`));
      noStackTrace(r);
      assert.equal(readFileSync(s.settings, 'utf8'), broken);
    }
    writeFileSync(s.settings, '[]\n');
    const arr = run(['claude'], { home: s.home, cwd: s.project });
    assert.equal(arr.code, 1);
    assert.match(arr.err, /:1:1: the top-level value must be an object/);
    assert.equal(readFileSync(s.settings, 'utf8'), '[]\n');
  });

  test('updates the entry of a moved install and of other options in place', () => {
    const s = scratch('moved');
    mkdirSync(join(s.home, '.claude'));
    const old = buildHookCommand({ client: 'claude', nodePath: '/old/node', asimovPath: '/old/asimov/bin/asimov.cjs', watchdog: { kind: 'none' } }).command;
    writeFileSync(s.settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: old, timeout: 50 }] }] } }, null, 2));
    const list = run(['--list', '--verbose'], { home: s.home, cwd: s.project });
    assert.match(list.out, /user +\S+settings\.json: partial: only PreToolUse/);
    const r = run(['claude', '--deadline-ms', '5000', '--on-allow', 'passthrough'], { home: s.home, cwd: s.project });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /updated PreToolUse hook \(matcher \*\): new command line, timeout 50 s → 15 s\n {2}added PermissionRequest hook/);
    const h = read(s.settings).hooks['PreToolUse']![0]!.hooks[0]!;
    assert.ok(h.command.includes(`${BIN} hook claude --deadline-ms 5000 --on-allow passthrough`), h.command);
    assert.equal(h.timeout, 15);
  });

  test('project and local scopes write into the project, with a note on machine-specific paths', () => {
    const s = scratch('scopes');
    const sub = join(s.project, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const p = run(['claude', '--scope', 'project'], { home: s.home, cwd: sub });
    assert.equal(p.code, 0, p.err);
    assert.match(p.out, new RegExp(`\\(project\\): ${join(s.project, '.claude', 'settings.json')}`));
    assert.match(p.out, /absolute paths on this machine/);
    assert.equal(statSync(join(s.project, '.claude', 'settings.json')).mode & 0o777, 0o644);
    const l = run(['claude', '--scope', 'local'], { home: s.home, cwd: s.project });
    assert.equal(l.code, 0, l.err);
    assert.ok(read(join(s.project, '.claude', 'settings.local.json')).hooks['PreToolUse']);
    assert.doesNotMatch(l.out, /absolute paths on this machine/);
    assert.ok(!existsSync(s.settings), 'the user file is not touched');
  });

  test('honours CLAUDE_CONFIG_DIR for the user scope', () => {
    const s = scratch('configdir');
    const cfg = join(s.home, 'cfg');
    const r = run(['claude'], { home: s.home, cwd: s.project, env: { CLAUDE_CONFIG_DIR: cfg } });
    assert.equal(r.code, 0, r.err);
    assert.ok(read(join(cfg, 'settings.json')).hooks['PreToolUse']);
    assert.ok(!existsSync(s.settings));
  });

  test('writes through a symlinked settings file and says where', () => {
    const s = scratch('symlink');
    const dotfiles = join(s.home, 'dotfiles');
    mkdirSync(dotfiles);
    mkdirSync(join(s.home, '.claude'));
    writeFileSync(join(dotfiles, 'claude.json'), '{}\n');
    symlinkSync(join(dotfiles, 'claude.json'), s.settings);
    const r = run(['claude'], { home: s.home, cwd: s.project });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`a symlink: writing through it to ${join(dotfiles, 'claude.json')}`));
    assert.ok(lstatSync(s.settings).isSymbolicLink(), 'the link stays a link');
    assert.ok(read(join(dotfiles, 'claude.json')).hooks['PreToolUse']);
  });

  // Every client CLIENTS knows can be wired now, so the "not supported yet" message has no client to show it.
  test('usage errors and unknown clients: exit 1 with a message', () => {
    const s = scratch('usage');
    const cases: [string[], RegExp][] = [
      [[], /name a client/],
      [['claude', '--scope', 'global'], /--scope must be one of user, project, local/],
      [['claude', '--on-allow', 'yes'], /--on-allow must be approve or passthrough/],
      [['claude', '--deadline-ms', '50'], /--deadline-ms must be a whole number/],
      [['frob'], /unknown client 'frob'/],
      [['--list', 'claude'], /--list takes no client name/],
    ];
    for (const [args, message] of cases) {
      const r = run(args, { home: s.home, cwd: s.project });
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.err, message, args.join(' '));
      noStackTrace(r);
    }
    assert.ok(!existsSync(join(s.home, '.claude')));
  });
});

describe('asimov wire --list', () => {
  test('each known client, and for claude each settings file with its state', () => {
    const s = scratch('list');
    const before = run(['--list', '--verbose'], { home: s.home, cwd: s.project, env: { PATH: '/nonexistent' } });
    assert.equal(before.code, 0, before.err);
    assert.match(before.out, /\nClaude Code \(claude\): not detected; tier 1 \(native pre-tool hook\)\n/);
    assert.match(before.out, /\n {2}user +\S+\/\.claude\/settings\.json \(no file\): not installed\n/);
    assert.match(before.out, /\nGemini CLI \(gemini\): not detected; tier 1 \(native pre-tool hook; Gemini runs no hooks at all in a folder it does not trust[^)]*\)\)\n/);
    for (const name of ['codex', 'copilot']) assert.match(before.out, new RegExp(`\\(${name}\\): not detected; tier 1 \\(native pre-tool hook; `));
    // Clients wired from their documentation only say so next to the tier.
    for (const name of ['qwen', 'droid', 'cursor', 'windsurf', 'kimi', 'goose']) assert.match(before.out, new RegExp(`\\(${name}\\): not detected; tier 1 \\(native pre-tool hook; [^)]*not yet verified`));
    assert.doesNotMatch(before.out, /not supported yet/);

    assert.equal(run(['claude'], { home: s.home, cwd: s.project }).code, 0);
    mkdirSync(join(s.home, '.gemini'));
    mkdirSync(join(s.project, '.claude'));
    writeFileSync(join(s.project, '.claude', 'settings.json'), '{ nope');
    const after = run(['--list', '--verbose'], { home: s.home, cwd: s.project, env: { PATH: '/nonexistent' } });
    assert.match(after.out, new RegExp(`\\nClaude Code \\(claude\\): detected \\(${join(s.home, '.claude')} exists\\); tier 1`));
    assert.match(after.out, /\n {2}user +\S+settings\.json: installed\n/);
    assert.match(after.out, /\n {2}project +\S+settings\.json: unreadable: \S+settings\.json:1:3: not valid JSON/);
    assert.match(after.out, /\n {2}local +\S+settings\.local\.json \(no file\): not installed\n/);
    assert.match(after.out, /Gemini CLI \(gemini\): detected \(\S+\.gemini exists\); tier 1/);
    assert.match(after.out, /\n {2}user t1 +\S+\/\.gemini\/settings\.json \(no file\): not installed\n/);
    assert.equal(run(['gemini'], { home: s.home, cwd: s.project }).code, 0);
    assert.match(run(['--list', '--verbose'], { home: s.home, cwd: s.project, env: { PATH: '/nonexistent' } }).out, /\n {2}user t1 +\S+\/\.gemini\/settings\.json: installed\n/);

    const json = run(['--list', '--json'], { home: s.home, cwd: s.project, env: { PATH: '/nonexistent' } });
    const { clients } = JSON.parse(json.out) as { clients: { name: string; supported: boolean; detected: boolean; scopes?: { scope: string; state: string; events: { event: string }[] }[] }[] };
    const claude = clients.find((c) => c.name === 'claude')!;
    assert.equal(claude.supported, true);
    assert.deepEqual(claude.scopes!.map((x) => [x.scope, x.state]), [['user', 'installed'], ['project', 'unreadable'], ['local', 'not installed'], ['managed', 'not installed']]);
    assert.deepEqual(claude.scopes![0]!.events.map((e) => e.event), ['PreToolUse', 'PermissionRequest']);
    assert.deepEqual(clients.map((c) => c.name), ['claude', 'gemini', 'codex', 'copilot', 'qwen', 'droid', 'cursor', 'windsurf', 'kimi', 'goose', 'opencode', 'grok']);
  });

  test('the table: client, installed, wired where, tier (in parentheses until wired) and why', () => {
    const s = scratch('table');
    mkdirSync(join(s.home, '.claude'));
    const env = { PATH: '/nonexistent' };
    const before = run(['--list'], { home: s.home, cwd: s.project, env });
    assert.equal(before.code, 0, before.err);
    assert.match(before.out, /^CLIENT +INSTALLED +WIRED +TIER +WHY\n/);
    assert.match(before.out, /\nClaude Code \(claude\) +yes +no +\(1\) +native pre-tool hook\n/);
    assert.match(before.out, /\nGemini CLI \(gemini\) +no +no +\(1\) +native pre-tool hook; Gemini runs no hooks/);
    assert.match(before.out, /\nGrok CLI \(grok\) +no +no +\(3\) +ADVISORY ONLY/);
    assert.equal(run(['claude'], { home: s.home, cwd: s.project, env }).code, 0);
    assert.equal(run(['claude', '--scope', 'local'], { home: s.home, cwd: s.project, env }).code, 0);
    assert.match(run(['--list'], { home: s.home, cwd: s.project, env }).out, /\nClaude Code \(claude\) +yes +user, local +1 +native pre-tool hook\n/);
    // Gemini at tier 2 only: the tier in force is 2, and the caveat about hooks in untrusted folders is gone.
    assert.equal(run(['gemini', '--tier', '2'], { home: s.home, cwd: s.project, env }).code, 0);
    const t2 = run(['--list'], { home: s.home, cwd: s.project, env }).out;
    assert.match(t2, /\nGemini CLI \(gemini\) +yes +user +2 +native shell and file tools off; asimov's gated MCP tools in their place\n/);
    // Both wirings: the hook's tier 1 is the one in force, the other is named with its tier.
    assert.equal(run(['gemini'], { home: s.home, cwd: s.project, env }).code, 0);
    assert.match(run(['--list'], { home: s.home, cwd: s.project, env }).out, /\nGemini CLI \(gemini\) +yes +user, user \(tier 2\) +1 +native pre-tool hook/);
  });

  test('with the npm-installable clients on PATH (the pinned dev dependencies), each is found and reported at tier 1', () => {
    const s = scratch('npm-clients');
    const bin = join(resolve(import.meta.dirname, '../..'), 'node_modules', '.bin');
    const r = run(['--list'], { home: s.home, cwd: s.project, env: { PATH: `${bin}:/usr/bin:/bin` } });
    assert.equal(r.code, 0, r.err);
    for (const [label, name] of [['Claude Code', 'claude'], ['Gemini CLI', 'gemini'], ['Codex CLI', 'codex'], ['GitHub Copilot CLI', 'copilot'], ['OpenCode', 'opencode']]) {
      assert.match(r.out, new RegExp(`\\n${label} \\(${name}\\) +yes +no +\\(1\\) +native pre-tool hook`), `${name}:\n${r.out}`);
    }
    const json = JSON.parse(run(['--list', '--json'], { home: s.home, cwd: s.project, env: { PATH: `${bin}:/usr/bin:/bin` } }).out) as { clients: { name: string; detectedBy?: string; tier: number }[] };
    assert.match(json.clients.find((c) => c.name === 'codex')!.detectedBy!, /^codex on PATH/);
  });

  test('--all wires every detected client at its usual tier, again changes nothing, --uninstall takes them all out', () => {
    const s = scratch('all');
    const env = { PATH: '/nonexistent' };
    const none = run(['--all'], { home: s.home, cwd: s.project, env });
    assert.equal(none.code, 0, none.err);
    assert.match(none.out, /no agent client detected/);
    mkdirSync(join(s.home, '.claude'));
    mkdirSync(join(s.home, '.gemini'));
    mkdirSync(join(s.home, '.codex'));
    const all = run(['--all'], { home: s.home, cwd: s.project, env });
    assert.equal(all.code, 0, all.err);
    assert.match(all.out, /^Claude Code settings \(user\): [\s\S]*\n\nGemini CLI settings \(user\): [\s\S]*\n\nCodex CLI hooks/);
    assert.doesNotMatch(all.out, /copilot|Grok|tier 2/i);
    assert.ok(existsSync(s.settings) && existsSync(join(s.home, '.gemini', 'settings.json')) && existsSync(join(s.home, '.codex', 'hooks.json')));
    assert.ok(!existsSync(join(s.home, '.gemini', 'policies')), 'tier 2 is only ever asked for');
    const again = run(['--all'], { home: s.home, cwd: s.project, env });
    assert.equal((again.out.match(/nothing to change/g) ?? []).length, 3, again.out);
    const un = run(['--all', '--uninstall'], { home: s.home, cwd: s.project, env });
    assert.equal(un.code, 0, un.err);
    assert.match(run(['--list'], { home: s.home, cwd: s.project, env }).out, /\nClaude Code \(claude\) +yes +no +\(1\)/);
    for (const [args, message] of [
      [['--all', 'claude'], /--all wires every detected client: give no client name/],
      [['claude', '--tier', '5'], /--tier must be 1, 2 or 3/],
      [['claude', '--tier', '2'], /Claude Code can be wired at tier 1, not 2/],
    ] as const) {
      const r = run([...args], { home: s.home, cwd: s.project, env });
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.err, message);
      noStackTrace(r);
    }
  });

  test('an entry naming another asimov install is reported as outdated', () => {
    const s = scratch('outdated');
    mkdirSync(join(s.home, '.claude'));
    const old = buildHookCommand({ client: 'claude', nodePath: '/old/node', asimovPath: '/old/bin/asimov.cjs', watchdog: { kind: 'none' } }).command;
    const group = { matcher: '*', hooks: [{ type: 'command', command: old, timeout: 50 }] };
    writeFileSync(s.settings, JSON.stringify({ hooks: { PreToolUse: [group], PermissionRequest: [group] } }));
    const r = run(['--list', '--verbose'], { home: s.home, cwd: s.project });
    assert.match(r.out, /user +\S+settings\.json: outdated: names another node or asimov; rewire with asimov wire --refresh \(or asimov wire claude --scope user\)\n/);
  });
});

describe('asimov wire --refresh', () => {
  test('rewires every recorded place with this node and asimov and the options it was wired with; drops a project that is gone', () => {
    const s = scratch('refresh');
    const other = join(s.home, 'other');
    const gone = join(s.home, 'gone');
    for (const d of [other, gone]) mkdirSync(join(d, '.git'), { recursive: true });
    assert.equal(run(['claude', '--deadline-ms', '5000', '--on-allow', 'passthrough'], { home: s.home, cwd: s.project }).code, 0);
    assert.equal(run(['claude', '--scope', 'project'], { home: s.home, cwd: other }).code, 0);
    assert.equal(run(['gemini', '--scope', 'project'], { home: s.home, cwd: gone }).code, 0);
    rmSync(gone, { recursive: true });
    // Node moved: every hook names a node that is not there any more.
    const files = [s.settings, join(other, '.claude', 'settings.json')];
    for (const f of files) writeFileSync(f, readFileSync(f, 'utf8').split(process.execPath).join('/old/node'));
    assert.match(run(['--list', '--verbose'], { home: s.home, cwd: s.project }).out, /user +\S+settings\.json: outdated/);

    const dry = run(['--refresh', '--dry-run'], { home: s.home, cwd: s.project });
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /dry run: nothing was written/);
    assert.ok(readFileSync(s.settings, 'utf8').includes('/old/node'));

    const r = run(['--refresh'], { home: s.home, cwd: s.home });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`Claude Code settings \\(user\\): ${s.settings}\\n {2}updated PreToolUse hook \\(matcher \\*\\): new command line\\n`));
    assert.match(r.out, new RegExp(`Claude Code settings \\(project\\): ${join(other, '.claude', 'settings.json')}\\n {2}updated PreToolUse hook`));
    assert.match(r.out, new RegExp(`the project ${gone} no longer exists: it is dropped from the record`));
    const user = read(s.settings).hooks['PreToolUse']![0]!.hooks[0]!.command;
    assert.ok(user.includes(`${process.execPath} ${BIN} hook claude --deadline-ms 5000 --on-allow passthrough`), user);
    assert.ok(read(join(other, '.claude', 'settings.json')).hooks['PreToolUse']![0]!.hooks[0]!.command.includes(`${process.execPath} ${BIN} hook claude --deadline-ms 40000 ||`));
    const record = JSON.parse(readFileSync(join(s.home, '.local', 'state', 'asimov', 'wired.json'), 'utf8')) as { places: { client: string }[] };
    assert.deepEqual(record.places.map((p) => p.client), ['claude', 'claude']);
    assert.match(run(['--refresh'], { home: s.home, cwd: s.project }).out, /nothing to change[\s\S]*nothing to change/);

    const bad = run(['--refresh', 'claude'], { home: s.home, cwd: s.project });
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--refresh rewires every recorded place/);
    noStackTrace(bad);
  });

  test('a record that cannot be read is said, and wiring goes on', () => {
    const s = scratch('bad-record');
    const record = join(s.home, '.local', 'state', 'asimov', 'wired.json');
    mkdirSync(join(s.home, '.local', 'state', 'asimov'), { recursive: true });
    writeFileSync(record, '{ nope');
    const r = run(['claude'], { home: s.home, cwd: s.project });
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /note: the record of wired places \S+wired\.json could not be read \(it is not valid: /);
    assert.equal(readFileSync(`${record}.bad`, 'utf8'), '{ nope');
    assert.equal((JSON.parse(readFileSync(record, 'utf8')) as { places: unknown[] }).places.length, 1);
    const none = run(['--refresh'], { home: join(s.home, 'nobody'), cwd: s.project });
    assert.equal(none.code, 0, none.err);
    assert.match(none.out, /no wired place is recorded/);
  });
});

describe('helpers of the command', () => {
  test('locateAsimovEntry finds bin/asimov.cjs from the bundle and from the sources, and nothing elsewhere', async () => {
    const { locateAsimovEntry } = await import('../../src/cli/wire-cmd.ts');
    const repo = resolve(import.meta.dirname, '../..');
    const { pathToFileURL } = await import('node:url');
    assert.equal(locateAsimovEntry(pathToFileURL(join(repo, 'dist', 'cli.cjs')).href), BIN);
    assert.equal(locateAsimovEntry(pathToFileURL(join(repo, 'src', 'cli', 'wire-cmd.ts')).href), BIN);
    assert.equal(locateAsimovEntry(pathToFileURL(join(root, 'elsewhere', 'dist', 'cli.cjs')).href), null);
  });

  test('lineDiff shows changed lines as - then +, with two lines of context', async () => {
    const { lineDiff } = await import('../../src/cli/wire-cmd.ts');
    assert.equal(lineDiff('a\nb\nc\nd\ne\nf\n', 'a\nb\nc\nD\ne\nf\ng\n'), '@@ line 2 @@\n  b\n  c\n- d\n+ D\n  e\n  f\n+ g');
    assert.equal(lineDiff('', '{}\n'), '@@ line 1 @@\n+ {}');
    assert.equal(lineDiff('x\r\ny\r\n', 'x\r\n'), '@@ line 1 @@\n  x\n- y');
  });
});
