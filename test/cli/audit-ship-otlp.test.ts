// A machine's decisions to an OpenTelemetry receiver (`audit.otlp`, no team server): the hook starts the
// background shipper, which exports what the hook wrote; a receiver that refuses keeps the records waiting.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliScratch } from '../helpers/asimov-cli.ts';
import { runCli } from '../helpers/run-cli.ts';
import { attrs, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.ts';
import { shipperPid } from '../../src/audit/ship-state.ts';

const cli = cliScratch('asimov-otlp-cli-');
let rx: OtlpReceiver;
let log: string;

before(async () => {
  rx = await startOtlpReceiver();
  mkdirSync(join(cli.home, '.config/asimov'), { recursive: true });
  writeFileSync(
    join(cli.home, '.config/asimov/policy.yaml'),
    `version: 1\naudit:\n  otlp:\n    endpoint: ${rx.url}\n    headers_env: { authorization: OTLP_AUTH }\n`,
  );
  log = cli.baseEnv().ASIMOV_AUDIT_LOG!;
});
after(async () => {
  // The scratch's own after() stops the shipper before removing the scratch.
  await rx?.close();
});

const env = () => ({ ...cli.baseEnv(), OTLP_AUTH: 'Bearer otlp-secret' });

test('the hook starts the shipper, which exports each decision with its fields as attributes', async () => {
  const payload = (command: string) =>
    JSON.stringify({ session_id: 's9', transcript_path: '/tmp/t', cwd: cli.project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
  cli.run(['hook', 'claude'], { input: payload('ls -la'), env: env() });
  cli.run(['hook', 'claude'], { input: payload('AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 rm s3://prod --recursive'), env: env() });
  const records = await rx.waitFor(2, 20_000);
  const a = attrs(records[1]!.attributes);
  assert.equal(a['asimov.session'], 's9');
  assert.equal(a['asimov.tool'], 'shell');
  assert.ok(typeof a['asimov.decision_id'] === 'string');
  assert.equal(rx.requests[0]!.headers.authorization, 'Bearer otlp-secret');
  assert.ok(!rx.requests.some((r) => r.raw.includes('wJalrXUtnFEMI')), 'the secret never leaves the machine');
  const pid = shipperPid(log);
  assert.ok(pid !== null);
  process.kill(pid, 'SIGTERM');
});

test('ship --once exports the backlog; a refusing receiver keeps it waiting, exit 1', async () => {
  const before = rx.records().length;
  cli.run(['hook', 'claude'], { input: JSON.stringify({ session_id: 's9', transcript_path: '/tmp/t', cwd: cli.project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git status' } }), env: { ...env(), ASIMOV_AUDIT_LOG: log } });
  rx.status = 500;
  const refused = await runCli(process.execPath, [BIN, 'audit', 'ship', '--once'], { cwd: cli.project, env: env() });
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /500.*the rest waits in the log/);
  rx.status = 200;
  const ok = await runCli(process.execPath, [BIN, 'audit', 'ship', '--once'], { cwd: cli.project, env: env() });
  assert.equal(ok.code, 0, ok.stderr);
  assert.ok(rx.records().length > before);
});
