#!/usr/bin/env node
// The `asimov` command. Everything lives in the bundled CLI (dist/cli.cjs); this file only loads it, after
// giving a resident daemon, when one runs, the chance to answer a hook or a check (bin/daemon-client.cjs).
'use strict';
const argv = process.argv.slice(2);
const client = require('./daemon-client.cjs');

if (client.eligible(argv, process.env)) {
  client.viaDaemon(argv, process.env).then((r) => (r.reply ? client.finish(r.reply) : runHere(r.io)));
} else {
  runHere(undefined);
}

/** Decides in this process; `handover` carries the stdin the daemon client already read, and the start time. */
function runHere(handover) {
  let loaded;
  try {
    loaded = require('./load-cli.cjs').loadCli();
  } catch (e) {
    process.stderr.write(`asimov: cannot load its program (${e && e.code === 'ENOENT' ? 'dist/cli.cjs is missing: run `npm run build`' : e}).\n`);
    process.exit(1);
  }
  const io = handover ? Object.assign(loaded.cli.processIO(), handover) : undefined;
  // A hook must reply and be gone: a request the deadline abandoned (a slow judge) must not keep it alive
  // until the watchdog kills it. Other commands end when their work does.
  const isHook = argv[0] === 'hook';
  loaded.cli.main(argv, io).then(
    (code) => {
      process.exitCode = code;
      if (isHook) process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
    },
    (e) => { process.stderr.write(`asimov: ${e && e.message ? e.message : e}\n`); process.exitCode = 1; },
  );
}
