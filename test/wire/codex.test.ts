// Codex's hooks.json and the hook trust record in config.toml: fixture texts in, exact texts out, a second
// run changes nothing, and uninstalling gives the original bytes back.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { codexAsimovEntries, codexHooksPath, codexTarget, codexTrustRecord, planCodexHooks } from '../../src/wire/codex.ts';
import { codexTrustHash, planCodexTrust, tomlString } from '../../src/wire/codex-trust.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';

const F = '/home/u/.codex/hooks.json';
const C = '/home/u/.codex/config.toml';
const built = buildHookCommand({
  client: 'codex', nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
});
const CMD = built.command;
const T = built.clientTimeoutSec;
const J = (s: string) => JSON.stringify(s);
const install = { command: CMD, timeoutSec: T, uninstall: false, file: F };
const uninstall = { ...install, command: '', timeoutSec: 0, uninstall: true };

const USER_HOOKS = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "my-linter",
            "timeout": 5
          }
        ]
      }
    ]
  }
}
`;

const WITH_ASIMOV = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "my-linter",
            "timeout": 5
          }
        ]
      },
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": ${J(CMD)},
            "timeout": ${T}
          }
        ]
      }
    ]
  }
}
`;

describe('planCodexHooks', () => {
  test('a missing file gets asimov\'s PreToolUse group, timeout in seconds', () => {
    const r = planCodexHooks(null, install);
    assert.deepEqual(JSON.parse(r.text!), { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: CMD, timeout: T }] }] } });
    assert.deepEqual(r.changes, ['added PreToolUse hook (matcher *)']);
  });

  test('a file with the person\'s hooks: exact text out, second run unchanged, uninstall restores', () => {
    const r = planCodexHooks(USER_HOOKS, install);
    assert.equal(r.text, WITH_ASIMOV);
    const again = planCodexHooks(r.text, install);
    assert.deepEqual(again, { text: WITH_ASIMOV, changes: [] });
    const un = planCodexHooks(r.text, uninstall);
    assert.equal(un.text, USER_HOOKS);
    assert.deepEqual(un.changes, ['removed PreToolUse hook']);
  });

  test('claude\'s or another client\'s asimov entries are not codex\'s', () => {
    const claudeCmd = buildHookCommand({ client: 'claude', nodePath: '/n', asimovPath: '/a', watchdog: { kind: 'none' } }).command;
    const text = USER_HOOKS.replace('"my-linter"', J(claudeCmd));
    assert.deepEqual(codexAsimovEntries(text, F), []);
    assert.deepEqual(planCodexHooks(text, uninstall), { text, changes: [] });
  });

  test('fields that would make asimov\'s entry non-blocking or change its hash are taken out', () => {
    const tampered = WITH_ASIMOV.replace(`"timeout": ${T}\n`, `"timeout": ${T},\n            "async": true,\n            "statusMessage": "hi"\n`);
    const r = planCodexHooks(tampered, install);
    assert.equal(r.text, WITH_ASIMOV);
    assert.deepEqual(r.changes, [
      'removed "async" from the PreToolUse hook (asimov\'s entry must block and be hashed as written)',
      'removed "statusMessage" from the PreToolUse hook (asimov\'s entry must block and be hashed as written)',
    ]);
  });

  test('comments and trailing commas are refused (Codex reads strict JSON)', () => {
    assert.throws(() => planCodexHooks('{ // c\n}\n', install), (e: unknown) => e instanceof AsimovError && e.code === 'wire_settings_invalid');
    assert.throws(() => planCodexHooks('{"hooks": {},}\n', install), (e: unknown) => e instanceof AsimovError && e.code === 'wire_settings_invalid');
  });

  test('paths: CODEX_HOME replaces ~/.codex; project scope is .codex/ of the project', () => {
    assert.equal(codexHooksPath('user', { home: '/home/u', projectRoot: '/p', env: {} }), F);
    assert.equal(codexHooksPath('user', { home: '/home/u', projectRoot: '/p', env: { CODEX_HOME: '/x/cx' } }), '/x/cx/hooks.json');
    assert.equal(codexHooksPath('project', { home: '/home/u', projectRoot: '/p', env: {} }), '/p/.codex/hooks.json');
  });
});

describe('codexTrustHash', () => {
  test('is SHA-256 over the sorted compact JSON identity Codex hashes', () => {
    // Recomputed by hand from the identity; the e2e test shows Codex accepts hashes made this way.
    assert.equal(
      codexTrustHash({ event: 'pre_tool_use', matcher: '*', command: 'echo hi', timeoutSec: 50 }),
      'sha256:' + createHashHex('{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"echo hi","timeout":50,"type":"command"}],"matcher":"*"}'),
    );
    // No matcher: no key at all (not null).
    assert.equal(
      codexTrustHash({ event: 'pre_tool_use', command: 'echo hi', timeoutSec: 600 }),
      'sha256:' + createHashHex('{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"echo hi","timeout":600,"type":"command"}]}'),
    );
  });

  test('the record of an entry: key by position in the file, hash of what is there', () => {
    const [e] = codexAsimovEntries(WITH_ASIMOV, F);
    assert.deepEqual(codexTrustRecord(F, e!), {
      key: `${F}:pre_tool_use:1:0`,
      hash: codexTrustHash({ event: 'pre_tool_use', matcher: '*', command: CMD, timeoutSec: T }),
    });
  });
});

import { createHash } from 'node:crypto';
function createHashHex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

const KEY = `${F}:pre_tool_use:0:0`;
const HASH = 'sha256:' + 'a'.repeat(64);
const OLD = 'sha256:' + 'b'.repeat(64);
const RECORD = `[hooks.state.${J(KEY)}]\ntrusted_hash = ${J(HASH)}\n`;

// A person's config.toml with the TOML that a line scanner gets wrong: brackets in strings, a multi-line
// array with comments, multi-line strings, a date with a space, dotted keys, an inline table.
const CONFIG = `# my codex config
model = "gpt-5"   # pinned
approval_policy = "on-request"
notify = ["notify-send", "[codex]", 'done]']
instructions = """
[not a table]
still a "string" \\"""
"""
literal = '''
[also not a table]'''
when = 1979-05-27 07:32:00Z
tui.theme = "dark"
env = { A = "1", B = [1, 2] }

[model_providers.local]
name = "local"
base_url = "http://127.0.0.1:1234/v1"
args = [
  "a", # first
  "b",
]

[hooks.state."/home/u/.codex/hooks.json:pre_tool_use:5:0"]
enabled = false
`;

describe('planCodexTrust', () => {
  const want = { key: KEY, hash: HASH };

  test('appends asimov\'s record; a second run changes nothing; uninstall gives the bytes back', () => {
    const r = planCodexTrust(CONFIG, { file: C, want, drop: [] });
    assert.equal(r.text, `${CONFIG}\n${RECORD}`);
    assert.deepEqual(r.changes, [`trusted asimov's hook (hooks.state."${KEY}")`]);
    assert.deepEqual(planCodexTrust(r.text, { file: C, want, drop: [want] }), { text: r.text, changes: [] });
    const un = planCodexTrust(r.text, { file: C, want: null, drop: [want] });
    assert.equal(un.text, CONFIG);
    assert.deepEqual(un.changes, [`removed the trust record of asimov's hook (${KEY})`]);
  });

  test('no file: the record alone; uninstall leaves an empty file', () => {
    const r = planCodexTrust(null, { file: C, want, drop: [] });
    assert.equal(r.text, RECORD);
    assert.equal(planCodexTrust(r.text, { file: C, want: null, drop: [want] }).text, '');
  });

  test('a record in the middle of the file is updated in place, and removed with its blank line', () => {
    const text = `a = 1\n\n[hooks.state.${J(KEY)}]\ntrusted_hash = '${OLD}'\n\n[other]\nb = 2\n`;
    const r = planCodexTrust(text, { file: C, want, drop: [{ key: KEY, hash: OLD }] });
    assert.equal(r.text, `a = 1\n\n[hooks.state.${J(KEY)}]\ntrusted_hash = ${J(HASH)}\n\n[other]\nb = 2\n`);
    assert.deepEqual(r.changes, [`updated the trust record of asimov's hook (hooks.state."${KEY}")`]);
    assert.equal(planCodexTrust(r.text, { file: C, want: null, drop: [want] }).text, 'a = 1\n\n[other]\nb = 2\n');
  });

  test('a moved entry: the old position\'s record goes, the new one comes', () => {
    const movedKey = `${F}:pre_tool_use:1:0`;
    const r = planCodexTrust(`x = 1\n\n${RECORD}`, { file: C, want: { key: movedKey, hash: HASH }, drop: [want] });
    assert.equal(r.text, `x = 1\n\n[hooks.state.${J(movedKey)}]\ntrusted_hash = ${J(HASH)}\n`);
  });

  test('a record asimov did not write (another hash) is never removed', () => {
    const text = `[hooks.state.${J(KEY)}]\ntrusted_hash = ${J(OLD)}\n`;
    assert.deepEqual(planCodexTrust(text, { file: C, want: null, drop: [want] }), { text, changes: [] });
  });

  test('enabled = false on asimov\'s own record is taken out: it would switch the hook off', () => {
    const text = `[hooks.state.${J(KEY)}]\nenabled = false\ntrusted_hash = ${J(HASH)}\n`;
    const r = planCodexTrust(text, { file: C, want, drop: [] });
    assert.equal(r.text, RECORD);
    assert.match(r.changes[0]!, /removed enabled = false/);
  });

  test('CRLF files get CRLF', () => {
    const r = planCodexTrust('a = 1\r\n', { file: C, want, drop: [] });
    assert.equal(r.text, `a = 1\r\n\r\n${RECORD.replace(/\n/g, '\r\n')}`);
  });

  test('forms this edit would break are refused, naming the line', () => {
    const refused = (text: string, re: RegExp) => assert.throws(
      () => planCodexTrust(text, { file: C, want, drop: [] }),
      (e: unknown) => e instanceof AsimovError && e.code === 'wire_settings_invalid' && re.test(e.message),
    );
    refused('[hooks]\nstate = { }\n', /in a form asimov does not edit/);
    refused(`hooks.state.${J(KEY)}.trusted_hash = "x"\n`, /in a form asimov does not edit/);
    refused(`[hooks.state.${J(KEY)}]\n[hooks.state.${J(KEY)}]\n`, /defined twice/);
    refused('a = "unterminated\n', /could not read this TOML/);
    refused('a = 1 b = 2\n', /could not read this TOML/);
  });

  test('keys are written as TOML basic strings, DEL escaped', () => {
    assert.equal(tomlString('a"b\\c\x7f\n'), '"a\\"b\\\\c\\u007f\\n"');
  });
});

describe('codexTarget.extraWrites: the trust record follows asimov\'s entry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'asimov-wire-codex-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('install trusts the entry at its position; uninstall takes the record out again', () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.codex'), { recursive: true });
    const hooks = join(home, '.codex', 'hooks.json');
    const config = join(home, '.codex', 'config.toml');
    writeFileSync(hooks, USER_HOOKS);
    writeFileSync(config, 'model = "o3"\n');
    const ctx = { home, projectRoot: dir, env: {} };
    const file = codexTarget.configPath('user', ctx);
    assert.equal(file, hooks);

    const plan = codexTarget.plan(readFileSync(hooks, 'utf8'), { ...install, file });
    const [x] = codexTarget.extraWrites!({ ...install, file, scope: 'user', ctx, configText: plan.text });
    const record = codexTrustRecord(hooks, codexAsimovEntries(plan.text, hooks)[0]!);
    assert.equal(record.key, `${hooks}:pre_tool_use:1:0`);
    assert.deepEqual(x, {
      file: config,
      text: `model = "o3"\n\n[hooks.state.${J(record.key)}]\ntrusted_hash = ${J(record.hash)}\n`,
      changes: [`trusted asimov's hook (hooks.state."${record.key}")`],
    });
    writeFileSync(hooks, plan.text!);
    writeFileSync(config, x!.text!);

    const again = codexTarget.extraWrites!({ ...install, file, scope: 'user', ctx, configText: plan.text });
    assert.deepEqual(again[0]!.changes, []);

    const un = codexTarget.plan(plan.text, { ...uninstall, file });
    const [ux] = codexTarget.extraWrites!({ ...uninstall, file, scope: 'user', ctx, configText: un.text });
    assert.equal(un.text, USER_HOOKS);
    assert.equal(ux!.text, 'model = "o3"\n');
  });
});
