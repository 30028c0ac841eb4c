// The judge's settings: the GATE_CHECK switch, the policy's `judge:` section, and the defaults.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MODELS, resolveJudgeSettings } from '../../src/judge/create.ts';
import { gateCheckSwitch } from '../../src/judge/switch.ts';

const defaults = { provider: 'anthropic', model: 'claude-haiku-4-5', timeoutMs: 30_000, onUncertain: 'ask', sendUserRequest: false };

test('off without a judge section, on with one', () => {
  assert.equal(resolveJudgeSettings(undefined, {}), null);
  assert.deepEqual(resolveJudgeSettings({}, {}), defaults);
  assert.deepEqual(resolveJudgeSettings({ provider: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'llama3.1', timeoutMs: 5000, onUncertain: 'deny', sendUserRequest: true }, {}), {
    provider: 'openai', model: 'llama3.1', baseUrl: 'http://localhost:11434/v1', timeoutMs: 5000, onUncertain: 'deny', sendUserRequest: true,
  });
});

test('GATE_CHECK=false turns it off whatever the policy says; GATE_CHECK=true turns it on with defaults', () => {
  assert.equal(resolveJudgeSettings({ provider: 'anthropic' }, { GATE_CHECK: 'false' }), null);
  assert.equal(resolveJudgeSettings({}, { GATE_CHECK: '0' }), null);
  assert.deepEqual(resolveJudgeSettings(undefined, { GATE_CHECK: 'true' }), defaults);
  assert.deepEqual(resolveJudgeSettings(undefined, { GATE_CHECK: 'TRUE' }), defaults);
  // A value that is neither leaves it to the policy.
  assert.equal(resolveJudgeSettings(undefined, { GATE_CHECK: 'maybe' }), null);
  assert.deepEqual(resolveJudgeSettings({}, { GATE_CHECK: '' }), defaults);
});

test('inside a judge\'s own claude -p run, the judge is off', () => {
  assert.equal(resolveJudgeSettings({}, { ASIMOV_JUDGE_CHILD: '1' }), null);
  assert.equal(resolveJudgeSettings({}, { ASIMOV_JUDGE_CHILD: '1', GATE_CHECK: 'true' }), null);
});

test('each provider has a small default model', () => {
  assert.equal(resolveJudgeSettings({ provider: 'claude-cli' }, {})!.model, 'haiku');
  assert.equal(resolveJudgeSettings({ provider: 'openai' }, {})!.model, DEFAULT_MODELS.openai);
});

test('the switch reads the usual boolean spellings', () => {
  for (const v of ['false', 'False', '0', 'off', 'no', ' false ']) assert.equal(gateCheckSwitch(v), false, v);
  for (const v of ['true', '1', 'on', 'yes']) assert.equal(gateCheckSwitch(v), true, v);
  for (const v of [undefined, '', 'later']) assert.equal(gateCheckSwitch(v), undefined, String(v));
});
