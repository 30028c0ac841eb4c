// Tests for the credential-value detector: every kind with a realistic fake, the checks that keep
// placeholders, documentation examples and look-alikes out, redact mode's wider net, and linear time.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { base62Checksum, CREDENTIAL_KINDS, findCredentials, isPlaceholder, type CredentialKind } from '../../src/content/secrets.ts';

// Fakes built at run time, so no scanner flags this file (and the checksummed ones are valid by construction).
const ENTROPY = 'eIdzgfAshpjKnBZECmsq6TjMHMurPQ';
const GHP = `ghp_${ENTROPY}${base62Checksum(ENTROPY)}`;
const NPM = `npm_${ENTROPY}${base62Checksum(ENTROPY)}`;
const PEM_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDzze4py6YfbNTW72D+CeXhdUkg3fhSQweRg3DNqT1c0ZwsVFKsgYXPfmbZT4xMDy';
const PEM = ['-----BEGIN RSA PRIVATE KEY-----', PEM_BODY, '-----END RSA PRIVATE KEY-----'].join('\n');
const b64u = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const JWT = `${b64u({ alg: 'HS256', typ: 'JWT' })}.${b64u({ sub: 'svc', iat: 1716239022 })}.aCNoZaLXqdoSbnGI6NvWE0xL1seqwR7YvbjQBsTegF6`;
const DISCORD_ID = Buffer.from('1098765432109876543').toString('base64url');

const CASES: ReadonlyArray<[CredentialKind, string]> = [
  ['private-key', `key:\n${PEM}\n`],
  ['private-key', ['-----BEGIN OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', '-----END OPENSSH PRIVATE KEY-----'].join('\n')],
  ['private-key', ['-----BEGIN PGP PRIVATE KEY BLOCK-----', '', 'lQOYBGRkZ2UBCADJ3q7k0p9x8h2v5L1mN4bQ7s2T6wZ9yA3cE5gH7jK9mN1pQ3sT', '-----END PGP PRIVATE KEY BLOCK-----'].join('\n')],
  ['private-key', `curl -d ${Buffer.from(PEM).toString('base64')} x`],
  ['gcp-service-account', JSON.stringify({ type: 'service_account', private_key: `${PEM}\n` })],
  ['aws-access-key', 'AKIAS3JAIQUVVPU5VESG'],
  ['aws-secret', 'aws_secret_access_key = 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'],
  ['aws-secret', '"SecretAccessKey": "hSKhMOFL7Y/iXqpKUU8uM0cO6877njiMDUxK6uM/"'],
  ['github-token', GHP],
  ['github-token', `gho_${ENTROPY}${base62Checksum(ENTROPY)}`],
  ['github-token', `github_pat_11ABCDEFG0${'q7Zx2WvR9tL4mK8pN3bH6jC1dF5gS0aY'.repeat(2)}`],
  ['gitlab-token', 'glpat-EFb-GkJqIXkXihH8n18V'],
  ['slack-token', 'xoxb-436653445399-6482043990431-tIxizmSftJmbcY5uk1eHojwW'],
  ['slack-webhook', 'https://hooks.slack.com/services/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'],
  ['stripe-key', 'sk_live_YmQ2znnECfvPTyfTgWVhiHG3'],
  ['openai-key', 'sk-proj-AsVK06-pb-okr-fg8oMgVwT2g79_PS3xSe-onOEk31rQtfG9'],
  ['openai-key', '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'],
  ['anthropic-key', 'sk-ant-api03-5bag5HG5B6Is6Uw3jhQ08CiqfDUEn1HJORR42v5XxpC4EwoMzJ5MfVSUfY2aumtNU9YKUpUPqzVORqZwzz7cjIT8rH49rAA'],
  ['google-api-key', 'AIzaA0mJvDzOERDPjUlgixmKl6cGS2zWpqTlb2y'],
  ['npm-token', NPM],
  ['pypi-token', 'pypi-AgEIcHlwaS5vcmcRlsVhF4lBJ7pwH41JvUCRerPyPZH9RU2gvGZ-PIlDbOfCgsCB2TJxowKC9nz'],
  ['jwt', `Authorization: Bearer ${JWT}`],
  ['url-credentials', 'postgres://admin:Pr0d-S3cr3t-9xQ@db.prod.example.net:5432/app'],
  ['azure-storage-key', `AccountName=prod;AccountKey=${'rfEgSlh1bpbRxIJA2n7mgwdP17BB7XQLmHgbB4HW4uEs02vfQG/n+zbwloo3WHd5aHy9adjyvKTOdbzpQCPe2m'}==;`],
  ['twilio-key', 'SK6b03748a8249975449e29e89180e140e'],
  ['sendgrid-key', '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'],
  ['discord-token', `${DISCORD_ID}.Ioh4UE.EENdyI-yvRIlSYuWoNB7SkIku3cTptZ5PCSfzb`],
  ['discord-webhook', `https://discord.com/api/webhooks/1098765432109876543/${'Xk3-9aLm_QwErTyUiOp2ZxCvBnM8aSdFgHjKl4QwErTyUiOp7ZxCvBnM1aSdFgHjK'}`],
  ['telegram-bot-token', '5036057168:AA7Tb1bWrk83LrBakhfluX2Y706UDk0045a'],
  ['huggingface-token', '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'],
  ['digitalocean-token', 'dop_v1_2a78055d329cdad2c1ac296e93d4eadb0efc42235e5b34a967644eb51ad7b047'],
  ['databricks-token', 'dapifed2a77ffe0f1acea54fabb35bfa66ee'],
  ['shopify-token', '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'],
];

describe('findCredentials: every kind', () => {
  test('the case list covers every kind', () => {
    const covered = new Set(CASES.map(([k]) => k));
    assert.deepEqual(CREDENTIAL_KINDS.filter((k) => !covered.has(k)), []);
  });
  for (const [kind, text] of CASES) {
    test(`${kind} in ${JSON.stringify(text.slice(0, 40))}`, () => {
      const hits = findCredentials(text);
      const h = hits.find((x) => x.kind === kind);
      assert.ok(h, `found ${JSON.stringify(hits)}`);
      assert.notEqual(h.confidence, 'example');
      // The preview never holds the value: at most a public prefix and the last 4 characters.
      const value = text.slice(h.start, h.end);
      assert.ok(value.length >= 8);
      assert.ok(!h.preview.includes(value.slice(6, -4)) || value.length < 16, h.preview);
      // Redact mode finds at least what DLP mode finds.
      assert.ok(findCredentials(text, { mode: 'redact' }).some((x) => x.start < h.end && x.end > h.start), 'redact mode covers it');
    });
  }
});

describe('findCredentials: confidence', () => {
  test('a GitHub token whose CRC32 does not verify is low, not high (maybe real: asked, not denied)', () => {
    const bad = `ghp_${ENTROPY}${base62Checksum(ENTROPY) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`;
    assert.deepEqual(findCredentials(bad).map((h) => [h.kind, h.confidence]), [['github-token', 'low']]);
    assert.equal(findCredentials(GHP)[0]?.confidence, 'high');
  });
  test("AWS's documentation keys are examples", () => {
    for (const t of ['AKIAIOSFODNN7EXAMPLE', 'aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']) {
      assert.deepEqual(findCredentials(t).map((h) => h.confidence), ['example'], t);
    }
  });
  test('a Stripe test key and a generic sk- key are low', () => {
    assert.equal(findCredentials('sk_test_YmQ2znnECfvPTyfTgWVhiHG3')[0]?.confidence, 'low');
    assert.equal(findCredentials('sk-9f3Kd82LmQ0xWv7Tz1Rb5Yc4Nh6Jp2Ae8Gs3Uq')[0]?.confidence, 'low');
  });
  test('junk around a value does not hide it', () => {
    assert.equal(findCredentials(`x${GHP}`)[0]?.kind, 'github-token');
    assert.equal(findCredentials(`${GHP}zz`)[0]?.confidence, 'high');
    assert.equal(findCredentials('dataAKIAS3JAIQUVVPU5VESG')[0]?.kind, 'aws-access-key');
  });
  test('a token in a URL password is reported as itself and as URL credentials, with the host', () => {
    const hits = findCredentials(`https://x-access-token:${GHP}@github.com/o/r`);
    assert.deepEqual(hits.map((h) => h.kind).sort(), ['github-token', 'url-credentials']);
    assert.equal(hits.find((h) => h.kind === 'url-credentials')?.host, 'github.com');
  });
});

describe('findCredentials: near-misses are not values', () => {
  const benign = [
    'a commit message that mentions AKIA without a key',
    'AKIA keys are rotated; AKIAAAAAAAAAAAAAAAAA is not one',
    'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    'GITHUB_TOKEN=ghp_<your-token-here>',
    'token: ${{ secrets.GITHUB_TOKEN }}',
    'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com',
    'export OPENAI_API_KEY=sk-your-api-key-here',
    'sk-learn and task-runner-configuration-options-for-the-build',
    '3f786850e387550fdab836ed7e6dc881de23001b and sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    '123e4567-e89b-12d3-a456-426614174000',
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@host',
    '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----',
    '-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----',
    'grep -r "BEGIN RSA PRIVATE KEY" src/',
    'eyJfoo.eyJbar.baz is not a token',
    `${b64u({ typ: 'JWT' })}.${b64u({ sub: 'x' })}.c2lnbmF0dXJlc2lnbmF0dXJl`,
    `${b64u({ alg: 'none' })}.${b64u({ sub: 'x' })}.`,
    'postgres://postgres:postgres@localhost:5432/app',
    'https://user:${PASSWORD}@example.com',
    'https://user:$PASS@example.com and mysql://root:password@db/app',
    'https://example.com/path?q=1#frag',
    'npm_config_registry=https://registry.npmjs.org',
    'ghp_ is the prefix of classic personal access tokens',
    'dapi prefix',
    'SKIP_TESTS=1 SKU_12345',
  ];
  for (const text of benign) {
    test(JSON.stringify(text.slice(0, 60)), () => {
      assert.deepEqual(findCredentials(text).filter((h) => h.confidence !== 'example'), []);
    });
  }
  test('placeholders', () => {
    for (const p of ['xxxxxxxxxxxx', 'your-api-key', '<token>', '${TOKEN}', 'aaaaaaaaaaaaaaaaaaaa', 'REDACTED']) assert.ok(isPlaceholder(p), p);
    assert.ok(!isPlaceholder(ENTROPY));
  });
});

describe('findCredentials: linear time', () => {
  // The machine running the tests may be loaded: time is compared with a bare loop over the same text
  // (ordinary text) and between sizes (hostile shapes: linear grows 4x from 512 KiB to 2 MiB, quadratic 16x).
  const M = 1 << 20;
  const best = (f: () => void): number => {
    let min = Infinity;
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      f();
      min = Math.min(min, performance.now() - t0);
    }
    return min;
  };
  test('1 MB of ordinary text costs a small multiple of reading it once', () => {
    const text = 'const x = fetch("https://example.com/api?q=1"); // see docs at https://docs.example.com/sk-guide\n'.repeat(M / 96);
    let k = 0;
    const bare = best(() => { for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 115) k++; });
    for (let r = 0; r < 5; r++) findCredentials(text); // past the JIT's warm-up
    const ms = best(() => findCredentials(text));
    assert.ok(k > 0);
    assert.ok(ms < Math.max(40, bare * 15), `${ms} ms (a bare loop: ${bare} ms)`);
  });
  const shapes = ['eyJ-', '://a:b', 'ghp_', '-----BEGIN PRIVATE KEY-----', 'sk-', 'LS0tLS1CRUdJTi', ':AA', 'MTA5EpNr2vRO0W5N48axjHf5Xr.', 'a', 'hooks.slack.com/', 'SK0123'];
  for (const shape of shapes) {
    test(`hostile ${JSON.stringify(shape)} repeated stays linear, and a key after it is found`, () => {
      const big = `${shape.repeat(Math.ceil((2 * M) / shape.length))} AKIAS3JAIQUVVPU5VESG`;
      const small = `${shape.repeat(Math.ceil(M / 2 / shape.length))} AKIAS3JAIQUVVPU5VESG`;
      assert.ok(findCredentials(big).some((h) => h.kind === 'aws-access-key'));
      const tBig = best(() => findCredentials(big));
      const tSmall = best(() => findCredentials(small));
      assert.ok(tBig < Math.max(250, tSmall * 12), `${tBig} ms for 2 MiB vs ${tSmall} ms for 512 KiB`);
    });
  }
});
