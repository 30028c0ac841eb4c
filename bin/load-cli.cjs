// Loads dist/cli.cjs with the V8 code cache that the build wrote beside it, so a process that starts
// per tool call does not compile a megabyte of JavaScript every time. A missing, stale or rejected
// cache only costs speed: the source is always what runs.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const { isAscii } = require('node:buffer');

const CLI = path.join(__dirname, '..', 'dist', 'cli.cjs');
const CACHE = `${CLI}.cache`;

/**
 * V8 checks a code cache against the source's length only, so the build writes a build id into the first
 * line of the bundle and into the cache's key file; a cache is used only for the build that made it.
 * (File times are no key: copies and npm installs change them.)
 */
function buildId(source) {
  const m = /^\/\*asimov-build:([0-9a-f-]+)\*\//.exec(source);
  return m ? m[1] : null;
}

/**
 * dist/cli.cjs as a string. The build keeps it ASCII (scripts/build.mjs warns when it is not), and ASCII
 * decoded as latin1 is exact and several milliseconds cheaper than UTF-8 decoding a megabyte; checking
 * that it is ASCII costs a hundredth of a millisecond, so a bundle that is not is still read right.
 */
function readSource(file) {
  const bytes = fs.readFileSync(file);
  return isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.utf8Slice(0, bytes.length);
}

/** Compile and evaluate dist/cli.cjs; returns its exports and the compiled script (to make a cache). */
function loadCli() {
  const source = readSource(CLI);
  let cachedData;
  try {
    const id = buildId(source);
    if (id !== null && fs.readFileSync(`${CACHE}-key`, 'utf8') === id) cachedData = fs.readFileSync(CACHE);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), { filename: CLI, cachedData });
  const mod = { exports: {}, filename: CLI, id: CLI, loaded: false };
  const req = Module.createRequire(CLI);
  script.runInThisContext()(mod.exports, req, mod, CLI, path.dirname(CLI));
  return { cli: mod.exports, script, cacheUsed: cachedData !== undefined && !script.cachedDataRejected };
}

module.exports = { loadCli, buildId, readSource, CLI, CACHE };
