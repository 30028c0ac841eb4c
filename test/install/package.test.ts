// The package as a user gets it: `npm pack` of this checkout, installed from the tarball into a scratch
// prefix with no dev dependencies, then the `asimov` command that install put on the PATH, run from a
// directory that has nothing of this checkout (so no node_modules of ours can help it along).
// The tarball is packed with --ignore-scripts: `npm test` built dist/ already, and a second build here would
// rewrite the files other tests are running.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connectStdio } from '../helpers/mcp-proxy.ts';

const REPO = resolve(import.meta.dirname, '../..');
const NPM_CLI = process.env.npm_execpath && process.env.npm_execpath.endsWith('.js') ? process.env.npm_execpath : null;

/** npm itself: the one running `npm test` when there is one, else the `npm` on the PATH. */
function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = NPM_CLI
    ? spawnSync(process.execPath, [NPM_CLI, ...args], { cwd, env, encoding: 'utf8', timeout: 300_000 })
    : spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `npm ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

describe('the packed package, installed from its tarball', () => {
  let root = '';
  let prefix = '';
  let home = '';
  let elsewhere = '';
  let asimov = '';
  let installed = '';

  const env = (): NodeJS.ProcessEnv => ({
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    LANG: 'C.UTF-8',
    ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl'),
  });
  const run = (args: string[], input?: string) =>
    spawnSync('asimov', args, { cwd: elsewhere, env: env(), encoding: 'utf8', input, timeout: 60_000 });

  before(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-pack-')));
    prefix = join(root, 'prefix');
    home = join(root, 'home');
    elsewhere = join(root, 'project');
    for (const d of [prefix, home, join(elsewhere, '.git')]) mkdirSync(d, { recursive: true });
    npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', root], REPO);
    const tarball = readdirSync(root).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote no tarball');
    // npm runs with the developer's own environment (its cache, registry settings and certificates); only the
    // asimov runs below get the scratch HOME.
    npm(['install', '--global', '--prefix', prefix, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', join(root, tarball)], root);
    installed = join(prefix, 'lib/node_modules/asimov-firewall');
    asimov = join(prefix, 'bin/asimov');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('is named asimov-firewall, installs the asimov command, and ships the built program without source maps or dev tools', () => {
    assert.ok(existsSync(asimov), 'no bin/asimov in the prefix');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    assert.equal(pkg.name, 'asimov-firewall');
    // Nothing runs at install time (npm 11 warns about every package with install scripts it was not told to
    // allow): dist/ is built before packing, by prepack.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(pkg.scripts?.[hook], undefined, `scripts.${hook}`);
    assert.deepEqual(pkg.bin, { asimov: 'bin/asimov.cjs' });
    assert.ok(existsSync(join(installed, 'dist/cli.cjs')));
    assert.ok(!readdirSync(join(installed, 'dist')).some((f) => f.endsWith('.map')), 'source maps shipped');
    // Only the runtime dependencies: none of the agent CLIs the e2e tests use, no build tools.
    const modules = readdirSync(join(installed, 'node_modules')).flatMap((d) =>
      d.startsWith('@') ? readdirSync(join(installed, 'node_modules', d)).map((x) => `${d}/${x}`) : [d]);
    for (const dev of ['@anthropic-ai/claude-code', '@google/gemini-cli', '@openai/codex', 'esbuild', 'typescript', 'tsx']) {
      assert.ok(!modules.includes(dev), `${dev} was installed`);
    }
    assert.ok(modules.includes('openai') && modules.includes('@anthropic-ai/sdk'));
  });

  test('every runtime dependency it installed accepts the running Node', () => {
    const [major, minor, patch] = process.versions.node.split('.').map(Number) as [number, number, number];
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((d) => {
      if (d.startsWith('.')) return [];
      if (d.startsWith('@')) return readdirSync(join(dir, d)).map((x) => join(dir, d, x));
      return [join(dir, d)];
    });
    // Known exceptions, each with why it cannot fail on Node 20. cookie@2 (via fastify's light-my-request)
    // declares Node >= 22 but is plain JavaScript; only fastify.inject() (a test utility asimov never calls)
    // uses it. Every asimov serve test runs on this Node.
    const EXCEPTIONS = new Set(['cookie']);
    for (const p of walk(join(installed, 'node_modules'))) {
      const pkg = JSON.parse(readFileSync(join(p, 'package.json'), 'utf8'));
      const range: string | undefined = pkg.engines?.node;
      if (!range || EXCEPTIONS.has(pkg.name)) continue;
      const ok = nodeSatisfies(range, [major, minor, patch]);
      assert.ok(ok !== null, `${pkg.name}: engines.node ${range} is not a range this test reads`);
      assert.ok(ok, `${pkg.name}@${pkg.version} needs Node ${range}`);
    }
  });

  test('asimov check decides from another directory', () => {
    const ok = run(['check', '--', 'ls -la']);
    assert.equal(ok.status, 0, ok.stderr);
    const rm = run(['check', '--', 'rm -rf ~']);
    assert.equal(rm.status, 2, rm.stdout + rm.stderr);
    assert.match(rm.stdout + rm.stderr, /deny/i);
  });

  test('asimov wire claude --dry-run names the installed program and writes nothing', () => {
    const r = run(['wire', 'claude', '--dry-run']);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.includes(join(installed, 'bin/asimov.cjs')), r.stdout);
    assert.match(r.stdout, /dry run: nothing was written/);
    assert.ok(!existsSync(join(home, '.claude/settings.json')));
  });

  test('asimov mcp proxy gates a stdio server from the installed program', async () => {
    // The upstream: a tiny MCP server written with nothing but node (no SDK in this scratch directory).
    const server = join(root, 'server.mjs');
    writeFileSync(server, TINY_SERVER);
    const c = await connectStdio(asimov, ['mcp', 'proxy', '--name', 'tiny', '--', process.execPath, server], { cwd: elsewhere, env: env() as Record<string, string> });
    try {
      const tools = await c.client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name), ['write_file']);
      // A file write of the agent's own settings is hard_deny whatever the server is.
      const r = await c.client.callTool({ name: 'write_file', arguments: { path: join(elsewhere, '.claude/settings.json'), content: '{}' } });
      assert.equal(r.isError, true);
      assert.match(JSON.stringify(r.content), /asimov/);
      assert.ok(!existsSync(join(elsewhere, '.claude/settings.json')));
      assert.match(c.stderr(), /asimov mcp proxy: /);
    } finally {
      await c.close();
    }
  });

  test('install, wire, move the install (an upgrade into another prefix), doctor names the fix, refresh, uninstall: the settings file is gone', () => {
    const settings = join(home, '.claude/settings.json');
    assert.equal(run(['wire', 'claude']).status, 0);
    assert.ok(readFileSync(settings, 'utf8').includes(join(installed, 'bin/asimov.cjs')));
    const protectedNow = run(['doctor', 'claude']);
    assert.equal(protectedNow.status, 0, protectedNow.stdout + protectedNow.stderr);
    assert.match(protectedNow.stdout, /PROTECTED: Claude Code runs asimov/);

    // The upgrade: the same package into a new prefix, the old one gone (as a version manager moves it).
    const next = join(root, 'prefix-next');
    mkdirSync(next);
    const tarball = readdirSync(root).find((f) => f.endsWith('.tgz'))!;
    npm(['install', '--global', '--prefix', next, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', join(root, tarball)], root);
    rmSync(prefix, { recursive: true, force: true });
    const env2 = { ...env(), PATH: `${join(next, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` };
    const run2 = (args: string[]) => spawnSync('asimov', args, { cwd: elsewhere, env: env2, encoding: 'utf8', timeout: 60_000 });

    const stale = run2(['doctor', 'claude']);
    assert.equal(stale.status, 1, stale.stdout);
    assert.match(stale.stdout, /NOT PROTECTED/);
    assert.match(stale.stdout, /asimov wire --refresh/);
    const refreshed = run2(['wire', '--refresh']);
    assert.equal(refreshed.status, 0, refreshed.stdout + refreshed.stderr);
    assert.ok(readFileSync(settings, 'utf8').includes(join(next, 'lib/node_modules/asimov-firewall/bin/asimov.cjs')));
    assert.equal(run2(['doctor', 'claude']).status, 0);

    const gone = run2(['uninstall']);
    assert.equal(gone.status, 0, gone.stdout + gone.stderr);
    assert.match(gone.stdout, /npm uninstall -g asimov-firewall/);
    assert.ok(!existsSync(settings), 'the settings file wire created is removed');
  });
});

/** Newline-delimited JSON-RPC over stdio, one tool that would write a file. */
const TINY_SERVER = `
import { createInterface } from 'node:readline';
import { writeFileSync } from 'node:fs';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const m = JSON.parse(line);
  if (m.id === undefined) continue;
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'tiny', version: '1.0.0' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'write_file', description: 'Writes a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } }] } });
  else if (m.method === 'tools/call') { writeFileSync(m.params.arguments.path, m.params.arguments.content); send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'written' }] } }); }
  else send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });
}
`;

type Version = [number, number, number];

/**
 * Whether a version satisfies an `engines` range of the forms in use: alternatives joined by `||`, each a
 * space-separated list of `>=`, `>`, `<=`, `<`, `=`, `^` or bare versions (missing parts are 0). null: a form it
 * does not read. Enough to check by hand without a semver library, which is not a dependency of ours.
 */
function nodeSatisfies(range: string, v: Version): boolean | null {
  const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  let any = false;
  for (const alt of range.split('||')) {
    let all = true;
    for (const part of alt.replace(/(>=|<=|>|<|=|\^)\s+/g, '$1').trim().split(/\s+/).filter(Boolean)) {
      const m = /^(>=|<=|>|<|=|\^)?\s*v?(\d+)(?:\.(\d+|x))?(?:\.(\d+|x))?$/.exec(part);
      if (!m) return null;
      const want: Version = [Number(m[2]), Number(m[3] === 'x' ? 0 : (m[3] ?? 0)), Number(m[4] === 'x' ? 0 : (m[4] ?? 0))];
      const c = cmp(v, want);
      const op = m[1] ?? '=';
      const holds =
        op === '>=' ? c >= 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : op === '<' ? c < 0
        : op === '^' ? c >= 0 && v[0] === want[0]
        : m[3] === undefined ? v[0] === want[0] : m[4] === undefined ? v[0] === want[0] && v[1] === want[1] : c === 0;
      if (!holds) all = false;
    }
    if (all) any = true;
  }
  return any;
}
