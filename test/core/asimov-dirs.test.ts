import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asimovCacheDir, asimovStateDir } from '../../src/core/asimov-dirs.ts';

test('the state directory follows XDG_STATE_HOME when absolute', () => {
  assert.equal(asimovStateDir({ XDG_STATE_HOME: '/s' }, '/h'), '/s/asimov');
  assert.equal(asimovStateDir({}, '/h'), '/h/.local/state/asimov');
  assert.equal(asimovStateDir({ XDG_STATE_HOME: 'rel' }, '/h'), '/h/.local/state/asimov');
  assert.equal(asimovStateDir({ XDG_STATE_HOME: ' /s ' }, '/h'), '/s/asimov');
});

test('the cache directory follows XDG_CACHE_HOME when absolute', () => {
  assert.equal(asimovCacheDir({ XDG_CACHE_HOME: '/c' }, '/h'), '/c/asimov');
  assert.equal(asimovCacheDir({ XDG_CACHE_HOME: 'rel' }, '/h'), '/h/.cache/asimov');
  assert.equal(asimovCacheDir({}, '/h'), '/h/.cache/asimov');
});
