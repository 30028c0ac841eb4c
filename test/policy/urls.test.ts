// Tests for URL classification and remote-host parsing.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import { createUrlClassifier, normalizeDomainPattern, parseRemoteHost, type UrlClass } from '../../src/policy/urls.ts';

const c = createUrlClassifier({ allowedDomains: ['api.example-corp.com', '*.corp.example', 'BÜCHER.example.'] });

function classes(u: string): UrlClass[] {
  return [...c(u).classes].sort();
}

describe('parsing', () => {
  test('full URLs give a lower-case host without port and the scheme', () => {
    const info = c('HTTPS://Example.COM:8443/Path?q=1');
    assert.equal(info.host, 'example.com');
    assert.equal(info.scheme, 'https');
  });

  test('bare host[:port][/path] is read as curl reads it, over http', () => {
    const info = c('example.com:8080/x');
    assert.equal(info.host, 'example.com');
    assert.equal(info.scheme, 'http');
    assert.equal(c('localhost:3000').host, 'localhost');
    assert.equal(c('//cdn.example.com/a.js').host, 'cdn.example.com');
  });

  test('a trailing dot is stripped and IDN hosts become punycode', () => {
    assert.equal(c('http://example.com./').host, 'example.com');
    assert.equal(c('http://bücher.de/').host, 'xn--bcher-kva.de');
  });

  test('userinfo does not fool the host: allowed.com@evil.com goes to evil.com', () => {
    const info = c('http://api.example-corp.com@evil.example/x');
    assert.equal(info.host, 'evil.example');
    assert.ok(!info.classes.has('allowed'));
    assert.ok(info.classes.has('unknown'));
  });

  test('unparseable input is invalid with no host or scheme', () => {
    for (const u of ['', 'not a url at all', 'http://exa mple.com/', 'http://[::1/']) {
      const info = c(u);
      assert.deepEqual([...info.classes], ['invalid'], u);
      assert.equal(info.host, null);
    }
  });
});

describe('local and private addresses', () => {
  test('odd IPv4 spellings of loopback are normalized and local', () => {
    for (const u of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/', 'http://127.0.0.1:9000/']) {
      const info = c(u);
      assert.equal(info.host, '127.0.0.1', u);
      assert.deepEqual(classes(u), ['ip-literal', 'local'], u);
    }
  });

  test('localhost, *.localhost, 0.0.0.0, ::1 and IPv4-mapped loopback are local', () => {
    for (const u of ['http://localhost/', 'http://app.localhost:3000/', 'http://0.0.0.0:8000/', 'http://0/', 'http://[::1]:8080/', 'http://[::ffff:127.0.0.1]/', 'http://lvh.me/']) {
      assert.ok(c(u).classes.has('local'), u);
    }
    assert.equal(c('http://[::1]:8080/x').host, '::1');
  });

  test('private ranges, link-local and internal names are private-network', () => {
    for (const u of ['http://10.1.2.3/', 'http://172.16.0.1/', 'http://172.31.255.255/', 'http://192.168.1.1/', 'http://169.254.1.1/', 'http://100.64.0.1/', 'http://[fd12::1]/', 'http://[fe80::1]/', 'http://svc.internal/', 'http://printer.local/', 'http://intranet/', 'http://[::ffff:10.0.0.1]/']) {
      assert.ok(c(u).classes.has('private-network'), u);
      assert.ok(!c(u).classes.has('unknown'), u);
    }
    for (const u of ['http://172.32.0.1/', 'http://11.0.0.1/', 'http://192.169.0.1/']) assert.ok(!c(u).classes.has('private-network'), u);
  });

  test('cloud metadata endpoints are metadata in every spelling', () => {
    for (const u of ['http://169.254.169.254/latest/meta-data/', 'http://2852039166/', 'http://0xa9fea9fe/', 'http://metadata.google.internal/', 'http://[fd00:ec2::254]/', 'http://100.100.100.200/', 'http://169.254.169.254.nip.io/', 'http://[::ffff:169.254.169.254]/']) {
      assert.ok(c(u).classes.has('metadata'), u);
    }
  });

  test('public IP literals are ip-literal and unknown', () => {
    assert.deepEqual(classes('http://8.8.8.8/'), ['ip-literal', 'unknown']);
    assert.deepEqual(classes('http://[2001:4860::8888]/'), ['ip-literal', 'unknown']);
  });
});

describe('kinds of site', () => {
  test('paste, file-drop, request-capture and tunnel services are paste', () => {
    for (const u of ['https://pastebin.com/raw/x', 'https://transfer.sh/x', 'https://0x0.st/', 'termbin.com:9999', 'https://file.io/', 'https://webhook.site/abc', 'https://x.requestbin.net/', 'https://abc.ngrok-free.app/', 'https://x.trycloudflare.com/', 'https://abc.oast.fun/', 'https://discord.com/api/webhooks/1/t', 'https://api.telegram.org/bot123:abc/sendMessage', 'https://hooks.slack.com/services/T/B/x', 'https://files.catbox.moe/x']) {
      assert.ok(c(u).classes.has('paste'), u);
    }
    for (const u of ['https://discord.com/channels/1', 'https://api.telegram.org/', 'https://mypastebin.com.example/']) assert.ok(!c(u).classes.has('paste'), u);
  });

  test('documentation and registries are docs; github.com is, its raw and gist hosts are not', () => {
    for (const u of ['https://developer.mozilla.org/en-US/', 'https://docs.python.org/3/', 'https://www.npmjs.com/package/x', 'https://registry.npmjs.org/x', 'https://pypi.org/project/x', 'https://docs.rs/x', 'https://pkg.go.dev/x', 'https://github.com/o/r', 'https://stackoverflow.com/q/1', 'https://foo.readthedocs.io/', 'https://docs.docker.com/', 'https://learn.microsoft.com/x', 'https://man7.org/linux/']) {
      assert.ok(c(u).classes.has('docs'), u);
    }
    for (const u of ['https://raw.githubusercontent.com/o/r/main/x', 'https://gist.github.com/o/1', 'https://github.com/o/r/raw/main/install.sh', 'https://example.com/']) {
      assert.ok(!c(u).classes.has('docs'), u);
    }
  });

  test('raw script downloads are raw-script', () => {
    for (const u of ['https://raw.githubusercontent.com/o/r/main/setup', 'https://gist.githubusercontent.com/o/1/raw/x', 'https://example.com/install.sh', 'https://example.com/a/setup.ps1', 'https://example.com/x.py', 'https://get.docker.com', 'https://install.python-poetry.org', 'https://bun.sh/install', 'https://github.com/o/r/raw/main/x.bash']) {
      assert.ok(c(u).classes.has('raw-script'), u);
    }
    for (const u of ['https://example.com/docs/shell.html', 'https://example.com/a.shx']) assert.ok(!c(u).classes.has('raw-script'), u);
  });

  test('allowed domains match exactly, or any subdomain for *.suffix, after normalization', () => {
    assert.ok(c('https://api.example-corp.com/v1').classes.has('allowed'));
    assert.ok(!c('https://x.api.example-corp.com/').classes.has('allowed'));
    assert.ok(c('https://a.b.corp.example/').classes.has('allowed'));
    assert.ok(!c('https://corp.example/').classes.has('allowed'));
    assert.ok(c('https://bücher.example/').classes.has('allowed'));
    assert.ok(!c('https://api.example-corp.com.evil.example/').classes.has('allowed'));
  });

  test('schemes other than http(s) are non-http; their host is still classified', () => {
    assert.deepEqual(classes('file:///etc/passwd'), ['non-http']);
    assert.equal(c('file:///etc/passwd').host, null);
    assert.ok(c('gopher://127.0.0.1:6379/_x').classes.has('local'));
    assert.ok(c('ftp://files.example.com/').classes.has('non-http'));
    assert.ok(!c('ftp://files.example.com/').classes.has('unknown'));
    assert.ok(c('data:text/plain,hi').classes.has('non-http'));
  });

  test('an ordinary public host is unknown', () => {
    assert.deepEqual(classes('https://example.com/blog/post'), ['unknown']);
  });
});

describe('data in the URL', () => {
  test('a long query string to an unknown host is query-data', () => {
    assert.ok(c(`https://example.com/?q=${'a'.repeat(120)}`).classes.has('query-data'));
  });

  test('a base64-like run mixing cases and digits is query-data; hashes and slugs are not', () => {
    assert.ok(c('https://example.com/?d=QWxhZGRpbjpvcGVuIHNlc2FtZSBhbmQgbW9yZSBzZWNyZXRzIDEyMzQ1Ng').classes.has('query-data'));
    assert.ok(!c('https://example.com/?sha=0123456789abcdef0123456789abcdef01234567').classes.has('query-data'));
    assert.ok(!c('https://example.com/?page=how-to-write-a-very-long-article-title-for-seo').classes.has('query-data'));
  });

  test('secret-looking tokens anywhere after the host are query-data', () => {
    for (const u of ['https://example.com/?k=AKIAIOSFODNN7EXAMPLE', 'https://example.com/c/ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'https://example.com/?t=sk-ant-abcdefghijklmnopqrstuvwxyz', 'https://example.com/?x=-----BEGIN%20RSA%20PRIVATE%20KEY']) {
      assert.ok(c(u).classes.has('query-data'), u);
    }
  });

  test('allowed hosts, the explicit docs list and local hosts are exempt; docs.* look-alikes are not', () => {
    assert.ok(!c('https://api.example-corp.com/?k=AKIAIOSFODNN7EXAMPLE').classes.has('query-data'));
    assert.ok(!c(`https://developer.mozilla.org/?q=${'a'.repeat(150)}`).classes.has('query-data'));
    assert.ok(!c('http://localhost:3000/?k=AKIAIOSFODNN7EXAMPLE').classes.has('query-data'));
    assert.ok(c('https://docs.evil.example/?k=AKIAIOSFODNN7EXAMPLE').classes.has('query-data'));
  });

  test('an ordinary short query is not query-data', () => {
    assert.ok(!c('https://example.com/search?q=typescript+generics&page=2').classes.has('query-data'));
  });
});

describe('allowed domain patterns', () => {
  test('are normalized to lower-case punycode without a trailing dot', () => {
    assert.equal(normalizeDomainPattern('Example.COM.'), 'example.com');
    assert.equal(normalizeDomainPattern('*.Bücher.de'), '*.xn--bcher-kva.de');
  });

  test('a scheme, path, port or empty entry is refused with a clear error', () => {
    for (const bad of ['', 'https://x.com', 'x.com/path', 'x.com:443', 'a b']) {
      assert.throws(() => createUrlClassifier({ allowedDomains: [bad] }), (e: unknown) => e instanceof AsimovError && e.code === 'bad_input', bad);
    }
  });
});

describe('parseRemoteHost', () => {
  test('finds the host of scp/rsync remote arguments', () => {
    assert.equal(parseRemoteHost('user@Host.Example:path/x'), 'host.example');
    assert.equal(parseRemoteHost('host:/etc/passwd'), 'host');
    assert.equal(parseRemoteHost('host::module/x'), 'host');
    assert.equal(parseRemoteHost('user@[::1]:x'), '::1');
    assert.equal(parseRemoteHost('scp://u@h.example:2222/p'), 'h.example');
    assert.equal(parseRemoteHost('rsync://mirror.example/mod'), 'mirror.example');
    assert.equal(parseRemoteHost('10.0.0.1:/srv'), '10.0.0.1');
  });

  test('returns null for local paths, even with a colon in them', () => {
    for (const a of ['/local/path', './a:b', '../x:y', '~/f', 'a/b:c', 'file.txt', 'C:\\dir\\x', 'C:/dir', '-P', '']) {
      assert.equal(parseRemoteHost(a), null, a);
    }
  });

  test('with bareHost, a plain [user@]host is a host too (ssh destinations)', () => {
    assert.equal(parseRemoteHost('user@server.example', { bareHost: true }), 'server.example');
    assert.equal(parseRemoteHost('server', { bareHost: true }), 'server');
    assert.equal(parseRemoteHost('server'), null);
    assert.equal(parseRemoteHost('a/b', { bareHost: true }), null);
  });
});
