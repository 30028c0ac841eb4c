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
loaded.cli.main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e) => { process.stderr.write(`asimov: ${e && e.message ? e.message : e}\n`); process.exitCode = 1; },
);
