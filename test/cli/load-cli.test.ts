// The CLI loader: it uses the build's V8 code cache, and never a cache made from other source.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAscii } from 'node:buffer';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

test('the built CLI loads with its code cache, and a changed source is compiled afresh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'asimov-loader-'));
  try {
    mkdirSync(join(dir, 'bin'));
    cpSync(join(ROOT, 'bin', 'load-cli.cjs'), join(dir, 'bin', 'load-cli.cjs'));
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    const load = () => {
      const req = createRequire(join(dir, 'bin', 'x.cjs'));
      delete req.cache[join(dir, 'bin', 'load-cli.cjs')];
      return (req('./load-cli.cjs') as { loadCli: () => { cli: { main: unknown }; cacheUsed: boolean } }).loadCli();
    };
    const first = load();
    assert.equal(first.cacheUsed, true);
    assert.equal(typeof first.cli.main, 'function');
    // A rebuilt bundle carries a new build id: the old cache must not be used for it.
    const file = join(dir, 'dist', 'cli.cjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^\/\*asimov-build:[0-9a-f-]+/, '/*asimov-build:00000000-0000-4000-8000-000000000000'));
    const second = load();
    assert.equal(second.cacheUsed, false);
    assert.equal(typeof second.cli.main, 'function');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the per-call bundle leaves the occasional commands and the judge to their own bundles', () => {
  const hot = readFileSync(join(ROOT, 'dist', 'cli.cjs'), 'utf8');
  // Function names as the minified bundles keep them (keepNames writes each as a string literal).
  const split: Array<[string, string]> = [['cmd-wire.cjs', '"planClaudeHooks"'], ['cmd-doctor.cjs', '"doctorClaude"'], ['judge-review.cjs', '"createJudgeStep"'], ['cmd-judge.cjs', '"judgeCommand"']];
  for (const [bundle, marker] of split) {
    assert.ok(!hot.includes(marker), `dist/cli.cjs holds ${marker}`);
    assert.ok(readFileSync(join(ROOT, 'dist', bundle), 'utf8').includes(marker), `dist/${bundle} lacks ${marker}`);
  }
  // The hook path itself stays in the per-call bundle.
  assert.ok(hot.includes('"hookCommand"') && hot.includes('"claudeProtocol"'));
});

test('the bundle is read as latin1 only when it is ASCII, so any other bundle keeps its UTF-8 text', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'asimov-loader-text-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { readSource } = createRequire(import.meta.url)(join(ROOT, 'bin', 'load-cli.cjs')) as { readSource(file: string): string };
  const ascii = join(dir, 'ascii.cjs');
  const utf8 = join(dir, 'utf8.cjs');
  writeFileSync(ascii, 'module.exports = /x|\\u2026/;\n');
  writeFileSync(utf8, 'module.exports = /x|…|é/;\n');
  assert.equal(readSource(ascii), 'module.exports = /x|\\u2026/;\n');
  assert.equal(readSource(utf8), 'module.exports = /x|…|é/;\n');
});

test('the built per-call bundle is ASCII, which the loader reads without UTF-8 decoding', () => {
  assert.equal(isAscii(readFileSync(join(ROOT, 'dist', 'cli.cjs'))), true, 'a non-ASCII character in the bundle: write it as a \\u escape in the source');
});
