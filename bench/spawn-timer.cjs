// Times child processes for the start-up measurement, from a process of its own. Spawning from the bench
// itself (a large heap after the corpora) makes every fork slower by the same few tens of milliseconds,
// which hides most of asimov's own start-up in the ratio; a small parent measures what a client sees.
// Input (argv[2]): JSON { runs: [{ file?, args, input? }], cwd, env }, or @FILE holding it; `file` is the
// program to run (default: this node). Output: JSON [{ ms, status, stderr }].
'use strict';
const { spawnSync } = require('node:child_process');

// `@FILE`: the spec is in that file (a batch's input is larger than one argument may be).
const arg = process.argv[2];
const spec = JSON.parse(arg.startsWith('@') ? require('node:fs').readFileSync(arg.slice(1), 'utf8') : arg);
const out = spec.runs.map((r) => {
  const t0 = process.hrtime.bigint();
  // A batch's answers run to megabytes: past spawnSync's default 1 MiB buffer the child would be killed mid-run.
  const c = spawnSync(r.file ?? process.execPath, r.args, { cwd: spec.cwd, env: spec.env, input: r.input ?? '', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: c.status, stderr: (c.stderr || '').slice(0, 500) };
});
process.stdout.write(JSON.stringify(out));
