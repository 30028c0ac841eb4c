// Times child processes for the start-up measurement, from a process of its own. Spawning from the bench
// itself (a large heap after the corpora) makes every fork slower by the same few tens of milliseconds,
// which hides most of asimov's own start-up in the ratio; a small parent measures what a client sees.
// Input (argv[2]): JSON { runs: [{ args, input? }], cwd, env }. Output: JSON [{ ms, status, stderr }].
'use strict';
const { spawnSync } = require('node:child_process');

const spec = JSON.parse(process.argv[2]);
const out = spec.runs.map((r) => {
  const t0 = process.hrtime.bigint();
  const c = spawnSync(process.execPath, r.args, { cwd: spec.cwd, env: spec.env, input: r.input ?? '', encoding: 'utf8' });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: c.status, stderr: (c.stderr || '').slice(0, 500) };
});
process.stdout.write(JSON.stringify(out));
