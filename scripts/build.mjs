// Builds dist/: the CLI as one CommonJS file with a V8 code cache, the library as one ES module, and
// type declarations. A hook process starts per tool call, so start-up time is part of every action an
// agent takes: one CommonJS file skips Node's ES module loader, and the code cache skips compiling it.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
// jsonc-parser's main entry is a UMD wrapper whose require() calls esbuild cannot follow (they fail at run
// time with "Cannot find module './impl/format'"); its ES module build bundles cleanly.
// The model SDKs stay outside the bundles (they are runtime dependencies, loaded from node_modules): only
// a call that reaches the judge needs one, and bundled they would cost every hook process their parsing.
const common = {
  bundle: true, platform: 'node', target: 'node20', legalComments: 'none', logLevel: 'warning',
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  external: ['@anthropic-ai/sdk', '@anthropic-ai/sdk/*', 'openai', 'openai/*'],
};

// The CLI. Modules behind a dynamic import() are still only evaluated when that import runs.
// Minified: less to read and to keep in memory at start-up; the source map keeps stack traces readable.
await build({ ...common, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', format: 'cjs', outExtension: { '.js': '.cjs' }, sourcemap: 'linked', minify: true, keepNames: true,
  // import.meta.url has no CommonJS equivalent of its own; give it the bundle's own URL.
  define: { 'import.meta.url': '__asimovImportMetaUrl' },
  // The build id ties dist/cli.cjs.cache to this exact build (bin/load-cli.cjs checks it).
  banner: { js: `/*asimov-build:${randomUUID()}*/\nvar __asimovImportMetaUrl = require('node:url').pathToFileURL(__filename).href;` },
});

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
