// Builds dist/: the CLI as one CommonJS file with a V8 code cache, the library as one ES module, and
// type declarations. A hook process starts per tool call, so start-up time is part of every action an
// agent takes: one CommonJS file skips Node's ES module loader, and the code cache skips compiling it.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from './build-web.mjs';
import { recommendedHash } from './builtin-hash.mjs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
// jsonc-parser's main entry is a UMD wrapper whose require() calls esbuild cannot follow (they fail at run
// time with "Cannot find module './impl/format'"); its ES module build bundles cleanly.
// The model SDKs stay outside the bundles (they are runtime dependencies, loaded from node_modules): only
// a call that reaches the judge needs one, and bundled they would cost every hook process their parsing.
const common = {
  bundle: true, platform: 'node', target: 'node20', legalComments: 'none', logLevel: 'warning',
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // asimov serve's framework and embedded database are runtime dependencies too: PGlite loads its
  // WebAssembly and data files from beside its own module, and neither is paid for by a hook process.
  // The OpenTelemetry SDK (audit/otlp.ts) is imported only when an OTLP export is configured; node-postgres
  // (`serve --database`) likewise, and its optional native binding (pg-native) is never installed.
  external: ['@anthropic-ai/sdk', '@anthropic-ai/sdk/*', 'openai', 'openai/*', 'fastify', '@fastify/rate-limit', '@electric-sql/pglite', '@opentelemetry/*', 'pg', 'pg-native'],
};

/*
 * The CLI is split in two. dist/cli.cjs holds what runs per tool call (check, explain, hook: the shell
 * analysis, the rules, the gate, the audit) and is loaded with a code cache. Everything a person runs now and
 * then (wire, doctor, init, mcp, judge eval…) and the judge itself sit in their own bundles beside it, loaded
 * by the dynamic import() that names them, so a hook process neither reads nor deserializes them.
 */
const COLD = {
  'src/cli/init.ts': 'cmd-init', 'src/cli/test-cmd.ts': 'cmd-test', 'src/cli/trust.ts': 'cmd-trust',
  'src/cli/rules-cmd.ts': 'cmd-rules', 'src/cli/policy-cmd.ts': 'cmd-policy', 'src/cli/audit-cmd.ts': 'cmd-audit',
  'src/cli/wire-cmd.ts': 'cmd-wire', 'src/cli/doctor-cmd.ts': 'cmd-doctor', 'src/cli/judge-cmd.ts': 'cmd-judge',
  'src/cli/mcp-cmd.ts': 'cmd-mcp', 'src/cli/mcp-proxy-cmd.ts': 'cmd-mcp-proxy', 'src/cli/mcp-tools-cmd.ts': 'cmd-mcp-tools',
  'src/cli/mcp-scan-cmd.ts': 'cmd-mcp-scan', 'src/cli/mcp-pins-cmd.ts': 'cmd-mcp-pins', 'src/cli/mcp-allow-cmd.ts': 'cmd-mcp-allow',
  'src/judge/review.ts': 'judge-review', 'src/cli/active-banner.ts': 'cmd-banner',
  'src/cli/uninstall-cmd.ts': 'cmd-uninstall', 'src/cli/serve-cmd.ts': 'cmd-serve',
  'src/cli/approvals-cmd.ts': 'cmd-approvals', 'src/cli/serve-policy-cmd.ts': 'cmd-serve-policy',
};
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const splitCold = (self) => ({
  name: 'split-cold',
  setup(b) {
    b.onResolve({ filter: /\.ts$/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const name = COLD[relative(ROOT, resolve(args.resolveDir, args.path)).split(sep).join('/')];
      if (!name || name === self) return undefined;
      return { path: name, namespace: 'asimov-cold' };
    });
    // The import() becomes a require() of the sibling bundle, run when the import() runs: a CommonJS bundle
    // evaluated through vm.Script (bin/load-cli.cjs) has no loader for a real import(). Every bundle sits in
    // dist/, so the path is the same from each of them.
    b.onLoad({ filter: /.*/, namespace: 'asimov-cold' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(`./${args.path}.cjs`)});`, loader: 'js' }));
    b.onResolve({ filter: /^\.\/(cmd|judge)-[a-z-]+\.cjs$/ }, (args) => ({ path: args.path, external: true }));
  },
});
// The build id ties dist/cli.cjs.cache to this exact build (bin/load-cli.cjs checks it), and tells a client
// whether the resident daemon runs the same build as its own files (src/cli/daemon/build-id.ts).
const BUILD_ID = randomUUID();
// The built-in pack's hash, which every policy load would otherwise compute (src/policy/builtin-hash.ts).
const BUILTIN_HASH = await recommendedHash();
const cjs = {
  ...common, outdir: 'dist', format: 'cjs', outExtension: { '.js': '.cjs' }, sourcemap: 'linked', minify: true, keepNames: true,
  // import.meta.url has no CommonJS equivalent of its own; give it the bundle's own URL.
  define: { 'import.meta.url': '__asimovImportMetaUrl', __ASIMOV_BUILD_ID__: JSON.stringify(BUILD_ID), __ASIMOV_BUILTIN_HASH__: JSON.stringify(BUILTIN_HASH) },
};
const metaUrl = "var __asimovImportMetaUrl = require('node:url').pathToFileURL(__filename).href;";
await build({ ...cjs, entryPoints: { cli: 'src/cli/main.ts' }, plugins: [splitCold('cli')],
  banner: { js: `/*asimov-build:${BUILD_ID}*/\n${metaUrl}` },
});
// bin/load-cli.cjs reads an ASCII bundle as latin1, much cheaper than UTF-8 per hook process. esbuild escapes
// non-ASCII text in strings but not in regular expression literals: write such characters as \u escapes.
if (!isAscii(readFileSync(new URL('../dist/cli.cjs', import.meta.url)))) {
  console.warn('build: dist/cli.cjs is not ASCII (a non-ASCII character in a regular expression?), so each hook process decodes it as UTF-8');
}
await Promise.all(Object.entries(COLD).map(([entry, name]) =>
  build({ ...cjs, entryPoints: { [name]: entry }, plugins: [splitCold(name)], banner: { js: metaUrl } })));

// The library, for `import { createGate } from 'asimov'`.
await build({
  ...common,
  entryPoints: { index: 'src/index.ts' },
  outdir: 'dist',
  format: 'esm',
  sourcemap: 'linked',
  // CommonJS dependencies bundled into an ES module need a require() of their own.
  banner: { js: "import { createRequire as __asimovCreateRequire } from 'node:module'; const require = __asimovCreateRequire(import.meta.url);" },
});

// The dashboard's page, served by asimov serve from dist/web/.
await buildWeb();

function run(args, what) {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build: ${what} failed`);
    process.exit(r.status ?? 1);
  }
}

// The code cache: compile the CLI, run it on typical calls so the hot functions are compiled too, save.
run(['scripts/warm-cache.cjs'], 'the code cache');

// Type declarations for library users.
run([createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], 'tsc');
