// asimov serve's OTLP export against a real OTLP/HTTP receiver on 127.0.0.1: decisions made through /v1/decide
// reach it with who asked; a decision a client shipped (on the bus with its client id) does too; while the
// receiver refuses, decisions wait in a bounded queue that drops the oldest and says so; the server's config
// from its flags or its policy's audit.otlp.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildEvent, GENESIS_HASH, sealEvent, type AuditEvent } from '../../src/audit/event.ts';
import { createEventBus } from '../../src/server/events.ts';
import { insertEvents, itemOf } from '../../src/server/decision-index.ts';
import { serverOtlpConfig, startOtlpExport } from '../../src/server/otlp-export.ts';
import { startTestServer, type TestServer } from '../helpers/serve.ts';
import { attrs, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.ts';

// Built from pieces, so no scanner flags this file as holding real secrets.
const AWS_ID = 'AKIA' + 'IOSFODNN7EXAMPL0';

let rx: OtlpReceiver;
let s: TestServer;

before(async () => {
  rx = await startOtlpReceiver();
  s = await startTestServer({ otlp: { endpoint: `${rx.url}/v1/logs`, headers: { authorization: 'Bearer otlp-test' } } });
});
after(async () => {
  await s.close();
  await rx.close();
});

/** A decision the way a client's log holds it, for the bus paths that do not go through /v1/decide. */
function shipped(id: string, command: string): AuditEvent {
  return sealEvent(
    buildEvent({ tool: 'shell', clientTool: 'Bash', input: { command }, cwd: '/home/ada/p', agent: 'claude-code' }, {
      verdict: 'allow', tier: 'allow', rule: null, reason: 'Reads files.', layer: 'static', ms: 0.2, findings: [], decisionId: id,
    }, { principal: 'laptop-ada' }),
    GENESIS_HASH,
  );
}

function byId(): Map<string, Record<string, unknown>> {
  return new Map(rx.records().map((r) => {
    const a = attrs(r.attributes);
    return [a['asimov.decision_id'] as string, { ...a, severityText: r.severityText, body: r.body.stringValue }];
  }));
}

describe('asimov serve --otlp-endpoint', () => {
  test('decisions made through /v1/decide reach the receiver, with who asked and nothing secret', async () => {
    const token = await s.token(['decide'], 'ci-bot');
    const decide = async (command: string) => {
      const r = await s.call('POST', '/v1/decide', { token, body: { tool: 'shell', input: { command }, cwd: s.project, agent: 'agent-a' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.decisionId as string;
    };
    const ls = await decide('ls -la');
    const rm = await decide('rm -rf /');
    const leak = await decide(`aws iam get-user --access-key ${AWS_ID}`);
    await s.server.deps.auditFeed!.sync();
    await s.server.deps.otlpExport!.flush();
    await rx.waitFor(3);

    const got = byId();
    for (const id of [ls, rm, leak]) {
      const a = got.get(id);
      assert.ok(a, `decision ${id} was exported`);
      assert.equal(a['asimov.principal'], 'ci-bot');
      assert.equal(a['asimov.agent'], 'agent-a');
      assert.equal(a['asimov.client_id'], undefined, 'the server\'s own decisions come from no client');
    }
    assert.equal(got.get(rm)!['asimov.tier'], 'hard_deny');
    assert.equal(got.get(rm)!.severityText, 'ERROR');
    assert.equal(got.get(ls)!.severityText, 'INFO');
    assert.match(got.get(rm)!.body as string, /^DENY hard_deny \S+ {2}rm -rf \/ {2}— /);
    for (const r of rx.requests) {
      assert.equal(r.headers.authorization, 'Bearer otlp-test');
      assert.ok(!r.raw.includes(AWS_ID), 'the key in the command never reaches the receiver');
      assert.equal(attrs(r.body.resourceLogs[0]!.resource.attributes)['service.version'], 'test');
    }
    const st = s.server.deps.otlpExport!.status();
    assert.deepEqual([st.endpoint, st.queued, st.dropped, st.lastError], [`${rx.url}/v1/logs`, 0, 0, null]);
    assert.ok(st.sent >= 3);
  });

  test('a decision a client shipped is exported with its client id (a row on the bus, or an index item)', async () => {
    // The lead's ingest publishes the row; either it carries the record, or the record is read from the index.
    const withRecord = shipped('shipped-1', 'git status');
    s.server.deps.events.publish({ type: 'decision', data: { ...itemOf(withRecord), client_id: 'client-ada', event: withRecord } });
    const indexed = shipped('shipped-2', 'git log');
    await insertEvents(s.server.db, [indexed]);
    await s.server.db.query('UPDATE decisions SET client_id = $1 WHERE decision_id = $2', ['client-bob', 'shipped-2']);
    s.server.deps.events.publish({ type: 'decision', data: { ...itemOf(indexed), clientId: 'client-bob' } });
    await s.server.deps.otlpExport!.flush();
    await rx.waitFor(5);
    const got = byId();
    assert.equal(got.get('shipped-1')!['asimov.client_id'], 'client-ada');
    assert.equal(got.get('shipped-1')!['asimov.principal'], 'laptop-ada');
    assert.equal(got.get('shipped-2')!['asimov.client_id'], 'client-bob');
    assert.equal(got.get('shipped-2')!['asimov.hash'], indexed.hash);
  });
});

describe('startOtlpExport', () => {
  test('while the receiver refuses, decisions wait in a bounded queue that drops the oldest, then go once it accepts', async () => {
    const bus = createEventBus();
    const lines: string[] = [];
    const x = startOtlpExport({ config: { endpoint: `${rx.url}/v1/logs`, headers: {} }, db: s.server.db, events: bus, maxQueue: 3, intervalMs: 20, log: (l) => lines.push(l) });
    try {
      rx.status = 500;
      rx.requests.length = 0;
      for (let i = 1; i <= 5; i++) {
        const e = shipped(`q-${i}`, `echo ${i}`);
        bus.publish({ type: 'decision', data: { event: e } });
      }
      await x.flush();
      const st = x.status();
      assert.equal(st.queued, 3);
      assert.equal(st.dropped, 2);
      assert.equal(st.sent, 0);
      assert.match(st.lastError ?? '', /OTLP export to .*\/v1\/logs failed: the receiver answered HTTP 500/);
      assert.ok(lines.some((l) => /dropped the 1 oldest decisions \(1 in all; the queue holds 3\)/.test(l)), lines.join('\n'));
      assert.ok(lines.some((l) => /HTTP 500.*retried/.test(l)), lines.join('\n'));

      rx.status = 200;
      await rx.waitFor(3, 5000);
      await x.flush(); // the export the receiver just answered, settled
      assert.deepEqual(rx.records().map((r) => attrs(r.attributes)['asimov.decision_id']), ['q-3', 'q-4', 'q-5'], 'the newest three, in order');
      assert.deepEqual(x.status(), { endpoint: `${rx.url}/v1/logs`, queued: 0, sent: 3, dropped: 2, lastError: null });
      assert.ok(lines.some((l) => /works again/.test(l)));
    } finally {
      rx.status = 200;
      await x.close();
    }
  });
});

describe('serverOtlpConfig', () => {
  test('flags: the endpoint, literal headers and headers read from the environment; bad ones are usage errors', () => {
    assert.deepEqual(
      serverOtlpConfig({ endpoint: 'http://collector:4318', headers: ['x-tenant=a'], headersEnv: ['authorization=OTLP_AUTH'] }, { OTLP_AUTH: 'Bearer k' }, s.project),
      { endpoint: 'http://collector:4318/v1/logs', headers: { 'x-tenant': 'a', authorization: 'Bearer k' } },
    );
    const usage = (f: Parameters<typeof serverOtlpConfig>[0], re: RegExp) =>
      assert.throws(() => serverOtlpConfig(f, {}, s.project), (e: Error & { code?: string }) => e.code === 'usage' && re.test(e.message));
    usage({ endpoint: 'ftp://collector' }, /http:\/\/ or https:\/\//);
    usage({ endpoint: 'http://collector', headers: ['novalue'] }, /--otlp-header takes 'name=value'/);
    usage({ endpoint: 'http://collector', headersEnv: ['authorization=OTLP_AUTH'] }, /OTLP_AUTH is not set/);
    usage({ headers: ['a=b'] }, /go with --otlp-endpoint/);
  });

  test('without flags: audit.otlp of the user\'s policy, or nothing', () => {
    assert.equal(serverOtlpConfig({}, s.env, s.project), null);
    const dir = join(s.home, '.config', 'asimov');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'policy.yaml'), 'version: 1\naudit:\n  otlp:\n    endpoint: https://otlp.example\n    headers_env:\n      authorization: OTLP_AUTH\n');
    try {
      assert.deepEqual(serverOtlpConfig({}, { ...s.env, OTLP_AUTH: 'Bearer p' }, s.project), { endpoint: 'https://otlp.example/v1/logs', headers: { authorization: 'Bearer p' } });
      assert.throws(() => serverOtlpConfig({}, s.env, s.project), /audit\.otlp\.headers_env in .*policy\.yaml: OTLP_AUTH \(for the header authorization\) is not set/);
    } finally {
      writeFileSync(join(dir, 'policy.yaml'), 'version: 1\n');
    }
  });
});
