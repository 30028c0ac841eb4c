// The record of wired places: where it lives, that it round-trips owner-only, that a created file stays
// created across runs, that a missing or corrupt record is said and never crashes, and what each kind of
// config (JSON, TOML, YAML) keeps of the person's bytes when asimov's entries come out.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  findPlace, forgetPlace, missingDirs, readWireRecord, recordPlace, removeEmptyDirs, saveWireRecord, wireRecordPath, type WiredPlace,
} from '../../src/wire/record.ts';
import { holdsNothingElse, leftOfNothing, WIRE_TARGETS } from '../../src/wire/targets.ts';
import { plannedHook } from '../helpers/wire-tests.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-record-')));
after(() => rmSync(root, { recursive: true, force: true }));

const place = (over: Partial<WiredPlace> = {}): WiredPlace => ({
  client: 'claude', tier: 1, scope: 'user', file: '/h/.claude/settings.json', args: [], wiredAt: '2026-01-01T00:00:00.000Z',
  files: [{ path: '/h/.claude/settings.json', created: true, createdDirs: ['/h/.claude'] }], ...over,
});

test('the record lives in the XDG state directory, else ~/.local/state, an XDG path that is not absolute ignored', () => {
  assert.equal(wireRecordPath({ XDG_STATE_HOME: '/x/state' }, '/h'), '/x/state/asimov/wired.json');
  assert.equal(wireRecordPath({}, '/h'), '/h/.local/state/asimov/wired.json');
  assert.equal(wireRecordPath({ XDG_STATE_HOME: 'rel' }, '/h'), '/h/.local/state/asimov/wired.json');
});

test('saved atomically and owner-only, read back; a place wire created stays created when wired again', () => {
  const path = join(root, 'rt', 'state', 'asimov', 'wired.json');
  const r = readWireRecord(path);
  assert.deepEqual(r, { path, places: [] }, 'a missing record is an empty one, with nothing to say');
  recordPlace(r, place());
  // Wired again: the file exists now, but wire made it.
  recordPlace(r, place({ deadlineMs: 5000, files: [{ path: '/h/.claude/settings.json', created: false, createdDirs: [] }] }));
  recordPlace(r, place({ client: 'codex', file: '/h/.codex/hooks.json', files: [] }));
  saveWireRecord(r);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(root, 'rt', 'state', 'asimov')).mode & 0o777, 0o700);
  const back = readWireRecord(path);
  assert.equal(back.problem, undefined);
  assert.equal(back.places.length, 2);
  const claude = findPlace(back, { client: 'claude', tier: 1, file: '/h/.claude/settings.json' })!;
  assert.equal(claude.deadlineMs, 5000);
  assert.deepEqual(claude.files, [{ path: '/h/.claude/settings.json', created: true, createdDirs: ['/h/.claude'] }]);
  // Another place that shares a file wire created (Gemini's tier 2 in the settings file of its hook) knows it too.
  recordPlace(back, place({ tier: 2, files: [{ path: '/h/.claude/settings.json', created: false, createdDirs: [] }] }));
  assert.equal(findPlace(back, { client: 'claude', tier: 2, file: '/h/.claude/settings.json' })!.files[0]!.created, true);
  forgetPlace(back, { client: 'claude', tier: 2, file: '/h/.claude/settings.json' });
  forgetPlace(back, claude);
  assert.deepEqual(back.places.map((p) => p.client), ['codex']);
});

test('a corrupt record is said, read as empty, and set aside (never overwritten unseen) when a new one is saved', () => {
  const dir = join(root, 'bad');
  mkdirSync(dir);
  const path = join(dir, 'wired.json');
  for (const text of ['{ nope', '[]', '{"v": 2, "places": []}']) {
    writeFileSync(path, text);
    const r = readWireRecord(path);
    assert.deepEqual(r.places, []);
    assert.match(r.problem ?? '', /not valid/, text);
  }
  // One entry it cannot use among good ones: the good ones are kept, the other said.
  writeFileSync(path, JSON.stringify({ v: 1, places: [place(), { client: 'x' }] }));
  const mixed = readWireRecord(path);
  assert.equal(mixed.places.length, 1);
  assert.match(mixed.problem ?? '', /1 entry not understood/);
  writeFileSync(path, '{ nope');
  const r = readWireRecord(path);
  recordPlace(r, place());
  saveWireRecord(r);
  assert.equal(readFileSync(`${path}.bad`, 'utf8'), '{ nope');
  assert.equal(readWireRecord(path).places.length, 1);
});

test('missingDirs names what writing a file would create, deepest first; removeEmptyDirs removes only empty ones', () => {
  const base = join(root, 'dirs');
  mkdirSync(base);
  const file = join(base, 'a', 'b', 'c', 'f.json');
  const dirs = missingDirs(file);
  assert.deepEqual(dirs, [join(base, 'a', 'b', 'c'), join(base, 'a', 'b'), join(base, 'a')]);
  mkdirSync(join(base, 'a', 'b', 'c'), { recursive: true });
  writeFileSync(join(base, 'a', 'mine.txt'), 'the person\'s own');
  assert.deepEqual(removeEmptyDirs(dirs), [join(base, 'a', 'b', 'c'), join(base, 'a', 'b')]);
  assert.ok(existsSync(join(base, 'a', 'mine.txt')));
});

// One client of each config format: uninstall gives back every other byte, and what it leaves of a file
// wire created from nothing is recognised as holding nothing else (so that file is deleted).
for (const [client, file, own] of [
  ['claude', '/h/.claude/settings.json', '{\n    "model": "opus",\n    "hooks": { "Stop": [] }\n}\n'],
  ['kimi', '/h/.kimi/config.toml', '# mine\ndefault_model = "k2"\n\n[[hooks]]\nevent = "Stop"\ncommand = "echo bye"\n'],
  ['goose', '/h/.agents/plugins/asimov/hooks/hooks.json', null],
] as const) {
  test(`${client}: uninstall keeps every other byte, and a file wire created is recognised as holding nothing else`, () => {
    const t = WIRE_TARGETS[client]!;
    const hook = plannedHook(client, file);
    if (own !== null) {
      const installed = t.plan(own, hook.install).text;
      assert.notEqual(installed, own);
      const removed = t.plan(installed, hook.uninstall).text;
      assert.equal(removed, own);
      assert.equal(holdsNothingElse(t, file, removed), false, 'the person\'s content is never taken for nothing');
    }
    const fresh = t.plan(t.plan(null, hook.install).text, hook.uninstall).text;
    assert.equal(fresh, leftOfNothing(t, file));
    assert.equal(holdsNothingElse(t, file, fresh), true);
  });
}

test('the gated-tools wirings keep the bytes of JSON with comments (gemini) and strict JSON (grok)', () => {
  // The formats wire edits are JSON (with or without comments), TOML, Markdown instruction blocks and whole
  // files of asimov's own; no client asimov wires keeps its hooks in YAML.
  for (const client of ['gemini', 'grok'] as const) {
    const t = WIRE_TARGETS[client]!;
    const file = t.configPath(t.scopes[0]!, { home: '/h', projectRoot: '/p', env: {} });
    const hook = plannedHook(client, file);
    const own = '{\n  // mine\n  "theme": "dark"\n}\n';
    const text = client === 'grok' ? '{\n  "model": "grok-code-fast-1"\n}\n' : own;
    const installed = t.plan(text, { ...hook.install, tools: { command: '/n/node', args: ['/a/bin/asimov.cjs', 'mcp', 'tools'] } }).text;
    assert.equal(t.plan(installed, hook.uninstall).text, text, client);
    assert.equal(holdsNothingElse(t, file, text), false);
    assert.equal(holdsNothingElse(t, file, '{}\n'), true);
  }
});
