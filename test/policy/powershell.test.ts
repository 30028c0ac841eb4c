// A PowerShell line that reached a bash tool (Windows agents send them) is reported as PowerShell, still
// `unknown`: only lines bash could not read are named so, so a bash line can never lose its tier this way.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleFindings } from '../../src/policy/examples.ts';
import { recommended } from '../../src/policy/rules/index.ts';

const POLICY = { rules: recommended };

test('a PowerShell line bash cannot read is unknown, named as PowerShell', () => {
  for (const line of [
    '$urls = @("/", "/customers"); foreach ($u in $urls) { Invoke-WebRequest -Uri "http://localhost:3000$u" }',
    'if (Test-Path $p) { Remove-Item $p -Recurse }',
  ]) {
    const r = exampleFindings(line, POLICY);
    assert.equal(r.tier, 'unknown', line);
    assert.equal(r.rule, 'shell.powershell', line);
  }
});

test('a bash line with PowerShell words keeps its own tier', () => {
  assert.equal(exampleFindings('echo Get-Process; rm -rf ~', POLICY).tier, 'hard_deny');
  assert.equal(exampleFindings("echo 'unterminated", POLICY).rule, 'shell.unparseable');
});
