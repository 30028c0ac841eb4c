// The OpenAPI document kept in the repository (docs/openapi.json) is the one the routes generate, and it
// describes exactly the routes a running server registers: no route missing from it, none it invents.
// Regenerate it with: node scripts/build.mjs && node bin/asimov.cjs serve openapi > docs/openapi.json

import { SCOPES } from '../../src/store/tokens.ts';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument, openApiPath } from '../../src/server/openapi.ts';
import { allRoutes } from '../../src/server/routes/index.ts';
import { VERSION } from '../../src/cli/version.ts';
import { startTestServer, type TestServer } from '../helpers/serve.ts';

const ROOT = join(import.meta.dirname, '../..');
const committed = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8'));

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.close());

test('docs/openapi.json is the document the route declarations generate', () => {
  const generated = openApiDocument(allRoutes({} as never), VERSION);
  assert.deepEqual(committed, generated, 'regenerate: node scripts/build.mjs && node bin/asimov.cjs serve openapi > docs/openapi.json');
});

test('the document lists exactly the routes the running server registered', () => {
  const inDoc = new Set<string>();
  for (const [path, ops] of Object.entries(committed.paths as Record<string, Record<string, unknown>>)) {
    for (const m of Object.keys(ops)) inDoc.add(`${m.toUpperCase()} ${path}`);
  }
  const registered = new Set(s.server.app.asimovRoutes.map((r) => `${r.method} ${openApiPath(r.url).path}`));
  assert.deepEqual([...registered].filter((r) => !inDoc.has(r)), [], 'routes the server has that the document lacks');
  assert.deepEqual([...inDoc].filter((r) => !registered.has(r)), [], 'routes the document names that the server lacks');
});

test('the server serves the same document, and every protected operation names its scope', async () => {
  const served = (await s.call('GET', '/openapi.json')).body;
  assert.deepEqual({ ...served, info: { ...served.info, version: VERSION } }, committed);
  assert.equal(committed.openapi, '3.1.0');
  for (const [path, ops] of Object.entries(committed.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      assert.ok(op.operationId && op.summary && op.responses, `${method} ${path}`);
      if (op.security.length > 0) {
        for (const scope of [op['x-asimov-scope']].flat()) assert.ok((SCOPES as readonly string[]).includes(scope), `${method} ${path}`);
        assert.ok(op.responses['401'] && op.responses['403'], `${method} ${path} documents its auth failures`);
      }
      for (const p of path.match(/\{[^}]+\}/g) ?? []) {
        assert.ok(op.parameters?.some((x: { in: string; name: string }) => x.in === 'path' && `{${x.name}}` === p), `${method} ${path} declares ${p}`);
      }
    }
  }
  const ids = Object.values(committed.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
  assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
});
