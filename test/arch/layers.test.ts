// Dependencies point one way (DESIGN §8): core <- content <- shell <- policy <- audit/judge/store <- gate/exec <- adapters/wire/server <- cli.
// This test reads every import in src/ and fails on one that points up the stack.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dirname, '../../src');
// content/ (what a call carries: secrets, commands that files run later, inline code, payloads) is pure
// text analysis with no policy knowledge, below the shell analysis that uses its decoders.
// store/ (the embedded database and its tables) needs only core; server/ (asimov serve's HTTP routes) sits
// beside the other adapters; web/ (the dashboard's front end) is built for the browser and imported by nothing.
const RANK: Record<string, number> = { core: 0, content: 1, shell: 2, policy: 3, audit: 4, judge: 4, store: 4, gate: 5, exec: 5, adapters: 6, wire: 6, server: 6, cli: 7, web: 8 };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0]!;
}

test('every source directory has a place in the layer order', () => {
  for (const f of files(SRC)) {
    const layer = layerOf(f);
    if (layer.endsWith('.ts')) continue; // src/index.ts, the public entry, sits on top
    assert.ok(layer in RANK, `${relative(SRC, f)}: directory ${layer} is not in the layer order`);
  }
});

test('no module imports from a layer above its own', () => {
  const bad: string[] = [];
  for (const f of files(SRC)) {
    const layer = layerOf(f);
    if (layer.endsWith('.ts')) continue;
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
      const spec = m[1] ?? m[2]!;
      const target = resolve(dirname(f), spec);
      const tl = layerOf(target);
      if (tl.endsWith('.ts')) continue;
      if ((RANK[tl] ?? 99) > (RANK[layer] ?? -1)) bad.push(`${relative(SRC, f)} imports ${spec} (${layer} -> ${tl})`);
    }
  }
  assert.deepEqual(bad, []);
});
