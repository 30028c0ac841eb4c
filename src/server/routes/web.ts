// The dashboard's page: dist/web/ (index.html, app.js, app.css), built from src/web/ by scripts/build.mjs.
// Public, because the shell holds no data: everything it shows comes from the API, which needs a token.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import type { ServerDeps } from '../deps.ts';
import { HttpError, route, type RouteSpec } from '../route.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

/**
 * The page may load only what this server serves and talk only to it. Styles may be inline attributes
 * (uPlot sizes its canvas that way); scripts may not.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * dist/web: beside the bundle (dist/cmd-serve.cjs, dist/index.js run from dist/), or under the checkout
 * when this source file runs unbundled (src/server/routes/ -> dist/web).
 */
export function webDir(from: string = dirname(fileURLToPath(import.meta.url))): string | null {
  let dir = from;
  for (let i = 0; i < 5; i++) {
    for (const cand of [join(dir, 'web'), join(dir, 'dist', 'web')]) {
      if (existsSync(join(cand, 'index.html')) && existsSync(join(cand, 'app.js'))) return cand;
    }
    dir = dirname(dir);
  }
  return null;
}

export function webRoutes(_deps: ServerDeps): RouteSpec<any, any, any>[] {
  let dir: string | null | undefined;
  const serve = (name: string, reply: RouteSpecReply): Buffer => {
    dir ??= webDir();
    if (dir === null) throw new HttpError(404, 'not_found', 'The dashboard is not built (dist/web/ is missing): run `node scripts/build.mjs`.');
    // Only the files the build wrote, by their plain names: no paths, no dot files.
    const files = readdirSync(dir);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || !files.includes(name) || !(extname(name) in TYPES)) {
      throw new HttpError(404, 'not_found', `No dashboard file '${name}'.`);
    }
    void reply
      .header('content-type', TYPES[extname(name)]!)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('content-security-policy', CONTENT_SECURITY_POLICY);
    return readFileSync(join(dir, name));
  };
  return [
    route({
      method: 'GET', url: '/', scope: null, tag: 'dashboard', summary: 'The dashboard (an HTML shell; its data comes from the API)',
      produces: 'text/html', unlimited: true,
      handler: (ctx) => serve('index.html', ctx.reply),
    }),
    route<unknown, { file: string }>({
      method: 'GET', url: '/assets/:file', scope: null, tag: 'dashboard', summary: 'The dashboard\'s script and style sheet',
      params: z.object({ file: z.string().min(1).max(100) }),
      produces: 'application/octet-stream', unlimited: true,
      handler: (ctx) => {
        if (ctx.params.file === 'index.html') throw new HttpError(404, 'not_found', 'No dashboard file \'index.html\' under /assets.');
        return serve(ctx.params.file, ctx.reply);
      },
    }),
  ];
}

type RouteSpecReply = Parameters<RouteSpec['handler']>[0]['reply'];
