// Tests for where the audit log lives.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import { resolveAuditPath } from '../../src/audit/paths.ts';

describe('resolveAuditPath', () => {
  const home = '/home/u';

  test('uses ASIMOV_AUDIT_LOG first, with ~ expanded', () => {
    assert.equal(resolveAuditPath({ ASIMOV_AUDIT_LOG: '/var/log/a.jsonl', XDG_STATE_HOME: '/s' }, home), '/var/log/a.jsonl');
    assert.equal(resolveAuditPath({ ASIMOV_AUDIT_LOG: '~/logs/a.jsonl' }, home), '/home/u/logs/a.jsonl');
  });

  test('returns null when ASIMOV_AUDIT_LOG is off, in any case', () => {
    assert.equal(resolveAuditPath({ ASIMOV_AUDIT_LOG: 'off' }, home), null);
    assert.equal(resolveAuditPath({ ASIMOV_AUDIT_LOG: ' OFF ' }, home), null);
  });

  test('falls back to $XDG_STATE_HOME/asimov, then ~/.local/state/asimov', () => {
    assert.equal(resolveAuditPath({ XDG_STATE_HOME: '/s' }, home), '/s/asimov/audit.jsonl');
    assert.equal(resolveAuditPath({}, home), '/home/u/.local/state/asimov/audit.jsonl');
    assert.equal(resolveAuditPath({ ASIMOV_AUDIT_LOG: '', XDG_STATE_HOME: '' }, home), '/home/u/.local/state/asimov/audit.jsonl');
  });

  test('ignores a relative XDG_STATE_HOME, as the XDG spec says', () => {
    assert.equal(resolveAuditPath({ XDG_STATE_HOME: 'state' }, home), '/home/u/.local/state/asimov/audit.jsonl');
  });

  test('refuses a relative ASIMOV_AUDIT_LOG, which would put a log in every project', () => {
    assert.throws(
      () => resolveAuditPath({ ASIMOV_AUDIT_LOG: 'audit.jsonl' }, home),
      (e: unknown) => e instanceof AsimovError && e.code === 'audit_io_error' && /must be an absolute path/.test(e.message),
    );
  });

  test('uses HOME from the given environment when no home is passed', () => {
    assert.equal(resolveAuditPath({ HOME: '/home/other' }), '/home/other/.local/state/asimov/audit.jsonl');
  });
});
