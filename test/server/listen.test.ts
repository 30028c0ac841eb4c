import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLoopback, parseListen, urlOf } from '../../src/server/listen.ts';

test('parseListen reads host:port, [v6]:port and a bare port', () => {
  assert.deepEqual(parseListen('127.0.0.1:7420'), { host: '127.0.0.1', port: 7420 });
  assert.deepEqual(parseListen('[::1]:80'), { host: '::1', port: 80 });
  assert.deepEqual(parseListen('8080'), { host: '127.0.0.1', port: 8080 });
  assert.deepEqual(parseListen('localhost:0'), { host: 'localhost', port: 0 });
  for (const bad of ['example.com:80', '127.0.0.1', '127.0.0.1:99999', '::1:80', '[::1]', 'a:b']) assert.throws(() => parseListen(bad), /--listen/, bad);
});

test('isLoopback: 127/8, ::1, localhost, mapped v4; nothing else', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', '::ffff:127.0.0.1']) assert.ok(isLoopback(h), h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', '::ffff:10.0.0.1']) assert.ok(!isLoopback(h), h);
});

test('urlOf brackets IPv6', () => {
  assert.equal(urlOf({ host: '::1', port: 7420 }, true), 'https://[::1]:7420');
  assert.equal(urlOf({ host: '127.0.0.1', port: 1 }, false), 'http://127.0.0.1:1');
});
