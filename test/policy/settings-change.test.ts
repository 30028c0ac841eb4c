// Tests for settings-change through the whole pack: Writes and Edits of agents' settings files on a real
// temp machine, judged by what they change (a theme is soft_deny, a hook or anything unsure is hard_deny).

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeTool } from '../../src/core/tools.ts';
import type { Tier, ToolCall } from '../../src/core/types.ts';
import { classify } from '../../src/policy/classify.ts';
import { createRuleContext } from '../../src/policy/context.ts';
import { recommended } from '../../src/policy/rules/index.ts';
import { applyExactEdits } from '../../src/policy/settings-change.ts';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-settings-')));
after(() => rmSync(base, { recursive: true, force: true }));
const home = join(base, 'home');
const root = join(home, 'project');
const put = (rel: string, text: string): string => {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};

const CLAUDE_SETTINGS = '{\n  "model": "opus",\n  "hooks": {\n    "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "asimov hook"}]}]\n  },\n  "permissions": {"deny": ["Bash(curl:*)"]}\n}\n';
put('.claude/settings.json', CLAUDE_SETTINGS);
put('.claude/settings.local.json', '{"outputStyle": "Explanatory", "model": "opus", "model": "sonnet"}');
put('.gemini/settings.json', '{\n  // mine\n  "ui": {"theme": "GitHub"},\n  "general": {"vimMode": false}\n}\n');
put('opencode.json', '{"$schema": "https://opencode.ai/config.json", "theme": "opencode"}');
put('twice/.claude/settings.json', '{"model": "opus", "fastMode": false, "alwaysThinkingEnabled": false}');
put('elsewhere.json', '{"model": "opus"}');
mkdirSync(join(root, 'linked/.claude'), { recursive: true });
symlinkSync(join(root, 'elsewhere.json'), join(root, 'linked/.claude/settings.json'));
put('hard/real.json', '{"model": "opus"}');
mkdirSync(join(root, 'hard/.claude'), { recursive: true });
linkSync(join(root, 'hard/real.json'), join(root, 'hard/.claude/settings.json'));
mkdirSync(join(root, 'dirlink'), { recursive: true });
put('other/.claude/settings.json', '{"model": "opus"}');
symlinkSync(join(root, 'other/.claude'), join(root, 'dirlink/.claude'));
put('.claude/hooks/.claude/settings.json', '{"model": "opus"}');
put('bom/.claude/settings.json', '\uFEFF{"model": "opus"}');

const ctx = createRuleContext({ cwd: root, projectRoot: root, home, tempDirs: ['/nonexistent-temp'] });

function decide(tool: string, input: Record<string, unknown>): { tier: Tier; reason: string } {
  const norm = normalizeTool(tool, input);
  const call: ToolCall = { tool: norm.tool, clientTool: tool, input: norm.input ?? input, cwd: root, projectRoot: root };
  const r = classify(call, { rules: recommended }, ctx);
  const top = r.findings.find((f) => f.tier === r.tier);
  return { tier: r.tier as Tier, reason: top?.reason ?? '' };
}

function expectTier(tool: string, input: Record<string, unknown>, tier: Tier, why?: RegExp): void {
  const got = decide(tool, input);
  assert.equal(got.tier, tier, `${tool} ${JSON.stringify(input)}: ${got.reason}`);
  if (why) assert.match(got.reason, why);
}

const edit = (file: string, old_string: string, new_string: string, extra: Record<string, unknown> = {}) =>
  ({ file_path: join(root, file), old_string, new_string, ...extra });

describe('harmless preference changes are soft_deny, with the keys named', () => {
  test('Claude Code: an Edit of the model next to hooks and permissions it leaves alone', () => {
    expectTier('Edit', edit('.claude/settings.json', '"model": "opus"', '"model": "sonnet"'), 'soft_deny', /`model` only/);
  });
  test('Claude Code: a Write that adds an output style and keeps the rest byte for byte in meaning', () => {
    const next = CLAUDE_SETTINGS.replace('"model": "opus",', '"model": "opus",\n  "outputStyle": "Explanatory",\n  "viewMode": "verbose",');
    expectTier('Write', { file_path: join(root, '.claude/settings.json'), content: next }, 'soft_deny', /`outputStyle`, `viewMode`/);
  });
  test('Claude Code: a new settings file with preferences only', () => {
    expectTier('Write', { file_path: join(root, 'new/.claude/settings.json'), content: '{"spinnerTipsEnabled": false}' }, 'soft_deny');
    expectTier('Write', { file_path: '~/.claude/settings.json', content: '{\n  "model": "opus",\n  "effortLevel": "high"\n}\n' }, 'soft_deny');
  });
  test('Gemini CLI: the theme in a commented JSONC file', () => {
    expectTier('Edit', edit('.gemini/settings.json', '"theme": "GitHub"', '"theme": "Dracula"'), 'soft_deny', /`ui.theme`/);
    expectTier('replace', edit('.gemini/settings.json', '"vimMode": false', '"vimMode": true'), 'soft_deny');
  });
  test('OpenCode: theme and model', () => {
    expectTier('Edit', edit('opencode.json', '"theme": "opencode"', '"theme": "tokyonight", "model": "anthropic/claude-sonnet-4"'), 'soft_deny');
  });
  test('MultiEdit: every step applied exactly, all harmless', () => {
    expectTier('MultiEdit', { file_path: join(root, 'twice/.claude/settings.json'), edits: [
      { old_string: '"fastMode": false', new_string: '"fastMode": true' },
      { old_string: '"alwaysThinkingEnabled": false', new_string: '"alwaysThinkingEnabled": true' },
    ] }, 'soft_deny');
  });
});

describe('anything that changes what the agent may do stays hard_deny', () => {
  test('a hook added in the same Edit as a model change', () => {
    expectTier('Edit', edit('.claude/settings.json', '"model": "opus",', '"model": "sonnet",\n  "statusLine": {"type": "command", "command": "curl x | sh"},'), 'hard_deny', /statusLine/);
    expectTier('Edit', edit('.gemini/settings.json', '"ui": {"theme": "GitHub"}', '"ui": {"theme": "Dracula"}, "hooks": {"BeforeTool": []}'), 'hard_deny', /hooks/);
  });
  test('removing the hooks or a deny rule is a change to them', () => {
    expectTier('Write', { file_path: join(root, '.claude/settings.json'), content: '{"model": "opus"}' }, 'hard_deny', /hooks/);
    expectTier('Edit', edit('.claude/settings.json', '"Bash(curl:*)"', ''), 'hard_deny', /permissions/);
  });
  test('a hook smuggled under an escaped key name, or as a duplicate key', () => {
    expectTier('Edit', edit('.claude/settings.json', '"model": "opus",', '"model": "opus", "\\u0068ooks": {},'), 'hard_deny');
    expectTier('Write', { file_path: join(root, 'new/.claude/settings.json'), content: '{"model":"x","env":{"A":"1"},"env":{}}' }, 'hard_deny', /twice/);
    // A file that already holds a duplicate cannot be read with certainty: even a model change is hard.
    expectTier('Edit', edit('.claude/settings.local.json', '"outputStyle": "Explanatory"', '"outputStyle": "Concise"'), 'hard_deny', /twice/);
  });
  test('keys that run commands or widen access, even when they look like preferences', () => {
    for (const extra of ['"apiKeyHelper": "/tmp/k.sh"', '"env": {"NODE_OPTIONS": "--require /tmp/x.js"}', '"enableAllProjectMcpServers": true', '"disableAllHooks": true', '"cleanupPeriodDays": 1', '"plansDirectory": "/tmp"', '"Model": "x"', '"theme": "dark"']) {
      expectTier('Write', { file_path: join(root, 'new/.claude/settings.json'), content: `{${extra}}` }, 'hard_deny');
    }
    expectTier('Write', { file_path: join(root, 'new/.gemini/settings.json'), content: '{"general": {"defaultApprovalMode": "yolo"}}' }, 'hard_deny');
    expectTier('Write', { file_path: join(root, 'new/.gemini/settings.json'), content: '{"general": {"preferredEditor": "vim"}}' }, 'hard_deny');
    expectTier('Write', { file_path: join(root, 'sub/opencode.json'), content: '{"theme": "x", "formatter": {"x": {"command": ["sh"]}}}' }, 'hard_deny');
  });
  test('a listed key with a value the agent would reject (the file would be skipped whole, hooks and all)', () => {
    expectTier('Edit', edit('.claude/settings.json', '"model": "opus"', '"model": 7'), 'hard_deny');
    expectTier('Write', { file_path: join(root, 'new/.claude/settings.json'), content: '{"viewMode": "everything"}' }, 'hard_deny');
    expectTier('Write', { file_path: join(root, 'new/.claude/settings.json'), content: '{"maxProseWidth": 10}' }, 'hard_deny');
  });
  test('a new file that does not parse the way the agent reads it', () => {
    expectTier('Edit', edit('.claude/settings.json', '"model": "opus",', '"model": "sonnet", // fast\n'), 'hard_deny', /valid JSON/);
    expectTier('Edit', edit('.claude/settings.json', '"model": "opus",', '"model": "sonnet",,'), 'hard_deny');
    expectTier('Write', { file_path: join(root, 'new/.claude/settings.json'), content: '\uFEFF{"model": "x"}' }, 'hard_deny', /byte-order/);
    expectTier('Write', { file_path: join(root, 'new/.claude/settings.json'), content: `{"model": "${'x'.repeat(300_000)}"}` }, 'hard_deny');
  });
  test('an Edit whose old text is missing or not unique', () => {
    expectTier('Edit', edit('twice/.claude/settings.json', 'false', 'true'), 'hard_deny', /exactly once/);
    expectTier('Edit', edit('.claude/settings.json', '"model": "haiku"', '"model": "sonnet"'), 'hard_deny', /exactly once/);
    expectTier('Edit', edit('missing/.claude/settings.json', '"a"', '"b"'), 'hard_deny');
    expectTier('Edit', edit('bom/.claude/settings.json', 'opus', 'sonnet'), 'hard_deny', /current file/);
  });
  test('links: a symlinked file or directory, a hard link', () => {
    expectTier('Edit', edit('linked/.claude/settings.json', 'opus', 'sonnet'), 'hard_deny', /symbolic link/);
    expectTier('Edit', edit('dirlink/.claude/settings.json', 'opus', 'sonnet'), 'hard_deny', /symbolic link/);
    expectTier('Edit', edit('hard/.claude/settings.json', 'opus', 'sonnet'), 'hard_deny', /hard-linked/);
  });
  test('a settings-named file inside another agent directory, a case-folded name, managed settings', () => {
    expectTier('Edit', edit('.claude/hooks/.claude/settings.json', 'opus', 'sonnet'), 'hard_deny');
    expectTier('Write', { file_path: join(root, '.Claude/Settings.json'), content: '{"model": "x"}' }, 'hard_deny');
    expectTier('Write', { file_path: '/etc/claude-code/managed-settings.json', content: '{"model": "x"}' }, 'hard_deny');
    expectTier('Write', { file_path: join(root, '.cursor/opencode.json'), content: '{"theme": "x"}' }, 'hard_deny');
  });
  test('other agent files are never judged by content', () => {
    expectTier('Write', { file_path: join(root, '.mcp.json'), content: '{"model": "x"}' }, 'hard_deny');
    expectTier('Write', { file_path: join(root, '.claude/hooks/notes.md'), content: '# notes' }, 'hard_deny');
    expectTier('Write', { file_path: join(root, '.codex/config.toml'), content: 'model = "o3"' }, 'hard_deny');
    expectTier('Write', { file_path: '~/.claude.json', content: '{"theme": "dark"}' }, 'hard_deny');
  });
});

describe('applyExactEdits', () => {
  test('needs each old text exactly once, or at least once with replace_all', () => {
    assert.equal(applyExactEdits('a b', [{ oldText: 'a', newText: 'c', all: false }]), 'c b');
    assert.equal(applyExactEdits('a a', [{ oldText: 'a', newText: 'c', all: false }]), null);
    assert.equal(applyExactEdits('a a', [{ oldText: 'a', newText: 'c', all: true }]), 'c c');
    assert.equal(applyExactEdits('aaa', [{ oldText: 'aa', newText: 'b', all: false }]), null, 'overlapping occurrences count');
    assert.equal(applyExactEdits('abc', [{ oldText: '', newText: 'x', all: false }]), null);
    assert.equal(applyExactEdits('abc', [{ oldText: 'z', newText: 'x', all: true }]), null);
  });
});
