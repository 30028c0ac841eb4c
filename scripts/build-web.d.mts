// Types of scripts/build-web.mjs, for the tests that build the dashboard's page before serving it.
/** Writes the page (index.html, app.js, app.css) into `outDir` (default dist/web); resolves to that directory. */
export function buildWeb(outDir?: string): Promise<string>;
