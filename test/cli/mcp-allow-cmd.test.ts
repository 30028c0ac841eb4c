// `asimov mcp allow` as a person runs it: the built binary, a scratch HOME, server-everything started for real
// (as the command line or a client's configuration says), and the gate and the proxy afterwards: the allowed
// tool passes, the server's other tools are still refused, and the user's own policy file keeps its bytes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createGate } from '../../src/gate/gate.ts';
import { toToolCall } from '../../src/adapters/mcp/call-mapping.ts';
import { BIN, EVERYTHING, REPO, connectProxy, makeProxyScratch, type ProxyScratch } from '../helpers/mcp-proxy.ts';

const NODE = process.execPath;
const scratches: ProxyScratch[] = [];

before(() => {
  assert.ok(existsSync(join(REPO, 'dist/cli.cjs')), 'dist/cli.cjs is missing: run `node scripts/build.mjs` (npm test does)');
});
after(() => { for (const s of scratches) s.cleanup(); });

/** A scratch HOME and git project, with no user policy unless one is given. */
function scratch(policy?: string): ProxyScratch & { policy: string } {
  const s = makeProxyScratch('asimov-allow-');
  scratches.push(s);
  const file = join(s.home, '.config/asimov/policy.yaml');
  if (policy === undefined) spawnSync('rm', ['-f', file]);
  else writeFileSync(file, policy);
  return { ...s, policy: file };
}

interface Run { code: number | null; out: string; err: string }

function allow(s: ProxyScratch, args: string[], env: Record<string, string> = {}): Run {
  const r = spawnSync(NODE, [BIN, 'mcp', 'allow', ...args], {
    cwd: s.project,
    env: { PATH: process.env.PATH ?? '', HOME: s.home, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** What the gate, as the proxy builds it, decides for a call of this tool of server-everything. */
async function gateSays(s: ProxyScratch, tool: string, input: Record<string, unknown> = {}) {
  const gate = createGate({ env: { HOME: s.home, PATH: process.env.PATH ?? '' }, home: s.home, audit: false, sessionState: false });
  return gate.decide(toToolCall(tool, input, undefined, { server: 'everything', cwd: s.project }, 'test'), { personAvailable: false });
}

describe('asimov mcp allow --read-only, end to end', () => {
  test('the proxy\'s refusal names the command; after it, the gate and the proxy let the tool through and still refuse the others', async (t) => {
    const s = scratch();
    // A proxy the client started before the rule existed: it applies the rule from its next call.
    const running = await connectProxy(s, [NODE, EVERYTHING], { proxyArgs: ['--name', 'everything'] });
    t.after(() => running.close());
    const refused: any = await running.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /asimov has no rule for the tool `mcp__everything__echo`/);
    assert.match(refused.content[0].text, /`asimov mcp allow everything echo`/);

    const r = allow(s, ['everything', '--read-only', '--', NODE, EVERYTHING]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /echo\s+add/);
    assert.match(r.out, /trigger-long-running-operation\s+add/);
    assert.match(r.out, /get-sum\s+covered\s+already allowed by mcp\.call/);
    assert.match(r.out, /toggle-simulated-logging\s+left out\s+annotated readOnlyHint: false/);
    assert.match(r.out, new RegExp(`Adding rule mcp-allow\\.everything in ${s.policy.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(a new file\\)`));
    assert.match(r.out, /Wrote /);
    const written = parse(readFileSync(s.policy, 'utf8'));
    assert.deepEqual(written.custom[0].match.tool, ['mcp__everything__echo', 'mcp__everything__trigger-long-running-operation']);

    const echo = await gateSays(s, 'echo', { message: 'hi' });
    assert.equal(echo.verdict, 'allow', echo.reason);
    assert.equal(echo.rule, 'mcp-allow.everything');
    const toggle = await gateSays(s, 'toggle-simulated-logging');
    assert.equal(toggle.verdict, 'deny');
    assert.match(toggle.reason, /asimov mcp allow everything toggle-simulated-logging/);

    const now: any = await running.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    assert.notEqual(now.isError, true, `the running proxy still refuses: ${JSON.stringify(now)}`);

    const afterwards = await connectProxy(s, [NODE, EVERYTHING], { proxyArgs: ['--name', 'everything'] });
    try {
      const ok: any = await afterwards.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
      assert.notEqual(ok.isError, true, JSON.stringify(ok));
      assert.match(ok.content[0].text, /hi/);
      const still: any = await afterwards.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
      assert.equal(still.isError, true);
    } finally {
      await afterwards.close();
    }
  });

  test('finds the server in a client\'s configuration, by the proxy\'s --name when it runs through the proxy', () => {
    const s = scratch();
    writeFileSync(join(s.home, '.claude.json'), JSON.stringify({
      mcpServers: { 'ev-entry': { command: 'asimov', args: ['mcp', 'proxy', '--name', 'ev', '--', NODE, EVERYTHING] } },
    }));
    const r = allow(s, ['ev', '--read-only', '--dry-run']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /ev: 13 tools listed/);
    assert.match(r.out, /mcp__ev__echo/);
    assert.equal(existsSync(s.policy), false);
  });

  test('a server only a project\'s own file names is not started', () => {
    const s = scratch();
    writeFileSync(join(s.project, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: NODE, args: [EVERYTHING] } } }));
    const r = allow(s, ['everything', '--read-only']);
    assert.equal(r.code, 1);
    assert.match(r.err, /project's own file/);
    assert.match(r.err, /-- <command>/);
    assert.equal(existsSync(s.policy), false);
  });

  test('a server that cannot be listed is an error, and nothing is written', () => {
    const s = scratch();
    const r = allow(s, ['nothing', '--read-only', '--timeout-ms', '5000', '--', NODE, '-e', 'process.exit(3)']);
    assert.equal(r.code, 1);
    assert.match(r.err, /cannot list the tools of nothing/);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    assert.equal(existsSync(s.policy), false);
  });
});

describe('asimov mcp allow with tool names', () => {
  test('running it again adds nothing and leaves the file as it was', () => {
    const s = scratch();
    assert.equal(allow(s, ['everything', 'echo']).code, 0);
    const once = readFileSync(s.policy, 'utf8');
    const again = allow(s, ['everything', 'echo']);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /echo\s+covered\s+already allowed by mcp-allow\.everything/);
    assert.match(again.out, /Nothing to add/);
    assert.equal(readFileSync(s.policy, 'utf8'), once);
    const more = allow(s, ['everything', 'echo', 'toggle-simulated-logging']);
    assert.match(more.out, /Updating rule mcp-allow\.everything \(adding toggle-simulated-logging\)/);
    const rules = parse(readFileSync(s.policy, 'utf8')).custom;
    assert.equal(rules.length, 1);
    assert.deepEqual(rules[0].match.tool, ['mcp__everything__echo', 'mcp__everything__toggle-simulated-logging']);
  });

  test('--dry-run shows the rule and writes nothing, not even the directory', () => {
    const s = scratch();
    spawnSync('rm', ['-rf', join(s.home, '.config')]);
    const r = allow(s, ['everything', 'echo', '--dry-run']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /- id: mcp-allow\.everything/);
    assert.match(r.out, /Dry run: the policy loads with it; nothing was written/);
    assert.equal(existsSync(join(s.home, '.config')), false);
  });

  test('an existing user policy keeps every byte, comments included, apart from the addition', () => {
    const mine = `# my policy (hand-written)
version: 1 # always 1

custom:
  # keep prod out
  - id: local.no-prod
    tier: hard_deny
    reason: "Never prod."
    match: { command: [psql, "*prod*"] }
    examples: { match: ["psql prod-db"] }

# paths I care about
protectedPaths: ['deploy/**']   # see wiki
`;
    const s = scratch(mine);
    const r = allow(s, ['everything', 'echo']);
    assert.equal(r.code, 0, r.err);
    const now = readFileSync(s.policy, 'utf8');
    const at = now.indexOf('  - id: mcp-allow.everything');
    assert.ok(at > 0, now);
    const added = now.length - mine.length;
    assert.equal(now.slice(0, at) + now.slice(at + added), mine);
  });

  test('the user policy goes where XDG_CONFIG_HOME says', () => {
    const s = scratch();
    const xdg = join(s.root, 'xdg');
    const r = allow(s, ['everything', 'echo'], { XDG_CONFIG_HOME: xdg });
    assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(join(xdg, 'asimov/policy.yaml')));
    assert.equal(existsSync(s.policy), false);
  });

  test('tools a built-in rule decides are left out with the reason: read names, shell tools, destructive names', () => {
    const s = scratch();
    const r = allow(s, ['everything', 'get-sum', 'run_command', 'delete_everything']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /get-sum\s+covered/);
    assert.match(r.out, /run_command\s+left out\s+it runs the commands it is given/);
    assert.match(r.out, /delete_everything\s+left out\s+mcp\.call makes it soft_deny/);
    assert.match(r.out, /Nothing to add/);
    assert.equal(existsSync(s.policy), false);
  });

  test('a rule the user wrote under the same id is not overwritten', () => {
    const mine = `version: 1
custom:
  - id: mcp-allow.everything
    tier: hard_deny
    reason: No everything server here.
    match: { tool: "mcp__everything__*" }
    examples: { match: [{ tool: mcp__everything__echo, input: {} }] }
`;
    const s = scratch(mine);
    const r = allow(s, ['everything', 'echo']);
    assert.equal(r.code, 1);
    assert.match(r.err, /already has a custom rule mcp-allow\.everything that asimov mcp allow did not write \(its tier is hard_deny/);
    assert.equal(readFileSync(s.policy, 'utf8'), mine);
  });

  test('a policy that would not load with the rule is not written: the project already uses the id', () => {
    const s = scratch();
    mkdirSync(join(s.project, '.asimov'), { recursive: true });
    writeFileSync(join(s.project, '.asimov/policy.yaml'), `version: 1
custom:
  - id: mcp-allow.everything
    tier: hard_deny
    reason: Not this one.
    match: { tool: "mcp__other__x" }
    examples: { match: [{ tool: mcp__other__x, input: {} }] }
`);
    const r = allow(s, ['everything', 'echo']);
    assert.equal(r.code, 1);
    assert.match(r.err, /would not load with this rule, so nothing was written/);
    assert.match(r.err, /already defined/);
    assert.doesNotMatch(r.err, /asimov-new/, 'the error names the real file, not the scratch copy');
    assert.equal(existsSync(s.policy), false);
  });

  test('a policy that does not load today is reported, and nothing is changed', () => {
    const s = scratch('version: 1\nrules: { no.such-rule: allow }\n');
    const r = allow(s, ['everything', 'echo']);
    assert.equal(r.code, 1);
    assert.match(r.err, /the policy in effect does not load/);
    assert.equal(readFileSync(s.policy, 'utf8'), 'version: 1\nrules: { no.such-rule: allow }\n');
  });
});

describe('asimov mcp allow --all and --project', () => {
  test('--all writes one glob for the server, with a warning', async () => {
    const s = scratch();
    const r = allow(s, ['everything', '--all']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /warning: --all lets every tool of everything through/);
    assert.deepEqual(parse(readFileSync(s.policy, 'utf8')).custom[0].match.tool, ['mcp__everything__*']);
    assert.equal((await gateSays(s, 'toggle-simulated-logging')).verdict, 'allow');
    assert.match(allow(s, ['everything', 'echo']).out, /echo\s+covered/);
  });

  test('--project writes the project policy and says it needs asimov trust', async () => {
    const s = scratch();
    const r = allow(s, ['everything', 'echo', '--project']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /run `asimov trust /);
    assert.ok(existsSync(join(s.project, '.asimov/policy.yaml')));
    assert.equal(existsSync(s.policy), false);
    // Untrusted, its allow rule is ignored: the tool is still refused.
    assert.equal((await gateSays(s, 'echo', { message: 'hi' })).verdict, 'deny');
  });
});

describe('usage mistakes', () => {
  for (const [args, message] of [
    [[], /name the server/],
    [['everything'], /exactly one of: tool names, --read-only, --all/],
    [['everything', 'echo', '--all'], /exactly one of/],
    [['bad__name', 'echo'], /server name must be/],
    [['everything', 'echo', '--', 'node', 'x.js'], /only for --read-only/],
    [['everything', '--read-only', '--url', 'http://127.0.0.1:1/mcp', '--', 'node'], /not both/],
    [['everything', '--read-only', '--sse'], /go with --url/],
    [['everything', '--read-only', '--url', 'http://127.0.0.1:1/mcp', '--header', 'no colon'], /--header takes 'Name: value'/],
    [['everything', '--read-only', '--url', 'http://127.0.0.1:1/mcp', '--header', 'Bad Name: v'], /--header takes 'Name: value'/],
    [['everything', 'echo', '--bogus'], /bogus/],
  ] as const) {
    test(`${args.join(' ') || '(nothing)'}: ${message}`, () => {
      const s = scratch();
      const r = allow(s, [...args]);
      assert.equal(r.code, 1);
      assert.match(r.err, message);
      assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
      assert.equal(existsSync(s.policy), false);
    });
  }

  test('--help prints the usage', () => {
    const s = scratch();
    const r = allow(s, ['--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, /Usage: asimov mcp allow <server> TOOL…/);
  });
});
