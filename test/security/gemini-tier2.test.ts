// Red team: Gemini CLI tier 2 (src/wire/gemini-tools.ts). With `asimov wire gemini --tier 2` the model must be
// offered no tool of Gemini's own that runs a command, writes a file or fetches a URL. Checked on what the real
// Gemini CLI 0.61 offers the model in its first request (no tool is called).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { geminiRunInfo, geminiSession } from '../helpers/gemini-cli.ts';
import { scratch, type Scratch } from './scratch.ts';

const BIN = resolve(import.meta.dirname, '../../bin/asimov.cjs');
/**
 * Read the 0.61 bundle for what each does: listing and globbing names, web search, plans and to-dos, the
 * task tracker (its own JSON under ~/.gemini/tmp), asking the user, its own docs, sub-agents (a sub-agent's
 * own tool list meets the same policy rule, so it gets no denied tool even if its definition names one:
 * verified with the real CLI in test/e2e/gemini-tier2.test.ts), skills (activate_skill returns a skill's
 * instructions; Gemini itself asks before it).
 */
const HARMLESS = new Set([
  'list_directory', 'glob', 'google_web_search', 'write_todos', 'enter_plan_mode', 'exit_plan_mode', 'ask_user',
  'get_internal_docs', 'complete_task', 'update_topic', 'activate_skill', 'invoke_agent',
  'codebase_investigator', 'cli_help', 'generalist',
  'tracker_add_dependency', 'tracker_create_task', 'tracker_get_task', 'tracker_list_tasks', 'tracker_update_task', 'tracker_visualize',
  'list_mcp_resources', 'read_mcp_resource',
  // A background shell's list and output: without run_shell_command none can be started.
  'list_background_processes', 'read_background_output',
  'mcp_asimov_bash', 'mcp_asimov_read', 'mcp_asimov_write', 'mcp_asimov_edit',
]);

let s: Scratch;
before(() => {
  s = scratch('asimov-rt-gemini-t2-');
  mkdirSync(join(s.home, '.gemini'), { recursive: true });
  writeFileSync(join(s.home, '.gemini', 'settings.json'), '{ "security": { "auth": { "selectedType": "gemini-api-key" } } }\n');
  writeFileSync(join(s.home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [s.project]: 'TRUST_FOLDER' }));
  const r = spawnSync(process.execPath, [BIN, 'wire', 'gemini', '--tier', '2'], { cwd: s.project, env: { PATH: process.env.PATH ?? '', HOME: s.home }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
after(() => s?.cleanup());

test('held: Gemini 0.61 at tier 2 offers the model only listing, planning and asimov\'s gated tools', async () => {
  const { run, offered } = await geminiSession([], { home: s.home, project: s.project, env: { ASIMOV_AUDIT_LOG: join(s.root, 'audit.jsonl') } });
  assert.equal(run.code, 0, geminiRunInfo(run));
  assert.ok(offered.includes('mcp_asimov_bash'), offered.join(', '));
  const unexpected = offered.filter((t) => !HARMLESS.has(t));
  assert.deepEqual(unexpected, [], `offered: ${offered.join(', ')}`);
});
