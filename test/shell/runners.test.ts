// Tests for shell/runners.ts: the program a tool runner runs, and its unwrapping.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeShell } from '../../src/shell/unwrap.ts';
import { binOfPackage } from '../../src/shell/runners.ts';

function inner(line: string): string[] {
  const a = analyzeShell(line);
  assert.equal(a.status, 'ok');
  return a.commands.filter((c) => c.wrappedBy !== undefined).map((c) => `${c.via.join('>')}: ${c.argv.map((w) => w.value).join(' ')}`);
}

test('a package spec names its program', () => {
  assert.equal(binOfPackage('aws-cdk@2'), 'cdk');
  assert.equal(binOfPackage('@scope/tool@1.2.3'), 'tool');
  assert.equal(binOfPackage('prisma'), 'prisma');
  assert.equal(binOfPackage('typescript'), 'tsc');
  assert.equal(binOfPackage('black==24.1'), 'black');
});

test('npx spellings: package, -p, --yes, @version, -c', () => {
  assert.deepEqual(inner('npx cdk destroy --all'), ['npx: cdk destroy --all']);
  assert.deepEqual(inner('npx -p aws-cdk cdk destroy'), ['npx: cdk destroy']);
  assert.deepEqual(inner('npx --yes aws-cdk@2 destroy --all'), ['npx: cdk destroy --all']);
  assert.deepEqual(inner("npx -c 'rm -rf dist'"), ['npx -c: rm -rf dist']);
});

test('options after the package belong to the package (npx tsc -p tsconfig.json)', () => {
  assert.deepEqual(inner('npx tsc -p tsconfig.json'), ['npx: tsc -p tsconfig.json']);
});

test('a short option cluster is read as the runner reads it: `-yp pkg` is `-y -p pkg`', () => {
  assert.deepEqual(inner('npx -yp typescript rm -rf dist'), ['npx: rm -rf dist']);
  assert.deepEqual(inner('npx -ptypescript tsc --noEmit'), ['npx: tsc --noEmit']);
  assert.deepEqual(inner("npx -yc 'rm -rf dist'"), ['npx -c: rm -rf dist']);
});

test('pnpm, yarn, bun, npm exec, uvx, uv tool run, pipx run', () => {
  assert.deepEqual(inner('pnpm dlx prisma migrate reset --force'), ['pnpm dlx: prisma migrate reset --force']);
  assert.deepEqual(inner('pnpm exec jest'), ['pnpm exec: jest']);
  assert.deepEqual(inner('yarn dlx aws-cdk destroy'), ['yarn dlx: cdk destroy']);
  assert.deepEqual(inner('bun x cdk destroy'), ['bun x: cdk destroy']);
  assert.deepEqual(inner('bunx cdk destroy'), ['bunx: cdk destroy']);
  assert.deepEqual(inner('npm exec -- cdk destroy --all'), ['npm exec: cdk destroy --all']);
  assert.deepEqual(inner('uvx --from aws-cdk cdk destroy'), ['uvx: cdk destroy']);
  assert.deepEqual(inner('uv tool run ruff check'), ['uv tool run: ruff check']);
  assert.deepEqual(inner('pipx run black .'), ['pipx run: black .']);
});

test('package-manager commands that run nothing else are not unwrapped', () => {
  assert.deepEqual(inner('npm test'), []);
  assert.deepEqual(inner('pnpm install'), []);
  assert.deepEqual(inner('yarn build'), []);
  assert.deepEqual(inner('npx --version'), []);
  assert.deepEqual(inner('uv run pytest'), ['uv run: pytest']);
});

test('docker compose exec/run hand their command over, as remote', () => {
  const a = analyzeShell("docker compose exec db psql -c 'DROP DATABASE app'");
  const c = a.commands.find((x) => x.wrappedBy !== undefined)!;
  assert.equal(c.argv[0]!.value, 'psql');
  assert.equal(c.remote, true);
  assert.deepEqual(inner('docker compose -f dc.yml run --rm -e A=1 web npm test'), ['docker compose run: npm test']);
  assert.deepEqual(inner('docker-compose exec -T web ls'), ['docker-compose exec: ls']);
  assert.deepEqual(inner('docker compose up -d'), []);
});
