// The recommended pack's hash, computed from the source at build time (src/policy/builtin-hash.ts), for
// scripts/build.mjs to define in the bundle. The pack is bundled on its own and run in a child node, with
// the very function the policy loader uses from source: the two cannot disagree on the format.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function recommendedHash() {
  const entry = [
    "import { builtinPackHash } from './src/policy/builtin-hash.ts';",
    "import { recommended } from './src/policy/rules/index.ts';",
    'process.stdout.write(builtinPackHash(recommended));',
  ].join('\n');
  const out = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'ts' },
    bundle: true, platform: 'node', target: 'node20', format: 'cjs', write: false, logLevel: 'warning',
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    define: { 'import.meta.url': '__hashImportMetaUrl' },
    banner: { js: "var __hashImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  const r = spawnSync(process.execPath, ['-'], { cwd: ROOT, input: out.outputFiles[0].text, encoding: 'utf8' });
  if (r.status !== 0 || !/^[0-9a-f]{64}$/.test(r.stdout)) throw new Error(`the built-in pack's hash could not be computed: ${r.stderr || r.stdout}`);
  return r.stdout;
}
