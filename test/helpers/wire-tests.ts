// What the wire tests share: asimov's hook command line as the planner tests write it, the wire target's
// own test (registered, scopes, paths), the refusal of config files a client could not read, and a scratch
// HOME on which to run the built `asimov wire <client>` with the whole-run tests every client shares.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';
import { WIRE_TARGETS, type PlanOptions, type WireTarget } from '../../src/wire/targets.ts';
import { BIN, scratchDirs } from './hook-tests.ts';

export interface PlannedHook {
  command: string;
  timeoutSec: number;
  install: PlanOptions;
  uninstall: PlanOptions;
}

/**
 * asimov's hook for `client` as `asimov wire` writes it, for an install path that needs shell quoting (a
 * space and a quote) and with the `timeout` watchdog, so that every planner test sees the hardest command
 * line; and the options that install it at `file` and take it out again.
 */
export function plannedHook(client: string, file: string): PlannedHook {
  const built = buildHookCommand({
    client, nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
  });
  const install = { command: built.command, timeoutSec: built.clientTimeoutSec, uninstall: false, file };
  return { command: built.command, timeoutSec: built.clientTimeoutSec, install, uninstall: { ...install, uninstall: true } };
}

type Planned = { text: string | null; changes: string[] };
type Plan = (text: string | null, o: PlanOptions) => Planned;

/**
 * The round trip of every planner test: installing over `before` gives exactly `expected` and says
 * `changes`, a second install changes nothing, and uninstalling says `removed` and gives back `before`
 * (where there was no file: `leftOfNew`, when the client's test states it).
 */
export function planRoundTrip(plan: Plan, hook: PlannedHook, removed: readonly string[], leftOfNew?: string) {
  return (before: string | null, expected: string, changes: readonly string[]): void => {
    const first = plan(before, hook.install);
    assert.equal(first.text, expected);
    assert.deepEqual(first.changes, changes);
    assert.deepEqual(plan(first.text, hook.install), { text: first.text, changes: [] });
    const out = plan(first.text, hook.uninstall);
    assert.deepEqual(out.changes, removed);
    if (before !== null) assert.equal(out.text, before);
    else if (leftOfNew !== undefined) assert.equal(out.text, leftOfNew);
  };
}

/**
 * What a client that reads hooks.json as strict JSON (Cursor, Copilot CLI) could not read, or would
 * misread, in a file with a version and `event`'s list, each with what asimov's refusal must say.
 */
export function strictHooksJsonRefusals(event: string): Array<[string, RegExp]> {
  return [
    ['{\n  // mine\n  "version": 1\n}\n', /comments are not allowed/],
    ['{\n  "version": 1,\n}\n', /trailing comma/],
    ['[1]\n', /top-level value must be an object/],
    ['{ "hooks": [] }\n', /must be an object/],
    [`{ "hooks": { ${JSON.stringify(event)}: {} } }\n`, /must be a list/],
    ['{ "hooks": {}, "hooks": {} }\n', /appears twice/],
  ];
}

/**
 * Texts a client could not read, or shapes that asimov's edit would break, are refused when installing and
 * when uninstalling alike (so nothing is ever rewritten from a misreading), with wire_settings_invalid and
 * the file and line; `cases` pairs each text with what its message must say.
 */
export function refusesUnreadableTest(
  title: string,
  plan: Plan,
  hook: PlannedHook,
  cases: ReadonlyArray<readonly [string, RegExp]>,
): void {
  test(title, () => {
    for (const [text, re] of cases) {
      for (const o of [hook.install, hook.uninstall]) {
        assert.throws(() => plan(text, o), (e: unknown) => {
          assert.ok(e instanceof AsimovError && e.code === 'wire_settings_invalid', String(e));
          assert.match(e.message, re);
          assert.equal(e.location?.file, hook.install.file);
          assert.equal(typeof e.location?.line, 'number');
          return true;
        }, text);
      }
    }
  });
}

export interface TargetExpectations {
  /** The scopes it supports, the default first. */
  scopes: readonly string[];
  /** Pairs of [the path the client's own functions give, the path expected], made when the test runs. */
  paths: () => ReadonlyArray<readonly [string, string]>;
  /** The mode of a config file it creates in user scope, where the client's test states it. */
  userFileMode?: number;
  /** Whatever else this client's target must hold. */
  also?: () => void;
}

/** The test every wire target has: it is the client's entry in WIRE_TARGETS, with these scopes and paths. */
export function wireTargetTest(title: string, target: WireTarget, expected: TargetExpectations): void {
  test(title, () => {
    for (const [actual, path] of expected.paths()) assert.equal(actual, path);
    assert.deepEqual(target.scopes, expected.scopes);
    if (expected.userFileMode !== undefined) assert.equal(target.modes('user').fileMode, expected.userFileMode);
    expected.also?.();
    assert.equal(WIRE_TARGETS[target.client], target);
  });
}

/**
 * asimov's matcher group as the Claude-shaped settings planners write it (Gemini CLI, Qwen Code, Droid):
 * at `indent`, one level of the file being `unit`; `name` only where the client has the field.
 */
export function matcherGroupText(indent: string, unit: string, hook: { command: string; timeout: number; name?: string }): string {
  const at = (level: number, line: string) => `${indent}${unit.repeat(level)}${line}`;
  return [
    at(0, '{'),
    at(1, '"matcher": "*",'),
    at(1, '"hooks": ['),
    at(2, '{'),
    ...(hook.name === undefined ? [] : [at(3, `"name": ${JSON.stringify(hook.name)},`)]),
    at(3, '"type": "command",'),
    at(3, `"command": ${JSON.stringify(hook.command)},`),
    at(3, `"timeout": ${hook.timeout}`),
    at(2, '}'),
    at(1, ']'),
    at(0, '}'),
  ].join('\n');
}

export interface MatcherGroupSettings {
  /** The event asimov's group goes under. */
  event: string;
  /** One of the person's own settings, as a line of a file indented by four spaces (without the comma). */
  ownSetting: string;
  install(text: string | null): Planned;
  uninstall(text: string | null): Planned;
  /** asimov's group at `indent`, one level of the file being `unit` (two spaces when not given). */
  entry(indent: string, unit?: string): string;
  /** Whatever else holds of the person's file before and after the install. */
  alsoExisting?(before: string, installed: string): void;
}

/**
 * The settings-file tests of the clients that take asimov's matcher group with the timeout in milliseconds
 * (Gemini CLI, Qwen Code): no file gives a new one holding only the group, and an existing file keeps its
 * comments, settings and the person's own hooks byte for byte, takes the group after them, and gets its
 * exact bytes back on uninstall; a second install changes nothing in either.
 */
export function matcherGroupSettingsTests(s: MatcherGroupSettings): void {
  const added = `added ${s.event} hook (matcher *)`;
  test('no file: a new one with the hook for every tool, timeout in milliseconds', () => {
    const r = s.install(null);
    assert.deepEqual(r.changes, [added]);
    assert.equal(r.text, `{\n  "hooks": {\n    ${JSON.stringify(s.event)}: [\n${s.entry('      ')}\n    ]\n  }\n}\n`);
    assert.deepEqual(s.install(r.text), { text: r.text, changes: [] });
    assert.deepEqual(s.uninstall(null), { text: null, changes: [] });
  });

  test('an existing file keeps its comments, settings and hooks byte for byte; uninstall restores it', () => {
    const lint = '            { "matcher": "write_file", "hooks": [ { "type": "command", "command": "./lint.sh" } ] }';
    const settings = (group: string | null) => [
      '{',
      "    // the person's own settings",
      `    ${s.ownSetting},`,
      '    "hooks": {',
      `        ${JSON.stringify(s.event)}: [`,
      ...(group === null ? [lint] : [`${lint},`, group]),
      '        ]',
      '    }',
      '}',
      '',
    ].join('\n');
    const before = settings(null);
    const r = s.install(before);
    assert.deepEqual(r.changes, [added]);
    assert.equal(r.text, settings(s.entry('            ', '    ')));
    assert.deepEqual(s.install(r.text), { text: r.text, changes: [] });
    assert.deepEqual(s.uninstall(r.text), { text: before, changes: [`removed ${s.event} hook`] });
    s.alsoExisting?.(before, r.text!);
  });
}

export interface WireScratch {
  root: string;
  home: string;
  /** A project (with .git) that `asimov wire` runs in. */
  project: string;
  /** Runs the built `asimov wire <client>` in the project, with the scratch HOME. */
  wire(...args: string[]): SpawnSyncReturns<string>;
  cleanup(): void;
}

export function wireScratch(client: string): WireScratch {
  const { root, home, project } = scratchDirs(`asimov-wire-${client}-`);
  return {
    root, home, project,
    wire: (...args) => spawnSync(process.execPath, [BIN, 'wire', client, ...args], {
      cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_DAEMON: 'manual' }, encoding: 'utf8',
    }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface WireRunExpectations {
  /** The config file `asimov wire` edits in user scope. */
  file: string;
  /** A config the person already has, written (private) before the first run. */
  existing?: string;
  /** What the first run must say it did. */
  said: readonly RegExp[];
  /** Checks on the config the first run wrote. */
  installed(text: string): void;
  /** The mode the written config must have, where the client's test states it. */
  mode?: number;
  /** Checks once `--uninstall` has run: the config then (null when gone) and the run. */
  uninstalled(text: string | null, run: SpawnSyncReturns<string>): void;
}

/** The whole run every client shares: `asimov wire` installs, a second run changes nothing, `--uninstall` takes it out. */
export function wireRunTest(title: string, scratch: WireScratch, e: WireRunExpectations): void {
  test(title, () => {
    if (e.existing !== undefined) {
      mkdirSync(dirname(e.file), { recursive: true });
      writeFileSync(e.file, e.existing, { mode: 0o600 });
    }
    const first = scratch.wire();
    assert.equal(first.status, 0, first.stderr);
    for (const re of e.said) assert.match(first.stdout, re);
    e.installed(readFileSync(e.file, 'utf8'));
    if (e.mode !== undefined) assert.equal(statSync(e.file).mode & 0o777, e.mode);
    const second = scratch.wire();
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /nothing to change/);
    const removed = scratch.wire('--uninstall');
    assert.equal(removed.status, 0, removed.stderr);
    e.uninstalled(existsSync(e.file) ? readFileSync(e.file, 'utf8') : null, removed);
  });
}

/** A config file the client could not read (or that is not asimov's to change) fails the run and keeps its bytes. */
export function leavesUnreadableTest(title: string, scratch: WireScratch, bad: { file: string; text: string; error: RegExp; also?: () => void }): void {
  test(title, () => {
    mkdirSync(dirname(bad.file), { recursive: true });
    writeFileSync(bad.file, bad.text);
    const r = scratch.wire();
    assert.equal(r.status, 1);
    assert.match(r.stderr, bad.error);
    assert.equal(readFileSync(bad.file, 'utf8'), bad.text);
    bad.also?.();
  });
}
