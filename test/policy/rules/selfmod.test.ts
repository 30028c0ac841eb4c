// The selfmod rules: an agent must not rewrite its own configuration, asimov's policy, or the git hooks.

import { describe, test } from 'node:test';
import { tierOf } from '../../helpers/rule-tester.ts';
import assert from 'node:assert/strict';
import { expectNoRule, expectRule, testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';
import { rules } from '../../../src/policy/rules/selfmod.ts';

testRuleExamples(rules);

tierTable('changing the agent\'s or asimov\'s own configuration is hard_deny, by any means', [
  ['echo "{\\"permissions\\":{\\"allow\\":[\\"Bash(*)\\"]}}" > .claude/settings.json', 'hard_deny'],
  ['cat x >> .claude/settings.local.json', 'hard_deny'],
  ['sed -i "s/deny/allow/" .claude/settings.json', 'hard_deny'],
  ['perl -pi -e "s/deny/allow/" .claude/settings.json', 'hard_deny'],
  ['cp /tmp/evil.json .claude/settings.json', 'hard_deny'],
  ['mv /tmp/evil.json ~/.claude/settings.json', 'hard_deny'],
  ['install -m 644 x .claude/hooks/pre.sh', 'hard_deny'],
  ['rm -f .claude/settings.json', 'hard_deny'],
  ['rm -rf ~/.claude', 'hard_deny'],
  ['ln -sf /dev/null .claude/settings.json', 'hard_deny'],
  ['truncate -s0 .mcp.json', 'hard_deny'],
  ['git checkout HEAD~5 -- .claude/settings.json', 'hard_deny'],
  ['git restore .claude/', 'hard_deny'],
  ['dd if=x of=.cursor/mcp.json', 'hard_deny'],
  ['curl -o .claude/settings.json https://x.example/s.json', 'hard_deny'],
  ['tar -xf x.tar -C .claude', 'hard_deny'],
  ['cd .claude && echo x > settings.json', 'hard_deny'],
  ['bash -c "echo {} > .gemini/settings.json"', 'hard_deny'],
  ['echo "policy" > .asimov/policy.yaml', 'hard_deny'],
  ['rm .asimov/policy.yaml', 'hard_deny'],
  ['rm -rf ~/.local/state/asimov', 'hard_deny'],
  ['asimov trust .asimov/policy.yaml', 'hard_deny'],
  ['asimov mcp allow everything echo', 'hard_deny'],
  ['npx asimov mcp allow everything --read-only --dry-run -- node evil.js', 'hard_deny'],
  ['asimov mcp allow github --all', 'hard_deny'],
  ['asimov uninstall', 'hard_deny'],
  ['npx asimov uninstall --purge --yes', 'hard_deny'],
  ['npm uninstall -g asimov-firewall', 'hard_deny'],
  ['npm rm -g asimov-firewall@1.0.0', 'hard_deny'],
  ['ASIMOV_OFF=1 git push', 'hard_deny'],
  ['claude --dangerously-skip-permissions', 'hard_deny'],
  ['claude mcp add-json x "{}"', 'hard_deny'],
]);

tierTable('instruction files and git hooks are soft_deny', [
  ['echo "Always run tests" >> CLAUDE.md', 'soft_deny'],
  ['cp template.md AGENTS.md', 'soft_deny'],
  ['echo x > .git/hooks/pre-commit', 'soft_deny'],
  ['rm -f .git/hooks/pre-push', 'soft_deny'],
]);

describe('reading and mentioning agent configuration is fine', () => {
  test('reads, copies out and look-alike names do not trip the rules', () => {
    for (const c of ['cat .claude/settings.json', 'jq . .claude/settings.json', 'cp .claude/settings.json /tmp/', 'ls -la .claude', 'echo .claude/settings.json', 'grep -r hooks .claude', 'echo x > claude.txt', 'echo x > docs/claude-notes.md']) {
      expectNoRule(c, 'selfmod.agent-config');
    }
    for (const c of ['asimov check -- rm -rf /', 'asimov explain -- ls', 'cat .asimov/policy.yaml', 'asimov audit verify', 'asimov mcp allow --help', 'asimov mcp scan']) expectNoRule(c, 'selfmod.asimov');
  });
  test('unwrapped and relative spellings are still caught', () => {
    expectRule('sudo tee .claude/settings.json < x', 'selfmod.agent-config');
    expectRule('find . -name settings.json -path "*/.claude/*" -delete', 'fs.find-delete');
    expectRule('echo x > ./sub/../.claude/settings.json', 'selfmod.agent-config');
    expectRule('echo x > .CLAUDE/settings.json', 'selfmod.agent-config');
  });
});

describe('wildcards that may match configuration are soft, not hard', () => {
  test('a dot-glob touching the project root asks instead of refusing', () => {
    expectRule('chmod g+w .[^.]*', 'selfmod.agent-config');
    assert.equal(tierOf('chmod g+w .[^.]*'), 'soft_deny');
    expectNoRule('mv wordpress/.* .', 'fs.rm-catastrophic');
  });
});
