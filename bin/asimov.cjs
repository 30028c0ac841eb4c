#!/usr/bin/env node
// The `asimov` command. Everything lives in the bundled CLI (dist/cli.cjs); this file only loads it, after
// giving a resident daemon, when one runs, the chance to answer a hook or a check (bin/daemon-client.cjs).
// A hook line that `asimov wire` installed starts bin/hook-first-stage.pl first, which asks the daemon without
// node at all and execs this file only when the call must be decided here.
'use strict';
const argv = process.argv.slice(2);
const client = require('./daemon-client.cjs');
const isHook = argv[0] === 'hook';

const fromFirstStage = client.firstStageHandover(process.env);
if (fromFirstStage !== null) {
  // The first stage already asked the daemon (or knew there was none): decide here, from the client's start.
  runHere({ started: fromFirstStage.started }, client.wantsDaemon(fromFirstStage.why));
} else if (client.eligible(argv, process.env)) {
  // `asimov hook` started without the first stage (a line written before it, a script): a daemon that runs is
  // used, none is started (the line that profits from one is the first stage's; `asimov wire --refresh`).
  client.viaDaemon(argv, process.env).then((r) => (r.reply ? client.finish(r.reply) : runHere(r.io, false)));
} else {
  runHere(undefined, false);
}

/**
 * Decides in this process; `handover` carries the stdin the daemon client already read, and the start time.
 * `startDaemon`: a hook call of the installed line that found no daemon (or an old one) starts one for the
 * calls after it, once it has answered.
 */
function runHere(handover, startDaemon) {
  let loaded;
  try {
    loaded = require('./load-cli.cjs').loadCli();
  } catch (e) {
    process.stderr.write(`asimov: cannot load its program (${e && e.code === 'ENOENT' ? 'dist/cli.cjs is missing: run `npm run build`' : e}).\n`);
    process.exit(1);
  }
  const io = handover ? Object.assign(isHook ? loaded.cli.hookProcessIO() : loaded.cli.processIO(), handover) : undefined;
  // A hook must reply and be gone: a request the deadline abandoned (a slow judge) must not keep it alive
  // until the watchdog kills it. Its reply went out with synchronous writes (src/cli/fd-io.ts), so nothing
  // is left to flush. Other commands end when their work does.
  loaded.cli.main(argv, io).then(
    (code) => {
      process.exitCode = code;
      if (!isHook) return;
      if (startDaemon) client.autostartDaemon(process.env);
      process.exit(code);
    },
    (e) => { process.stderr.write(`asimov: ${e && e.message ? e.message : e}\n`); process.exitCode = 1; },
  );
}
