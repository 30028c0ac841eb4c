// Tests for redaction: every kind of secret is removed, everyday text is left alone, large and hostile inputs stay linear.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildEvent } from '../../src/audit/event.ts';
import { createAuditWriter } from '../../src/audit/writer.ts';
import {
  MAX_DEPTH, MAX_STRING_BYTES, isSensitiveName, redactInput, redactSecrets, truncateString, type SecretKind,
} from '../../src/audit/redact.ts';
import { tempDirs } from '../helpers/temp-dirs.ts';

const scratch = tempDirs();

// Built from pieces, so no scanner flags this file as holding real secrets.
const GH = 'ghp_' + 'R4nd0mT0k3nV4lu3'.repeat(2) + 'abcd';
const AWS_ID = 'AKIA' + 'IOSFODNN7EXAMPL0';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYzEXAMPLEKEY';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9' + '.' + 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ' + '.' + 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

/** Each case: the text, the secret that must disappear, and the kind the marker must name. */
const CASES: ReadonlyArray<{ kind: SecretKind; text: string; secret: string }> = [
  { kind: 'aws-access-key-id', text: `aws iam get-user --access-key ${AWS_ID}`, secret: AWS_ID },
  { kind: 'aws-secret-key', text: `aws configure set aws_secret_access_key ${AWS_SECRET}`, secret: AWS_SECRET },
  { kind: 'aws-secret-key', text: `[default]\naws_secret_access_key = ${AWS_SECRET}\n`, secret: AWS_SECRET },
  { kind: 'github-token', text: `git clone https://${GH}@github.com/o/r`, secret: GH },
  { kind: 'github-token', text: 'echo gho_' + 'x'.repeat(36), secret: 'gho_' + 'x'.repeat(36) },
  { kind: 'github-token', text: 'ghu_' + 'Y'.repeat(36) + ' ghs_' + 'Z'.repeat(36), secret: 'ghu_' + 'Y'.repeat(36) },
  { kind: 'github-token', text: 'token ghr_' + '1'.repeat(36), secret: 'ghr_' + '1'.repeat(36) },
  { kind: 'github-token', text: 'github_pat_' + '11ABCDEFG_' + 'q'.repeat(40), secret: 'q'.repeat(40) },
  { kind: 'slack-token', text: 'curl -d token=x xoxb-' + '1234567890-abcdefghij', secret: 'xoxb-1234567890-abcdefghij' },
  { kind: 'slack-token', text: 'SLACK=xoxp-' + '99999999-ABCDEFGHIJ', secret: 'xoxp-99999999-ABCDEFGHIJ' },
  { kind: 'anthropic-key', text: 'claude --key sk-ant-' + 'api03-' + 'A'.repeat(40), secret: 'A'.repeat(40) },
  { kind: 'openai-key', text: 'openai --key sk-' + 'proj-' + 'B'.repeat(40), secret: 'B'.repeat(40) },
  { kind: 'google-api-key', text: 'fetch ?key=' + 'AIza' + 'SyC'.repeat(12), secret: 'SyC'.repeat(12) },
  { kind: 'stripe-key', text: 'stripe login --api sk_' + 'live_' + '51Habc123XYZ456', secret: '51Habc123XYZ456' },
  { kind: 'stripe-key', text: 'rk_' + 'live_' + '51Habc123XYZ789', secret: '51Habc123XYZ789' },
  { kind: 'jwt', text: `curl -d session=1 --cookie jwt ${JWT}.`, secret: JWT.split('.')[2] ?? '' },
  {
    kind: 'private-key',
    text: 'cat > id <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQUJD\n-----END OPENSSH PRIVATE KEY-----\nEOF',
    secret: 'b3BlbnNzaC1rZXktdjEAAAAA',
  },
  { kind: 'private-key', text: 'x -----BEGIN RSA PRIVATE KEY-----\nMIIEcut-off-here', secret: 'MIIEcut-off-here' },
  { kind: 'secret-assignment', text: 'mysql --password hunter2 app', secret: 'hunter2' },
  { kind: 'secret-assignment', text: 'heroku config --api-key "abc def" --app x', secret: 'abc def' },
  { kind: 'cli-credentials', text: 'curl -u admin:s3cretpw https://api', secret: 's3cretpw' },
  { kind: 'cli-credentials', text: 'wget --user=bob:pw12345 https://x', secret: 'pw12345' },
  { kind: 'authorization', text: `curl -H 'Authorization: Bearer opaque.Value_123' https://api`, secret: 'opaque.Value_123' },
  { kind: 'authorization', text: 'curl -H "Authorization: Basic dXNlcjpodW50ZXIy" https://api', secret: 'dXNlcjpodW50ZXIy' },
  { kind: 'bearer-token', text: 'http GET api X-Auth:"Bearer s3cr3tOpaqueValue"', secret: 's3cr3tOpaqueValue' },
  { kind: 'url-credentials', text: 'psql postgres://admin:hunter2pass@db:5432/app', secret: 'hunter2pass' },
  { kind: 'url-credentials', text: 'git push https://x-access-token:s3cret-value@github.com/o/r', secret: 's3cret-value' },
  { kind: 'secret-assignment', text: 'curl "https://api/x?user=bob&password=hunter2&page=1"', secret: 'hunter2' },
  { kind: 'secret-assignment', text: 'curl https://api/x?api_key=k3yv4lue', secret: 'k3yv4lue' },
  { kind: 'secret-assignment', text: 'mysql --passwd=pa55 --secret=s3 --token=t0k', secret: 'pa55' },
  { kind: 'secret-assignment', text: 'GITHUB_TOKEN=abc123 gh pr list', secret: 'abc123' },
  { kind: 'secret-assignment', text: 'export API_KEY="my key value" && run', secret: 'my key value' },
  { kind: 'secret-assignment', text: "DB_PASSWORD='x y z' MY_APIKEY=q1 npm start", secret: 'x y z' },
  { kind: 'secret-assignment', text: 'AWS_PRIVATE_KEY=pk1 GCP_CREDENTIALS=cr3d ./deploy', secret: 'cr3d' },
  { kind: 'secret-assignment', text: '{"client_secret": "c-s-3", "token": null}', secret: 'c-s-3' },
  { kind: 'secret-assignment', text: 'db:\n  password: yaml pass phrase\n  user: bob\n', secret: 'yaml pass phrase' },
  { kind: 'secret-assignment', text: 'tls:\n  private_key: |\n    AAAAline1\n    BBBBline2\nnext: 1\n', secret: 'BBBBline2' },
];

describe('redactSecrets', () => {
  for (const c of CASES) {
    test(`removes a ${c.kind} from ${JSON.stringify(c.text.slice(0, 40))}`, () => {
      const r = redactSecrets(c.text);
      assert.equal(r.text.includes(c.secret), false, r.text);
      assert.ok(r.text.includes(`[REDACTED:${c.kind}]`), r.text);
      assert.ok(r.kinds.includes(c.kind));
    });
  }

  test('removes every secret of a line that holds several', () => {
    const r = redactSecrets('MYSQL_PASSWORD=a1 OTHER_TOKEN=b2 run --secret=c3 && curl https://u:d4@h?token=e5');
    for (const s of ['a1', 'b2', 'c3', 'd4', 'e5']) assert.equal(r.text.includes(s), false, r.text);
    assert.ok(r.text.includes('run --secret=[REDACTED:secret-assignment]'));
  });

  test('keeps the context around a secret readable', () => {
    assert.equal(redactSecrets('GITHUB_TOKEN=abc123 gh pr list').text, 'GITHUB_TOKEN=[REDACTED:secret-assignment] gh pr list');
    assert.equal(
      redactSecrets('curl https://user:pw@example.com/x').text,
      'curl https://user:[REDACTED:url-credentials]@example.com/x',
    );
  });

  const everyday = [
    'git status && git log --oneline -5',
    'npm test -- --grep "token parsing"',
    'ls -la /tmp; cd ~/projects/app && make',
    'echo $GITHUB_TOKEN',
    'curl -H "Authorization: Bearer $TOKEN" https://api.github.com',
    'gh auth login --with-token < token.txt',
    'docker run -e API_KEY -e PWD=/src image',
    'python train.py --max_tokens=4096 tokenizer=gpt2',
    'if [ "$token" == "x" ]; then echo invalid token: expected string; fi',
    'grep -rn "password" src/',
    'cargo build --release 2>&1 | tee build.log',
    'curl https://example.com/docs/secret-management',
    'ssh git@github.com',
    'Basic setup instructions: run make',
    'git push -u origin feature:feature',
    'gh auth login --with-token < token.txt && run --token $GH_TOKEN',
    'docker run -v "$PWD":/src --secrets-dir /run/secrets --token-file ./t img',
  ];
  for (const text of everyday) {
    test(`leaves everyday text alone: ${JSON.stringify(text)}`, () => {
      assert.deepEqual(redactSecrets(text), { text, kinds: [] });
    });
  }
});

describe('redaction in the written log', () => {
  test('no secret of any kind reaches the file, and erased names every field that held one', () => {
    const path = join(scratch('asimov-audit-redact-'), 'audit.jsonl');
    const w = createAuditWriter({ path });
    assert.ok(w);
    const input = Object.fromEntries(CASES.map((c, i) => [`case${i}`, c.text]));
    const event = w.append(buildEvent(
      { tool: 'shell', input, cwd: '/p' },
      { verdict: 'allow', tier: 'allow', rule: null, reason: 'r', layer: 'static', ms: 0, findings: [], decisionId: 'd' },
    ));
    const file = readFileSync(path, 'utf8');
    CASES.forEach((c, i) => {
      assert.equal(file.includes(c.secret), false, `case${i} (${c.kind}) leaked`);
      assert.ok(file.includes(`[REDACTED:${c.kind}]`), c.kind);
      assert.ok(event.erased.includes(`input.case${i}`), `case${i} not in erased`);
    });
    assert.equal(event.erased.length, CASES.length);
  });
});

describe('redactInput', () => {
  test('walks objects and arrays and names each redacted field by its JSON path', () => {
    const r = redactInput({
      command: `git clone https://${GH}@github.com/o/r`,
      args: ['--flag', `--token=${GH}`],
      'odd key': { nested: `Authorization: Bearer ${'z'.repeat(20)}` },
      count: 3,
    });
    assert.deepEqual(r.erased, ['input.command', 'input.args[1]', 'input["odd key"].nested']);
    assert.equal(JSON.stringify(r.value).includes(GH), false);
    assert.equal(r.value.count, 3);
  });

  test('replaces the values of keys whose names say secret, but not counts or references', () => {
    const r = redactInput({
      env: { GITHUB_TOKEN: 'plain-value', DB_PASSWORD: 'pw', PATH: '/usr/bin', HOME_TOKEN_REF: '$OTHER' },
      headers: { Authorization: 'Basic abc', Cookie: 'sid=1', Accept: '*/*' },
      credentials: { user: 'bob', pass: 'x' },
      max_tokens: 4096,
      api_key: '',
    });
    assert.deepEqual(r.value, {
      env: { GITHUB_TOKEN: '[REDACTED:secret-field]', DB_PASSWORD: '[REDACTED:secret-field]', PATH: '/usr/bin', HOME_TOKEN_REF: '$OTHER' },
      headers: { Authorization: '[REDACTED:secret-field]', Cookie: '[REDACTED:secret-field]', Accept: '*/*' },
      credentials: '[REDACTED:secret-field]',
      max_tokens: 4096,
      api_key: '',
    });
    assert.deepEqual(r.erased, [
      'input.env.GITHUB_TOKEN', 'input.env.DB_PASSWORD', 'input.headers.Authorization', 'input.headers.Cookie', 'input.credentials',
    ]);
  });

  test('turns what JSON cannot hold into JSON, and cycles and deep nesting into markers', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < MAX_DEPTH + 10; i++) deep = { d: deep };
    const r = redactInput({ cyclic, deep, big: 10n, nan: Number.NaN, fn: () => 1, undef: undefined, list: [undefined] });
    const text = JSON.stringify(r.value);
    assert.ok(text.includes('"self":"[CIRCULAR]"'));
    assert.ok(text.includes('[TRUNCATED:depth]'));
    assert.equal(r.value.big, '10');
    assert.equal(r.value.nan, null);
    assert.equal('fn' in r.value, false);
    assert.equal('undef' in r.value, false);
    assert.deepEqual(r.value.list, [null]);
  });

  test('a 1 MB input is redacted, then cut to 8 KiB with its size and hash', () => {
    const secretEarly = `GITHUB_TOKEN=${GH}`;
    const body = secretEarly + '\n' + 'x = 1\n'.repeat(170_000) + `aws_secret_access_key=${AWS_SECRET}\n`;
    assert.ok(body.length > 1_000_000);
    const r = redactInput({ file_path: '/p/big.txt', content: body });
    const content = r.value.content as string;
    assert.equal(content.includes(GH), false);
    assert.equal(content.includes(AWS_SECRET), false);
    assert.ok(content.startsWith('GITHUB_TOKEN=[REDACTED:'));
    const m = /…\[truncated (\d+) bytes, sha256 ([0-9a-f]{64})\]$/.exec(content);
    assert.ok(m, content.slice(-120));
    const redactedWhole = redactSecrets(body).text;
    assert.equal(Number(m[1]) + MAX_STRING_BYTES, Buffer.byteLength(redactedWhole));
    assert.equal(m[2], createHash('sha256').update(redactedWhole).digest('hex'));
    assert.equal(Buffer.byteLength(content.slice(0, content.indexOf('…[truncated'))), MAX_STRING_BYTES);
    assert.deepEqual(r.erased, ['input.content']);
  });

  test('hostile 1 MB inputs that would make a backtracking regex quadratic are scanned, and a secret after them is still found', () => {
    const M = 1 << 20;
    const shapes = [
      'eyJ-'.repeat(M / 4),
      '://a:b'.repeat(M / 6),
      'A_TOKEN="x\n'.repeat(M / 11),
      'token'.repeat(M / 5),
      'ghp_'.repeat(M / 4),
      'authorization: '.repeat(M / 15),
      'bearer '.repeat(M / 7),
      '-----BEGIN '.repeat(M / 11),
      'aws_secret_access_key '.repeat(M / 22),
      'password: |\n'.repeat(M / 12),
      'a'.repeat(M),
    ];
    for (const shape of shapes) {
      const r = redactSecrets(`${shape} ${AWS_ID}`);
      assert.equal(r.text.includes(AWS_ID), false, `after ${JSON.stringify(shape.slice(0, 12))}`);
    }
  });
});

describe('truncateString', () => {
  test('leaves strings up to 8 KiB alone', () => {
    const s = 'é'.repeat(MAX_STRING_BYTES / 2);
    assert.equal(truncateString(s), s);
  });

  test('never cuts inside a multi-byte character', () => {
    const s = 'a' + '€'.repeat(5000);
    const t = truncateString(s);
    const kept = t.slice(0, t.indexOf('…[truncated'));
    assert.equal(kept.includes('\uFFFD'), false);
    assert.ok(Buffer.byteLength(kept) <= MAX_STRING_BYTES);
    assert.ok(Buffer.byteLength(kept) > MAX_STRING_BYTES - 3);
  });
});

describe('isSensitiveName', () => {
  test('knows the names the brief lists and leaves similar harmless names alone', () => {
    for (const n of ['GITHUB_TOKEN', 'client_secret', 'PASSWORD', 'db-passwd', 'API_KEY', 'openai.apikey', 'PRIVATE_KEY', 'GOOGLE_CREDENTIALS', '--token']) {
      assert.equal(isSensitiveName(n), true, n);
    }
    for (const n of ['PATH', 'PWD', 'max_tokens', 'tokenizer', 'USER', 'AUTHOR', 'TOKEN_FILE', 'secrets-dir']) assert.equal(isSensitiveName(n), false, n);
  });
});
