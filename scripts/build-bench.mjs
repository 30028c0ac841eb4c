// Bundles the bench into one plain ES module (bench/out/bench.mjs) so that it runs on plain node.
// Run through tsx instead, every module it loads (dist/index.js included) would be re-transformed with
// per-function name wrappers, and the speed figures would measure tsx rather than what ships.
import { build } from 'esbuild';

await build({
  entryPoints: ['bench/run.ts'],
  outfile: 'bench/out/bench.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  // autocannon loads its own files (workers, the HTTP parser) by path: it runs from node_modules as published.
  external: ['autocannon'],
  // The bench finds the repository from its own place; the bundle sits one level deeper.
  define: { 'import.meta.dirname': '__benchDir' },
  banner: {
    js: [
      "import { createRequire as __benchRequire } from 'node:module';",
      "import { dirname as __benchDirname } from 'node:path';",
      "import { fileURLToPath as __benchToPath } from 'node:url';",
      'const require = __benchRequire(import.meta.url);',
      'const __benchDir = __benchDirname(__benchDirname(__benchToPath(import.meta.url)));',
    ].join('\n'),
  },
});
