// Builds the dashboard's page (src/web/) into dist/web/: index.html, app.js (preact, uPlot and the app in one
// ES module) and app.css. Everything is bundled here, so the page loads nothing from elsewhere and works
// offline. Run by scripts/build.mjs; a test that needs only the page can run this alone.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Writes the page into `outDir` (default dist/web). */
export async function buildWeb(outDir = join(ROOT, 'dist', 'web')) {
  mkdirSync(outDir, { recursive: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: { app: 'src/web/main.tsx' },
    outdir: outDir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
    tsconfig: 'src/web/tsconfig.json',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  copyFileSync(join(ROOT, 'src', 'web', 'page.html'), join(outDir, 'index.html'));
  return outDir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildWeb(process.argv[2]);
