#!/usr/bin/env node
// The `asimov` command. Everything lives in the bundled CLI (dist/cli.cjs); this file only loads it.
'use strict';
let loaded;
try {
  loaded = require('./load-cli.cjs').loadCli();
} catch (e) {
  process.stderr.write(`asimov: cannot load its program (${e && e.code === 'ENOENT' ? 'dist/cli.cjs is missing: run `npm run build`' : e}).\n`);
  process.exit(1);
}
// A hook must reply and be gone: a request the deadline abandoned (a slow judge) must not keep it alive
// until the watchdog kills it. Other commands end when their work does.
const isHook = process.argv[2] === 'hook';
loaded.cli.main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    if (isHook) process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  },
  (e) => { process.stderr.write(`asimov: ${e && e.message ? e.message : e}\n`); process.exitCode = 1; },
);
