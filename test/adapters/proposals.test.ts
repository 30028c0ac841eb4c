// The seed's `EXECUTE: <command>` protocol: what counts as a proposal line and what does not.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractProposal } from '../../src/adapters/proposals.ts';

test('one EXECUTE line: the rest of the line, trimmed, with its 1-based line number', () => {
  assert.deepEqual(extractProposal('Let me look.\nEXECUTE:   ls -la /var/log  \nThen I will read it.'), { kind: 'command', command: 'ls -la /var/log', line: 2 });
});

test('no space after the colon, leading spaces and tabs are fine', () => {
  assert.deepEqual(extractProposal('EXECUTE:uptime'), { kind: 'command', command: 'uptime', line: 1 });
  assert.deepEqual(extractProposal('  \tEXECUTE: df -h'), { kind: 'command', command: 'df -h', line: 1 });
});

test('CRLF and lone CR line endings split lines; the CR never ends up in the command', () => {
  assert.deepEqual(extractProposal('Checking.\r\nEXECUTE: ping -c 1 10.0.0.1\r\nDone.\r\n'), { kind: 'command', command: 'ping -c 1 10.0.0.1', line: 2 });
  assert.deepEqual(extractProposal('a\rb\rEXECUTE: ip route\r'), { kind: 'command', command: 'ip route', line: 3 });
});

test('a byte-order mark at the start does not hide the first line', () => {
  assert.deepEqual(extractProposal('\uFEFFEXECUTE: hostname'), { kind: 'command', command: 'hostname', line: 1 });
});

test('inside a ``` or ~~~ fence the line counts; the fence lines do not', () => {
  assert.deepEqual(extractProposal('I will run:\n```bash\nEXECUTE: show ip interface brief\n```\n'), { kind: 'command', command: 'show ip interface brief', line: 3 });
  assert.deepEqual(extractProposal('~~~\n    EXECUTE: uname -a\n~~~'), { kind: 'command', command: 'uname -a', line: 2 });
});

test('EXECUTE: in the middle of a line is prose, not a proposal', () => {
  assert.deepEqual(extractProposal('To see it I would EXECUTE: ls, but I will not.'), { kind: 'none' });
  assert.deepEqual(extractProposal('The protocol line looks like `EXECUTE: <command>`.'), { kind: 'none' });
});

test('only the capitalised word counts: execute:, Execute:, EXECUTE : and markdown around it do not', () => {
  for (const t of ['execute: ls', 'Execute: ls', 'EXECUTE : ls', 'EXECUTE ls', '- EXECUTE: ls', '> EXECUTE: ls', '**EXECUTE:** ls', '`EXECUTE: ls`', '\u00a0EXECUTE: ls']) {
    assert.deepEqual(extractProposal(t), { kind: 'none' }, t);
  }
});

test('the command is taken exactly: backticks and quotes are left as bash will see them', () => {
  assert.deepEqual(extractProposal('EXECUTE: `ls`'), { kind: 'command', command: '`ls`', line: 1 });
  assert.deepEqual(extractProposal('EXECUTE: echo "EXECUTE: twice"'), { kind: 'command', command: 'echo "EXECUTE: twice"', line: 1 });
});

test('no EXECUTE line at all, or an empty reply: none', () => {
  assert.deepEqual(extractProposal('All interfaces are up. Nothing more to do.'), { kind: 'none' });
  assert.deepEqual(extractProposal(''), { kind: 'none' });
});

test('several EXECUTE lines: several, with every command and line, and nothing chosen', () => {
  const p = extractProposal('First:\nEXECUTE: ls\nthen\nEXECUTE: rm -rf /tmp/x\n```\nEXECUTE: ls\n```');
  assert.equal(p.kind, 'several');
  if (p.kind !== 'several') return;
  assert.deepEqual(p.commands, ['ls', 'rm -rf /tmp/x', 'ls']);
  assert.deepEqual(p.lines, [2, 4, 6]);
  assert.match(p.reason, /3 EXECUTE: lines \(lines 2, 4, 6\).*one at a time/);
});

test('the same command twice is still several', () => {
  assert.equal(extractProposal('EXECUTE: ls\nEXECUTE: ls').kind, 'several');
});

test('an EXECUTE line with no command is invalid, with a reason', () => {
  const p = extractProposal('Here:\nEXECUTE:   \nok');
  assert.deepEqual(p, { kind: 'invalid', line: 2, reason: 'The EXECUTE: line (line 2) has no command after it; write the command on the same line.' });
});

test('a NUL byte in the command is invalid', () => {
  assert.equal(extractProposal('EXECUTE: ls\u0000-la').kind, 'invalid');
});
