// Tests for settings-diff: strict parsing of agents' settings files and the key paths a change touches.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSettings, settingsChanges, type JsonObject } from '../../src/policy/settings-diff.ts';

function obj(text: string, syntax: 'json' | 'jsonc' = 'json'): JsonObject {
  const r = parseSettings(text, syntax);
  assert.ok(r.ok, `expected ${text} to parse: ${r.ok ? '' : r.why}`);
  return r.value;
}

function paths(before: string, after: string, syntax: 'json' | 'jsonc' = 'json'): string[] {
  return settingsChanges(obj(before, syntax), obj(after, syntax)).map((c) => c.path.join('.'));
}

describe('parseSettings', () => {
  test('reads an object, with unicode escapes in key names decoded as the agent decodes them', () => {
    const v = obj('{"\\u0068ooks": {"Stop": []}}');
    assert.deepEqual([...v.keys()], ['hooks']);
  });
  test('refuses a duplicate key at any depth (parsers disagree on which one wins)', () => {
    assert.equal(parseSettings('{"theme":"x","hooks":{},"hooks":{}}', 'json').ok, false);
    assert.equal(parseSettings('{"ui":{"theme":"a","theme":"b"}}', 'jsonc').ok, false);
    // The same key spelled once plainly and once escaped is still a duplicate.
    assert.equal(parseSettings('{"hooks":{},"\\u0068ooks":{"Stop":[]}}', 'json').ok, false);
  });
  test('refuses comments in a JSON file, accepts them in a JSONC file', () => {
    assert.equal(parseSettings('{"model":"x" // note\n}', 'json').ok, false);
    assert.equal(parseSettings('{"model":"x" /* note */}', 'json').ok, false);
    assert.equal(parseSettings('{\n// my settings\n"ui": {"theme": "GitHub"} /* dark */\n}', 'jsonc').ok, true);
  });
  test('refuses trailing commas, a byte-order mark, empty text and non-object roots', () => {
    assert.equal(parseSettings('{"model":"x",}', 'jsonc').ok, false);
    assert.equal(parseSettings('\uFEFF{"model":"x"}', 'json').ok, false);
    assert.equal(parseSettings('  \n', 'json').ok, false);
    assert.equal(parseSettings('[]', 'json').ok, false);
    assert.equal(parseSettings('"hooks"', 'json').ok, false);
    assert.equal(parseSettings('{"a":1} {"hooks":{}}', 'json').ok, false);
  });
  test('refuses huge and absurdly deep files instead of crashing', () => {
    assert.equal(parseSettings(`{"model":"${'x'.repeat(300 * 1024)}"}`, 'json').ok, false);
    const deep = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
    assert.equal(parseSettings(deep, 'jsonc').ok, false);
  });
  test('keeps __proto__ and constructor as plain keys', () => {
    const v = obj('{"__proto__": {"hooks": 1}, "constructor": 2}');
    assert.deepEqual([...v.keys()], ['__proto__', 'constructor']);
  });
});

describe('settingsChanges', () => {
  test('lists nothing for a reformatted file', () => {
    assert.deepEqual(paths('{"model":"opus","hooks":{"Stop":[]}}', '{\n  "hooks": { "Stop": [] },\n  "model": "opus"\n}'), []);
  });
  test('lists a changed, added or removed key', () => {
    assert.deepEqual(paths('{"model":"opus"}', '{"model":"sonnet"}'), ['model']);
    assert.deepEqual(paths('{}', '{"model":"sonnet"}'), ['model']);
    assert.deepEqual(paths('{"model":"opus","hooks":{}}', '{"model":"opus"}'), ['hooks']);
  });
  test('lists an object key and every key under it that changed', () => {
    assert.deepEqual(paths('{}', '{"ui":{"theme":"x"}}'), ['ui', 'ui.theme']);
    assert.deepEqual(paths('{"ui":{"theme":"a","hideTips":true}}', '{"ui":{"theme":"b","hideTips":true}}'), ['ui', 'ui.theme']);
    assert.deepEqual(paths('{"ui":{"theme":"a"}}', '{}'), ['ui', 'ui.theme']);
  });
  test('compares arrays and type changes whole', () => {
    assert.deepEqual(paths('{"permissions":{"allow":["Read"]}}', '{"permissions":{"allow":["Read","Bash"]}}'), ['permissions', 'permissions.allow']);
    assert.deepEqual(paths('{"ui":{"theme":"a"}}', '{"ui":"dark"}'), ['ui']);
  });
  test('sees a hook added next to a theme change', () => {
    assert.deepEqual(paths('{"ui":{"theme":"a"}}', '{"ui":{"theme":"b"},"hooks":{"BeforeTool":[]}}', 'jsonc'), ['ui', 'ui.theme', 'hooks', 'hooks.BeforeTool']);
  });
});
