// Red team: the resident daemon (src/cli/daemon/*, bin/daemon-client.cjs). A process that listens at the
// daemon's socket answers every hook; the socket's directory must therefore be asimov's own configuration to
// the path rules (src/policy/paths.ts asimov-config). Decided through the gate only: nothing here runs a shell.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { socketPathFor, currentUid } from '../../src/cli/daemon/socket-path.ts';
import { decideAs, scratch, scratchGate } from './scratch.ts';

test(
  'FINDING: with XDG_RUNTIME_DIR outside /run/user/<uid> (containers, WSL, CI), the socket directory is not asimov-config',
  async () => {
    const s = scratch('asimov-rt-daemon-');
    try {
      const runtime = join(s.decoy, 'runtime');
      mkdirSync(runtime, { mode: 0o700 });
      const env = { XDG_RUNTIME_DIR: runtime };
      const sock = socketPathFor({ HOME: s.home, ...env });
      assert.equal(dirname(sock), join(runtime, 'asimov'), 'the daemon would listen here');
      const gate = scratchGate(s, env);
      // Making the private directory, and clearing the way for a listener of the agent's own (any allowed
      // project script can listen on a unix socket; bin/daemon-client.cjs then sends it every hook call).
      const allowed: string[] = [];
      for (const command of [`mkdir -p -m 700 ${dirname(sock)}`, `rm -f ${sock}`, `mv ${sock} ${sock}.old`]) {
        const d = await decideAs(gate, 'Bash', { command }, s.project);
        if (d.verdict === 'allow') allowed.push(`${command} [${d.rule}]`);
      }
      assert.deepEqual(allowed, [], allowed.join('\n'));
    } finally {
      s.cleanup();
    }
  },
);

test('held: the default socket directories are asimov-config (~/.cache/asimov/run, /tmp/asimov-<uid>, /run/user/<uid>/asimov)', async () => {
  const s = scratch('asimov-rt-daemon-held-');
  try {
    const gate = scratchGate(s);
    const uid = currentUid();
    for (const dir of [join(s.home, '.cache', 'asimov', 'run'), `/tmp/asimov-${uid}`, `/run/user/${uid}/asimov`]) {
      for (const command of [`mkdir -p -m 700 ${dir}`, `rm -f ${dir}/d.sock`, `ln -s ${s.decoy} ${dir}`]) {
        const d = await decideAs(gate, 'Bash', { command }, s.project);
        assert.notEqual(d.verdict, 'allow', `${command}: ${d.reason}`);
      }
    }
  } finally {
    s.cleanup();
  }
});
