// The alert of a tampered machine log, as a webhook receives it: JSON with the problems and a link to the
// machine on the dashboard, or a Slack message; posted by a real HTTP receiver here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { chainAlertBody, createChainAlertNotifier, type ChainAlert } from '../../src/server/notify.ts';

const alert: ChainAlert = {
  clientId: '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d',
  tokenName: 'alice-laptop',
  host: 'alice-mbp',
  user: 'alice',
  chain: { status: 'broken', problem: 'the local log now ends at record #7', headSeq: 10, headHash: 'a'.repeat(64) },
  problems: [{ kind: 'truncated', seq: 7, decisionId: 'd7', message: 'the local log now ends at record #7: the 3 records after it, already shipped, were cut from it' }],
};

test('the JSON body carries the alert and a link to the machine on the dashboard', () => {
  const b = chainAlertBody(alert, 'json', 'https://gate.example:7420/');
  assert.equal(b.type, 'audit_chain');
  assert.equal(b.link, 'https://gate.example:7420/?client=0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d#team');
  assert.deepEqual(b.alert, alert);
});

test('the Slack body names the machine and the problem, with < > & escaped', () => {
  const b = chainAlertBody({ ...alert, host: '<script>&' }, 'slack', 'https://gate.example');
  assert.match(String(b.text), /alice-laptop on <script>& \(alice\).*ends at record #7/);
  const blocks = JSON.stringify(b.blocks);
  assert.match(blocks, /&lt;script&gt;&amp;/);
  assert.match(blocks, /3 records after it/);
});

test('a receiver that answers 500 is logged, never thrown', async (t) => {
  const got: string[] = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push(body);
      res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  const logs: string[] = [];
  const notify = createChainAlertNotifier({ url: `http://127.0.0.1:${(srv.address() as { port: number }).port}/x`, baseUrl: () => 'http://gate', log: (l) => logs.push(l) });
  notify(alert);
  for (let i = 0; i < 100 && logs.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(JSON.parse(got[0]!).alert.tokenName, 'alice-laptop');
  assert.match(logs[0]!, /answered 500 for the chain of client 0b1c2d3e/);
});
