// Fixture texts in, exact texts out: asimov's entries are added, updated and removed, and every other
// byte of a person's settings file stays where it was.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AsimovError } from '../../src/core/errors.ts';
import { CLAUDE_HOOK_EVENTS, claudeSettingsPaths, planClaudeHooks, readClaudeHookState } from '../../src/wire/claude.ts';
import { buildHookCommand } from '../../src/wire/hook-command.ts';

const F = '/home/u/.claude/settings.json';
const built = buildHookCommand({
  client: 'claude', nodePath: '/opt/node/bin/node', asimovPath: "/opt/asi mov/it's/bin/asimov.cjs", watchdog: { kind: 'timeout', path: '/usr/bin/timeout' },
});
const CMD = built.command;
const T = built.clientTimeoutSec;
const J = (s: string) => JSON.stringify(s);
const install = { command: CMD, timeoutSec: T, events: CLAUDE_HOOK_EVENTS, uninstall: false, file: F };
const uninstall = { ...install, uninstall: true };
const ADDED = ['added PreToolUse hook (matcher *)', 'added PermissionRequest hook (matcher *)'];
const REMOVED = ['removed PreToolUse hook', 'removed PermissionRequest hook'];

/** asimov's group as the file's style writes it, starting at the indentation `i` with unit `u`. */
function group(i: string, u: string, eol = '\n', command = CMD, timeout = T): string {
  return [
    `{`,
    `${i}${u}"matcher": "*",`,
    `${i}${u}"hooks": [`,
    `${i}${u}${u}{`,
    `${i}${u}${u}${u}"type": "command",`,
    `${i}${u}${u}${u}"command": ${J(command)},`,
    `${i}${u}${u}${u}"timeout": ${timeout}`,
    `${i}${u}${u}}`,
    `${i}${u}]`,
    `${i}}`,
  ].join(eol);
}

const FRESH = `{
  "hooks": {
    "PreToolUse": [
      ${group('      ', '  ')}
    ],
    "PermissionRequest": [
      ${group('      ', '  ')}
    ]
  }
}
`;

interface Fixture { name: string; before: string; after: string }

const FIXTURES: Fixture[] = [
  {
    name: 'empty object',
    before: '{}\n',
    after: FRESH,
  },
  {
    name: 'other settings, no hooks',
    before: `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm test)"],
    "deny": []
  },
  "env": { "FOO": "1" }
}
`,
    after: `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm test)"],
    "deny": []
  },
  "env": { "FOO": "1" },
  "hooks": {
    "PreToolUse": [
      ${group('      ', '  ')}
    ],
    "PermissionRequest": [
      ${group('      ', '  ')}
    ]
  }
}
`,
  },
  {
    name: 'other hooks, other PreToolUse groups, a compact group and an empty event list',
    before: `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "~/bin/audit-bash.sh", "timeout": 5 }
        ]
      },
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --check"}]}
    ],
    "Stop": [],
    "PostToolUse": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "echo done"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
`,
    after: `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "~/bin/audit-bash.sh", "timeout": 5 }
        ]
      },
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --check"}]},
      ${group('      ', '  ')}
    ],
    "Stop": [],
    "PostToolUse": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "echo done"
          }
        ]
      }
    ],
    "PermissionRequest": [
      ${group('      ', '  ')}
    ]
  },
  "model": "opus"
}
`,
  },
  {
    name: 'tabs, no final newline',
    before: '{\n\t"model": "opus"\n}',
    after: `{\n\t"model": "opus",\n\t"hooks": {\n\t\t"PreToolUse": [\n\t\t\t${group('\t\t\t', '\t')}\n\t\t],\n\t\t"PermissionRequest": [\n\t\t\t${group('\t\t\t', '\t')}\n\t\t]\n\t}\n}`,
  },
  {
    name: 'CRLF and 4 spaces',
    before: '{\r\n    "model": "opus",\r\n    "hooks": {\r\n        "Stop": []\r\n    }\r\n}\r\n',
    after: `{\r\n    "model": "opus",\r\n    "hooks": {\r\n        "Stop": [],\r\n        "PreToolUse": [\r\n            ${group('            ', '    ', '\r\n')}\r\n        ],\r\n        "PermissionRequest": [\r\n            ${group('            ', '    ', '\r\n')}\r\n        ]\r\n    }\r\n}\r\n`,
  },
  {
    name: 'one line',
    before: '{"model":"opus","hooks":{"Stop":[]}}',
    after: `{"model":"opus","hooks":{"Stop":[], "PreToolUse": [{"matcher":"*","hooks":[{"type":"command","command":${J(CMD)},"timeout":${T}}]}], "PermissionRequest": [{"matcher":"*","hooks":[{"type":"command","command":${J(CMD)},"timeout":${T}}]}]}}`,
  },
];

describe('planClaudeHooks: install', () => {
  test('a missing file becomes a new one with 2-space indent and a final newline', () => {
    assert.deepEqual(planClaudeHooks(null, install), { text: FRESH, changes: ADDED });
  });
  test('an empty file is treated as a missing one', () => {
    assert.deepEqual(planClaudeHooks('', install), { text: FRESH, changes: ADDED });
    assert.deepEqual(planClaudeHooks(' \n', install), { text: FRESH, changes: ADDED });
  });
  for (const f of FIXTURES) {
    test(`adds both hooks, the rest unchanged: ${f.name}`, () => {
      const r = planClaudeHooks(f.before, install);
      assert.equal(r.text, f.after);
      assert.deepEqual(r.changes, ADDED);
      JSON.parse(r.text!); // still plain JSON, as Claude Code reads it
    });
    test(`a second run changes nothing: ${f.name}`, () => {
      assert.deepEqual(planClaudeHooks(f.after, install), { text: f.after, changes: [] });
    });
    test(`uninstall restores the original bytes: ${f.name}`, () => {
      assert.deepEqual(planClaudeHooks(f.after, uninstall), { text: f.before, changes: REMOVED });
    });
  }
  test('only the events asked for', () => {
    const r = planClaudeHooks('{}', { ...install, events: ['PreToolUse'] });
    assert.deepEqual(r.changes, [ADDED[0]]);
    assert.deepEqual(Object.keys(JSON.parse(r.text!).hooks), ['PreToolUse']);
  });
});

describe('planClaudeHooks: existing asimov entries', () => {
  const MIXED = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          { "type": "command", "command": "echo before" },
          { "type": "command", "command": ${J(CMD)}, "timeout": ${T} },
          { "type": "command", "command": "echo after" }
        ]
      }
    ]
  }
}
`;
  test('an entry inside a group with other hooks counts as installed and stays where it is', () => {
    const r = planClaudeHooks(MIXED, install);
    assert.deepEqual(r.changes, ['added PermissionRequest hook (matcher *)']);
    assert.equal(r.text, MIXED.replace('\n    ]\n  }\n}\n', `\n    ],\n    "PermissionRequest": [\n      ${group('      ', '  ')}\n    ]\n  }\n}\n`));
  });
  test('uninstall takes asimov\'s entry out of a shared group and keeps the group', () => {
    const r = planClaudeHooks(MIXED, uninstall);
    assert.deepEqual(r.changes, ['removed PreToolUse hook']);
    assert.equal(r.text, `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          { "type": "command", "command": "echo before" },
          { "type": "command", "command": "echo after" }
        ]
      }
    ]
  }
}
`);
  });

  test('an entry under a matcher that misses tools is moved to a group for every tool; the group keeps its other hooks', () => {
    const narrow = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "echo mine" },
          { "type": "command", "command": ${J(CMD)}, "timeout": ${T} }
        ]
      }
    ]
  }
}
`;
    const r = planClaudeHooks(narrow, { ...install, events: ['PreToolUse'] });
    assert.deepEqual(r.changes, ['removed PreToolUse hook under matcher "Bash" (it does not cover every tool)', ADDED[0]]);
    const doc = JSON.parse(r.text!) as { hooks: { PreToolUse: Array<{ matcher: string; hooks: Array<{ command: string }> }> } };
    assert.deepEqual(doc.hooks.PreToolUse.map((g) => [g.matcher, g.hooks.map((h) => h.command)]), [['Bash', ['echo mine']], ['*', [CMD]]]);
    assert.deepEqual(planClaudeHooks(r.text, { ...install, events: ['PreToolUse'] }).changes, []);
  });

  test('a moved install and another timeout are updated in place', () => {
    const old = buildHookCommand({ client: 'claude', nodePath: '/usr/local/bin/node', asimovPath: '/old/place/bin/asimov.cjs', watchdog: { kind: 'none' } }).command;
    const before = `{\n  "hooks": {\n    "PreToolUse": [\n      ${group('      ', '  ', '\n', old, 30)}\n    ],\n    "PermissionRequest": [\n      ${group('      ', '  ', '\n', old, T)}\n    ]\n  },\n  "model": "opus"\n}\n`;
    const r = planClaudeHooks(before, install);
    assert.deepEqual(r.changes, [
      `updated PreToolUse hook (matcher *): new command line, timeout 30 s → ${T} s`,
      'updated PermissionRequest hook (matcher *): new command line',
    ]);
    assert.equal(r.text, `{\n  "hooks": {\n    "PreToolUse": [\n      ${group('      ', '  ')}\n    ],\n    "PermissionRequest": [\n      ${group('      ', '  ')}\n    ]\n  },\n  "model": "opus"\n}\n`);
  });
  test('an entry without timeout or type gets them', () => {
    const before = `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"command":${J(CMD)}}]}]}}`;
    const r = planClaudeHooks(before, { ...install, events: ['PreToolUse'] });
    assert.deepEqual(r.changes, [`updated PreToolUse hook (matcher *): type "command", timeout unset → ${T} s`]);
    assert.equal(r.text, `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"command":${J(CMD)}, "type": "command", "timeout": ${T}}]}]}}`);
  });

  test('duplicates are reduced to one, and groups they leave empty go', () => {
    const before = `{
  "hooks": {
    "PreToolUse": [
      ${group('      ', '  ')},
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "echo mine" },
          { "type": "command", "command": ${J(CMD)}, "timeout": ${T} }
        ]
      },
      ${group('      ', '  ')}
    ]
  }
}
`;
    const r = planClaudeHooks(before, { ...install, events: ['PreToolUse'] });
    assert.deepEqual(r.changes, ['removed PreToolUse hook under matcher "Bash" (it does not cover every tool)', 'removed 1 duplicate PreToolUse hook']);
    assert.equal(r.text, `{
  "hooks": {
    "PreToolUse": [
      ${group('      ', '  ')},
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "echo mine" }
        ]
      }
    ]
  }
}
`);
    assert.deepEqual(planClaudeHooks(before, uninstall).changes, ['removed PreToolUse hooks (3)']);
    assert.equal(planClaudeHooks(before, uninstall).text, `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "echo mine" }
        ]
      }
    ]
  }
}
`);
  });

  test('hooks of asimov for other clients and look-alikes are not claude\'s entries', () => {
    const before = `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"x # asimov-hook:gemini"},{"type":"command","command":"echo asimov-hook:claude"}]}]}}`;
    assert.deepEqual(planClaudeHooks(before, uninstall), { text: before, changes: [] });
    assert.equal(planClaudeHooks(before, install).changes.length, 2);
  });
  test('uninstall of a file without asimov hooks, or of no file, changes nothing', () => {
    for (const f of FIXTURES) assert.deepEqual(planClaudeHooks(f.before, uninstall), { text: f.before, changes: [] });
    assert.deepEqual(planClaudeHooks(null, uninstall), { text: null, changes: [] });
    assert.deepEqual(planClaudeHooks('', uninstall), { text: '', changes: [] });
  });
  test('an empty list that asimov did not empty is kept', () => {
    const before = '{\n  "hooks": {\n    "Stop": [],\n    "PreToolUse": []\n  }\n}\n';
    const added = planClaudeHooks(before, { ...install, events: ['PreToolUse'] }).text!;
    assert.equal(planClaudeHooks(added, uninstall).text, '{\n  "hooks": {\n    "Stop": []\n  }\n}\n',
      'the PreToolUse list was emptied by the removal, so it goes; Stop stays');
  });
});

describe('planClaudeHooks: files it refuses', () => {
  function refusal(text: string): AsimovError {
    try {
      planClaudeHooks(text, install);
    } catch (e) {
      assert.ok(e instanceof AsimovError && e.code === 'wire_settings_invalid', String(e));
      return e;
    }
    assert.fail('accepted');
  }
  test('invalid JSON, named by line and column', () => {
    assert.equal(refusal('{\n  "model": "opus"\n  "hooks": {}\n}\n').toString(), `${F}:3:3: not valid JSON: a ',' was expected`);
    assert.equal(refusal('{\n  "model": "opus",\n}\n').toString(), `${F}:3:1: not valid JSON: a trailing comma before this bracket`);
    assert.equal(refusal('{\n  // mine\n  "model": "opus"\n}\n').toString(), `${F}:2:3: not valid JSON: comments are not allowed in this file`);
  });
  test('a top-level array', () => {
    assert.equal(refusal('[]\n').toString(), `${F}:1:1: the top-level value must be an object ({ … }), found an array`);
  });
  test('hooks or an event list of the wrong type', () => {
    assert.equal(refusal('{\n  "hooks": ["x"]\n}').toString(), `${F}:2:12: hooks: must be an object, found an array`);
    assert.equal(refusal('{\n  "hooks": { "PreToolUse": {} }\n}').toString(), `${F}:2:28: hooks.PreToolUse: must be a list ([ … ]), found an object`);
  });
  test('a key given twice', () => {
    assert.match(refusal('{"hooks": {}, "hooks": {}}').toString(), /1:15: hooks: the key "hooks" appears twice/);
  });
});

describe('readClaudeHookState', () => {
  test('nothing installed in a missing, empty or hook-less file', () => {
    const none = { PreToolUse: { installed: false, matcher: '' }, PermissionRequest: { installed: false, matcher: '' } };
    assert.deepEqual(readClaudeHookState(null).events, none);
    assert.deepEqual(readClaudeHookState('').events, none);
    assert.deepEqual(readClaudeHookState(FIXTURES[2]!.before).events, none);
  });
  test('installed entries with matcher, command and timeout, also under other events', () => {
    const text = `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":${J(CMD)},"timeout":9}]}],"Stop":[{"hooks":[{"command":${J(CMD)}}]}]}}`;
    assert.deepEqual(readClaudeHookState(text).events, {
      PreToolUse: { installed: true, matcher: 'Bash', command: CMD, timeout: 9 },
      PermissionRequest: { installed: false, matcher: '' },
      Stop: { installed: true, matcher: '', command: CMD },
    });
  });
  test('throws on a file Claude Code cannot read', () => {
    assert.throws(() => readClaudeHookState('{,}', F), (e: AsimovError) => e.code === 'wire_settings_invalid' && e.location?.file === F);
  });
});

describe('claudeSettingsPaths', () => {
  test('user, project, local and managed files', () => {
    assert.deepEqual(claudeSettingsPaths({ home: '/home/u', projectRoot: '/p', env: {}, platform: 'linux' }), {
      user: '/home/u/.claude/settings.json',
      project: '/p/.claude/settings.json',
      local: '/p/.claude/settings.local.json',
      managed: '/etc/claude-code/managed-settings.json',
    });
    assert.equal(claudeSettingsPaths({ home: '/Users/u', projectRoot: '/p', env: {}, platform: 'darwin' }).managed,
      '/Library/Application Support/ClaudeCode/managed-settings.json');
  });
  test('CLAUDE_CONFIG_DIR replaces ~/.claude for the user file', () => {
    assert.equal(claudeSettingsPaths({ home: '/home/u', projectRoot: '/p', env: { CLAUDE_CONFIG_DIR: '/cfg/claude' } }).user, '/cfg/claude/settings.json');
  });
});
