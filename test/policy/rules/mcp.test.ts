// Tests for the mcp rules: every example through rule.match with a real context, the name lists, and argument scanning.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeTool } from '../../../src/core/tools.ts';
import type { ToolCall } from '../../../src/core/types.ts';
import { createRuleContext } from '../../../src/policy/context.ts';
import type { RuleExample, RuleHit, ToolRule } from '../../../src/policy/rule.ts';
import { mcpPathArgs, mcpToolVerb, mcpUrlArgs, nameWords, rules } from '../../../src/policy/rules/mcp.ts';
import { testRuleExamples } from '../../helpers/rule-tester.ts';

const ctx = createRuleContext({
  cwd: '/home/dev/project',
  projectRoot: '/home/dev/project',
  home: '/home/dev',
  defaultBranches: ['main', 'trunk'],
  tmpdir: '/tmp',
});

const call = rules.find((r) => r.id === 'mcp.call') as ToolRule;

function callOf(ex: { tool: string; input: Record<string, unknown> }): ToolCall {
  return { tool: normalizeTool(ex.tool, ex.input).tool, clientTool: ex.tool, input: ex.input, cwd: ctx.cwd };
}

function run(tool: string, input: Record<string, unknown> = {}): RuleHit | null {
  const c = callOf({ tool, input });
  if (call.tools && !call.tools.includes(c.tool)) return null;
  const h = call.match(c, ctx);
  if (!h) return null;
  return typeof h === 'object' ? h : {};
}

/** The tier of the hit: the rule's own unless the hit grades itself down. */
function tierOf(tool: string, input: Record<string, unknown> = {}): string | null {
  const h = run(tool, input);
  return h === null ? null : (h.tier ?? call.tier);
}

function label(ex: RuleExample): string {
  return typeof ex === 'string' ? ex : `${ex.tool} ${JSON.stringify(ex.input)}`;
}

describe('mcp.call keeps its examples', () => {
  test('has a one-line reason and both kinds of example', () => {
    assert.ok(call.reason.length > 0 && !call.reason.includes('\n'));
    assert.ok(call.examples.match.length > 0 && call.examples.notMatch.length > 0);
  });
  for (const ex of call.examples.match) {
    test(`matches ${label(ex)}`, () => {
      assert.ok(typeof ex !== 'string');
      assert.ok(run(ex.tool, ex.input));
    });
  }
  for (const ex of call.examples.notMatch) {
    test(`does not match ${label(ex)}`, () => {
      assert.ok(typeof ex !== 'string');
      assert.equal(run(ex.tool, ex.input), null);
    });
  }
});

describe('mcp.call by tool name', () => {
  test('read-only names are allowed', () => {
    for (const t of ['get_issue', 'list_repos', 'read_file', 'search_code', 'fetch', 'describe_table', 'show_logs', 'find_user', 'getPullRequest', 'list-projects']) {
      assert.equal(tierOf(`mcp__s__${t}`), 'allow', t);
    }
  });

  test('destructive names are soft_deny wherever the word sits in the name', () => {
    for (const t of ['delete_branch', 'remove_member', 'drop_database', 'destroy_stack', 'purge_queue', 'wipe_disk', 'force_push', 'repo_delete', 'deleteFile', 'get_and_delete_item', 'truncate_table']) {
      assert.equal(tierOf(`mcp__s__${t}`), 'soft_deny', t);
    }
  });

  test('other names get no finding, so the engine leaves them unknown', () => {
    for (const t of ['create_issue', 'send_email', 'run_tests', 'deploy', 'query_logs_and_act']) assert.equal(tierOf(`mcp__s__${t}`), null, t);
  });

  test('a query tool is judged by its SQL: reads allowed, destruction soft_deny, other writes unknown', () => {
    assert.equal(tierOf('mcp__pg__query', { sql: 'select id from users where x = 1' }), 'allow');
    assert.equal(tierOf('mcp__pg__query', { sql: 'WITH a AS (SELECT 1) SELECT * FROM a;' }), 'allow');
    assert.equal(tierOf('mcp__pg__execute_sql', { query: 'DELETE FROM users' }), 'soft_deny');
    assert.equal(tierOf('mcp__pg__run_query', { sql: 'drop table users' }), 'soft_deny');
    assert.equal(tierOf('mcp__pg__query', { sql: 'INSERT INTO t VALUES (1)' }), null);
    assert.equal(tierOf('mcp__pg__query', { sql: 'SELECT 1; UPDATE t SET a = 1' }), null);
    assert.equal(tierOf('mcp__pg__query', { sql: 'SELECT * INTO backup FROM t' }), null);
    assert.equal(tierOf('mcp__pg__query', {}), null);
  });

  test('a merge is soft_deny unless it names a base that is not a default branch', () => {
    assert.equal(tierOf('mcp__gh__merge_pull_request', { pull_number: 1 }), 'soft_deny');
    assert.equal(tierOf('mcp__gh__merge_pull_request', { base: 'trunk' }), 'soft_deny');
    assert.equal(tierOf('mcp__gh__merge_branch', { base: 'feature/x' }), null);
  });

  test('a direct write to a default branch is soft_deny; to another branch it is no finding', () => {
    assert.equal(tierOf('mcp__gh__create_or_update_file', { branch: 'main', path: 'a', content: '' }), 'soft_deny');
    assert.equal(tierOf('mcp__gh__push_files', { branch: 'refs/heads/trunk' }), 'soft_deny');
    assert.equal(tierOf('mcp__gh__push_files', { branch: 'fix/x' }), null);
  });

  test("Gemini's mcp_server_tool names are read the same way", () => {
    assert.equal(tierOf('mcp_gh_delete_repo'), 'soft_deny');
    assert.equal(tierOf('mcp_gh_get_me'), 'allow');
  });

  test('the reason names the server and tool', () => {
    assert.match(run('mcp__github__delete_repository')?.reason ?? '', /github\/delete_repository/);
  });
});

describe('name words and verbs', () => {
  test('split snake, kebab and camel case alike', () => {
    assert.deepEqual(nameWords('getPullRequest'), ['get', 'pull', 'request']);
    assert.deepEqual(nameWords('get-pull_request'), ['get', 'pull', 'request']);
    assert.deepEqual(nameWords('HTTPGet'), ['httpget']);
  });

  test('a destructive word anywhere wins over a read-only first word', () => {
    assert.equal(mcpToolVerb('get_then_delete'), 'destructive');
    assert.equal(mcpToolVerb('list_things'), 'read');
    assert.equal(mcpToolVerb('getaway'), 'other');
  });
});

describe('paths and URLs in MCP arguments', () => {
  test('values under path-like keys and absolute-looking strings are paths', () => {
    const input = {
      path: 'src/a.ts',
      options: { destination: 'out/b.ts', note: 'see /etc/hosts', log: '/var/log/x.log' },
      files: ['~/.ssh/id_rsa', 'file:///tmp/x'],
      content: 'line one\n/etc/passwd\n',
      sep: '/',
      url: 'https://example.com/a',
    };
    assert.deepEqual(mcpPathArgs(input).sort(), ['/var/log/x.log', 'file:///tmp/x', 'out/b.ts', 'src/a.ts', '~/.ssh/id_rsa'].sort());
  });

  test('strings that are whole URLs are URLs; URLs inside prose are not', () => {
    const input = { url: 'https://a.example/x', nested: [{ href: 'ftp://b.example/' }], body: 'go to https://c.example now' };
    assert.deepEqual(mcpUrlArgs(input).sort(), ['ftp://b.example/', 'https://a.example/x']);
  });

  test('scanning is bounded: deep nesting is not followed forever', () => {
    let deep: Record<string, unknown> = { path: '/etc/shadow' };
    for (let i = 0; i < 50; i++) deep = { inner: deep };
    assert.deepEqual(mcpPathArgs(deep), []);
  });
});


// Every example again, through the whole pipeline with the full recommended pack.
testRuleExamples(rules);
